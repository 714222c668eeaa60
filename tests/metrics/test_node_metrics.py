"""Tests of anonkit.metrics.node_metrics: one definition per full-domain metric."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import UnknownNameError
from anonkit.metrics.generalization import METRICS
from anonkit.metrics.node_metrics import (
    NODE_METRICS,
    ColumnContext,
    get_node_metric,
)
from strategies import random_hierarchy

AGE = Hierarchy([["1", "1-2", "*"], ["2", "1-2", "*"], ["3", "3", "*"]], name="age")


def test_every_metric_has_one_definition_and_an_oracle() -> None:
    assert list(NODE_METRICS) == list(METRICS)
    for name, metric in NODE_METRICS.items():
        assert metric.name == name
        # additive metrics carry column costs, the others a class cost and a bound rule
        if metric.additive:
            assert metric.class_cost is None and metric.class_bound is None
        else:
            assert metric.class_cost is not None and metric.class_bound is not None
            assert not metric.charges_suppression


def test_flags() -> None:
    additive = {n for n, m in NODE_METRICS.items() if m.additive}
    assert additive == {"height", "relative_distance", "precision", "loss", "nonuniform_entropy"}
    charged = {n for n, m in NODE_METRICS.items() if m.charges_suppression}
    assert charged == {"precision", "loss", "nonuniform_entropy"}


def test_unknown_metric_lists_the_known_names() -> None:
    with pytest.raises(UnknownNameError, match="discernibility"):
        get_node_metric("nope")


def test_precision_column_costs_by_hand() -> None:
    # Q = 2 columns, N = 4 records: level 1 of a height-3 hierarchy is 1/2 of the way up
    ctx = ColumnContext(np.array([1.0, 1.0, 2.0]), n_records=4, n_columns=2)
    costs = get_node_metric("precision").column_costs(AGE, ctx)
    assert costs.level_cost.tolist() == [0.0, 0.25, 0.5]
    assert costs.extra[0].tolist() == [1 / 8] * 3
    assert costs.extra[1].tolist() == [1 / 16] * 2
    assert costs.extra[2].tolist() == [0.0]


def test_class_based_cost_and_bound_by_hand() -> None:
    sizes = np.array([3, 1, 2], dtype=np.int64)
    bad = np.array([False, True, False])
    dm = get_node_metric("discernibility")
    assert dm.class_cost is not None and dm.class_bound is not None
    assert dm.class_cost(sizes, bad, 6, 2) == 9 + 4 + 6
    assert dm.class_bound(sizes, 6, 2, False) == 9 + 4 + 2
    avg = get_node_metric("average_class_size")
    assert avg.class_cost is not None and avg.class_bound is not None
    assert avg.class_cost(sizes, bad, 6, 2) == 6 / (3 * 2)
    assert avg.class_bound(sizes, 6, 2, False) == 6 / (3 * 2)  # 2 big + 0 + suppressed class


@given(random_hierarchy("x"), st.data())
def test_extras_are_non_negative_and_costs_monotone(h: Hierarchy, data: st.DataObject) -> None:
    counts = np.array(
        data.draw(st.lists(st.integers(0, 5), min_size=len(h.leaves), max_size=len(h.leaves))),
        dtype=np.float64,
    )
    n = int(counts.sum()) or 1
    ctx = ColumnContext(counts, n_records=n, n_columns=2)
    for metric in NODE_METRICS.values():
        costs = metric.column_costs(h, ctx)
        assert len(costs.extra) == h.height
        assert all(e.shape == (len(h.labels(lv)),) for lv, e in enumerate(costs.extra))
        assert all((e >= -1e-12).all() for e in costs.extra), metric.name
        assert (np.diff(costs.level_cost) >= -1e-9).all(), metric.name
