"""The level-by-level pair tables give the same figures as the projected classes."""

from __future__ import annotations

import itertools
from typing import Any
from unittest import mock

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.algorithms.lattice import Evaluator, Exhaustive, Flash, pair_projection
from anonkit.algorithms.lattice import evaluator as evaluator_module
from anonkit.algorithms.lattice.pair_projection import PairSources, pair_rejections
from anonkit.algorithms.lattice.prefilter import _projected_classes, _suppression_extra
from anonkit.core import grouping
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.lattice import Lattice
from anonkit.engines.base import SensitiveSpec, get_engine
from anonkit.exceptions import PrivacyUnattainableError
from anonkit.models import DistinctLDiversity, KAnonymity
from anonkit.models.base import CLASS_SIZE
from strategies import random_hierarchy


@st.composite
def evaluators(draw: st.DrawFn) -> Evaluator:
    q = draw(st.integers(2, 5))
    hs = [draw(random_hierarchy(f"q{j}", max_leaves=7)) for j in range(q)]
    n = draw(st.integers(1, 60))
    frame = pl.DataFrame(
        {h.name: draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in hs}
    )
    table = get_engine("polars").count(frame, [h.name for h in hs], hs)
    k = draw(st.integers(1, 6))
    limit = draw(st.sampled_from([0.0, 0.1, 0.3]))
    return Evaluator(table, Lattice(table.heights), [KAnonymity(k)], limit, "loss")


@settings(deadline=None)
@given(ev=evaluators(), keyed=st.booleans())
def test_pair_rejections_match_projected_classes(ev: Evaluator, keyed: bool) -> None:
    """Records rejected and their suppression extra per level combination, for every
    pair, whether the pairs are counted on the leading-column projections or (codes too
    wide for one key) on the snapshot."""
    extra = ev.cost_model.extra
    with mock.patch.object(
        pair_projection.KeyRadix,
        "for_cardinalities",
        wraps=pair_projection.KeyRadix.for_cardinalities if keyed else lambda radices: None,
    ):
        sources = PairSources(ev)
    for a, b in itertools.combinations(range(ev.table.width), 2):
        got = pair_rejections(ev, a, b, extra, sources)
        pc = _projected_classes(ev, a, b)
        assert got is not None and pc is not None
        assert np.array_equal(got.records, pc.supp_records)
        assert got.extra is not None
        want = _suppression_extra(pc, extra, a, b, pc.bad)
        assert np.allclose(got.extra, want, rtol=1e-12, atol=1e-9)
        assert pair_rejections(ev, a, b).extra is None


@given(ev=evaluators())
def test_projections_keep_every_record(ev: Evaluator) -> None:
    """Each leading-column projection holds every record, its value pairs with the same
    counts as the snapshot's."""
    sources = PairSources(ev)
    snap = ev.table.snapshot
    for a, b in itertools.combinations(range(ev.table.width), 2):
        ca, cb, weights = sources(a, b)
        assert weights.sum() == snap.counts.sum()
        span = ev.table.cardinalities[b][0]
        got = np.bincount(ca * span + cb, weights=weights)
        want = np.bincount(snap.codes[a] * span + snap.codes[b], weights=snap.counts)
        size = max(got.size, want.size)
        assert np.array_equal(
            np.pad(got, (0, size - got.size)), np.pad(want, (0, size - want.size))
        )


def test_a_pair_over_the_cap_is_left_out(adult_frame, adult_hierarchies) -> None:
    qi = list(adult_frame.columns)[:3]
    hierarchies = [Hierarchy.from_csv(adult_hierarchies[c], name=c) for c in qi]
    table = get_engine("polars").count(adult_frame, qi, hierarchies)
    ev = Evaluator(table, Lattice(table.heights), [KAnonymity(5)], 0.04, "loss")
    assert pair_rejections(ev, 0, 1) is not None
    with mock.patch.object(pair_projection, "PAIR_KEYS", 10):
        assert pair_rejections(ev, 0, 1) is None


@st.composite
def detail_problems(draw: st.DrawFn) -> tuple[pl.DataFrame, list[Any], list[Any], float]:
    q = draw(st.integers(2, 4))
    hs = [draw(random_hierarchy(f"q{j}", max_leaves=6)) for j in range(q)]
    n = draw(st.integers(1, 50))
    columns = {
        h.name: draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in hs
    }
    columns["s"] = draw(st.lists(st.sampled_from("abcd"), min_size=n, max_size=n))
    k = draw(st.integers(1, 4))
    models = [KAnonymity(k)]
    if draw(st.booleans()):
        models.append(DistinctLDiversity("s", draw(st.integers(1, 3))))
    return pl.DataFrame(columns), hs, models, draw(st.sampled_from([0.0, 0.1, 0.3]))


def _count(problem: Any, engine: str) -> Any:
    """The problem's table counted by ``engine``, with the sensitive column's detail when
    a model reads it."""
    frame, hs, models, _ = problem
    names = [h.name for h in hs]
    if any(m.requires - {CLASS_SIZE} for m in models):
        return get_engine(engine).count_detail(frame, names, hs, [SensitiveSpec("s")])
    return get_engine(engine).count(frame, names, hs)


def _found(problem: Any, table: Any, algorithm: Any) -> Any:
    """Node, suppression and cost ``algorithm`` finds on ``table`` (None: no private one)."""
    _, _, models, limit = problem
    ev = Evaluator(table, Lattice(table.heights), models, limit, "loss")
    try:
        found = algorithm.search(ev)
    except PrivacyUnattainableError:
        return None
    return found.levels, found.suppressed, round(found.cost, 9)


@settings(max_examples=30, deadline=None)
@given(problem=detail_problems())
def test_the_large_table_paths_find_the_same_optimum(problem) -> None:
    """On a streaming count (rows out of key order), with every grouping taking the path
    of large inputs (hashing or sorting) and the bottom put in key order, Flash finds the
    same node, cost and suppression as the default paths, and as exhaustive search."""
    oracle = _found(problem, _count(problem, "polars"), Exhaustive())
    with (
        mock.patch.object(grouping, "_HASHED_ROWS", 0),
        mock.patch.object(evaluator_module, "_SORTED_BOTTOM_ROWS", 0),
    ):
        large = _found(problem, _count(problem, "streaming"), Flash())
    assert large == oracle


@settings(max_examples=30, deadline=None)
@given(problem=detail_problems(), compiled=st.booleans())
def test_the_dense_roll_up_paths_find_the_same_optimum(problem, compiled: bool) -> None:
    """With every roll-up large enough to count into a dense table (from the bottom's
    decoded codes, or from rewritten keys), or to run the compiled kernels, Flash finds
    the exhaustive search's node, cost and suppression (issue 19)."""
    table = _count(problem, "polars")
    oracle = _found(problem, table, Exhaustive())
    with (
        mock.patch.object(grouping, "COMPILED_ROWS", 1),
        mock.patch.object(grouping, "compiled_ready", lambda: compiled),
    ):
        assert _found(problem, table, Flash()) == oracle
