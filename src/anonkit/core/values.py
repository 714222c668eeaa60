"""Cell values as hierarchies see them: normalized text, and codes against a hierarchy.

Every path that compares a cell with a hierarchy's values goes through :func:`text_expr`
(one polars expression, so that eager frames, lazy scans and the streaming engine render
values the same way) or :func:`as_text` (its eager twin). Whole numbers print without
decimals (``2.0`` -> ``"2"``: pandas turns integer columns with gaps into floats), other
floats as Python's ``repr`` prints them (``1e-06``; a Float32 value as the float64 of the
number polars prints, ``0.1``), decimals as the same number read from a text file reads
(``Decimal("1.50")`` -> ``"1.5"``; beyond 15 significant digits every digit), booleans
as ``True``/``False``, timestamps as Python prints them (``2024-03-05 08:00:00``),
strings are stripped.

Codes: a quasi-identifier's level-0 code is the row of its value in the hierarchy
(:func:`code_expr`); a sensitive attribute's labels are the values that occur, in the
hierarchy's order when it has one, otherwise in numeric order when every value is a
number and in text order otherwise (:func:`sensitive_labels`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from anonkit._arrays import IntArray
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import (
    DataError,
    EmptyDataError,
    MissingValuesError,
    ValuesNotInHierarchyError,
)

__all__ = [
    "FLOAT_DIGITS",
    "INT128",
    "MISSING_CODE",
    "UNKNOWN_CODE",
    "CodedRecords",
    "as_numbers",
    "as_text",
    "check_single_values",
    "code_expr",
    "encode_column",
    "encode_records",
    "encode_sensitive",
    "missing_expr",
    "sensitive_labels",
    "sensitive_text_expr",
    "string_codes",
    "text_apart",
    "text_expr",
]


#: Code of a value that is not a leaf of the column's hierarchy.
UNKNOWN_CODE = -1
#: Code of a missing value (null, or NaN in a float column).
MISSING_CODE = -2
#: The largest integer magnitude up to which a float64 holds every integer exactly.
FLOAT_EXACT = 2**53


def beyond_float(low: Any, high: Any) -> bool:
    """Whether integers from ``low`` to ``high`` (a column's minimum and maximum) reach
    past :data:`FLOAT_EXACT`, where a float64 would round some of them.

    >>> beyond_float(-(2**53), 2**53), beyond_float(0, 2**53 + 1)
    (False, True)
    """
    return int(high) > FLOAT_EXACT or int(low) < -FLOAT_EXACT


def as_numbers(series: pl.Series, column: str, declared: str = "numeric") -> pl.Series:
    """``series`` (numbers, or text as a file gives them) as float64 numbers.

    Raises
    ------
    DataError
        If a value is no number, naming the first such value, its record and how many
        more there are (missing values stay missing: the caller decides about them).
    """
    cast = series.cast(pl.Float64, strict=False)
    bad = cast.is_null() & series.is_not_null()
    if bad.any():
        at = bad.arg_true()
        more = f" and {at.len() - 1:,} more" if at.len() > 1 else ""
        raise DataError(
            f"Column {column!r} is declared {declared} but holds values that are not "
            f"numbers: {series[at[0]]!r} (record {at[0] + 1:,}){more}."
        )
    return cast


def text_expr(column: str, dtype: pl.DataType) -> pl.Expr:
    """The values of ``column`` (of type ``dtype``) as the text a hierarchy holds.

    Missing values stay null (NaN prints as ``"NaN"``; :func:`missing_expr` finds both).
    The hierarchies built from a column's values are built from this text too
    (:func:`anonkit.core.resolve.resolve_hierarchy`), so they hold every value.
    """
    col = pl.col(column)
    if dtype == pl.String:
        return col.str.strip_chars()
    if dtype == pl.Boolean:
        return pl.when(col).then(pl.lit("True")).when(~col).then(pl.lit("False")).alias(column)
    if dtype == pl.Float32:
        # a whole number with every digit (797676544, as Spark's whole keys read it),
        # another as the float64 of the number polars prints (0.1, not 0.1000000015)
        exact = col.cast(pl.Float64)
        whole = (exact == exact.round(0)) & (exact.abs() < INT128)
        printed = col.cast(pl.String).cast(pl.Float64)
        return _float_text(pl.when(whole).then(exact).otherwise(printed)).alias(column)
    if dtype.is_float():
        return _float_text(col).alias(column)
    if isinstance(dtype, pl.Decimal):
        # as the same number read from a text file (a float) reads, when a float holds
        # it: up to 15 significant digits (1.50 as "1.5", 30.00 as "30"); beyond, every
        # digit but the trailing zeros
        text = col.cast(pl.String)
        digits = text.str.replace(r"(\.[0-9]*[1-9])0+$", "${1}").str.replace(r"\.0+$", "")
        significant = digits.str.replace_all(r"[-.]", "").str.strip_chars_start("0")
        short = significant.str.len_chars() <= FLOAT_DIGITS
        number = _float_text(col.cast(pl.Float64))
        return pl.when(short).then(number).otherwise(digits).alias(column)
    if isinstance(dtype, pl.Datetime):
        return _datetime_text(col, dtype).alias(column)
    return col.cast(pl.String)


#: Whole floats below this size read with all their digits (Int128 holds them exactly).
INT128 = 2.0**127
#: Significant decimal digits a float64 holds exactly (``DBL_DIG``): a decimal number with
#: no more reads back from the float's shortest text.
FLOAT_DIGITS = 15


def _float_text(col: pl.Expr) -> pl.Expr:
    """Float64 values as the builders label them: a whole number without its decimals
    (30.0 as "30"), with all its digits below 2**127 (Int128 holds them exactly); another
    as Python's ``repr`` writes it, the same shortest round-trip digits as polars:
    polars writes 1e-9 where Python writes 1e-09, and 0.000025 where Python writes
    2.5e-05 (from 1e-5 to 1e-4)."""
    whole = col.cast(pl.Int128, strict=False)
    is_whole = (col == col.round(0)) & whole.is_not_null()
    text = (
        col.cast(pl.String)
        .str.replace(r"e-([0-9])$", "e-0${1}")
        .str.replace(r"^(-?)0\.0000([1-9])$", "${1}${2}e-05")
        .str.replace(r"^(-?)0\.0000([1-9])([0-9]+)$", "${1}${2}.${3}e-05")
    )
    return pl.when(is_whole).then(whole.cast(pl.String)).otherwise(text)


def _datetime_text(col: pl.Expr, dtype: pl.Datetime) -> pl.Expr:
    """A timestamp as Python prints it (``str(datetime)``), which is how the builders
    label one: ``2024-03-05 08:00:00``, microseconds only when there are some
    (``.250000``), and the offset of a zoned one (``+00:00``). Polars' own cast prints
    every digit of the time unit (``08:00:00.000000000``), so a builder's labels would
    never match. Nanoseconds below a microsecond are dropped, as Python drops them."""
    text = col.dt.strftime("%Y-%m-%d %H:%M:%S%.6f").str.strip_suffix(".000000")
    return text + col.dt.strftime("%:z") if dtype.time_zone else text


def check_single_values(
    schema: pl.Schema, columns: Sequence[str], *, released: bool = False
) -> None:
    """Refuse a column of ``columns`` whose cells are not single values anonkit can read
    (lists, arrays, structs, Python objects, bytes) or are durations (no text form to
    match a hierarchy's labels), which cannot be counted or generalized; with
    ``released``, columns released as they are, which the leak check must read (bytes
    it reads).

    Raises
    ------
    DataError
        Naming the first such column and its type.

    Examples
    --------
    >>> import datetime as dt
    >>> check_single_values(pl.Schema({"wait": pl.Duration("us")}), ["wait"])
    Traceback (most recent call last):
    anonkit.exceptions.DataError: Column 'wait' holds Duration(time_unit='us') values, ...
    """
    for c in columns:
        dtype = schema[c]
        if isinstance(dtype, pl.Duration):
            raise DataError(
                f"Column {c!r} holds {dtype} values, which anonkit does not read: convert "
                f"it to a number first (pl.col({c!r}).dt.total_days(), or total_seconds())."
            )
        if released and (dtype.is_nested() or dtype == pl.Object):
            raise DataError(
                f"Column {c!r} holds {dtype} values, which the leak check cannot read to "
                "tell whether releasing it gives the quasi-identifiers away: flatten it, or "
                "join its items into one text, first (or turn the leak check off)."
            )
        if not released and (dtype.is_nested() or dtype in (pl.Object, pl.Binary)):
            raise DataError(
                f"Column {c!r} holds {dtype} values; a quasi-identifier or sensitive "
                "attribute holds one value per record (text, a number, a date): flatten "
                "it, or join its items into one text, first."
            )


#: Types whose values :func:`text_expr` writes one-to-one (a String column too, unless a
#: value has blanks to strip; floats are not: ``1.0`` and ``1`` read alike).
_TEXT_ONE_TO_ONE = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32,
                    pl.UInt64, pl.Boolean, pl.Categorical, pl.Enum, pl.Date)  # fmt: skip


def text_apart(frame: pl.DataFrame, columns: Sequence[str]) -> list[str]:
    """The ``columns`` of ``frame`` whose distinct values stay distinct in
    :func:`text_expr`: counted as text, they are counted as they are (``"X"`` and
    ``"X "`` would be one value). Strings are checked on their distinct values.

    Examples
    --------
    >>> text_apart(pl.DataFrame({"a": ["X", "X "], "b": ["X", "Y"], "c": [1.0, 2.5]}),
    ...            ["a", "b", "c"])
    ['b']
    """
    schema = frame.schema
    texts = [c for c in columns if schema[c] == pl.String]
    padded = set()
    for c in texts:  # eager: a lazy query's planning cost more (Adult's occupation: 4x)
        distinct = frame.get_column(c).unique()
        if (distinct != distinct.str.strip_chars()).any():
            padded.add(c)
    return [
        c
        for c in columns
        if (c in texts and c not in padded) or isinstance(schema[c], _TEXT_ONE_TO_ONE)
    ]


def missing_expr(column: str, dtype: pl.DataType) -> pl.Expr:
    """Whether each value of ``column`` is missing (null, or NaN in a float column)."""
    col = pl.col(column)
    return col.is_null() | col.is_nan() if dtype.is_float() else col.is_null()


def sensitive_text_expr(column: str, dtype: pl.DataType) -> pl.Expr:
    """A sensitive column's values as normalized text (:func:`text_expr`), null where
    missing, as the engines count them."""
    return (
        pl.when(missing_expr(column, dtype))
        .then(None)
        .otherwise(text_expr(column, dtype))
        .alias(column)
    )


def code_expr(column: str, dtype: pl.DataType, hierarchy: Hierarchy) -> pl.Expr:
    """Level-0 codes of ``column`` against ``hierarchy`` (Int64): the leaf's row,
    :data:`UNKNOWN_CODE` for a value the hierarchy lacks, :data:`MISSING_CODE` for a
    missing one."""
    leaves = list(hierarchy.leaves)
    codes = text_expr(column, dtype).replace_strict(
        leaves, list(range(len(leaves))), default=UNKNOWN_CODE, return_dtype=pl.Int64
    )
    return pl.when(missing_expr(column, dtype)).then(MISSING_CODE).otherwise(codes).alias(column)


def string_codes(series: pl.Series, hierarchy: Hierarchy) -> pl.Series:
    """:func:`code_expr` of a String column, computed on its distinct values.

    The values are normalized and looked up once per distinct value, then every cell is
    mapped by one hash lookup: on large columns with few distinct values (the usual
    quasi-identifier) this avoids stripping every cell (measured on 1,000,000 Adult
    rows: about 1.7x faster than the expression).
    """
    if series.dtype != pl.String:
        raise TypeError("string_codes takes a String column")
    distinct = series.drop_nulls().unique()
    leaves = list(hierarchy.leaves)
    codes = distinct.str.strip_chars().replace_strict(
        leaves, list(range(len(leaves))), default=UNKNOWN_CODE, return_dtype=pl.Int64
    )
    return series.replace_strict(
        distinct, codes, default=MISSING_CODE, return_dtype=pl.Int64
    ).alias(series.name)


def as_text(series: pl.Series) -> pl.Series:
    """A column rendered as the strings a hierarchy file (or builder) would use."""
    return series.to_frame().select(text_expr(series.name, series.dtype)).to_series()


def _text(series: pl.Series, column: str) -> pl.Series:
    """``series`` as text, after refusing missing values."""
    nulls = series.null_count()
    if series.dtype.is_float():
        nulls += int(series.is_nan().sum())
    if nulls:
        raise MissingValuesError(column, nulls)
    return as_text(series)


def _unknown(text: pl.Series, codes: pl.Series, column: str, leaves: Sequence[str]) -> None:
    if (codes < 0).any():
        missing = text.filter(codes < 0).unique(maintain_order=True)
        raise ValuesNotInHierarchyError(column, missing.head(10).to_list(), missing.len(), leaves)


def encode_column(series: pl.Series, hierarchy: Hierarchy, column: str) -> pl.Series:
    """Level-0 codes of a column (Int64), with specific errors for nulls and unknown values.

    Raises
    ------
    MissingValuesError
        If the column holds nulls (or NaN).
    ValuesNotInHierarchyError
        If a value is not a leaf of ``hierarchy``.
    """
    text = _text(series, column)
    leaves = list(hierarchy.leaves)
    codes = text.replace_strict(leaves, list(range(len(leaves))), default=-1, return_dtype=pl.Int64)
    _unknown(text, codes, column, leaves)
    return codes.alias(column)


def sensitive_labels(
    distinct: Sequence[str], column: str, hierarchy: Hierarchy | None = None
) -> tuple[str, ...]:
    """The labels of a sensitive attribute whose distinct (normalized) values are
    ``distinct``: the hierarchy's leaves that occur, in its order, or the values in numeric
    order when every one is a number and in text order otherwise.

    Raises
    ------
    ValuesNotInHierarchyError
        If a value is not a leaf of ``hierarchy``.
    """
    present = set(distinct)
    if hierarchy is not None:
        leaves = set(hierarchy.leaves)
        unknown = [v for v in distinct if v not in leaves]
        if unknown:
            raise ValuesNotInHierarchyError(column, unknown[:10], len(unknown), hierarchy.leaves)
        return tuple(leaf for leaf in hierarchy.leaves if leaf in present)
    uniq = pl.Series(sorted(present), dtype=pl.String)
    numeric = uniq.cast(pl.Float64, strict=False)
    if numeric.null_count() == 0:
        return tuple(t for _, t in sorted(zip(numeric.to_list(), uniq.to_list(), strict=True)))
    return tuple(uniq.to_list())


def encode_sensitive(
    series: pl.Series, column: str, hierarchy: Hierarchy | None = None
) -> tuple[tuple[str, ...], IntArray]:
    """Dictionary-encode a sensitive attribute held in memory: ``(labels, codes)`` with
    the labels of :func:`sensitive_labels`.

    Raises
    ------
    MissingValuesError, ValuesNotInHierarchyError
        As :func:`encode_column`.
    """
    text = _text(series, column)
    if text.len() <= PYTHON_ROWS:  # the queries' fixed cost is higher than the work
        values = text.to_list()
        labels = sensitive_labels(list(dict.fromkeys(values)), column, hierarchy)
        index = {label: k for k, label in enumerate(labels)}
        return labels, np.fromiter((index[v] for v in values), dtype=np.int64, count=len(values))
    labels = sensitive_labels(text.unique().to_list(), column, hierarchy)
    codes = text.replace_strict(labels, list(range(len(labels))), return_dtype=pl.Int64)
    return labels, codes.to_numpy().astype(np.int64)


#: Up to this many values, :func:`encode_sensitive` (and
#: :func:`anonkit.metrics.released.released_classes`) code them in Python: the fixed cost
#: of polars' queries is higher than the work there.
PYTHON_ROWS = 1000


@dataclass(frozen=True, eq=False)
class CodedRecords:
    """Quasi-identifiers of records held in memory, as level-0 codes (what the local
    algorithms, which work record by record, start from).

    Attributes
    ----------
    columns
        Quasi-identifier names.
    hierarchies
        One hierarchy per quasi-identifier.
    codes
        ``(n_qi, n_records)`` level-0 codes.
    """

    columns: tuple[str, ...]
    hierarchies: tuple[Hierarchy, ...]
    codes: IntArray = field(repr=False)


def encode_records(
    frame: pl.DataFrame, columns: Sequence[str], hierarchies: Sequence[Hierarchy]
) -> CodedRecords:
    """Level-0 codes of every record's quasi-identifiers.

    Raises
    ------
    EmptyDataError
        If the frame has no records.
    MissingValuesError, ValuesNotInHierarchyError
        As :func:`encode_column`.
    """
    if frame.height == 0:
        raise EmptyDataError()
    codes = [
        encode_column(frame[c], h, c).to_numpy().astype(np.int64)
        for c, h in zip(columns, hierarchies, strict=True)
    ]
    return CodedRecords(tuple(columns), tuple(hierarchies), np.stack(codes))
