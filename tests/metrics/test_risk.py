"""Tests of anonkit.metrics.risk: seed 001 scenarios, bounds, population uniqueness."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import (
    DataError,
    ParameterError,
    UnknownColumnError,
    ValuesNotInHierarchyError,
)
from anonkit.metrics.release import interpret_release
from anonkit.metrics.risk import (
    RISK_BUCKETS,
    average_journalist_risk,
    average_prosecutor_risk,
    fit_pitman,
    journalist_risk,
    marketer_risk,
    population_class_sizes,
    population_table_uniqueness,
    population_uniqueness_risk,
    population_uniques,
    prosecutor_risk,
    records_at_risk,
    risk_distribution,
    sample_uniqueness_risk,
)

# Seed 001 (k-map slide): the population U is the 13-record hospital table; the sample D
# holds records 01, 06, 08, 09..13, released at the same generalization as U.
POPULATION = [
    ("13053", "28", "Russian"), ("13068", "29", "American"), ("13068", "21", "Japanese"),
    ("13053", "23", "American"), ("14853", "50", "Indian"), ("14853", "55", "Russian"),
    ("14850", "47", "American"), ("14850", "59", "American"), ("13053", "31", "American"),
    ("13053", "37", "Indian"), ("13068", "36", "Japanese"), ("13068", "32", "American"),
    ("13068", "33", "Chinese"),
]  # fmt: skip
SAMPLE = [0, 5, 7, 8, 9, 10, 11, 12]
QI = ["Zip", "Age", "Nationality"]


def _hierarchies() -> dict[str, Hierarchy]:
    zips = sorted({r[0] for r in POPULATION})
    ages = sorted({r[1] for r in POPULATION}, key=int)
    nats = sorted({r[2] for r in POPULATION})

    def age(a: str) -> str:
        return "<30" if int(a) < 30 else ("[30,40)" if int(a) < 40 else ">40")

    return {
        "Zip": Hierarchy([[z, "130**" if z < "14" else "1485*", "*"] for z in zips], name="Zip"),
        "Age": Hierarchy([[a, age(a), "*"] for a in ages], name="Age"),
        "Nationality": Hierarchy([[n, "Any"] for n in nats], name="Nationality"),
    }


def _kmap_case():
    hs = _hierarchies()
    population = pl.DataFrame({c: [r[i] for r in POPULATION] for i, c in enumerate(QI)})
    sample = population[SAMPLE]
    release = pl.DataFrame({c: [hs[c].generalize(v, 1) for v in sample[c]] for c in QI})
    r = interpret_release(sample, release, quasi_identifiers=QI, hierarchies=hs)
    return r, population


def test_seed_kmap_journalist_and_prosecutor() -> None:
    r, population = _kmap_case()
    labels = {
        tuple(c.labels[r.class_labels[g, j]] for j, c in enumerate(r.columns)): int(
            r.class_sizes[g]
        )
        for g in range(r.class_sizes.shape[0])
    }
    assert labels == {("130**", "<30", "Any"): 1, ("1485*", ">40", "Any"): 2,
                      ("130**", "[30,40)", "Any"): 5}  # fmt: skip
    big_f = population_class_sizes(r, population)
    pop_of = dict(zip(r.class_sizes.tolist(), big_f.tolist(), strict=True))
    assert pop_of == {1: 4, 2: 4, 5: 5}
    sizes = r.kept_sizes
    # The sample's record 01 is unique in D (prosecutor risk 1) but one of 4 in U.
    assert prosecutor_risk(sizes) == 1.0
    assert journalist_risk(sizes, big_f) == 0.25
    assert average_journalist_risk(sizes, big_f) == pytest.approx((1 / 4 + 2 / 4 + 5 / 5) / 8)
    assert marketer_risk(sizes, big_f) == pytest.approx((1 / 4 + 2 / 4 + 5 / 5) / 8)
    assert marketer_risk(sizes) == pytest.approx(3 / 8)
    assert average_prosecutor_risk(sizes) == pytest.approx(3 / 8)
    assert sample_uniqueness_risk(sizes) == pytest.approx(1 / 8)
    assert records_at_risk(sizes, threshold=0.2) == pytest.approx(3 / 8)
    assert records_at_risk(sizes, threshold=0.2, population_sizes=big_f) == pytest.approx(3 / 8)
    assert records_at_risk(sizes, threshold=0.25, population_sizes=big_f) == 0.0
    dist = risk_distribution(sizes, big_f)
    assert dist["(20%, 50%]"] == 3 and dist["(10%, 20%]"] == 5
    assert list(dist) == [b[0] for b in RISK_BUCKETS]


def test_population_errors() -> None:
    r, population = _kmap_case()
    with pytest.raises(UnknownColumnError):
        population_class_sizes(r, population.drop("Age"))
    with pytest.raises(DataError):
        population_class_sizes(r, population.head(0))
    with pytest.raises(ParameterError):
        journalist_risk([1, 2], [3])


def test_empty_and_invalid_sizes() -> None:
    empty = np.zeros(0, dtype=np.int64)
    for fn in (prosecutor_risk, average_prosecutor_risk, marketer_risk, sample_uniqueness_risk):
        assert fn(empty) == 0.0
    assert records_at_risk(empty, threshold=0.1) == 0.0
    assert journalist_risk(empty, empty) == 0.0
    assert sum(risk_distribution(empty).values()) == 0
    with pytest.raises(ParameterError):
        prosecutor_risk([0, 3])
    with pytest.raises(ParameterError):
        prosecutor_risk([1.5])
    with pytest.raises(ParameterError):
        records_at_risk([2], threshold=1.5)
    with pytest.raises(ParameterError):
        records_at_risk([2], threshold=True)


@given(
    st.lists(st.integers(1, 30), min_size=1, max_size=40),
    st.lists(st.integers(0, 50), min_size=40, max_size=40),
    st.floats(0.0, 1.0),
)
def test_risk_bounds(sizes, extra, threshold) -> None:
    s = np.array(sizes)
    pop = s + np.array(extra[: s.size])
    values = [
        prosecutor_risk(s), average_prosecutor_risk(s), journalist_risk(s, pop),
        average_journalist_risk(s, pop), marketer_risk(s), marketer_risk(s, pop),
        sample_uniqueness_risk(s), records_at_risk(s, threshold=threshold),
    ]  # fmt: skip
    assert all(0.0 <= v <= 1.0 for v in values)
    assert prosecutor_risk(s) == 1 / s.min()
    assert average_prosecutor_risk(s) <= prosecutor_risk(s)
    assert journalist_risk(s, pop) <= prosecutor_risk(s)
    assert average_journalist_risk(s, pop) <= average_prosecutor_risk(s) + 1e-12
    assert sum(risk_distribution(s).values()) == s.sum()
    assert records_at_risk(s, threshold=threshold) == pytest.approx(
        s[1 / s > threshold].sum() / s.sum()
    )


# ------------------------------------------------------------- population uniqueness
def _pitman_population(n: int, theta: float, alpha: float, seed: int) -> np.ndarray:
    """Class of each of ``n`` records under the Pitman–Yor Chinese restaurant process."""
    rng = np.random.default_rng(seed)
    sizes: list[int] = []
    owner = np.empty(n, dtype=np.int64)
    for i in range(n):
        if i == 0 or rng.random() * (theta + i) < theta + len(sizes) * alpha:
            owner[i] = len(sizes)
            sizes.append(1)
            continue
        while True:  # a table with probability proportional to (size - alpha)
            c = owner[rng.integers(0, i)]
            if rng.random() * sizes[c] < sizes[c] - alpha:
                break
        sizes[c] += 1
        owner[i] = c
    return owner


def test_pitman_recovers_a_simulated_population() -> None:
    population = _pitman_population(60_000, theta=50.0, alpha=0.6, seed=3)
    true_uniques = int((np.bincount(population) == 1).sum())
    rng = np.random.default_rng(4)
    sample = population[rng.choice(population.size, 6_000, replace=False)]
    sizes = np.unique(sample, return_counts=True)[1]
    fit = fit_pitman(sizes)
    assert fit.converged and 0.5 < fit.alpha < 0.7
    est = population_uniques(sizes, population_size=population.size)
    assert est == pytest.approx(true_uniques, rel=0.15)
    zay = population_uniques(sizes, population_size=population.size, model="zayatz")
    assert zay > 0
    share = population_uniqueness_risk(sizes, population_size=population.size)
    assert share == pytest.approx(est / population.size)
    # the fit is a maximum of the likelihood
    from anonkit.metrics.risk import _PitmanLikelihood

    lik = _PitmanLikelihood(sizes)
    best = lik.value(fit.theta, fit.alpha)
    for dt, da in ((1.0, 0.0), (-1.0, 0.0), (0.0, 0.01), (0.0, -0.01)):
        assert lik.value(fit.theta + dt, fit.alpha + da) <= best


@pytest.mark.parametrize(
    "sizes",
    [
        [1] * 40 + [2] * 20 + [3] * 10 + [5] * 6,
        [1] * 5 + [2] * 3 + [4] * 2,
        [1, 1, 1, 2, 2, 3, 7, 9, 12],
    ],
)
def test_pitman_at_the_alpha_bound_still_maximizes_over_theta(sizes: list[int]) -> None:
    """Where the likelihood's maximum lies at alpha -> 0 the Newton step pointed out of
    the box, and the fit stopped with theta short of its best (a lower uniqueness
    estimate, by 2 to 5 % here) while reporting converged."""
    from anonkit.metrics.risk import _PitmanLikelihood

    fit = fit_pitman(sizes)
    lik = _PitmanLikelihood(np.asarray(sizes))
    assert fit.converged and fit.alpha < 1e-6
    # theta is the best for its alpha: the theta score vanishes
    step = 1e-4 * max(1.0, fit.theta)
    assert lik.value(fit.theta + step, fit.alpha) <= fit.log_likelihood
    assert lik.value(fit.theta - step, fit.alpha) <= fit.log_likelihood


def test_pitman_uniques_at_the_alpha_bound_by_an_independent_fit() -> None:
    # theta* solving the theta score at alpha = 0 (scipy's brentq in the bug report):
    # sum_{i<u} 1/theta - sum_{i<n} 1/(theta + i) = 0, then Gamma(theta+1)/Gamma(theta) N^0
    sizes = [1] * 40 + [2] * 20 + [3] * 10 + [5] * 6
    assert population_uniques(sizes, population_size=10_000) == pytest.approx(67.1846, abs=2e-3)


def test_zayatz_by_hand() -> None:
    sizes = np.array([1, 1, 2, 3])  # F_1 = 2, F_2 = 1, F_3 = 1; n = 7
    big_n, n = 70, 7

    def p_one(j: int) -> float:  # hypergeometric P[X = 1]
        return j * math.comb(big_n - j, n - 1) / math.comb(big_n, n)

    cond = (2 * p_one(1)) / (2 * p_one(1) + p_one(2) + p_one(3))
    expected = 2 * cond / (n / big_n)
    got = population_uniques(sizes, population_size=big_n, model="zayatz")
    assert got == pytest.approx(expected)


def test_population_uniqueness_edge_cases() -> None:
    assert population_uniqueness_risk([2, 3, 4], population_size=1000) == 0.0
    assert population_uniqueness_risk([1, 1, 1], population_size=1000) == 1.0
    assert 0.0 < population_uniqueness_risk([1, 1, 2, 5], population_size=1000) < 1.0
    with pytest.raises(ParameterError, match="population_size"):
        population_uniqueness_risk([1, 2], population_size=2)
    with pytest.raises(ParameterError, match="population_size"):
        population_uniqueness_risk([1, 2], population_size=10.0)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="model"):
        population_uniqueness_risk([1, 2], population_size=10, model="snb")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="fit_pitman"):
        fit_pitman([2, 3])


@given(st.lists(st.integers(1, 20), min_size=2, max_size=60), st.integers(1, 50))
def test_population_uniqueness_is_a_share(sizes, factor) -> None:
    n = sum(sizes)
    for model in ("pitman", "zayatz"):
        v = population_uniqueness_risk(sizes, population_size=n * factor, model=model)
        assert 0.0 <= v <= 1.0 and math.isfinite(v)


# ------------------------------------------- population uniques: what is logically possible
# Of a population of N records, n sampled: a sample class of size >= 2 is no population
# unique, so at most the f1 sample uniques and the N - n records left out can be; each
# record left out can join at most one sample unique's class, so at least f1 - (N - n)
# sample uniques stay unique. At N = n the sample is the population: exactly f1.
MODELS = ("pitman", "zayatz")


@pytest.mark.parametrize("model", MODELS)
def test_population_uniques_of_a_whole_population_are_its_uniques(model: str) -> None:
    """Pitman's estimate was 16.6 for one sample unique and 20 pairs at N = n = 41."""
    assert population_uniques([1] + [2] * 20, population_size=41, model=model) == 1.0
    sizes = [1] * 40 + [2] * 20 + [3] * 10 + [5] * 6  # n = 140
    assert population_uniques(sizes, population_size=140, model=model) == 40.0
    assert population_uniqueness_risk([1, 1, 1, 2], population_size=5, model=model) == 0.6
    assert population_uniqueness_risk([1] + [2] * 20, population_size=41, model=model) == 1 / 41


@pytest.mark.parametrize("model", MODELS)
@given(
    sizes=st.lists(st.integers(1, 12), min_size=1, max_size=50),
    left_out=st.integers(0, 60),
)
def test_population_uniques_stay_within_what_is_logically_possible(
    model: str, sizes: list[int], left_out: int
) -> None:
    n, f1 = sum(sizes), sizes.count(1)
    got = population_uniques(sizes, population_size=n + left_out, model=model)
    assert max(0, f1 - left_out) <= got <= f1 + left_out
    share = population_uniqueness_risk(sizes, population_size=n + left_out, model=model)
    assert share <= (f1 + left_out) / (n + left_out)


def test_pitman_fit_bounds_its_own_estimate() -> None:
    fit = fit_pitman([1] + [2] * 20)
    assert fit.sample_size == 41 and fit.sample_uniques == 1
    assert fit.population_uniques(41) == 1.0
    assert fit.population_uniques(43) <= 3.0


def test_population_table_uniqueness_counts_the_classes_alone_in_the_population() -> None:
    # classes of 1, 1, 1, 2 matched by 1, 3, 1, 2 population records of 9
    assert population_table_uniqueness([1, 1, 1, 2], [1, 3, 1, 2], population_size=9) == 2 / 9
    # a class matching fewer population records than it holds is read as matching its own
    assert population_table_uniqueness([1, 2], [0, 1], population_size=4) == 1 / 4
    assert population_table_uniqueness([], [], population_size=4) == 0.0
    with pytest.raises(ParameterError, match="population_size"):
        population_table_uniqueness([1, 2], [1, 2], population_size=2)


def test_a_population_value_outside_the_hierarchy_is_named_as_the_population_tables() -> None:
    """The message said the value was "of the data", which holds no such value."""
    r, population = _kmap_case()
    extra = pl.DataFrame({"Zip": ["99999"], "Age": ["31"], "Nationality": ["Indian"]})
    with pytest.raises(ValuesNotInHierarchyError) as err:
        population_class_sizes(r, pl.concat([population, extra]))
    message = str(err.value)
    assert "of the population table are not in the hierarchy" in message
    assert "'99999'" in message and "of the data" not in message
    assert err.value.column == "Zip" and err.value.missing == ["99999"]
