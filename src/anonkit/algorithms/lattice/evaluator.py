"""Evaluate lattice nodes: roll up a snapshot, judge the privacy models, price the node.

The evaluator is shared by every full-domain algorithm. It keeps recently computed
snapshots and builds each new one from the smallest cached snapshot of a finer node
(roll-up), so moving through the lattice never touches raw rows.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from anonkit.core.encoding import EncodedTable
from anonkit.core.lattice import Lattice
from anonkit.core.snapshot import FrequencySnapshot, KeyRadix, roll_up, roll_up_keys
from anonkit.exceptions import ParameterError
from anonkit.metrics.generalization import METRICS, NodeSummary
from anonkit.models.base import CLASS_SIZE, ClassSummary, PrivacyModel

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: Metrics whose cost is a per-column table cost plus a per-suppressed-record extra.
ADDITIVE = ("height", "relative_distance", "precision", "loss", "nonuniform_entropy")
#: Largest box of finer nodes scanned for a roll-up source.
_BOX_SCAN_LIMIT = 1 << 16
_NOT_CACHED = np.iinfo(np.int64).max

#: Metrics computed from class sizes.
CLASS_BASED = ("discernibility", "average_class_size")


@dataclass(frozen=True)
class NodeResult:
    """What the evaluator learned about one node.

    ``cost`` is the metric value of the release this node would give (violating classes
    suppressed); ``bound`` is a lower bound on ``cost`` of this node and every node above it.
    """

    index: int
    levels: tuple[int, ...]
    anonymous: bool
    suppressed: int
    n_classes: int
    cost: float
    bound: float


class CostModel:
    """A metric of :mod:`anonkit.metrics.generalization`, prepared for fast search.

    Additive metrics cost ``sum_j table[j][level_j]`` plus, for every suppressed record,
    ``sum_j extra[j][level_j][code_j]`` (what suppression adds to the cell). With no
    suppression the cost is just the table part, which is monotone in the levels and so a
    lower bound for the node and everything above it.
    """

    def __init__(self, table: EncodedTable, metric: str, k: int, *, size_only: bool = True) -> None:
        if metric not in METRICS:
            from anonkit.exceptions import UnknownNameError

            raise UnknownNameError("metric", metric, list(METRICS))
        self.metric = metric
        self.k = k
        #: True when class sizes alone decide privacy (only k-anonymity).
        self.size_only = size_only
        self.n = table.n_records
        n, q = float(self.n), table.width
        self.table_cost: list[FloatArray] = []
        self.extra: list[list[FloatArray]] = []
        for j, h in enumerate(table.hierarchies):
            top = h.max_level
            costs = np.zeros(h.height)
            extras: list[FloatArray] = []
            counts = table.value_counts[j].astype(np.float64)
            for lv in range(h.height):
                n_labels = len(h.labels(lv))
                frac = lv / top if top else 0.0
                if metric == "height":
                    costs[lv], ex = lv, np.zeros(n_labels)
                elif metric == "relative_distance":
                    costs[lv], ex = frac, np.zeros(n_labels)
                elif metric == "precision":
                    costs[lv] = frac / q
                    ex = np.full(n_labels, ((1.0 if top else 0.0) - frac) / (n * q))
                elif metric == "loss":
                    a = len(h.leaves)
                    lm = (h.leaf_counts(lv) - 1) / (a - 1) if a > 1 else np.zeros(n_labels)
                    anc = np.bincount(h.codes(lv), weights=counts, minlength=n_labels)
                    costs[lv] = float((anc * lm).sum()) / (n * q)
                    ex = ((1.0 if a > 1 else 0.0) - lm) / (n * q)
                elif metric == "nonuniform_entropy":
                    present = counts[counts > 0]
                    anc = np.bincount(h.codes(lv), weights=counts, minlength=n_labels)
                    pos = anc > 0
                    log_anc = np.zeros(n_labels)
                    log_anc[pos] = np.log2(anc[pos])
                    costs[lv] = -float((present * np.log2(present)).sum()) + float(
                        (anc[pos] * log_anc[pos]).sum()
                    )
                    ex = math.log2(n) - log_anc
                else:  # class-based metrics have no per-column part
                    ex = np.zeros(n_labels)
                extras.append(np.asarray(ex, dtype=np.float64))
            self.table_cost.append(costs)
            self.extra.append(extras)
        self.additive = metric in ADDITIVE

    def node_bounds(self, lattice: Lattice) -> FloatArray | None:
        """For additive metrics, the no-suppression cost of every node (else ``None``)."""
        if not self.additive:
            return None
        total = np.zeros(lattice.size)
        for j, costs in enumerate(self.table_cost):
            total += costs[lattice.nodes[:, j]]
        return total

    def bound(self, snap: FrequencySnapshot) -> float:
        """Lower bound on the cost of this node and of every *private* node above it.

        Additive metrics: the cost without suppression (monotone in the levels).
        Discernibility: in a private generalization every record of a class with at least
        ``k`` records stays in a class at least as large, and every other record ends in a
        class of at least ``k`` or is suppressed (cost ``N >= k``), so
        ``sum_{f >= k} f^2 + k * sum_{f < k} f`` bounds it. C_avg: a private generalization
        has at most ``n_big + floor(small_records / k)`` released classes, plus the class of
        suppressed records when suppression can happen.
        """
        if self.additive:
            total = 0.0
            for j, lv in enumerate(snap.levels):
                total += self.table_cost[j][lv]
            return total
        f = snap.counts.astype(np.float64)
        big = snap.counts >= self.k
        if self.metric == "discernibility":
            fb = f[big]
            return float(fb @ fb) + self.k * float(f[~big].sum())
        small_records = int(snap.counts[~big].sum())
        extra = 1 if (small_records or not self.size_only) else 0
        n_classes = int(big.sum()) + small_records // self.k + extra
        return self.n / (n_classes * self.k)

    @property
    def suppression_priced(self) -> bool:
        """Whether suppressing a record changes the cost (additive metrics with extras)."""
        return self.additive and self.metric not in ("height", "relative_distance")

    def min_extra(self, lattice: Lattice) -> FloatArray:
        """Per node, the least a suppressed record can add to the cost there."""
        total = np.zeros(lattice.size)
        for j, extras in enumerate(self.extra):
            floor = np.array([float(e.min()) if e.size else 0.0 for e in extras])
            total += floor[lattice.nodes[:, j]]
        return total

    def suppression_cost(self, snap: FrequencySnapshot, violating: BoolArray) -> float:
        """What suppressing the ``violating`` classes of ``snap`` adds to an additive cost.

        Every per-record extra is non-negative (suppressing a value never lowers the
        loss), which is what makes the no-suppression cost a lower bound.
        """
        if not self.suppression_priced:
            return 0.0
        rows = np.flatnonzero(violating)
        if not rows.size:
            return 0.0
        per_row = np.zeros(rows.size)
        codes = snap.codes_of(rows)
        for j, lv in enumerate(snap.levels):
            per_row += self.extra[j][lv][codes[j]]
        return float(per_row @ snap.counts[rows])

    def price(self, snap: FrequencySnapshot, violating: BoolArray) -> tuple[float, float]:
        """``(cost, bound)`` of the node whose classes are ``snap``."""
        sizes = snap.counts
        if self.additive:
            base = self.bound(snap)
            return base + self.suppression_cost(snap, violating), base
        f = sizes.astype(np.float64)
        suppressed = float(f[violating].sum())
        if self.metric == "discernibility":
            kept = f[~violating]
            return float(kept @ kept) + suppressed * self.n, self.bound(snap)
        n_classes = int((~violating).sum()) + (1 if suppressed else 0)
        return self.n / (n_classes * self.k), self.bound(snap)


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
    cache_rows
        Snapshot rows (summed over cached snapshots) to keep for roll-ups.
    """

    def __init__(
        self,
        table: EncodedTable,
        lattice: Lattice,
        models: Sequence[PrivacyModel],
        suppression_limit: float,
        metric: str,
        *,
        cache_rows: int = 6_000_000,
        on_evaluate: Callable[[int], None] | None = None,
    ) -> None:
        if not 0.0 <= suppression_limit <= 1.0:
            raise ParameterError(
                "suppression_limit", "anonymize", "a share between 0 and 1", suppression_limit
            )
        self.table = table
        self.lattice = lattice
        self.models = tuple(models)
        self.max_suppressed = int(math.floor(suppression_limit * table.n_records + 1e-9))
        k = max((int(getattr(m, "k", 1)) for m in self.models), default=1)
        self.cost_model = CostModel(
            table, metric, k, size_only=all(m.requires <= {CLASS_SIZE} for m in self.models)
        )
        self.k = k
        self.results: dict[int, NodeResult] = {}
        self._cache: OrderedDict[int, FrequencySnapshot] = OrderedDict()
        self._cache_rows = 0
        # classes of each cached node's snapshot, on the level grid (for source lookup)
        self._classes_grid = np.full(lattice.heights, _NOT_CACHED, dtype=np.int64)
        self._cache_budget = cache_rows
        radix = KeyRadix.for_cardinalities([c[0] for c in table.cardinalities])
        # keyed snapshots roll up by rewriting only the digits of generalized columns
        self._bottom = table.snapshot if radix is None else table.snapshot.with_keys(radix)
        self.on_evaluate = on_evaluate
        mono_flag = "monotone_suppression" if self.max_suppressed else "monotone_generalization"
        #: Whether anonymity can be predicted for nodes above/below a judged node.
        self.privacy_monotone = all(bool(getattr(m, mono_flag)) for m in self.models)
        #: Whether class sizes alone decide privacy class by class, monotonically: then a
        #: record violating in a projection (or at a coarser node) violates at every finer
        #: node, so projections can screen nodes and suppression costs bound nodes below.
        self.screenable = self.privacy_monotone and all(
            m.requires <= {CLASS_SIZE} and bool(getattr(m, "class_local", False))
            for m in self.models
        )

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
        target = self.lattice.nodes[index]
        source = self._bottom
        box = self._classes_grid[tuple(slice(0, int(v) + 1) for v in target)]
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
        levels = tuple(int(x) for x in target)
        if source.keys is not None:
            snap = roll_up_keys(source, levels, self.table.level_maps)
        else:
            snap = roll_up(source, levels, self.table.level_maps, self.table.cardinalities)
        self._cache[index] = snap
        self._classes_grid.flat[index] = snap.n_classes
        self._cache_rows += snap.n_classes
        while self._cache_rows > self._cache_budget and len(self._cache) > 1:
            gone, old = self._cache.popitem(last=False)
            self._classes_grid.flat[gone] = _NOT_CACHED
            self._cache_rows -= old.n_classes
        return snap

    def violating(self, snap: FrequencySnapshot) -> BoolArray:
        summary = ClassSummary(snap.counts, self.table.n_records)
        mask = np.zeros(snap.n_classes, dtype=bool)
        for model in self.models:
            mask |= model.violations(summary)
        return mask

    def judge(self, snap: FrequencySnapshot) -> tuple[bool, int]:
        """Whether a snapshot satisfies the models within the limit, and records suppressed."""
        suppressed = int(snap.counts[self.violating(snap)].sum())
        return suppressed <= self.max_suppressed, suppressed

    def evaluate(self, index: int) -> NodeResult:
        """Evaluate node ``index`` (cached)."""
        known = self.results.get(index)
        if known is not None:
            return known
        snap = self.snapshot(index)
        bad = self.violating(snap)
        suppressed = int(snap.counts[bad].sum())
        anonymous = suppressed <= self.max_suppressed
        if anonymous:
            cost, bound = self.cost_model.price(snap, bad)
        else:  # a node that is not private is never released: only its bound matters
            cost, bound = math.inf, self.cost_model.bound(snap)
        result = NodeResult(
            index=index,
            levels=snap.levels,
            anonymous=anonymous,
            suppressed=suppressed,
            n_classes=snap.n_classes,
            cost=cost,
            bound=bound,
        )
        self.results[index] = result
        if self.on_evaluate is not None:
            self.on_evaluate(1)
        return result

    def summary(self, index: int) -> NodeSummary:
        """The :class:`NodeSummary` of a node, for the pure metric functions."""
        snap = self.snapshot(index)
        return NodeSummary(
            levels=snap.levels,
            hierarchies=self.table.hierarchies,
            codes=snap.codes.T,
            sizes=snap.counts,
            suppressed=self.violating(snap),
            value_counts=self.table.value_counts,
            k=self.k,
        )
