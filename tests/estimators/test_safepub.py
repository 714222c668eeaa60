"""SafePub as an estimator on Adult: the stated guarantee, the sample, k-anonymity checked
by pycanon, reproducibility with a seed."""

from __future__ import annotations

import math

import pandas as pd
import polars as pl
import pytest

from anonkit.algorithms.dp import k_for, sampling_probability
from anonkit.datasets import ADULT_COLUMNS
from anonkit.estimators.safepub import SafePub
from anonkit.exceptions import NotFittedError, ParameterError

pycanon_anonymity = pytest.importorskip("pycanon.anonymity")

QI = list(ADULT_COLUMNS)[:5]


@pytest.fixture(scope="module")
def adult_part(adult_frame: pl.DataFrame) -> pl.DataFrame:
    return adult_frame.head(6000)


def _fit(frame: pl.DataFrame, hierarchies, **params) -> SafePub:
    return SafePub(**params).fit(
        frame, quasi_identifiers=QI, hierarchies={c: hierarchies[c] for c in QI}, others="drop"
    )


@pytest.mark.parametrize("score", ["granularity", "intensity", "discernibility", "group_size"])
def test_release_is_a_k_anonymous_sample_and_states_its_guarantee(
    adult_part, adult_hierarchies, score: str
) -> None:
    est = _fit(
        adult_part, adult_hierarchies, epsilon=2.0, delta=1e-5, steps=20, score=score, seed=3
    )
    res = est.result_
    eps_anon = 2.0 * 0.9
    assert est.k_ == k_for(eps_anon, 1e-5)
    assert math.isclose(est.beta_, sampling_probability(eps_anon))
    details = res.details
    assert details["guarantee"].startswith("(2.0, 1e-05)-differential privacy")
    assert res.privacy[0] == "(2.0, 1e-05)-differential privacy"
    assert math.isclose(details["epsilon_anonymization"] + details["epsilon_search"], 2.0)
    # the sample holds about β n records
    n, beta = adult_part.height, est.beta_
    assert abs(details["sample_size"] - beta * n) < 5 * math.sqrt(n * beta * (1 - beta))
    rel = res.release
    assert rel.height == details["sample_size"] and res.verified
    star = pl.all_horizontal([pl.col(c) == "*" for c in QI])
    kept = rel.filter(~star)
    assert rel.height - kept.height == res.suppressed
    if kept.height:
        df = pd.DataFrame({c: kept[c].to_list() for c in QI})
        assert pycanon_anonymity.k_anonymity(df, QI) >= est.k_


def test_a_seed_makes_runs_repeat(adult_part, adult_hierarchies) -> None:
    a = _fit(adult_part, adult_hierarchies, steps=10, seed=11).result_
    b = _fit(adult_part, adult_hierarchies, steps=10, seed=11).result_
    assert a.release.equals(b.release) and dict(a.transformation) == dict(b.transformation)


def test_a_lazy_frame_is_read_like_its_frame(adult_part, adult_hierarchies) -> None:
    """A LazyFrame has no shape: SafePub read its size as 0 records and refused it."""
    eager = _fit(adult_part, adult_hierarchies, steps=10, seed=11).result_
    lazy = _fit(adult_part.lazy(), adult_hierarchies, steps=10, seed=11).result_
    assert lazy.verified and lazy.release.equals(eager.release)


def test_parameters_are_checked(adult_part, adult_hierarchies) -> None:
    with pytest.raises(ParameterError, match="epsilon"):
        _fit(adult_part, adult_hierarchies, epsilon=0.0)
    with pytest.raises(ParameterError, match="score"):
        _fit(adult_part, adult_hierarchies, score="nope")
    with pytest.raises(ParameterError, match="delta"):
        _fit(adult_part.head(20), adult_hierarchies)  # k exceeds the records


def test_progress_and_the_basis_of_the_guarantee(adult_part, adult_hierarchies) -> None:
    calls: list[tuple[int, int]] = []
    est = _fit(
        adult_part,
        adult_hierarchies,
        steps=7,
        seed=2,
        select="last",
        progress=lambda done, total: calls.append((done, total)),
    )
    assert (7, 7) in calls
    details = est.result_.details
    assert details["steps_run"] == 7 and details["select"] == "last"
    assert details["guarantee_basis"].startswith("sequential composition")
    assert dict(est.result_.transformation) == dict(est.transformation_)


def test_anonymize_accepts_the_estimator_and_refuses_models(adult_part, adult_hierarchies) -> None:
    from anonkit import anonymize

    hs = {c: adult_hierarchies[c] for c in QI}
    res = anonymize(
        adult_part,
        quasi_identifiers=QI,
        hierarchies=hs,
        others="drop",
        algorithm=SafePub(steps=3, seed=5),
    )
    assert res.algorithm == "safepub" and res.verified
    with pytest.raises(ParameterError, match="privacy"):
        anonymize(
            adult_part,
            quasi_identifiers=QI,
            hierarchies=hs,
            others="drop",
            k=5,
            algorithm=SafePub(steps=3, seed=5),
        )


def _zips(n: int) -> pl.DataFrame:
    return pl.DataFrame({"zip": ["100", "101", "110", "111"] * (n // 4)})


def test_a_failed_fit_leaves_a_fresh_estimator_unfitted() -> None:
    """k_ and beta_ stayed after a fit refused for too few records: fitted, to
    scikit-learn's check_is_fitted."""
    from sklearn.exceptions import NotFittedError as SklearnNotFitted
    from sklearn.utils.validation import check_is_fitted

    est = SafePub(epsilon=2.0)
    with pytest.raises(ParameterError, match="delta"):
        est.fit(_zips(8), quasi_identifiers=["zip"], hierarchies={"zip": {"type": "masking"}})
    assert [name for name in vars(est) if name.endswith("_")] == []
    with pytest.raises(SklearnNotFitted):
        check_is_fitted(est)


def test_a_failed_refit_drops_the_earlier_fit() -> None:
    """A refit refused for too few records kept the earlier result_, and transform went
    on writing records the way the earlier fit chose."""
    spec = {"zip": {"type": "masking"}}
    est = SafePub(epsilon=2.0, seed=1).fit(_zips(2000), quasi_identifiers=["zip"], hierarchies=spec)
    assert est.result_.n_records == 2000
    with pytest.raises(ParameterError, match="delta"):
        est.fit(_zips(8), quasi_identifiers=["zip"], hierarchies=spec)
    assert not hasattr(est, "result_") and not hasattr(est, "k_")
    with pytest.raises(NotFittedError):
        est.transform(_zips(8))


@pytest.mark.parametrize(
    ("roles", "named"),
    [
        ({"insensitive": ["x"], "others": "drop"}, "insensitive"),
        ({"sensitive": ["x"]}, "sensitive"),
        ({"others": "keep"}, "others"),
    ],
)
def test_a_column_published_as_it_is_names_the_keyword_that_kept_it(
    roles: dict, named: str
) -> None:
    # insensitive=["x"] with others="drop" was blamed on 'others', whose fix
    # (others="drop") the user had already applied.
    frame = _zips(40).with_columns(pl.lit("a").alias("x"))
    est = SafePub(epsilon=2.0, delta=0.1, steps=2, seed=0)
    with pytest.raises(ParameterError) as info:
        est.fit(frame, quasi_identifiers=["zip"], hierarchies={"zip": {"type": "masking"}}, **roles)
    assert info.value.parameter == named
