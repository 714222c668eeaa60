"""The dense pair screen gives the same figures as the projected classes it replaces."""

from __future__ import annotations

import itertools
import math
from typing import Any
from unittest import mock

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sparse_flash import _implicit, problems

from anonkit.algorithms.lattice import (
    Evaluator,
    Exhaustive,
    Flash,
    compiled_screens,
    pair_projection,
    prefilter,
)
from anonkit.algorithms.lattice.prefilter import _pair_suppressed, _projected_classes
from anonkit.algorithms.lattice.sparse_flash import SparseFlash
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.lattice import Lattice
from anonkit.engines.base import SensitiveSpec, get_engine
from anonkit.exceptions import PrivacyUnattainableError
from anonkit.models import KAnonymity
from strategies import random_hierarchy, random_table


@given(data=st.data())
def test_dense_pair_screen_matches_projected_classes(data) -> None:
    q = data.draw(st.integers(2, 4))
    hs = [data.draw(random_hierarchy(f"q{j}", max_leaves=6)) for j in range(q)]
    n = data.draw(st.integers(1, 50))
    frame = pl.DataFrame(
        {h.name: data.draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in hs}
    )
    k = data.draw(st.integers(1, 6))
    limit = data.draw(st.sampled_from([0.0, 0.2]))
    table = get_engine("polars").count(frame, [h.name for h in hs], hs)
    ev = Evaluator(table, Lattice(table.heights), [KAnonymity(k)], limit, "height")
    for a, b in itertools.combinations(range(q), 2):
        dense = _pair_suppressed(ev, a, b)
        assert dense is not None
        projected = _projected_classes(ev, a, b)
        assert projected is not None
        assert np.array_equal(dense, projected.supp_records)


@given(data=st.data())
def test_pair_tables_from_triples_equal_direct_counts(data) -> None:
    """Pair tables summed out of three-column tables are the pairs' own counts, whichever
    pairs the triples cover (issue 19)."""
    q = data.draw(st.integers(2, 6))
    hs = [data.draw(random_hierarchy(f"q{j}", max_leaves=5)) for j in range(q)]
    n = data.draw(st.integers(1, 60))
    frame = pl.DataFrame(
        {h.name: data.draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in hs}
    )
    table = get_engine("polars").count(frame, [h.name for h in hs], hs)
    ev = Evaluator(table, Lattice(table.heights), [KAnonymity(2)], 0.0, "height")
    weights = pair_projection.float_counts(ev)
    counts = prefilter._PairCounts(ev, weights, triples=data.draw(st.booleans()))
    codes, cards = table.snapshot.codes, [c[0] for c in table.cardinalities]
    pairs = list(itertools.combinations(range(q), 2))
    for a, b in pairs:
        direct = np.bincount(
            codes[a] * cards[b] + codes[b], weights=weights, minlength=cards[a] * cards[b]
        ).reshape(cards[a], cards[b])
        assert np.array_equal(counts.table(a, b), direct)
    assert counts.passes <= len(pairs)


@settings(max_examples=30, deadline=None)
@given(problem=problems(), cap=st.integers(0, 60))
def test_pairs_left_out_keep_the_searches_exact(problem, cap: int) -> None:
    """A pair whose table would exceed ``PAIR_KEYS`` is left out of the screen (its
    necessary condition and floor dropped, the others kept): Flash and SparseFlash still
    find the exhaustive search's optimum."""
    frame, hs, k, limit, slab = problem
    table = get_engine("polars").count(frame, [h.name for h in hs], hs)

    def search(algorithm: Any, lattice: Lattice) -> Any:
        ev = Evaluator(table, lattice, [KAnonymity(k)], limit, "loss")
        try:
            return algorithm.search(ev)
        except PrivacyUnattainableError:
            return None

    oracle = search(Exhaustive(), Lattice(table.heights))
    with (
        mock.patch.object(prefilter, "PAIR_KEYS", cap),
        mock.patch.object(pair_projection, "PAIR_KEYS", cap),
    ):
        found = [
            search(Flash(), Lattice(table.heights)),
            search(SparseFlash(slab_nodes=slab), _implicit(table.heights)),
        ]
    for result in found:
        if oracle is None:
            assert result is None
            continue
        assert result is not None and result.levels == oracle.levels
        assert math.isclose(result.cost, oracle.cost, rel_tol=1e-9, abs_tol=1e-12)


def test_three_pair_tables_take_one_pass() -> None:
    hs = [Hierarchy([["a", "*"], ["b", "*"]], name=f"q{j}") for j in range(3)]
    rows = list(itertools.product("ab", repeat=3))
    frame = pl.DataFrame({f"q{j}": [r[j] for r in rows] for j in range(3)})
    table = get_engine("polars").count(frame, ["q0", "q1", "q2"], hs)
    ev = Evaluator(table, Lattice(table.heights), [KAnonymity(2)], 0.0, "height")
    counts = prefilter._PairCounts(ev, pair_projection.float_counts(ev))
    tables = [counts.table(a, b) for a, b in itertools.combinations(range(3), 2)]
    assert counts.passes == 1 and all(t.tolist() == [[2.0, 2.0], [2.0, 2.0]] for t in tables)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_compiled_pair_screens_equal_the_dense_products(data) -> None:
    """The size screens of every pair in one compiled call give, pair for pair, the
    figures of the numpy products (k-anonymity with l-diversity's least size beside it;
    rows past a multiple of the kernel's lanes too) (issue 19)."""
    pytest.importorskip("numba")
    from anonkit.models import DistinctLDiversity

    hs, frame = data.draw(random_table())
    q, n = len(hs), frame.height
    frame = frame.with_columns(pl.Series("s", [f"v{i % 3}" for i in range(n)]))
    models: list[Any] = [KAnonymity(data.draw(st.integers(1, 6)))]
    if data.draw(st.booleans()):
        models.append(DistinctLDiversity("s", data.draw(st.integers(2, 7))))
    names = [h.name for h in hs]
    table = get_engine("polars").count_detail(frame, names, hs, [SensitiveSpec("s")])
    ev = Evaluator(table, Lattice(table.heights), models, 0.0, "height")
    pairs = list(itertools.combinations(range(q), 2))
    with mock.patch.object(compiled_screens, "compiled_ready", lambda: True):
        compiled = compiled_screens.compiled_screens(ev, pairs)
    assert sorted(compiled.pairs) == pairs
    passes = np.ones(ev.lattice.size, dtype=bool)
    grid = passes.reshape(tuple(int(h) for h in ev.lattice.heights))
    for a, b in pairs:
        expected = _pair_suppressed(ev, a, b)
        assert np.array_equal(compiled.get((a, b)), expected)
        assert expected is not None
        shape = [1] * q
        shape[a], shape[b] = grid.shape[a], grid.shape[b]
        grid &= (expected <= 1).reshape(shape)
    # the nodes every pair leaves open (at most one record rejected), in one pass
    assert np.array_equal(compiled.passing(ev.lattice, pairs, 1), passes)
    assert compiled.passing(ev.lattice, [*pairs, (0, q)], 1) is None  # not all screened


def test_compiled_pair_screens_wait_for_the_kernels_and_plain_sizes() -> None:
    """Nothing is compiled in a process that does not run compiled kernels, nor for a
    screening model that judges more than a least class size."""
    hs = [Hierarchy([["a", "*"], ["b", "*"]], name=f"q{j}") for j in range(2)]
    frame = pl.DataFrame({"q0": ["a", "b"], "q1": ["a", "a"]})
    table = get_engine("polars").count(frame, ["q0", "q1"], hs)
    ev = Evaluator(table, Lattice(table.heights), [KAnonymity(2)], 0.0, "height")
    with mock.patch.object(compiled_screens, "compiled_ready", lambda: False):
        assert not compiled_screens.compiled_screens(ev, [(0, 1)]).pairs
    ev.screen_models = (*ev.screen_models, mock.Mock())
    with mock.patch.object(compiled_screens, "compiled_ready", lambda: True):
        assert not compiled_screens.compiled_screens(ev, [(0, 1)]).pairs
