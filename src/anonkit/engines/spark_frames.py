"""Small Spark DataFrames brought to the driver as polars frames (grouped counts,
tallies, a block's records): each Spark type as the polars type it reads as; and
:func:`named`, the reference to a column by its name as written.

pyspark is imported only when these run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from anonkit.core.values import text_expr

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

__all__ = ["collect_frame", "named", "polars_types", "quoted", "spark_frame"]

_POLARS_TYPES: dict[str, pl.DataType] = {
    "string": pl.String(),
    "bigint": pl.Int64(),
    "int": pl.Int32(),
    "smallint": pl.Int16(),
    "tinyint": pl.Int8(),
    "double": pl.Float64(),
    "float": pl.Float32(),
    "boolean": pl.Boolean(),
    "date": pl.Date(),
}


def quoted(name: str) -> str:
    """``name`` quoted for Spark, so that it names one column as written (``a.b`` is a
    column, not the field ``b`` of a struct ``a``; a backtick inside is doubled).

    >>> quoted("age.years"), quoted("a`b")
    ('`age.years`', '`a``b`')
    """
    return "`" + name.replace("`", "``") + "`"


def named(name: str) -> Column:
    """The column called ``name`` (``F.col`` of :func:`quoted`): every column of a table
    is referred to this way, since ``F.col``, ``select`` and ``groupBy`` read a dot in a
    bare name as a struct's field."""
    from pyspark.sql import functions as F

    return F.col(quoted(name))


def polars_types(df: DataFrame) -> dict[str, pl.DataType | None]:
    """Each column's polars type as :func:`collect_frame` reads it (``None``: left to polars
    to infer from the Python values Spark gives)."""
    from pyspark.sql.types import DecimalType

    return {
        f.name: pl.Decimal(f.dataType.precision, f.dataType.scale)
        if isinstance(f.dataType, DecimalType)  # read as text_expr reads decimals, not '2.00'
        else _POLARS_TYPES.get(f.dataType.simpleString())
        for f in df.schema.fields
    }


def collect_frame(df: DataFrame) -> pl.DataFrame:
    """A small Spark DataFrame collected into a polars frame (types other than numbers,
    decimals, booleans, text and dates come as text)."""
    schema = polars_types(df)
    df = df.select(
        *[named(c) if t is not None else named(c).cast("string") for c, t in schema.items()]
    )
    types = {c: t if t is not None else pl.String() for c, t in schema.items()}
    return pl.DataFrame([tuple(r) for r in df.collect()], schema=types, orient="row")


def spark_frame(session: SparkSession, frame: pl.DataFrame) -> DataFrame:
    """A table held in memory (a population read with polars) as a Spark DataFrame of text
    columns, each value as anonkit reads it (:func:`~anonkit.core.values.text_expr`).

    The rows go to Spark from Python: a large table is better given as a path, which the
    session reads itself."""
    text = frame.select([text_expr(c, t).alias(c) for c, t in frame.schema.items()])
    schema = ", ".join(f"{quoted(c)} string" for c in text.columns)
    return session.createDataFrame(text.rows(), schema)
