"""The full-domain search on an encoded table, and what the chosen node releases.

Shared by the in-memory fit (:mod:`anonkit.estimators.full_domain`) and the fit through
an engine that keeps the records where they are (:mod:`anonkit.estimators.scaled`): both
count the table first, then run exactly this.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonkit._arrays import BoolArray, IntArray
from anonkit.algorithms.lattice import LATTICE_ALGORITHMS, Evaluator, SearchResult, SparseFlash
from anonkit.core.encoding import EncodedTable
from anonkit.core.lattice import MAX_NODES, Lattice
from anonkit.core.transform import ReleasePlan
from anonkit.metrics.classes import ClassProfile, profile_sizes
from anonkit.metrics.generalization import NodeSummary, all_metrics
from anonkit.metrics.node_metrics import aggregation
from anonkit.models import PrivacyModel
from anonkit.progress import Progress, show_note, start_stage

__all__ = ["Outcome", "search"]


@dataclass(frozen=True, eq=False)
class Outcome:
    """What a search found and what its node releases.

    Attributes
    ----------
    found
        The search's result.
    lattice_size
        Nodes of the lattice searched.
    class_codes
        ``(n_qi, n_classes)`` codes of the node's classes.
    class_suppressed
        Which classes the release suppresses.
    metrics
        Every generalization metric of the release (``*_loss`` and ``*_score`` names).
    classes
        The class-size profile of the records kept.
    """

    found: SearchResult
    lattice_size: int
    class_codes: IntArray = field(repr=False)
    class_suppressed: BoolArray = field(repr=False)
    metrics: dict[str, float]
    classes: ClassProfile

    @property
    def search_details(self) -> dict[str, Any]:
        """How the search went: which one ran (``auto`` picks one), whether the node is
        proven optimal, why it stopped, and for heuristics the best cost over time."""
        found = self.found
        return {
            "algorithm": found.algorithm,
            "optimal": found.optimal,
            "stopped": found.stopped,
            "convergence": [list(point) for point in found.convergence],
        }

    @property
    def suppressed(self) -> int:
        """Records the release suppresses."""
        return self.found.suppressed

    def plan(
        self, table: EncodedTable, drop: Sequence[str] = (), suppressed: str = "mask"
    ) -> ReleasePlan:
        """The release plan of the node."""
        return ReleasePlan(
            table.columns,
            table.hierarchies,
            self.found.levels,
            np.ascontiguousarray(self.class_codes[:, self.class_suppressed]),
            drop=tuple(drop),
            suppressed=suppressed,
        )


def objective(
    metric: str,
    metric_options: Mapping[str, Any] | None,
    columns: Sequence[str],
    owner: str,
    value: float,
) -> dict[str, Any] | None:
    """What the search minimized when ``metric_options`` change the metric (its
    aggregate, weights and the optimum's value), for ``result.details["objective"]``."""
    chosen = aggregation(metric, metric_options, list(columns), owner)
    if chosen is None:
        return None
    return {
        "metric": metric,
        "aggregate": chosen.aggregate,
        "weights": dict(zip(columns, chosen.weights, strict=True)),
        "value": value,
    }


def found_details(
    outcome: Outcome,
    table: EncodedTable,
    metric: str,
    metric_options: Mapping[str, Any] | None,
    owner: str,
) -> dict[str, Any]:
    """``result.details`` of a full-domain search: how the search went, the number of
    levels of each quasi-identifier's hierarchy (``heights``: a summary shows the level
    chosen out of the highest, also for a hierarchy built inside the fit) and, when
    ``metric_options`` change the metric, the objective (:func:`objective`)."""
    heights = {c: h.height for c, h in zip(table.columns, table.hierarchies, strict=True)}
    details: dict[str, Any] = {"search": outcome.search_details, "heights": heights}
    aim = objective(metric, metric_options, table.columns, owner, outcome.found.cost)
    if aim is not None:
        details["objective"] = aim
    return details


def search(
    table: EncodedTable,
    models: Sequence[PrivacyModel],
    suppression_limit: float,
    *,
    algorithm: str,
    metric: str,
    metric_options: Mapping[str, Any] | None = None,
    options: dict[str, Any] | None = None,
    progress: Progress | None = None,
) -> Outcome:
    """Search ``table``'s lattice with ``algorithm`` and judge the node it chooses.

    Raises
    ------
    PrivacyUnattainableError
        If no node satisfies the models within the suppression limit.
    """
    strategy = LATTICE_ALGORITHMS[algorithm](**(options or {}))
    # the anytime heuristics visit lattices far too large to list, and so does Flash
    # with sparse node state (SparseFlash, which runs for 'flash' beyond the explicit
    # cap); the other exact searches need the explicit lattice
    anytime = hasattr(strategy, "progress_total")
    sparse = algorithm in ("flash", "sparse_flash")
    lattice = Lattice(table.heights, max_nodes=None if anytime or sparse else MAX_NODES)
    if algorithm == "flash" and not lattice.explicit:
        strategy = SparseFlash()
    unit = [str(getattr(strategy, "progress_unit", "nodes"))]
    start_stage(progress, "Searching", unit[0])
    done = [0]
    best = [math.inf]

    def tick(n: int) -> None:
        # an anytime heuristic reports against its budget (time or nodes) with its best
        # loss so far; an exact search (or auto choosing one) against the lattice
        done[0] += n
        if progress is None:
            return
        budget = int(getattr(strategy, "progress_total", 0) or 0)
        if not budget:
            progress(done[0], lattice.size)
            return
        if strategy.progress_unit != unit[0]:  # type: ignore[attr-defined]
            # a time budget counts milliseconds (auto knows its search once it runs)
            unit[0] = strategy.progress_unit  # type: ignore[attr-defined]
            start_stage(progress, "Searching", unit[0])
        cost = float(strategy.best_cost)  # type: ignore[attr-defined]
        if cost < best[0]:
            best[0] = cost
            show_note(progress, f"best {metric} {cost:.4g}")
        progress(int(strategy.progress_done()), budget)  # type: ignore[attr-defined]

    evaluator = Evaluator(
        table,
        lattice,
        models,
        suppression_limit,
        metric,
        metric_options=metric_options,
        on_evaluate=tick if progress is not None else None,
    )
    found = strategy.search(evaluator)
    if progress is not None:
        end = int(getattr(strategy, "progress_total", 0) or 0) or lattice.size
        progress(end, end)
    cls, _, class_bad = evaluator.node_classes(found.node)
    class_codes = cls.codes[: table.width]
    n_suppressed = int(cls.counts[class_bad].sum())
    if n_suppressed != found.suppressed:  # the search and its node's classes must agree
        raise RuntimeError(
            f"internal error: search suppressed {found.suppressed} records, "
            f"the node's classes {n_suppressed}"
        )
    summary = NodeSummary(
        levels=found.levels,
        hierarchies=table.hierarchies,
        codes=class_codes.T,
        sizes=cls.counts,
        suppressed=class_bad,
        value_counts=table.value_counts,
        k=evaluator.k,
    )
    metrics = all_metrics(summary)
    metrics["precision_score"] = 1.0 - metrics["precision"]
    classes = profile_sizes(cls.counts[~class_bad], k=evaluator.k, suppressed=n_suppressed)
    return Outcome(found, lattice.size, class_codes, class_bad, metrics, classes)
