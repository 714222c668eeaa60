"""A profile of a table: what each column holds, how identifying it is, what it determines.

:func:`profile_table` describes every column by counts only (never a value): its kind, its
distinct values, how many records it singles out, its nulls, the direct-identifier pattern
its values match, and the pairs of columns where one determines the other (the rule of
:func:`anonkit.safety.leaks.dependency_strength`). ``anonkit init`` proposes a starter
configuration from it (:mod:`anonkit.safety.starter`).

Kinds
-----
Values are usually CSV text, so the kind is inferred by trying to read every non-null value
(surrounding spaces ignored):

=============  ===========================================================================
``integer``    whole numbers (``17``, ``-3``, ``77516``)
``number``     other decimal numbers (``2.5``, ``1e-3``)
``code``       digit strings of one fixed length with a leading zero or at least five
               digits (zip codes ``02134``, ``13053``), or fixed-length letters and digits
               holding a digit (``K12``, ``SW1A``): generalized by masking their tail
``date``       dates (or dates with a time) that all read with one of :data:`DATE_FORMATS`
``category``   other text with at most 1,000 distinct values, each used twice on average
``text``       other text (names, free text)
``empty``      no value at all
=============  ===========================================================================

Polars columns that are not text keep their type's kind (integers, floats, dates; booleans
are categories).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any, Final

import polars as pl

from anonkit.exceptions import DataError
from anonkit.safety.leaks import (
    NEAR_UNIQUE,
    ColumnCodes,
    Dependency,
    find_dependencies,
    identifier_kind,
)

__all__ = [
    "DATE_FORMATS",
    "KINDS",
    "ColumnProfile",
    "TableProfile",
    "date_format",
    "numbers_written_as",
    "profile_table",
]

#: Column kinds, see the module docstring.
KINDS: Final = ("integer", "number", "code", "date", "category", "text", "empty")
#: Date formats tried, in this order (the first that reads every value wins): days, then
#: the same days with a time of day (an admission time is as identifying as a birth date),
#: ISO 8601 times with an offset from UTC last (``+02:00``; their day is the day written).
DATE_FORMATS: Final = tuple(
    f"{day}{time}"
    for time in ("", " %H:%M", " %H:%M:%S", "T%H:%M", "T%H:%M:%S", "T%H:%M:%S%z")
    for day in ("%Y-%m-%d", "%d/%m/%Y", "%m/%d/%Y", "%d.%m.%Y", "%Y/%m/%d", "%d-%m-%Y")
    if not time.startswith("T") or day == "%Y-%m-%d"  # ISO 8601's T joins ISO days only
)
#: A text column with more distinct values than this is ``text``, not ``category``.
MAX_CATEGORIES: Final = 1000

_INTEGER = r"^[+-]?\d+$"
_NUMBER = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$"
_ALNUM_CODE = r"^[A-Za-z0-9]+$"


@dataclass(frozen=True)
class ColumnProfile:
    """What one column holds, by counts only.

    Attributes
    ----------
    name
        The column.
    kind
        One of :data:`KINDS`.
    records
        Records of the table.
    nulls
        Records without a value.
    distinct
        Distinct non-null values.
    distinct_share
        Distinct values (null counted as one) per record: 1.0 when every record differs.
    unique_share
        Share of the records whose value no other record holds.
    identifier
        The direct-identifier pattern most values match
        (:data:`anonkit.safety.leaks.IDENTIFIER_KINDS`), or None.
    identifier_share
        Share of the non-null values matching it.
    date_format
        For ``date`` columns read from text: the format that reads them.
    date_alternatives
        Other formats of :data:`DATE_FORMATS` that read every value too (``01/02/1980``
        reads day first and month first): the format is a guess to check.
    length
        For ``code`` columns: the length of every value.
    comma_numbers
        For text columns: every value is a number written with a comma (``49,4``, a
        decimal comma, or ``1,234``, a thousands separator), which anonkit reads as text.
    spaced
        For text columns: distinct values that equal another once surrounding spaces are
        trimmed (`` Paris`` beside ``Paris``); the hierarchies read them as that one value.
    cased
        For text columns: distinct trimmed values that equal another but for case
        (``paris`` beside ``Paris``); they stay apart, as two values.
    partly_dates
        For ``category`` and ``text`` columns: how many distinct values read as dates in
        one of :data:`DATE_FORMATS` or another, when that is at least half of them (not
        all in one format: ``2024-03-05`` beside ``05/03/2024`` or ``2023-02-29``), else 0.
    encoded
        For text columns: distinct trimmed values that equal another once in Unicode's
        composed form (``São`` with a combining tilde beside ``São``): they print alike
        and stay apart.
    free_text
        For ``category`` and ``text`` columns: sentences rather than labels (at least
        :data:`FREE_TEXT_VALUES` distinct values, half of them of
        :data:`FREE_TEXT_WORDS` words or more), which can name people whatever the
        column is called.
    """

    name: str
    kind: str
    records: int
    nulls: int
    distinct: int
    distinct_share: float
    unique_share: float
    identifier: str | None = None
    identifier_share: float | None = None
    date_format: str | None = None
    length: int | None = None
    date_alternatives: tuple[str, ...] = ()
    comma_numbers: bool = False
    spaced: int = 0
    cased: int = 0
    encoded: int = 0
    partly_dates: int = 0
    free_text: bool = False

    @property
    def near_unique(self) -> bool:
        """At least half as many distinct values as records (see ``leaks.NEAR_UNIQUE``)."""
        return self.records > 0 and self.distinct_share >= NEAR_UNIQUE

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary of the fields."""
        return asdict(self)


@dataclass(frozen=True)
class TableProfile:
    """The profile of every column and the dependencies between columns."""

    records: int
    columns: tuple[ColumnProfile, ...]
    dependencies: tuple[Dependency, ...]

    def __iter__(self) -> Iterator[ColumnProfile]:
        return iter(self.columns)

    def __getitem__(self, name: str) -> ColumnProfile:
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(name)

    def determined_by(self, column: str) -> list[str]:
        """The columns ``column`` determines."""
        return [d.dependent for d in self.dependencies if d.determinant == column]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary: records, columns, dependencies."""
        return {
            "records": self.records,
            "columns": [c.to_dict() for c in self.columns],
            "dependencies": [d.to_dict() for d in self.dependencies],
        }


def _all(values: pl.Series, pattern: str) -> bool:
    return bool(values.str.contains(pattern).all())


def date_format(values: pl.Series) -> str | None:
    """The first of :data:`DATE_FORMATS` that reads every one of ``values`` (distinct,
    stripped, non-empty text), or ``None``.

    Examples
    --------
    >>> date_format(pl.Series(["31/12/1979", "05/03/1980"]))
    '%d/%m/%Y'
    >>> date_format(pl.Series(["2024-03-15 14:32"])), date_format(pl.Series(["soon"]))
    ('%Y-%m-%d %H:%M', None)
    """
    # every value with a time, or none: the other formats cannot read them all
    timed = bool(values.str.contains(":", literal=True).all())
    for fmt in DATE_FORMATS:
        if ("%H" in fmt) == timed and values.str.to_date(fmt, strict=False).null_count() == 0:
            return fmt
    return None


def _text_kind(values: pl.Series, present: int) -> tuple[str, str | None, int | None]:
    """Kind, date format and code length of distinct, stripped, non-empty text values."""
    if values.len() == 0:
        return "empty", None, None
    lengths = values.str.len_chars()
    fixed = int(lengths.min()) if lengths.n_unique() == 1 else None  # type: ignore[arg-type]
    if _all(values, _INTEGER):
        unsigned = not bool(values.str.contains(r"^[+-]").any())
        leading_zero = bool(values.str.contains(r"^0\d").any())
        if fixed is not None and fixed >= 2 and unsigned and (leading_zero or fixed >= 5):
            return "code", None, fixed
        return "integer", None, None
    if _all(values, _NUMBER):
        return "number", None, None
    fmt = date_format(values)
    if fmt is not None:
        return "date", fmt, None
    if (
        fixed is not None
        and fixed >= 2
        and _all(values, _ALNUM_CODE)
        and _all(values, r"\d")
        and values.len() > 1
    ):
        return "code", None, fixed
    if values.len() <= MAX_CATEGORIES and 2 * values.len() <= present:
        return "category", None, None
    return "text", None, None


def _other_formats(values: pl.Series | None, found: str | None) -> tuple[str, ...]:
    """The formats besides ``found`` that read every value of a text date column
    (``values``: its distinct stripped values, ``None`` for another type)."""
    if found is None or values is None:
        return ()
    return tuple(
        f
        for f in DATE_FORMATS
        if f != found and not values.str.to_date(f, strict=False).null_count()
    )


#: A number written with a comma: ``49,4``, ``-0,5``, ``1,234``, ``1,234,567``.
_COMMA_NUMBER = r"^[+-]?\d+(,\d+)+$"


def _partly_dates(values: pl.Series | None, kind: str) -> int:
    """For a text column that is no date (``values``: its distinct stripped values): how
    many values some date format reads, if at least half of them."""
    if kind not in ("category", "text") or values is None:
        return 0
    present = values.filter(values != "")
    if present.len() < 2:
        return 0
    read = pl.Series([False] * present.len())
    for fmt in DATE_FORMATS:
        read = read | present.str.to_date(fmt, strict=False).is_not_null()
    count = int(read.sum())
    return count if 2 * count >= present.len() else 0


#: Free text: at least this many distinct values, half of them of at least
#: :data:`FREE_TEXT_WORDS` words (a category's labels are fewer, or shorter).
FREE_TEXT_VALUES: Final = 20
FREE_TEXT_WORDS: Final = 5


def _free_text(values: pl.Series | None, kind: str) -> bool:
    """Whether a text column (``values``: its distinct stripped values) holds sentences."""
    if kind not in ("category", "text") or values is None or values.len() < FREE_TEXT_VALUES:
        return False
    words = values.str.count_matches(r"\S+")
    return 2 * int((words >= FREE_TEXT_WORDS).sum()) >= values.len()


def _comma_numbers(values: pl.Series | None, kind: str) -> bool:
    """Whether every value of a text column (``values``: its distinct stripped values,
    ``None`` for another type) is a number, some written with a comma."""
    if kind not in ("category", "text") or values is None:
        return False
    return numbers_written_as(values.filter(values != ""), _COMMA_NUMBER)


def numbers_written_as(values: pl.Series, pattern: str) -> bool:
    """Whether every one of ``values`` (stripped text) is a whole number or matches
    ``pattern`` (a way of writing numbers that anonkit does not read as numbers), and at
    least one matches it."""
    written = values.str.contains(pattern)
    return bool(written.any()) and bool((written | values.str.contains(_INTEGER)).all())


def _variants(series: pl.Series, trimmed: pl.Series | None) -> tuple[int, int, int]:
    """How many distinct values of a text column equal another once trimmed, how many
    distinct trimmed values equal another but for case, and how many once in Unicode's
    composed form (``trimmed``: the distinct trimmed values, ``None`` for a column of
    another type)."""
    if trimmed is None or series.dtype != pl.String:
        return 0, 0, 0
    spaced = series.drop_nulls().n_unique() - trimmed.len()
    kept = trimmed.filter(trimmed != "")
    composed = kept.str.normalize("NFC")
    encoded = kept.len() - composed.n_unique()
    cased = composed.n_unique() - composed.str.to_lowercase().n_unique()
    return spaced, cased, encoded


def _kind(series: pl.Series) -> tuple[str, str | None, int | None, pl.Series | None]:
    """Kind, date format, code length, and the distinct stripped values of a column read
    as text (``None`` for a column of another type, whose type gives its kind)."""
    dtype = series.dtype
    present = series.len() - series.null_count()
    if present == 0:
        return "empty", None, None, None
    if dtype.is_integer():
        return "integer", None, None, None
    if dtype.is_float() or dtype.is_decimal():
        return "number", None, None, None
    if dtype in (pl.Date, pl.Datetime):
        return "date", None, None, None
    if dtype == pl.Boolean:
        return "category", None, None, None
    text = series.drop_nulls().cast(pl.String).str.strip_chars().unique()
    return (*_text_kind(text.filter(text != ""), present), text)


def _refuse_unreadable(schema: pl.Schema) -> None:
    """Refuse columns whose values have no text form to profile (lists, structs, arrays,
    Python objects, durations: a Parquet file can hold them), naming each with its type."""
    odd = [
        f"{c!r} ({t})"
        for c, t in schema.items()
        if t.is_nested() or t == pl.Object or isinstance(t, pl.Duration)
    ]
    if odd:
        raise DataError(
            f"{'Columns' if len(odd) > 1 else 'Column'} {', '.join(odd)} "
            f"{'hold' if len(odd) > 1 else 'holds'} values anonkit does not read (lists, "
            "structs, objects, durations): drop them from the table, or convert them "
            "(durations to a number, lists joined into one text), then try again."
        )


def profile_table(frame: pl.DataFrame) -> TableProfile:
    """Profile every column of ``frame`` (see the module docstring).

    Examples
    --------
    >>> frame = pl.DataFrame({"zip": ["02134", "02139", "02134", "02139"],
    ...                       "age": ["31", "45", "31", "45"],
    ...                       "mail": ["a@x.org", "b@x.org", "c@x.org", "d@x.org"]})
    >>> [(c.name, c.kind, c.distinct, c.identifier) for c in profile_table(frame)]
    [('zip', 'code', 2, None), ('age', 'integer', 2, None), ('mail', 'text', 4, 'e-mail addresses')]
    >>> [(d.determinant, d.dependent) for d in profile_table(frame).dependencies]
    []
    """
    _refuse_unreadable(frame.schema)
    coded = ColumnCodes(frame)
    n = frame.height
    columns = []
    for name in frame.columns:
        series = frame.get_column(name)
        kind, date_format, length, text = _kind(series)
        read = text if series.dtype == pl.String else None  # text as read, not a category
        found = identifier_kind(series)
        nulls = series.null_count()
        spaced, cased, encoded = _variants(series, read)
        columns.append(
            ColumnProfile(
                name=name,
                kind=kind,
                records=n,
                nulls=nulls,
                distinct=coded.distinct[name] - (1 if nulls else 0),
                distinct_share=coded.distinct[name] / n if n else 0.0,
                unique_share=coded.singles(name) / n if n else 0.0,
                identifier=found[0] if found else None,
                identifier_share=found[1] if found else None,
                date_format=date_format,
                length=length,
                date_alternatives=_other_formats(read, date_format),
                comma_numbers=_comma_numbers(read, kind),
                partly_dates=_partly_dates(read, kind),
                free_text=_free_text(read, kind),
                spaced=spaced,
                cased=cased,
                encoded=encoded,
            )
        )
    dependencies = find_dependencies(frame, codes=coded) if n else []
    return TableProfile(n, tuple(columns), tuple(dependencies))
