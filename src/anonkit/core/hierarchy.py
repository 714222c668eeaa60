"""Generalization hierarchies (value generalization hierarchies, VGH).

A hierarchy has one row per original value and one column per level: column 0 is the
value itself, column ``i`` its generalization at level ``i`` and the last column the root,
usually ``*``. This is the CSV format used by ARX and by ``../shared/data/adult``.

Levels are numbered ``0 .. height - 1``; ``height`` is the number of columns, so a
suppression-only hierarchy (value -> ``*``) has height 2.
"""

from __future__ import annotations

import codecs
import csv
import io
import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from anonkit._arrays import IntArray
from anonkit._atomic import atomic_write_text
from anonkit._formats import csv_rows, other_format, refuse_nul
from anonkit._validation import Interval, Separator, check
from anonkit.exceptions import (
    HierarchyError,
    InputEncodingError,
    InputFileError,
    InputFormatError,
    ParameterError,
    ValuesNotInHierarchyError,
)

_SEPARATORS = (";", "\t", ",")
#: Lines of a hierarchy file :func:`detect_separator` reads (and characters, at most).
_SNIFFED_LINES = 20
_SNIFFED_CHARS = 1 << 16
_LEVEL = Interval(int)


def detect_separator(text: str) -> str:
    """Return the field separator of hierarchy CSV text (one line or more).

    Separators are counted outside quoted fields on each of the first lines (a quote
    opens a field only at its start, as a CSV reader reads it: ``5'2"`` is a label). The
    first of ``;``, tab and ``,`` that the first line holds and every line holds as often
    wins, ``;`` first because hierarchy labels often contain commas (``[20,30[``); failing
    that, the first one the first line holds; ``;`` when it holds none.

    Examples
    --------
    >>> detect_separator("29;[20,30[;*"), detect_separator('"Smith; John",S,*')
    (';', ',')
    """
    lines = _separator_counts(text)
    if not lines:
        return ";"
    first = lines[0]
    held = [sep for sep in _SEPARATORS if first[sep]]
    for sep in held:
        if all(line[sep] == first[sep] for line in lines):
            return sep
    return held[0] if held else ";"


def _separator_counts(text: str) -> list[dict[str, int]]:
    """How often each of :data:`_SEPARATORS` occurs outside quotes on each of the first
    non-blank lines of ``text`` (a quoted line break belongs to its field)."""
    sample = text[:_SNIFFED_CHARS]
    lines: list[dict[str, int]] = []
    counts = dict.fromkeys(_SEPARATORS, 0)
    quoted = closed = False
    start = blank = True
    for ch in sample:
        if quoted:
            if ch == '"':
                quoted, closed = False, True
            continue
        if ch == '"' and (start or closed):  # opens a field, or "" inside one
            quoted, blank = True, False
        elif ch in "\r\n":
            if not blank:
                lines.append(counts)
                if len(lines) == _SNIFFED_LINES:
                    return lines
            counts, blank = dict.fromkeys(_SEPARATORS, 0), True
        elif ch in counts:
            counts[ch] += 1
        elif not ch.isspace():
            blank = False
        start, closed = ch in counts or ch in "\r\n", False
    if not blank and not quoted and len(sample) == len(text):
        lines.append(counts)
    return lines


def _check_rows(
    rows: Sequence[Sequence[str]],
    place: Callable[[int], str],
    name: str | None,
    *,
    lines: bool = False,
) -> None:
    """Refuse ragged ``rows`` and empty labels, naming the row by ``place`` (of its index);
    ``lines``: the rows are a file's lines (an empty last label may be a separator at the
    end of one).

    Raises
    ------
    HierarchyError
        If a row has another number of levels than the first, or an empty label.
    """
    width = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != width:
            raise HierarchyError(
                f"{place(i)} has {len(row)} levels but {place(0)} has {width}; every row "
                "must have one column per level (is the separator right?).",
                column=name,
            )
        if any(not cell.strip() for cell in row):
            end = " (a separator at the end of the line?)" if lines and not row[-1].strip() else ""
            raise HierarchyError(f"{place(i)} has an empty label{end}.", column=name)


def _check_separator(separator: object, owner: str) -> None:
    """Refuse a ``separator`` to read with that the csv module cannot use (``None``:
    detect it); any one character but a quote or a line break, as a hierarchy table's
    ``separator`` may be.

    Raises
    ------
    ParameterError
        Naming ``owner`` and the separator.
    """
    if separator is not None and not (
        isinstance(separator, str) and len(separator) == 1 and separator not in '"\r\n'
    ):
        expected = "one character other than a quote or line break (or None to detect it)"
        raise ParameterError("separator", owner, expected, separator)


def _label(cell: object) -> str:
    """A hierarchy cell as its label: ``None`` and NaN (numpy's, pandas' ``NA`` and
    ``NaT``) are empty, which the row checks refuse, not the labels ``'None'`` or
    ``'nan'`` that would be published."""
    if cell is None or type(cell).__name__ in ("NAType", "NaTType"):
        return ""
    if isinstance(cell, float) and math.isnan(cell):
        return ""
    return str(cell).strip()


class Hierarchy:
    """An immutable, validated generalization hierarchy.

    Parameters
    ----------
    rows
        One sequence per original value: ``[value, level1, ..., root]``. All rows must have
        the same length.
    name
        Optional name (usually the column), used in error messages.

    Raises
    ------
    HierarchyError
        If the rows are ragged, hold empty labels or duplicate values, if a label has two
        parents, or if the last level does not hold a single root.

    Examples
    --------
    >>> h = Hierarchy([["13053", "1305*", "*"], ["13068", "1306*", "*"]])
    >>> h.height, h.generalize("13068", 1)
    (3, '1306*')
    """

    __slots__ = ("__weakref__", "_codes", "_index", "_labels", "_leaf_counts", "_name", "_rows")

    def __init__(self, rows: Iterable[Sequence[object]], *, name: str | None = None) -> None:
        self._name = name
        table = [tuple(_label(cell) for cell in row) for row in rows]
        table = [row for row in table if any(row)]  # ignore blank lines
        if not table:
            raise HierarchyError("it has no rows.", column=name)
        _check_rows(table, lambda i: f"row {i + 1}", name)
        width = len(table[0])
        self._rows: tuple[tuple[str, ...], ...] = tuple(table)
        leaves = [row[0] for row in table]
        index: dict[str, int] = {}
        for i, leaf in enumerate(leaves):
            if leaf in index:
                raise HierarchyError(f"value {leaf!r} appears in more than one row.", column=name)
            index[leaf] = i
        self._index = index
        codes: list[IntArray] = []
        labels: list[tuple[str, ...]] = []
        for level in range(width):
            column = [row[level] for row in table]
            uniques = list(dict.fromkeys(column))
            pos = {label: j for j, label in enumerate(uniques)}
            codes.append(np.fromiter((pos[c] for c in column), dtype=np.int64, count=len(column)))
            labels.append(tuple(uniques))
        for level in range(width - 1):
            parents: dict[str, str] = {}
            for row in table:
                child, parent = row[level], row[level + 1]
                seen = parents.setdefault(child, parent)
                if seen != parent:
                    raise HierarchyError(
                        f"label {child!r} at level {level} has two parents at level "
                        f"{level + 1}: {seen!r} and {parent!r}.",
                        column=name,
                    )
        roots = labels[-1]
        if len(roots) == 2 and len(table) > 2 and roots[0] not in (r[-1] for r in table[1:]):
            raise HierarchyError(
                f"row 1 looks like a header (its last label is {roots[0]!r}, the root of "
                f"every other row is {roots[1]!r}): a hierarchy file has no header line; "
                "remove it.",
                column=name,
            )
        if len(roots) != 1:
            shown = ", ".join(repr(x) for x in labels[-1][:5])
            raise HierarchyError(
                f"the last level must hold a single root but holds {len(labels[-1])} "
                f"labels ({shown}{', ...' if len(labels[-1]) > 5 else ''}); is the "
                "separator right?",
                column=name,
            )
        self._codes = tuple(codes)
        self._labels = tuple(labels)
        self._leaf_counts = tuple(
            np.bincount(c, minlength=len(lab)).astype(np.int64)
            for c, lab in zip(codes, labels, strict=True)
        )
        for arr in self._codes:
            arr.setflags(write=False)
        for arr in self._leaf_counts:
            arr.setflags(write=False)

    # ------------------------------------------------------------------ basics
    @property
    def name(self) -> str | None:
        """The column this hierarchy belongs to, if known."""
        return self._name

    @property
    def height(self) -> int:
        """Number of levels, including the original values (level 0) and the root."""
        return len(self._labels)

    @property
    def max_level(self) -> int:
        """The highest level (the root): ``height - 1``."""
        return len(self._labels) - 1

    @property
    def leaves(self) -> tuple[str, ...]:
        """The original values, in file order."""
        return self._labels[0]

    @property
    def rows(self) -> tuple[tuple[str, ...], ...]:
        """The hierarchy as rows ``(value, level1, ..., root)``."""
        return self._rows

    def labels(self, level: int) -> tuple[str, ...]:
        """Distinct labels at ``level``; codes index into this tuple."""
        return self._labels[self._check_level(level, "labels")]

    def codes(self, level: int) -> IntArray:
        """For each leaf (in file order), the code of its ancestor at ``level``."""
        return self._codes[self._check_level(level, "codes")]

    def leaf_counts(self, level: int) -> IntArray:
        """For each label at ``level``, how many leaves generalize to it."""
        return self._leaf_counts[self._check_level(level, "leaf_counts")]

    def leaf_index(self, value: str) -> int:
        """Row of ``value``; raises ``KeyError`` if the value is not a leaf."""
        return self._index[value]

    def __contains__(self, value: object) -> bool:
        return value in self._index

    def generalize(self, value: str, level: int) -> str:
        """The label of ``value`` at ``level``.

        Raises
        ------
        ValuesNotInHierarchyError
            If ``value`` is no leaf of the hierarchy.
        ParameterError
            If ``level`` is not an int (a bool or a float is not a level).
        HierarchyError
            If ``level`` is not one of its levels.
        """
        checked = self._check_level(level, "generalize")
        row = self._index.get(value)
        if row is None:
            raise ValuesNotInHierarchyError(self._name or "", [value], 1, self.leaves)
        return self._rows[row][checked]

    def level_map(self, source: int, target: int) -> IntArray:
        """Array mapping codes at level ``source`` to codes at level ``target >= source``."""
        src = self._check_level(source, "level_map", "source")
        dst = self._check_level(target, "level_map", "target")
        if dst < src:
            raise ValueError("target level must not be below the source level")
        out = np.empty(len(self._labels[src]), dtype=np.int64)
        out[self._codes[src]] = self._codes[dst]
        return out

    def _check_level(self, level: int, method: str, parameter: str = "level") -> int:
        """``level`` as an index into the levels.

        Raises
        ------
        ParameterError
            If it is not an int (numpy's too; a bool is not), naming ``Hierarchy.method``.
        HierarchyError
            If it is not one of the levels.
        """
        if type(level) is not int:  # the common case skips the full check
            check(level, _LEVEL, parameter, f"Hierarchy.{method}")
            level = int(level)
        if not 0 <= level < len(self._labels):
            raise HierarchyError(
                f"level {level} does not exist; levels are 0..{len(self._labels) - 1}.",
                column=self._name,
            )
        return level

    def with_name(self, name: str) -> Hierarchy:
        """The same hierarchy carrying another name."""
        return Hierarchy(self._rows, name=name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hierarchy) and self._rows == other._rows

    def __hash__(self) -> int:
        return hash(self._rows)

    def __repr__(self) -> str:
        label = f"{self._name!r}, " if self._name else ""
        return f"Hierarchy({label}values={len(self.leaves)}, height={self.height})"

    # --------------------------------------------------------------------- I/O
    @classmethod
    def from_csv(
        cls,
        path: str | Path,
        *,
        separator: str | None = None,
        name: str | None = None,
        encoding: str = "utf-8",
    ) -> Hierarchy:
        """Read a hierarchy file (no header; ``;``, tab or ``,`` separated, detected).

        ``encoding`` is any codec Python knows; ``utf-8`` (the default) also accepts a
        byte-order mark. Bytes it cannot decode are an error, never replaced.

        Raises
        ------
        InputFileError
            If the file cannot be read.
        InputEncodingError
            If it holds bytes ``encoding`` cannot decode (names line and byte offset).
        ParameterError
            If ``encoding`` is not a codec Python knows, or ``separator`` is not one
            character (other than a quote or a line break).
        HierarchyError
            If its content is not a valid hierarchy.
        """
        _check_separator(separator, "Hierarchy.from_csv")
        p = Path(path)
        try:
            codec = codecs.lookup(encoding).name
        except (LookupError, TypeError):
            raise ParameterError(
                "encoding",
                "Hierarchy.from_csv",
                "an encoding Python knows, such as 'utf-8' or 'latin-1'",
                encoding,
            ) from None
        try:
            raw = p.read_bytes()
        except FileNotFoundError:
            raise InputFileError(p, "no such file") from None
        except OSError as exc:
            raise InputFileError(p, exc.strerror or str(exc)) from None
        reason = other_format(p, raw[:32])  # a hierarchy built in a spreadsheet, saved as is
        if reason is not None:
            raise InputFormatError(p, reason)
        if not codec.startswith(("utf-16", "utf-32")):
            refuse_nul(p, raw, 0)
        try:
            if codec == "utf-8":
                text = raw.decode("utf-8-sig")  # drops one byte-order mark
            else:
                text = raw.decode(encoding).removeprefix("\ufeff")
        except UnicodeDecodeError as exc:
            raise InputEncodingError.from_decode_error(
                p, raw, exc, encoding, hierarchy=True
            ) from None
        return cls.from_text(text, separator=separator, name=name or p.stem, source=p.name)

    @classmethod
    def from_text(
        cls,
        text: str,
        *,
        separator: str | None = None,
        name: str | None = None,
        source: str | None = None,
    ) -> Hierarchy:
        """Parse hierarchy CSV text (see :meth:`from_csv`); errors name the line (of the
        file ``source``, when given). A leading byte-order mark is dropped, as
        :meth:`from_csv` drops it.

        Raises
        ------
        ParameterError
            If ``separator`` is not one character (other than a quote or a line break).
        HierarchyError
            If a quote is left open, a line has another number of levels than the first,
            or a label is empty.
        """
        _check_separator(separator, "Hierarchy.from_text")
        text = text.removeprefix("\ufeff")
        where = f" of {source}" if source else ""
        lines = [line for line in text.splitlines() if line.strip()]
        if not lines:
            raise HierarchyError(f"the file{where} is empty.", column=name)
        sep = separator or detect_separator(text)
        reader = csv_rows(text, sep, strict=True)
        rows: list[list[str]] = []
        numbers: list[int] = []
        try:
            for row in reader:
                if any(cell.strip() for cell in row):  # blank lines are passed over
                    rows.append(row)
                    numbers.append(reader.line_num)
        except csv.Error as exc:
            what = "a quote is left open" if "end of data" in str(exc) else str(exc)
            start = numbers[-1] + 1 if numbers else 1
            raise HierarchyError(
                f"line {start}{where} is not CSV ({what}: a quote must close its field).",
                column=name,
            ) from None
        _check_rows(rows, lambda i: f"line {numbers[i]}{where}", name, lines=True)
        return cls(rows, name=name)

    def to_csv(self, path: str | Path | None = None, *, separator: str = ";") -> str:
        """Write the hierarchy in the common CSV format; returns the text.

        The file, if given, is written atomically (temporary file, then rename).

        Raises
        ------
        ParameterError
            If ``separator`` is not one ASCII character other than a quote or line break.
        """
        check(separator, Separator(), "separator", "Hierarchy.to_csv")
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter=separator, lineterminator="\n")
        writer.writerows(self._rows)
        text = buffer.getvalue()
        if path is not None:
            atomic_write_text(Path(path), text)
        return text
