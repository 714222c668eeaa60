"""The Hilbert curve, the optimal 1-D grouping, and Hilbert k-anonymization's groups."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit.algorithms.hilbert import (
    bits_for,
    group_costs,
    hilbert_groups,
    hilbert_keys,
    hilbert_order,
    optimal_groups,
)
from anonkit.algorithms.mondrian.attributes import Axis, NumericQI
from anonkit.exceptions import ParameterError


def _grid(d: int, side: int) -> np.ndarray:
    return np.array(list(itertools.product(range(side), repeat=d)), dtype=np.int64)


@pytest.mark.parametrize(("d", "bits"), [(1, 3), (2, 1), (2, 2), (2, 3), (3, 1), (3, 2), (4, 2)])
def test_curve_is_a_bijection_whose_steps_are_unit_moves(d: int, bits: int) -> None:
    points = _grid(d, 1 << bits)
    keys = hilbert_keys(points, bits)
    assert keys.shape == (points.shape[0], 1)
    assert sorted(keys[:, 0].tolist()) == list(range(1 << (d * bits)))
    path = points[np.argsort(keys[:, 0])]
    steps = np.abs(np.diff(path, axis=0))
    assert (steps.sum(axis=1) == 1).all()  # exactly one coordinate, by exactly one
    assert (path[0] == 0).all()  # the curve starts at the origin


@pytest.mark.parametrize(("d", "bits", "side"), [(2, 33, 4), (3, 22, 4), (5, 13, 2)])
def test_keys_over_several_words_order_the_first_subcube_along_the_curve(
    d: int, bits: int, side: int
) -> None:
    # the curve starts at the origin and fills the sub-cube of side 2^m there first
    points = _grid(d, side)
    keys = hilbert_keys(points, bits)
    assert keys.shape[1] == 2
    assert (keys[:, 0] == 0).all()
    assert sorted(keys[:, 1].tolist()) == list(range(points.shape[0]))
    path = points[hilbert_order(points, bits)]
    assert (np.abs(np.diff(path, axis=0)).sum(axis=1) == 1).all()


def test_bits_and_bad_coordinates() -> None:
    assert bits_for([1]) == 1 and bits_for([9, 2]) == 4
    with pytest.raises(ParameterError, match="coords"):
        hilbert_keys([[4, 0]], 2)
    with pytest.raises(ParameterError, match="bits"):
        hilbert_keys([[0, 0]], 0)


def _brute_force(cost: np.ndarray, k: int) -> float:
    n = cost.shape[0]
    best = np.inf

    def walk(start: int, total: float) -> None:
        nonlocal best
        if start == n:
            best = min(best, total)
            return
        for size in range(k, 2 * k):
            if start + size <= n:
                walk(start + size, total + cost[start, size - k])

    walk(0, 0.0)
    return best


@given(
    values=st.lists(st.lists(st.integers(0, 6), min_size=2, max_size=2), min_size=1, max_size=11),
    k=st.integers(1, 4),
)
def test_dp_equals_brute_force_over_every_cut(values: list[list[int]], k: int) -> None:
    ranks = np.array(values, dtype=np.int64)
    if ranks.shape[0] < k:
        return
    widths = [lambda lo, hi: (hi - lo) / 6.0, lambda lo, hi: (hi - lo) / 3.0]
    cost = group_costs(ranks, widths, k)
    # the table itself, against a direct computation
    for j in range(ranks.shape[0]):
        for m in range(k):
            s = k + m
            if j + s > ranks.shape[0]:
                assert cost[j, m] == np.inf
                continue
            box = ranks[j : j + s]
            direct = s * (np.ptp(box[:, 0]) / 6.0 + np.ptp(box[:, 1]) / 3.0)
            assert cost[j, m] == pytest.approx(direct)
    sizes, total = optimal_groups(cost, k)
    assert sizes.sum() == ranks.shape[0]
    assert ((sizes >= k) & (sizes <= 2 * k - 1)).all()
    assert total == pytest.approx(_brute_force(cost, k))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    assert sum(cost[j, s - k] for j, s in zip(starts, sizes, strict=True)) == pytest.approx(total)


def test_groups_have_k_to_2k_minus_1_records_and_neighbours_share_groups() -> None:
    rng = np.random.default_rng(7)
    a = rng.integers(0, 50, 500).astype(float)
    b = rng.integers(0, 20, 500).astype(float)
    axes = [Axis.of(NumericQI("a", a)), Axis.of(NumericQI("b", b))]
    grouping = hilbert_groups(axes, 5)
    sizes = np.bincount(grouping.group_of)
    assert sizes.min() >= 5 and sizes.max() <= 9
    assert 0 <= grouping.gcp <= 1
    seen: list[tuple[int, int]] = []
    grouping2 = hilbert_groups(axes, 5, progress=lambda done, total: seen.append((done, total)))
    assert (grouping2.group_of == grouping.group_of).all()
    assert seen and seen[-1][0] == seen[-1][1]
    # far better than random groups of the same sizes
    random_of = rng.permutation(grouping.group_of)

    def gcp(group_of: np.ndarray) -> float:
        out = 0.0
        for g in range(int(group_of.max()) + 1):
            m = group_of == g
            out += m.sum() * (np.ptp(a[m]) / np.ptp(a) + np.ptp(b[m]) / np.ptp(b))
        return out / (2 * a.size)

    assert gcp(grouping.group_of) == pytest.approx(grouping.gcp)
    assert grouping.gcp < 0.5 * gcp(random_of)


def test_too_few_records_for_k() -> None:
    axes = [Axis.of(NumericQI("a", np.array([1.0, 2.0])))]
    with pytest.raises(ParameterError, match="'k'"):
        hilbert_groups(axes, 3)
