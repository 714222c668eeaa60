"""The judging of Mondrian's candidate cuts: per round, which partitions are cut and how."""

from __future__ import annotations

import numpy as np

from anonkit._arrays import BoolArray, FloatArray, IntArray
from anonkit.algorithms.mondrian.cuts import Batch, CutSearch
from anonkit.algorithms.mondrian.judge import Judge, TableState
from anonkit.algorithms.mondrian.rounds import Active, Cuts
from anonkit.algorithms.mondrian.segments import gather, ramp


class Decider:
    """The cut (if any) of every partition in a round: proposals judged together, the most
    preferred allowable one taken (see :mod:`anonkit.algorithms.mondrian.partition`).

    Parameters
    ----------
    search
        The cut search of the run.
    judge
        The privacy models.
    population
        ``(n_qi, n_population)`` population records as :meth:`Axis.coordinates`, or
        ``None``.
    """

    def __init__(self, search: CutSearch, judge: Judge, population: FloatArray | None) -> None:
        self.search = search
        self.judge = judge
        self.population = population

    def decide(
        self,
        state: Active,
        starts: IntArray,
        low: IntArray,
        high: IntArray,
        table: TableState | None,
    ) -> Cuts:
        """The cut (if any) of every partition in this round."""
        n_qi = len(self.search.axes)
        sizes = state.sizes
        n_part = int(sizes.shape[0])
        cuts = Cuts(np.zeros(n_part, dtype=np.int64), np.zeros(n_part, dtype=np.int64))
        cand = np.flatnonzero((state.counts >= self.judge.min_cut_size) & (high > low).any(axis=0))
        if not cand.size:
            return cuts
        low_c, high_c = low[:, cand], high[:, cand]
        levels, widths = self.search.levels(low_c, high_c)
        if self.search.split == "distinct":
            pos = gather(starts, sizes, cand)
            score = self.search.scores(
                low_c, high_c, levels, widths, state.rr[cand], state.values[pos], sizes[cand]
            )
        else:
            score = self.search.scores(
                low_c, high_c, levels, widths, state.rr[cand], state.values, sizes
            )
        if state.witnessed:
            assert state.witness is not None
            seen = np.bitwise_or.reduceat(state.witness, starts)[cand]
            bit = (self.search.bit_base[:, None] + levels).astype(np.uint64)
            failed = ((seen[None, :] >> bit) & np.uint64(1)).astype(bool)
            score[(failed & self.search.hier[:, None]).T] = -np.inf
        child_base = np.where(
            self.search.hier[:, None],
            self.search.sib_base[:, None] + (levels - 1) * self.search.stride[:, None],
            0,
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
            on_tree = self.search.hier[choice]
            everything = attempt == 0 and pending.shape[0] == n_part
            if on_tree.any() and not on_tree.all():  # numeric proposals first
                perm = np.argsort(on_tree, kind="stable")
                unit, j, choice = unit[perm], j[perm], choice[perm]
                everything = False
            unit_part, unit_row = pending[unit], rows[unit]
            batch = self.search.propose(
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
        self, state: Active, batch: Batch, choice: IntArray, level: IntArray, spec: bool
    ) -> None:
        """Mark the records of too small parts of hierarchical proposals."""
        assert state.witness is not None
        small = batch.part_sizes < self.judge.min_part_size
        small &= np.repeat(self.search.hier[choice], batch.fan)
        if not small.any():
            return
        rec = np.flatnonzero(small[batch.part])
        owner = batch.owner[rec]
        bits = np.left_shift(
            np.uint64(1), (self.search.bit_base[choice[owner]] + level[owner]).astype(np.uint64)
        )
        if spec:  # a record may be in several proposals
            np.bitwise_or.at(state.witness, batch.positions[rec], bits)
        else:
            state.witness[batch.positions[rec]] |= bits
        state.witnessed = True

    def _judge(
        self,
        batch: Batch,
        pending: IntArray,
        preference: IntArray,
        state: Active,
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
        lo, hi = self.search.box(part_low, part_high)
        rec = np.repeat(owner_pop, owner_fan)
        part = np.repeat(owner_first, owner_fan) + ramp(owner_fan)
        inside = np.ones(rec.shape[0], dtype=bool)
        for d in range(len(self.search.axes)):
            x = self.population[d, rec]
            inside &= (lo[d, part] <= x) & (x <= hi[d, part])
        n_parts = int(part_low.shape[1])
        counts = np.bincount(part[inside], minlength=n_parts).astype(np.int64)
        return counts, rec[inside], part[inside]
