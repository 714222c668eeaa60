"""Cells as the Spark engine reads them: the text :func:`anonkit.core.values.text_expr`
gives, and the lookup keys that match a record's value with a hierarchy's leaf.

Values are normalized as :func:`~anonkit.core.values.text_expr` does, so that every
engine counts the same data the same way:

* strings are stripped of Unicode white space (``btrim`` with the characters Rust's
  ``char::is_whitespace`` accepts, which is what polars' ``strip_chars`` strips);
* integers print in decimal, booleans as ``True``/``False``;
* whole floats print as integers (``2.0`` -> ``"2"``; ``-0.0`` -> ``"0"``, ``1e20`` with
  its 21 digits up to 2^127, then ``3e+38``); NaN and null are missing;
* other floats, and whole ones past 64-bit integers, print as polars prints them
  (``1e-7``, ``123456789.5``, ``inf``). Spark prints them
  as Java does (``1.0E-7``, ``1.234567895E8``), so the engine never compares Spark's text
  with a hierarchy: a leaf that is polars' text of a float is looked up by Spark's text of
  the same float (computed by Spark, when the lookup table is built), and where the text
  itself is needed (sensitive values, :meth:`~anonkit.engines.spark_engine.SparkEngine.distinct`,
  the values named in an error) the distinct floats are brought to the driver and printed
  there by polars;
* decimals the same way: Spark prints a ``Decimal(10,2)`` with every digit of its scale
  (``2.00``, ``1.50``), polars as the number a text file holding it reads (``2``,
  ``1.5``, ``1e-07``; :func:`~anonkit.core.values.text_expr`). A leaf is a decimal's key
  when polars prints it for a value of the column's type, the key is Spark's text of
  that value, and decimals whose text is needed are printed on the driver by polars.

pyspark is imported only when these run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Context, Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

import polars as pl

from anonkit.core.values import as_text, text_expr
from anonkit.engines.spark_csv import WHITESPACE
from anonkit.engines.spark_frames import named

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import DataType

__all__ = [
    "driver_text",
    "is_float",
    "key_expr",
    "key_table",
    "leaf_keys",
    "missing",
    "on_driver",
    "spark_value",
    "text",
]

_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
#: Prefix of the lookup key of a float that is not whole (never starts an integer's text).
_FRACTION = "~"


def is_float(dtype: DataType) -> bool:
    """Whether ``dtype`` is a float type (whose NaN is missing too)."""
    from pyspark.sql.types import DoubleType, FloatType

    return isinstance(dtype, (DoubleType, FloatType))


def _is_decimal(dtype: DataType) -> bool:
    from pyspark.sql.types import DecimalType

    return isinstance(dtype, DecimalType)


def on_driver(dtype: DataType) -> bool:
    """Whether values of ``dtype`` are printed on the driver by polars (floats and
    decimals: Spark's text of them is not :func:`~anonkit.core.values.text_expr`'s)."""
    return is_float(dtype) or _is_decimal(dtype)


def _polars_type(dtype: DataType) -> pl.DataType:
    """The polars type of a float or decimal column."""
    from pyspark.sql.types import DecimalType, FloatType

    if isinstance(dtype, DecimalType):
        return pl.Decimal(dtype.precision, dtype.scale)
    return pl.Float32() if isinstance(dtype, FloatType) else pl.Float64()


def missing(column: str, dtype: DataType) -> Column:
    """Whether each value is missing (null, or NaN in a float column)."""
    from pyspark.sql import functions as F

    col = named(column)
    return col.isNull() | F.isnan(col) if is_float(dtype) else col.isNull()


def text(column: str, dtype: DataType) -> Column:
    """The text :func:`~anonkit.core.values.text_expr` gives, for every type but
    floats and decimals (see :func:`key_expr`); null when missing."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import BooleanType, StringType

    col = named(column)
    if isinstance(dtype, StringType):
        return F.btrim(col, F.lit(WHITESPACE))
    if isinstance(dtype, BooleanType):
        return F.when(col, F.lit("True")).when(~col, F.lit("False"))
    return col.cast("string")


def spark_value(column: str, dtype: DataType) -> Column:
    """What Spark groups a column's values by, null when missing: floats and decimals as
    they are (printed on the driver, :func:`driver_text`), other values as their text."""
    from pyspark.sql import functions as F

    if not on_driver(dtype):
        return text(column, dtype)
    return F.when(missing(column, dtype), F.lit(None)).otherwise(named(column))


def driver_text(values: Sequence[Any], dtype: DataType) -> list[Any]:
    """Values grouped by :func:`spark_value` and brought to the driver, as
    :func:`~anonkit.core.values.text_expr` prints them (floats and decimals by polars)."""
    if not on_driver(dtype):
        return list(values)
    if _is_decimal(dtype):
        series = pl.Series("v", list(values), dtype=_polars_type(dtype))
    else:
        series = pl.Series("v", list(values), dtype=pl.Float64).cast(_polars_type(dtype))
    return as_text(series).to_list()


def key_expr(column: str, dtype: DataType) -> Column:
    """The lookup key of each value: its text, except for floats that are not whole
    (or past 64-bit integers, or infinite), keyed by :data:`_FRACTION` and Spark's text
    of the float, and decimals, keyed by Spark's text of the decimal (see
    :func:`leaf_keys`)."""
    from pyspark.sql import functions as F

    col = named(column)
    if _is_decimal(dtype):
        return col.cast("string")
    if not is_float(dtype):
        return text(column, dtype)
    # whole floats within 64-bit integers key as their digits; those past them (which
    # polars prints with Int128's digits or as '3e+38') and infinities like the floats
    # that are not whole, by Spark's text: the range test also keeps the cast from
    # overflowing (an error under ANSI) on pyspark 3.5
    fits = (col >= F.lit(-(2.0**63))) & (col < F.lit(2.0**63))
    fraction = F.concat(F.lit(_FRACTION), col.cast("string"))
    return (
        F.when(missing(column, dtype), F.lit(None))
        .when(fits & (col == F.round(col, 0)), col.cast("long").cast("string"))
        .otherwise(fraction)
    )


def _float_leaves(leaves: Sequence[str], dtype: DataType) -> list[tuple[int, float]]:
    """The leaves that are polars' text of a float that :func:`key_expr` keys by Spark's
    text (not whole, past 64-bit integers or infinite), with the float."""
    texts = pl.Series("v", list(leaves), dtype=pl.String)
    values = texts.cast(_polars_type(dtype), strict=False)
    frame = pl.DataFrame({"t": texts, "v": values})
    shown = frame.select(text_expr("v", values.dtype))["v"]
    keep = values.is_not_null() & ~values.is_nan() & (shown == texts)
    wide = values.cast(pl.Float64)
    fits = (wide >= -(2.0**63)) & (wide < 2.0**63)
    keep = keep & ((values != values.round(0)) | ~fits)
    return [
        (i, float(v))
        for i, (v, ok) in enumerate(
            zip(values.cast(pl.Float64).to_list(), keep.to_list(), strict=True)
        )
        if ok
    ]


#: Enough digits to hold any value of a Spark decimal (38) exactly while quantizing.
_EXACT = Context(prec=80, traps=[InvalidOperation])


def _decimal_leaves(leaves: Sequence[str], dtype: DataType) -> list[tuple[int, Decimal]]:
    """The leaves that are polars' text of a value of the decimal type ``dtype``, with
    the value (``1.5`` for ``Decimal(10,2)``, but not ``1.50``, ``1.555`` or ``1e9``)."""
    precision, scale = dtype.precision, dtype.scale  # type: ignore[attr-defined]
    quantum = Decimal(1).scaleb(-scale)
    found: list[tuple[int, Decimal]] = []
    for i, leaf in enumerate(leaves):
        try:
            number = Decimal(leaf)
            exact = number.quantize(quantum, context=_EXACT) if number.is_finite() else None
        except InvalidOperation:  # not a number, or more digits than it can hold
            continue
        if exact is None or exact != number or exact.adjusted() >= precision - scale:
            continue
        found.append((i, exact))
    if not found:
        return []
    shown = as_text(pl.Series("v", [d for _, d in found], dtype=_polars_type(dtype)))
    return [(i, d) for (i, d), t in zip(found, shown.to_list(), strict=True) if t == leaves[i]]


def leaf_keys(dtype: DataType, leaves: Sequence[str]) -> list[tuple[int, Column]]:
    """Each leaf's lookup key (an expression Spark folds to a constant), by leaf index:
    the leaf itself, or for float columns the integers among the leaves and, for the
    leaves that are polars' text of a float :func:`_float_leaves` finds, :data:`_FRACTION`
    and Spark's text of that float; for decimal columns Spark's text of the decimals whose
    text the leaves are."""
    from pyspark.sql import functions as F

    if _is_decimal(dtype):
        kind = dtype.simpleString()
        return [(i, F.lit(d).cast(kind).cast("string")) for i, d in _decimal_leaves(leaves, dtype)]
    if not is_float(dtype):
        return [(i, F.lit(leaf)) for i, leaf in enumerate(leaves)]
    kind = "float" if _polars_type(dtype) == pl.Float32() else "double"
    keys = [(i, F.lit(leaf)) for i, leaf in enumerate(leaves) if _INTEGER.fullmatch(leaf)]
    for i, f in _float_leaves(leaves, dtype):
        spark_text = F.lit(f).cast("double").cast(kind).cast("string")
        keys.append((i, F.concat(F.lit(_FRACTION), spark_text)))
    return keys


def key_table(
    session: SparkSession,
    dtype: DataType,
    leaves: Sequence[str],
    values: Sequence[Any],
    value_type: str,
    join: str,
    out: str,
) -> DataFrame:
    """The table of :func:`leaf_keys` (column ``join``) and each leaf's ``values[leaf]``
    (column ``out``, of ``value_type``), for a broadcast join on :func:`key_expr`."""
    from pyspark.sql import functions as F

    schema = f"`{join}` string, `{out}` {value_type}"
    if _is_decimal(dtype):
        kind = dtype.simpleString()
        return session.createDataFrame(
            [(d, values[i]) for i, d in _decimal_leaves(leaves, dtype)],
            f"d {kind}, `{out}` {value_type}",
        ).select(F.col("d").cast("string").alias(join), F.col(out))
    if not is_float(dtype):
        return session.createDataFrame([(leaf, values[i]) for i, leaf in enumerate(leaves)], schema)
    whole = [(leaf, values[i]) for i, leaf in enumerate(leaves) if _INTEGER.fullmatch(leaf)]
    table = session.createDataFrame(whole, schema)
    fractions = _float_leaves(leaves, dtype)
    if fractions:
        kind = "float" if _polars_type(dtype) == pl.Float32() else "double"
        extra = session.createDataFrame(
            [(f, values[i]) for i, f in fractions], f"f double, `{out}` {value_type}"
        ).select(
            F.concat(F.lit(_FRACTION), F.col("f").cast(kind).cast("string")).alias(join),
            F.col(out),
        )
        table = table.unionByName(extra)
    return table
