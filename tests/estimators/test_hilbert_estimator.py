"""The Hilbert estimator: private releases (checked independently), transform, checks."""

from __future__ import annotations

import pandas as pd
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from anonkit.core.hierarchy import Hierarchy
from anonkit.estimators import Mondrian, Privacy
from anonkit.estimators.hilbert import Hilbert
from anonkit.exceptions import ParameterError
from anonkit.models import DistinctLDiversity, KAnonymity
from anonkit.verify import verify_release

pycanon_anonymity = pytest.importorskip("pycanon.anonymity")

ZIP = Hierarchy(
    [[z, z[:2] + "*", "*"] for z in ("1301", "1302", "1303", "1401", "1402", "1403")], name="zip"
)


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


ROLES = {"quasi_identifiers": ["age", "zip"], "identifying": ["name"], "sensitive": ["disease"]}


def _k_of(release: pl.DataFrame, qi: list[str]) -> int:
    df = pd.DataFrame({c: release[c].to_list() for c in qi})
    return int(pycanon_anonymity.k_anonymity(df, qi))


@pytest.mark.parametrize("k", [2, 3, 7])
def test_release_is_k_anonymous_for_pycanon_and_verify(k: int) -> None:
    frame = _people()
    est = Hilbert(privacy=Privacy(KAnonymity(k))).fit(
        frame, hierarchies={"zip": ZIP}, numeric=["age"], **ROLES
    )
    res = est.result_
    assert res.verified and res.algorithm == "hilbert" and res.metric == "gcp"
    release = res.release
    assert "name" not in release.columns and release.height == frame.height
    assert _k_of(release, ["age", "zip"]) >= k
    verify_release(
        release,
        quasi_identifiers=["age", "zip"],
        models=[KAnonymity(k)],
        n_records=frame.height,
        suppression_limit=0.0,
        hierarchies={"zip": ZIP},
        numeric=["age"],
    )
    groups = res.details["hilbert"]["groups"]
    assert frame.height // (2 * k - 1) <= groups <= frame.height // k
    assert 0 <= res.metrics["gcp"] <= 1


def test_every_released_label_covers_its_original() -> None:
    frame = _people()
    res = (
        Hilbert(privacy=Privacy(KAnonymity(4)))
        .fit(frame, hierarchies={"zip": ZIP}, numeric=["age"], **ROLES)
        .result_
    )
    for age, label in zip(frame["age"], res.release["age"], strict=True):
        lo, _, hi = label.strip("[]").partition("-")
        assert int(lo) <= age <= int(hi or lo)
    for z, label in zip(frame["zip"], res.release["zip"], strict=True):
        assert label in ZIP.rows[ZIP.leaf_index(z)]


def test_transform_of_train_is_the_release_and_new_records_join_a_containing_class() -> None:
    frame = _people()
    est = Hilbert(privacy=Privacy(KAnonymity(3))).fit(
        frame, hierarchies={"zip": ZIP}, numeric=["age"], **ROLES
    )
    assert_frame_equal(est.transform(frame), est.result_.release)
    new = pl.DataFrame({"name": ["x"], "age": [33], "zip": ["1301"], "disease": ["flu"]})
    out = est.transform(new)
    assert out.select("age", "zip").row(0) in set(est.result_.release.select("age", "zip").rows())


def test_adult_subset_compares_with_mondrian(adult_frame, adult_hierarchies) -> None:
    qi = ["age", "sex", "race", "education", "marital-status"]
    frame = adult_frame.head(3000).select(qi)
    privacy = Privacy(KAnonymity(5))
    hs = {c: adult_hierarchies[c] for c in qi}
    h = Hilbert(privacy=privacy).fit(frame, quasi_identifiers=qi, hierarchies=hs)
    m = Mondrian(privacy=privacy).fit(frame, quasi_identifiers=qi, hierarchies=hs)
    assert h.result_.verified and m.result_.verified
    assert _k_of(h.result_.release, qi) >= 5
    # both measured on the release by the same loss function
    assert 0 <= h.result_.metrics["loss"] <= 1 and 0 <= m.result_.metrics["loss"] <= 1


def test_models_other_than_k_anonymity_are_refused() -> None:
    with pytest.raises(ParameterError, match="k-anonymity only"):
        Hilbert(privacy=Privacy([KAnonymity(2), DistinctLDiversity("disease", 2)])).fit(
            _people(), hierarchies={"zip": ZIP}, numeric=["age"], **ROLES
        )


def test_privacy_is_checked_and_parameters_stored() -> None:
    with pytest.raises(ParameterError, match="The 'privacy' parameter of Hilbert"):
        Hilbert().fit(_people(), hierarchies={"zip": ZIP}, numeric=["age"], **ROLES)
    assert Hilbert(leak_check=False).get_params() == {
        "privacy": None,
        "leak_check": False,
        "progress": None,
    }


def test_anonymize_accepts_the_estimator() -> None:
    from anonkit import anonymize

    frame = pl.DataFrame({"a": [1, 2, 3, 4, 5, 6, 7, 8], "b": ["x", "y"] * 4})
    res = anonymize(frame, quasi_identifiers=["a", "b"], numeric=["a"], k=2, algorithm=Hilbert())
    assert res.verified and res.algorithm == Hilbert.name
    assert res.classes.min_size >= 2


@pytest.mark.parametrize("algorithm", ["hilbert", "banga", "mondrian"])
def test_integers_past_float_precision_are_refused(algorithm: str) -> None:
    """Grouped as float64, 2**62 - 3 would be released inside '2**62' (a range that does
    not hold it): the run stops and names the column instead."""
    import anonkit
    from anonkit.exceptions import DataError

    frame = pd.DataFrame({"id": [2**62 - i for i in range(6)], "zip": ["1301"] * 6})
    with pytest.raises(DataError, match=r"Column 'id' holds integers beyond"):
        anonkit.anonymize(
            frame,
            quasi_identifiers=["id", "zip"],
            hierarchies={"zip": ZIP},
            numeric=["id"],
            k=2,
            algorithm=algorithm,
        )
