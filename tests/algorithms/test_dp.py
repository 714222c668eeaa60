"""SafePub's parameters, the exponential mechanism, the score sensitivities and the search.

The formulas are checked against slow plain-Python oracles written from the papers (Li,
Qardaji, Su 2012; McSherry, Talwar 2007; Bild, Kuhn, Prasser 2018), the score
sensitivities empirically on neighbouring tables, and the search's choice distribution by
a chi-square test with a fixed seed.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import chisquare

from anonkit.algorithms.dp import (
    SCORES,
    delta_for,
    exponential_choice,
    exponential_probabilities,
    k_for,
    safepub_search,
    sample_mask,
    sampling_probability,
)
from anonkit.algorithms.dp.safepub import node_classes
from anonkit.algorithms.lattice import Evaluator
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.lattice import Lattice
from anonkit.engines.base import get_engine
from anonkit.exceptions import ParameterError, UnknownNameError
from anonkit.models import KAnonymity


def _delta_oracle(k: int, epsilon: float, n_max: int = 1500) -> float:
    """d(k, β, ε) by the definition: the largest binomial tail over n_m <= n <= n_max."""
    beta = 1.0 - math.exp(-epsilon)
    gamma = (math.exp(epsilon) - 1.0 + beta) / math.exp(epsilon)
    n_m = max(math.ceil(k / gamma - 1.0), 1)
    best = 0.0
    for n in range(n_m, n_max + 1):
        lo = math.floor(gamma * n) + 1
        tail = 0.0
        for j in range(lo, n + 1):
            log_pmf = (
                math.lgamma(n + 1)
                - math.lgamma(j + 1)
                - math.lgamma(n - j + 1)
                + j * math.log(beta)
                + (n - j) * math.log1p(-beta)
            )
            tail += math.exp(log_pmf)
        best = max(best, tail)
    return best


def test_sampling_probability_is_one_minus_e_to_minus_epsilon() -> None:
    for eps in (0.1, 0.5, 1.0, 2.0, 5.0):
        assert math.isclose(sampling_probability(eps), 1.0 - math.exp(-eps), rel_tol=1e-12)


@pytest.mark.parametrize(("k", "eps"), [(5, 1.0), (20, 1.0), (40, 2.0), (10, 0.5)])
def test_delta_matches_the_definition(k: int, eps: float) -> None:
    assert math.isclose(delta_for(k, eps), _delta_oracle(k, eps), rel_tol=1e-6, abs_tol=1e-15)


@pytest.mark.parametrize(("eps", "delta"), [(1.0, 1e-5), (1.0, 1e-6), (2.0, 1e-4), (0.5, 1e-3)])
def test_k_is_the_smallest_that_reaches_delta(eps: float, delta: float) -> None:
    k = k_for(eps, delta)
    assert delta_for(k, eps) <= delta
    assert k == 1 or delta_for(k - 1, eps) > delta


def test_k_grows_as_delta_shrinks() -> None:
    assert k_for(1.0, 1e-3) < k_for(1.0, 1e-5) < k_for(1.0, 1e-7)


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ParameterError, match="epsilon"):
        k_for(0.0, 1e-5)
    with pytest.raises(ParameterError, match="delta"):
        k_for(1.0, 1.5)
    with pytest.raises(ParameterError, match="scores"):
        exponential_probabilities([], epsilon=1.0)


def test_sampling_keeps_each_record_with_probability_beta() -> None:
    rng = np.random.default_rng(7)
    beta = sampling_probability(1.0)
    mask = sample_mask(200_000, beta, rng)
    se = math.sqrt(beta * (1 - beta) / mask.size)
    assert abs(mask.mean() - beta) < 5 * se


def test_exponential_probabilities_follow_exp_of_half_epsilon_score() -> None:
    scores = np.array([-3.0, -1.0, 0.0, 2.5])
    for eps in (0.1, 1.0, 4.0):
        p = exponential_probabilities(scores, epsilon=eps)
        expected = np.exp(eps * scores / 2)
        assert np.allclose(p, expected / expected.sum())
        # any two candidates differ by at most exp(ε Δu / 2) (the DP ratio for Δ = 1)
        p_shift = exponential_probabilities(scores + np.array([1, 0, -1, 0]), epsilon=eps)
        assert np.all(np.abs(np.log(p / p_shift)) <= eps + 1e-9)


def test_exponential_probabilities_do_not_overflow() -> None:
    p = exponential_probabilities(np.array([1e6, 1e6 - 1.0]), epsilon=2.0)
    assert np.isclose(p[0] / p[1], math.e)


def test_unknown_score_name() -> None:
    from anonkit.algorithms.dp import get_score

    with pytest.raises(UnknownNameError):
        get_score("nope")


# ----------------------------------------------------------------- the score sensitivities
HS = (
    Hierarchy([[f"a{i}", f"a{i // 2}x", "*"] for i in range(4)], name="a"),
    Hierarchy([[f"b{i}", f"b{i // 3}y", "*"] for i in range(6)], name="b"),
    Hierarchy([["c0", "*"], ["c1", "*"]], name="c"),
)


def _evaluator(frame: pl.DataFrame, k: int) -> Evaluator:
    table = get_engine("polars").count(frame, [h.name for h in HS], list(HS))
    return Evaluator(table, Lattice(table.heights), [KAnonymity(k)], 1.0, "loss")


def _rows(draw: st.DrawFn, n: int) -> pl.DataFrame:
    return pl.DataFrame(
        {h.name: draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in HS}
    )


@st.composite
def neighbours(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame, int]:
    n = draw(st.integers(1, 25))
    frame = _rows(draw, n)
    extra = _rows(draw, 1)
    k = draw(st.integers(1, 6))
    return frame, pl.concat([frame, extra]), k


@given(case=neighbours())
def test_scores_change_by_at_most_one_between_neighbouring_tables(case) -> None:
    """Adding one record changes every normalized score of every node by at most 1."""
    small, large, k = case
    n = large.height  # the input size is public: the same in both worlds
    ev_s, ev_l = _evaluator(small, k), _evaluator(large, k)
    for index in range(ev_s.lattice.size):
        a = node_classes(ev_s, index, n)
        b = node_classes(ev_l, index, n)
        for name, score in SCORES.items():
            assert abs(score(a) - score(b)) <= 1.0 + 1e-9, (name, index)


# ----------------------------------------------------------------------------- the search
def _tiny_evaluator(k: int = 2) -> Evaluator:
    rng = np.random.default_rng(3)
    n = 60
    frame = pl.DataFrame({h.name: rng.choice(h.leaves, n).tolist() for h in HS})
    return _evaluator(frame, k)


def test_one_step_draws_like_the_exponential_mechanism() -> None:
    """With one step the chosen pivot is the exponential mechanism's draw among the top's
    predecessors: the frequencies of 3000 runs pass a chi-square test."""
    ev = _tiny_evaluator()
    score = SCORES["granularity"]
    preds = ev.lattice.predecessors(ev.lattice.top)
    eps = 6.0
    scores = [score(node_classes(ev, p, 60)) for p in preds]
    expected_p = exponential_probabilities(scores, epsilon=eps)
    assert expected_p.max() < 0.9  # a test with some spread
    rng = np.random.default_rng(20240611)
    runs = 3000
    counts = dict.fromkeys(preds, 0)
    for _ in range(runs):
        found = safepub_search(
            ev, score, epsilon=eps, steps=1, rng=rng, n_records=60, select="last"
        )
        counts[found.node] += 1
    observed = np.array([counts[p] for p in preds])
    assert chisquare(observed, expected_p * runs).pvalue > 1e-3


def test_exponential_choice_frequencies_match() -> None:
    rng = np.random.default_rng(11)
    scores = np.array([0.0, 0.5, 1.0, 3.0])
    p = exponential_probabilities(scores, epsilon=1.5)
    draws = np.bincount(
        [exponential_choice(scores, epsilon=1.5, rng=rng) for _ in range(4000)], minlength=4
    )
    assert chisquare(draws, p * 4000).pvalue > 1e-3


def test_search_records_its_pivots_and_budget() -> None:
    ev = _tiny_evaluator()
    rng = np.random.default_rng(0)
    found = safepub_search(ev, SCORES["intensity"], epsilon=1.0, steps=4, rng=rng, n_records=60)
    assert found.pivots[0] == ev.lattice.top
    assert found.steps_run == 4 and math.isclose(found.epsilon_spent, 1.0)
    assert found.node in found.pivots
    best = max(SCORES["intensity"](node_classes(ev, p, 60)) for p in found.pivots)
    assert math.isclose(found.score, best)


def test_search_stops_when_the_lattice_is_exhausted() -> None:
    ev = _tiny_evaluator()
    rng = np.random.default_rng(1)
    found = safepub_search(
        ev, SCORES["discernibility"], epsilon=1.0, steps=500, rng=rng, n_records=60
    )
    assert found.steps_run < 500
    assert found.epsilon_spent < 1.0


def test_search_is_reproducible_with_a_seed() -> None:
    a = safepub_search(
        _tiny_evaluator(),
        SCORES["granularity"],
        epsilon=1.0,
        steps=5,
        rng=np.random.default_rng(5),
        n_records=60,
    )
    b = safepub_search(
        _tiny_evaluator(),
        SCORES["granularity"],
        epsilon=1.0,
        steps=5,
        rng=np.random.default_rng(5),
        n_records=60,
    )
    assert a == b
