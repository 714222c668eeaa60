"""Greedy multidimensional partitioning (LeFevre, DeWitt & Ramakrishnan 2006, Algorithm 1).

The recursion ``Partition(region)`` of the paper runs breadth-first and vectorized: each
*round* handles every partition that may still be cut at once, so the Python work is per
round, not per partition, and numpy does the per-record work.

1. Extents: per partition and quasi-identifier, the smallest and largest rank
   (``np.minimum.reduceat`` over the partitions' contiguous segments).
2. Choices: per partition, the quasi-identifiers in the order of the split heuristic
   (:data:`SPLITS`, ties to the earlier attribute). An attribute whose values are all
   equal cannot be cut and is never tried.
3. Attempts: every partition proposes a cut on its first choice; all proposals are
   judged together (:class:`~anonkit.algorithms.mondrian.judge.Judge`). Rejected
   partitions move on to their next choice; once few records are left, they propose all
   their remaining choices at once and the most preferred allowable one is taken. A
   partition without an allowable cut is final. Partitions smaller than ``2k`` (the
   largest k of the k-anonymity models) are final without a try, and a hierarchical
   cut already seen to leave a group of fewer than k records is not tried again while
   the group can still be in the partition (*witness* records, see ``_start``): both
   shortcuts only skip cuts that would be rejected.
4. Regrouping: the records of cut partitions are reordered so each part is a segment.

*Weighted rows.* Strict cuts depend on values only, so records with equal
quasi-identifier tuples always end in the same partition. When no model reads per-record
sensitive values, strict partitioning therefore runs on the distinct tuples, each row
weighted by its number of records (medians and part sizes count records), as long as
repeated tuples make that worthwhile (:data:`_WEIGHTED_MAX_SHARE`). On Adult's nine
quasi-identifiers this is 19,502 rows instead of 30,162.

*Compiled engine.* When every model is k-anonymity and no population table is given,
:meth:`Partitioner.run` hands the whole recursion to the compiled kernel of
:mod:`anonkit.algorithms.mondrian.compiled` (``engine="auto"`` or ``"compiled"``); the
vectorized rounds above run otherwise (or with ``engine="numpy"``).

The result is exactly that of the recursion (the tests compare both engines, with and
without weighted rows, against it). Partitions are numbered by their first record, so
both engines return the same arrays.

Cuts (``v`` a record's value, rank or depth-first leaf position):

* numeric / ordered, strict: ``lhs = {v <= median}``, ``rhs = {v > median}``, the median
  being the lower median; when it equals the partition's maximum the split value becomes
  the largest value below the maximum, so both sides are non-empty.
* numeric / ordered, relaxed: the records sorted by ``v`` (ties by record order); the
  first ``floor(n/2)`` go left, the others right, so records equal to the median may
  land on both sides.
* hierarchical (both modes): a partition whose values have the lowest common ancestor
  ``X`` at level ``L`` is cut into the children of ``X`` present (one part per level
  ``L-1`` ancestor); allowable only when every part passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from anonkit.algorithms._ticker import Ticker
from anonkit.algorithms.mondrian import compiled
from anonkit.algorithms.mondrian.attributes import Axis
from anonkit.algorithms.mondrian.judge import Judge, PartStats, TableState
from anonkit.algorithms.mondrian.segments import (
    gather,
    kth_smallest,
    n_distinct,
    ramp,
    segment_cumcount,
)
from anonkit.core.snapshot import group_codes
from anonkit.progress import Progress

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
#: Ranks of the active records, ``(records, n_qi)``, in the smallest int type that fits.
RankArray = npt.NDArray[np.signedinteger[Any]]

#: Split-dimension heuristics.
SPLITS = ("widest", "distinct", "round_robin")
#: Partitioning modes.
MODES = ("strict", "relaxed")
#: Partitioning engines: the compiled kernel where it applies (``auto``), or always the
#: vectorized rounds (``numpy``), or the kernel or an error (``compiled``).
ENGINES = ("auto", "compiled", "numpy")
#: Weighted mode (one row per distinct tuple) is used while distinct tuples are at most
#: this share of the records.
_WEIGHTED_MAX_SHARE = 0.85


@dataclass(frozen=True, eq=False)
class Partitioning:
    """The final partitions.

    Attributes
    ----------
    partition_of
        ``(n,)`` partition of each record, ``0 .. n_partitions - 1``.
    low, high
        ``(n_partitions, n_qi)`` smallest and largest rank per quasi-identifier.
    sizes
        Records per partition.
    population
        Population records inside each partition's released box (or ``None``).
    n_cuts, rounds
        Accepted cuts and vectorized rounds.
    """

    partition_of: IntArray
    low: IntArray
    high: IntArray
    sizes: IntArray
    population: IntArray | None
    n_cuts: int
    rounds: int

    @property
    def n_partitions(self) -> int:
        return int(self.sizes.shape[0])


def _by_first_record(
    partition_of: IntArray,
    low: IntArray,
    high: IntArray,
    sizes: IntArray,
    population: IntArray | None,
    n_cuts: int,
    rounds: int,
) -> Partitioning:
    """The partitioning with partitions renumbered in the order of their first record
    (so the result does not depend on the order in which an engine finishes them)."""
    n, n_part = int(partition_of.shape[0]), int(sizes.shape[0])
    first = np.empty(n_part, dtype=np.int64)
    first[partition_of[::-1]] = np.arange(n - 1, -1, -1, dtype=np.int64)  # last write wins
    order = np.argsort(first, kind="stable")
    new_id = np.empty(n_part, dtype=np.int64)
    new_id[order] = np.arange(n_part, dtype=np.int64)
    return Partitioning(
        partition_of=new_id[partition_of],
        low=low[order],
        high=high[order],
        sizes=sizes[order],
        population=None if population is None else population[order],
        n_cuts=n_cuts,
        rounds=rounds,
    )


@dataclass(frozen=True, eq=False)
class _Batch:
    """Cuts proposed in one attempt (a partition may propose several).

    ``positions`` lists the rows of the proposals, proposal after proposal; ``owner``
    maps each to its proposal (``0 .. S-1``) and ``part`` to its part (``0 ..
    n_parts-1``, numbered proposal after proposal). ``first`` is each proposal's first
    part and ``fan`` its number of parts. ``part_sizes`` counts records, ``part_rows``
    rows (they differ when rows are weighted, see :class:`_Active`).
    """

    positions: IntArray
    owner: IntArray
    part: IntArray
    part_sizes: IntArray
    part_rows: IntArray
    first: IntArray
    fan: IntArray


@dataclass(eq=False)
class _Active:
    """The rows still being partitioned, partition after partition.

    A row is a record or, in *weighted* mode, every record of one distinct
    quasi-identifier tuple (``weights`` records). Strict cuts depend on values only, so
    records with equal tuples always stay together and may be partitioned as one row.
    """

    idx: IntArray  # row ids (records, or distinct tuples in weighted mode)
    values: RankArray  # their ranks, (rows, n_qi)
    sizes: IntArray  # rows per partition
    counts: IntArray  # records per partition (``sizes`` unless weighted)
    weights: FloatArray | None  # records per row (weighted mode), in ``idx`` order
    rr: IntArray  # round robin: each partition's first axis
    witness: npt.NDArray[np.uint64] | None  # witness bits per record (see _start)
    witnessed: bool  # any witness bit set
    pop_idx: IntArray  # population records inside each partition's box
    pop_sizes: IntArray  # ... per partition


@dataclass(eq=False)
class _Cuts:
    """What one round decided, per partition: parts (0 = final) and axis."""

    fan: IntArray
    axis: IntArray
    #: accepted proposals: partitions, their first part in the batch, then their records'
    #: positions and parts (numbered within the batch)
    moved: list[tuple[IntArray, IntArray, IntArray, IntArray]] = field(default_factory=list)
    #: records in the parts of the accepted proposals, in the order of ``moved``
    part_sizes: list[IntArray] = field(default_factory=list)
    #: population records inside accepted parts: ids, partition, part within it
    population: tuple[list[IntArray], list[IntArray], list[IntArray]] = field(
        default_factory=lambda: ([], [], [])
    )


class Partitioner:
    """One run of the partitioning over prepared axes (see the module docstring).

    Parameters
    ----------
    axes
        The quasi-identifiers in rank space.
    judge
        The privacy models.
    relaxed
        Relaxed instead of strict partitioning.
    split
        One of :data:`SPLITS`.
    population
        ``(n_qi, n_population)`` population records as :meth:`Axis.coordinates`, or
        ``None``.
    engine
        One of :data:`ENGINES`.
    progress
        Called as ``progress(rounds done, estimated rounds)`` (see :class:`Mondrian`).
    """

    def __init__(
        self,
        axes: Sequence[Axis],
        judge: Judge,
        *,
        relaxed: bool,
        split: str,
        population: FloatArray | None = None,
        engine: str = "auto",
        progress: Progress | None = None,
    ) -> None:
        self.axes = tuple(axes)
        self.progress = progress
        self.judge = judge
        self.relaxed = relaxed
        self.split = split
        self.population = population
        self.engine = engine
        self._inverse: IntArray | None = None  # record -> row, in weighted mode
        hier = [a.kind == "hierarchical" for a in self.axes]
        self._hier = np.array(hier, dtype=bool)
        self._hier_dims = [d for d, h in enumerate(hier) if h]
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
        self._sib_base = bases
        self._stride = np.array([a.size for a in self.axes], dtype=np.int64)
        self._fan = max([2] + [a.max_fan for a in self.axes])
        heights = np.array(
            [a.hierarchy.height if a.hierarchy is not None else 0 for a in self.axes],
            dtype=np.int64,
        )
        self._bit_base = np.cumsum(heights) - heights  # first witness bit of each axis
        self._bit_count = int(heights.sum())
        self._num_size = max([1] + [self.axes[d].size for d in self._num_dims])
        # flat tables over all hierarchical axes (lowest common ancestor level of two
        # ranks; node of a rank at a level; node widths), so one gather serves them all
        hd = self._hier_dims
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

    # ------------------------------------------------------------------ helpers
    def _levels(self, low: IntArray, high: IntArray) -> tuple[IntArray, FloatArray | None]:
        """Per hierarchical axis and partition, the level of the values' lowest common
        ancestor (0 for other axes), and (if computed on the way) every axis's width."""
        levels = np.zeros_like(low)
        if not self._flat:
            for d in self._hier_dims:
                levels[d] = self.axes[d].lca_level(low[d], high[d])
            return levels, None
        hd = self._hier_dims
        lo, hi = low[hd], high[hd]
        lev = self._lca_flat[self._lca_off + lo * self._h_size + hi].astype(np.int64)
        levels[hd] = lev
        widths = np.empty(low.shape, dtype=np.float64)
        widths[hd] = self._width_flat[self._nor_flat[self._nor_off + lev * self._h_size + lo]]
        for d in self._num_dims:
            widths[d] = self.axes[d].width(low[d], high[d])
        return levels, widths

    def _scores(
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

    def _box(self, low: IntArray, high: IntArray) -> tuple[FloatArray, FloatArray]:
        bounds = [a.bounds(low[d], high[d]) for d, a in enumerate(self.axes)]
        return np.stack([b[0] for b in bounds]), np.stack([b[1] for b in bounds])

    def _propose(
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
    ) -> _Batch:
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
        is_h = self._hier[choice]
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
        return _Batch(
            positions=pos,
            owner=seg,
            part=rank[key],
            part_sizes=part_sizes,
            part_rows=part_rows,
            first=np.cumsum(fan) - fan,
            fan=fan,
        )

    def _population_counts(
        self,
        part_low: IntArray,
        part_high: IntArray,
        owner_pop: IntArray,
        owner_fan: IntArray,
        owner_first: IntArray,
    ) -> tuple[IntArray, IntArray, IntArray]:
        """Population records inside each part's box.

        ``owner_pop`` lists population records (ids) of the proposing partitions, each
        paired with every part of its partition (``owner_fan`` parts from
        ``owner_first``); returns per part the count, and the matching (record, part)
        pairs.
        """
        assert self.population is not None
        lo, hi = self._box(part_low, part_high)
        rec = np.repeat(owner_pop, owner_fan)
        part = np.repeat(owner_first, owner_fan) + ramp(owner_fan)
        inside = np.ones(rec.shape[0], dtype=bool)
        for d in range(len(self.axes)):
            x = self.population[d, rec]
            inside &= (lo[d, part] <= x) & (x <= hi[d, part])
        n_parts = int(part_low.shape[1])
        counts = np.bincount(part[inside], minlength=n_parts).astype(np.int64)
        return counts, rec[inside], part[inside]

    # ---------------------------------------------------------------------- run
    def _root(self) -> tuple[IntArray, PartStats]:
        """Population records inside the table's box, and the whole table's statistics."""
        ranks = [a.ranks for a in self.axes]
        n = int(ranks[0].shape[0])
        low = np.array([[int(r.min())] for r in ranks], dtype=np.int64)
        high = np.array([[int(r.max())] for r in ranks], dtype=np.int64)
        pop_idx = np.zeros(0, dtype=np.int64)
        counts = None
        if self.population is not None:
            lo, hi = self._box(low, high)
            inside = np.all((lo <= self.population) & (self.population <= hi), axis=0)
            pop_idx = np.flatnonzero(inside).astype(np.int64)
            counts = np.array([pop_idx.shape[0]], dtype=np.int64)
        idx = np.arange(n, dtype=np.int64)
        sizes = np.array([n], dtype=np.int64)
        return pop_idx, self.judge.part_stats(idx, np.zeros(n, dtype=np.int64), sizes, counts)

    def root_stats(self) -> PartStats:
        """Statistics of the whole table as one class (the models must accept it)."""
        return self._root()[1]

    def compiled_applies(self) -> bool:
        """Whether the compiled kernel can partition: every model is k-anonymity, no
        population table, and numba is available."""
        return (
            self.judge.sizes_only
            and self.population is None
            and bool(self.axes)
            and compiled.available()
        )

    def _rounds_left(self, records: int) -> int:
        """Estimated rounds left (this one included) when the largest partition still
        being cut holds ``records`` records: the halvings that bring it below the
        smallest cuttable size, plus the round that finds it final."""
        smallest = max(int(self.judge.min_cut_size), 2)
        if records < smallest:
            return 1
        return int(np.log2(records / smallest)) + 2

    def run(self) -> Partitioning:
        """Partition until no partition has an allowable cut."""
        if self.engine != "numpy" and self.compiled_applies():
            ticker = Ticker(self.progress, self._rounds_left(int(self.axes[0].ranks.shape[0])))
            ticker(0)
            part_of, low, high, sizes, n_cuts, rounds = compiled.partition_k(
                self.axes,
                k=self.judge.min_part_size,
                min_cut=self.judge.min_cut_size,
                relaxed=self.relaxed,
                split=self.split,
            )
            ticker.finish(rounds)
            return _by_first_record(part_of, low, high, sizes, None, n_cuts, rounds)
        return self._run_rounds()

    def _run_rounds(self) -> Partitioning:
        """The vectorized, breadth-first engine."""
        judge = self.judge
        pop_idx, root = self._root()
        state = self._start(pop_idx)
        table = TableState(judge, root) if judge.table else None
        partition_of = np.empty(int(state.idx.shape[0]), dtype=np.int64)
        final_low: list[IntArray] = []
        final_high: list[IntArray] = []
        final_sizes: list[IntArray] = []
        final_pop: list[IntArray] = []
        n_final = n_cuts = rounds = 0
        # one report per round: rounds are few (about log2 of the records), each long
        ticker = Ticker(self.progress, self._rounds_left(int(state.counts.max())), interval=0)
        ticker(0)
        while state.sizes.shape[0]:
            if rounds:
                ticker.total = rounds + self._rounds_left(int(state.counts.max()))
                ticker(rounds)
            rounds += 1
            starts = np.cumsum(state.sizes) - state.sizes
            low = np.minimum.reduceat(state.values, starts, axis=0).T.astype(np.int64)
            high = np.maximum.reduceat(state.values, starts, axis=0).T.astype(np.int64)
            cuts = self._decide(state, starts, low, high, table)
            # final partitions leave the active set
            fin = np.flatnonzero(cuts.fan == 0)
            if fin.size:
                pos = gather(starts, state.sizes, fin)
                partition_of[state.idx[pos]] = n_final + np.repeat(
                    np.arange(fin.shape[0], dtype=np.int64), state.sizes[fin]
                )
                final_low.append(low[:, fin].T)
                final_high.append(high[:, fin].T)
                final_sizes.append(state.counts[fin])
                final_pop.append(state.pop_sizes[fin])
                n_final += int(fin.shape[0])
            n_cut = int((cuts.fan > 0).sum())
            if not n_cut:
                break
            n_cuts += n_cut
            state = self._regroup(state, cuts)
            if table is not None:
                cut = np.flatnonzero(cuts.fan > 0)
                table.next_round(cut, cuts.fan[cut])
        ticker.finish(rounds)
        if self._inverse is not None:  # rows were distinct tuples
            partition_of = partition_of[self._inverse]
        return _by_first_record(
            partition_of,
            np.concatenate(final_low),
            np.concatenate(final_high),
            np.concatenate(final_sizes),
            np.concatenate(final_pop) if self.population is not None else None,
            n_cuts,
            rounds,
        )

    def _distinct_tuples(self) -> tuple[RankArray, FloatArray, IntArray] | None:
        """Weighted mode: one row per distinct quasi-identifier tuple, or ``None``.

        Returns the tuples' ranks ``(tuples, n_qi)``, each tuple's number of records and
        every record's tuple, when partitioning tuples gives the records' partitioning
        (strict cuts; no model reads per-record sensitive values) and the table has
        enough repeated tuples for the weights to pay.
        """
        if self.relaxed or self.judge.sensitive:
            return None
        codes, counts, inverse = group_codes(
            [a.ranks for a in self.axes], [a.size for a in self.axes], with_inverse=True
        )
        n_records = int(self.axes[0].ranks.shape[0])
        if codes.shape[1] > _WEIGHTED_MAX_SHARE * n_records:
            return None
        assert inverse is not None
        return codes.T, counts.astype(np.float64), inverse

    def _start(self, pop_idx: IntArray) -> _Active:
        """One partition holding every record (and the population records ``pop_idx``)."""
        widest = max(a.size for a in self.axes)
        dtype = np.int8 if widest <= 127 else np.int16 if widest <= 32767 else np.int32
        n_records = int(self.axes[0].ranks.shape[0])
        weights = None
        self._inverse = None
        distinct = self._distinct_tuples()
        if distinct is None:
            values: RankArray = np.empty((n_records, len(self.axes)), dtype=dtype)
            for d, a in enumerate(self.axes):
                values[:, d] = a.ranks
        else:
            tuples, weights, self._inverse = distinct
            values = tuples.astype(dtype)
        n = int(values.shape[0])
        # Witnesses of failed hierarchical cuts: bit (axis d, level L) of witness[r] is
        # set when record r was in a part of fewer than k records as its partition was
        # cut on d at lowest common ancestor level L. A later partition holding r, whose
        # lowest common ancestor on d is still at level L (so the same node), holds that
        # same too small group (or a part of it), so its cut on d fails without a try.
        use_witness = (
            bool(self._hier_dims) and self.judge.min_part_size > 1 and self._bit_count <= 64
        )
        return _Active(
            idx=np.arange(n, dtype=np.int64),
            values=values,
            sizes=np.array([n], dtype=np.int64),
            counts=np.array([n_records], dtype=np.int64),
            weights=weights,
            rr=np.zeros(1, dtype=np.int64),
            witness=np.zeros(n, dtype=np.uint64) if use_witness else None,
            witnessed=False,
            pop_idx=pop_idx,
            pop_sizes=np.array([pop_idx.shape[0]], dtype=np.int64),
        )

    def _decide(
        self,
        state: _Active,
        starts: IntArray,
        low: IntArray,
        high: IntArray,
        table: TableState | None,
    ) -> _Cuts:
        """The cut (if any) of every partition in this round."""
        n_qi = len(self.axes)
        sizes = state.sizes
        n_part = int(sizes.shape[0])
        cuts = _Cuts(np.zeros(n_part, dtype=np.int64), np.zeros(n_part, dtype=np.int64))
        cand = np.flatnonzero((state.counts >= self.judge.min_cut_size) & (high > low).any(axis=0))
        if not cand.size:
            return cuts
        low_c, high_c = low[:, cand], high[:, cand]
        levels, widths = self._levels(low_c, high_c)
        if self.split == "distinct":
            pos = gather(starts, sizes, cand)
            score = self._scores(
                low_c, high_c, levels, widths, state.rr[cand], state.values[pos], sizes[cand]
            )
        else:
            score = self._scores(low_c, high_c, levels, widths, state.rr[cand], state.values, sizes)
        if state.witnessed:
            assert state.witness is not None
            seen = np.bitwise_or.reduceat(state.witness, starts)[cand]
            bit = (self._bit_base[:, None] + levels).astype(np.uint64)
            failed = ((seen[None, :] >> bit) & np.uint64(1)).astype(bool)
            score[(failed & self._hier[:, None]).T] = -np.inf
        child_base = np.where(
            self._hier[:, None], self._sib_base[:, None] + (levels - 1) * self._stride[:, None], 0
        ).T
        order = np.argsort(-score, axis=1, kind="stable")
        n_viable = np.isfinite(score).sum(axis=1)  # viable choices come first
        pop_starts = np.cumsum(state.pop_sizes) - state.pop_sizes
        pending = cand
        rows = np.arange(cand.shape[0])  # row of each pending partition in the plan
        attempt = 0
        while pending.size and attempt < n_qi:
            n_left = n_viable[rows] - attempt
            has = n_left > 0
            if not has.all():
                pending, rows, n_left = pending[has], rows[has], n_left[has]
                if not pending.size:
                    break
            # After a first attempt, the few partitions left propose every remaining
            # choice at once (the most preferred allowable one wins).
            spec = attempt > 0 and int((sizes[pending] * n_left).sum()) <= max(
                int(state.idx.shape[0]), 4096
            )
            if spec:
                unit = np.repeat(np.arange(pending.shape[0]), n_left)
                j = attempt + ramp(n_left)
            else:
                unit = np.arange(pending.shape[0])
                j = np.full(pending.shape[0], attempt, dtype=np.int64)
            choice = order[rows[unit], j]
            on_tree = self._hier[choice]
            everything = attempt == 0 and pending.shape[0] == n_part
            if on_tree.any() and not on_tree.all():  # numeric proposals first
                perm = np.argsort(on_tree, kind="stable")
                unit, j, choice = unit[perm], j[perm], choice[perm]
                everything = False
            unit_part, unit_row = pending[unit], rows[unit]
            batch = self._propose(
                unit_part,
                choice,
                child_base[unit_row, choice],
                high_c[choice, unit_row],
                starts,
                sizes,
                state.values,
                counts=state.counts,
                weights=state.weights,
                everything=everything,
            )
            chosen = self._judge(batch, unit_part, j, state, pop_starts, table, cuts.population)
            if chosen.all():
                cuts.moved.append((unit_part, batch.first, batch.positions, batch.part))
                cuts.part_sizes.append(batch.part_sizes)
            elif chosen.any():
                cuts.part_sizes.append(batch.part_sizes[np.repeat(chosen, batch.fan)])
                rec_ok = chosen[batch.owner]
                cuts.moved.append(
                    (
                        unit_part[chosen],
                        batch.first[chosen],
                        batch.positions[rec_ok],
                        batch.part[rec_ok],
                    )
                )
            cuts.fan[unit_part[chosen]] = batch.fan[chosen]
            cuts.axis[unit_part[chosen]] = choice[chosen]
            if state.witness is not None:
                self._witness(state, batch, choice, levels[choice, unit_row], spec)
            if spec:
                break
            rest = np.ones(pending.shape[0], dtype=bool)
            rest[unit] = ~chosen  # one proposal per partition here
            pending, rows = pending[rest], rows[rest]
            attempt += 1
        return cuts

    def _witness(
        self, state: _Active, batch: _Batch, choice: IntArray, level: IntArray, spec: bool
    ) -> None:
        """Mark the records of too small parts of hierarchical proposals."""
        assert state.witness is not None
        small = batch.part_sizes < self.judge.min_part_size
        small &= np.repeat(self._hier[choice], batch.fan)
        if not small.any():
            return
        rec = np.flatnonzero(small[batch.part])
        owner = batch.owner[rec]
        bits = np.left_shift(
            np.uint64(1), (self._bit_base[choice[owner]] + level[owner]).astype(np.uint64)
        )
        if spec:  # a record may be in several proposals
            np.bitwise_or.at(state.witness, batch.positions[rec], bits)
        else:
            state.witness[batch.positions[rec]] |= bits
        state.witnessed = True

    def _regroup(self, state: _Active, cuts: _Cuts) -> _Active:
        """The parts of the cut partitions, each a segment, as the next partitions."""
        sizes = state.sizes
        cut = np.flatnonzero(cuts.fan > 0)
        base = np.zeros(sizes.shape[0], dtype=np.int64)
        base[cut] = np.cumsum(cuts.fan[cut]) - cuts.fan[cut]
        n_next = int(cuts.fan[cut].sum())
        shift = [np.repeat(base[parts] - first, sizes[parts]) for parts, first, _, _ in cuts.moved]
        segment = np.concatenate(shift) + np.concatenate([m[3] for m in cuts.moved])
        moved = np.concatenate([m[2] for m in cuts.moved])
        key = segment.astype(np.uint16) if n_next <= 1 << 16 else segment
        sel = moved[np.argsort(key, kind="stable")]
        pop_idx = state.pop_idx
        pop_sizes = np.zeros(n_next, dtype=np.int64)
        if self.population is not None:
            recs, partition, part = (np.concatenate(x) for x in cuts.population)
            pseg = base[partition] + part
            pop_idx = recs[np.argsort(pseg, kind="stable")]
            pop_sizes = np.bincount(pseg, minlength=n_next).astype(np.int64)
        sizes = np.bincount(segment, minlength=n_next).astype(np.int64)
        weights = None if state.weights is None else state.weights[sel]
        if state.weights is None:
            counts = sizes
        else:  # new partitions are the accepted parts, numbered as in cuts.moved
            parts = np.concatenate([m[0] for m in cuts.moved])
            fans = cuts.fan[parts]
            counts = np.empty(n_next, dtype=np.int64)
            counts[np.repeat(base[parts], fans) + ramp(fans)] = np.concatenate(cuts.part_sizes)
        return _Active(
            idx=state.idx[sel],
            values=np.take(state.values, sel, axis=0),
            sizes=sizes,
            counts=counts,
            weights=weights,
            rr=np.repeat((cuts.axis[cut] + 1) % len(self.axes), cuts.fan[cut]),
            witness=None if state.witness is None else state.witness[sel],
            witnessed=state.witnessed,
            pop_idx=pop_idx,
            pop_sizes=pop_sizes,
        )

    def _judge(
        self,
        batch: _Batch,
        pending: IntArray,
        preference: IntArray,
        state: _Active,
        pop_starts: IntArray,
        table: TableState | None,
        pop_out: tuple[list[IntArray], list[IntArray], list[IntArray]],
    ) -> BoolArray:
        """Which proposals are taken: per partition, its most preferred allowable one.

        ``pending[i]`` is the partition of proposal ``i`` and ``preference[i]`` its rank
        among that partition's choices (lower first). For taken proposals, the population
        records inside each part are appended to ``pop_out`` (record ids, partition, part
        within the partition).
        """
        population = None
        matches: tuple[IntArray, IntArray] | None = None
        if self.population is not None:
            pop_idx, pop_sizes, values = state.pop_idx, state.pop_sizes, state.values
            order = np.argsort(batch.part, kind="stable")
            part_starts = np.cumsum(batch.part_rows) - batch.part_rows
            block = np.take(values, batch.positions[order], axis=0)
            p_low = np.minimum.reduceat(block, part_starts, axis=0).T.astype(np.int64)
            p_high = np.maximum.reduceat(block, part_starts, axis=0).T.astype(np.int64)
            owner_pos = gather(pop_starts, pop_sizes, pending)
            owner_of = np.repeat(np.arange(pending.shape[0], dtype=np.int64), pop_sizes[pending])
            population, rec, prt = self._population_counts(
                p_low, p_high, pop_idx[owner_pos], batch.fan[owner_of], batch.first[owner_of]
            )
            matches = (rec, prt)
        stats = None
        if self.judge.sizes_only:  # k-anonymity alone: every part needs k records
            smallest = np.minimum.reduceat(batch.part_sizes, batch.first)
            ok = smallest >= self.judge.min_part_size
        else:
            records = state.idx[batch.positions] if self.judge.sensitive else batch.positions
            stats = self.judge.part_stats(records, batch.part, batch.part_sizes, population)
            ok = ~np.logical_or.reduceat(self.judge.local_violations(stats), batch.first)
        # the most preferred allowable proposal of each partition
        if table is None and preference.max() == preference.min():
            chosen = ok  # one proposal per partition
            candidates = np.zeros(0, dtype=np.int64)
        else:
            chosen = np.zeros(ok.shape[0], dtype=bool)
            candidates = np.flatnonzero(ok)
        if candidates.size:
            if table is not None or preference.max() > preference.min():
                # in order of partition, then preference
                candidates = candidates[np.lexsort((preference[candidates], pending[candidates]))]
            owners = pending[candidates]
            first = np.empty(owners.shape[0], dtype=bool)
            first[:1] = True
            np.not_equal(owners[1:], owners[:-1], out=first[1:])
            if table is None:
                chosen[candidates[first]] = True
            else:
                done: set[int] = set()
                for i in candidates.tolist():
                    p = int(pending[i])
                    if p in done:
                        continue
                    rows = np.arange(batch.first[i], batch.first[i] + batch.fan[i])
                    assert stats is not None
                    if table.try_cut(p, stats.take(rows)):
                        chosen[i] = True
                        done.add(p)
        if matches is not None:
            rec, prt = matches
            part_owner = np.repeat(np.arange(pending.shape[0], dtype=np.int64), batch.fan)
            keep = chosen[part_owner[prt]]
            owner = part_owner[prt[keep]]
            pop_out[0].append(rec[keep])
            pop_out[1].append(pending[owner])
            pop_out[2].append(prt[keep] - batch.first[owner])
        return chosen
