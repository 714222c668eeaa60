"""(k, ε)-anonymity on Adult: the release is k-anonymous (pycanon), the noisy column stays
within each class's range, runs repeat with a seed."""

from __future__ import annotations

import pickle

import pandas as pd
import polars as pl
import pytest

from anonkit.datasets import ADULT_COLUMNS
from anonkit.estimators import Privacy
from anonkit.estimators.k_epsilon import KEpsilon
from anonkit.exceptions import DataError, ParameterError
from anonkit.models import KAnonymity

pycanon_anonymity = pytest.importorskip("pycanon.anonymity")

QI = list(ADULT_COLUMNS)[:4]


@pytest.fixture(scope="module")
def frame(adult_frame: pl.DataFrame) -> pl.DataFrame:
    part = adult_frame.head(3000).select(QI)
    # a numeric attribute derived from the row number (no raw value of the data)
    return part.with_columns(((pl.int_range(pl.len()) * 37) % 60 + 18).alias("hours"))


def _fit(frame: pl.DataFrame, hierarchies, k: int = 5, **params) -> KEpsilon:
    est = KEpsilon(
        noisy=["hours"], privacy=Privacy(KAnonymity(k), suppression_limit=0.02), **params
    )
    return est.fit(
        frame,
        quasi_identifiers=QI,
        hierarchies={c: hierarchies[c] for c in QI},
        insensitive=["hours"],
    )


@pytest.mark.parametrize("k", [2, 10])
def test_release_is_k_anonymous_with_noise_inside_class_ranges(
    frame, adult_hierarchies, k: int
) -> None:
    res = _fit(frame, adult_hierarchies, k=k, epsilon=1.0, seed=4).result_
    assert res.verified and res.algorithm == "k_epsilon"
    assert res.details["guarantee"].startswith(f"({res.classes.min_size}, 1.0)-anonymity")
    rel = res.release
    kept = rel.filter(~pl.all_horizontal([pl.col(c) == "*" for c in QI]))
    df = pd.DataFrame({c: kept[c].to_list() for c in QI})
    assert pycanon_anonymity.k_anonymity(df, QI) >= k
    # every noisy value lies within its class's original range, and noise was added
    both = rel.with_columns(frame["hours"].cast(pl.Float64).alias("_orig"))
    ranges = both.group_by(QI).agg(
        pl.col("_orig").min().alias("lo"),
        pl.col("_orig").max().alias("hi"),
        pl.col("hours").min().alias("nlo"),
        pl.col("hours").max().alias("nhi"),
    )
    assert (ranges["nlo"] >= ranges["lo"]).all() and (ranges["nhi"] <= ranges["hi"]).all()
    assert not both["hours"].equals(both["_orig"])


def test_seed_repeats_and_parameters_are_checked(frame, adult_hierarchies) -> None:
    a = _fit(frame, adult_hierarchies, seed=9).result_.release
    b = _fit(frame, adult_hierarchies, seed=9).result_.release
    assert a.equals(b)
    with pytest.raises(ParameterError, match="noisy"):
        KEpsilon(noisy=[QI[0]], privacy=Privacy(KAnonymity(2))).fit(
            frame,
            quasi_identifiers=QI,
            hierarchies={c: adult_hierarchies[c] for c in QI},
            insensitive=["hours"],
        )


def test_anonymize_accepts_the_estimator(frame, adult_hierarchies) -> None:
    from anonkit import anonymize

    res = anonymize(
        frame,
        quasi_identifiers=QI,
        hierarchies={c: adult_hierarchies[c] for c in QI},
        insensitive=["hours"],
        k=3,
        algorithm=KEpsilon(noisy="hours", seed=1),
    )
    assert res.algorithm == "k_epsilon" and res.verified and res.classes.min_size >= 3


def _by_sex(est: KEpsilon, df: pl.DataFrame) -> KEpsilon:
    """``est`` fitted on ``df`` with ``sex`` its quasi-identifier, ``income`` insensitive."""
    return est.fit(
        df,
        quasi_identifiers=["sex"],
        hierarchies={"sex": {"type": "suppression"}},
        insensitive=["income"],
    )


def test_suppressed_records_release_no_noisy_value() -> None:
    # A lone outlier is suppressed; alone in its "class" its range has width 0, so the
    # Laplace step released its income unchanged beside the stars.
    rows = [("m", 30 + i) for i in range(5)] + [("f", 40 + i) for i in range(5)]
    df = pl.DataFrame(rows + [("x", 99_999)], schema=["sex", "income"], orient="row")
    est = KEpsilon(noisy=["income"], privacy=Privacy(KAnonymity(2), suppression_limit=0.2), seed=0)
    res = _by_sex(est, df).result_
    assert res.suppressed == 1
    starred = res.release.filter(pl.col("sex") == "*")
    assert starred.height == 1 and starred["income"].null_count() == 1
    assert res.release.filter(pl.col("sex") != "*")["income"].null_count() == 0
    assert "withheld" in res.details["guarantee"]


def test_transform_generalizes_new_records_and_keeps_no_exact_noisy_value() -> None:
    # transform read the inner FullDomain's result_, which it never had (AttributeError);
    # the fitted estimator also kept the noisy column's exact values in the inner one.
    rows = [("m", 30_001 + i) for i in range(5)] + [("f", 40_001 + i) for i in range(5)]
    df = pl.DataFrame(rows + [("x", 99_999)], schema=["sex", "income"], orient="row")
    est = KEpsilon(noisy=["income"], privacy=Privacy(KAnonymity(2), suppression_limit=0.2), seed=0)
    _by_sex(est, df)
    out = est.transform(pl.DataFrame({"sex": ["m", "x"], "income": [1, 2]}))
    assert out["sex"].to_list() == ["m", "*"]
    saved = pickle.dumps(est)
    # polars pickles a column's values as raw little-endian int64
    assert all(v.to_bytes(8, "little") not in saved for v in df["income"])
    assert pickle.loads(saved).transform(df.head(1))["sex"].to_list() == ["m"]


def _text_incomes(values: list[str]) -> pl.DataFrame:
    sex = ["m"] * 5 + ["f"] * 5
    return pl.DataFrame({"sex": sex[: len(values)], "income": values})


def test_a_noisy_column_read_from_a_file_as_text_is_read_as_numbers() -> None:
    # A CSV file reaches the estimator as text (the CLI reads every column so), and
    # KEpsilon refused it: the CLI could not run k_epsilon on a CSV file at all.
    df = _text_incomes([str(30 + i) for i in range(5)] + ["4.05e1", "41", "42", "43", "44"])
    est = KEpsilon(noisy=["income"], privacy=Privacy(KAnonymity(2)), seed=0)
    res = _by_sex(est, df).result_
    assert res.release["income"].dtype == pl.Float64
    assert res.release.filter(pl.col("sex") == "f")["income"].is_between(40.5, 44).all()


def test_a_noisy_text_value_that_is_no_number_is_named_with_its_record() -> None:
    df = _text_incomes(["30", "31", "32", "n/a", "34", "40", "x", "42", "43", "44"])
    est = KEpsilon(noisy=["income"], privacy=Privacy(KAnonymity(2)), seed=0)
    with pytest.raises(DataError, match=r"'income'.*'n/a' \(record 4\) and 1 more"):
        est.fit(
            df,
            quasi_identifiers=["sex"],
            hierarchies={"sex": {"type": "suppression"}},
            insensitive=["income"],
        )


def test_a_sensitive_column_cannot_be_noisy() -> None:
    """A sensitive column was accepted as noisy, l-diversity judged on values the release
    then perturbs; the docs say a noisy column is declared insensitive."""
    from anonkit.models import DistinctLDiversity

    df = pl.DataFrame({"sex": ["m"] * 5 + ["f"] * 5, "income": [30 + i for i in range(10)]})
    est = KEpsilon(
        noisy=["income"], privacy=Privacy([KAnonymity(2), DistinctLDiversity("income", 2)])
    )
    with pytest.raises(ParameterError, match="noisy"):
        est.fit(df, quasi_identifiers=["sex"], hierarchies={"sex": {"type": "suppression"}})
    with pytest.raises(ParameterError, match="noisy"):
        KEpsilon(noisy=["income"], privacy=Privacy(KAnonymity(2))).fit(
            df,
            quasi_identifiers=["sex"],
            sensitive=["income"],
            hierarchies={"sex": {"type": "suppression"}},
        )


@pytest.mark.parametrize("role", [{"identifying": ["ssn"]}, {"others": "drop"}])
def test_an_identifying_or_dropped_column_cannot_be_noisy(role: dict) -> None:
    # The noisy columns were added back to the release after the fit had removed them:
    # an identifying column (or one others="drop" dropped) was published, with noise.
    df = pl.DataFrame({"sex": ["m"] * 5 + ["f"] * 5, "ssn": [100_000 + i for i in range(10)]})
    est = KEpsilon(noisy=["ssn"], privacy=Privacy(KAnonymity(2)), seed=0)
    with pytest.raises(ParameterError, match="noisy.*insensitive"):
        est.fit(df, quasi_identifiers=["sex"], hierarchies={"sex": {"type": "suppression"}}, **role)
    assert not hasattr(est, "result_")


@pytest.mark.parametrize("engine", ["streaming", "spark", "auto"])
def test_an_engine_that_keeps_the_records_out_of_memory_is_refused(engine: str) -> None:
    # The inner search ran on the streaming engine over records already in memory:
    # "TypeError: LazyFrame is not subscriptable" (PySparkTypeError on Spark).
    df = pl.DataFrame({"sex": ["m"] * 5 + ["f"] * 5, "hours": list(range(10))})
    est = KEpsilon(noisy=["hours"], privacy=Privacy(KAnonymity(2)), engine=engine, seed=0)
    with pytest.raises(ParameterError, match="'engine' parameter of KEpsilon must be 'polars'"):
        _by_sex(est, df)
