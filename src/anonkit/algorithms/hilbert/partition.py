"""Hilbert-curve k-anonymization (Ghinita, Karras, Kalnis, Mamoulis, VLDB 2007).

The quasi-identifiers of each record, as ranks (numeric: rank of the value among the
distinct values; categorical: the leaf's position in its hierarchy's leaf order), are a
point of a d-dimensional grid. Sorting the points along the Hilbert curve keeps records
that are close in the grid mostly close in the sequence; the sequence is then cut
optimally (:mod:`.grouping`) into groups of ``k .. 2k - 1`` consecutive records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from anonkit._arrays import IntArray
from anonkit._validation import check_int
from anonkit.algorithms.hilbert.curve import bits_for, hilbert_order
from anonkit.algorithms.hilbert.grouping import group_costs, optimal_groups, split_sizes
from anonkit.algorithms.mondrian.attributes import Axis
from anonkit.algorithms.mondrian.partition import Partitioning
from anonkit.exceptions import ParameterError
from anonkit.progress import Progress, start_stage

__all__ = ["Grouping", "groups_to_partitioning", "hilbert_groups"]


@dataclass(frozen=True, eq=False)
class Grouping:
    """Records grouped for release.

    Attributes
    ----------
    group_of
        ``(n,)`` group of each record (``0 .. n_groups - 1``, in curve order).
    ncp
        The summed certainty penalty over records (``sum size * sum_j width_j``).
    gcp
        ``ncp / (n * d)``: the global certainty penalty in [0, 1].
    """

    group_of: IntArray
    ncp: float
    gcp: float

    @property
    def n_groups(self) -> int:
        return int(self.group_of.max()) + 1 if self.group_of.size else 0


def hilbert_groups(axes: Sequence[Axis], k: int, *, progress: Progress | None = None) -> Grouping:
    """Sort the records along the Hilbert curve and group them optimally.

    Parameters
    ----------
    axes
        The quasi-identifiers in rank space (:class:`~anonkit.algorithms.mondrian.attributes.Axis`).
    k
        The least group size.
    progress
        ``progress(done, total)`` over the group sizes priced.
    """
    check_int(k, "k", "Hilbert", low=1)
    if not axes:
        raise ParameterError("quasi_identifiers", "Hilbert", "at least one column", [])
    ranks = np.stack([a.ranks.astype(np.int64) for a in axes], axis=1)
    n, d = ranks.shape
    if n < k:
        raise ParameterError("k", "Hilbert", f"at most the number of records ({n})", k)
    start_stage(progress, "Hilbert curve")
    order = hilbert_order(ranks, bits_for([a.size for a in axes]))
    sorted_ranks = ranks[order]
    start_stage(progress, "Pricing groups", "group sizes")
    cost = group_costs(sorted_ranks, [a.width for a in axes], k, progress=progress)
    start_stage(progress, "Grouping")
    sizes, total = optimal_groups(cost, k)
    group_of = np.empty(n, dtype=np.int64)
    group_of[order] = split_sizes(sizes)
    return Grouping(group_of, total, total / (n * d))


def groups_to_partitioning(axes: Sequence[Axis], group_of: IntArray) -> Partitioning:
    """The groups as Mondrian's :class:`Partitioning` (rank boxes per group), so that
    Mondrian's release writes them (ranges, leaf ranges or lowest common ancestors)."""
    ranks = np.stack([a.ranks.astype(np.int64) for a in axes], axis=1)
    g = int(group_of.max()) + 1
    low = np.full((g, len(axes)), np.iinfo(np.int64).max, dtype=np.int64)
    high = np.full((g, len(axes)), -1, dtype=np.int64)
    for j in range(len(axes)):
        np.minimum.at(low[:, j], group_of, ranks[:, j])
        np.maximum.at(high[:, j], group_of, ranks[:, j])
    sizes = np.bincount(group_of, minlength=g).astype(np.int64)
    return Partitioning(group_of.astype(np.int64), low, high, sizes, None, 0, 0)
