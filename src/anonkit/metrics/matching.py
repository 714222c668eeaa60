"""Match rows of original values to the classes of a release that contain them.

:func:`match_classes` finds, for rows of original values (the original table itself or a
population table), every release class whose cells all contain them; the KL divergence
and journalist risk use it. :func:`distinct_rows` collapses equal rows first, so each
distinct row is matched once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray, IntArray
from anonkit.core.snapshot import group_codes
from anonkit.exceptions import ParameterError
from anonkit.metrics.release import Release

__all__ = ["distinct_rows", "match_classes"]


def match_classes(release: Release, points: Sequence[FloatArray]) -> tuple[IntArray, IntArray]:
    """Every (row, class) pair whose class contains the row's values in every column.

    Parameters
    ----------
    release
        The release.
    points
        One array per quasi-identifier, all of the same length: rows of values in each
        column's point space (:meth:`QIColumn.points`, :meth:`QIColumn.own_points`).

    Returns
    -------
    rows, classes
        Matching pairs. Classes are walked as a trie of their labels, column by column (the
        column reaching the fewest classes from the rows first), so the work grows with the
        partial matches, not with rows x classes.

    Examples
    --------
    >>> import polars as pl
    >>> from anonkit.core.hierarchy import Hierarchy
    >>> from anonkit.metrics.release import interpret_release
    >>> h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name="x")
    >>> orig = pl.DataFrame({"x": ["a", "b", "c"]})
    >>> r = interpret_release(orig, pl.DataFrame({"x": ["ab", "a", "*"]}),
    ...                       quasi_identifiers=["x"], hierarchies={"x": h})
    >>> rows, classes = match_classes(r, [r.column("x").own_points()])
    >>> sorted(zip(rows.tolist(), [r.columns[0].labels[r.class_labels[g, 0]] for g in classes]))
    [(0, '*'), (0, 'a'), (0, 'ab'), (1, '*'), (1, 'ab'), (2, '*')]
    """
    cols = release.columns
    if len(points) != len(cols):
        raise ParameterError("points", "match_classes", f"{len(cols)} arrays", len(points))
    n_rows = int(points[0].shape[0]) if cols else 0
    n_classes = int(release.class_sizes.shape[0])
    # Per column: for each distinct point, the labels (used by some class) containing it,
    # as CSR; and the pairs a walk starting with this column would create.
    csr: list[tuple[IntArray, IntArray, IntArray]] = []
    runs_of: list[tuple[IntArray, IntArray]] = []
    cost: list[float] = []
    for j, col in enumerate(cols):
        upts, inv = np.unique(points[j], return_inverse=True)
        inv = inv.reshape(-1).astype(np.int64)
        a, b = col.point_ranges(upts)
        classes_with = np.bincount(release.class_labels[:, j], minlength=len(col.labels))
        lab_ids = np.flatnonzero((classes_with > 0) & (b > a))
        runs = (b - a)[lab_ids]
        pair_pt = _ramp(a[lab_ids], runs)
        pair_lab = np.repeat(lab_ids, runs)[np.argsort(pair_pt, kind="stable")]
        ptr = np.zeros(upts.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(pair_pt, minlength=upts.shape[0]), out=ptr[1:])
        csr.append((inv, ptr, pair_lab))
        runs_of.append((a, b))
        # classes reachable from each point: a difference array over the label runs
        diff = np.zeros(upts.shape[0] + 1)
        np.add.at(diff, a[lab_ids], classes_with[lab_ids])
        np.add.at(diff, b[lab_ids], -classes_with[lab_ids])
        cost.append(float(np.cumsum(diff)[:-1][inv].sum()))
    if cols and n_rows and n_classes and _bitsets_pay(csr, cost, n_classes):
        return _match_bitsets(release, [c[0] for c in csr], runs_of)
    rows = np.arange(n_rows, dtype=np.int64)
    nodes = np.zeros(n_rows, dtype=np.int64)
    class_node = np.zeros(n_classes, dtype=np.int64)
    for j in sorted(range(len(cols)), key=lambda j: cost[j]):  # most selective first
        inv, ptr, pair_lab = csr[j]
        n_lab = len(cols[j].labels)
        # trie level: (parent node, label) -> child node
        keys = class_node * n_lab + release.class_labels[:, j]
        child_keys, class_node = np.unique(keys, return_inverse=True)
        class_node = class_node.reshape(-1).astype(np.int64)
        # expand (row, node) by the labels containing the row's point, keep trie edges
        pt = inv[rows]
        deg = ptr[pt + 1] - ptr[pt]
        rows = np.repeat(rows, deg)
        labs = pair_lab[_ramp(ptr[pt], deg)]
        want = np.repeat(nodes, deg) * n_lab + labs
        space = (int(child_keys[-1]) + 1) if child_keys.size else 0
        if space <= max(4 * want.shape[0], 1 << 16):  # dense lookup table
            table = np.full(space + 1, -1, dtype=np.int64)
            table[child_keys] = np.arange(child_keys.shape[0])
            pos = table[np.minimum(want, space)]
            hit = pos >= 0
        else:
            pos = np.searchsorted(child_keys, want)
            pos_c = np.minimum(pos, max(child_keys.shape[0] - 1, 0))
            hit = (pos < child_keys.shape[0]) & (child_keys[pos_c] == want)
        rows, nodes = rows[hit], pos[hit]
    # after the last column every node is one distinct class
    class_at_node = np.empty(n_classes, dtype=np.int64)
    class_at_node[class_node] = np.arange(n_classes)
    return rows, class_at_node[nodes]


#: Largest (distinct points x classes) matrix a column's bitsets are built from.
_BITSET_CELLS = 1 << 25
#: 64-bit words of row bitsets AND-ed at once (1 MiB: 3x faster than 32 MiB on Adult).
_BLOCK_WORDS = 1 << 17


def _bitsets_pay(
    csr: Sequence[tuple[IntArray, IntArray, IntArray]], cost: Sequence[float], n_classes: int
) -> bool:
    """Whether per-column class bitsets beat the trie walk.

    The walk creates at least ``min(cost)`` (row, class) pairs, a few array operations
    each; the bitsets cost one AND of ``n_classes / 8`` bytes per row and column. When
    every column matches many classes (Mondrian boxes, overlapping ranges) the walk's
    partial matches explode while the bitsets stay small.
    """
    n_bytes = (n_classes + 63) // 64 * 8
    n_rows = int(csr[0][0].shape[0])
    if any((int(ptr.shape[0]) - 1) * n_classes > _BITSET_CELLS for _, ptr, _ in csr):
        return False
    return n_rows * n_bytes * len(csr) / 8 < 4 * min(cost)


def _match_bitsets(
    release: Release, inverse: Sequence[IntArray], runs: Sequence[tuple[IntArray, IntArray]]
) -> tuple[IntArray, IntArray]:
    """:func:`match_classes` by AND-ing, per row, one bitset of classes per column.

    For column ``j`` and each distinct point, the bitset of classes whose label contains
    it (a label covers the run ``[a, b)`` of sorted points: a difference array over the
    points, one column per class); a row's matches are the bits set in the AND over its
    columns. Rows are processed in blocks of about :data:`_BLOCK_WORDS` words, so the
    AND stays in cache and memory stays bounded; the non-zero words of a block are found
    first and only their bits unpacked.
    """
    n_classes = int(release.class_sizes.shape[0])
    n_words = (n_classes + 63) // 64
    every = np.arange(n_classes)
    tables: list[npt.NDArray[np.uint64]] = []
    for j, (a, b) in enumerate(runs):
        lab = release.class_labels[:, j]
        diff = np.zeros((int(inverse[j].max(initial=-1)) + 2, n_words * 64), dtype=np.int8)
        diff[a[lab], every] = 1
        diff[b[lab], every] -= 1
        dense = np.cumsum(diff[:-1], axis=0, dtype=np.int8).astype(bool)
        packed = np.packbits(dense, axis=1, bitorder="little")
        tables.append(np.ascontiguousarray(packed).view(np.uint64))
    n_rows = int(inverse[0].shape[0])
    block = max(1, _BLOCK_WORDS // n_words)
    out_rows: list[IntArray] = []
    out_classes: list[IntArray] = []
    for start in range(0, n_rows, block):
        stop = min(n_rows, start + block)
        acc = tables[0][inverse[0][start:stop]]
        for j in range(1, len(tables)):
            acc &= tables[j][inverse[j][start:stop]]
        # non-zero words first (8x fewer elements to scan than bytes), then their bits;
        # a word's bytes keep the packed order, so bit i of the word is class 64 w + i
        r, word = np.nonzero(acc)
        hit_bytes = np.ascontiguousarray(acc[r, word]).view(np.uint8).reshape(-1, 8)
        bits = np.unpackbits(hit_bytes, axis=1, bitorder="little")
        hit_r, hit_bit = np.nonzero(bits)
        out_rows.append(r[hit_r].astype(np.int64) + start)
        out_classes.append(word[hit_r].astype(np.int64) * 64 + hit_bit)
    return np.concatenate(out_rows), np.concatenate(out_classes)


def _ramp(starts: IntArray, lengths: IntArray) -> IntArray:
    """Concatenated ``arange(s, s + l)`` for each pair, vectorized."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets: IntArray = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    out: IntArray = (offsets + np.arange(total)).astype(np.int64)
    return out


def distinct_rows(columns: Sequence[IntArray | FloatArray]) -> tuple[IntArray, IntArray]:
    """Distinct rows of equal-length arrays: the first row holding each, and its count.

    Values are compared exactly (floats too); arrays of small non-negative whole numbers
    (domain positions) are used as codes directly.
    """
    codes: list[IntArray] = []
    cards: list[int] = []
    for arr in columns:
        if arr.size and arr.min() >= 0 and arr.max() < 1 << 31 and (arr == np.floor(arr)).all():
            inv = arr.astype(np.int64)
        else:
            _, inv = np.unique(arr, return_inverse=True)
            inv = inv.reshape(-1).astype(np.int64)
        codes.append(inv)
        cards.append(int(inv.max()) + 1 if inv.size else 1)
    _, counts, inverse = group_codes(codes, cards, with_inverse=True)
    assert inverse is not None
    first = np.full(counts.shape[0], -1, dtype=np.int64)
    n = inverse.shape[0]
    first[inverse[::-1]] = np.arange(n - 1, -1, -1)
    return first, counts
