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

*Compiled implementation.* When every model is k-anonymity and no population table is given,
:meth:`Partitioner.run` hands the whole recursion to the compiled kernel of
:mod:`anonkit.algorithms.mondrian.compiled` (``implementation="auto"`` or ``"compiled"``); the
vectorized rounds above run otherwise (or with ``implementation="numpy"``).

The result is exactly that of the recursion (the tests compare both implementations, with and
without weighted rows, against it). Partitions are numbered by their first record, so
both implementations return the same arrays.

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
from dataclasses import dataclass

import numpy as np

from anonkit._arrays import FloatArray, IntArray
from anonkit.algorithms._ticker import Ticker
from anonkit.algorithms.mondrian import compiled
from anonkit.algorithms.mondrian.attributes import Axis
from anonkit.algorithms.mondrian.cuts import CutSearch, RankArray
from anonkit.algorithms.mondrian.decide import Decider
from anonkit.algorithms.mondrian.judge import Judge, PartStats, TableState
from anonkit.algorithms.mondrian.rounds import Active, regroup
from anonkit.algorithms.mondrian.segments import gather
from anonkit.core.snapshot import group_codes
from anonkit.progress import Progress

#: Split-dimension heuristics.
SPLITS = ("widest", "distinct", "round_robin")
#: Partitioning modes.
MODES = ("strict", "relaxed")
#: Partitioning implementations: the compiled kernel where it applies (``auto``), or always the
#: vectorized rounds (``numpy``), or the kernel or an error (``compiled``).
IMPLEMENTATIONS = ("auto", "compiled", "numpy")
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
    (so the result does not depend on the order in which an implementation finishes them)."""
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
    implementation
        One of :data:`IMPLEMENTATIONS`.
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
        implementation: str = "auto",
        progress: Progress | None = None,
    ) -> None:
        self.axes = tuple(axes)
        self.progress = progress
        self.judge = judge
        self.relaxed = relaxed
        self.split = split
        self.population = population
        self.implementation = implementation
        self._inverse: IntArray | None = None  # record -> row, in weighted mode
        self._search = CutSearch(self.axes, relaxed=relaxed, split=split)
        self._decider = Decider(self._search, judge, population)

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
            lo, hi = self._search.box(low, high)
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
        if self.implementation != "numpy" and self.compiled_applies():
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
        """The vectorized, breadth-first implementation."""
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
            cuts = self._decider.decide(state, starts, low, high, table)
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
            state = regroup(state, cuts, len(self.axes), self.population is not None)
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

    def _start(self, pop_idx: IntArray) -> Active:
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
            bool(self._search.hier_dims)
            and self.judge.min_part_size > 1
            and self._search.bit_count <= 64
        )
        return Active(
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
