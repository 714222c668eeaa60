"""The clustering phase of BangA: blocks merged, densest first, into groups of k or more.

Every non-empty block of the grid (:mod:`.grid`) starts as a cluster with the bounding
box of its records. While a cluster holds fewer than ``k`` records, the densest such
cluster (records per unit of its region's normalized volume) is merged into the cluster
whose union with it adds the least information loss: the growth of
``size * sum_j width_j`` (the certainty penalty of the merged box times its records, as
Hilbert's grouping prices groups), ties to the lower cluster number. Clusters of ``k`` or
more are never split.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonkit._arrays import FloatArray, IntArray
from anonkit._validation import check_int
from anonkit.algorithms.banga.grid import Blocks
from anonkit.algorithms.mondrian.attributes import Axis
from anonkit.exceptions import ParameterError
from anonkit.progress import Progress, tick

__all__ = ["merge_blocks"]


#: Largest axis whose widths are tabulated for every (low, high) pair of ranks.
_TABLE_LIMIT = 1024


class _Widths:
    """Summed normalized widths of boxes, from per-axis tables where they fit.

    An axis with at most ``_TABLE_LIMIT`` ranks gets a table of ``axis.width`` for every
    pair of ranks (one gather per box instead of the hierarchy lookups); larger axes call
    ``axis.width``.
    """

    def __init__(self, axes: Sequence[Axis]) -> None:
        self.axes = list(axes)
        tables: list[FloatArray] = []
        self.tabled: list[int] = []
        self.offsets: list[int] = []
        at = 0
        for j, axis in enumerate(self.axes):
            size = max(axis.size, 1)
            if size > _TABLE_LIMIT:
                continue
            lo, hi = np.divmod(np.arange(size * size, dtype=np.int64), size)
            table = np.where(lo <= hi, axis.width(lo, np.maximum(lo, hi)), 0.0)
            tables.append(table.astype(np.float64))
            self.tabled.append(j)
            self.offsets.append(at)
            at += size * size
        self.flat = np.concatenate(tables) if tables else np.zeros(0)
        self.sizes = np.asarray([max(self.axes[j].size, 1) for j in self.tabled], dtype=np.int64)
        self.others = [j for j in range(len(self.axes)) if j not in self.tabled]

    def __call__(self, low: IntArray, high: IntArray) -> FloatArray:
        total: FloatArray = np.zeros(low.shape[0])
        if self.tabled:
            cols = np.asarray(self.tabled)
            index = low[:, cols] * self.sizes + high[:, cols] + np.asarray(self.offsets)
            total += self.flat[index].sum(axis=1)
        for j in self.others:
            total += self.axes[j].width(low[:, j], high[:, j])
        return total


def merge_blocks(
    axes: Sequence[Axis], blocks: Blocks, k: int, *, progress: Progress | None = None
) -> tuple[IntArray, float]:
    """Each record's cluster (``0 .. n_clusters - 1``) and the summed penalty.

    Raises
    ------
    ParameterError
        If the table has fewer than ``k`` records.
    """
    check_int(k, "k", "BangA", low=1)
    ranks = np.stack([a.ranks.astype(np.int64) for a in axes], axis=1)
    n, d = ranks.shape
    if n < k:
        raise ParameterError("k", "BangA", f"at most the number of records ({n})", k)
    m = blocks.n_blocks
    size = np.bincount(blocks.block_of, minlength=m).astype(np.float64)
    low = np.full((m, d), np.iinfo(np.int64).max)
    high = np.full((m, d), -1)
    for j in range(d):
        np.minimum.at(low[:, j], blocks.block_of, ranks[:, j])
        np.maximum.at(high[:, j], blocks.block_of, ranks[:, j])
    extent = np.asarray([max(a.size, 1) for a in axes], dtype=np.float64)
    volume = np.prod((blocks.region_high - blocks.region_low + 1) / extent, axis=1)
    density = size / volume
    widths = _Widths(axes)
    penalty = size * widths(low, high)
    parent = np.arange(m)
    small = int((size < k).sum())
    done = 0
    # the open clusters, compacted by swap-remove so each merge scans only them; ``ids``
    # keeps their numbers (ties go to the lower number, whatever the row)
    ids = np.arange(m)
    n_open = m
    while True:
        under = np.flatnonzero(size[:n_open] < k)
        if under.size == 0:
            break
        dens = density[under]
        ties = under[dens == dens.max()]
        core = int(ties[np.argmin(ids[ties])])
        new_low = np.minimum(low[:n_open], low[core])
        new_high = np.maximum(high[:n_open], high[core])
        grown = (size[:n_open] + size[core]) * widths(new_low, new_high)
        growth = grown - penalty[:n_open] - penalty[core]
        growth[core] = np.inf
        best = np.flatnonzero(growth == growth.min())
        into = int(best[np.argmin(ids[best])])
        low[into], high[into] = new_low[into], new_high[into]
        penalty[into] = grown[into]
        # the merged cluster's density: records over the union of the two volumes
        merged = size[into] + size[core]
        density[into] = merged / (size[into] / density[into] + size[core] / density[core])
        size[into] = merged
        parent[ids[core]] = ids[into]
        last = n_open - 1
        for column in (low, high, size, penalty, density, ids):
            column[core] = column[last]
        n_open = last
        done += 1
        tick(progress, done, small)
    # follow the merges to each block's final cluster
    root = parent.copy()
    while True:
        nxt = root[root]
        if (nxt == root).all():
            break
        root = nxt
    final = np.unique(root, return_inverse=True)[1].reshape(-1).astype(np.int64)
    cluster_of = final[blocks.block_of]
    return cluster_of, float(penalty[:n_open].sum())
