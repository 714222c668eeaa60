"""A column's hierarchy from what a user gives: an object, a file, a builder table or nothing.

Every entry point takes hierarchies the same way (``anonymize(hierarchies=...)``, the TOML
``[hierarchies]`` table, ``evaluate``, ``check``, studies): a :class:`Hierarchy`, the path
of a hierarchy CSV, a builder table such as ``{"type": "intervals", "widths": [5, 10]}``,
a file table naming a hierarchy file with its own encoding (``{"type": "file", "path":
"sex.csv", "encoding": "latin-1"}``), a table in memory in the CSV's layout (a polars or
pandas frame, or a list of rows: one row per value, one column per level, root last), or
nothing (the column can only be kept
or suppressed). :func:`resolve_hierarchy` turns any of them into a :class:`Hierarchy`
named after the column.
"""

from __future__ import annotations

import codecs
import hashlib
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any

import polars as pl

from anonkit._frozen import FrozenDict
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.hierarchy_builders import build_hierarchy, check_spec_keys, suppression
from anonkit.core.values import as_text
from anonkit.exceptions import (
    ConfigError,
    DataError,
    HierarchyError,
    MissingValuesError,
    ParameterError,
)

__all__ = [
    "FILE",
    "HierarchySpec",
    "built_from_values",
    "check_hierarchy_kinds",
    "config_hierarchy",
    "hierarchy_file",
    "infinite_numbers",
    "resolve_hierarchy",
]

#: The ``type`` of a hierarchy table naming a hierarchy file with how to read it:
#: ``{"type": "file", "path": ..., "encoding": "latin-1", "separator": ";"}`` (encoding
#: UTF-8 and the separator detected when left out).
FILE = "file"

#: What may stand for a column's hierarchy (a pandas frame too, see :func:`_table_rows`).
HierarchySpec = Hierarchy | str | Path | Mapping[str, Any] | pl.DataFrame | Sequence[Sequence[Any]]

#: Hierarchy files read lately, by (path, column name, digest of the bytes): a
#: :class:`Hierarchy` is immutable, so repeated runs on the same files share one object
#: and skip parsing (reading and hashing a file costs far less); a changed file gets a
#: new key.
_FILES: OrderedDict[tuple[str, str, str, str | None, bytes], Hierarchy] = OrderedDict()
_FILES_KEPT = 64


def _from_file(
    path: str | Path, column: str, encoding: str = "utf-8", separator: str | None = None
) -> Hierarchy:
    """``Hierarchy.from_csv(path, name=column, ...)``, cached while the file is unchanged."""

    def read() -> Hierarchy:
        return Hierarchy.from_csv(path, name=column, encoding=encoding, separator=separator)

    try:
        digest = hashlib.blake2b(Path(path).read_bytes(), digest_size=16).digest()
    except OSError:  # from_csv reports it
        return read()
    key = (str(path), column, encoding, separator, digest)
    known = _FILES.get(key)
    if known is None:
        known = read()
        _FILES[key] = known
        while len(_FILES) > _FILES_KEPT:
            _FILES.popitem(last=False)
    else:
        _FILES.move_to_end(key)
    return known


def hierarchy_file(path: Path, encoding: str) -> Path | FrozenDict[str, str]:
    """A hierarchy file read with ``encoding``: its path when that is UTF-8 (the
    default), else a file table saying so (an encoding Python does not know is left for
    the reader to refuse, naming it)."""
    try:
        utf8 = codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        utf8 = False
    return path if utf8 else FrozenDict({"type": FILE, "path": str(path), "encoding": encoding})


def config_hierarchy(
    column: str, spec: object, base: Path, encoding: str, where: str
) -> Path | Mapping[str, Any] | tuple[tuple[Any, ...], ...]:
    """The ``[hierarchies]`` entry of ``column`` in a run configuration (the file
    ``where``, in the folder ``base``), checked: a hierarchy file (relative to ``base``,
    read with the ``[read]`` ``encoding``, as the data), a builder or file table, or the
    rows inline (as :func:`resolve_hierarchy` reads rows: a whole float is ``"2"``).

    Raises
    ------
    ConfigError
        Naming the key, the column and ``where``.
    """
    if isinstance(spec, str) and spec.strip():
        return hierarchy_file(_beside(base, spec), encoding)
    if isinstance(spec, dict):
        if "type" not in spec:
            raise ConfigError(
                f"The hierarchy table for '{column}' in {where} needs a 'type' key "
                "(intervals, masking, dates, ordered, suppression or file)."
            )
        if spec["type"] != FILE:
            return FrozenDict(dict(spec))
        table = _file_table(spec, column, where)
        return FrozenDict({**table, "path": str(_beside(base, str(table["path"])))})
    if isinstance(spec, list) and spec and all(isinstance(row, list) for row in spec):
        _check_labels(spec, column, where)
        return tuple(tuple(row) for row in spec)
    raise ConfigError(
        f"The key 'hierarchies.{column}' in {where} must be a file, a builder or rows, not "
        f"{type(spec).__name__} ({spec!r})."
    )


def _beside(base: Path, value: str) -> Path:
    """The path ``value`` (``~`` expanded), relative to ``base`` unless absolute."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else base / path


def built_from_values(spec: HierarchySpec | None) -> bool:
    """Whether ``spec`` makes a hierarchy from the column's values (none given, or a
    builder table), so that :func:`resolve_hierarchy` needs them; not a file, an object
    or a table in memory."""
    return spec is None or (isinstance(spec, Mapping) and spec.get("type") != FILE)


def infinite_numbers(column: str, count: int) -> DataError:
    """The error of ``count`` infinite numbers in ``column``, which no hierarchy built from
    the values and no class of a local recoding can hold (the fit's and the transform's)."""
    return DataError(
        f"Column {column!r} holds {count} infinite number(s); replace them with numbers (or "
        "drop those rows) before anonymizing."
    )


def resolve_hierarchy(
    column: str, spec: HierarchySpec | None, values: pl.Series, *, records: int | None = None
) -> Hierarchy:
    """A hierarchy from an object, a file path, a builder spec, or ``None`` (suppression).

    ``values`` are the column's values, which a built hierarchy must cover. ``records``:
    how many of the first ``values`` are the table's records, in their order (the rest
    the population table's), so that a value a builder cannot read is named with its
    record; ``None``: ``values`` are not records (the distinct values an engine read).

    Raises
    ------
    MissingValuesError
        If a hierarchy is to be built from values holding NaN or blank cells.
    DataError
        If a builder cannot read one of ``values`` (text in a column of numbers for
        ``intervals``, a code of another length for ``masking``, a value that is no date
        for ``dates``), naming the column, the value and where it is.
    ParameterError
        If ``spec`` is none of the above.

    Examples
    --------
    >>> h = resolve_hierarchy("age", {"type": "intervals", "widths": [50]},
    ...                       pl.Series(["34", "66"]))
    >>> h.name, h.generalize("66", 1)
    ('age', '[50-100[')
    """
    if isinstance(spec, Mapping) and spec.get("type") == FILE:
        table = _file_table(spec, column)
        return _from_file(
            table["path"], column, table.get("encoding", "utf-8"), table.get("separator")
        )
    if built_from_values(spec):
        nans = int(values.is_nan().sum()) if values.dtype.is_float() else 0
        blanks = int((values.str.strip_chars() == "").sum()) if values.dtype == pl.String else 0
        nothing = values.len() if values.null_count() == values.len() else 0  # all missing
        if nans or blanks or nothing:
            raise MissingValuesError(column, nans + blanks + nothing)
        infinite = int(values.is_infinite().sum()) if values.dtype.is_float() else 0
        if infinite:
            raise infinite_numbers(column, infinite)
    if spec is None:
        return suppression(_distinct(values), name=column)
    if isinstance(spec, Hierarchy):
        return spec if spec.name == column else spec.with_name(column)
    if isinstance(spec, (str, Path)):
        return _from_file(spec, column)
    if isinstance(spec, Mapping):
        return _built(column, spec, values, records)
    rows = _table_rows(spec, column)
    if rows is None:
        raise _not_a_hierarchy(spec, "anonymize")
    return Hierarchy(rows, name=column)


def check_hierarchy_kinds(specs: Mapping[str, object], owner: str) -> None:
    """Refuse, naming ``owner``, a ``hierarchies`` value that is no kind of hierarchy
    :func:`resolve_hierarchy` takes (before any work; it would name ``anonymize``).

    Raises
    ------
    ParameterError
        Naming ``owner`` and the type of the first such value.
    """
    for spec in specs.values():
        if not (
            spec is None or isinstance(spec, (Hierarchy, str, Path, Mapping)) or _is_table(spec)
        ):
            raise _not_a_hierarchy(spec, owner)


def _not_a_hierarchy(spec: object, owner: str) -> ParameterError:
    return ParameterError(
        "hierarchies",
        owner,
        "Hierarchy objects, file paths, builder tables or tables of rows (a polars or "
        "pandas frame, a list of rows: one row per value, one column per level, root "
        "last)",
        type(spec).__name__,
    )


def _built(
    column: str, spec: Mapping[str, Any], values: pl.Series, records: int | None
) -> Hierarchy:
    """:func:`build_hierarchy` over the column's distinct ``values``; a value the builder
    cannot read is the data's fault, not a parameter's: a :class:`DataError` naming the
    column, the value and, with ``records`` (see :func:`resolve_hierarchy`), its record
    or the population table."""
    try:
        return build_hierarchy(spec, _distinct(values), name=column)
    except ParameterError as err:
        if err.parameter != "values" or values.len() == 0:  # no values: not the data's
            raise
        at = _first_at(values, err.got)
        where = ""
        if records is not None and at is not None:
            where = f" (record {at + 1:,})" if at < records else " (in the population table)"
        kind = str(spec["type"])
        article = "an" if kind[:1] in ("a", "e", "i", "o", "u") else "a"
        raise DataError(
            f"Column {column!r} has {article} {kind} hierarchy, whose values must be "
            f"{err.expected}, but holds {err.got!r}{where}.{err.hint}"
        ) from None


def _first_at(values: pl.Series, value: object) -> int | None:
    """The position of ``value`` (as :func:`_distinct` gives it) in ``values``, or
    ``None`` when it is not found there."""
    if values.dtype.is_float() or isinstance(values.dtype, pl.Decimal):
        values = as_text(values)
    try:
        hits = (values == value).fill_null(False).arg_true()
    except (pl.exceptions.PolarsError, TypeError, ValueError):  # a value of another type
        return None
    return int(hits[0]) if hits.len() else None


def _distinct(values: pl.Series) -> list[Any]:
    """The column's distinct values for a builder, in first-appearance order. Numbers
    that are not integers go as the text the data's values read as (:func:`as_text`, the
    expression every engine codes the records with, and the text the engines' own
    ``distinct`` gives): a builder labels a numeric string as it is and reads its number
    from it, so the hierarchy holds every value of the column (a Float32 797676544.0 as
    ``797676544``, a Float32 0.1 as ``0.1``, a Decimal 1.50 as ``1.5``)."""
    if values.dtype.is_float() or isinstance(values.dtype, pl.Decimal):
        values = as_text(values)
    return values.drop_nulls().unique(maintain_order=True).to_list()


def _file_table(spec: Mapping[str, Any], column: str, where: str = "") -> dict[str, Any]:
    """A hierarchy table of type :data:`FILE` checked: a ``path`` (text or a path), an
    ``encoding`` Python knows and a ``separator`` of one character other than a quote
    or a line break; ``"\\t"`` (a backslash and a ``t``, as a TOML literal string keeps
    them) is a tab, as ``[read] separator`` reads it.

    Raises
    ------
    ConfigError
        Naming the key, the column and ``where`` (the configuration file it is from).
    """
    try:
        check_spec_keys(spec, ("path",), ("encoding", "separator"), name=column)
    except ConfigError as err:
        if not where:
            raise
        raise ConfigError(f"In {where}: {err}") from None
    table = dict(spec)
    if table.get("separator") == "\\t":
        table["separator"] = "\t"
    path, encoding, separator = table["path"], table.get("encoding"), table.get("separator")
    if not isinstance(path, (str, PurePath)) or not str(path).strip():
        bad = ("path", "the path of a hierarchy file (a string)")
    elif encoding is not None and not (isinstance(encoding, str) and _known(encoding)):
        bad = ("encoding", "an encoding Python knows, such as 'utf-8' or 'latin-1'")
    elif separator is not None and not (
        isinstance(separator, str) and len(separator) == 1 and separator not in '"\r\n'
    ):
        bad = ("separator", 'one character other than a quote or a line break (or "\\t")')
    else:
        return table
    key, expected = bad
    value, at = spec[key], f" in {where}" if where else ""
    raise ConfigError(
        f"The {key!r} key of the {FILE!r} hierarchy table for column {column!r}{at} must be "
        f"{expected}, not {type(value).__name__} ({value!r})."
    )


def _known(encoding: str) -> bool:
    try:
        codecs.lookup(encoding)
    except LookupError:
        return False
    return True


def _check_labels(rows: Sequence[Sequence[object]], column: str, where: str = "") -> None:
    """Refuse a cell of a hierarchy's ``rows`` that is a table or a list (a label is
    text or a number, which would else be published as ``"{'a': 1}"``).

    Raises
    ------
    HierarchyError
        Naming the column and the row; a :class:`ConfigError` naming ``where`` too, the
        configuration file the rows are written in, when given.
    """
    for i, row in enumerate(rows, 1):
        for cell in row:
            if isinstance(cell, (Mapping, list, tuple, set)):
                kind = "a table" if isinstance(cell, Mapping) else "a list"
                text = (
                    f"row {i} holds {kind} ({cell!r}) where a label goes; write each "
                    "label as text or a number."
                )
                if where:
                    raise ConfigError(f"The hierarchy of {column!r} in {where}: {text}")
                raise HierarchyError(text, column=column)


def _table_rows(spec: object, column: str) -> list[list[object]] | None:
    """The rows of a hierarchy table in memory, a missing cell as ``""`` (which
    :class:`Hierarchy` refuses, naming the row, instead of taking ``"None"`` or ``"nan"``
    for a label); ``None`` if ``spec`` is no such table. A pandas frame is recognised by
    its ``itertuples``, so pandas is not imported here.

    Raises
    ------
    HierarchyError
        If a cell is a table or a list (:func:`_check_labels`).
    """
    if not _is_table(spec):
        return None
    if isinstance(spec, pl.DataFrame):
        table: Any = spec.iter_rows()
    elif isinstance(spec, (list, tuple)):
        table = spec
    else:  # pandas
        table = spec.itertuples(index=False, name=None)  # type: ignore[attr-defined]
    rows = [list(row) for row in table]
    _check_labels(rows, column)
    return [[_cell(cell) for cell in row] for row in rows]


def _is_table(spec: object) -> bool:
    """Whether ``spec`` is a hierarchy table in memory: a polars or pandas frame (pandas
    recognised by its ``itertuples``, so it is not imported here) or a list of rows."""
    if isinstance(spec, pl.DataFrame) or (hasattr(spec, "itertuples") and hasattr(spec, "columns")):
        return True
    return isinstance(spec, (list, tuple)) and all(isinstance(r, (list, tuple)) for r in spec)


def _cell(cell: object) -> object:
    """A table cell as a label: ``""`` where missing (None, or NaN as pandas fills
    gaps), a whole float without its decimals (pandas reads a column with a gap as
    floats, and the data's ``2.0`` reads as ``"2"``), anything else as it is."""
    if cell is None or (isinstance(cell, float) and cell != cell):
        return ""
    if isinstance(cell, float) and cell.is_integer():
        return str(int(cell))
    return cell
