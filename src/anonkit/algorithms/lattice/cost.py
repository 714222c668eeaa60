"""Price lattice nodes fast: a metric definition turned into per-column lookup tables."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonkit._arrays import BoolArray, FloatArray, IntArray
from anonkit.core.encoding import EncodedTable
from anonkit.core.lattice import Lattice
from anonkit.core.snapshot import FrequencySnapshot
from anonkit.metrics.node_metrics import Aggregation, ColumnContext, get_node_metric


class CostModel:
    """A metric of :mod:`anonkit.metrics.node_metrics`, prepared for fast search.

    Additive metrics cost ``sum_j table[j][level_j]`` plus, for every suppressed record,
    ``sum_j extra[j][level_j][code_j]`` (what suppression adds to the cell). With no
    suppression the cost is just the table part, which is monotone in the levels and so a
    lower bound for the node and everything above it. Class-based metrics read the
    definition's class cost and lower-bound rule.

    An :class:`~anonkit.metrics.node_metrics.Aggregation` other than the plain mean
    reweights the columns: a weighted arithmetic mean stays additive (each column's tables
    scaled by its weight); the geometric mean ``F(v) = prod_j (1 + v_j) ** a_j - 1`` of the
    per-column losses ``v_j`` is not additive (:attr:`additive` is False), but ``F``
    increases in every ``v_j`` and suppression only adds to each ``v_j`` (its extras are
    non-negative), so ``F`` of the no-suppression column losses is still a lower bound of
    the node (:meth:`node_bounds`, :meth:`bound`), exact when nothing is suppressed.

    Parameters
    ----------
    table
        The encoded quasi-identifiers.
    metric
        Name of the metric (a key of :data:`~anonkit.metrics.node_metrics.NODE_METRICS`).
    k
        The k of k-anonymity (1 when there is none), for the class-based metrics.
    size_only
        True when class sizes alone decide privacy (only k-anonymity).
    aggregation
        How the columns combine (``None``: the metric's own sum).
    """

    def __init__(
        self,
        table: EncodedTable,
        metric: str,
        k: int,
        *,
        size_only: bool = True,
        aggregation: Aggregation | None = None,
    ) -> None:
        self.definition = get_node_metric(metric)
        self.metric = metric
        self.k = k
        self.size_only = size_only
        self.n = table.n_records
        if aggregation is not None and (aggregation.plain or not self.definition.additive):
            aggregation = None
        self.aggregation = aggregation
        #: Geometric aggregate: the tables hold each column's own loss ``v_j``.
        self.geometric = aggregation is not None and aggregation.aggregate == "geometric"
        q = table.width
        self.table_cost: list[FloatArray] = []
        self.extra: list[tuple[FloatArray, ...]] = []
        for j, h in enumerate(table.hierarchies):
            context = ColumnContext(table.value_counts[j].astype(np.float64), self.n, q)
            costs = self.definition.column_costs(h, context)
            # the definitions divide by Q: times Q is the column's own loss, times Q * a_j
            # its share of a weighted mean
            scale = 1.0
            if aggregation is not None:
                scale = q * (1.0 if self.geometric else aggregation.weights[j])
            self.table_cost.append(costs.level_cost * scale)
            self.extra.append(tuple(e * scale for e in costs.extra))
        self.additive = self.definition.additive and not self.geometric
        self._node_bounds: tuple[Lattice, FloatArray] | None = None

    @property
    def levels_bound(self) -> bool:
        """Whether a node's lower bound follows from its levels alone (no class sizes)."""
        return self.additive or self.geometric

    def _combine(self, per_column: FloatArray) -> FloatArray:
        assert self.aggregation is not None
        return self.aggregation.combine(per_column)

    def node_bounds(self, lattice: Lattice) -> FloatArray | None:
        """For additive metrics (and the geometric aggregate), the no-suppression cost of
        every node (else ``None``); read-only, computed once per lattice (a search and
        its choice of the best node both ask)."""
        known = self._node_bounds
        if known is not None and known[0] is lattice:
            return known[1]
        if self.geometric:
            per = np.stack([c[lattice.nodes[:, j]] for j, c in enumerate(self.table_cost)], axis=-1)
            total = self._combine(per)
        elif not self.additive:
            return None
        else:
            total = np.zeros(lattice.size)
            for j, costs in enumerate(self.table_cost):
                total += costs[lattice.nodes[:, j]]
        total.setflags(write=False)
        self._node_bounds = (lattice, total)
        return total

    def bound(self, levels: Sequence[int], sizes: IntArray) -> float:
        """Lower bound on the cost of the node at ``levels`` whose classes have ``sizes``
        records, and of every *private* node above it.

        Additive metrics: the cost without suppression (monotone in the levels).
        Class-based metrics: the definition's ``class_bound``.
        """
        if self.geometric:
            base = np.array([self.table_cost[j][lv] for j, lv in enumerate(levels)])
            return float(self._combine(base))
        if self.additive:
            total = 0.0
            for j, lv in enumerate(levels):
                total += self.table_cost[j][lv]
            return total
        rule = self.definition.class_bound
        assert rule is not None
        return rule(sizes, self.n, self.k, not self.size_only)

    @property
    def suppression_priced(self) -> bool:
        """Whether suppressing a record adds its extras to an additive cost (what the
        suppression floors of the searches learn from; False for the geometric aggregate,
        whose searches fall back on the no-suppression bound)."""
        return self.additive and self.definition.charges_suppression

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
        if self.geometric:
            own: FloatArray = np.array([self.table_cost[j][lv] for j, lv in enumerate(snap.levels)])
            per = own.copy()
            rows = np.flatnonzero(violating)
            if rows.size and self.definition.charges_suppression:
                codes = snap.codes_of(rows)
                weights = snap.counts[rows].astype(np.float64)
                for j, lv in enumerate(snap.levels):
                    per[j] += float(self.extra[j][lv][codes[j]] @ weights)
            return float(self._combine(per)), float(self._combine(own))
        if self.additive:
            base = self.bound(snap.levels, sizes)
            return base + self.suppression_cost(snap, violating), base
        rule = self.definition.class_cost
        assert rule is not None
        return rule(sizes, violating, self.n, self.k), self.bound(snap.levels, sizes)
