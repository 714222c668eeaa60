"""Frequency snapshots: distinct quasi-identifier combinations with their counts.

Every search works on snapshots, never on raw rows. A snapshot at a lattice node holds one
row per equivalence class: the class's code at the node's level for every quasi-identifier
and the number of records in it. A snapshot of a coarser node is *rolled up* from any finer
one by mapping each column's codes upwards and merging equal rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]

# Dense counting (bincount over the whole key space) beats sorting while the key space is
# at most this many times the number of rows.
_DENSE_FACTOR = 8


@dataclass(frozen=True, eq=False)
class FrequencySnapshot:
    """Equivalence classes at one level vector.

    Attributes
    ----------
    levels
        The level of every quasi-identifier that ``codes`` refer to.
    codes
        ``(n_qi, n_classes)`` int64, one contiguous row per quasi-identifier: per class,
        the code of the value at its level (an index into ``Hierarchy.labels(level)``).
    counts
        ``(n_classes,)`` int64: number of records in each class.
    """

    levels: tuple[int, ...]
    codes: IntArray
    counts: IntArray

    @property
    def n_classes(self) -> int:
        return int(self.counts.shape[0])

    @property
    def n_records(self) -> int:
        return int(self.counts.sum())


def _strides(cardinalities: Sequence[int]) -> list[int]:
    strides = [1] * len(cardinalities)
    for j in range(len(cardinalities) - 2, -1, -1):
        strides[j] = strides[j + 1] * max(int(cardinalities[j + 1]), 1)
    return strides


def group_codes(
    columns: Sequence[IntArray],
    cardinalities: Sequence[int],
    weights: IntArray | None = None,
    *,
    with_inverse: bool = False,
) -> tuple[IntArray, IntArray, IntArray | None]:
    """Merge equal rows of a table given column by column.

    Parameters
    ----------
    columns
        One array of non-negative int codes per column, all of the same length; column
        ``j`` is below ``cardinalities[j]``.
    cardinalities
        Size of each column's code space.
    weights
        Count of each row (default 1); must be positive.
    with_inverse
        Also return, for each input row, the index of its distinct row.

    Returns
    -------
    unique_codes, counts, inverse
        ``(q, n_unique)`` distinct rows, the summed weight of each, and the inverse (or
        ``None`` unless asked for).
    """
    q = len(columns)
    n = int(columns[0].shape[0]) if q else 0
    w = np.ones(n, dtype=np.int64) if weights is None else weights
    space = 1
    for c in cardinalities:
        space *= max(int(c), 1)
    if space >= 2**62:  # keys would overflow: sort rows instead
        stacked = np.stack(columns, axis=1)
        uniq, inverse = np.unique(stacked, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        counts = np.bincount(inverse, weights=w, minlength=uniq.shape[0]).astype(np.int64)
        inv = inverse.astype(np.int64) if with_inverse else None
        return np.ascontiguousarray(uniq.T, dtype=np.int64), counts, inv
    strides = _strides(cardinalities)
    keys = np.zeros(n, dtype=np.int64)
    for col, stride in zip(columns, strides, strict=True):
        if stride == 1:
            keys += col
        else:
            keys += col * stride
    inverse: IntArray | None = None
    if space <= max(_DENSE_FACTOR * n, 1 << 12):
        totals = np.bincount(keys, weights=w, minlength=space)
        uniq_keys = np.flatnonzero(totals)
        counts = totals[uniq_keys].astype(np.int64)
        # Rows with equal keys have equal codes, so any row of a key represents it.
        rep_of_key = np.empty(space, dtype=np.int64)
        rep_of_key[keys] = np.arange(n)
        reps = rep_of_key[uniq_keys]
        if with_inverse:
            dense = np.empty(space, dtype=np.int64)
            dense[uniq_keys] = np.arange(uniq_keys.size)
            inverse = dense[keys]
    else:
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
        reps = order[starts]
        counts = np.add.reduceat(w[order], starts).astype(np.int64)
        if with_inverse:
            group_of_sorted = np.cumsum(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]]) - 1
            inverse = np.empty(n, dtype=np.int64)
            inverse[order] = group_of_sorted
    unique_codes = np.empty((q, reps.size), dtype=np.int64)
    for j, col in enumerate(columns):
        np.take(col, reps, out=unique_codes[j])
    return unique_codes, counts, inverse


def _representatives(keys: IntArray, space: int, weights: IntArray) -> tuple[IntArray, IntArray]:
    """For distinct ``keys``: one row index holding each and the summed weights."""
    n = keys.shape[0]
    if space <= max(_DENSE_FACTOR * n, 1 << 12):
        totals = np.bincount(keys, weights=weights, minlength=space)
        uniq_keys = np.flatnonzero(totals)
        rep_of_key = np.empty(space, dtype=np.int64)
        rep_of_key[keys] = np.arange(n)
        return rep_of_key[uniq_keys], totals[uniq_keys].astype(np.int64)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    return order[starts], np.add.reduceat(weights[order], starts).astype(np.int64)


def roll_up(
    snapshot: FrequencySnapshot,
    target: Sequence[int],
    level_maps: Sequence[Sequence[Sequence[IntArray]]],
    cardinalities: Sequence[Sequence[int]],
) -> FrequencySnapshot:
    """Generalize ``snapshot`` to the coarser level vector ``target``.

    ``level_maps[j][a][b]`` maps codes of column ``j`` at level ``a`` to level ``b``;
    ``cardinalities[j][b]`` is the number of labels of column ``j`` at level ``b``.
    """
    cards = [max(int(cardinalities[j][b]), 1) for j, b in enumerate(target)]
    space = 1
    for c in cards:
        space *= c
    changed = [j for j, (a, b) in enumerate(zip(snapshot.levels, target, strict=True)) if a != b]
    if space >= 2**62:
        cols = [
            level_maps[j][a][b][snapshot.codes[j]] if a != b else snapshot.codes[j]
            for j, (a, b) in enumerate(zip(snapshot.levels, target, strict=True))
        ]
        codes, counts, _ = group_codes(cols, cards, snapshot.counts)
        return FrequencySnapshot(tuple(int(t) for t in target), codes, counts)
    strides = _strides(cards)
    mapped = {j: level_maps[j][snapshot.levels[j]][target[j]][snapshot.codes[j]] for j in changed}
    keys = np.zeros(snapshot.n_classes, dtype=np.int64)
    for j, stride in enumerate(strides):
        col = mapped.get(j)
        if col is None:
            col = snapshot.codes[j]
        if stride == 1:
            keys += col
        else:
            keys += col * stride
    reps, counts = _representatives(keys, space, snapshot.counts)
    codes = snapshot.codes.take(reps, axis=1)
    for j in changed:
        codes[j] = level_maps[j][snapshot.levels[j]][target[j]][codes[j]]
    return FrequencySnapshot(tuple(int(t) for t in target), codes, counts)
