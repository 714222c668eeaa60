"""Top-down specialization (TopDown): private releases within the budget.

Releases are checked by plain Python over the records (test_heuristics.check_k_anonymous).
"""

from __future__ import annotations

import random
import time

import pytest
from test_heuristics import check_k_anonymous, evaluation_clock, evaluator_for, wide_table

from anonkit.algorithms.lattice import LATTICE_ALGORITHMS, Exhaustive
from anonkit.algorithms.lattice.topdown import Descent, TopDown
from anonkit.exceptions import PrivacyUnattainableError
from anonkit.models import KAnonymity


@pytest.fixture(scope="module")
def wide():
    return wide_table(2000, 24, seed=2)


def test_registered() -> None:
    assert LATTICE_ALGORITHMS["topdown"] is TopDown


@pytest.mark.parametrize("limit", [0.0, 0.05])
def test_release_is_private_on_an_implicit_lattice(wide, limit: float) -> None:
    frame, hs = wide
    ev = evaluator_for(frame, hs, [KAnonymity(5)], limit)
    assert not ev.lattice.explicit
    res = TopDown(time_limit=None, max_nodes=80, seed=0).search(ev)
    assert res.nodes_evaluated <= 80 and not res.optimal
    assert check_k_anonymous(frame, hs, res.levels, 5, limit) == res.suppressed
    costs = [c for _, c in res.convergence]
    assert costs == sorted(costs, reverse=True) and costs[-1] == pytest.approx(res.cost)


def test_time_limit_and_seed(wide, monkeypatch) -> None:
    frame, hs = wide
    with monkeypatch.context() as patched:
        now = evaluation_clock(patched)
        res = TopDown(time_limit=0.5, seed=1).search(
            evaluator_for(frame, hs, [KAnonymity(5)], 0.02)
        )
    # the budget keeps back twice the longest recent evaluation (the next node's and the
    # final check's), so on a clock that moves only with evaluations it ends in time
    assert res.stopped in ("time_limit", "finished")
    assert now[0] <= 0.5
    # on the wall clock, with room for an evaluation a busy runner delays
    start = time.perf_counter()
    TopDown(time_limit=0.5, seed=1).search(evaluator_for(frame, hs, [KAnonymity(5)], 0.02))
    assert time.perf_counter() - start <= 0.5 * 1.5
    runs = [
        TopDown(time_limit=None, max_nodes=60, seed=3).search(
            evaluator_for(frame, hs, [KAnonymity(5)], 0.02)
        )
        for _ in range(2)
    ]
    assert runs[0].levels == runs[1].levels


@pytest.mark.parametrize("case", range(4))
def test_small_lattices(case: int) -> None:
    """On small lattices the descents run out of new nodes: a finished, private release
    no better than the optimum."""
    frame, hs = wide_table(80 + 20 * case, 4, seed=20 + case)
    k, limit = [2, 5][case % 2], [0.0, 0.1][case // 2]
    oracle = Exhaustive().search(evaluator_for(frame, hs, [KAnonymity(k)], limit))
    res = TopDown(time_limit=20, seed=case).search(evaluator_for(frame, hs, [KAnonymity(k)], limit))
    assert res.stopped == "finished"
    assert res.cost >= oracle.cost - 1e-12
    assert check_k_anonymous(frame, hs, res.levels, k, limit) == res.suppressed


def test_no_private_node() -> None:
    frame, hs = wide_table(10, 3, seed=3)
    with pytest.raises(PrivacyUnattainableError):
        TopDown(time_limit=5).search(evaluator_for(frame, hs, [KAnonymity(11)], 0.0))


@pytest.mark.parametrize("case", range(3))
def test_descent_ends_at_a_minimal_private_node(case: int) -> None:
    """A top-down descent (also Lightning's) only steps onto private nodes and stops where
    no predecessor is private (checked against every predecessor's evaluation)."""
    frame, hs = wide_table(150 + 50 * case, 5, seed=50 + case)
    ev = evaluator_for(frame, hs, [KAnonymity(3)], [0.0, 0.05, 0.1][case])
    search = TopDown(time_limit=None, seed=case)
    search._evaluator = ev  # the search's evaluate() without running the search
    lat = ev.lattice
    end = Descent(search, ev, random.Random(case)).run(lat.top, 0.5 * case)
    assert ev.evaluate(end).anonymous
    assert check_k_anonymous(frame, hs, lat.node(end), 3, [0.0, 0.05, 0.1][case]) >= 0
    assert not any(ev.evaluate(p).anonymous for p in lat.predecessors(end))
