"""The heuristics' quick evaluator: the evaluator's verdicts and costs, from hashed roll-ups.

Every node's result is compared with :meth:`Evaluator.evaluate` (the exact path), over
random walks and random jumps, for every node metric; and a search whose hashed keys all
collide still returns only a node the evaluator found private.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from test_heuristics import check_k_anonymous, evaluator_for, wide_table

import anonkit.algorithms.lattice.anytime as anytime_module
from anonkit.algorithms.lattice import Evaluator
from anonkit.algorithms.lattice.lightning import Lightning
from anonkit.algorithms.lattice.quick_eval import QuickEvaluator, load_kernel
from anonkit.core.lattice import Lattice
from anonkit.engines.base import get_engine
from anonkit.engines.counting import SensitiveSpec
from anonkit.models import DistinctLDiversity, KAnonymity

pytestmark = pytest.mark.skipif(load_kernel() is None, reason="numba unavailable")

METRICS = [
    ("loss", None),
    ("loss", {"aggregate": "geometric"}),
    ("precision", None),
    ("discernibility", None),
    ("average_class_size", None),
    ("nonuniform_entropy", None),
    ("height", None),
]


def assert_same_verdict(got, want) -> None:
    """Two evaluations of one node agree: levels, verdict, suppression, classes, and the
    cost, bound and loss up to float rounding."""
    assert (got.levels, got.anonymous, got.suppressed, got.n_classes) == (
        want.levels,
        want.anonymous,
        want.suppressed,
        want.n_classes,
    )
    assert got.cost == pytest.approx(want.cost, rel=1e-9, abs=1e-12)
    assert got.bound == pytest.approx(want.bound, rel=1e-9, abs=1e-12)
    assert got.loss == pytest.approx(want.loss, rel=1e-9, abs=1e-12)


def _walk(lat, rng, steps: int) -> list[int]:
    """Nodes of a random walk (one column up or down a level), with random jumps."""
    cur = [0] * lat.width
    out = []
    for _ in range(steps):
        if rng.random() < 0.1:
            cur = [int(rng.integers(0, h)) for h in lat.heights]
        else:
            j = int(rng.integers(0, lat.width))
            cur[j] = min(max(cur[j] + int(rng.choice([-1, 1])), 0), lat.heights[j] - 1)
        out.append(lat.index(cur))
    return out


@pytest.mark.parametrize(("metric", "options"), METRICS)
@pytest.mark.parametrize("case", range(3))
def test_same_results_as_the_evaluator(metric: str, options, case: int) -> None:
    frame, hs = wide_table(300 + 100 * case, 6 + 4 * case, seed=30 + case)
    k, limit = [2, 5, 3][case], [0.0, 0.05, 0.2][case]
    exact = evaluator_for(frame, hs, [KAnonymity(k)], limit, metric, metric_options=options)
    ev = evaluator_for(frame, hs, [KAnonymity(k)], limit, metric, metric_options=options)
    assert QuickEvaluator.applies(ev)
    # a small cache makes the walk evict and roll up from the bottom rows often
    quick = QuickEvaluator(ev, seed=case, cache_rows=2000)
    rng = np.random.default_rng(case)
    for node in _walk(ev.lattice, rng, 100):
        got = quick.evaluate(node, ev.lattice.node(node))
        want = exact.evaluate(node)
        assert_same_verdict(got, want)
    assert not ev.results  # the quick evaluator never wrote into the evaluator's results


def test_codes_through_representatives() -> None:
    """A hashed snapshot's codes are those of the evaluator's snapshot (as sets of rows)."""
    frame, hs = wide_table(200, 5, seed=40)
    ev = evaluator_for(frame, hs, [KAnonymity(2)], 0.1)
    quick = QuickEvaluator(ev)
    for node in (0, 17, ev.lattice.size // 3, ev.lattice.size - 1):
        levels = ev.lattice.node(node)
        got = quick.snapshot(node, levels)
        want = ev.snapshot(node)
        rows_got = sorted(zip(*got.codes.tolist(), got.counts.tolist(), strict=True))
        rows_want = sorted(zip(*want.codes.tolist(), want.counts.tolist(), strict=True))
        assert rows_got == rows_want


def test_not_for_sensitive_models() -> None:
    frame, hs = wide_table(200, 4, seed=41)
    rng = np.random.default_rng(0)
    frame = frame.with_columns(pl.Series("s", [str(v) for v in rng.integers(0, 3, 200)]))
    table = get_engine("polars").count_detail(
        frame, [h.name for h in hs], hs, sensitive=[SensitiveSpec("s")]
    )
    ev = Evaluator(table, Lattice(table.heights), [DistinctLDiversity("s", 2)], 0.1, "loss")
    assert not QuickEvaluator.applies(ev)


def test_collisions_never_reach_the_release(monkeypatch) -> None:
    """With every hashed key equal (all classes merge into one), every node looks private
    to the search; the release is still one the evaluator itself found private."""

    class Colliding(QuickEvaluator):
        def __init__(self, evaluator, **kw) -> None:
            super().__init__(evaluator, **kw)
            self.contrib[:] = 0
            self.bottom.hashes[:] = 0
            self._view_hashes = self.bottom.hashes

    monkeypatch.setattr(anytime_module, "QuickEvaluator", Colliding)
    frame, hs = wide_table(400, 8, seed=42)
    ev = evaluator_for(frame, hs, [KAnonymity(5)], 0.02)
    res = Lightning(time_limit=None, max_nodes=40, seed=0).search(ev)
    assert ev.results[res.node].anonymous
    assert check_k_anonymous(frame, hs, res.levels, 5, 0.02) == res.suppressed
