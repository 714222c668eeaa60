"""The release's tally counted from the codes it is written from (issue 19): the same rows
as grouping the release's text, on numpy's path and the compiled one; no tally where the
codes do not stand for the published values one to one; the same verification either way.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonkit
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.transform import ReleasePlan
from anonkit.engines import written
from anonkit.engines.base import SensitiveSpec
from anonkit.engines.counting import COUNT
from anonkit.engines.polars_engine import PolarsEngine, release_query
from anonkit.models import EqualDistanceTCloseness, HierarchicalTCloseness, KAnonymity

# level 2 of age is '*', the text of a suppressed record too: both must count as one
AGE = Hierarchy(
    [["1", "1-2", "*"], ["2", "1-2", "*"], ["3", "3-4", "*"], ["4", "3-4", "*"]], name="age"
)
SEX = Hierarchy([["m", "*"], ["f", "*"]], name="sex")
DISEASE = Hierarchy(
    [["flu", "resp", "*"], ["cold", "resp", "*"], ["ulcer", "gut", "*"]], name="disease"
)
QI = ["age", "sex"]


def _frame(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "age": rng.choice(["1", "2", "3", "4"], n),
            "sex": rng.choice(["m", "f"], n),
            "disease": rng.choice(["flu", "cold", "ulcer"], n),
            "other": rng.integers(0, 3, n),
        }
    )


def _grouped(release: pl.DataFrame, columns: list[str]) -> list[tuple[object, ...]]:
    grouped = release.group_by(columns).agg(pl.len().cast(pl.Int64).alias(COUNT))
    return sorted(grouped.select([*columns, COUNT]).rows(), key=repr)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 60),
    seed=st.integers(0, 10_000),
    levels=st.tuples(st.integers(0, 2), st.integers(0, 1)),
    n_bad=st.integers(0, 3),
    leafy=st.booleans(),
    compiled=st.booleans(),
)
def test_the_tally_is_the_release_grouped(
    n: int, seed: int, levels: tuple[int, int], n_bad: int, leafy: bool, compiled: bool
) -> None:
    frame = _frame(n, seed)
    engine = PolarsEngine()
    spec = SensitiveSpec("disease", DISEASE if leafy else None)
    engine.count_detail(frame, QI, [AGE, SEX], [spec])
    # suppress some of the classes that occur at these levels
    ups = [np.asarray(h.level_map(0, lv)) for h, lv in zip((AGE, SEX), levels, strict=True)]
    leaves = [
        np.asarray([list(h.leaves).index(v) for v in frame[c]])
        for c, h in (("age", AGE), ("sex", SEX))
    ]
    classes = sorted({(int(ups[0][a]), int(ups[1][s])) for a, s in zip(*leaves, strict=True)})
    bad = classes[:n_bad]
    codes = np.array(bad, dtype=np.int64).T.reshape(2, len(bad))
    plan = ReleasePlan(("age", "sex"), (AGE, SEX), levels, codes)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(written, "compiled_ready", lambda: compiled)
        release, tally = engine.apply_tallied(frame, plan, ["disease"], COUNT)
    assert tally is not None
    assert tally.columns == ["age", "sex", "disease", COUNT]
    assert all(tally[c].dtype == pl.String for c in ["age", "sex", "disease"])
    assert sorted(tally.rows(), key=repr) == _grouped(release, ["age", "sex", "disease"])
    # the release itself is what the lazy query writes, suppressed records masked or left out
    assert release.equals(release_query(frame.lazy(), plan).collect())
    dropping = plan.with_options(suppressed="drop")
    assert engine.apply(frame, dropping).equals(release_query(frame.lazy(), dropping).collect())
    # the quasi-identifiers alone (models that read class sizes only)
    release, sizes = engine.apply_tallied(frame, plan, [], COUNT)
    assert sizes is not None
    assert sorted(sizes.rows(), key=repr) == _grouped(release, QI)


def test_too_many_classes_to_pack_go_down_the_query(monkeypatch: pytest.MonkeyPatch) -> None:
    """Suppressed classes whose label combinations do not fit a packed key are found by
    the lazy query's join, and the release gets no tally."""
    frame = _frame(30, 2)
    engine = PolarsEngine()
    engine.count_detail(frame, QI, [AGE, SEX], [SensitiveSpec("disease")])
    plan = ReleasePlan(("age", "sex"), (AGE, SEX), (0, 0), np.array([[0], [0]]))
    expected = release_query(frame.lazy(), plan).collect()
    monkeypatch.setattr(written, "_MAX_KEYS", 2)
    release, tally = engine.apply_tallied(frame, plan, ["disease"], COUNT)
    assert tally is None and release.equals(expected)
    assert (
        release.filter(pl.col("age") == "*").height
        == frame.filter((pl.col("age") == "1") & (pl.col("sex") == "m")).height
    )


@pytest.mark.parametrize("kind", ["padded", "numbers"])
def test_no_tally_when_the_codes_are_not_the_values(kind: str) -> None:
    """Padded text is coded as its stripped text, numbers as their text: two published
    values may share a code, so the verification groups the release itself."""
    frame = _frame(20, 1)
    if kind == "padded":
        first = pl.int_range(pl.len()) == 0
        padded = pl.when(first).then(pl.lit(" flu")).otherwise(pl.col("disease"))
        frame = frame.with_columns(padded.alias("disease"))
    else:
        frame = frame.with_columns(pl.col("other").alias("disease"))
    engine = PolarsEngine()
    engine.count_detail(frame, QI, [AGE, SEX], [SensitiveSpec("disease")])
    plan = ReleasePlan(("age", "sex"), (AGE, SEX), (1, 0), np.zeros((2, 0), dtype=np.int64))
    release, tally = engine.apply_tallied(frame, plan, ["disease"], COUNT)
    assert tally is None
    assert release.equals(engine.apply(frame, plan))
    # a frame the count has not coded: no tally either
    assert engine.apply_tallied(frame.clone(), plan, ["disease"], COUNT)[1] is None


@pytest.mark.parametrize("hierarchical", [False, True])
@pytest.mark.parametrize("limit", [0.0, 0.2])
def test_the_verification_of_the_tally_is_that_of_the_release(
    hierarchical: bool, limit: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame = _frame(400, 7)
    model = (
        HierarchicalTCloseness("disease", 0.3, hierarchy=DISEASE)
        if hierarchical
        else EqualDistanceTCloseness("disease", 0.3)
    )
    options = dict(
        quasi_identifiers=QI,
        sensitive=["disease"],
        insensitive=["other"],
        hierarchies={"age": AGE, "sex": SEX},
        privacy=[KAnonymity(3), model],
        suppression_limit=limit,
    )
    seen: list[str | None] = []
    real = anonkit.estimators.base.verify_release

    def spy(release, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(kwargs.get("weight"))
        return real(release, **kwargs)

    monkeypatch.setattr(anonkit.estimators.base, "verify_release", spy)
    tallied = anonkit.anonymize(frame, **options)
    monkeypatch.setattr(
        PolarsEngine, "apply_tallied", lambda self, f, plan, s, c: (self.apply(f, plan), None)
    )
    grouped = anonkit.anonymize(frame, **options)
    assert seen == [COUNT, None]  # the first read the tally, the second the release
    assert tallied.release.equals(grouped.release)
    assert (tallied.verified, tallied.checks, tallied.risk) == (
        grouped.verified,
        grouped.checks,
        grouped.risk,
    )
