"""The one local Spark session of a test run, shared by every Spark test file."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local Spark session (``local[2]``) for the whole test run."""
    pytest.importorskip("pyspark", reason="pyspark is not installed (the spark extra)")
    from pyspark.sql import SparkSession

    # Python tasks (Mondrian's blocks) run in this interpreter, which imports anonkit
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("anonkit-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.memory", "512m")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
