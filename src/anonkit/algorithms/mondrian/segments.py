"""Vectorized operations on many partitions at once.

Mondrian keeps the records of the partitions it is working on in one array, each
partition a contiguous *segment*. These helpers compute per-segment statistics (order
statistics, distinct counts, dense group numbers) for all segments in a few numpy calls,
choosing between a histogram (``segments x value range`` cells) and a sort, whichever is
cheaper for the sizes at hand. Segment ids (``seg``) are ascending along the records.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from anonkit._arrays import IntArray

AnyInt = npt.NDArray[np.integer[Any]]

#: A histogram is used while ``segments * value range <= _CELLS_PER_RECORD * records``.
_CELLS_PER_RECORD = 4
_MIN_CELLS = 1 << 14


def _histogram_ok(n_segments: int, n_values: int, n_records: int) -> bool:
    return n_segments * n_values <= max(_CELLS_PER_RECORD * n_records, _MIN_CELLS)


def gather(starts: IntArray, sizes: IntArray, which: IntArray) -> IntArray:
    """Positions of the records of segments ``which``, segment after segment.

    Examples
    --------
    >>> gather(np.array([0, 2, 5]), np.array([2, 3, 1]), np.array([2, 0])).tolist()
    [5, 0, 1]
    """
    counts = sizes[which]
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.cumsum(counts) - counts
    out: IntArray = np.arange(total, dtype=np.int64) + np.repeat(starts[which] - offsets, counts)
    return out


def ramp(counts: IntArray) -> IntArray:
    """``0..c-1`` for each count ``c``, concatenated.

    Examples
    --------
    >>> ramp(np.array([2, 3])).tolist()
    [0, 1, 0, 1, 2]
    """
    total = int(counts.sum())
    offsets = np.cumsum(counts) - counts
    return np.arange(total, dtype=np.int64) - np.repeat(offsets, counts)


def kth_smallest(
    seg: IntArray,
    values: AnyInt,
    n_values: int,
    starts: IntArray,
    kth: IntArray,
    weights: npt.NDArray[np.float64] | None = None,
    weight_starts: IntArray | None = None,
) -> IntArray:
    """Per segment, the value at sorted position ``kth`` (0-based) of its records.

    ``values`` are ints in ``0..n_values-1``; segment ``s`` holds the records
    ``starts[s] .. starts[s+1]-1``. With ``weights``, entry ``i`` stands for
    ``weights[i]`` records of equal value, ``kth`` counts records, and
    ``weight_starts[s]`` is the number of records before segment ``s``.

    Examples
    --------
    >>> seg = np.array([0, 0, 0, 1, 1])
    >>> kth_smallest(seg, np.array([5, 1, 3, 2, 0]), 6, np.array([0, 3]), np.array([1, 0]))
    array([3, 0])
    >>> w = np.array([1, 3, 1, 1, 2])
    >>> kth_smallest(seg, np.array([5, 1, 3, 2, 0]), 6, np.array([0, 3]), np.array([3, 2]),
    ...              w, np.array([0, 5])).tolist()
    [3, 2]
    """
    n_seg = int(starts.shape[0])
    before = starts if weights is None else weight_starts
    assert before is not None
    if _histogram_ok(n_seg, n_values, int(values.shape[0])):
        counts = np.bincount(seg * n_values + values, weights, minlength=n_seg * n_values)
        # cumulative counts over the flattened (segment, value) cells: the answer is the
        # first cell of the segment whose cumulative count exceeds (records before the
        # segment) + kth
        cum = np.cumsum(counts)
        cell = np.searchsorted(cum, before + kth, side="right")
        found: IntArray = (cell - np.arange(n_seg, dtype=np.int64) * n_values).astype(np.int64)
        return found
    order = np.argsort(seg * n_values + values, kind="stable")
    if weights is None:
        at = starts + kth
    else:
        at = np.searchsorted(np.cumsum(weights[order]), before + kth, side="right")
    picked: IntArray = values[order[at]].astype(np.int64)
    return picked


def n_distinct(seg: IntArray, values: AnyInt, n_values: int, n_seg: int) -> IntArray:
    """Per segment, the number of distinct values among its records.

    Examples
    --------
    >>> n_distinct(np.array([0, 0, 0, 1]), np.array([2, 2, 0, 1]), 3, 2).tolist()
    [2, 1]
    """
    key = seg * n_values + values
    if _histogram_ok(n_seg, n_values, int(values.shape[0])):
        counts = np.bincount(key, minlength=n_seg * n_values).reshape(n_seg, n_values)
        dense: IntArray = (counts > 0).sum(axis=1).astype(np.int64)
        return dense
    sparse: IntArray = np.bincount(np.unique(key) // n_values, minlength=n_seg).astype(np.int64)
    return sparse


def segment_cumcount(flags: npt.NDArray[np.bool_], seg: IntArray, starts: IntArray) -> IntArray:
    """Per record, how many flagged records of its segment precede it or are it.

    Examples
    --------
    >>> f = np.array([True, False, True, True, True])
    >>> segment_cumcount(f, np.array([0, 0, 0, 1, 1]), np.array([0, 3])).tolist()
    [1, 1, 2, 1, 2]
    """
    cs = np.cumsum(flags, dtype=np.int64)
    before = cs[starts] - flags[starts]
    out: IntArray = cs - before[seg]
    return out
