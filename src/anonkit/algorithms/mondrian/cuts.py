"""The cut search of Mondrian: per-axis tables, cut preferences, and the parts of the
cuts proposed in one attempt (see :mod:`anonkit.algorithms.mondrian.partition`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray, IntArray
from anonkit.algorithms.mondrian.attributes import Axis
from anonkit.algorithms.mondrian.segments import gather, kth_smallest, n_distinct, segment_cumcount

#: Ranks of the active records, ``(records, n_qi)``, in the smallest int type that fits.
RankArray = npt.NDArray[np.signedinteger[Any]]


@dataclass(frozen=True, eq=False)
class Batch:
    """Cuts proposed in one attempt (a partition may propose several).

    ``positions`` lists the rows of the proposals, proposal after proposal; ``owner``
    maps each to its proposal (``0 .. S-1``) and ``part`` to its part (``0 ..
    n_parts-1``, numbered proposal after proposal). ``first`` is each proposal's first
    part and ``fan`` its number of parts. ``part_sizes`` counts records, ``part_rows``
    rows (they differ when rows are weighted, see
    :class:`~anonkit.algorithms.mondrian.rounds.Active`).
    """

    positions: IntArray
    owner: IntArray
    part: IntArray
    part_sizes: IntArray
    part_rows: IntArray
    first: IntArray
    fan: IntArray


class CutSearch:
    """Where the partitions of one run may be cut: per-axis tables, the level of a
    partition's values, the preference of each cut and the parts of proposed cuts.

    Parameters
    ----------
    axes
        The quasi-identifiers in rank space.
    relaxed
        Relaxed instead of strict partitioning.
    split
        One of :data:`~anonkit.algorithms.mondrian.partition.SPLITS`.
    """

    def __init__(self, axes: Sequence[Axis], *, relaxed: bool, split: str) -> None:
        self.axes = tuple(axes)
        self.relaxed = relaxed
        self.split = split
        hier = [a.kind == "hierarchical" for a in self.axes]
        self.hier = np.array(hier, dtype=bool)
        self.hier_dims = [d for d, h in enumerate(hier) if h]
        self._num_dims = [d for d, h in enumerate(hier) if not h]
        # one flat table of sibling positions: axis d, child level l, rank r at
        # _sib_base[d] + l * size_d + r (padded so that any rank indexes safely)
        tables: list[IntArray] = []
        bases = np.zeros(len(self.axes), dtype=np.int64)
        offset = 0
        for d, a in enumerate(self.axes):
            if a.sibling_of_rank is not None:
                bases[d] = offset
                tables.append(a.sibling_of_rank.ravel())
                offset += int(a.sibling_of_rank.size)
        pad = max(a.size for a in self.axes)
        self._sib = np.concatenate([*tables, np.zeros(pad, dtype=np.int64)])
        self.sib_base = bases
        self.stride = np.array([a.size for a in self.axes], dtype=np.int64)
        self._fan = max([2] + [a.max_fan for a in self.axes])
        heights = np.array(
            [a.hierarchy.height if a.hierarchy is not None else 0 for a in self.axes],
            dtype=np.int64,
        )
        self.bit_base = np.cumsum(heights) - heights  # first witness bit of each axis
        self.bit_count = int(heights.sum())
        self._num_size = max([1] + [self.axes[d].size for d in self._num_dims])
        # flat tables over all hierarchical axes (lowest common ancestor level of two
        # ranks; node of a rank at a level; node widths), so one gather serves them all
        hd = self.hier_dims
        self._flat = bool(hd) and all(self.axes[d].lca_table is not None for d in hd)
        if self._flat:
            sizes = np.array([self.axes[d].size for d in hd], dtype=np.int64)
            lca = [self.axes[d].lca_table for d in hd]
            nor = [self.axes[d].node_of_rank for d in hd]
            widths = [self.axes[d].node_width for d in hd]
            self._h_size = sizes[:, None]
            self._lca_flat = np.concatenate([t.ravel() for t in lca if t is not None])
            self._lca_off = (np.cumsum(sizes * sizes) - sizes * sizes)[:, None]
            nor_sizes = np.array([t.size for t in nor if t is not None], dtype=np.int64)
            node_counts = np.array([w.size for w in widths if w is not None], dtype=np.int64)
            node_off = np.cumsum(node_counts) - node_counts
            self._nor_flat = np.concatenate(
                [t.ravel() + o for t, o in zip(nor, node_off, strict=True) if t is not None]
            )
            self._nor_off = (np.cumsum(nor_sizes) - nor_sizes)[:, None]
            self._width_flat = np.concatenate([w for w in widths if w is not None])

    def levels(self, low: IntArray, high: IntArray) -> tuple[IntArray, FloatArray | None]:
        """Per hierarchical axis and partition, the level of the values' lowest common
        ancestor (0 for other axes), and (if computed on the way) every axis's width."""
        levels = np.zeros_like(low)
        if not self._flat:
            for d in self.hier_dims:
                levels[d] = self.axes[d].lca_level(low[d], high[d])
            return levels, None
        hd = self.hier_dims
        lo, hi = low[hd], high[hd]
        lev = self._lca_flat[self._lca_off + lo * self._h_size + hi].astype(np.int64)
        levels[hd] = lev
        widths = np.empty(low.shape, dtype=np.float64)
        widths[hd] = self._width_flat[self._nor_flat[self._nor_off + lev * self._h_size + lo]]
        for d in self._num_dims:
            widths[d] = self.axes[d].width(low[d], high[d])
        return levels, widths

    def scores(
        self,
        low: IntArray,
        high: IntArray,
        levels: IntArray,
        widths: FloatArray | None,
        rr: IntArray,
        values: RankArray,
        sizes: IntArray,
    ) -> FloatArray:
        """``(n_partitions, n_qi)`` preference of each cut; ``-inf`` where none exists."""
        n_qi = len(self.axes)
        cuttable = high > low
        if self.split == "widest":
            if widths is None:
                widths = np.stack(
                    [a.width(low[d], high[d], levels[d]) for d, a in enumerate(self.axes)]
                )
            score = widths
        elif self.split == "distinct":
            seg = np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)
            score = np.stack(
                [
                    n_distinct(seg, values[:, d], a.size, int(sizes.shape[0])).astype(np.float64)
                    for d, a in enumerate(self.axes)
                ]
            )
        else:  # round robin: the partition's next axis first, then cyclically
            dims = np.arange(n_qi, dtype=np.int64)[:, None]
            score = (n_qi - (dims - rr[None, :]) % n_qi).astype(np.float64)
        out: FloatArray = np.where(cuttable, score, -np.inf).T
        return out

    def box(self, low: IntArray, high: IntArray) -> tuple[FloatArray, FloatArray]:
        bounds = [a.bounds(low[d], high[d]) for d, a in enumerate(self.axes)]
        return np.stack([b[0] for b in bounds]), np.stack([b[1] for b in bounds])

    def propose(
        self,
        pending: IntArray,
        choice: IntArray,
        child_base: IntArray,
        high: IntArray,
        starts: IntArray,
        sizes: IntArray,
        values: RankArray,
        *,
        counts: IntArray,
        weights: FloatArray | None = None,
        everything: bool = False,
    ) -> Batch:
        """Cut each partition ``pending[i]`` on axis ``choice[i]``, all at once.

        A partition may appear several times (one proposal per axis); proposals on
        numeric or ordered axes must come before hierarchical ones. ``child_base[i]``
        locates, for hierarchical choices, the sibling positions at the child level in
        the flat table; ``high[i]`` is the partition's largest rank on its chosen axis.
        ``counts`` are the records per partition and ``weights`` the records per row
        (``None``: one each). ``everything`` says that ``pending`` is every partition, in
        order.
        """
        n_seg = int(pending.shape[0])
        psz = sizes[pending]
        n_active, n_qi = values.shape
        if everything:
            pos = np.arange(n_active, dtype=np.int64)
        else:
            pos = gather(starts, sizes, pending)
        seg = np.repeat(np.arange(n_seg, dtype=np.int64), psz)
        if (choice == choice[0]).all():
            vals = values[pos, int(choice[0])]
        else:
            vals = np.take(values.ravel(), pos * n_qi + np.repeat(choice, psz))
        is_h = self.hier[choice]
        # numeric / ordered proposals come first: their records are vals[:m]
        n_num = n_seg - int(is_h.sum())
        m = int(psz[:n_num].sum()) if n_num < n_seg else int(pos.shape[0])
        key = np.zeros(pos.shape[0], dtype=np.int64)
        if n_num < n_seg:
            # hierarchical: the position, among the children of the values' lowest common
            # ancestor (level L), of each value's ancestor at level L - 1
            key[m:] = self._sib[np.repeat(child_base[n_num:], psz[n_num:]) + vals[m:]]
        if n_num:
            # numeric / ordered: 0 = left of the median, 1 = right
            ssz = psz[:n_num]
            sseg = seg[:m]
            v = vals[:m]
            sstarts = np.cumsum(ssz) - ssz
            if weights is not None:  # strict only
                rec = counts[pending[:n_num]]
                median = kth_smallest(
                    sseg,
                    v,
                    self._num_size,
                    sstarts,
                    (rec - 1) // 2,
                    weights[pos[:m]],
                    np.cumsum(rec) - rec,
                )
                threshold = np.minimum(median, high[:n_num] - 1)
                key[:m] = v > np.repeat(threshold, ssz)
            elif not self.relaxed:
                median = kth_smallest(sseg, v, self._num_size, sstarts, (ssz - 1) // 2)
                # ranks are ints: "v < max" is "v <= max - 1"
                threshold = np.minimum(median, high[:n_num] - 1)
                key[:m] = v > np.repeat(threshold, ssz)
            else:
                half = ssz // 2
                median = kth_smallest(sseg, v, self._num_size, sstarts, half - 1)
                at = np.repeat(median, ssz)
                below = v < at
                equal = v == at
                need = half - np.add.reduceat(below.astype(np.int64), sstarts)
                left = below | (equal & (segment_cumcount(equal, sseg, sstarts) <= need[sseg]))
                key[:m] = ~left
        fan_cap = self._fan if is_h.any() else 2
        key += seg * fan_cap
        rows = np.bincount(key, minlength=n_seg * fan_cap)
        present = rows > 0
        rank = np.cumsum(present) - 1
        fan = present.reshape(n_seg, fan_cap).sum(axis=1)
        part_rows = rows[present].astype(np.int64)
        if weights is None:
            part_sizes = part_rows
        else:
            weighted = np.bincount(key, weights[pos], minlength=n_seg * fan_cap)
            part_sizes = weighted[present].astype(np.int64)
        return Batch(
            positions=pos,
            owner=seg,
            part=rank[key],
            part_sizes=part_sizes,
            part_rows=part_rows,
            first=np.cumsum(fan) - fan,
            fan=fan,
        )
