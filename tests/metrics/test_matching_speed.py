"""The word-wise bitset extraction of match_classes gives exactly the byte-wise results.

``_match_bitsets`` finds the non-zero 64-bit words of each block of AND-ed row bitsets
and unpacks only those; the reference below is the byte-wise extraction it replaced.
Random numeric releases with up to a few hundred classes span several words, and small
blocks exercise the block loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from unittest import mock

import numpy as np
import numpy.typing as npt
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

import anonkit.metrics.matching as matching_module
from anonkit.metrics.matching import match_classes
from anonkit.metrics.release import Release, interpret_release

IntArray = npt.NDArray[np.int64]


def _bytewise_bitsets(
    release: Release, inverse: Sequence[IntArray], runs: Sequence[tuple[IntArray, IntArray]]
) -> tuple[IntArray, IntArray]:
    """The previous ``_match_bitsets``: non-zero bytes of one large block, then their bits."""
    n_classes = int(release.class_sizes.shape[0])
    n_words = (n_classes + 63) // 64
    every = np.arange(n_classes)
    tables = []
    for j, (a, b) in enumerate(runs):
        lab = release.class_labels[:, j]
        diff = np.zeros((int(inverse[j].max(initial=-1)) + 2, n_words * 64), dtype=np.int8)
        diff[a[lab], every] = 1
        diff[b[lab], every] -= 1
        dense = np.cumsum(diff[:-1], axis=0, dtype=np.int8).astype(bool)
        packed = np.packbits(dense, axis=1, bitorder="little")
        tables.append(np.ascontiguousarray(packed).view(np.uint64))
    n_rows = int(inverse[0].shape[0])
    block = max(1, (1 << 22) // n_words)
    out_rows, out_classes = [], []
    for start in range(0, n_rows, block):
        stop = min(n_rows, start + block)
        acc = tables[0][inverse[0][start:stop]]
        for j in range(1, len(tables)):
            acc &= tables[j][inverse[j][start:stop]]
        as_bytes = acc.view(np.uint8)
        r, byte = np.nonzero(as_bytes)
        bits = np.unpackbits(as_bytes[r, byte][:, None], axis=1, bitorder="little")
        hit_r, hit_bit = np.nonzero(bits)
        out_rows.append(r[hit_r].astype(np.int64) + start)
        out_classes.append(byte[hit_r].astype(np.int64) * 8 + hit_bit)
    return np.concatenate(out_rows), np.concatenate(out_classes)


@st.composite
def numeric_release(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame, npt.NDArray[np.float64]]:
    """Random integer columns released as random truthful ranges, numbers or ``*``, and
    random probe points (one row per column), some outside every range."""
    q = draw(st.integers(1, 3))
    n = draw(st.integers(1, 300))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    orig, rel = {}, {}
    for j in range(q):
        values = rng.integers(0, draw(st.integers(1, 40)), n)
        lo = values - rng.integers(0, 4, n)
        hi = values + rng.integers(0, 4, n)
        kind = rng.integers(0, 10, n)
        cells = zip(kind.tolist(), values.tolist(), lo.tolist(), hi.tolist(), strict=True)
        labels = ["*" if k == 0 else str(v) if k == 1 else f"[{a}-{b}]" for k, v, a, b in cells]
        orig[f"c{j}"], rel[f"c{j}"] = values, labels
    probes = rng.integers(-3, 45, (q, draw(st.integers(1, 200)))).astype(np.float64)
    return pl.DataFrame(orig), pl.DataFrame(rel), probes


@settings(max_examples=60, deadline=None)
@given(numeric_release(), st.sampled_from([1, 5, 64, 1 << 17]), st.booleans())
def test_wordwise_bitsets_equal_bytewise(case, block_words, own) -> None:
    orig, rel, probes = case
    qi = list(orig.columns)
    r = interpret_release(orig, rel, quasi_identifiers=qi, hierarchies={}, numeric=qi)
    if own:
        pts = [c.own_points() for c in r.columns]
    else:
        pts = list(probes)
    captured: dict[str, tuple[IntArray, IntArray]] = {}
    real = matching_module._match_bitsets

    def both(release, inverse, runs):  # type: ignore[no-untyped-def]
        captured["old"] = _bytewise_bitsets(release, inverse, runs)
        return real(release, inverse, runs)

    with (
        mock.patch.object(matching_module, "_bitsets_pay", return_value=True),
        mock.patch.object(matching_module, "_BLOCK_WORDS", block_words),
        mock.patch.object(matching_module, "_match_bitsets", both),
    ):
        rows, classes = match_classes(r, pts)
    old_rows, old_classes = captured["old"]
    assert np.array_equal(rows, old_rows) and np.array_equal(classes, old_classes)
    # and the trie walk finds the same pairs
    with mock.patch.object(matching_module, "_bitsets_pay", return_value=False):
        walk_rows, walk_classes = match_classes(r, pts)
    assert sorted(zip(rows.tolist(), classes.tolist(), strict=True)) == sorted(
        zip(walk_rows.tolist(), walk_classes.tolist(), strict=True)
    )
