"""The k-OPTIMIZE estimator: optimal over intervals, so never worse than full-domain
generalization over interval hierarchies; private releases checked independently."""

from __future__ import annotations

import pandas as pd
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from anonkit.estimators import FullDomain, Privacy
from anonkit.estimators.koptimize import KOptimize
from anonkit.exceptions import ParameterError, UnknownColumnError
from anonkit.models import DistinctLDiversity, KAnonymity
from anonkit.verify import verify_release

pycanon_anonymity = pytest.importorskip("pycanon.anonymity")

#: Adult columns whose hierarchies group consecutive values (interval hierarchies).
INTERVAL_QI = ["age", "sex", "race"]


def _kept(release: pl.DataFrame, qi: list[str]) -> pd.DataFrame:
    kept = release.filter(~pl.all_horizontal([pl.col(c) == "*" for c in qi]))
    return pd.DataFrame({c: kept[c].to_list() for c in qi})


@pytest.mark.parametrize(("k", "limit"), [(20, 0.0), (25, 0.05)])
def test_at_least_as_good_as_the_full_domain_optimum_on_adult(
    adult_frame, adult_hierarchies, k: int, limit: float
) -> None:
    frame = adult_frame.head(300).select(INTERVAL_QI + ["salary-class"])
    hs = {c: adult_hierarchies[c] for c in INTERVAL_QI}
    privacy = Privacy(KAnonymity(k), suppression_limit=limit)
    roles = dict(quasi_identifiers=INTERVAL_QI, hierarchies=hs, insensitive=["salary-class"])
    kopt = KOptimize(privacy=privacy).fit(frame, **roles)
    full = FullDomain("exhaustive", "discernibility", privacy=privacy).fit(frame, **roles)
    res = kopt.result_
    assert res.verified and res.algorithm == "k_optimize" and res.metric == "discernibility"
    assert res.details["k_optimize"]["optimal"]
    assert res.metrics["discernibility"] <= full.result_.metrics["discernibility"]
    assert res.suppressed <= limit * frame.height
    kept = _kept(res.release, INTERVAL_QI)
    assert len(kept) == frame.height - res.suppressed
    assert pycanon_anonymity.k_anonymity(kept, INTERVAL_QI) >= k
    verify_release(
        res.release,
        quasi_identifiers=INTERVAL_QI,
        models=[KAnonymity(k)],
        n_records=frame.height,
        suppression_limit=limit,
        hierarchies=hs,
    )


def test_classification_metric_with_numeric_columns_and_transform() -> None:
    frame = pl.DataFrame(
        {
            "age": [21, 22, 23, 24, 35, 36, 37, 38, 50, 51, 52, 53],
            "hours": [10, 40, 10, 40, 10, 40, 10, 40, 10, 40, 10, 40],
            "label": ["a", "a", "a", "b", "b", "b", "b", "a", "a", "a", "b", "a"],
        }
    )
    est = KOptimize("classification", class_column="label", privacy=Privacy(KAnonymity(3)))
    est.fit(frame, quasi_identifiers=["age", "hours"], numeric=["age", "hours"], others="keep")
    res = est.result_
    assert res.verified and res.metric == "classification"
    assert res.metrics["classification"] <= 5  # the majority per age band: 1 + 1 + 1 ...
    assert (
        pycanon_anonymity.k_anonymity(_kept(res.release, ["age", "hours"]), ["age", "hours"]) >= 3
    )
    for value, label in zip(frame["age"], res.release["age"], strict=True):
        lo, _, hi = label.strip("[]").partition("-")
        assert int(lo) <= value <= int(hi or lo)
    assert_frame_equal(est.transform(frame), res.release)
    out = est.transform(pl.DataFrame({"age": [22], "hours": [40], "label": ["a"]}))
    assert out.select("age", "hours").row(0) in set(res.release.select("age", "hours").rows())


def test_time_limit_gives_a_private_release_marked_not_optimal(adult_frame, adult_hierarchies):
    frame = adult_frame.head(2000).select(INTERVAL_QI)
    hs = {c: adult_hierarchies[c] for c in INTERVAL_QI}
    est = KOptimize(time_limit=0.2, privacy=Privacy(KAnonymity(5), suppression_limit=0.02))
    res = est.fit(frame, quasi_identifiers=INTERVAL_QI, hierarchies=hs).result_
    assert res.verified
    assert res.details["k_optimize"]["optimal"] is False
    assert pycanon_anonymity.k_anonymity(_kept(res.release, INTERVAL_QI), INTERVAL_QI) >= 5
    # the summary says so, as after a full-domain search stopped early (it said nothing)
    assert res.search_note is not None and "time limit" in res.search_note
    assert res.to_dict()["search_note"] == res.search_note


def test_parameters_are_checked() -> None:
    frame = pl.DataFrame({"a": [1, 2, 3, 4], "y": ["p", "q", "p", "q"]})
    roles = dict(quasi_identifiers=["a"], numeric=["a"], others="keep")
    with pytest.raises(ParameterError, match="The 'metric' parameter of KOptimize"):
        KOptimize("loss", privacy=Privacy(KAnonymity(2))).fit(frame, **roles)
    with pytest.raises(ParameterError, match="The 'time_limit' parameter of KOptimize"):
        KOptimize(time_limit=0, privacy=Privacy(KAnonymity(2))).fit(frame, **roles)
    with pytest.raises(ParameterError, match="'class_column'"):
        KOptimize("classification", privacy=Privacy(KAnonymity(2))).fit(frame, **roles)
    with pytest.raises(UnknownColumnError):
        KOptimize("classification", "z", privacy=Privacy(KAnonymity(2))).fit(frame, **roles)
    with pytest.raises(ParameterError, match="k-anonymity only"):
        KOptimize(privacy=Privacy([KAnonymity(2), DistinctLDiversity("y", 2)])).fit(
            frame, quasi_identifiers=["a"], numeric=["a"], sensitive=["y"]
        )


class _Recorder:
    def __init__(self) -> None:
        self.stages: list[str] = []
        self.calls = 0

    def __call__(self, done: int, total: int) -> None:
        assert 0 <= done <= total
        self.calls += 1

    def stage(self, name: str, unit: str = "") -> None:
        self.stages.append(name)


def test_progress_reports_the_search() -> None:
    frame = pl.DataFrame({"a": list(range(40)), "b": [i % 7 for i in range(40)]})
    rec = _Recorder()
    KOptimize(privacy=Privacy(KAnonymity(4)), progress=rec).fit(
        frame, quasi_identifiers=["a", "b"], numeric=["a", "b"]
    )
    assert "k-OPTIMIZE" in rec.stages and rec.calls > 0


def test_anonymize_accepts_the_estimator() -> None:
    from anonkit import anonymize

    frame = pl.DataFrame({"a": [1, 2, 3, 4, 5, 6, 7, 8], "b": ["x", "y"] * 4})
    res = anonymize(frame, quasi_identifiers=["a", "b"], numeric=["a"], k=2, algorithm=KOptimize())
    assert res.verified and res.algorithm == KOptimize.name
    assert res.classes.min_size >= 2
