"""Mondrian's first cuts on a frequency snapshot: blocks small enough for one machine.

A table too large for one machine is cut, on the driver, by Mondrian's own rules applied
to its frequency snapshot (one row per distinct combination of quasi-identifiers, with
its number of records) until every part holds at most ``max_records`` records; each part
(a *block*) is then partitioned by Mondrian on its own, where its records are
(:mod:`anonkit.algorithms.mondrian.spark`).

The cuts are those of the strict recursion of LeFevre, DeWitt & Ramakrishnan (2006,
Algorithm 1), weighted by the record counts: axes by decreasing normalized width (ties to
the earlier axis), numeric and ordered axes cut at the lower weighted median (records
equal to it go left; when it is the largest value, the records below it go left),
hierarchical axes into the children of the lowest common ancestor. A cut is allowable
when every part holds at least ``k`` records, so every block does, and k-anonymity of
the blocks' partitions gives k-anonymity of the whole table.

Where the implementation had to choose: the driver's cuts are strict in both modes (a
snapshot row, all records with one combination, is never divided); ``mode="relaxed"``
applies within the blocks. A block that no allowable cut divides stays larger than
``max_records``.

References
----------
LeFevre, K., DeWitt, D. J. & Ramakrishnan, R. (2006). Mondrian multidimensional
k-anonymity. ICDE 2006.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray, IntArray
from anonkit._validation import check_int
from anonkit.algorithms.mondrian.attributes import Axis

__all__ = ["candidate_cuts", "cut_blocks", "snapshot_blocks"]


def candidate_cuts(
    axes: Sequence[Axis], rows: IntArray, weights: IntArray
) -> Iterator[tuple[IntArray, FloatArray]]:
    """Mondrian's candidate cuts of the snapshot rows ``rows``, in the order they are
    tried: for each, the part of every row (``0 ..``) and the records of each part.

    Axes come by decreasing normalized width (ties to the earlier axis; an axis with one
    value is not cut); a hierarchical axis is cut into the children of the lowest common
    ancestor, a numeric or ordered one at the lower weighted median (records equal to it
    go left; when it is the largest value, the records below it go left).
    """
    lo = np.array([int(a.ranks[rows].min()) for a in axes], dtype=np.int64)
    hi = np.array([int(a.ranks[rows].max()) for a in axes], dtype=np.int64)
    scores = [
        float(a.width(lo[d : d + 1], hi[d : d + 1])[0]) if hi[d] > lo[d] else -np.inf
        for d, a in enumerate(axes)
    ]
    order = sorted(range(len(axes)), key=lambda d: -scores[d])  # stable: ties to the earlier
    w = weights[rows]
    for d in order:
        if scores[d] == -np.inf:
            break
        axis = axes[d]
        ranks = axis.ranks[rows].astype(np.int64)
        if axis.kind == "hierarchical":
            assert axis.sibling_of_rank is not None
            level = int(axis.lca_level(lo[d : d + 1], hi[d : d + 1])[0])
            key = axis.sibling_of_rank[level - 1, ranks].astype(np.int64)
        else:
            by_rank = np.argsort(ranks, kind="stable")
            cumulative = np.cumsum(w[by_rank])
            at = (int(cumulative[-1]) - 1) // 2  # lower median, counted in records
            median = int(ranks[by_rank[np.searchsorted(cumulative, at, side="right")]])
            key = (ranks > (median if median < hi[d] else hi[d] - 1)).astype(np.int64)
        yield key, np.bincount(key, weights=w).astype(np.float64)


def cut_blocks(
    weights: IntArray,
    max_records: int,
    cut: Callable[[IntArray], list[IntArray] | None],
) -> IntArray:
    """The block of each snapshot row: the rows are cut by ``cut`` (the parts of its first
    allowable cut, or ``None``) while a part holds more than ``max_records`` records,
    depth-first, the first part first."""
    n = int(weights.shape[0])
    block = np.zeros(n, dtype=np.int64)
    stack = [np.arange(n, dtype=np.int64)]
    done: list[IntArray] = []
    while stack:
        rows = stack.pop()
        parts = cut(rows) if int(weights[rows].sum()) > max_records else None
        if parts is None:
            done.append(rows)
        else:
            stack.extend(reversed(parts))  # the first part is cut first
    for b, rows in enumerate(done):
        block[rows] = b
    return block


def _cut(axes: Sequence[Axis], rows: IntArray, counts: IntArray, k: int) -> list[IntArray] | None:
    """The parts of the first allowable cut of the snapshot rows ``rows``, or ``None``."""
    for key, sizes in candidate_cuts(axes, rows, counts):
        if ((sizes == 0) | (sizes >= k)).all():
            return [rows[key == f] for f in np.flatnonzero(sizes)]
    return None


def snapshot_blocks(
    axes: Sequence[Axis], counts: npt.ArrayLike, *, k: int, max_records: int
) -> IntArray:
    """Cut a snapshot into blocks of at most ``max_records`` records (where a cut allows).

    Parameters
    ----------
    axes
        One :class:`~anonkit.algorithms.mondrian.attributes.Axis` per quasi-identifier,
        built on the snapshot's rows (one rank per distinct combination).
    counts
        Records per snapshot row.
    k
        Every part of a cut holds at least ``k`` records.
    max_records
        Blocks larger than this are cut further.

    Returns
    -------
    numpy.ndarray
        The block of each snapshot row, ``0 .. n_blocks - 1``.

    Examples
    --------
    >>> from anonkit.algorithms.mondrian.attributes import NumericQI
    >>> axis = Axis.of(NumericQI("x", [1, 2, 3, 4]))
    >>> snapshot_blocks([axis], [5, 5, 5, 5], k=5, max_records=10).tolist()
    [0, 0, 1, 1]
    """
    check_int(k, "k", "snapshot_blocks", low=1)
    check_int(max_records, "max_records", "snapshot_blocks", low=1)
    weights = np.asarray(counts, dtype=np.int64)
    return cut_blocks(weights, max_records, lambda rows: _cut(axes, rows, weights, k))
