"""The dense pair screen gives the same figures as the projected classes it replaces."""

from __future__ import annotations

import itertools
import math
from typing import Any
from unittest import mock

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sparse_flash import _implicit, problems

from anonkit.algorithms.lattice import Evaluator, Exhaustive, Flash, prefilter
from anonkit.algorithms.lattice.prefilter import _pair_suppressed, _projected_classes
from anonkit.algorithms.lattice.sparse_flash import SparseFlash
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.lattice import Lattice
from anonkit.engines.base import get_engine
from anonkit.exceptions import PrivacyUnattainableError
from anonkit.models import KAnonymity
from strategies import random_hierarchy


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


@settings(max_examples=30, deadline=None)
@given(problem=problems(), cap=st.integers(0, 60))
def test_pairs_left_out_keep_the_searches_exact(problem, cap: int) -> None:
    """A pair whose table would exceed ``_PAIR_KEYS`` is left out of the screen (its
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
    with mock.patch.object(prefilter, "_PAIR_KEYS", cap):
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


@settings(max_examples=40, deadline=None)
@given(problem=problems(), metric=st.sampled_from(["loss", "height", "discernibility"]))
def test_pairs_read_from_the_projected_snapshot_screen_the_same(problem, metric: str) -> None:
    """On large snapshots the pairs without the widest column read the snapshot merged
    over it (:class:`prefilter.PairSources`): the screen's passes and floors are the same
    as from the full snapshot, here with the projection forced on small tables."""
    frame, hs, k, limit, _ = problem
    table = get_engine("polars").count(frame, [h.name for h in hs], hs)
    ev = Evaluator(table, Lattice(table.heights), [KAnonymity(k)], limit, metric)
    full = prefilter.pair_screen(ev)
    with mock.patch.object(prefilter, "_PROJECT_ROWS", 0):
        source = prefilter.PairSources(table.snapshot, [c[0] for c in table.cardinalities])
        projected = prefilter.pair_screen(ev)
    assert np.array_equal(projected.passes, full.passes)
    assert np.allclose(projected.suppression_floor, full.suppression_floor, rtol=1e-12, atol=0)
    if source.dropped >= 0:
        assert source.reduced.n_records == table.snapshot.n_records
        assert source.reduced.n_classes * 2 <= table.snapshot.n_classes


def test_the_projection_merges_the_widest_column_away() -> None:
    leaves = {"a": ["x", "y"], "b": ["u", "v"], "z": [f"{i:03d}" for i in range(40)]}
    rows = 400
    frame = pl.DataFrame(
        {
            "a": [leaves["a"][i % 2] for i in range(rows)],
            "b": [leaves["b"][(i // 2) % 2] for i in range(rows)],
            "z": [leaves["z"][i % 40] for i in range(rows)],
        }
    )
    hs = [Hierarchy([[v, "*"] for v in leaves[c]], name=c) for c in ("a", "b", "z")]
    table = get_engine("polars").count(frame, ["a", "b", "z"], hs)
    with mock.patch.object(prefilter, "_PROJECT_ROWS", 0):
        source = prefilter.PairSources(table.snapshot, [c[0] for c in table.cardinalities])
    assert source.dropped == 2
    assert source(0, 1) is source.reduced and source(0, 2) is source.full
    assert source.reduced.n_classes == 4
    assert sorted(source.reduced.counts.tolist()) == [100, 100, 100, 100]
