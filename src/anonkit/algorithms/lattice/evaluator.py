"""Evaluate lattice nodes: roll up a snapshot, judge the privacy models, price the node.

The evaluator is shared by every full-domain algorithm. It keeps recently computed
snapshots and builds each new one from the smallest cached snapshot of a finer node
(roll-up), so moving through the lattice never touches raw rows.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from anonkit._arrays import BoolArray, IntArray
from anonkit._validation import check_real
from anonkit.algorithms.lattice.cached_levels import NOT_CACHED, CachedLevels
from anonkit.algorithms.lattice.compiled_judge import CompiledJudge
from anonkit.algorithms.lattice.convex import has_share_bound, judge_classes
from anonkit.algorithms.lattice.cost import CostModel
from anonkit.algorithms.lattice.node_result import NodeResult
from anonkit.core.encoding import EncodedTable
from anonkit.core.grouping import first_of_runs
from anonkit.core.joint import JointDigits
from anonkit.core.lattice import Lattice
from anonkit.core.snapshot import (
    FrequencySnapshot,
    KeyRadix,
    group_codes,
    roll_up_keys,
    roll_up_wide,
)
from anonkit.metrics.generalization import NodeSummary
from anonkit.metrics.node_metrics import aggregation
from anonkit.models.base import CLASS_SIZE, ClassSummary, PrivacyModel
from anonkit.models.judge import (
    SensitiveSource,
    class_histograms,
    summarize_classes,
    violations,
)
from anonkit.models.k_anonymity import split_k_anonymity

#: Largest box of finer nodes scanned for a roll-up source.
_BOX_SCAN_LIMIT = 1 << 16
#: From this many classes on, the bottom snapshot is put in key order once (about 0.2 s
#: for 2.6M classes) so that its roll-ups sort faster (see FrequencySnapshot.in_key_order).
_SORTED_BOTTOM_ROWS = 1 << 16
_NO_SIZES: IntArray = np.zeros(0, dtype=np.int64)


class Evaluator:
    """Judge and price lattice nodes, caching snapshots for roll-up.

    Parameters
    ----------
    table
        The encoded quasi-identifiers.
    lattice
        The lattice over ``table``'s hierarchies.
    models
        Privacy models; a class violating any of them is suppressed.
    suppression_limit
        Largest share of records that may be suppressed, in [0, 1].
    metric
        Name of the metric to minimize.
    metric_options
        The metric's options (``loss``: ``aggregate`` and ``weights``, see
        :func:`anonkit.metrics.node_metrics.aggregation`).
    cache_rows
        Snapshot rows (summed over cached snapshots) to keep for roll-ups.
    on_evaluate
        Called with the number of nodes evaluated so far (progress).
    owner
        The function or class named in parameter errors (the caller's public name).
    """

    def __init__(
        self,
        table: EncodedTable,
        lattice: Lattice,
        models: Sequence[PrivacyModel],
        suppression_limit: float,
        metric: str,
        *,
        metric_options: Mapping[str, Any] | None = None,
        cache_rows: int = 6_000_000,
        on_evaluate: Callable[[int], None] | None = None,
        owner: str = "anonymize",
    ) -> None:
        check_real(suppression_limit, "suppression_limit", owner, low=0, high=1, noun="a share")
        self.table = table
        self.lattice = lattice
        self.models = tuple(models)
        self.max_suppressed = int(math.floor(suppression_limit * table.n_records + 1e-9))
        # the class-size metrics take k-anonymity's k (k-map's k counts population records)
        k = split_k_anonymity(self.models)[0] or 1
        size_only = all(m.requires <= {CLASS_SIZE} for m in self.models)
        #: Whether the models read sensitive histograms or population counts.
        self.detailed = not size_only
        if self.detailed and table.detail is None:
            raise ValueError(
                "the privacy models need sensitive or population data; "
                "count the table with an engine's count_detail"
            )
        self.cost_model = CostModel(
            table,
            metric,
            k,
            size_only=size_only,
            aggregation=aggregation(metric, metric_options, table.columns, owner),
        )
        # the plain loss of a private node breaks ties (search.rank); the cost is that
        # loss when the metric is the plain loss, else it is priced by a second model
        self._loss_model: CostModel | None = None
        self._cost_is_loss = metric == "loss" and self.cost_model.aggregation is None
        self.k = k
        self.results: dict[int, NodeResult] = {}
        self._cache: OrderedDict[int, FrequencySnapshot] = OrderedDict()
        self._cache_rows = 0
        # classes of each cached node's snapshot, on the level grid (for source lookup);
        # implicit lattices (too large for a grid) scan the cached nodes' levels instead
        self._classes_grid: IntArray | None = None
        if lattice.explicit:
            self._classes_grid = np.full(lattice.heights, NOT_CACHED, dtype=np.int64)
        # implicit lattices keep the cached nodes' levels in rows of an array instead
        self._slots = CachedLevels(lattice.width)
        self._cache_budget = cache_rows
        q = table.width
        bottom = table.detail if self.detailed and table.detail is not None else table.snapshot
        radices = [c[0] for c in table.cardinalities]
        radices += [max(len(sc.labels), 1) for sc in table.sensitive] if self.detailed else []
        radix = KeyRadix.for_cardinalities(radices)
        # keyed snapshots roll up by rewriting only the digits of generalized columns
        self._bottom = bottom if radix is None else bottom.with_keys(radix)
        if radix is not None and bottom.n_classes > _SORTED_BOTTOM_ROWS:
            # roll-ups from a bottom in key order sort keys that are mostly in order
            self._bottom = self._bottom.in_key_order()
        if radix is None:
            # rows without keys hold one int64 code per column: keep the cache's memory
            # near what the keyed rows (one int64 each) of a 4-column table would take
            self._cache_budget = max(1, cache_rows * 4 // max(len(radices), 4))
        #: Detail snapshots carry the sensitive codes as extra, never generalized columns.
        self._pad = (0,) * (len(radices) - q)
        # ... which the roll-ups of rows without keys read as columns of one level
        self._wide_maps = [*table.level_maps, *([[]] for _ in self._pad)]
        self._wide_cards = [*table.cardinalities, *((r,) for r in radices[q:])]
        self._qi_radix: KeyRadix | None = None
        if radix is not None and self.detailed:
            low = sum(radix.bits[q:])
            self._qi_radix = KeyRadix(
                radix.bits[:q], tuple(sh - low for sh in radix.shifts[:q]), 1 << sum(radix.bits[:q])
            )
        #: The sensitive attributes with their table totals, for the class summaries.
        self.sources = tuple(
            SensitiveSource(sc.name, sc.labels, sc.totals, sc.hierarchy) for sc in table.sensitive
        )
        self._digits: dict[int, IntArray] = {}
        self._radices = radices
        self._joint: JointDigits | None = None
        self._deltas: dict[tuple[int, int, int], IntArray] = {}
        self.on_evaluate = on_evaluate
        #: Whether to compute ``NodeResult.forced_below`` (for non-monotone searches).
        self.track_forced = False
        mono_flag = "monotone_suppression" if self.max_suppressed else "monotone_generalization"
        #: Whether anonymity can be predicted for nodes above/below a judged node.
        self.privacy_monotone = all(bool(getattr(m, mono_flag)) for m in self.models)
        # A table-level model (average risk) stays monotone only alone or with k-anonymity:
        # OR-ed with other class-local masks its suppression choice can break monotonicity.
        if any(not getattr(m, "class_local", True) for m in self.models) and any(
            m.requires - {CLASS_SIZE} for m in self.models
        ):
            self.privacy_monotone = False
        #: Models that judge class sizes alone, class by class, monotonically (k-anonymity):
        #: a record they reject in a projection is rejected at the node too, so the
        #: two-column projections screen nodes for them.
        self.screen_models = tuple(
            m
            for m in self.models
            if m.requires <= {CLASS_SIZE}
            and bool(getattr(m, "class_local", False))
            and bool(getattr(m, mono_flag))
        )
        #: The smallest class any class-local model can accept (k-anonymity: k,
        #: l-diversity: l): a projected class below it holds only classes that are
        #: suppressed at the node, so the projections screen nodes with it too, monotone or
        #: not.
        self.implied_min_size = max(
            [1] + [int(m.min_class_size) for m in self.models if m.class_local]
        )
        #: Per sensitive attribute (index into ``table.sensitive``), the least number of
        #: distinct values a class needs (every l-diversity variant: l). A projected class
        #: with fewer holds only classes with fewer, which are suppressed at the node.
        self.implied_distinct: dict[int, int] = {}
        if self.detailed:
            names = [sc.name for sc in table.sensitive]
            for m in self.models:
                need = int(m.min_class_size)
                if need <= 1 or not m.class_local:
                    continue
                for attr in m.sensitive_attributes:
                    if attr in names:
                        i = names.index(attr)
                        self.implied_distinct[i] = max(self.implied_distinct.get(i, 1), need)
        #: Models with a convexity bound on the share of a class's records that violate
        #: at every finer node (entropy and recursive l-diversity, t-closeness; see
        #: convex.py): the projections screen nodes with them too.
        self.share_models = (
            tuple(m for m in self.models if has_share_bound(m)) if self.detailed else ()
        )
        self._compiled = CompiledJudge.for_evaluator(self, self._bottom.radix, self._qi_radix)

    @property
    def compiled_judge(self) -> CompiledJudge | None:
        """The compiled judge of this search's classes (searches without suppression
        whose models it knows), else ``None``."""
        return self._compiled

    def _bottom_digit(self, j: int) -> IntArray:
        """The bottom snapshot's codes of column ``j`` (most roll-ups early in a search
        start there), decoded once: the rows of the codes it was keyed from when it has
        them, else its keys' digits, decoded column by column as roll-ups need them (a
        10M-row table's 2.6M classes: 21 MB and a pass each)."""
        known = self._digits.get(j)
        if known is None:
            bottom = self._bottom
            if bottom.has_codes:
                known = bottom.codes[j]
            else:
                assert bottom.keys is not None and bottom.radix is not None
                known = bottom.radix.digit(bottom.keys, j)
            self._digits[j] = known
        return known

    def _bottom_joint(self) -> JointDigits:
        """The bottom snapshot's codes joined over small groups of columns, built on the
        first roll-up that counts from the bottom (see :mod:`anonkit.core.joint`)."""
        if self._joint is None:
            self._joint = JointDigits(self._bottom_digit, self._radices, self._bottom.levels)
        return self._joint

    def table_keys(self) -> tuple[IntArray, IntArray, KeyRadix] | None:
        """The table snapshot's classes keyed over the quasi-identifiers, as the
        evaluator holds them (keys, counts and radix; rows in key order when large), or
        ``None`` when it keys detail rows or cannot key them at all."""
        bottom = self._bottom
        if self.detailed or bottom.keys is None or bottom.radix is None:
            return None
        return bottom.keys, bottom.counts, bottom.radix

    @property
    def sensitive_totals(self) -> tuple[IntArray, ...]:
        """Per sensitive attribute, its value counts over the whole table."""
        return tuple(s.totals for s in self.sources)

    @property
    def evaluations(self) -> int:
        """Number of distinct nodes evaluated so far."""
        return len(self.results)

    def snapshot(self, index: int) -> FrequencySnapshot:
        """The snapshot of node ``index`` rolled up from the smallest finer cached one."""
        cached = self._cache.get(index)
        if cached is not None:
            self._cache.move_to_end(index)
            return cached
        target = self.lattice.node(index)
        source = self._source(index, target)
        levels = target + self._pad
        if source.keys is not None:
            bottom = source is self._bottom
            snap = roll_up_keys(
                source,
                levels,
                self.table.level_maps,
                digits=self._bottom_digit if bottom else None,
                deltas=self._deltas,
                joint=self._bottom_joint() if bottom else None,
            )
        else:
            snap = roll_up_wide(source, levels, self._wide_maps, self._wide_cards)
        self._cache[index] = snap
        grid = self._classes_grid
        if grid is not None:
            grid.flat[index] = snap.n_classes
        else:
            self._slots.add(index, target, snap.n_classes)
        self._cache_rows += snap.n_classes
        while self._cache_rows > self._cache_budget and len(self._cache) > 1:
            gone, old = self._cache.popitem(last=False)
            if grid is not None:
                grid.flat[gone] = NOT_CACHED
            else:
                self._slots.remove(gone)
            self._cache_rows -= old.n_classes
        return snap

    def _source(self, index: int, target: tuple[int, ...] | None = None) -> FrequencySnapshot:
        """The cached snapshot of a finer node with the fewest classes (else the bottom)."""
        source = self._bottom
        if target is None:
            target = self.lattice.node(index)
        if self._classes_grid is None:
            # implicit lattice: one vectorized comparison over the cached nodes' levels
            finer = self._slots.smallest_finer(target, source.n_classes)
            return source if finer is None else self._cache[finer]
        box = self._classes_grid[tuple(slice(0, v + 1) for v in target)]
        if box.size <= _BOX_SCAN_LIMIT:
            # the finer cached snapshot with the fewest classes is the cheapest source
            pos = int(box.argmin())
            if box.flat[pos] < source.n_classes:
                finer = self.lattice.index([int(v) for v in np.unravel_index(pos, box.shape)])
                source = self._cache[finer]
        else:  # huge boxes: look at the direct predecessors only
            preds = [p for p in self.lattice.predecessors(index) if p in self._cache]
            if preds:
                source = min((self._cache[p] for p in preds), key=lambda sn: sn.n_classes)
        return source

    def rolls_up_from_bottom(self, index: int) -> bool:
        """Whether node ``index``'s snapshot would be rolled up from the bottom snapshot
        (it is not cached and no finer node's is)."""
        return index not in self._cache and self._source(index) is self._bottom

    def classes(self, snap: FrequencySnapshot) -> tuple[FrequencySnapshot, ClassSummary]:
        """The equivalence classes of a node's snapshot and their summary.

        Without detail the snapshot's rows are the classes. With detail (sensitive or
        population data) rows that share their quasi-identifiers are merged into one
        class, whose sensitive histograms and population count are summed; classes
        without sample records (population only) are dropped.
        """
        n = self.table.n_records
        if not self.detailed:
            return snap, ClassSummary(snap.counts, n)
        q = self.table.width
        levels = snap.levels[:q]
        if snap.keys is not None and self._qi_radix is not None:
            qi_keys = self._quasi_keys(snap)
            new = first_of_runs(qi_keys)
            class_of = np.cumsum(new) - 1
            class_keys: IntArray | None = qi_keys[new]
            class_codes: IntArray | None = None
            n_classes = int(class_of[-1]) + 1 if class_of.size else 0

            def sensitive_codes(i: int) -> IntArray:
                assert snap.keys is not None and snap.radix is not None
                return snap.radix.digit(snap.keys, q + i)
        else:
            all_codes = snap.codes
            cards = [self.table.cardinalities[j][lv] for j, lv in enumerate(levels)]
            class_codes, _, inverse = group_codes(
                [all_codes[j] for j in range(q)], cards, with_inverse=True
            )
            assert inverse is not None
            class_of, class_keys = inverse, None
            n_classes = class_codes.shape[1]

            def sensitive_codes(i: int) -> IntArray:
                return np.asarray(all_codes[q + i], dtype=np.int64)

        sizes = np.bincount(class_of, weights=snap.counts, minlength=n_classes).astype(np.int64)
        population = None
        if snap.population is not None:
            population = np.bincount(class_of, weights=snap.population, minlength=n_classes).astype(
                np.int64
            )
        # classes without sample records (population only) are dropped
        keep: BoolArray | None = None if snap.population is None else sizes > 0
        hists = [
            class_histograms(class_of, sensitive_codes(i), n_classes, s.n_values, snap.counts)
            for i, s in enumerate(self.sources)
        ]
        if keep is not None:
            hists = [h[keep] for h in hists]
            sizes = sizes[keep]
            if population is not None:
                population = population[keep]
            if class_keys is not None:
                class_keys = class_keys[keep]
            if class_codes is not None:
                class_codes = class_codes[:, keep]
        if class_keys is not None:
            cls = FrequencySnapshot(levels, None, sizes, keys=class_keys, radix=self._qi_radix)
        else:
            assert class_codes is not None
            cls = FrequencySnapshot(levels, np.ascontiguousarray(class_codes), sizes)
        summary = summarize_classes(
            sizes,
            n,
            self.sources,
            hists,
            population=population,
            population_size=self.table.population_size,
        )
        return cls, summary

    def violations(self, summary: ClassSummary) -> BoolArray:
        """Classes that violate any model."""
        return violations(self.models, summary)

    def violating(self, snap: FrequencySnapshot) -> BoolArray:
        """Classes of a size-only snapshot (rows are classes) that violate any model."""
        return self.violations(ClassSummary(snap.counts, self.table.n_records))

    def screen_violations(self, sizes: IntArray) -> BoolArray:
        """Classes of the given sizes that the screening models reject."""
        summary = ClassSummary(sizes, self.table.n_records)
        return (sizes < self.implied_min_size) | violations(self.screen_models, summary)

    def judge(self, snap: FrequencySnapshot) -> tuple[bool, int]:
        """Whether a size-only snapshot satisfies the models within the limit, and the
        records it suppresses."""
        suppressed = int(snap.counts[self.violating(snap)].sum())
        return suppressed <= self.max_suppressed, suppressed

    def node_classes(self, index: int) -> tuple[FrequencySnapshot, ClassSummary, BoolArray]:
        """Classes of node ``index``, their summary and which of them are suppressed."""
        cls, summary = self.classes(self.snapshot(index))
        return cls, summary, self.violations(summary)

    def evaluate(self, index: int) -> NodeResult:
        """Evaluate node ``index`` (cached)."""
        known = self.results.get(index)
        if known is not None:
            return known
        rolled = self.snapshot(index)
        judged = None if self._compiled is None else self._compiled(rolled)
        if judged is not None:  # the classes judged in one pass (compiled_judge.py)
            cls = judged.classes
            if self.track_forced and judged.doomed > self.max_suppressed:
                doomed_at = self._doomed_result(
                    index, rolled, cls.n_classes, cls.counts, judged.doomed
                )
                return self._record(doomed_at)
            if not self.track_forced:
                return self._record(self.node_result(index, cls, judged.bad))
            if judged.settled:
                return self._record(self.node_result(index, cls, judged.bad, judged.forced))
        if self.track_forced:
            doomed = self._doomed_records(rolled)
            if doomed is not None and doomed[2] > self.max_suppressed:
                starts, found, count = doomed
                sizes = found
                if sizes is None:  # additive metrics bound a node by its levels alone
                    bounded = self.cost_model.levels_bound
                    sizes = _NO_SIZES if bounded else np.add.reduceat(rolled.counts, starts)
                doomed_at = self._doomed_result(index, rolled, len(starts), sizes, count)
                return self._record(doomed_at)
        snap, summary = self.classes(rolled)
        if self.track_forced:
            bad, forced = judge_classes(self.models, summary, self.max_suppressed)
        else:
            bad, forced = self.violations(summary), 0.0
        return self._record(self.node_result(index, snap, bad, forced))

    def node_result(
        self, index: int, snap: FrequencySnapshot, bad: BoolArray, forced_below: float = 0.0
    ) -> NodeResult:
        """The result of node ``index`` whose classes ``snap`` are judged: the records of
        the classes ``bad`` flags are suppressed, the node is private when they are within
        the limit, and a private node is priced by the cost model (and the tie-break loss);
        one that is not gets only its bound. :meth:`evaluate` and the quick evaluator both
        end here, so a node means the same on either path."""
        suppressed = int(snap.counts[bad].sum())
        anonymous = suppressed <= self.max_suppressed
        loss = math.inf
        if anonymous:
            cost, bound = self.cost_model.price(snap, bad)
            loss = cost if self._cost_is_loss else self.loss_model.price(snap, bad)[0]
        else:  # a node that is not private is never released: only its bound matters
            cost, bound = math.inf, self.cost_model.bound(snap.levels, snap.counts)
        return NodeResult(
            index=index,
            levels=snap.levels,
            anonymous=anonymous,
            suppressed=suppressed,
            n_classes=snap.n_classes,
            cost=cost,
            bound=bound,
            forced_below=forced_below,
            loss=loss,
        )

    @property
    def loss_model(self) -> CostModel:
        """The plain ``loss`` metric's cost model (built on first use)."""
        if self._loss_model is None:
            self._loss_model = CostModel(self.table, "loss", self.k)
        return self._loss_model

    def unsuppressed_result(self, index: int, cost: float) -> NodeResult:
        """The result of a node known to be private with nothing suppressed, whose cost
        ``cost`` is its no-suppression bound, without rolling up its classes."""
        levels = self.lattice.node(index)
        loss = cost if self._cost_is_loss else self.loss_model.bound(levels, _NO_SIZES)
        return NodeResult(index, levels, True, 0, -1, cost, cost, loss=loss)

    def _record(self, result: NodeResult) -> NodeResult:
        self.results[result.index] = result
        if self.on_evaluate is not None:
            self.on_evaluate(1)
        return result

    def _quasi_keys(self, snap: FrequencySnapshot) -> IntArray:
        """Per row of a keyed detail snapshot, the key of its quasi-identifiers alone
        (they sit above the sensitive codes), so that a class is a run of equal values."""
        assert snap.keys is not None and snap.radix is not None
        q = self.table.width
        out: IntArray = snap.keys >> (snap.radix.shifts[q - 1] if q else 0)
        return out

    def _doomed_records(
        self, snap: FrequencySnapshot
    ) -> tuple[IntArray, IntArray | None, float] | None:
        """The first row of every class of a keyed detail snapshot, the class sizes (when
        the screen needed them), and the records in classes that the size-only screens
        reject: fewer records than
        :attr:`implied_min_size` or than k-anonymity's ``k``, or (one sensitive attribute)
        fewer distinct sensitive values than :attr:`implied_distinct` asks. Every finer
        class inside such a class is rejected too, so they are suppressed at this node and
        every node below it.

        Cheap: detail rows are sorted by key with the quasi-identifiers in the high bits,
        so a class is a run of rows and its distinct sensitive values are the run's length.
        ``None`` when there is nothing to screen, the snapshot has no keys or it carries
        population counts.
        """
        need = self.implied_distinct.get(0, 1) if len(self.table.sensitive) == 1 else 1
        by_size = bool(self.screen_models) or self.implied_min_size > need
        if not (by_size or need > 1):  # nothing to screen (t-closeness alone)
            return None
        if snap.keys is None or snap.radix is None or snap.population is not None:
            return None
        qi_keys = self._quasi_keys(snap)
        starts = np.flatnonzero(first_of_runs(qi_keys))
        if not starts.size:
            return None
        ends = np.empty_like(starts)
        ends[:-1] = starts[1:]
        ends[-1] = qi_keys.shape[0]
        if by_size:
            # (a class with fewer records than l has fewer distinct values than l)
            sizes = np.add.reduceat(snap.counts, starts)
            doomed = self.screen_violations(sizes)
            if need > 1:
                doomed |= ends - starts < need
            return starts, sizes, float(sizes[doomed].sum())
        # distinct values alone: sum the doomed classes' rows through a running total
        few = np.flatnonzero(ends - starts < need)
        running = np.concatenate(([0], np.cumsum(snap.counts)))
        return starts, None, float((running[ends[few]] - running[starts[few]]).sum())

    def _doomed_result(
        self, index: int, snap: FrequencySnapshot, n_classes: int, sizes: IntArray, doomed: float
    ) -> NodeResult:
        """A node the size-only screens already rule out, with everything finer: its
        suppression is only known to exceed the limit (``suppressed`` is that lower bound).
        ``sizes``: its classes' records (none needed when the bound reads levels alone)."""
        levels = snap.levels[: self.table.width]
        return NodeResult(
            index=index,
            levels=levels,
            anonymous=False,
            suppressed=int(doomed),
            n_classes=int(n_classes),
            cost=math.inf,
            bound=self.cost_model.bound(levels, sizes),
            forced_below=doomed,
        )

    def summary(self, index: int) -> NodeSummary:
        """The :class:`NodeSummary` of a node, for the pure metric functions."""
        snap, _, bad = self.node_classes(index)
        return NodeSummary(
            levels=snap.levels,
            hierarchies=self.table.hierarchies,
            codes=snap.codes.T,
            sizes=snap.counts,
            suppressed=bad,
            value_counts=self.table.value_counts,
            k=self.k,
        )
