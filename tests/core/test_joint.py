"""Codes joined over groups of columns give the slots of counting column by column."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st

from anonkit.core.joint import JOINT_CELLS, JointDigits
from anonkit.core.snapshot import KeyRadix


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


def _square(maps):
    """The strategy's maps (level 0 to levels 0 and 1) with level 1 to itself, as the
    encoded tables hold them."""
    return [[m[0], [m[0][1], np.arange(int(m[0][1].max()) + 1)]] for m in maps]


@given(joined_tables())
def test_joined_slots_equal_column_by_column(table) -> None:
    cards, codes, maps, target = table
    maps = _square(maps)
    joint = JointDigits(codes.__getitem__, cards, (0,) * len(cards))
    # every column in one group; each group small, or a single column
    assert sorted(j for g in joint.groups for j in g) == list(range(len(cards)))
    for g in joint.groups:
        assert len(g) == 1 or math.prod(cards[j] for j in g) <= JOINT_CELLS
    terms, offsets, outer, strides, labels, space = joint.plan(target, maps)
    slots = joint.slots(terms, offsets, outer)
    assert labels.tolist() == [int(maps[j][t][t].shape[0]) for j, t in enumerate(target)]
    assert space == math.prod(labels.tolist()) and slots.max() < space
    for j, t in enumerate(target):  # each slot names every column's label at the target
        assert np.array_equal(slots // strides[j] % labels[j], maps[j][0][t][codes[j]])
    # a second target keeps the tables of the groups whose levels it shares
    other = [1 - t for t in target]
    joint.plan(other, maps)
    assert np.array_equal(joint.slots(*joint.plan(target, maps)[:3]), slots)


@given(joined_tables(), st.booleans(), st.integers(0, 2**31))
def test_compiled_count_equals_counting_rows(table, weighted, seed) -> None:
    """The compiled count through :meth:`JointDigits.plan` gives, per distinct row of
    target codes, its key and its records (and population records), keys in order; the
    groups' tables kept from an earlier target give the same counts."""
    from anonkit.core._group_kernel import count_joint

    cards, codes, maps, target = table
    maps = _square(maps)
    n = codes[0].shape[0]
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 5, n)
    population = rng.integers(0, 9, n) if weighted else np.zeros(0, dtype=np.int64)
    joint = JointDigits(codes.__getitem__, cards, (0,) * len(cards))
    radix = KeyRadix.for_cardinalities(cards)
    assume(radix is not None)
    shifts = np.asarray(radix.shifts, dtype=np.int64)
    expected: dict[int, list[int]] = {}
    for i in range(n):
        key = sum(int(maps[j][0][t][codes[j][i]]) << int(shifts[j]) for j, t in enumerate(target))
        slot = expected.setdefault(key, [0, 0])
        slot[0] += int(counts[i])
        slot[1] += int(population[i]) if weighted else 0
    joint.plan([1 - t for t in target], maps)  # keeps some groups' tables
    terms, offsets, outer, strides, labels, space = joint.plan(target, maps)
    assume(space <= 1 << 20)  # the roll-ups count densely only into small tables
    keys, got, pop = count_joint(
        joint.stacked,
        terms,
        offsets,
        outer,
        counts.astype(np.int64),
        population.astype(np.int64),
        space,
        strides,
        labels,
        shifts,
    )
    assert keys.tolist() == sorted(expected)
    assert got.tolist() == [expected[k][0] for k in sorted(expected)]
    if weighted:
        assert pop.tolist() == [expected[k][1] for k in sorted(expected)]
