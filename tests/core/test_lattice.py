"""Tests of anonkit.core.lattice."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit.core.lattice import MAX_NODES, Lattice
from anonkit.exceptions import ParameterError

heights_st = st.lists(st.integers(1, 4), min_size=1, max_size=4)


def test_small_example() -> None:
    lat = Lattice([2, 3])
    assert lat.size == 6 and lat.width == 2
    assert [lat.node(i) for i in range(6)] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert lat.bottom == 0 and lat.top == 5
    assert lat.max_height == 3
    assert lat.levels.tolist() == [0, 1, 2, 1, 2, 3]
    assert lat.successors(0) == [3, 1]
    assert sorted(lat.successors(4)) == [5]
    assert lat.successors(5) == []
    assert lat.predecessors(0) == []
    assert sorted(lat.predecessors(4)) == [1, 3]
    assert lat.by_height().tolist() == [0, 1, 3, 2, 4, 5]


@given(heights_st)
def test_index_node_round_trip(heights: list[int]) -> None:
    lat = Lattice(heights)
    assert lat.size == int(np.prod(heights))
    vectors = list(itertools.product(*(range(h) for h in heights)))
    # mixed radix, last column fastest: product order is node order
    for i, vec in enumerate(vectors):
        assert lat.node(i) == vec
        assert lat.index(vec) == i
    assert lat.node(lat.top) == tuple(h - 1 for h in heights)
    assert lat.levels.tolist() == [sum(v) for v in vectors]
    assert lat.max_height == sum(heights) - len(heights)


@given(heights_st, st.data())
def test_successors_predecessors(heights: list[int], data) -> None:
    lat = Lattice(heights)
    i = data.draw(st.integers(0, lat.size - 1))
    vec = lat.node(i)
    expected_up = set()
    expected_down = set()
    for j in range(len(heights)):
        if vec[j] + 1 < heights[j]:
            expected_up.add(vec[:j] + (vec[j] + 1,) + vec[j + 1 :])
        if vec[j] > 0:
            expected_down.add(vec[:j] + (vec[j] - 1,) + vec[j + 1 :])
    assert {lat.node(s) for s in lat.successors(i)} == expected_up
    assert {lat.node(p) for p in lat.predecessors(i)} == expected_down
    assert len(lat.successors(i)) == len(expected_up)
    for s in lat.successors(i):
        assert i in lat.predecessors(s)
        assert lat.levels[s] == lat.levels[i] + 1


@given(heights_st, st.data())
def test_upset_downset(heights: list[int], data) -> None:
    lat = Lattice(heights)
    i = data.draw(st.integers(0, lat.size - 1))
    vec = lat.node(i)
    up, down = lat.upset(i), lat.downset(i)
    assert up.shape == down.shape == (lat.size,)
    for n in range(lat.size):
        other = lat.node(n)
        assert bool(up[n]) == all(o >= v for o, v in zip(other, vec, strict=True))
        assert bool(down[n]) == all(o <= v for o, v in zip(other, vec, strict=True))
    assert up[i] and down[i]
    assert np.flatnonzero(up & down).tolist() == [i]
    assert up[lat.top] and down[lat.bottom]
    assert int(up.sum()) == int(np.prod([h - v for h, v in zip(heights, vec, strict=True)]))
    assert int(down.sum()) == int(np.prod([v + 1 for v in vec]))


@given(heights_st)
def test_by_height_is_sorted_and_stable(heights: list[int]) -> None:
    lat = Lattice(heights)
    order = lat.by_height().tolist()
    assert sorted(order) == list(range(lat.size))
    keys = [(int(lat.levels[i]), i) for i in order]
    assert keys == sorted(keys)


def test_nodes_are_read_only() -> None:
    lat = Lattice([2, 2])
    with pytest.raises(ValueError):
        lat.nodes[0, 0] = 1


def test_invalid_heights() -> None:
    with pytest.raises(ParameterError):
        Lattice([])
    with pytest.raises(ParameterError):
        Lattice([2, 0])
    with pytest.raises(ParameterError, match="nodes"):
        Lattice([10] * 7)  # 10**7 > MAX_NODES
    assert MAX_NODES < 10**7
