"""The full-domain metrics as data: one definition per metric, read by the lattice search.

Each metric of a lattice node is one frozen :class:`NodeMetric`. It says how the metric
prices a node, in the form the search needs:

* *additive* metrics cost ``sum_j level_cost[j][level_j]`` plus, for every suppressed
  record, ``sum_j extra[j][level_j][code_j]`` (what suppressing the record adds to its cells).
  :meth:`NodeMetric.column_costs` builds both tables for one column from its hierarchy and
  value counts. Every extra is non-negative, so the cost without suppression is a lower
  bound for the node and everything above it.
* *class-based* metrics cost a function of the class sizes (:meth:`NodeMetric.class_cost`)
  and carry their own lower-bound rule (:meth:`NodeMetric.class_bound`).

All are losses (lower is better). The metric named ``"precision"`` is the loss
``1 - Prec`` of Sweeney's precision; the score ``Prec`` itself is reported as
``precision_score`` next to it (both keys stay, for compatibility).

The pure functions of :mod:`anonkit.metrics.generalization` compute the same metrics
independently from a node's classes; the tests check both agree on random problems.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray, IntArray
from anonkit._validation import check_choice, check_real, lookup
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ParameterError


@dataclass(frozen=True, eq=False)
class ColumnCosts:
    """What one quasi-identifier adds to an additive metric, per generalization level.

    Attributes
    ----------
    level_cost
        ``(height,)`` the column's cost at each level when no record is suppressed.
    extra
        Per level, ``(n_labels,)``: what suppressing one record whose code at that level is
        ``c`` adds to the cost (``extra[level][c] >= 0``).
    """

    level_cost: FloatArray
    extra: tuple[FloatArray, ...]


@dataclass(frozen=True)
class ColumnContext:
    """What a column cost table may read besides the hierarchy.

    Attributes
    ----------
    counts
        Records holding each original (level-0) value of the column.
    n_records
        Records in the table.
    n_columns
        Quasi-identifiers in the table (``Q``).
    """

    counts: FloatArray
    n_records: int
    n_columns: int


#: ``(hierarchy, level, context) -> (level cost, per-label suppression extra)``.
LevelCost = Callable[[Hierarchy, int, ColumnContext], tuple[float, FloatArray]]
#: ``(sizes, violating, n_records, k) -> cost`` of a node from its classes.
ClassCost = Callable[[IntArray, npt.NDArray[np.bool_], int, int], float]
#: ``(sizes, n_records, k, may_suppress) -> lower bound`` for a node and every private
#: node above it; ``may_suppress`` is True when classes of ``k`` or more records can be
#: suppressed too (models other than k-anonymity).
ClassBound = Callable[[IntArray, int, int, bool], float]


@dataclass(frozen=True)
class NodeMetric:
    """One full-domain information-loss metric, as the lattice search reads it.

    Attributes
    ----------
    name
        The name used by the API and the configuration.
    level_cost
        Additive metrics: the cost of a column at one level and what suppressing a record
        adds there; ``None`` for class-based metrics.
    charges_suppression
        Whether suppressing a record changes the cost of an additive metric.
    class_cost
        Class-based metrics: the cost of a node from its class sizes; ``None`` otherwise.
    class_bound
        Class-based metrics: a lower bound on the cost of a node and every private node
        above it, from the node's class sizes; ``None`` otherwise.
    """

    name: str
    level_cost: LevelCost | None = None
    charges_suppression: bool = False
    class_cost: ClassCost | None = None
    class_bound: ClassBound | None = None

    @property
    def additive(self) -> bool:
        """Whether the cost is a per-column table cost plus per-suppressed-record extras."""
        return self.level_cost is not None

    def column_costs(self, hierarchy: Hierarchy, context: ColumnContext) -> ColumnCosts:
        """The cost tables of one column (all zero for class-based metrics)."""
        costs = np.zeros(hierarchy.height)
        extras: list[FloatArray] = []
        for lv in range(hierarchy.height):
            if self.level_cost is None:
                extra: FloatArray = np.zeros(len(hierarchy.labels(lv)))
            else:
                costs[lv], extra = self.level_cost(hierarchy, lv, context)
            extras.append(np.asarray(extra, dtype=np.float64))
        return ColumnCosts(costs, tuple(extras))


# ------------------------------------------------------------------ additive metrics
def _fraction(h: Hierarchy, lv: int) -> float:
    return lv / h.max_level if h.max_level else 0.0


def _height(h: Hierarchy, lv: int, ctx: ColumnContext) -> tuple[float, FloatArray]:
    return float(lv), np.zeros(len(h.labels(lv)))


def _relative_distance(h: Hierarchy, lv: int, ctx: ColumnContext) -> tuple[float, FloatArray]:
    return _fraction(h, lv), np.zeros(len(h.labels(lv)))


def _precision(h: Hierarchy, lv: int, ctx: ColumnContext) -> tuple[float, FloatArray]:
    frac, q = _fraction(h, lv), ctx.n_columns
    full = 1.0 if h.max_level else 0.0
    return frac / q, np.full(len(h.labels(lv)), (full - frac) / (ctx.n_records * q))


def _generalized(h: Hierarchy, lv: int, ctx: ColumnContext) -> tuple[float, FloatArray]:
    n_labels, a = len(h.labels(lv)), len(h.leaves)
    norm = ctx.n_records * ctx.n_columns
    cell = (h.leaf_counts(lv) - 1) / (a - 1) if a > 1 else np.zeros(n_labels)
    anc = np.bincount(h.codes(lv), weights=ctx.counts, minlength=n_labels)
    return float((anc * cell).sum()) / norm, ((1.0 if a > 1 else 0.0) - cell) / norm


def _nonuniform_entropy(h: Hierarchy, lv: int, ctx: ColumnContext) -> tuple[float, FloatArray]:
    n_labels = len(h.labels(lv))
    present = ctx.counts[ctx.counts > 0]
    anc = np.bincount(h.codes(lv), weights=ctx.counts, minlength=n_labels)
    pos = anc > 0
    log_anc = np.zeros(n_labels)
    log_anc[pos] = np.log2(anc[pos])
    cost = -float((present * np.log2(present)).sum()) + float((anc[pos] * log_anc[pos]).sum())
    return cost, math.log2(ctx.n_records) - log_anc


# --------------------------------------------------------------- class-based metrics
def _discernibility(sizes: IntArray, violating: npt.NDArray[np.bool_], n: int, k: int) -> float:
    f = sizes.astype(np.float64)
    kept = f[~violating]
    return float(kept @ kept) + float(f[violating].sum()) * n


def _discernibility_bound(sizes: IntArray, n: int, k: int, may_suppress: bool) -> float:
    # a record of a class of >= k records stays in a class at least as large; every other
    # record ends in a class of >= k or is suppressed (cost N >= k)
    f = sizes.astype(np.float64)
    big = sizes >= k
    fb = f[big]
    return float(fb @ fb) + k * float(f[~big].sum())


def _average_class_size(sizes: IntArray, violating: npt.NDArray[np.bool_], n: int, k: int) -> float:
    # suppressed records all read "*" and form one class together
    suppressed = bool(sizes[violating].sum())
    n_classes = int((~violating).sum()) + (1 if suppressed else 0)
    return n / (n_classes * k)


def _average_class_size_bound(sizes: IntArray, n: int, k: int, may_suppress: bool) -> float:
    # a private node above has at most n_big + floor(small_records / k) released classes,
    # plus the class of suppressed records when suppression can happen
    big = sizes >= k
    small_records = int(sizes[~big].sum())
    extra = 1 if (small_records or may_suppress) else 0
    n_classes = int(big.sum()) + small_records // k + extra
    return n / (n_classes * k)


#: Every full-domain metric by name (see the module docstring for ``precision``).
NODE_METRICS: dict[str, NodeMetric] = {
    m.name: m
    for m in (
        NodeMetric("height", _height),
        NodeMetric("relative_distance", _relative_distance),
        NodeMetric("precision", _precision, charges_suppression=True),
        NodeMetric("loss", _generalized, charges_suppression=True),
        NodeMetric("discernibility", class_cost=_discernibility, class_bound=_discernibility_bound),
        NodeMetric(
            "average_class_size",
            class_cost=_average_class_size,
            class_bound=_average_class_size_bound,
        ),
        NodeMetric("nonuniform_entropy", _nonuniform_entropy, charges_suppression=True),
    )
}


def get_node_metric(name: str) -> NodeMetric:
    """The definition of the metric ``name``; the error lists the known names."""
    return lookup(NODE_METRICS, name, "metric")


# ------------------------------------------------------------ aggregating attributes
#: How the per-attribute losses of ``loss`` combine (``metric_options["aggregate"]``).
AGGREGATES = ("arithmetic", "geometric")
#: The metrics that take ``metric_options``, with the keys each accepts.
METRIC_OPTIONS: dict[str, tuple[str, ...]] = {"loss": ("aggregate", "weights")}


@dataclass(frozen=True)
class Aggregation:
    """How the per-attribute values of an additive metric combine into one figure.

    With per-attribute losses ``v_j`` in [0, 1] and normalized weights
    ``a_j = w_j / sum w``:

    * ``"arithmetic"`` (the default): ``sum_j a_j v_j``; with equal weights the mean, i.e.
      Iyengar's LM over all cells (:func:`anonkit.metrics.generalization.generalized_loss`);
    * ``"geometric"``: ``prod_j (1 + v_j) ** a_j - 1``; with equal weights
      ``prod(1 + v_j) ** (1 / n) - 1``, the geometric-mean aggregate ARX applies to its
      loss metric, so that anonkit can reproduce ARX's choice.

    The arithmetic mean stays the default because it is the published metric (every cell
    costs the same, so the loss is a share of the table's information), it is additive
    over columns and records (the search's lower bounds are exact sums, and
    :func:`~anonkit.metrics.generalization.generalized_loss` reports it), and results of
    earlier anonkit versions stay comparable. The geometric mean penalizes spreading loss
    over many attributes less than concentrating it in one; it is never larger than the
    arithmetic mean (AM-GM).

    Weights (a choice made here): they are normalized to sum to 1 and act as exponents
    (geometric) or coefficients (arithmetic), so scaling every weight changes nothing and
    a weight of 0 ignores a column. With equal weights the figures are ARX's; how ARX
    folds unequal attribute weights into its aggregate is not reproduced.

    Attributes
    ----------
    aggregate
        ``"arithmetic"`` or ``"geometric"``.
    weights
        Per quasi-identifier (in table order), its normalized weight (summing to 1).

    References
    ----------
    F. Prasser, F. Kohlmayer. Putting statistical disclosure control into practice: the
    ARX data anonymization tool. In Medical Data Privacy Handbook, Springer, 2015.
    V. S. Iyengar. Transforming data to satisfy privacy constraints. KDD 2002.
    """

    aggregate: str
    weights: tuple[float, ...]

    @property
    def plain(self) -> bool:
        """Whether this is the unweighted arithmetic mean (the metric's own definition)."""
        q = len(self.weights)
        return self.aggregate == "arithmetic" and all(
            math.isclose(w, 1.0 / q, rel_tol=1e-12) for w in self.weights
        )

    def combine(self, per_column: FloatArray) -> FloatArray:
        """The aggregate of per-attribute values along the last axis."""
        a = np.asarray(self.weights, dtype=np.float64)
        if self.aggregate == "geometric":
            out: FloatArray = np.expm1(np.log1p(per_column) @ a)
            return out
        result: FloatArray = per_column @ a
        return result


def check_weights(given: object, columns: Sequence[str], parameter: str, owner: str) -> list[float]:
    """Per column of ``columns``, its weight in ``given`` (1 where it has none): a
    mapping of quasi-identifiers to finite numbers >= 0, not all 0.

    Raises
    ------
    ParameterError
        If ``given`` is not such a mapping (the message names ``parameter``).
    """
    if not isinstance(given, Mapping):
        raise ParameterError(parameter, owner, "a mapping of quasi-identifier to weight", given)
    strangers = sorted(set(given) - set(columns))
    if strangers:
        raise ParameterError(
            parameter, owner, f"keyed by quasi-identifiers ({', '.join(columns)})", strangers
        )
    raw = [check_real(given.get(c, 1.0), f"{parameter}[{c!r}]", owner, low=0) for c in columns]
    if not sum(raw) > 0:
        raise ParameterError(parameter, owner, "weights with a positive sum", dict(given))
    return raw


def aggregation(
    metric: str,
    options: Mapping[str, Any] | None,
    columns: Sequence[str],
    owner: str = "anonymize",
) -> Aggregation | None:
    """The :class:`Aggregation` that ``options`` ask for, ``None`` for none.

    ``options`` is ``metric_options`` of :class:`~anonkit.estimators.FullDomain`:
    ``{"aggregate": "arithmetic" | "geometric", "weights": {column: weight}}`` for
    ``loss``; columns without a weight weigh 1.

    Raises
    ------
    ParameterError
        If the metric takes no options, a key is unknown, the aggregate is not one of
        :data:`AGGREGATES`, a weight names no quasi-identifier or is negative, or every
        weight is 0.
    """
    if not options:
        return None
    accepted = METRIC_OPTIONS.get(metric)
    if accepted is None:
        raise ParameterError(
            "metric_options",
            owner,
            f"empty with metric={metric!r} (only {', '.join(map(repr, METRIC_OPTIONS))} "
            "takes options)",
            dict(options),
        )
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ParameterError(
            "metric_options", owner, f"a mapping with keys among {', '.join(accepted)}", unknown
        )
    kind = check_choice(
        options.get("aggregate", "arithmetic"), "metric_options.aggregate", owner, AGGREGATES
    )
    raw = check_weights(options.get("weights") or {}, columns, "metric_options.weights", owner)
    total = sum(raw)
    return Aggregation(str(kind), tuple(w / total for w in raw))
