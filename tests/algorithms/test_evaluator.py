"""The evaluator's last step, :meth:`Evaluator.node_result`, which the exact path
(:meth:`Evaluator.evaluate`) and the heuristics' quick evaluator both end with."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from test_heuristics import evaluator_for, wide_table
from test_quick_eval import assert_same_verdict

from anonkit.algorithms.lattice import evaluator as evaluator_module
from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.core.lattice import Lattice
from anonkit.core.snapshot import FrequencySnapshot
from anonkit.engines.base import get_engine
from anonkit.models import KAnonymity


@pytest.mark.parametrize(("metric", "options"), [("loss", None), ("precision", None)])
def test_node_result_of_a_nodes_own_verdicts_is_evaluate(metric: str, options) -> None:
    frame, hs = wide_table(300, 6, seed=43)
    ev = evaluator_for(frame, hs, [KAnonymity(3)], 0.05, metric, metric_options=options)
    exact = evaluator_for(frame, hs, [KAnonymity(3)], 0.05, metric, metric_options=options)
    rng = np.random.default_rng(0)
    nodes = [int(i) for i in rng.integers(0, ev.lattice.size, 40)]
    seen = {True: 0, False: 0}
    for node in nodes:
        cls, _, bad = ev.node_classes(node)
        got = ev.node_result(node, cls, bad)
        want = exact.evaluate(node)
        seen[want.anonymous] += 1
        assert got.index == want.index
        assert_same_verdict(got, want)
        assert got.forced_below == 0.0
    assert seen[True] and seen[False]  # both branches (priced, bound only) were compared
    assert not ev.results  # node_result records nothing; evaluate does


def test_node_result_suppresses_the_flagged_classes() -> None:
    frame, hs = wide_table(300, 6, seed=44)
    ev = evaluator_for(frame, hs, [KAnonymity(2)], 0.1)
    top = ev.lattice.size - 1
    cls, _, _ = ev.node_classes(top)
    none = np.zeros(cls.n_classes, dtype=bool)
    kept = ev.node_result(top, cls, none)
    assert (kept.anonymous, kept.suppressed) == (True, 0)
    assert math.isfinite(kept.cost) and math.isfinite(kept.loss)
    every = ev.node_result(top, cls, ~none, forced_below=7.0)
    assert (every.anonymous, every.suppressed, every.forced_below) == (False, 300, 7.0)
    assert every.cost == math.inf and every.loss == math.inf
    assert every.bound == ev.cost_model.bound(cls.levels, cls.counts)


def test_bottom_digits_are_the_bottom_codes_without_a_copy() -> None:
    """Roll-ups from the bottom read each column's codes; the evaluator hands them the
    rows of the codes the bottom was keyed from (its keys' digits) instead of decoding a
    second copy."""
    frame, hs = wide_table(300, 6, seed=7)
    ev = evaluator_for(frame, hs, [KAnonymity(3)], 0.05, "loss")
    bottom = ev._bottom
    assert bottom.keys is not None and bottom.radix is not None
    for j in range(ev.table.width):
        row = ev._bottom_digit(j)
        np.testing.assert_array_equal(row, bottom.radix.digit(bottom.keys, j))
        assert np.shares_memory(row, bottom.codes)
        assert ev._bottom_digit(j) is row


def test_a_large_bottom_is_put_in_key_order(monkeypatch) -> None:
    """A large bottom snapshot out of key order (a streaming count's) is sorted by key
    once, so its roll-ups sort faster; its digits are then decoded from the sorted keys,
    column by column, and no node's evaluation changes. One in order already keeps its
    codes."""
    frame, hs = wide_table(300, 6, seed=7)
    table = get_engine("polars").count(frame, [h.name for h in hs], hs)
    snap = table.snapshot
    shuffled = np.random.default_rng(0).permutation(snap.n_classes)
    table = dataclasses.replace(
        table,
        snapshot=FrequencySnapshot(snap.levels, snap.codes[:, shuffled], snap.counts[shuffled]),
    )
    lattice = Lattice(table.heights, max_nodes=None)
    plain = Evaluator(table, lattice, [KAnonymity(3)], 0.05, "loss")
    assert plain._bottom.has_codes
    monkeypatch.setattr(evaluator_module, "_SORTED_BOTTOM_ROWS", 0)
    ev = Evaluator(table, lattice, [KAnonymity(3)], 0.05, "loss")
    bottom = ev._bottom
    assert bottom.keys is not None and bottom.radix is not None
    assert np.all(np.diff(bottom.keys) > 0)
    assert not bottom.has_codes
    assert bottom.n_records == plain._bottom.n_records
    for j in range(ev.table.width):
        np.testing.assert_array_equal(ev._bottom_digit(j), bottom.radix.digit(bottom.keys, j))
    assert not bottom.has_codes  # decoding a column did not decode all of them
    for index in range(0, lattice.size, 7):
        assert ev.evaluate(index) == plain.evaluate(index)
    ordered = evaluator_for(frame, hs, [KAnonymity(3)], 0.05, "loss")  # a sorted count
    assert ordered._bottom.has_codes
