"""Optimal 1-D grouping: cut a sorted sequence into groups of k to 2k - 1 records.

Ghinita et al. (2007, Section 4) observe that an optimal k-anonymous partition of a
sequence into consecutive groups never needs a group of 2k records or more (splitting it
in two never raises the cost of the cost functions they use), so a dynamic programme over
the group ending at each position, with sizes k .. 2k - 1, finds the optimum in
``O(n k)``:

``best[i] = min_{k <= s <= 2k - 1} best[i - s] + cost(i - s, s)``

where ``cost(j, s)`` prices the group of the ``s`` records starting at position ``j``.

Here ``cost`` is the certainty penalty (NCP) of the group's box times its size (the
paper's GCP before normalization), so the optimum minimizes the global certainty
penalty. The cost table is built with running minima and maxima (one vectorized step per
group size), and the recurrence runs ``k`` positions at a time: the groups ending at
``i .. i + k - 1`` start before ``i``, so a block of ``k`` entries depends only on
entries already computed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray, IntArray
from anonkit._validation import check_int
from anonkit.exceptions import ParameterError
from anonkit.progress import Progress, tick

#: ``(low ranks, high ranks) -> normalized width`` of boxes along one axis.
Width = Callable[[IntArray, IntArray], FloatArray]

__all__ = ["group_costs", "optimal_groups", "split_sizes"]


def group_costs(
    ranks: npt.ArrayLike,
    widths: Sequence[Width],
    k: int,
    *,
    progress: Progress | None = None,
) -> FloatArray:
    """``cost[j, m]``: size times summed normalized width of the group of ``k + m``
    records starting at ``j`` (``inf`` where the sequence is too short).

    Parameters
    ----------
    ranks
        ``(n, d)`` rank of each record (in sequence order) on each axis.
    widths
        Per axis, the normalized width of boxes spanning ``low .. high`` ranks.
    k
        The least group size.
    """
    r = np.asarray(ranks, dtype=np.int64)
    n, d = r.shape
    cost = np.full((n, k), np.inf)
    low, high = r.copy(), r.copy()
    for s in range(1, 2 * k):
        m = n - s + 1  # groups of size s start at 0 .. n - s
        if m <= 0:
            break
        if s > 1:
            np.minimum(low[:m], r[s - 1 :], out=low[:m])
            np.maximum(high[:m], r[s - 1 :], out=high[:m])
        if s >= k:
            total = np.zeros(m)
            for a in range(d):
                total += widths[a](low[:m, a], high[:m, a])
            cost[:m, s - k] = s * total
        tick(progress, s, 2 * k - 1)
    return cost


def optimal_groups(cost: npt.ArrayLike, k: int) -> tuple[IntArray, float]:
    """The sizes of an optimal cut of the sequence into groups of ``k .. 2k - 1``.

    Parameters
    ----------
    cost
        ``(n, k)`` table of :func:`group_costs`.
    k
        The least group size (``n >= k``).

    Returns
    -------
    tuple
        The group sizes in sequence order, and the summed cost.

    Examples
    --------
    >>> c = np.array([[1.0, 9.0], [5.0, 2.0], [1.0, np.inf], [np.inf, np.inf]])
    >>> sizes, total = optimal_groups(c, 2)
    >>> sizes.tolist(), total
    ([2, 2], 2.0)
    """
    table = np.asarray(cost, dtype=np.float64)
    n = table.shape[0]
    check_int(k, "k", "optimal_groups", low=1)
    if n < k:
        raise ParameterError("k", "optimal_groups", f"at most the number of records ({n})", k)
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    choice = np.zeros(n + 1, dtype=np.int64)
    sizes = k + np.arange(k)
    for first in range(k, n + 1, k):
        ends = np.arange(first, min(first + k, n + 1))
        starts = ends[:, None] - sizes[None, :]
        ok = starts >= 0
        safe = np.where(ok, starts, 0)
        values = np.where(ok, best[safe] + table[safe, sizes - k], np.inf)
        pick = values.argmin(axis=1)
        best[ends] = values[np.arange(ends.size), pick]
        choice[ends] = sizes[pick]
    out: list[int] = []
    i = n
    while i > 0:
        out.append(int(choice[i]))
        i -= int(choice[i])
    return np.asarray(out[::-1], dtype=np.int64), float(best[n])


def split_sizes(sizes: npt.ArrayLike) -> IntArray:
    """Group of each position, from the group sizes in order.

    Examples
    --------
    >>> split_sizes([2, 3]).tolist()
    [0, 0, 1, 1, 1]
    """
    s = np.asarray(sizes, dtype=np.int64)
    return np.repeat(np.arange(s.size, dtype=np.int64), s)
