"""Univariate fixed-size microaggregation: sort, then cut into groups of ``k``.

Records are sorted by the attribute and consecutive runs of ``k`` records form the groups;
the ``n mod k`` records left at the end (fewer than ``k``) join the last group, so it has
between ``k`` and ``2k - 1`` records (seed 002, "Univariate Case"; Defays & Nanopoulos
1993). The sort is stable: equal values keep their record order. With several attributes
the first one is the sort key and the others break its ties, in order (a lexicographic
sort); that is still univariate microaggregation of the first attribute, and it keeps the
groups k-anonymous when every attribute is then replaced by its group aggregate.

This fixed-size heuristic is simple and fast (``O(n log n)``) but not optimal: the optimal
univariate partition may use groups of ``k`` to ``2k - 1`` records anywhere (Hansen &
Mukherjee 2003).

References
----------
D. Defays and P. Nanopoulos. Panels of enterprises and confidentiality: the small
aggregates method. Proc. Statistics Canada Symposium 92, 1993.

S. L. Hansen and S. Mukherjee. A polynomial algorithm for optimal univariate
microaggregation. IEEE TKDE 15(4):1043-1044, 2003.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from anonkit._arrays import IntArray
from anonkit.algorithms.microaggregation.loss import as_table


def univariate_groups(data: npt.ArrayLike, k: int) -> IntArray:
    """Group id of each record under univariate fixed-size microaggregation.

    Parameters
    ----------
    data
        ``(n_records, n_attributes)`` numeric table (1-D: one attribute). The first
        attribute is the sort key; the others only break its ties.
    k
        Group size, ``1 <= k <= n_records`` (validated by the
        :class:`~anonkit.algorithms.microaggregation.Microaggregation` class).

    Returns
    -------
    numpy.ndarray
        int64 group id per record; group 0 holds the smallest values.

    Examples
    --------
    >>> univariate_groups([5, 1, 4, 2, 3, 9, 7], 3).tolist()
    [1, 0, 1, 0, 0, 1, 1]
    """
    table = as_table(data, "univariate")
    n = table.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    # np.lexsort sorts by its last key first and is stable.
    order = np.lexsort(table.T[::-1]) if table.shape[1] else np.arange(n)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n, dtype=np.int64)
    n_groups = max(1, n // k)
    groups: IntArray = np.minimum(rank // k, n_groups - 1)
    return groups
