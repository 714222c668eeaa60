"""The BangA estimator: private releases (checked independently), transform, checks."""

from __future__ import annotations

import pandas as pd
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from anonkit.core.hierarchy import Hierarchy
from anonkit.estimators import Privacy
from anonkit.estimators.banga import BangA
from anonkit.exceptions import ParameterError
from anonkit.models import DistinctLDiversity, KAnonymity
from anonkit.verify import verify_release

pycanon_anonymity = pytest.importorskip("pycanon.anonymity")

ZIP = Hierarchy(
    [[z, z[:2] + "*", "*"] for z in ("1301", "1302", "1303", "1401", "1402", "1403")], name="zip"
)
ROLES = {"quasi_identifiers": ["age", "zip"], "identifying": ["name"], "sensitive": ["disease"]}


def _people(n: int = 60) -> pl.DataFrame:
    zips = ZIP.leaves
    return pl.DataFrame(
        {
            "name": [f"p{i}" for i in range(n)],
            "age": [20 + (i * 7) % 45 for i in range(n)],
            "zip": [zips[(i * 5) % 6] for i in range(n)],
            "disease": [("flu", "cold", "hiv")[i % 3] for i in range(n)],
        }
    )


@pytest.mark.parametrize(("k", "capacity"), [(2, None), (4, None), (5, 2), (3, 20)])
def test_release_is_k_anonymous_for_pycanon_and_verify(k: int, capacity: int | None) -> None:
    frame = _people()
    est = BangA(capacity, privacy=Privacy(KAnonymity(k))).fit(
        frame, hierarchies={"zip": ZIP}, numeric=["age"], **ROLES
    )
    res = est.result_
    assert res.verified and res.algorithm == "banga" and res.metric == "gcp"
    df = pd.DataFrame({c: res.release[c].to_list() for c in ["age", "zip"]})
    assert pycanon_anonymity.k_anonymity(df, ["age", "zip"]) >= k
    verify_release(
        res.release,
        quasi_identifiers=["age", "zip"],
        models=[KAnonymity(k)],
        n_records=frame.height,
        suppression_limit=0.0,
        hierarchies={"zip": ZIP},
        numeric=["age"],
    )
    assert res.details["banga"]["capacity"] == (capacity or 2 * k - 1)
    for age, label in zip(frame["age"], res.release["age"], strict=True):
        lo, _, hi = label.strip("[]").partition("-")
        assert int(lo) <= age <= int(hi or lo)


def test_adult_release_is_k_anonymous(adult_frame, adult_hierarchies) -> None:
    qi = ["age", "sex", "race", "education", "marital-status", "workclass"]
    frame = adult_frame.head(3000).select(qi)
    hs = {c: adult_hierarchies[c] for c in qi}
    res = BangA(privacy=Privacy(KAnonymity(10))).fit(frame, quasi_identifiers=qi, hierarchies=hs)
    release = res.result_.release
    assert res.result_.verified
    df = pd.DataFrame({c: release[c].to_list() for c in qi})
    assert pycanon_anonymity.k_anonymity(df, qi) >= 10


def test_transform_of_train_is_the_release_and_new_records_join_a_class() -> None:
    frame = _people()
    est = BangA(privacy=Privacy(KAnonymity(3))).fit(
        frame, hierarchies={"zip": ZIP}, numeric=["age"], **ROLES
    )
    assert_frame_equal(est.transform(frame), est.result_.release)
    out = est.transform(
        pl.DataFrame({"name": ["x"], "age": [33], "zip": ["1301"], "disease": ["flu"]})
    )
    assert out.select("age", "zip").row(0) in set(est.result_.release.select("age", "zip").rows())


def test_parameters_are_checked() -> None:
    with pytest.raises(ParameterError, match="The 'capacity' parameter of BangA"):
        BangA(0, privacy=Privacy(KAnonymity(2))).fit(
            _people(), hierarchies={"zip": ZIP}, numeric=["age"], **ROLES
        )
    with pytest.raises(ParameterError, match="k-anonymity only"):
        BangA(privacy=Privacy([KAnonymity(2), DistinctLDiversity("disease", 2)])).fit(
            _people(), hierarchies={"zip": ZIP}, numeric=["age"], **ROLES
        )
    assert BangA(7).get_params()["capacity"] == 7


def test_progress_reports_both_phases() -> None:
    stages: list[str] = []
    calls: list[tuple[int, int]] = []

    class Recorder:
        def __call__(self, done: int, total: int) -> None:
            calls.append((done, total))

        def stage(self, name: str, unit: str = "") -> None:
            stages.append(name)

    BangA(privacy=Privacy(KAnonymity(3)), progress=Recorder()).fit(
        _people(), hierarchies={"zip": ZIP}, numeric=["age"], **ROLES
    )
    assert "BANG grid" in stages and "Merging blocks" in stages
    assert calls and all(0 <= d <= t for d, t in calls)


def test_anonymize_accepts_the_estimator() -> None:
    from anonkit import anonymize

    frame = pl.DataFrame({"a": [1, 2, 3, 4, 5, 6, 7, 8], "b": ["x", "y"] * 4})
    res = anonymize(frame, quasi_identifiers=["a", "b"], numeric=["a"], k=2, algorithm=BangA())
    assert res.verified and res.algorithm == BangA.name
    assert res.classes.min_size >= 2
