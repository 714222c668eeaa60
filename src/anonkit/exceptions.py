"""Exceptions and warnings raised by anonkit.

Every exception derives from :class:`AnonkitError` and also from the builtin that best
describes it, so ``except ValueError`` keeps working for callers that do not know anonkit.
Each carries the offending items as attributes, so programs can react without parsing text.
"""

from __future__ import annotations

import difflib
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import FrameType

from anonkit._codecs import codec_name, display_encoding


def _rebuilt(
    cls: type[BaseException], args: tuple[object, ...], state: dict[str, object]
) -> object:
    """An exception or warning of ``cls`` with ``args`` and attributes ``state``, made
    without calling its ``__init__`` (see :meth:`AnonkitError.__reduce__`)."""
    err = cls.__new__(cls, *args)
    err.args = args
    err.__dict__.update(state)
    return err


#: How alike (difflib's ratio) two names must be for one to be suggested for the other.
_CLOSE = 0.75
#: Hierarchies with more leaves than this get no "did you mean" hint for unknown values.
_HINT_LEAVES = 5_000
#: The ``table`` of errors about the population table, not the data (a path may follow).
POPULATION_TABLE = "population table"


def close_names(name: object, names: Iterable[object], most: int = 3) -> list[str]:
    """Up to ``most`` of ``names`` that ``name`` may have been meant as: the same name in
    another case, else names a typo away, closest first; strings only ("did you mean").

    Examples
    --------
    >>> close_names("Sex", ["sex", "age"]), close_names("agee", ["age", "sex"])
    (['sex'], ['age'])
    >>> close_names("zip", ["age", "sex"])
    []
    """
    if not isinstance(name, str):
        return []
    folded: dict[str, str] = {}
    for other in names:
        if isinstance(other, str) and other != name:
            folded.setdefault(other.casefold(), other)
    if (same := folded.get(name.casefold())) is not None:
        return [same]
    matcher = difflib.SequenceMatcher(b=name.casefold())
    scored = []
    for key, other in folded.items():
        matcher.set_seq1(key)
        if matcher.quick_ratio() >= _CLOSE and (ratio := matcher.ratio()) >= _CLOSE:
            scored.append((ratio, other))
    scored.sort(key=lambda pair: -pair[0])  # stable: equally close names in their order
    return [other for _, other in scored[:most]]


def did_you_mean(
    name: object,
    names: Iterable[object],
    *,
    template: str = " (did you mean {}?)",
    label: Callable[[str], str] = repr,
) -> str:
    """``template`` holding :func:`close_names` as ``'a' or 'b'`` (each written by
    ``label``), or ``""`` when none is close.

    Examples
    --------
    >>> did_you_mean("PAY_1", ["PAY_0", "PAY_2", "AGE"])
    " (did you mean 'PAY_0' or 'PAY_2'?)"
    """
    if not (found := [label(n) for n in close_names(name, names)]):
        return ""
    shown = found[0] if len(found) == 1 else f"{', '.join(found[:-1])} or {found[-1]}"
    return template.format(shown)


#: The environment variable that shows the messages of other libraries' errors (polars,
#: numpy, Spark), which the command line and the app otherwise tell by type only: they
#: can quote records.
SHOW_ERRORS = "ANONKIT_SHOW_ERRORS"


class AnonkitError(Exception):
    """Base class of every error anonkit raises on purpose."""

    #: CLI exit code: 1 for data/privacy problems, 2 for usage problems.
    exit_code: int = 1

    def __reduce__(self) -> tuple[object, ...]:
        # Subclasses take their items, not the message, so the default (``cls(*args)``)
        # cannot rebuild them: an error raised in a worker process (a study cell) would
        # reach the parent as a TypeError about __init__'s arguments.
        return (_rebuilt, (type(self), self.args, dict(self.__dict__)))


class ParameterError(AnonkitError, ValueError):
    """A parameter has an invalid value.

    Message shape: "The 'k' parameter of KAnonymity must be an int >= 1. Got 0 instead."
    """

    exit_code = 2

    def __init__(
        self, parameter: str, owner: str, expected: str, got: object, hint: str = ""
    ) -> None:
        self.parameter = parameter
        self.owner = owner
        self.expected = expected
        self.got = got
        #: What the value may have been meant as (" Did you mean 'drop'?"), or ``""``.
        self.hint = hint
        super().__init__(
            f"The '{parameter}' parameter of {owner} must be {expected}. Got {got!r} instead.{hint}"
        )


class UnknownColumnError(AnonkitError, KeyError):
    """A column named in the configuration does not exist in the data (or ``table``)."""

    exit_code = 2

    def __init__(self, columns: Sequence[str], available: Sequence[str], table: str = "") -> None:
        self.columns = list(dict.fromkeys(columns))  # a name in two roles, once
        self.available = list(available)
        self.table = table
        names = ", ".join(f"{c!r}{_column_hint(c, self.available)}" for c in self.columns)
        avail = ", ".join(repr(c) for c in self.available[:20])
        more = "" if len(self.available) <= 20 else f" (and {len(self.available) - 20} more)"
        super().__init__(f"Unknown column(s) {names}; the {table or 'data'} has {avail}{more}.")

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0])


def _column_hint(column: object, available: Sequence[str]) -> str:
    """What an unknown column may have been meant as: a name given as a number (pandas
    frames read without a header) names the text column of its digits; else
    :func:`did_you_mean`."""
    if not isinstance(column, str) and str(column) in available:
        return f" (the data names it {str(column)!r}: column names are text)"
    return did_you_mean(str(column), available)


class UnknownNameError(AnonkitError, LookupError):
    """A registry lookup (algorithm, metric, engine, builder) failed."""

    exit_code = 2

    def __init__(self, kind: str, name: str, available: Sequence[str], where: str = "") -> None:
        self.kind = kind
        self.name = name
        self.available = sorted(available)
        #: Where the name was given (``" for column 'age'"``), or ``""``.
        self.where = where
        hint = did_you_mean(name, self.available)
        super().__init__(
            f"Unknown {kind} {name!r}{where}{hint}; choose one of: {', '.join(self.available)}."
        )


class DataError(AnonkitError, ValueError):
    """The input table cannot be anonymized as given (empty, malformed, ...)."""


class LeakError(DataError):
    """Columns released as they are would undo the anonymization (see anonkit.safety.leaks).

    ``leaks`` holds the :class:`~anonkit.safety.leaks.Leak` objects found (each with its
    column, kind and reason); the message is their reasons, one sentence each, never a value.
    """

    def __init__(self, leaks: Sequence[object]) -> None:
        self.leaks = list(leaks)
        super().__init__(" ".join(str(getattr(leak, "reason", leak)) for leak in self.leaks))


class UndeclaredColumnsError(DataError):
    """Columns of the input have no role, so nobody decided whether they may be published.

    A column nobody declared is never released by accident: declare each one
    (``identifying``, ``quasi_identifiers``, ``sensitive`` or ``insensitive``) or say what
    to do with the rest (``others="drop"`` or ``others="keep"``).
    """

    def __init__(self, columns: Sequence[str], *, fitted: bool = False) -> None:
        self.columns = list(columns)
        shown = ", ".join(repr(c) for c in self.columns[:20])
        more = "" if len(self.columns) <= 20 else f" (and {len(self.columns) - 20} more)"
        if fitted:  # transform() of new records
            super().__init__(
                f"{len(self.columns)} column(s) were not in the table the estimator was "
                f"fitted on, so they have no role: {shown}{more}; leave them out of the "
                'frame, or fit with their roles (or with others="drop", which drops them).'
            )
            return
        super().__init__(
            f"{len(self.columns)} column(s) have no role: {shown}{more}; declare each as "
            "identifying (removed), a quasi-identifier, sensitive or insensitive (kept as "
            'is), or set others = "drop" (or "keep") in [attributes] (others= in Python).'
        )


class ReleaseVerificationError(AnonkitError, RuntimeError):
    """The independent re-check of a release failed: a bug; nothing was written."""

    def __init__(self, failures: Sequence[str]) -> None:
        self.failures = list(failures)
        super().__init__(
            "Internal error: the release failed its independent check ("
            + "; ".join(self.failures)
            + "); nothing was written. Please report this as a bug."
        )


class EmptyDataError(DataError):
    """The input table has no records."""

    def __init__(self, what: str = "The input table", *, message: str | None = None) -> None:
        self.what = what
        super().__init__(
            message
            if message is not None
            else f"{what} has no records; there is nothing to anonymize."
        )


class MissingValuesError(DataError):
    """A quasi-identifier column holds missing (null) values."""

    def __init__(self, column: str, count: int, *, table: str = "") -> None:
        self.column = column
        self.count = count
        self.table = table
        where = f" of the {table}" if table else ""
        super().__init__(
            f"Column {column!r}{where} has {count} missing value(s); fill them with a value "
            "(a text column: for example 'unknown', which its hierarchy must then cover, if "
            "it has one; a numeric one: a number) or drop those rows."
        )


class HierarchyError(AnonkitError, ValueError):
    """A generalization hierarchy is malformed or inconsistent."""

    def __init__(self, message: str, *, column: str | None = None) -> None:
        self.column = column
        prefix = f"Hierarchy for column {column!r}: " if column else "Hierarchy: "
        super().__init__(prefix + message)


class ValuesNotInHierarchyError(HierarchyError):
    """Values in the data (or ``table``) are not covered by the column's hierarchy."""

    def __init__(
        self,
        column: str,
        missing: Sequence[str],
        count: int,
        leaves: Sequence[str] = (),
        table: str = "",
    ) -> None:
        self.missing = list(missing)
        self.count = count
        self.table = table
        # a leaf that differs only by case or a typo is the usual reason: say which
        # (not over huge hierarchies, where comparing every leaf would take long)
        near = leaves if len(leaves) <= _HINT_LEAVES else ()
        shown = ", ".join(f"{v!r}{did_you_mean(str(v), near)}" for v in self.missing[:10])
        more = "" if count <= 10 else ", ..."
        super().__init__(
            f"{count} value(s) of the {table or 'data'} are not in the hierarchy: {shown}{more}",
            column=column,
        )


class InputChangedError(DataError):
    """The input changed between the pass that read it first and the pass that releases
    it (a table streamed from disk or read by Spark is read more than once): a
    quasi-identifier (``column``) holds values that pass did not see, or records were
    added or removed (``column`` is then ``None``; ``count`` is how many), or ``reason``
    says what else changed (the file's size or time, records counted in other classes).
    ``source`` names the file when the run knows it. The message names the file and the
    column, never a value."""

    def __init__(
        self,
        column: str | None,
        count: int,
        source: str | os.PathLike[str] | None = None,
        *,
        reason: str | None = None,
    ) -> None:
        self.column = column
        self.count = count
        self.source = None if source is None else os.fspath(source)
        self.reason = reason
        if reason is not None:
            what = reason
        elif column is None:
            what = f"the release pass read {count} record(s) more or fewer than the first pass"
        else:
            what = (
                f"column {column!r} holds {count} value(s) in the release pass that the "
                "first pass did not read there (missing, outside its hierarchy, or changed)"
            )
        where = "The input" if self.source is None else f"The input file {self.source}"
        super().__init__(
            f"{where} changed during the run, between the pass that counted its records "
            f"and the pass that released them: {what}. Nothing was written; run again on "
            "input that does not change during the run."
        )


class UncoveredValueError(DataError):
    """A release read beside its original table has a label that does not cover its
    row's original value: the release is not a generalization of that table row by row
    (rows reordered or shuffled, or a label that belongs to another record).

    ``column``, ``row`` (1-based data row) and ``label`` locate the first such cell;
    ``counts`` holds, per column, how many rows' labels miss their value. The message
    names the column, the row and the released label, never the original value.
    """

    def __init__(self, column: str, row: int, label: str, counts: Mapping[str, int]) -> None:
        self.column = column
        self.row = row
        self.label = label
        self.counts = dict(counts)
        total = sum(self.counts.values())
        per_column = ", ".join(f"{c!r} {n}" for c, n in self.counts.items())
        super().__init__(
            f"The release is not a generalization of the original table row by row: in "
            f"column {column!r}, the label {label!r} of data row {row} does not cover that "
            f"row's original value ({total} such cell(s): {per_column}). Rows are matched "
            "by position, so the release must keep the original's rows in their order, and "
            "each label must be the original value, an ancestor of it in the column's "
            "hierarchy, a range holding it, or '*'."
        )


class NotFittedError(AnonkitError, AttributeError):
    """An estimator was asked to ``transform`` before it was fitted."""

    exit_code = 2

    def __init__(
        self, estimator: str, engine: str | None = None, method: str = "transform"
    ) -> None:
        self.estimator = estimator
        if engine is not None:  # fitted where the records stay: nothing to recode from
            super().__init__(
                f"This {estimator} was fitted with engine={engine!r}, which keeps no record "
                f"in memory, and {method} reads the training ones; fit it with "
                f"engine='polars' to call {method}."
            )
            return
        super().__init__(
            f"This {estimator} is not fitted yet; call its fit(frame, ...) before {method}."
        )


class ConfigError(AnonkitError, ValueError):
    """The TOML configuration is invalid."""

    exit_code = 2


class InputFileError(AnonkitError, OSError):
    """An input file cannot be read or parsed."""

    exit_code = 2

    def __init__(self, path: object, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"Cannot read {self.path}: {reason}")


class InputFormatError(InputFileError):
    """An input file is readable but malformed: ragged rows, a bad header, bad bytes.

    ``line`` (1-based) and ``column`` (1-based position) locate the problem when known.
    A data problem (exit code 1), where a file that cannot be opened is a usage one.
    """

    exit_code = 1

    def __init__(
        self, path: object, reason: str, *, line: int | None = None, column: int | None = None
    ) -> None:
        self.line = line
        self.column = column
        super().__init__(path, reason)


class InputEncodingError(InputFormatError):
    """An input file holds bytes that its declared encoding cannot decode.

    ``offset`` is the 0-based byte offset of the first bad byte in the file, ``line`` its
    1-based line number. The message suggests declaring the file's real encoding: a usage
    problem (exit code 2), the file being fine in its own encoding.
    """

    exit_code = 2

    def __init__(
        self,
        path: object,
        encoding: str,
        *,
        line: int,
        offset: int,
        byte: int,
        hierarchy: bool = False,
        streamed: bool = False,
    ) -> None:
        self.encoding = encoding
        self.offset = offset
        self.byte = byte
        # bytes 0x80-0x9F are controls in Latin-1: Windows' cp1252 prints them (€, quotes)
        s = "cp1252" if 0x80 <= byte <= 0x9F else "latin-1"
        if codec_name(encoding) in ("iso8859-1", "cp1252"):
            s = "utf-8"
        if offset == 0 and byte in (0xFF, 0xFE) and not codec_name(encoding).startswith("utf-16"):
            s = "utf-16"  # a UTF-16 byte-order mark (Excel's "Unicode text")
        if hierarchy:  # a hierarchy file: the ways to declare one file's encoding
            how = (
                f'encoding = "{s}" in the [read] section of the configuration, which applies '
                f'to its hierarchy files too, or {{ type = "file", path = ..., encoding = "{s}" '
                f'}} for this file alone; in Python Hierarchy.from_csv(path, encoding="{s}") '
                f'or {{"type": "file", "path": ..., "encoding": "{s}"}}'
            )
        elif streamed:  # the streaming engine reads UTF-8 only
            how = (
                "the streaming engine reads UTF-8 only: convert the file to UTF-8 or to "
                f'Parquet, or read it in memory (engine = "polars") with encoding = "{s}" '
                "in the [read] section of the configuration"
            )
        else:
            how = (
                f'encoding = "{s}" in the [read] section of the configuration, --encoding {s} '
                f"for anonkit init, check and release and for the release anonkit evaluate "
                f'reads, encoding="{s}" in Python'
            )
        #: the encoding the message suggests, and what went wrong without the advice
        self.suggested = s
        self.hierarchy = hierarchy
        self.problem = (
            f"line {line} is not valid {display_encoding(encoding)}: byte 0x{byte:02X} at "
            f"byte offset {offset} cannot be decoded"
        )
        super().__init__(
            path,
            f"{self.problem}; if the file uses another encoding, declare it ({how}).",
            line=line,
        )

    def streamed(self) -> InputEncodingError:
        """This error as the streaming engine, which reads UTF-8 only, advises it."""
        return InputEncodingError(
            self.path,
            self.encoding,
            line=self.line or 1,
            offset=self.offset,
            byte=self.byte,
            hierarchy=self.hierarchy,
            streamed=True,
        )

    @classmethod
    def from_decode_error(
        cls,
        path: object,
        data: bytes,
        error: UnicodeDecodeError,
        encoding: str,
        *,
        start: int = 0,
        hierarchy: bool = False,
    ) -> InputEncodingError:
        """The error for ``error``, raised decoding ``data`` (the file's bytes from ``start``;
        ``hierarchy``: the file is a hierarchy, which the message says how to declare)."""
        offset = start + error.start
        line = data.count(b"\n", 0, error.start) + 1
        byte = error.object[error.start] if error.start < len(error.object) else 0
        return cls(path, encoding, line=line, offset=offset, byte=byte, hierarchy=hierarchy)


class OutputIsInputError(AnonkitError, ValueError):
    """An output path names a file the same run reads: writing there would replace the
    original records (or a hierarchy) with the release (a usage problem)."""

    exit_code = 2

    def __init__(self, output: object, source: object) -> None:
        self.output = str(output)
        self.source = str(source)
        same = "" if self.output == self.source else f" (the same file as {self.source})"
        super().__init__(
            f"Cannot write {self.output}: the run reads that file{same}, and writing there "
            "would replace it. Choose another output path."
        )


class OutputLocationError(AnonkitError, OSError):
    """An output path whose folder cannot take a new file (missing and not creatable,
    read-only, not a folder), found before the work that would write there."""

    exit_code = 2

    def __init__(self, path: object, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"Cannot write {self.path}: {reason}")


class OutputFormatError(AnonkitError, ValueError):
    """An output path has an extension anonkit cannot write (a usage problem)."""

    exit_code = 2

    def __init__(self, path: object, extension: str, supported: Sequence[str]) -> None:
        self.path = str(path)
        self.extension = extension
        self.supported = list(supported)
        shown = f"the extension {extension!r}" if extension else "no extension"
        super().__init__(
            f"Cannot write {self.path}: {shown} is not a supported table format; "
            f"use one of {', '.join(self.supported)}."
        )


class PrivacyUnattainableError(AnonkitError, RuntimeError):
    """No transformation satisfies the privacy models within the suppression limit."""

    def __init__(self, message: str, *, requirement: str | None = None) -> None:
        self.requirement = requirement
        super().__init__(message)


class SuppressedColumnWarning(UserWarning):
    """Quasi-identifiers without a hierarchy were released as ``*`` in every record.

    A column without a hierarchy can only be kept as is or suppressed; give it one (a
    hierarchy CSV or a builder table) to release it generalized instead.
    """

    __reduce__ = AnonkitError.__reduce__

    def __init__(self, columns: Sequence[str]) -> None:
        self.columns = list(columns)
        names = ", ".join(repr(c) for c in self.columns)
        super().__init__(
            f"{names} had no hierarchy but '*', so the release shows '*' for "
            f"{'it' if len(self.columns) == 1 else 'them'} in every record (a column "
            "without a hierarchy can only be kept or suppressed); give a hierarchy to "
            "generalize instead: a hierarchy CSV file, or a builder table such as "
            "{'type': 'intervals', 'widths': [5, 10, 20]} for numbers or {'type': "
            "'masking'} for codes (anonkit.builders)."
        )


class LeakWarning(UserWarning):
    """A column released as it stands could single people out or link the release to
    other data (a near-unique column kept); the leak check's warning, which does not
    stop the run as its errors do (:class:`LeakError`). The message names the column,
    the reason and the fix, never a value."""

    __reduce__ = AnonkitError.__reduce__

    def __init__(self, column: str, kind: str, reason: str) -> None:
        self.column = column
        self.kind = kind
        super().__init__(reason)


def warn_caller(warning: Warning) -> None:
    """Issue ``warning`` attributed to the first caller outside anonkit (the user's line
    that called the API, whatever the depth of the call inside)."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame: FrameType | None = sys._getframe(1)
    level = 2  # stacklevel 1 is this function
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(warning, stacklevel=level)
