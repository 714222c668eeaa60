"""Helpers of the Spark test files: skip without pyspark or Java, move tables to Spark."""

from __future__ import annotations

import os
import shutil
from typing import Any

import polars as pl
import pytest

#: Why the Spark tests are skipped on this machine, or ``None`` when they run.
SKIP_REASON: str | None = None
try:
    import pyspark  # noqa: F401
except ImportError:
    SKIP_REASON = "pyspark is not installed (the spark extra)"
else:
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        SKIP_REASON = "Java is not installed (Spark needs a JVM)"

skip_without_spark = pytest.mark.skipif(SKIP_REASON is not None, reason=str(SKIP_REASON))

_TYPES = {
    pl.String: "string",
    pl.Int64: "bigint",
    pl.Int32: "int",
    pl.Float64: "double",
    pl.Float32: "float",
    pl.Boolean: "boolean",
}


def to_spark(spark: Any, frame: pl.DataFrame) -> Any:
    """The same table as a Spark DataFrame (same column types)."""
    schema = ", ".join(f"`{c}` {_TYPES[type(t)]}" for c, t in frame.schema.items())
    return spark.createDataFrame(frame.rows(), schema)


def collect(df: Any, schema: dict[str, Any]) -> pl.DataFrame:
    """A Spark DataFrame's rows as a polars frame with ``schema`` (column order kept)."""
    names = list(schema)
    rows = [tuple(r) for r in df.select(*[f"`{c}`" for c in names]).collect()]
    return pl.DataFrame(rows, schema=schema, orient="row")
