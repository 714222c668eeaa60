"""The Spark engine counts, names errors and releases exactly as the polars engine does.

Every test runs one local Spark session (``local[2]``, started once for the whole run)
and compares the Spark engine with :class:`~anonkit.engines.polars_engine.PolarsEngine`
on the same data: snapshots as sets of rows with counts (Spark's order differs), errors
with the same counts and values, releases after sorting.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

from anonkit.core.encoding import EncodedTable
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.snapshot import FrequencySnapshot
from anonkit.core.transform import ReleasePlan
from anonkit.engines.base import COUNT, SensitiveSpec, get_engine
from anonkit.engines.polars_engine import PolarsEngine
from anonkit.exceptions import (
    EmptyDataError,
    MissingValuesError,
    UnknownColumnError,
    ValuesNotInHierarchyError,
)
from anonkit.io.tables import read_table

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (the spark extra)")

if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Java is not installed (Spark needs a JVM)", allow_module_level=True)

from spark_support import to_spark  # noqa: E402

from anonkit.engines.spark_engine import SparkEngine  # noqa: E402


def rows_of(snapshot: FrequencySnapshot) -> Counter[tuple[int, ...]]:
    """A snapshot as a multiset of (codes..., count[, population]) rows."""
    columns = [*snapshot.codes, snapshot.counts]
    if snapshot.population is not None:
        columns.append(snapshot.population)
    return Counter(tuple(int(v) for v in row) for row in zip(*columns, strict=True))


def assert_same_table(a: EncodedTable, b: EncodedTable) -> None:
    assert rows_of(a.snapshot) == rows_of(b.snapshot)
    assert a.population_size == b.population_size
    assert (a.detail is None) == (b.detail is None)
    if a.detail is not None and b.detail is not None:
        assert rows_of(a.detail) == rows_of(b.detail)
    assert [s.labels for s in a.sensitive] == [s.labels for s in b.sensitive]
    assert [s.totals.tolist() for s in a.sensitive] == [s.totals.tolist() for s in b.sensitive]


def flat(values: Sequence[str], name: str) -> Hierarchy:
    """A two-level hierarchy: each value, then ``*``."""
    return Hierarchy([[v, "*"] for v in values], name=name)


def grouped(values: Sequence[str], name: str) -> Hierarchy:
    """A three-level hierarchy: each value, its group (two per group), then ``*``."""
    return Hierarchy([[v, f"g{i // 2}", "*"] for i, v in enumerate(values)], name=name)


def sorted_rows(frame: pl.DataFrame) -> list[tuple[Any, ...]]:
    return sorted(frame.rows(), key=repr)


# ------------------------------------------------------------------- normalization
FLOATS = [0.1, 1e-7, 123456789.5, -0.0, 2.0, 2.5, 1 / 3, 1e-3, 1e7 + 0.5, 5e-324, 12.0]


@pytest.fixture(scope="module")
def mixed() -> pl.DataFrame:
    """One column per type, with the values whose text is easy to get wrong."""
    n = len(FLOATS)
    strings = [" a", "b ", "\u00a0a\u3000", "\tc\n", "b", "d", "a", "\u2003e", "c", "x y", "d"]
    return pl.DataFrame(
        {
            "s": strings[:n],
            "i": [3, -1, 0, 3, 12, 7, 7, 0, -1, 5, 3][:n],
            "f": FLOATS,
            "f32": pl.Series(FLOATS, dtype=pl.Float32),
            "b": [True, False, True, True, False, True, False, False, True, True, False][:n],
        }
    )


def test_distinct_matches_polars(spark: Any, mixed: pl.DataFrame) -> None:
    source = to_spark(spark, mixed)
    for column in mixed.columns:
        expected = PolarsEngine().distinct(mixed, column)
        assert SparkEngine().distinct(source, column) == expected, column


def test_counts_values_of_every_type_as_polars(spark: Any, mixed: pl.DataFrame) -> None:
    polars = PolarsEngine()
    frame = mixed.with_columns(pl.col("s").alias("s2"), pl.col("b").alias("b2"))
    columns = ["s", "i", "f32", "b"]
    hierarchies = [grouped(polars.distinct(frame, c), c) for c in columns]
    sensitive = [SensitiveSpec("f"), SensitiveSpec("s2"), SensitiveSpec("b2")]
    expected = polars.count_detail(frame, columns, hierarchies, sensitive)
    got = SparkEngine().count_detail(to_spark(spark, frame), columns, hierarchies, sensitive)
    assert_same_table(got, expected)


@pytest.mark.parametrize("dtype", [pl.Float64, pl.Float32])
def test_whole_floats_past_64_bit_integers_are_counted_as_polars(
    spark: Any, dtype: pl.DataType
) -> None:
    """polars prints whole floats below 2^127 with every digit (1e20 as
    '100000000000000000000'), larger ones as '3e+38', infinities as 'inf'; Spark keyed
    those past 64-bit integers as missing and refused them as values not in the
    hierarchy."""
    values = [1e20, -1e20, 2.0**100, 3e38, float("inf"), float("-inf"), 2.5, 9.3e18, 2.0]
    frame = pl.DataFrame(
        {"f": pl.Series(values, dtype=dtype), "q": ["a", "b", "c"] * 3, "s": ["x", "y", "z"] * 3}
    )
    polars = PolarsEngine()
    hierarchies = [grouped(polars.distinct(frame, c), c) for c in ("f", "q")]
    sensitive = [SensitiveSpec("s")]
    expected = polars.count_detail(frame, ["f", "q"], hierarchies, sensitive)
    source = to_spark(spark, frame)
    got = SparkEngine().count_detail(source, ["f", "q"], hierarchies, sensitive)
    assert_same_table(got, expected)
    assert SparkEngine().distinct(source, "f") == polars.distinct(frame, "f")


def test_float_leaves_not_in_polars_text_are_unknown(spark: Any) -> None:
    """A leaf spelled as Java spells a float (``1.0E-7``) is not that float's text."""
    frame = pl.DataFrame({"f": [1e-7, 0.5]})
    h = flat(["1.0E-7", "0.5"], "f")
    with pytest.raises(ValuesNotInHierarchyError) as expected:
        PolarsEngine().count(frame, ["f"], [h])
    with pytest.raises(ValuesNotInHierarchyError) as got:
        SparkEngine().count(to_spark(spark, frame), ["f"], [h])
    assert str(got.value) == str(expected.value)


# ------------------------------------------------------------------- random tables
def random_table(seed: int, n: int = 60) -> tuple[pl.DataFrame, list[Hierarchy]]:
    rng = np.random.default_rng(seed)
    ages = rng.integers(18, 30, n)
    frame = pl.DataFrame(
        {
            "age": ages,
            "sex": rng.choice(["m", "f", " f"], n),
            "zip": rng.choice(["10115", "10117", "10119", "20095", "20097"], n),
            "score": rng.choice([1.5, 2.0, 2.25, 3.0], n),
            "disease": rng.choice(["flu", "cold", "cancer", "hiv"], n),
            "income": rng.choice([10.0, 20.5, 30.0], n),
            "name": [f"p{i}" for i in range(n)],
        }
    )
    hierarchies = [
        grouped([str(a) for a in range(18, 30)], "age"),
        flat(["m", "f"], "sex"),
        grouped(["10115", "10117", "10119", "20095", "20097"], "zip"),
        grouped(["1.5", "2", "2.25", "3"], "score"),
    ]
    return frame, hierarchies


QI = ["age", "sex", "zip", "score"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_count_equals_polars(spark: Any, seed: int) -> None:
    frame, hierarchies = random_table(seed)
    expected = PolarsEngine().count(frame, QI, hierarchies)
    got = SparkEngine().count(to_spark(spark, frame), QI, hierarchies)
    assert_same_table(got, expected)


@pytest.mark.parametrize("seed", [3, 4])
def test_count_detail_equals_polars(spark: Any, seed: int) -> None:
    frame, hierarchies = random_table(seed)
    disease = Hierarchy(
        [["flu", "light", "*"], ["cold", "light", "*"], ["cancer", "grave", "*"]]
        + [["hiv", "grave", "*"], ["plague", "grave", "*"]],
        name="disease",
    )
    sensitive = [SensitiveSpec("disease", disease), SensitiveSpec("income")]
    population = pl.concat([frame, random_table(seed + 10, 100)[0]])
    polars, spark_engine = PolarsEngine(), SparkEngine()
    expected = polars.count_detail(frame, QI, hierarchies, sensitive, population)
    got = spark_engine.count_detail(
        to_spark(spark, frame), QI, hierarchies, sensitive, to_spark(spark, population)
    )
    assert_same_table(got, expected)
    assert_same_table(
        spark_engine.count_detail(to_spark(spark, frame), QI, hierarchies, sensitive[1:]),
        polars.count_detail(frame, QI, hierarchies, sensitive[1:]),
    )
    # a population held in memory (k-map, δ-presence; the CLI reads it with polars)
    # stopped the Spark engine with "reads Spark DataFrames or paths, not DataFrame"
    from_memory = spark_engine.count_detail(
        to_spark(spark, frame), QI, hierarchies, sensitive, population
    )
    assert_same_table(from_memory, expected)


def test_paths_are_read_by_the_session(spark: Any, tmp_path: Path) -> None:
    frame, hierarchies = random_table(5)
    parquet, csv = tmp_path / "t.parquet", tmp_path / "t.csv"
    frame.write_parquet(parquet)
    frame.write_csv(csv)
    engine = SparkEngine(spark)
    # CSV holds "2.0" as text, which the score hierarchy lacks: count it without score
    for path, columns in ((parquet, QI), (csv, QI[:3])):
        assert_same_table(
            engine.count(str(path), columns, hierarchies[: len(columns)]),
            PolarsEngine().count(path, columns, hierarchies[: len(columns)]),
        )


# ------------------------------------------------------------------------- errors
def _errors(spark: Any, frame: pl.DataFrame, columns: list[str], hierarchies: list[Hierarchy]):
    with pytest.raises(Exception) as expected:
        PolarsEngine().count(frame, columns, hierarchies)
    with pytest.raises(Exception) as got:
        SparkEngine().count(to_spark(spark, frame), columns, hierarchies)
    assert type(got.value) is type(expected.value)
    assert str(got.value) == str(expected.value)
    return got.value


def test_empty_table(spark: Any) -> None:
    frame = pl.DataFrame({"a": pl.Series([], dtype=pl.String)})
    assert isinstance(_errors(spark, frame, ["a"], [flat(["x"], "a")]), EmptyDataError)


def test_missing_values_counted_alike(spark: Any) -> None:
    frame = pl.DataFrame({"a": ["x", None, "y", None], "f": [1.0, math.nan, None, 2.0]})
    hierarchies = [flat(["x", "y"], "a"), flat(["1", "2"], "f")]
    err = _errors(spark, frame, ["f", "a"], hierarchies[::-1])
    assert isinstance(err, MissingValuesError)
    assert isinstance(_errors(spark, frame, ["a"], hierarchies[:1]), MissingValuesError)


def test_missing_sensitive_values_counted_alike(spark: Any) -> None:
    frame = pl.DataFrame({"a": ["x", "x", "y"], "s": [1.5, math.nan, None]})
    h = [flat(["x", "y"], "a")]
    with pytest.raises(MissingValuesError) as expected:
        PolarsEngine().count_detail(frame, ["a"], h, [SensitiveSpec("s")])
    with pytest.raises(MissingValuesError) as got:
        SparkEngine().count_detail(to_spark(spark, frame), ["a"], h, [SensitiveSpec("s")])
    assert str(got.value) == str(expected.value)


def test_values_not_in_hierarchy_named_alike(spark: Any) -> None:
    frame = pl.DataFrame(
        {
            "a": ["x", "u1", "y", "u2", "u1"] * 3 + [f"v{i}" for i in range(12)],
            "f": [1.5, 0.25, 2.0, 1e-7, 3.0] * 3 + [float(i) for i in range(12)],
        }
    )
    err = _errors(spark, frame, ["a"], [flat(["x", "y"], "a")])
    assert isinstance(err, ValuesNotInHierarchyError)
    err = _errors(spark, frame.head(15), ["f"], [flat(["1.5", "2", "3"], "f")])
    assert isinstance(err, ValuesNotInHierarchyError)


# ------------------------------------------------------------------------- release
def plans(hierarchies: list[Hierarchy], table: EncodedTable) -> list[ReleasePlan]:
    """Plans with and without suppressed classes, masked and dropped, with a drop."""
    levels, other = (1, 0, 1, 1), (0, 1, 2, 0)
    bottom = table.snapshot

    def classes_of_first_rows(at: tuple[int, ...]) -> np.ndarray:
        """The classes (at ``at``) of the first three bottom rows."""
        codes = np.stack(
            [
                np.asarray(h.level_map(0, lv))[bottom.codes[j][:3]]
                for j, (h, lv) in enumerate(zip(hierarchies, at, strict=True))
            ]
        )
        return np.unique(codes, axis=1)

    codes = classes_of_first_rows(levels)
    none = np.zeros((len(QI), 0), dtype=np.int64)
    base = ReleasePlan(tuple(QI), tuple(hierarchies), levels, none, drop=("name",))
    return [
        base,
        ReleasePlan(tuple(QI), tuple(hierarchies), levels, codes, drop=("name",)),
        ReleasePlan(tuple(QI), tuple(hierarchies), levels, codes, suppressed="drop"),
        ReleasePlan(tuple(QI), tuple(hierarchies), other, classes_of_first_rows(other)[:, :1]),
    ]


def test_apply_equals_polars(spark: Any) -> None:
    frame, hierarchies = random_table(6)
    table = PolarsEngine().count(frame, QI, hierarchies)
    source = to_spark(spark, frame)
    for plan in plans(hierarchies, table):
        expected = PolarsEngine().apply(frame, plan)
        got = SparkEngine().apply(source, plan)
        assert got.columns == expected.columns
        released = pl.DataFrame(
            [tuple(r) for r in got.collect()], schema=expected.schema, orient="row"
        )
        assert sorted_rows(released) == sorted_rows(expected)


def test_apply_releases_float_and_padded_values(spark: Any, mixed: pl.DataFrame) -> None:
    polars = PolarsEngine()
    columns = ["s", "f", "f32", "b", "i"]
    hierarchies = [grouped(polars.distinct(mixed, c), c) for c in columns]
    table = polars.count(mixed, columns, hierarchies)
    none = np.zeros((len(columns), 0), dtype=np.int64)
    for levels in [(0, 0, 0, 0, 0), (1, 1, 1, 1, 1)]:
        plan = ReleasePlan(tuple(columns), tuple(hierarchies), levels, none)
        expected = polars.apply(mixed, plan)
        got = SparkEngine().apply(to_spark(spark, mixed), plan)
        released = pl.DataFrame(
            [tuple(r) for r in got.collect()], schema=expected.schema, orient="row"
        )
        assert sorted_rows(released) == sorted_rows(expected)
    assert rows_of(table.snapshot)


def test_large_hierarchies_are_joined(spark: Any, mixed: pl.DataFrame, monkeypatch) -> None:
    """Hierarchies past ``MAP_LEAVES`` leaves are looked up by a broadcast join, and codes
    past ``PACK_LIMIT`` are grouped column by column: the same counts, errors and release."""
    from anonkit.engines import spark_engine

    monkeypatch.setattr(spark_engine, "MAP_LEAVES", 0)
    monkeypatch.setattr(spark_engine, "PACK_LIMIT", 0)  # one column per code
    polars = PolarsEngine()
    columns = list(mixed.columns)
    hierarchies = [grouped(polars.distinct(mixed, c), c) for c in columns]
    source = to_spark(spark, mixed)
    assert_same_table(
        SparkEngine().count(source, columns, hierarchies), polars.count(mixed, columns, hierarchies)
    )
    lacking = [flat(h.leaves[::2], h.name or "") for h in hierarchies]
    for c, h in zip(columns, lacking, strict=True):
        with pytest.raises(ValuesNotInHierarchyError) as expected:
            polars.count(mixed, [c], [h])
        with pytest.raises(ValuesNotInHierarchyError) as got:
            SparkEngine().count(source, [c], [h])
        assert str(got.value) == str(expected.value)
    frame, hierarchies = random_table(7)
    table = polars.count(frame, QI, hierarchies)
    plan = plans(hierarchies, table)[1]
    released = SparkEngine().apply(to_spark(spark, frame), plan)
    expected_release = polars.apply(frame, plan)
    got_release = pl.DataFrame(
        [tuple(r) for r in released.collect()], schema=expected_release.schema, orient="row"
    )
    assert sorted_rows(got_release) == sorted_rows(expected_release)


# ------------------------------------------------------- what the fit needs besides
def test_columns_head_and_tally(spark: Any) -> None:
    frame, _ = random_table(8)
    source, engine = to_spark(spark, frame), SparkEngine()
    assert engine.columns(source) == frame.columns
    head = engine.head(source, 5)
    assert head.schema == frame.schema and head.height == 5
    tally = engine.tally(source, ["sex", "zip"])
    expected = frame.group_by(["sex", "zip"]).len(name=COUNT).cast({COUNT: pl.Int64})
    assert tally.schema == expected.schema
    assert sorted_rows(tally) == sorted_rows(expected)


def test_sample_reads_records_from_the_whole_table(spark: Any) -> None:
    frame = pl.DataFrame({"i": list(range(2000))})
    source, engine = to_spark(spark, frame), SparkEngine()
    assert sorted(engine.sample(source, 5000)["i"].to_list()) == list(range(2000))
    sample = engine.sample(source, 200)["i"]
    assert 100 < sample.len() < 300 and sample.max() > 1500  # not the first records only
    assert engine.sample(source, 200)["i"].to_list() == sample.to_list()  # seeded


def test_write_replaces_atomically_and_reads_back(spark: Any, tmp_path: Path) -> None:
    frame = pl.DataFrame({"a": ["=cmd", "-3", "x", None], "@b": [1, 2, 3, 4]})
    source, engine = to_spark(spark, frame), SparkEngine()
    parquet, csv = tmp_path / "out.parquet", tmp_path / "out.csv"
    engine.write(source, parquet)
    engine.write(source.limit(2), parquet)  # replaces the first release
    assert sorted_rows(pl.read_parquet(parquet / "*.parquet")) == sorted_rows(frame.head(2))
    assert sorted_rows(engine.head(engine.read(parquet), 10)) == sorted_rows(frame.head(2))
    engine.write(source, csv)
    written = pl.read_csv(csv / "*.csv", infer_schema=False)
    assert written.columns == ["a", "'@b"]
    assert sorted(written["a"].to_list(), key=repr) == sorted(["'=cmd", "-3", "x", None], key=repr)
    failing = source.select(F_col("a").cast("int").alias("a"))  # ANSI cast fails on "x"
    with pytest.raises(Exception):  # noqa: B017 - Spark's own error
        engine.write(failing, parquet)
    assert sorted_rows(pl.read_parquet(parquet / "*.parquet")) == sorted_rows(frame.head(2))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "out.parquet"]


def test_csv_cells_are_written_as_the_polars_engine_writes_them(spark: Any, tmp_path: Path) -> None:
    """Spark's defaults escaped quotes with a backslash (a file anonkit refuses), trimmed
    spaces around cells, and so unescaped ' =x' into a raw formula."""
    cells = ['He said "hi"', "  lead and trail  ", " =x", "back\\slash", "comma,inside"]
    frame = pl.DataFrame({"a": cells})
    engine = SparkEngine()
    engine.write(to_spark(spark, frame).coalesce(1), tmp_path / "out.csv")
    [part] = [p for p in (tmp_path / "out.csv").glob("part-*.csv") if p.stat().st_size]
    written = read_table(part)["a"].to_list()
    assert written == ['He said "hi"', "  lead and trail  ", " =x", "back\\slash", "comma,inside"]
    back = engine.head(engine.read(tmp_path / "out.csv"), 10)["a"].to_list()
    assert back == written


def test_csv_timestamps_keep_their_microseconds(spark: Any, tmp_path: Path) -> None:
    """Spark's default format cut a timestamp released as it stands to milliseconds; the
    other engines keep microseconds."""
    import datetime as dt

    stamp = dt.datetime(2024, 1, 1, 12, 30, 0, 1)
    frame = spark.createDataFrame([(stamp,)], "t timestamp_ntz")
    SparkEngine().write(frame.coalesce(1), tmp_path / "out.csv")
    [part] = [p for p in (tmp_path / "out.csv").glob("part-*.csv") if p.stat().st_size]
    assert part.read_text().splitlines() == ["t", "2024-01-01T12:30:00.000001"]


def F_col(name: str) -> Any:  # noqa: N802 - pyspark's F.col
    from pyspark.sql import functions as F

    return F.col(name)


# ------------------------------------------------------------------- end to end
ADULT_QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]


@pytest.mark.parametrize(
    "privacy",
    [
        pytest.param("k", id="k-anonymity"),
        pytest.param("l", id="l-diversity", marks=pytest.mark.slow),
        pytest.param("t", id="t-closeness", marks=pytest.mark.slow),
    ],
)
def test_adult_release_equals_the_default_engine(
    spark: Any, adult_frame: pl.DataFrame, adult_hierarchies: dict[str, Path], privacy: str
) -> None:
    """Issue 17's target: on Adult, Flash releases the same rows on Spark as in memory
    (same transformation, same suppressed records), and the release verifies."""
    from anonkit import anonymize
    from anonkit.models import DistinctLDiversity, EqualDistanceTCloseness, KAnonymity

    models = {
        "k": [KAnonymity(10)],
        "l": [KAnonymity(5), DistinctLDiversity("occupation", 3)],
        "t": [KAnonymity(5), EqualDistanceTCloseness("occupation", 0.3)],
    }[privacy]
    keywords: dict[str, Any] = {
        "quasi_identifiers": ADULT_QI,
        "hierarchies": {c: adult_hierarchies[c] for c in ADULT_QI},
        "sensitive": ["occupation"],
        "insensitive": ["salary-class"],
        "privacy": models,
        "suppression_limit": 0.04,
    }
    expected = anonymize(adult_frame, **keywords)
    got = anonymize(to_spark(spark, adult_frame), engine="spark", **keywords)
    assert dict(got.transformation) == dict(expected.transformation)
    assert got.suppressed == expected.suppressed
    assert got.verified
    release = pl.DataFrame(
        [tuple(r) for r in got.release.collect()],
        schema=expected.release.schema,
        orient="row",
    )
    assert sorted_rows(release) == sorted_rows(expected.release)


def test_anonymize_writes_the_verified_release(spark: Any, tmp_path: Path) -> None:
    """With ``output``, the Spark release is written (a folder of part files), verified
    from what was written, and returned read back from it."""
    from anonkit import anonymize

    frame, hierarchies = random_table(9, 200)
    keywords: dict[str, Any] = {
        "quasi_identifiers": QI[:3],
        "hierarchies": dict(zip(QI[:3], hierarchies[:3], strict=True)),
        "k": 5,
        "suppression_limit": 0.1,
        "others": "keep",
    }
    expected = anonymize(frame, **keywords)
    out = tmp_path / "release.parquet"
    got = anonymize(to_spark(spark, frame), engine="spark", output=out, **keywords)
    assert got.verified and dict(got.transformation) == dict(expected.transformation)
    written = pl.read_parquet(out / "*.parquet").select(expected.release.columns)
    assert sorted_rows(written) == sorted_rows(expected.release)
    assert [p.name for p in tmp_path.iterdir()] == ["release.parquet"]


# --------------------------------------------------------------------------- misc
def test_registered_and_out_of_memory() -> None:
    engine = get_engine("spark")
    assert isinstance(engine, SparkEngine)
    assert engine.name == "spark" and engine.in_memory is False


def test_unknown_column_named(spark: Any) -> None:
    source = to_spark(spark, pl.DataFrame({"a": ["x"], "b": ["y"]}))
    with pytest.raises(
        UnknownColumnError, match="Unknown column\\(s\\) 'c'; the data has 'a', 'b'"
    ):
        SparkEngine().count(source, ["a", "c"], [flat(["x"], "a"), flat(["z"], "c")])


def test_rejects_other_sources() -> None:
    # a polars frame is read since it can be a population held in memory (the CLI's)
    with pytest.raises(TypeError, match="Spark DataFrames or paths"):
        SparkEngine().frame([{"a": 1}])


def test_anonkit_imports_without_pyspark() -> None:
    code = (
        "import sys, anonkit, anonkit.engines.base, anonkit.engines.spark_engine\n"
        "print('pyspark' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------- Mondrian on Spark
# Mondrian on Spark's release and its target: test_spark_mondrian.py


def test_mondrian_on_spark_refuses_bad_input(spark: Any) -> None:
    from anonkit.algorithms.mondrian.spark import mondrian_spark
    from anonkit.exceptions import ParameterError, PrivacyUnattainableError

    h = flat(["a", "b"], "x")
    df = to_spark(spark, pl.DataFrame({"x": ["a", "b", None]}))
    with pytest.raises(MissingValuesError, match="'x'"):
        mondrian_spark(df, quasi_identifiers=["x"], hierarchies={"x": h}, k=1)
    with pytest.raises(UnknownColumnError):
        mondrian_spark(df, quasi_identifiers=["y"], hierarchies={"y": h}, k=1)
    with pytest.raises(ParameterError, match="hierarchies"):
        mondrian_spark(df, quasi_identifiers=["x"], hierarchies={}, k=1)
    ok = to_spark(spark, pl.DataFrame({"x": ["a", "b"]}))
    with pytest.raises(PrivacyUnattainableError):
        mondrian_spark(ok, quasi_identifiers=["x"], hierarchies={"x": h}, k=3)
