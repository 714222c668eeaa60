"""A file that changes while the Spark engine reads it twice (count, then release) stops
the fit with an InputChangedError naming it, and nothing is written.

Spark keeps a file's listing (and size) from the first read, so a CSV file with records
appended was read in part by the release; the run ended in the verification's internal
error, or, for a value swapped for another leaf, published a release of other records.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (the spark extra)")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Java is not installed (Spark needs a JVM)", allow_module_level=True)

import anonkit  # noqa: E402
from anonkit.engines.spark_engine import SparkEngine  # noqa: E402
from anonkit.exceptions import InputChangedError  # noqa: E402

QI = ["age", "sex", "race"]


def _swapped(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with the first 40 records' race another leaf of the hierarchy."""
    other = next(v for v in frame["race"] if v != frame["race"][0])
    first = pl.int_range(pl.len()) < 40
    return frame.with_columns(pl.when(first).then(pl.lit(other)).otherwise("race").alias("race"))


def _run_changed(
    spark: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    adult: tuple[pl.DataFrame, dict[str, Path]],
    changed: pl.DataFrame,
    source: Any,
    data: Path,
) -> InputChangedError:
    """Anonymize ``source`` (reading ``data``) on Spark, ``data`` rewritten as
    ``changed`` once counted; the error, after checking nothing was written."""
    _, paths = adult
    count = SparkEngine.count

    def count_then_change(self: SparkEngine, *args: Any) -> Any:
        table = count(self, *args)
        changed.write_csv(data)
        return table

    monkeypatch.setattr(SparkEngine, "count", count_then_change)
    out = tmp_path / "out" / "release.parquet"
    with pytest.raises(InputChangedError) as caught:
        anonkit.anonymize(
            source,
            engine="spark",
            output=out,
            quasi_identifiers=QI,
            hierarchies={c: paths[c] for c in QI},
            k=5,
            suppression_limit=0.02,
        )
    assert "changed during the run" in " ".join(str(caught.value).split())
    assert not out.parent.exists() or list(out.parent.iterdir()) == []
    return caught.value


@pytest.mark.parametrize("how", ["path", "read_text"])
def test_a_csv_file_changed_between_the_passes_is_named(
    spark: Any,
    adult: tuple[pl.DataFrame, dict[str, Path]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    """Records appended (given as a path) or a leaf swapped (read as the CLI reads a CSV
    input, :meth:`SparkEngine.read_text`): both name the file."""
    frame = adult[0].select(QI).head(3000)
    data = tmp_path / "adult.csv"
    frame.write_csv(data)
    if how == "path":
        source: Any = str(data)
        changed = pl.concat([frame, frame.head(50)])
    else:
        source = SparkEngine(spark).read_text(data)
        changed = _swapped(frame)
    err = _run_changed(spark, monkeypatch, tmp_path, adult, changed, source, data)
    assert err.source == str(data)


def test_without_a_file_to_compare_the_class_sizes_tell(
    spark: Any,
    adult: tuple[pl.DataFrame, dict[str, Path]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A DataFrame the caller read carries no file anonkit can stamp: the release's
    records per class (a leaf swapped moves 40 of them) still differ from the count's."""
    frame = adult[0].select(QI).head(3000)
    data = tmp_path / "adult.csv"
    frame.write_csv(data)
    source = spark.read.csv(str(data), header=True, inferSchema=False)
    err = _run_changed(spark, monkeypatch, tmp_path, adult, _swapped(frame), source, data)
    assert err.source is None


@pytest.mark.parametrize("change", ["appended", "swapped"])
def test_mondrian_on_spark_names_a_changed_file(
    spark: Any,
    adult: tuple[pl.DataFrame, dict[str, Path]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    change: str,
) -> None:
    """Mondrian on Spark reads the input to count it, then to partition and release it:
    records appended ended in the verification's internal error, a leaf swapped was
    released unseen."""
    frame, paths = adult[0].select(QI).head(3000), adult[1]
    data = tmp_path / "adult.csv"
    frame.write_csv(data)
    changed = pl.concat([frame, frame.head(50)]) if change == "appended" else _swapped(frame)
    count = SparkEngine.group_counts

    def count_then_change(self: SparkEngine, *args: Any) -> Any:
        counts = count(self, *args)
        changed.write_csv(data)
        return counts

    monkeypatch.setattr(SparkEngine, "group_counts", count_then_change)
    out = tmp_path / "out" / "release.parquet"
    with pytest.raises(InputChangedError) as caught:
        anonkit.anonymize(
            str(data),
            engine="spark",
            algorithm="mondrian",
            output=out,
            quasi_identifiers=QI,
            hierarchies={c: paths[c] for c in QI},
            k=5,
        )
    assert caught.value.source == str(data)
    assert not out.parent.exists() or list(out.parent.iterdir()) == []
