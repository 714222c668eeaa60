"""The anytime heuristics (Lightning, genetic) and implicit lattices.

Every release is checked by plain Python over the records (generalize each record with the
hierarchy rows, count classes), never through the evaluator that chose it.
"""

from __future__ import annotations

import math
import time
from collections import Counter

import numpy as np
import polars as pl
import pytest

import anonkit.core.lattice as lattice_module
from anonkit import anonymize
from anonkit.algorithms.lattice import LATTICE_ALGORITHMS, Evaluator, Exhaustive, anytime
from anonkit.algorithms.lattice.genetic import Genetic
from anonkit.algorithms.lattice.lightning import Lightning
from anonkit.algorithms.lattice.quick_eval import QuickEvaluator
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.lattice import Lattice
from anonkit.engines.base import get_engine
from anonkit.exceptions import ParameterError, PrivacyUnattainableError
from anonkit.models import DistinctLDiversity, EqualDistanceTCloseness, KAnonymity

HEURISTICS = [Lightning, Genetic]


def _hierarchy(name: str, n_values: int) -> Hierarchy:
    """Leaves ``0..n-1``, then pairs, quadruples, ... up to ``*``."""
    rows = []
    for v in range(n_values):
        row, width = [str(v)], 2
        while width < n_values:
            row.append(f"g{width}_{v // width}")
            width *= 2
        row.append("*")
        rows.append(row)
    return Hierarchy(rows, name=name)


def wide_table(n_rows: int, width: int, seed: int = 0) -> tuple[pl.DataFrame, list[Hierarchy]]:
    """A table of correlated integer columns (a latent group drives every column)."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, 6, n_rows)
    columns, hs = {}, []
    for j in range(width):
        n_values = int(rng.choice([4, 8, 16]))
        noise = rng.integers(0, n_values, n_rows)
        values = np.where(rng.random(n_rows) < 0.6, (groups * 3 + j) % n_values, noise)
        name = f"c{j}"
        columns[name] = [str(v) for v in values]
        hs.append(_hierarchy(name, n_values))
    return pl.DataFrame(columns), hs


def evaluator_for(frame, hs, models, limit, metric="loss", **kw) -> Evaluator:
    table = get_engine("polars").count(frame, [h.name for h in hs], hs)
    return Evaluator(table, Lattice(table.heights, max_nodes=None), models, limit, metric, **kw)


def evaluation_clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Run the anytime searches on a clock that moves only while a node is evaluated
    (10 to 22 ms a node, in a cycle); returns the clock's one-element reading."""
    now = [0.0]
    durations = iter(0.01 + 0.002 * (i % 7) for i in range(10**6))

    def timed(evaluate):
        def wrapper(self, *args):
            res = evaluate(self, *args)
            now[0] += next(durations)
            return res

        return wrapper

    monkeypatch.setattr(anytime, "_clock", lambda: now[0])
    monkeypatch.setattr(Evaluator, "evaluate", timed(Evaluator.evaluate))
    monkeypatch.setattr(QuickEvaluator, "evaluate", timed(QuickEvaluator.evaluate))
    return now


def check_k_anonymous(frame: pl.DataFrame, hs, levels, k: int, limit: float) -> int:
    """Plain-Python check: classes of fewer than k records are suppressed, within the
    limit; returns the records suppressed."""
    rows = list(zip(*(frame[h.name].to_list() for h in hs), strict=True))
    released = [
        tuple(h.rows[h.leaf_index(v)][lv] for h, v, lv in zip(hs, row, levels, strict=True))
        for row in rows
    ]
    sizes = Counter(released)
    suppressed = sum(s for s in sizes.values() if s < k)
    assert suppressed <= math.floor(limit * len(rows) + 1e-9)
    return suppressed


@pytest.fixture(scope="module")
def medium():
    return wide_table(400, 10, seed=1)


@pytest.fixture(scope="module")
def wide():
    return wide_table(3000, 30, seed=2)


@pytest.mark.parametrize("cls", HEURISTICS)
def test_release_is_private(cls, medium) -> None:
    frame, hs = medium
    ev = evaluator_for(frame, hs, [KAnonymity(3)], 0.05)
    res = cls(time_limit=None, max_nodes=150, seed=1).search(ev)
    assert check_k_anonymous(frame, hs, res.levels, 3, 0.05) == res.suppressed
    assert not res.optimal or cls is Lightning
    assert res.stopped in ("finished", "max_nodes")


@pytest.mark.parametrize("cls", HEURISTICS)
def test_implicit_lattice(cls, wide) -> None:
    frame, hs = wide
    ev = evaluator_for(frame, hs, [KAnonymity(5)], 0.02)
    assert not ev.lattice.explicit
    res = cls(time_limit=None, max_nodes=60, seed=0).search(ev)
    assert res.nodes_evaluated <= 60 and res.stopped == "max_nodes"
    assert check_k_anonymous(frame, hs, res.levels, 5, 0.02) == res.suppressed
    assert not res.optimal
    # the convergence record: times rise, costs fall, the last is the result's
    times = [t for t, _ in res.convergence]
    costs = [c for _, c in res.convergence]
    assert times == sorted(times) and costs == sorted(costs, reverse=True)
    assert costs[-1] == pytest.approx(res.cost)


@pytest.mark.parametrize("cls", HEURISTICS)
def test_time_limit_keeps_back_the_last_evaluation_and_the_check(cls, wide, monkeypatch) -> None:
    """On a clock that moves only while nodes are evaluated (their durations vary, none
    far beyond the others), the search and its final check end within the limit."""
    frame, hs = wide
    now = evaluation_clock(monkeypatch)
    ev = evaluator_for(frame, hs, [KAnonymity(5)], 0.02)
    search = cls(time_limit=0.8, seed=0)
    res = search.search(ev)
    assert res.stopped == "time_limit"
    assert 0.7 < now[0] <= 0.8
    assert search.progress_total == 800 and search.progress_done() == 800  # ms
    assert search.best_cost == res.cost


@pytest.mark.parametrize("cls", HEURISTICS)
def test_time_limit_on_the_wall_clock(cls, wide) -> None:
    """The same on the real clock, with room for a busy 2-core runner (one evaluation
    delayed by the machine is not the search overrunning; the test above checks the rule)."""
    frame, hs = wide
    ev = evaluator_for(frame, hs, [KAnonymity(5)], 0.02)
    search = cls(time_limit=0.8, seed=0)
    start = time.perf_counter()
    res = search.search(ev)
    elapsed = time.perf_counter() - start
    assert res.stopped == "time_limit"
    assert elapsed <= 0.8 * 1.5
    assert search.best_cost == res.cost


@pytest.mark.parametrize("cls", HEURISTICS)
def test_seed_reproducible(cls, wide) -> None:
    frame, hs = wide
    runs = [
        cls(time_limit=None, max_nodes=50, seed=7).search(
            evaluator_for(frame, hs, [KAnonymity(5)], 0.02)
        )
        for _ in range(2)
    ]
    assert runs[0].levels == runs[1].levels and runs[0].cost == runs[1].cost
    # the same improvements (costs equal up to the float noise of a dot product, whose
    # summation order can follow the arrays' memory alignment)
    assert [c for _, c in runs[0].convergence] == pytest.approx(
        [c for _, c in runs[1].convergence], rel=1e-12
    )


@pytest.mark.parametrize("cls", HEURISTICS)
def test_interrupt_returns_best_so_far(cls, wide) -> None:
    frame, hs = wide
    seen = [0]

    def interrupt_after(limit: int):
        def tick(n: int) -> None:
            seen[0] += n
            if seen[0] >= limit:
                raise KeyboardInterrupt

        return tick

    ev = evaluator_for(frame, hs, [KAnonymity(5)], 0.02, on_evaluate=interrupt_after(40))
    res = cls(time_limit=None, seed=0).search(ev)
    assert res.stopped == "interrupted"
    assert check_k_anonymous(frame, hs, res.levels, 5, 0.02) == res.suppressed
    # nothing private found yet: the interrupt goes through
    seen[0] = 0
    ev = evaluator_for(frame, hs, [KAnonymity(5)], 0.02, on_evaluate=interrupt_after(1))
    with pytest.raises(KeyboardInterrupt):
        cls(time_limit=None, seed=0).search(ev)


@pytest.mark.parametrize("cls", HEURISTICS)
@pytest.mark.parametrize(
    ("option", "value"),
    [("time_limit", 0), ("time_limit", -1.0), ("time_limit", "1"), ("max_nodes", 0)]
    + [("max_nodes", 2.5), ("seed", -1), ("seed", 1.5)],
)
def test_bad_options(cls, option: str, value: object) -> None:
    with pytest.raises(ParameterError, match=option):
        cls(**{option: value})


@pytest.mark.parametrize("cls", HEURISTICS)
@pytest.mark.parametrize("case", range(6))
def test_small_lattices_reach_the_optimum(cls, case: int) -> None:
    frame, hs = wide_table(60 + 20 * case, 4, seed=10 + case)
    k, limit = [2, 3, 5][case % 3], [0.0, 0.1][case % 2]
    metric = ["loss", "discernibility", "precision"][case % 3]
    oracle = Exhaustive().search(evaluator_for(frame, hs, [KAnonymity(k)], limit, metric))
    res = cls(time_limit=20, seed=case).search(
        evaluator_for(frame, hs, [KAnonymity(k)], limit, metric)
    )
    assert res.stopped == "finished"
    assert res.cost == pytest.approx(oracle.cost, rel=1e-9, abs=1e-12)
    if cls is Lightning:
        assert res.optimal  # the closing sweep proves it


def test_no_private_node() -> None:
    frame, hs = wide_table(10, 3, seed=3)
    for cls in HEURISTICS:
        with pytest.raises(PrivacyUnattainableError):
            cls(time_limit=5).search(evaluator_for(frame, hs, [KAnonymity(11)], 0.0))


@pytest.mark.parametrize("algorithm", ["lightning", "genetic"])
@pytest.mark.parametrize("model", ["distinct", "t"])
def test_sensitive_models_with_suppression(algorithm: str, model: str) -> None:
    frame, hs = wide_table(200, 4, seed=4)
    rng = np.random.default_rng(5)
    frame = frame.with_columns(pl.Series("s", [str(v) for v in rng.integers(0, 4, frame.height)]))
    models = (
        [KAnonymity(2), DistinctLDiversity("s", 2)]
        if model == "distinct"
        else [EqualDistanceTCloseness("s", 0.4)]
    )
    res = anonymize(
        frame,
        quasi_identifiers=[h.name for h in hs],
        hierarchies={h.name: h for h in hs},
        privacy=models,
        suppression_limit=0.1,
        algorithm=algorithm,
    )
    assert res.algorithm == algorithm
    assert res.suppressed <= 20
    if model == "distinct":  # plain-Python l-diversity over the released rows
        rel = res.release
        qi = [h.name for h in hs]
        values: dict[tuple[str, ...], set[str]] = {}
        for row in rel.select([*qi, "s"]).iter_rows():
            if not all(v == "*" for v in row[:-1]):
                values.setdefault(row[:-1], set()).add(row[-1])
        assert all(len(v) >= 2 for v in values.values())


def test_registered() -> None:
    assert LATTICE_ALGORITHMS["lightning"] is Lightning
    assert LATTICE_ALGORITHMS["genetic"] is Genetic


def test_implicit_lattice_evaluates_like_explicit(monkeypatch) -> None:
    """Forcing a small lattice to be implicit changes no node's result."""
    frame, hs = wide_table(200, 4, seed=6)
    table = get_engine("polars").count(frame, [h.name for h in hs], hs)
    explicit = Evaluator(table, Lattice(table.heights), [KAnonymity(3)], 0.05, "loss")
    monkeypatch.setattr(lattice_module, "MAX_NODES", 1)
    lat = Lattice(table.heights, max_nodes=None)
    assert not lat.explicit
    with pytest.raises(ParameterError, match="nodes"):
        _ = lat.nodes
    implicit = Evaluator(table, lat, [KAnonymity(3)], 0.05, "loss", cache_rows=300)
    rng = np.random.default_rng(0)
    for i in rng.permutation(lat.size).tolist():
        a, b = explicit.evaluate(i), implicit.evaluate(i)
        assert (a.levels, a.anonymous, a.suppressed, a.n_classes) == (
            b.levels,
            b.anonymous,
            b.suppressed,
            b.n_classes,
        )
        assert a.cost == pytest.approx(b.cost)
        assert explicit.lattice.successors(i) == lat.successors(i)
        assert explicit.lattice.predecessors(i) == lat.predecessors(i)
        assert lat.index(lat.node(i)) == i and lat.height(i) == sum(lat.node(i))


_WIDE50 = """
import resource, sys, time
sys.path.insert(0, {tests!r})
from algorithms.test_heuristics import evaluator_for, wide_table
from anonkit.algorithms.lattice import LATTICE_ALGORITHMS
from anonkit.models import KAnonymity
frame, hs = wide_table(20000, 50, seed=9)
ev = evaluator_for(frame, hs, [KAnonymity(5)], 0.05)
res = LATTICE_ALGORITHMS[{algorithm!r}](time_limit=10, seed=0).search(ev)
print(ev.lattice.size, res.nodes_evaluated, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["lightning", "genetic", "topdown"])
def test_fifty_columns_within_two_gigabytes(algorithm: str) -> None:
    """A 50-column table (lattice beyond 10^20 nodes) runs in a fresh process whose peak
    resident memory stays below 2 GB."""
    import subprocess
    import sys
    from pathlib import Path

    tests = str(Path(__file__).resolve().parent.parent)
    code = _WIDE50.format(tests=tests, algorithm=algorithm)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    ).stdout.split()
    size, nodes, peak_kb = int(out[0]), int(out[1]), int(out[2])
    assert size > 10**20 and nodes > 0
    assert peak_kb * 1024 < 2 * 1024**3, f"peak RSS {peak_kb / 1024:.0f} MB"


def test_auto_runs_flash_on_small_lattices(medium) -> None:
    from anonkit.algorithms.lattice import Auto, choose_search

    frame, hs = wide_table(200, 4, seed=8)
    ev = evaluator_for(frame, hs, [KAnonymity(3)], 0.05)
    assert choose_search(ev) == "flash"
    res = Auto().search(ev)
    oracle = Exhaustive().search(evaluator_for(frame, hs, [KAnonymity(3)], 0.05))
    assert res.algorithm == "flash" and res.optimal
    assert res.cost == pytest.approx(oracle.cost)
    # a budget the exact search cannot be expected to meet: the heuristic runs
    ev = evaluator_for(frame, hs, [KAnonymity(3)], 0.05)
    assert choose_search(ev, max_nodes=2) == "lightning"
    res = Auto(max_nodes=2, time_limit=5).search(ev)
    assert res.algorithm == "lightning" and res.stopped in ("max_nodes", "finished")


def test_auto_runs_lightning_on_implicit_lattices(wide) -> None:
    from anonkit.algorithms.lattice import Auto

    frame, hs = wide
    ev = evaluator_for(frame, hs, [KAnonymity(5)], 0.02)
    search = Auto(time_limit=0.5, seed=1)
    res = search.search(ev)
    assert res.algorithm == "lightning" and not res.optimal
    assert search.progress_total == 500  # ms
    assert check_k_anonymous(frame, hs, res.levels, 5, 0.02) == res.suppressed
    with pytest.raises(ParameterError, match="time_limit"):
        Auto(time_limit=0)


@pytest.mark.parametrize("cls", HEURISTICS)
def test_geometric_aggregate(cls) -> None:
    """With ``loss``'s geometric aggregate the heuristics steer by its exact level order
    and Lightning prunes with its bound: the sweep then proves Flash's optimum."""
    from anonkit.algorithms.lattice import Flash
    from anonkit.algorithms.lattice.anytime import node_bound, price, steering

    frame, hs = wide_table(200, 5, seed=7)
    options = {"aggregate": "geometric"}
    ev = evaluator_for(frame, hs, [KAnonymity(3)], 0.05, metric_options=options)
    prices = steering(ev)
    lat = ev.lattice
    for i in (0, 7, lat.size // 2, lat.size - 1):
        for j in lat.successors(i):
            assert price(prices, lat.node(j)) >= price(prices, lat.node(i))
            assert node_bound(ev, lat.node(j)) >= node_bound(ev, lat.node(i))
    res = cls(time_limit=None, max_nodes=None if cls is Lightning else 300).search(ev)
    check_k_anonymous(frame, hs, res.levels, 3, 0.05)
    flash_ev = evaluator_for(frame, hs, [KAnonymity(3)], 0.05, metric_options=options)
    flash = Flash().search(flash_ev)
    if cls is Lightning:
        assert res.optimal and res.cost == pytest.approx(flash.cost)
    assert res.cost >= flash.cost - 1e-12
