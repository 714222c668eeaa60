"""Tests of anonkit.core.snapshot (group_codes, roll_up) and the encoded table."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.core import grouping as grouping_module
from anonkit.core import snapshot as snapshot_module
from anonkit.core.encoding import subset_snapshot
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.joint import JointDigits
from anonkit.core.lattice import Lattice
from anonkit.core.snapshot import FrequencySnapshot, KeyRadix, group_codes, roll_up, roll_up_keys
from anonkit.core.values import encode_records
from anonkit.engines.base import get_engine
from strategies import random_hierarchy


def _as_counter(codes: np.ndarray, counts: np.ndarray) -> Counter:
    out: Counter = Counter()
    for j in range(codes.shape[1]):
        key = tuple(int(x) for x in codes[:, j])
        assert key not in out, "group_codes returned a duplicate row"
        out[key] = int(counts[j])
    return out


@st.composite
def code_tables(draw, max_rows: int = 60):
    q = draw(st.integers(1, 4))
    cards = draw(st.lists(st.integers(1, 7), min_size=q, max_size=q))
    n = draw(st.integers(1, max_rows))
    cols = [
        np.asarray(draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n)), dtype=np.int64)
        for c in cards
    ]
    weights = draw(
        st.none()
        | st.lists(st.integers(1, 5), min_size=n, max_size=n).map(
            lambda w: np.asarray(w, dtype=np.int64)
        )
    )
    return cols, cards, weights


def _check_group(cols, cards, weights) -> None:
    n = cols[0].shape[0]
    w = [1] * n if weights is None else weights.tolist()
    expected: Counter = Counter()
    for i in range(n):
        expected[tuple(int(c[i]) for c in cols)] += w[i]
    codes, counts, inverse = group_codes(cols, cards, weights, with_inverse=True)
    assert codes.shape == (len(cols), len(expected))
    assert codes.dtype == np.int64 and counts.dtype == np.int64
    assert _as_counter(codes, counts) == expected
    assert inverse is not None and inverse.shape == (n,)
    for i in range(n):
        assert tuple(int(c) for c in codes[:, inverse[i]]) == tuple(int(c[i]) for c in cols)
    codes2, counts2, inv2 = group_codes(cols, cards, weights)
    # The docstring promises None unless asked for; were a path to return it anyway,
    # that would be harmless, so only its correctness is checked.
    if inv2 is not None:
        assert np.array_equal(inv2, inverse)
    assert _as_counter(codes2, counts2) == expected


@given(code_tables())
def test_group_codes_matches_counter(table) -> None:
    _check_group(*table)


@given(code_tables(max_rows=30))
def test_group_codes_sparse_path(table) -> None:
    # inflate the declared code space so the sort-based path is used
    cols, cards, weights = table
    big = [c * 1000 for c in cards]
    _check_group(cols, big, weights)


@given(code_tables(max_rows=30))
def test_group_codes_sparse_path_on_rows_in_key_order(table) -> None:
    # rows sorted by their codes (first column most significant): merged without a sort
    cols, cards, weights = table
    order = np.lexsort(cols[::-1])
    cols = [c[order] for c in cols]
    weights = None if weights is None else weights[order]
    _check_group(cols, [c * 1000 for c in cards], weights)


@given(code_tables(max_rows=20))
def test_group_codes_overflow_path(table) -> None:
    cols, cards, weights = table
    huge = [2**20] * len(cols) + [2**25]
    cols = [*cols, np.zeros_like(cols[0])]
    _check_group(cols, huge[: len(cols)], weights)


@given(code_tables(max_rows=30))
def test_group_codes_overflow_path_keeps_the_rows_order(table) -> None:
    """Packed in dense steps (np.unique(axis=0) took 3 s on 814,025 records of 14
    columns), the distinct rows still come in the order of their codes."""
    cols, _, weights = table
    cols = [*cols, *cols]  # more columns, so that the space overflows at least once
    huge = [2**20] * len(cols)
    codes, counts, _ = group_codes(cols, huge, weights)
    rows = np.unique(np.stack(cols, axis=1).astype(np.int64), axis=0)
    assert np.array_equal(codes, rows.T)
    assert int(counts.sum()) == (len(cols[0]) if weights is None else int(weights.sum()))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32])
def test_group_codes_narrow_columns_with_wide_key_space(dtype) -> None:
    """Narrow int columns whose key space needs int64 (strides beyond their own range)."""
    rng = np.random.default_rng(1)
    cols = [rng.integers(0, 100, 50).astype(dtype) for _ in range(8)]
    cols.append(np.zeros(50, dtype=dtype))  # a duplicate-free table plus a constant
    cards = [100] * 8 + [1]
    _check_group(cols, cards, np.ones(50, dtype=np.int64))


def test_group_codes_dense_threshold(monkeypatch) -> None:
    cols = [np.array([0, 1, 1, 0, 2]), np.array([1, 1, 1, 1, 0])]
    a = _as_counter(*group_codes(cols, [3, 2])[:2])
    monkeypatch.setattr(snapshot_module, "_DENSE_FACTOR", 0)
    b = _as_counter(*group_codes(cols, [3, 2])[:2])
    assert a == b == Counter({(0, 1): 2, (1, 1): 2, (2, 0): 1})


# ---------------------------------------------------------------------------- roll_up
@st.composite
def encoded_tables(draw):
    """A random table, its random hierarchies and the encoded table."""
    q = draw(st.integers(1, 3))
    hierarchies = [draw(random_hierarchy(f"q{j}")) for j in range(q)]
    n = draw(st.integers(1, 40))
    data = {
        f"q{j}": draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n))
        for j, h in enumerate(hierarchies)
    }
    frame = pl.DataFrame(data)
    table = get_engine("polars").count(frame, list(data), hierarchies)
    return frame, hierarchies, table


def _direct(frame: pl.DataFrame, hierarchies, levels) -> Counter:
    """Class sizes of the frame generalized value by value (labels, not codes)."""
    out: Counter = Counter()
    cols = [frame[h.name].to_list() for h in hierarchies]
    for row in zip(*cols, strict=True):
        key = tuple(h.generalize(v, lv) for v, h, lv in zip(row, hierarchies, levels, strict=True))
        out[key] += 1
    return out


def _labels(snap: FrequencySnapshot, hierarchies) -> Counter:
    out: Counter = Counter()
    for c in range(snap.n_classes):
        key = tuple(
            h.labels(lv)[int(snap.codes[j, c])]
            for j, (h, lv) in enumerate(zip(hierarchies, snap.levels, strict=True))
        )
        assert key not in out
        out[key] = int(snap.counts[c])
    return out


@given(encoded_tables(), st.data())
def test_roll_up_equals_direct_generalization(table_data, data) -> None:
    frame, hierarchies, table = table_data
    lat = Lattice(table.heights)
    bottom = table.snapshot
    assert bottom.levels == (0,) * lat.width
    assert bottom.n_records == frame.height
    assert _labels(bottom, hierarchies) == _direct(frame, hierarchies, bottom.levels)
    target = data.draw(st.integers(0, lat.size - 1))
    levels = lat.node(target)
    direct = _direct(frame, hierarchies, levels)
    up = roll_up(bottom, levels, table.level_maps, table.cardinalities)
    assert up.levels == levels
    assert up.n_records == frame.height
    assert _labels(up, hierarchies) == direct
    # rolling up in two steps, through any node in between, gives the same classes
    middle = data.draw(st.sampled_from(np.flatnonzero(lat.downset(target)).tolist()))
    mid = roll_up(bottom, lat.node(middle), table.level_maps, table.cardinalities)
    two_step = roll_up(mid, levels, table.level_maps, table.cardinalities)
    assert _labels(two_step, hierarchies) == direct
    # the projection helper used by Incognito agrees as well
    cols = tuple(range(lat.width))
    assert _labels(subset_snapshot(table, cols, levels), hierarchies) == direct
    # so do keyed roll-ups (the evaluator's fast path), in one step and in two
    radix = KeyRadix.for_cardinalities([c[0] for c in table.cardinalities])
    assert radix is not None
    keyed = bottom.with_keys(radix)
    assert _labels(roll_up_keys(keyed, levels, table.level_maps), hierarchies) == direct
    via = roll_up_keys(
        roll_up_keys(keyed, lat.node(middle), table.level_maps), levels, table.level_maps
    )
    assert _labels(via, hierarchies) == direct
    assert np.all(np.diff(via.keys) > 0)  # keys stay sorted and distinct
    rows = np.arange(via.n_classes)[::2]
    assert np.array_equal(via.codes_of(rows), via.codes[:, rows])


def test_key_radix_overflow_and_missing_codes() -> None:
    assert KeyRadix.for_cardinalities([2**31, 2**32]) is None
    assert KeyRadix.for_cardinalities([2**20, 2**21]) is not None  # 41 bits
    radix = KeyRadix.for_cardinalities([3, 1, 5])
    assert radix is not None and radix.bits == (2, 1, 3)
    codes = np.array([[2, 0], [0, 0], [4, 1]])
    keys = radix.encode(codes)
    assert [radix.digit(keys, j).tolist() for j in range(3)] == codes.tolist()
    with pytest.raises(ValueError):
        FrequencySnapshot((0,), None, np.array([1]))


@given(encoded_tables())
def test_roll_up_sparse_path(table_data) -> None:
    frame, hierarchies, table = table_data
    old = snapshot_module._DENSE_FACTOR
    snapshot_module._DENSE_FACTOR = 0
    try:
        lat = Lattice(table.heights)
        for i in range(lat.size):
            levels = lat.node(i)
            up = roll_up(table.snapshot, levels, table.level_maps, table.cardinalities)
            if up.n_classes:
                assert _labels(up, hierarchies) == _direct(frame, hierarchies, levels)
    finally:
        snapshot_module._DENSE_FACTOR = old


def test_encoded_table_value_counts() -> None:
    h = Hierarchy([["a", "*"], ["b", "*"], ["c", "*"]], name="x")
    frame = pl.DataFrame({"x": ["a", "c", "a", "a"]})
    for engine in ("polars", "numpy"):
        table = get_engine(engine).count(frame, ["x"], [h])
        assert table.value_counts[0].tolist() == [3, 0, 1]
        assert table.n_records == 4
        assert table.cardinalities == ((3, 1),)
    assert encode_records(frame, ["x"], [h]).codes.tolist() == [[0, 2, 0, 0]]


@given(
    keys=st.lists(st.integers(0, (1 << 40) - 1), min_size=0, max_size=3000),
    dup=st.integers(0, 3),
    weighted=st.booleans(),
)
def test_group_sorted_compiled_equals_numpy(keys, dup, weighted) -> None:
    """The compiled radix sort, polars' hash aggregation and the numpy sort merge keys
    alike (issue 19)."""
    rng = np.random.default_rng(len(keys))
    arr = np.asarray(keys * (dup + 1), dtype=np.int64)
    counts = rng.integers(1, 9, arr.size).astype(np.int64)
    pop = rng.integers(0, 9, arr.size).astype(np.int64) if weighted else None
    space = 1 << 40
    slow = grouping_module._group_numpy(arr, counts, pop, space)
    assert np.array_equal(slow[0], np.unique(arr))
    for fast in (
        grouping_module._group_compiled(arr, counts, pop, space),
        grouping_module._group_hashed(arr, counts, pop),
    ):
        assert np.array_equal(fast[0], slow[0]) and np.array_equal(fast[1], slow[1])
        assert (fast[2] is None) == (slow[2] is None) == (pop is None)
        if pop is not None:
            assert np.array_equal(fast[2], slow[2])


def _keyed_adult(adult_frame, adult_hierarchies, dense, compiled, monkeypatch):
    """Adult's encoded table and its bottom snapshot keyed, with the compiled kernels on
    or off and dense counting allowed or not."""
    monkeypatch.setattr(grouping_module, "compiled_ready", lambda: compiled)
    if not dense:
        monkeypatch.setattr(snapshot_module, "_DENSE_FACTOR", 0)
    columns = list(adult_frame.columns)
    hierarchies = [Hierarchy.from_csv(adult_hierarchies[c], name=c) for c in columns]
    table = get_engine("polars").count(adult_frame, columns, hierarchies)
    radix = KeyRadix.for_cardinalities([c[0] for c in table.cardinalities])
    assert radix is not None
    return table, table.snapshot.with_keys(radix)


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("dense", [True, False])
def test_large_keyed_roll_up_equals_roll_up(
    adult_frame, adult_hierarchies, dense, compiled, monkeypatch
) -> None:
    """On Adult (19,502 bottom classes, above the compiled path's threshold), keyed
    roll-ups in one and two steps give the classes of the plain roll-up, merged by
    counting (coarse targets) or by sorting, compiled or by numpy (issue 19)."""
    table, keyed = _keyed_adult(adult_frame, adult_hierarchies, dense, compiled, monkeypatch)
    assert table.snapshot.n_classes >= grouping_module.COMPILED_ROWS
    codes, counts = table.snapshot.codes, table.snapshot.counts
    with_pop = FrequencySnapshot(
        table.snapshot.levels, codes, counts, population=counts * 3 + 1
    ).with_keys(keyed.radix)
    lat = Lattice(table.heights)
    rng = np.random.default_rng(7)
    for target in rng.choice(lat.size, 12, replace=False).tolist():
        levels = lat.node(target)
        plain = roll_up(table.snapshot, levels, table.level_maps, table.cardinalities)
        expected = _as_counter(plain.codes, plain.counts)
        one = roll_up_keys(keyed, levels, table.level_maps)
        assert _as_counter(one.codes, one.counts) == expected
        assert np.all(np.diff(one.keys) > 0)
        # from the bottom's decoded codes (the evaluator's way): the same keys and counts
        held = roll_up_keys(keyed, levels, table.level_maps, digits=lambda j: keyed.codes[j])
        assert np.array_equal(held.keys, one.keys) and np.array_equal(held.counts, one.counts)
        # and through the codes joined over groups of columns
        joint = JointDigits(codes.__getitem__, [c[0] for c in table.cardinalities], keyed.levels)
        joined = roll_up_keys(
            keyed, levels, table.level_maps, digits=codes.__getitem__, joint=joint
        )
        assert np.array_equal(joined.keys, one.keys)
        assert np.array_equal(joined.counts, one.counts)
        pop = roll_up_keys(with_pop, levels, table.level_maps)
        pop_held = roll_up_keys(with_pop, levels, table.level_maps, digits=lambda j: codes[j])
        assert pop.population is not None and pop_held.population is not None
        assert np.array_equal(pop.population, pop_held.population)
        pop_joint = roll_up_keys(
            with_pop, levels, table.level_maps, digits=codes.__getitem__, joint=joint
        )
        assert pop_joint.population is not None
        assert np.array_equal(pop_joint.population, pop.population)
        below = np.flatnonzero(lat.downset(target))
        middle = lat.node(int(rng.choice(below)))
        two = roll_up_keys(roll_up_keys(keyed, middle, table.level_maps), levels, table.level_maps)
        assert _as_counter(two.codes, two.counts) == expected


def test_flash_on_adult_does_not_load_numba() -> None:
    """One Flash run on Adult keeps to numpy: loading numba and its cached kernels costs
    a fresh process about 0.7 s of CPU, more than the kernels save there (issue 19)."""
    code = (
        "import sys\n"
        "from anonkit.datasets import load_adult\n"
        "import anonkit\n"
        "frame, h = load_adult()\n"
        "anonkit.anonymize(frame, quasi_identifiers=list(frame.columns), hierarchies=h,\n"
        "                  k=5, suppression_limit=0.04, algorithm='flash')\n"
        "print('numba' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "False"


@given(
    keys=st.lists(st.integers(0, (1 << 40) - 1), min_size=0, max_size=300),
    weighted=st.booleans(),
)
def test_group_sorted_merges_ordered_keys_in_one_pass(keys, weighted) -> None:
    """Keys already in order (roll-ups through order-keeping level maps) are merged
    without sorting, with the same result as a sort (issue 17)."""
    arr = np.sort(np.asarray(keys + keys[: len(keys) // 2], dtype=np.int64))
    rng = np.random.default_rng(len(keys))
    counts = rng.integers(1, 9, arr.size).astype(np.int64)
    pop = rng.integers(0, 9, arr.size).astype(np.int64) if weighted else None
    got = grouping_module.group_sorted(arr, counts, pop, 1 << 40)
    want = grouping_module._group_numpy(arr, counts, pop, 1 << 40)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert (got[2] is None) == (want[2] is None)
    if pop is not None:
        assert np.array_equal(got[2], want[2])


@pytest.mark.parametrize("dense", [True, False])
@pytest.mark.parametrize("compiled", [True, False])
def test_a_roll_up_counts_its_rows_once(
    adult_frame, adult_hierarchies, dense, compiled, monkeypatch
) -> None:
    """The work that decides when the compiled kernels repay loading numba counts each
    rolled-up row once, whichever way the roll-up merges its keys (counting, the compiled
    kernels, or group_sorted, which counts the rows it groups)."""
    table, keyed = _keyed_adult(adult_frame, adult_hierarchies, dense, compiled, monkeypatch)
    target = [1] * table.width
    monkeypatch.setattr(grouping_module, "WORK", [0])  # the count above grouped rows too
    roll_up_keys(keyed, target, table.level_maps)
    assert grouping_module.WORK[0] == keyed.n_classes


def test_hashed_groupings_do_not_count_toward_loading_numba(monkeypatch) -> None:
    """Rows that group_sorted hashes (above _HASHED_ROWS) would not be grouped faster by
    the compiled kernels, so they do not count toward loading numba; smaller groupings
    do."""
    monkeypatch.setattr(grouping_module, "WORK", [0])
    rng = np.random.default_rng(0)
    big = rng.integers(0, 1000, grouping_module._HASHED_ROWS + 1).astype(np.int64)
    grouping_module.group_sorted(big, np.ones_like(big), None, 1000)
    assert grouping_module.WORK[0] == 0
    small = big[:5000]
    grouping_module.group_sorted(small, np.ones_like(small), None, 1000)
    assert grouping_module.WORK[0] == 5000


@settings(max_examples=20, deadline=None)
@given(
    distinct=st.integers(1, 200_000),
    weighted=st.booleans(),
    ordered=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_large_groupings_hash_or_sort_to_the_same_arrays(
    distinct: int, weighted: bool, ordered: bool, seed: int
) -> None:
    """Above _HASHED_ROWS, group_sorted hashes the keys, or sorts them when the caller
    expects them mostly distinct; both give numpy's arrays."""
    rng = np.random.default_rng(seed)
    n = grouping_module._HASHED_ROWS + 1 + int(rng.integers(0, 5000))
    arr = rng.integers(0, distinct, n).astype(np.int64) * 7919
    if ordered:  # long sorted runs, as a roll-up of a snapshot in key order gives
        arr = np.concatenate([np.sort(part) for part in np.array_split(arr, 7)])
    counts = rng.integers(1, 9, n).astype(np.int64)
    pop = rng.integers(0, 9, n).astype(np.int64) if weighted else None
    want = grouping_module._group_numpy(arr, counts, pop, 1 << 40)
    for mostly_distinct in (False, True):
        got = grouping_module.group_sorted(
            arr, counts, pop, 1 << 40, mostly_distinct=mostly_distinct
        )
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
        assert (got[2] is None) == (want[2] is None)
        if pop is not None:
            assert np.array_equal(got[2], want[2])
