"""k-OPTIMIZE against a brute force over every set of interval starts on tiny tables."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit.algorithms.koptimize import k_optimize, node_cost
from anonkit.exceptions import ParameterError, PrivacyUnattainableError


def _brute_force(codes, weights, sizes, k, metric, labels, limit):
    """Every combination of interval starts, priced independently of the search."""
    n = int(np.sum(weights))
    per_column = [
        [(0, *subset) for r in range(s) for subset in itertools.combinations(range(1, s), r)]
        for s in sizes
    ]
    best = np.inf
    for starts in itertools.product(*per_column):
        # plain Python: each row's interval per column, grouped
        groups: dict[tuple[int, ...], list[int]] = {}
        for i, row in enumerate(codes):
            key = tuple(sum(1 for s in st if s <= v) for v, st in zip(row, starts, strict=True))
            groups.setdefault(key, []).append(i)
        cost, suppressed = 0.0, 0
        for rows in groups.values():
            size = sum(weights[i] for i in rows)
            if size < k:
                suppressed += size
                cost += size * (n if metric == "discernibility" else 1)
            elif metric == "discernibility":
                cost += size * size
            else:
                count: dict[int, int] = {}
                for i in rows:
                    count[labels[i]] = count.get(labels[i], 0) + weights[i]
                cost += size - max(count.values())
        if suppressed <= limit:
            best = min(best, cost)
        assert node_cost(codes, weights, sizes, starts, k, metric, labels) == (cost, suppressed)
    return best


@st.composite
def tables(draw):
    d = draw(st.integers(1, 3))
    sizes = [draw(st.integers(1, 4)) for _ in range(d)]
    n_rows = draw(st.integers(1, 9))
    rows = {
        tuple(draw(st.integers(0, s - 1)) for s in sizes) + (draw(st.integers(0, 1)),)
        for _ in range(n_rows)
    }
    rows_list = sorted(rows)
    codes = np.array([r[:-1] for r in rows_list], dtype=np.int64).reshape(len(rows_list), d)
    labels = np.array([r[-1] for r in rows_list], dtype=np.int64)
    weights = np.array([draw(st.integers(1, 3)) for _ in rows_list], dtype=np.int64)
    k = draw(st.integers(1, 5))
    metric = draw(st.sampled_from(["discernibility", "classification"]))
    limit = draw(st.sampled_from([0, 2, None]))
    return codes, weights, sizes, k, metric, labels, limit


@given(problem=tables())
def test_k_optimize_finds_the_brute_force_optimum(problem) -> None:
    codes, weights, sizes, k, metric, labels, limit = problem
    total = int(weights.sum())
    expected = _brute_force(
        codes, weights, sizes, k, metric, labels, total if limit is None else limit
    )
    kwargs = dict(metric=metric, labels=labels, max_suppressed=limit)
    if expected == np.inf:
        with pytest.raises(PrivacyUnattainableError):
            k_optimize(codes, weights, sizes, k, **kwargs)
        return
    found = k_optimize(codes, weights, sizes, k, **kwargs)
    assert found.optimal
    assert found.cost == expected
    # the anonymization it returns costs what it says
    assert node_cost(codes, weights, sizes, found.starts, k, metric, labels) == (
        found.cost,
        found.suppressed,
    )
    assert limit is None or found.suppressed <= limit
    assert all(st[0] == 0 for st in found.starts)


def test_pruning_visits_far_fewer_nodes_than_the_space() -> None:
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 8, size=(400, 3))
    uniq, weights = np.unique(codes, axis=0, return_counts=True)
    found = k_optimize(uniq, weights, [8, 8, 8], 10)
    assert found.optimal
    assert found.nodes < 2**21 / 100


def test_time_limit_returns_the_best_so_far() -> None:
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 30, size=(3000, 4))
    uniq, weights = np.unique(codes, axis=0, return_counts=True)
    found = k_optimize(uniq, weights, [30] * 4, 5, time_limit=0.05)
    assert not found.optimal and np.isfinite(found.cost)


def test_parameters_are_checked() -> None:
    with pytest.raises(ParameterError, match="'metric'"):
        k_optimize([[0]], [1], [1], 1, metric="loss")
    with pytest.raises(ParameterError, match="'labels'"):
        k_optimize([[0]], [1], [1], 1, metric="classification")
    with pytest.raises(ParameterError, match="'k'"):
        k_optimize([[0]], [1], [1], 0)
