"""The exact search with sparse node state (SparseFlash): Flash's optimum on implicit
lattices.

The small lattices here are forced onto the sparse path (implicit lattice, slabs of a few
nodes) and compared with the exhaustive search on the explicit lattice; releases are
checked by plain Python over the records.
"""

from __future__ import annotations

import math
from unittest import mock

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_heuristics import check_k_anonymous, wide_table

import anonkit.core.lattice as lattice_module
from anonkit import anonymize
from anonkit.algorithms.lattice import LATTICE_ALGORITHMS, Evaluator, Exhaustive, Flash
from anonkit.algorithms.lattice.auto import choose_search
from anonkit.algorithms.lattice.search import rank
from anonkit.algorithms.lattice.sparse_flash import SparseFlash, nodes_within
from anonkit.core.lattice import Lattice
from anonkit.engines.base import SensitiveSpec, get_engine
from anonkit.exceptions import ParameterError, PrivacyUnattainableError
from anonkit.models import EqualDistanceTCloseness, KAnonymity
from strategies import random_hierarchy

#: Metrics with a per-level lower bound (the sparse search's own path), and the options.
LEVEL_METRICS = [
    ("loss", None),
    ("loss", {"aggregate": "geometric"}),
    ("precision", None),
    ("height", None),
    ("relative_distance", None),
    ("nonuniform_entropy", None),
]


def _table(frame: pl.DataFrame, hs):
    return get_engine("polars").count(frame, [h.name for h in hs], hs)


def _implicit(heights) -> Lattice:
    with mock.patch.object(lattice_module, "MAX_NODES", 1):
        lat = Lattice(heights, max_nodes=None)
    assert not lat.explicit
    return lat


@st.composite
def problems(draw):
    q = draw(st.integers(2, 4))
    hs = [draw(random_hierarchy(f"q{j}")) for j in range(q)]
    n = draw(st.integers(1, 40))
    columns = {
        h.name: draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in hs
    }
    k = draw(st.integers(1, min(5, n)))
    limit = draw(st.sampled_from([0.0, 0.1, 0.3]))
    slab = draw(st.integers(1, 12))
    return pl.DataFrame(columns), hs, k, limit, slab


@settings(max_examples=25, deadline=None)
@given(problem=problems())
def test_equals_exhaustive_on_small_lattices(problem) -> None:
    frame, hs, k, limit, slab = problem
    table = _table(frame, hs)
    for metric, options in LEVEL_METRICS:
        oracle_ev = Evaluator(
            table, Lattice(table.heights), [KAnonymity(k)], limit, metric, metric_options=options
        )
        try:
            oracle = Exhaustive().search(oracle_ev)
        except PrivacyUnattainableError:
            oracle = None
        ev = Evaluator(
            table, _implicit(table.heights), [KAnonymity(k)], limit, metric, metric_options=options
        )
        if oracle is None:
            with pytest.raises(PrivacyUnattainableError):
                SparseFlash(slab_nodes=slab).search(ev)
            continue
        found = SparseFlash(slab_nodes=slab).search(ev)
        assert found.levels == oracle.levels, metric
        assert math.isclose(found.cost, oracle.cost, rel_tol=1e-9, abs_tol=1e-12)
        assert rank(ev.evaluate(found.node)) == rank(oracle_ev.results[oracle.node])
        assert found.optimal and found.algorithm == "sparse_flash"
        assert found.nodes_evaluated <= oracle_ev.lattice.size
        assert check_k_anonymous(frame, hs, found.levels, k, limit) == found.suppressed


@pytest.mark.parametrize("limit", [0.0, 0.05])
def test_equals_flash_with_a_non_monotone_model(limit: float) -> None:
    """t-closeness with suppression is not monotone: only doomed nodes rule out others."""
    frame, hs = wide_table(300, 4, seed=3)
    frame = frame.with_columns(disease=pl.Series([str(i % 5) for i in range(frame.height)]))
    qi = [h.name for h in hs]
    table = get_engine("polars").count_detail(frame, qi, hs, [SensitiveSpec("disease")])
    models = [KAnonymity(2), EqualDistanceTCloseness("disease", 0.3)]
    flash = Flash().search(Evaluator(table, Lattice(table.heights), models, limit, "loss"))
    ev = Evaluator(table, _implicit(table.heights), models, limit, "loss")
    found = SparseFlash(slab_nodes=5).search(ev)
    assert found.levels == flash.levels
    assert math.isclose(found.cost, flash.cost, rel_tol=1e-9)


def test_skips_most_of_a_wide_lattice() -> None:
    """7 columns: the sparse search evaluates a small share of the lattice."""
    frame, hs = wide_table(300, 7, seed=2)
    table = _table(frame, hs)
    ev = Evaluator(table, _implicit(table.heights), [KAnonymity(5)], 0.05, "loss")
    found = SparseFlash(slab_nodes=256).search(ev)
    flash = Flash().search(Evaluator(table, Lattice(table.heights), [KAnonymity(5)], 0.05, "loss"))
    assert found.levels == flash.levels
    assert found.nodes_evaluated * 10 < ev.lattice.size


def test_refuses_up_front_when_memory_would_run_out() -> None:
    frame, hs = wide_table(200, 6, seed=1)
    table = _table(frame, hs)
    ev = Evaluator(table, _implicit(table.heights), [KAnonymity(3)], 0.05, "loss")
    with pytest.raises(ParameterError, match="fits in memory"):
        SparseFlash(memory_limit=1).search(ev)
    # the count of nodes within a cost bounds the nodes whose bound is that low
    bounds = Evaluator(table, Lattice(table.heights), [KAnonymity(3)], 0.05, "loss")
    dense = bounds.cost_model.node_bounds(bounds.lattice)
    assert dense is not None
    for t in (0.1, 0.3, 0.6):
        assert nodes_within(ev, t) >= int((dense <= t).sum())
    assert nodes_within(ev, math.inf) == ev.lattice.size


def test_class_based_metrics() -> None:
    """Discernibility has no per-level bound: Flash on explicit lattices, refused beyond."""
    frame, hs = wide_table(200, 4, seed=4)
    table = _table(frame, hs)
    models = [KAnonymity(3)]
    explicit = Evaluator(table, Lattice(table.heights), models, 0.05, "discernibility")
    flash = Flash().search(Evaluator(table, Lattice(table.heights), models, 0.05, "discernibility"))
    found = SparseFlash().search(explicit)
    assert found.levels == flash.levels and found.algorithm == "sparse_flash" and found.optimal
    ev = Evaluator(table, _implicit(table.heights), models, 0.05, "discernibility")
    with pytest.raises(ParameterError, match="'metric'.*lightning"):
        SparseFlash().search(ev)


def test_bad_options() -> None:
    with pytest.raises(ParameterError, match="slab_nodes"):
        SparseFlash(slab_nodes=0)
    with pytest.raises(ParameterError, match="memory_limit"):
        SparseFlash(memory_limit=-1)


def test_registered_and_dispatched_beyond_the_cap(monkeypatch) -> None:
    """``algorithm='flash'`` beyond the explicit cap runs the sparse search (proven
    optimal), and ``auto`` may choose it."""
    assert LATTICE_ALGORITHMS["sparse_flash"] is SparseFlash
    frame, hs = wide_table(300, 5, seed=5)
    qi = [h.name for h in hs]
    small = anonymize(
        frame, quasi_identifiers=qi, hierarchies=dict(zip(qi, hs, strict=True)), k=3,
        suppression_limit=0.05, algorithm="flash",
    )  # fmt: skip
    monkeypatch.setattr(lattice_module, "MAX_NODES", 10)
    for algorithm in ("flash", "sparse_flash", "auto"):
        res = anonymize(
            frame, quasi_identifiers=qi, hierarchies=dict(zip(qi, hs, strict=True)), k=3,
            suppression_limit=0.05, algorithm=algorithm,
        )  # fmt: skip
        assert res.transformation == small.transformation, algorithm
        assert res.details["search"]["algorithm"] == "sparse_flash"
        assert res.details["search"]["optimal"]
        levels = [res.transformation[c] for c in qi]
        check_k_anonymous(frame, hs, levels, 3, 0.05)


def test_auto_chooses_the_sparse_search_when_it_fits(monkeypatch) -> None:
    frame, hs = wide_table(300, 5, seed=5)
    table = _table(frame, hs)
    monkeypatch.setattr(lattice_module, "MAX_NODES", 10)

    def fresh() -> Evaluator:
        lat = Lattice(table.heights, max_nodes=None)
        return Evaluator(table, lat, [KAnonymity(3)], 0.05, "loss")

    assert choose_search(fresh()) == "sparse_flash"
    assert choose_search(fresh(), seconds=1e-9) == "lightning"
    assert choose_search(fresh(), max_nodes=1) == "lightning"
    ev = Evaluator(table, Lattice(table.heights, max_nodes=None), [KAnonymity(3)], 0.05, "height")
    ev.cost_model.additive = False  # stands for a metric without per-level bounds
    assert choose_search(ev) == "lightning"
