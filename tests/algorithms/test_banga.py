"""BangA's phases: the BANG-file grid and the density-ordered merging of its blocks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit.algorithms.banga import bang_blocks, merge_blocks
from anonkit.algorithms.mondrian.attributes import Axis, NumericQI
from anonkit.exceptions import ParameterError


def _axes(columns: list[list[int]]) -> list[Axis]:
    return [Axis.of(NumericQI(f"c{j}", np.asarray(c, dtype=float))) for j, c in enumerate(columns)]


@st.composite
def tables(draw):
    d = draw(st.integers(1, 3))
    n = draw(st.integers(1, 60))
    columns = [draw(st.lists(st.integers(0, 9), min_size=n, max_size=n)) for _ in range(d)]
    return columns, draw(st.integers(1, 6))


@given(problem=tables(), capacity=st.integers(1, 8))
def test_blocks_are_disjoint_regions_that_hold_their_records(problem, capacity: int) -> None:
    columns, _ = problem
    axes = _axes(columns)
    blocks = bang_blocks(axes, capacity)
    ranks = np.stack([a.ranks for a in axes], axis=1)
    low, high = blocks.region_low, blocks.region_high
    # every record lies in its block's region
    assert (ranks >= low[blocks.block_of]).all() and (ranks <= high[blocks.block_of]).all()
    # regions do not overlap (each pair is separated on some dimension)
    for i in range(blocks.n_blocks):
        for j in range(i + 1, blocks.n_blocks):
            assert ((high[i] < low[j]) | (high[j] < low[i])).any()
    # a block over capacity holds a single point
    for b in range(blocks.n_blocks):
        rows = ranks[blocks.block_of == b]
        assert rows.shape[0] >= 1
        if rows.shape[0] > capacity:
            assert (rows == rows[0]).all()


@given(problem=tables())
def test_clusters_hold_at_least_k_records_and_unions_of_blocks(problem) -> None:
    columns, k = problem
    axes = _axes(columns)
    n = len(columns[0])
    if n < k:
        with pytest.raises(ParameterError, match="'k'"):
            merge_blocks(axes, bang_blocks(axes, 2 * k - 1), k)
        return
    blocks = bang_blocks(axes, 2 * k - 1)
    cluster_of, penalty = merge_blocks(axes, blocks, k)
    sizes = np.bincount(cluster_of)
    assert (sizes >= k).all()
    # a block is never split between clusters
    for b in range(blocks.n_blocks):
        assert np.unique(cluster_of[blocks.block_of == b]).size == 1
    # the penalty is the clusters' size times summed normalized widths
    ranks = np.stack([a.ranks for a in axes], axis=1)
    expected = 0.0
    for c in range(sizes.size):
        box = ranks[cluster_of == c]
        widths = sum(
            float(a.width(np.array([box[:, j].min()]), np.array([box[:, j].max()]))[0])
            for j, a in enumerate(axes)
        )
        expected += box.shape[0] * widths
    assert penalty == pytest.approx(expected)


def test_dense_blocks_absorb_their_sparse_neighbours_not_far_ones() -> None:
    # two tight groups far apart and a lone record next to each: each lone record joins
    # its neighbour group
    a = [0, 1, 1, 2, 50, 51, 51, 52]
    axes = _axes([a])
    cluster_of, _ = merge_blocks(axes, bang_blocks(axes, 3), 3)
    assert len(set(cluster_of[:4].tolist())) == 1 and len(set(cluster_of[4:].tolist())) == 1
    assert cluster_of[0] != cluster_of[4]


def test_capacity_is_checked() -> None:
    with pytest.raises(ParameterError, match="'capacity'"):
        bang_blocks(_axes([[1, 2]]), 0)
