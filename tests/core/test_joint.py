"""Codes joined over groups of columns give the slots of counting column by column."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from anonkit.core.joint import JOINT_CELLS, JointDigits


@st.composite
def joined_tables(draw):
    """Columns of random sizes and codes, each with a random map to a coarser level, and a
    target level (0 or 1) per column."""
    q = draw(st.integers(1, 7))
    cards = [draw(st.integers(1, 300)) for _ in range(q)]
    n = draw(st.integers(1, 50))
    codes = [
        np.asarray(draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n))) for c in cards
    ]
    maps = []
    for c in cards:
        labels = draw(st.integers(1, c))
        up = np.sort(np.asarray(draw(st.lists(st.integers(0, labels - 1), min_size=c, max_size=c))))
        maps.append([[np.arange(c, dtype=np.int64), up.astype(np.int64)]])
    target = [draw(st.integers(0, 1)) for _ in range(q)]
    return cards, codes, maps, target


@given(joined_tables())
def test_joined_slots_equal_column_by_column(table) -> None:
    cards, codes, maps, target = table
    joint = JointDigits(codes.__getitem__, cards, (0,) * len(cards))
    # every column in one group; each group small, or a single column
    assert sorted(j for g in joint.groups for j in g) == list(range(len(cards)))
    for g in joint.groups:
        assert len(g) == 1 or math.prod(cards[j] for j in g) <= JOINT_CELLS
    labels = [int(maps[j][0][t].max()) + 1 for j, t in enumerate(target)]
    strides = [math.prod(labels[j + 1 :]) for j in range(len(labels))]
    expected = sum(maps[j][0][t][codes[j]] * strides[j] for j, t in enumerate(target))
    assert np.array_equal(joint.slots(target, maps, strides), expected)
