"""Property tests of the full-domain algorithms on random small tables.

Exhaustive is the oracle. Releases are checked by independent plain-Python code.
"""

from __future__ import annotations

import math
from collections import Counter

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit import anonymize
from anonkit.algorithms.lattice import (
    LATTICE_ALGORITHMS,
    Datafly,
    Evaluator,
    Exhaustive,
    Flash,
    Incognito,
    Samarati,
)
from anonkit.algorithms.lattice.search import rank
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.lattice import Lattice
from anonkit.engines.base import get_engine
from anonkit.metrics.generalization import METRICS
from anonkit.models import KAnonymity
from strategies import random_hierarchy

ALGORITHMS = sorted(LATTICE_ALGORITHMS)


@st.composite
def problems(draw):
    q = draw(st.integers(2, 3))
    hs = [draw(random_hierarchy(f"q{j}")) for j in range(q)]
    n = draw(st.integers(1, 40))
    columns = {
        h.name: draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in hs
    }
    columns["payload"] = list(range(n))  # an insensitive column, kept as is
    frame = pl.DataFrame(columns)
    k = draw(st.integers(1, min(5, n)))
    limit = draw(st.sampled_from([0.0, 0.1, 0.3]))
    metric = draw(st.sampled_from(sorted(METRICS)))
    return frame, hs, k, limit, metric


def _qi(hs) -> list[str]:
    return [h.name for h in hs]


def _check_release(frame: pl.DataFrame, hs, k: int, limit: float, res) -> None:
    qi = _qi(hs)
    rel = res.release
    assert isinstance(rel, pl.DataFrame)
    assert rel.height == frame.height
    assert rel.columns == frame.columns
    assert rel["payload"].to_list() == frame["payload"].to_list()
    levels = [res.transformation[c] for c in qi]
    original = list(zip(*(frame[c].to_list() for c in qi), strict=True))
    released = list(zip(*(rel[c].to_list() for c in qi), strict=True))
    all_star = [all(v == "*" for v in row) for row in released]
    # (a) k-anonymity, by a plain group-by that ignores suppressed (all-*) rows
    sizes = Counter(row for row, star in zip(released, all_star, strict=True) if not star)
    assert all(size >= k for size in sizes.values()), sizes
    # ... and the same with polars
    kept = rel.filter(~pl.all_horizontal([pl.col(c) == "*" for c in qi]))
    if kept.height:
        assert kept.group_by(qi).len()["len"].min() >= k
    # (b) every released value is its original's ancestor at the chosen level, or * when
    # the record is suppressed
    n_masked = 0
    for orig, new, star in zip(original, released, all_star, strict=True):
        generalized = tuple(
            h.rows[h.leaf_index(v)][lv] for h, v, lv in zip(hs, orig, levels, strict=True)
        )
        for h, v, out in zip(hs, orig, new, strict=True):
            assert out in h.rows[h.leaf_index(v)]
        if new != generalized:
            assert star
            n_masked += 1
    # exactly the records of classes smaller than k are suppressed
    gen_sizes = Counter(
        tuple(h.rows[h.leaf_index(v)][lv] for h, v, lv in zip(hs, orig, levels, strict=True))
        for orig in original
    )
    expected_suppressed = sum(s for s in gen_sizes.values() if s < k)
    assert res.suppressed == expected_suppressed
    assert n_masked <= res.suppressed  # a suppressed row may already read all-*
    # (c) the suppressed share stays within the limit
    assert res.suppressed <= math.floor(limit * frame.height + 1e-9)
    assert res.suppressed_share <= limit + 1e-12
    assert res.classes.min_size >= k or res.classes.n_classes == 0


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@given(problem=problems())
def test_release_is_private_and_truthful(algorithm: str, problem) -> None:
    frame, hs, k, limit, metric = problem
    res = anonymize(
        frame,
        quasi_identifiers=_qi(hs),
        hierarchies={h.name: h for h in hs},
        k=k,
        suppression_limit=limit,
        algorithm=algorithm,
        metric=metric,
        others="keep",
    )
    ran = ("flash", "lightning") if algorithm == "auto" else (algorithm,)  # auto names its pick
    assert res.algorithm in ran and res.metric == metric
    _check_release(frame, hs, k, limit, res)
    # dropping suppressed records leaves exactly the others
    dropped = anonymize(
        frame,
        quasi_identifiers=_qi(hs),
        hierarchies={h.name: h for h in hs},
        k=k,
        suppression_limit=limit,
        algorithm=algorithm,
        metric=metric,
        suppressed="drop",
        others="keep",
    )
    assert dropped.release.height == frame.height - res.suppressed
    assert dict(dropped.transformation) == dict(res.transformation)


@given(problem=problems())
def test_numpy_engine_gives_the_same_release(problem) -> None:
    frame, hs, k, limit, metric = problem
    kwargs = dict(
        quasi_identifiers=_qi(hs),
        hierarchies={h.name: h for h in hs},
        k=k,
        suppression_limit=limit,
        metric=metric,
    )
    a = anonymize(frame, engine="polars", **kwargs, others="keep")
    b = anonymize(frame, engine="numpy", **kwargs, others="keep")
    assert dict(a.transformation) == dict(b.transformation)
    assert a.suppressed == b.suppressed
    assert a.release.equals(b.release)
    for name, value in a.metrics.items():
        assert math.isclose(value, b.metrics[name], rel_tol=1e-9, abs_tol=1e-12), name


def _evaluator(frame, hs, k, limit, metric) -> Evaluator:
    table = get_engine("polars").count(frame, _qi(hs), hs)
    return Evaluator(table, Lattice(table.heights), [KAnonymity(k)], limit, metric)


@given(problem=problems())
def test_optimal_algorithms_agree_with_exhaustive(problem) -> None:
    frame, hs, k, limit, _ = problem
    for metric in sorted(METRICS):
        oracle_ev = _evaluator(frame, hs, k, limit, metric)
        oracle = Exhaustive().search(oracle_ev)
        lat = oracle_ev.lattice
        assert oracle.nodes_evaluated == lat.size
        best = oracle_ev.results[oracle.node]
        anonymous = {i for i, r in oracle_ev.results.items() if r.anonymous}
        assert oracle.node in anonymous
        # equal costs up to float noise tie (search.rank), and fewer suppressed wins
        assert all(
            best.cost <= oracle_ev.results[i].cost + 1e-9 * max(1.0, abs(best.cost))
            for i in anonymous
        )

        flash_ev = _evaluator(frame, hs, k, limit, metric)
        flash = Flash().search(flash_ev)
        assert math.isclose(flash.cost, oracle.cost, rel_tol=1e-9, abs_tol=1e-12), metric
        assert rank(flash_ev.results[flash.node]) == rank(best), metric
        assert flash.levels == oracle.levels
        assert flash.nodes_evaluated <= lat.size

        inc_ev = _evaluator(frame, hs, k, limit, metric)
        inc = Incognito().search(inc_ev)
        assert math.isclose(inc.cost, oracle.cost, rel_tol=1e-9, abs_tol=1e-12), metric
        # the minimal anonymous nodes, by brute force: no anonymous direct predecessor
        minimal = sorted(
            lat.node(i) for i in anonymous if not any(p in anonymous for p in lat.predecessors(i))
        )
        assert list(inc.minimal) == minimal

        sam_ev = _evaluator(frame, hs, k, limit, metric)
        sam = Samarati().search(sam_ev)
        min_height = min(int(lat.levels[i]) for i in anonymous)
        assert sum(sam.levels) == min_height
        assert sam.node in anonymous
        lowest = [oracle_ev.results[i].cost for i in anonymous if lat.levels[i] == min_height]
        assert math.isclose(sam.cost, min(lowest), rel_tol=1e-9, abs_tol=1e-12)

        dat = Datafly().search(_evaluator(frame, hs, k, limit, metric))
        assert dat.node in anonymous
        assert oracle_ev.results[dat.node].suppressed == dat.suppressed


@given(problem=problems(), cache_rows=st.integers(1, 20))
def test_small_snapshot_cache_gives_the_same_results(problem, cache_rows: int) -> None:
    """Roll-ups from whatever finer snapshot is cached give the same classes and costs."""
    frame, hs, k, limit, metric = problem
    table = get_engine("polars").count(frame, _qi(hs), hs)
    lat = Lattice(table.heights)
    full = Evaluator(table, lat, [KAnonymity(k)], limit, metric)
    tiny = Evaluator(table, lat, [KAnonymity(k)], limit, metric, cache_rows=cache_rows)
    for i in list(range(lat.size))[::-1] + list(range(lat.size)):
        a, b = full.evaluate(i), tiny.evaluate(i)
        assert (a.anonymous, a.suppressed) == (b.anonymous, b.suppressed)
        assert a.n_classes == b.n_classes
        assert math.isclose(a.cost, b.cost, rel_tol=1e-9, abs_tol=1e-12) or a.cost == b.cost
    small = Evaluator(table, lat, [KAnonymity(k)], limit, metric, cache_rows=cache_rows)
    found = Flash().search(small)
    assert math.isclose(found.cost, Exhaustive().search(full).cost, rel_tol=1e-9, abs_tol=1e-12)


def test_incognito_minimal_in_api() -> None:
    h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name="x")
    g = Hierarchy([["m", "*"], ["f", "*"]], name="y")
    frame = pl.DataFrame({"x": ["a", "b", "c", "c"], "y": ["m", "m", "f", "f"]})
    res = anonymize(
        frame,
        quasi_identifiers=["x", "y"],
        hierarchies={"x": h, "y": g},
        k=2,
        algorithm="incognito",
        others="keep",
    )
    assert [dict(m) for m in res.minimal_transformations] == [{"x": 1, "y": 0}]
    assert dict(res.transformation) == {"x": 1, "y": 0}


def test_engines_agree_on_boolean_columns() -> None:
    h = Hierarchy([["True", "*"], ["False", "*"]], name="b")
    frame = pl.DataFrame({"b": [True, False, True, False], "c": ["x", "x", "y", "y"]})
    c = Hierarchy([["x", "*"], ["y", "*"]], name="c")
    kwargs = dict(quasi_identifiers=["b", "c"], hierarchies={"b": h, "c": c}, k=1)
    a = anonymize(frame, engine="numpy", **kwargs, others="keep")
    b = anonymize(frame, engine="polars", **kwargs, others="keep")
    assert a.release.equals(b.release)


def test_engines_agree_on_mixed_float_columns() -> None:
    h = Hierarchy([["2", "*"], ["2.0", "*"], ["2.5", "*"]], name="f")
    frame = pl.DataFrame({"f": [2.0, 2.5, 2.0, 2.5]})
    kwargs = dict(quasi_identifiers=["f"], hierarchies={"f": h}, k=1)
    a = anonymize(frame, engine="numpy", **kwargs, others="keep")
    b = anonymize(frame, engine="polars", **kwargs, others="keep")
    assert a.release.equals(b.release)
