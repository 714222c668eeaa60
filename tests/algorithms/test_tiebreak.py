"""Ties between equally good transformations: fewer suppressed records, then lower loss,
then the lower node (height, then node number), in every search that picks a best node.

The oracle evaluates every node and applies that order, written out here; Flash,
exhaustive, Samarati (within its height) and AllMin (among minimal nodes) must agree.
"""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.algorithms.lattice import AllMin, Evaluator, Exhaustive, Flash, Samarati
from anonkit.algorithms.lattice.node_result import NodeResult
from anonkit.algorithms.lattice.search import rank
from anonkit.core.lattice import Lattice
from anonkit.engines.base import SensitiveSpec, get_engine
from anonkit.exceptions import PrivacyUnattainableError
from anonkit.metrics.generalization import METRICS
from anonkit.models import (
    EntropyLDiversity,
    EqualDistanceTCloseness,
    KAnonymity,
    RecursiveCLDiversity,
)
from strategies import random_hierarchy

SENSITIVE = ["1", "2", "3", "5"]


def _node(index: int, cost: float, suppressed: int, loss: float, levels=(0, 0)) -> NodeResult:
    return NodeResult(index, levels, True, suppressed, 1, cost, cost, loss=loss)


def test_rank_orders_cost_then_suppressed_then_loss_then_node() -> None:
    a = _node(0, 1.0, 10, 0.5)
    b = _node(5, 1.0, 2, 0.9, levels=(1, 1))  # same cost, fewer suppressed: wins
    assert rank(b) < rank(a)
    c = _node(6, 1.0, 2, 0.3, levels=(2, 1))  # same suppression, lower loss: wins
    assert rank(c) < rank(b)
    d = _node(1, 1.0, 2, 0.3, levels=(1, 1))  # all equal but lower: wins
    assert rank(d) < rank(c)
    e = _node(9, 0.9, 99, 1.0, levels=(3, 3))  # a better score wins whatever else
    assert rank(e) < rank(d)
    # float noise in the score is not a difference
    f = _node(7, 0.9 * (1 + 1e-14), 1, 1.0, levels=(3, 3))
    assert rank(f) < rank(e)


@st.composite
def problems(draw):
    q = draw(st.integers(2, 3))
    hs = [draw(random_hierarchy(f"q{j}", max_leaves=5)) for j in range(q)]
    n = draw(st.integers(2, 40))
    columns = {
        h.name: draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in hs
    }
    detailed = draw(st.booleans())
    if detailed:
        columns["s"] = draw(st.lists(st.sampled_from(SENSITIVE), min_size=n, max_size=n))
        models: list = [
            draw(
                st.sampled_from(
                    [
                        EntropyLDiversity("s", 1.5),
                        RecursiveCLDiversity("s", 2, 2),
                        EqualDistanceTCloseness("s", 0.4),
                    ]
                )
            )
        ]
    else:
        models = [KAnonymity(draw(st.integers(1, min(5, n))))]
    limit = draw(st.sampled_from([0.0, 0.1, 0.3, 0.5]))
    metric = draw(st.sampled_from(sorted(METRICS)))
    return pl.DataFrame(columns), hs, models, limit, metric


def _evaluator(frame, hs, models, limit, metric) -> Evaluator:
    qi = [h.name for h in hs]
    engine = get_engine("polars")
    if "s" in frame.columns:
        table = engine.count_detail(frame, qi, hs, [SensitiveSpec("s", None)])
    else:
        table = engine.count(frame, qi, hs)
    return Evaluator(table, Lattice(table.heights), models, limit, metric)


def _loss(ev: Evaluator, i: int) -> float:
    return METRICS["loss"](ev.summary(i))


def _preferred(ev: Evaluator, nodes: list[int]) -> int:
    """The order of the documentation, by brute force on the evaluated nodes."""
    lat = ev.lattice
    low = min(ev.results[i].cost for i in nodes)
    tied = [i for i in nodes if math.isclose(ev.results[i].cost, low, rel_tol=1e-10, abs_tol=0)]
    return min(
        tied,
        key=lambda i: (ev.results[i].suppressed, round(_loss(ev, i), 10), int(lat.levels[i]), i),
    )


@settings(max_examples=150)
@given(problem=problems())
def test_every_search_breaks_ties_the_same_documented_way(problem) -> None:
    frame, hs, models, limit, metric = problem
    oracle_ev = _evaluator(frame, hs, models, limit, metric)
    try:
        oracle = Exhaustive().search(oracle_ev)
    except PrivacyUnattainableError:
        return
    lat = oracle_ev.lattice
    private = [i for i, r in oracle_ev.results.items() if r.anonymous]
    assert oracle.node == _preferred(oracle_ev, private)
    flash = Flash().search(_evaluator(frame, hs, models, limit, metric))
    assert flash.node == oracle.node
    assert flash.suppressed == oracle.suppressed
    if isinstance(models[0], KAnonymity):  # monotone: Samarati's height is the lowest
        sam = Samarati().search(_evaluator(frame, hs, models, limit, metric))
        lowest = min(int(lat.levels[i]) for i in private)
        level_nodes = [i for i in private if lat.levels[i] == lowest]
        assert sam.node == _preferred(oracle_ev, level_nodes)
    allmin = AllMin().search(_evaluator(frame, hs, models, limit, metric))
    minimal = [lat.index(list(m)) for m in allmin.minimal]
    assert allmin.node == _preferred(oracle_ev, minimal)


def test_ties_prefer_fewer_suppressed_records() -> None:
    # height is a property of the levels: many nodes tie, and the one that suppresses
    # the fewest records must win (before the tie-break: the lowest node number won)
    from anonkit.core.hierarchy import Hierarchy

    a = Hierarchy([["1", "*"], ["2", "*"], ["3", "*"]], name="a")
    b = Hierarchy([["x", "*"], ["y", "*"]], name="b")
    frame = pl.DataFrame({"a": ["1", "1", "1", "2", "2", "3"], "b": ["x", "y", "x", "y", "x", "y"]})
    ev = _evaluator(frame, [a, b], [KAnonymity(2)], 0.5, "height")
    found = Flash().search(ev)
    r10, r01 = ev.evaluate(ev.lattice.index([1, 0])), ev.evaluate(ev.lattice.index([0, 1]))
    assert r10.anonymous and r01.anonymous and r10.cost == r01.cost
    better = min((r10, r01), key=lambda r: r.suppressed)
    assert r10.suppressed != r01.suppressed
    assert found.node == better.index


@pytest.mark.parametrize("metric", sorted(METRICS))
def test_node_results_carry_the_loss(metric: str) -> None:
    from anonkit.core.hierarchy import Hierarchy

    a = Hierarchy([["1", "*"], ["2", "*"], ["3", "*"]], name="a")
    frame = pl.DataFrame({"a": ["1", "1", "2", "3"]})
    ev = _evaluator(frame, [a], [KAnonymity(2)], 0.5, metric)
    for i in range(ev.lattice.size):
        res = ev.evaluate(i)
        assert math.isclose(res.loss, _loss(ev, i), rel_tol=1e-9, abs_tol=1e-12)
