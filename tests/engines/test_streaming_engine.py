"""The streaming engine's one counting pass: a prepared source (tallied once by raw
values) counts, checks and lists values exactly as the records streamed again do."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from anonkit.core.hierarchy import Hierarchy
from anonkit.engines.base import SensitiveSpec
from anonkit.engines.streaming_engine import StreamingEngine
from anonkit.exceptions import MissingValuesError, ValuesNotInHierarchyError

AGE = Hierarchy(
    [["1", "1-2", "*"], ["2", "1-2", "*"], ["3", "3-4", "*"], ["4", "3-4", "*"]], name="age"
)
SEX = Hierarchy([["m", "*"], ["f", "*"]], name="sex")


def _write(tmp_path: Path, frame: pl.DataFrame) -> Path:
    path = tmp_path / "table.parquet"
    frame.write_parquet(path)
    return path


def _frame(n: int = 500, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "age": rng.integers(1, 5, n).astype(str),
            "sex": rng.choice(["m", "f", " m"], n),  # " m" normalizes to "m"
            "disease": rng.choice(["flu", "cold", "ulcer"], n),
        }
    )


def _rows(table: object) -> Counter[tuple[int, ...]]:
    snap = table.snapshot  # type: ignore[attr-defined]
    return Counter(zip(*[c.tolist() for c in snap.codes], snap.counts.tolist(), strict=True))


def test_prepared_count_equals_the_streamed_count(tmp_path: Path) -> None:
    path = _write(tmp_path, _frame())
    plain, prepared = StreamingEngine(), StreamingEngine()
    prepared.prepare(path, ["age", "sex", "disease"])
    for engine in (plain, prepared):
        assert sorted(engine.distinct(path, "sex")) == ["f", "m"]
    a = plain.count_detail(path, ["age", "sex"], [AGE, SEX], [SensitiveSpec("disease")])
    b = prepared.count_detail(path, ["age", "sex"], [AGE, SEX], [SensitiveSpec("disease")])
    assert _rows(a) == _rows(b)
    assert a.n_records == b.n_records == 500
    assert [(s.name, s.labels, s.totals.tolist()) for s in a.sensitive] == [
        (s.name, s.labels, s.totals.tolist()) for s in b.sensitive
    ]


def test_a_column_the_tally_lacks_is_streamed(tmp_path: Path) -> None:
    path = _write(tmp_path, _frame())
    engine = StreamingEngine()
    engine.prepare(path, ["age"])
    assert sorted(engine.distinct(path, "disease")) == ["cold", "flu", "ulcer"]
    assert engine.count(path, ["age", "sex"], [AGE, SEX]).n_records == 500


@pytest.mark.parametrize(
    ("value", "error"), [(None, MissingValuesError), ("9", ValuesNotInHierarchyError)]
)
def test_prepared_counts_refuse_bad_values_like_streamed_ones(
    tmp_path: Path, value: str | None, error: type[Exception]
) -> None:
    frame = _frame().with_columns(
        pl.when(pl.int_range(pl.len()) == 7).then(pl.lit(value)).otherwise("age").alias("age")
    )
    path = _write(tmp_path, frame)
    messages = []
    for prepare in (False, True):
        engine = StreamingEngine()
        if prepare:
            engine.prepare(path, ["age", "sex"])
        with pytest.raises(error) as caught:
            engine.count(path, ["age", "sex"], [AGE, SEX])
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("suppressed", ["mask", "drop"])
@pytest.mark.parametrize("levels", [(0, 0), (1, 0), (2, 1)])
def test_streamed_release_equals_the_in_memory_query(
    suppressed: str, levels: tuple[int, int]
) -> None:
    """The Enum-keyed release query gives the same rows as the join-based one."""
    from anonkit.core.transform import ReleasePlan
    from anonkit.engines.polars_engine import release_query
    from anonkit.engines.streaming_engine import streaming_release_query

    frame = _frame(300, seed=3)
    rng = np.random.default_rng(1)
    n_age, n_sex = len(AGE.labels(levels[0])), len(SEX.labels(levels[1]))
    picks = rng.choice(n_age * n_sex, size=min(3, n_age * n_sex), replace=False)
    classes = np.array([picks % n_age, picks // n_age], dtype=np.int64)
    plan = ReleasePlan(
        ("age", "sex"), (AGE, SEX), levels, classes, drop=("disease",), suppressed=suppressed
    )
    expected = release_query(frame.lazy(), plan).collect()
    got = streaming_release_query(frame.lazy(), plan).collect(engine="streaming")
    assert got.equals(expected)
    assert got.columns == ["age", "sex"]
