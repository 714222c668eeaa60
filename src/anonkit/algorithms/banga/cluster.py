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
import numpy.typing as npt

from anonkit._validation import check_int
from anonkit.algorithms.banga.grid import Blocks
from anonkit.algorithms.mondrian.attributes import Axis
from anonkit.exceptions import ParameterError
from anonkit.progress import Progress, tick

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

__all__ = ["merge_blocks"]


def _penalty(axes: Sequence[Axis], low: IntArray, high: IntArray, size: FloatArray) -> FloatArray:
    total = np.zeros(low.shape[0])
    for j, axis in enumerate(axes):
        total += axis.width(low[:, j], high[:, j])
    out: FloatArray = size * total
    return out


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
    penalty = _penalty(axes, low, high, size)
    alive = np.ones(m, dtype=bool)
    parent = np.arange(m)
    small = int((size < k).sum())
    done = 0
    while True:
        under = alive & (size < k)
        if not under.any():
            break
        core = int(np.flatnonzero(under)[np.argmax(density[under])])
        others = np.flatnonzero(alive)
        others = others[others != core]
        new_low = np.minimum(low[others], low[core])
        new_high = np.maximum(high[others], high[core])
        grown = _penalty(axes, new_low, new_high, size[others] + size[core])
        growth = grown - penalty[others] - penalty[core]
        pick = int(np.argmin(growth))
        into = int(others[pick])
        low[into], high[into] = new_low[pick], new_high[pick]
        size[into] += size[core]
        penalty[into] = grown[pick]
        # the merged cluster's density: records over the union of the two volumes
        density[into] = size[into] / (size[into] / density[into] + size[core] / density[core])
        alive[core] = False
        parent[core] = into
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
    return cluster_of, float(penalty[alive].sum())
