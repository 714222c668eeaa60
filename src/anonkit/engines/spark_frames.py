"""Small Spark DataFrames brought to the driver as polars frames (grouped counts,
tallies, a block's records): each Spark type as the polars type it reads as.

pyspark is imported only when these run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["collect_frame", "polars_types"]

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


def polars_types(df: DataFrame) -> dict[str, pl.DataType | None]:
    """Each column's polars type as :func:`collect_frame` reads it (``None``: left to polars
    to infer from the Python values Spark gives)."""
    return {f.name: _POLARS_TYPES.get(f.dataType.simpleString()) for f in df.schema.fields}


def collect_frame(df: DataFrame) -> pl.DataFrame:
    """A small Spark DataFrame collected into a polars frame (types other than numbers,
    booleans, text and dates come as text)."""
    from pyspark.sql import functions as F

    schema = polars_types(df)
    df = df.select(
        *[F.col(c) if t is not None else F.col(c).cast("string") for c, t in schema.items()]
    )
    types = {c: t if t is not None else pl.String() for c, t in schema.items()}
    return pl.DataFrame([tuple(r) for r in df.collect()], schema=types, orient="row")
