"""The packed keys engines count by, unpacked into the encoded table's codes."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.core.hierarchy import Hierarchy
from anonkit.core.values import MISSING_CODE, UNKNOWN_CODE
from anonkit.engines import counting
from anonkit.engines.counting import COUNT, KEY_SHIFT, key_digits, table_from_counts, unpack_keys


def _flat(n_leaves: int) -> Hierarchy:
    return Hierarchy([[f"v{i}", "*"] for i in range(n_leaves)])


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 40), min_size=1, max_size=6),
    rows=st.integers(0, 60),
    seed=st.integers(0, 2**16),
    whole=st.booleans(),
)
def test_unpack_keys_inverts_the_packing(
    sizes: list[int], rows: int, seed: int, whole: bool
) -> None:
    """Whole-bit digits (shifts) while the keys fit, else the tightest mixed radix
    (divisions): unpacking gives back every code either way."""
    hierarchies = [_flat(s) for s in sizes]
    if whole:
        digits = key_digits(hierarchies)
    else:  # a bound the tight radices fit under and whole bits (mostly) do not
        digits = key_digits(hierarchies, limit=math.prod(s + KEY_SHIFT for s in sizes) + 1)
    assert digits is not None
    radices, steps = digits
    if whole:
        assert all(r & (r - 1) == 0 for r in radices)
    else:
        assert radices == [s + KEY_SHIFT for s in sizes] or all(r & (r - 1) == 0 for r in radices)
    rng = np.random.default_rng(seed)
    # every code a column can hold: the markers, then the leaves
    codes = [rng.integers(MISSING_CODE, s, rows) for s in sizes]
    keys = sum(
        ((c + KEY_SHIFT) * p for c, p in zip(codes, steps, strict=True)), np.zeros(rows, np.int64)
    )
    columns = [f"q{j}" for j in range(len(sizes))]
    out = unpack_keys(np.asarray(keys, dtype=np.int64), columns, digits)
    assert list(out) == columns
    for c, expected in zip(columns, codes, strict=True):
        assert out[c].dtype == np.int64
        np.testing.assert_array_equal(out[c], expected)
    assert UNKNOWN_CODE < 0  # the markers come through as negative codes


def test_the_snapshot_takes_the_unpacked_codes_without_a_copy() -> None:
    # 2.6M distinct combinations of a 10M-row table are 166 MB of codes: the snapshot
    # reads the block the keys were unpacked into instead of stacking a second one
    hierarchies = [_flat(5), _flat(7), _flat(3)]
    digits = key_digits(hierarchies)
    assert digits is not None
    columns = ["a", "b", "c"]
    steps = digits[1]
    rng = np.random.default_rng(0)
    codes = [rng.integers(0, len(h.leaves), 50) for h in hierarchies]
    keys = np.unique(sum((c + KEY_SHIFT) * p for c, p in zip(codes, steps, strict=True)))
    coded = unpack_keys(keys.astype(np.int64), columns, digits)
    frame = pl.DataFrame(coded).with_columns(pl.lit(1, dtype=pl.Int64).alias(COUNT))
    table = table_from_counts(frame, columns, hierarchies)
    snapshot = table.snapshot.codes
    assert snapshot.shape == (3, keys.shape[0])
    assert np.shares_memory(snapshot, coded["a"])
    for j, c in enumerate(columns):
        np.testing.assert_array_equal(snapshot[j], coded[c])


def test_the_snapshot_stacks_columns_from_separate_arrays() -> None:
    hierarchies = [_flat(4), _flat(4)]
    frame = pl.DataFrame({"a": [0, 1, 3], "b": [2, 2, 0], COUNT: [1, 2, 3]})
    snapshot = table_from_counts(frame, ["a", "b"], hierarchies).snapshot
    np.testing.assert_array_equal(snapshot.codes, [[0, 1, 3], [2, 2, 0]])
    np.testing.assert_array_equal(snapshot.counts, [1, 2, 3])


def test_adjacent_columns_that_are_not_one_block_are_copied() -> None:
    # an allocator may place two columns one after the other; only a block unpack_keys
    # made (and that is alive) may be taken as it is, or the snapshot could outlive it
    block = np.arange(12, dtype=np.int64).reshape(2, 6)
    frame = pl.DataFrame({"a": block[0], "b": block[1], COUNT: np.ones(6, np.int64)})
    snapshot = table_from_counts(frame, ["a", "b"], [_flat(12), _flat(12)]).snapshot
    assert not np.shares_memory(snapshot.codes, block)
    np.testing.assert_array_equal(snapshot.codes, block)


@settings(max_examples=30, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 12), min_size=1, max_size=4),
    rows=st.integers(1, 80),
    seed=st.integers(0, 2**16),
    ordered=st.booleans(),
)
def test_the_bottom_of_a_detail_count_sums_rows_over_the_quasi_identifiers(
    sizes: list[int], rows: int, seed: int, ordered: bool
) -> None:
    """The snapshot over the quasi-identifiers alone of a count that also groups a
    sensitive column holds the same classes and counts as polars' group-by, whether the
    rows come in key order (as the packing engines count them) or not."""
    rng = np.random.default_rng(seed)
    hierarchies = [_flat(s) for s in sizes]
    columns = [f"q{j}" for j in range(len(sizes))]
    frame = pl.DataFrame(
        {
            **{c: rng.integers(0, s, rows) for c, s in zip(columns, sizes, strict=True)},
            "s": rng.integers(0, 3, rows).astype(str),
            COUNT: rng.integers(1, 9, rows),
        }
    )
    frame = frame.unique([*columns, "s"])
    if ordered:
        frame = frame.sort([*columns, "s"])
    got = counting._summed_over(frame, columns, hierarchies)
    want = frame.group_by(columns).agg(pl.col(COUNT).sum()).sort(columns)
    assert got.n_classes == want.height
    order = np.lexsort(got.codes[::-1])
    for j, c in enumerate(columns):
        np.testing.assert_array_equal(got.codes[j][order], want[c].to_numpy())
    np.testing.assert_array_equal(got.counts[order], want[COUNT].to_numpy())
