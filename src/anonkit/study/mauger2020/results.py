"""What the grid of Mauger et al. (2020) yields: one :class:`Run` per cell, and the
:class:`Reproduction` that turns them into the paper's tables and Figure 9.

A :class:`Reproduction` gives our version of Figures 6-8 (:meth:`~Reproduction.
alteration_table`), each set beside the paper's (:meth:`~Reproduction.comparison`),
Figure 9 (:meth:`~Reproduction.minimum_k`, :meth:`~Reproduction.figure9_svg`), a table of
every run (:meth:`~Reproduction.to_polars`) and the Markdown of all of it
(:meth:`~Reproduction.to_markdown`). Ranks are competition ranks of the whole
percentages; the "Average" row is the mean of the seven metrics' percentages.

The paper's full reference is in :mod:`anonkit.study.mauger2020`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from anonkit._frozen import FrozenDict
from anonkit.exceptions import ParameterError
from anonkit.metrics.cost_matrix import COST_FUNCTIONS
from anonkit.study.mauger2020.comparison import AlterationTable, FigureComparison, compare
from anonkit.study.mauger2020.paper import FIGURE_K, METRIC_ROWS, PAPER_TABLES
from anonkit.study.mauger2020.plots import figure9_svg
from anonkit.study.mauger2020.ranks import competition_ranks
from anonkit.study.mauger2020.render import (
    figure9_markdown,
    figure_markdown,
    rank_notes_markdown,
    setup_markdown,
)

__all__ = ["Reproduction", "Run"]


@dataclass(frozen=True)
class Run:
    """One cell of the grid: greedy merging at requested ``k`` optimizing ``cost``.

    Attributes
    ----------
    k, cost
        Requested k and the optimized function.
    effective_k
        Size of the smallest released class (the paper's "minimum k", Figure 9).
    n_classes, n_merges, n_fused
        Released classes, merges of Algorithm 1 and merges that met another class's values.
    alteration
        Percentage of alteration under each of the seven metrics.
    modified_percentage, deleted_percentage, deleted_of_modified_percentage
        The paper's Figures 11-13 measures, in percent.
    seconds
        Wall time of ``GreedyMerge.fit``.
    variant, seed
        The setting of Algorithm 1 (a name of
        :data:`~anonkit.study.mauger2020.orders.VARIANTS`) and the seed of the random
        order of ``C(T)`` (``-1``: the group-by order of the codes).
    tied_share, tied_median, tied_max
        Share of merges whose partner was chosen among two or more candidates of minimal
        cost (so by the order of ``C(T)``), and the median and largest number of tied
        candidates over those merges (0 when there were none).
    cpu_seconds
        CPU time of ``GreedyMerge.fit`` in its process (NaN for runs cached before it was
        recorded): what the run cost, whatever else the machine was doing.
    """

    k: int
    cost: str
    effective_k: int
    n_classes: int
    n_merges: int
    n_fused: int
    alteration: Mapping[str, float]
    modified_percentage: float
    deleted_percentage: float
    deleted_of_modified_percentage: float
    seconds: float
    variant: str = "paper"
    seed: int = -1
    tied_share: float = 0.0
    tied_median: float = 0.0
    tied_max: int = 0
    cpu_seconds: float = math.nan

    @property
    def average_alteration(self) -> float:
        """Mean percentage of alteration over the seven metrics (the tables' last row)."""
        return float(sum(self.alteration[m] for m in COST_FUNCTIONS) / len(COST_FUNCTIONS))

    def to_dict(self) -> dict[str, Any]:
        """Flat JSON-ready values (``alteration_<metric>`` columns)."""
        return {
            "k": self.k,
            "cost": self.cost,
            "effective_k": self.effective_k,
            "n_classes": self.n_classes,
            "n_merges": self.n_merges,
            "n_fused": self.n_fused,
            **{f"alteration_{m}": float(self.alteration[m]) for m in COST_FUNCTIONS},
            "alteration_average": self.average_alteration,
            "modified_percentage": self.modified_percentage,
            "deleted_percentage": self.deleted_percentage,
            "deleted_of_modified_percentage": self.deleted_of_modified_percentage,
            "seconds": self.seconds,
            "variant": self.variant,
            "seed": self.seed,
            "tied_share": self.tied_share,
            "tied_median": self.tied_median,
            "tied_max": self.tied_max,
            "cpu_seconds": self.cpu_seconds,
        }

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> Run:
        """The run of a :meth:`to_dict` row (``alteration_average`` is recomputed)."""
        state = {f: row[f] for f in cls.__dataclass_fields__ if f in row and f != "alteration"}
        state["alteration"] = FrozenDict({m: float(row[f"alteration_{m}"]) for m in COST_FUNCTIONS})
        return cls(**state)


@dataclass(frozen=True)
class Reproduction:
    """The grid of the paper run on our side, with the tables and Figure 9 it yields.

    Attributes
    ----------
    k_values, costs
        Requested k and optimizations of the grid.
    small_class, leaves
        How ``C_small`` was chosen and which hierarchy leaves were kept.
    columns
        The quasi-identifiers, in the order used to list the classes ``C(T)``.
    hierarchy_shapes
        Per quasi-identifier: (height in levels, leaves of the hierarchy, distinct values in
        the data).
    n_records, n_initial_classes
        Records and distinct quasi-identifier combinations of the input.
    runs
        One :class:`Run` per (k, cost), ordered by k then cost.
    workers, seconds
        Processes used and wall time of the grid.
    """

    k_values: tuple[int, ...]
    costs: tuple[str, ...]
    small_class: str
    leaves: str
    columns: tuple[str, ...]
    hierarchy_shapes: tuple[tuple[int, int, int], ...]
    n_records: int
    n_initial_classes: int
    runs: tuple[Run, ...] = field(repr=False)
    workers: int
    seconds: float

    def run(self, k: int, cost: str) -> Run:
        """The run at requested ``k`` optimizing ``cost``."""
        for r in self.runs:
            if r.k == k and r.cost == cost:
                return r
        raise ParameterError("(k, cost)", "Reproduction.run", "a cell of the grid", (k, cost))

    def alteration_table(self, k: int) -> AlterationTable:
        """Percentage of alteration of each optimization under each metric at ``k``."""
        runs = [self.run(k, c) for c in self.costs]
        values = tuple(
            tuple(r.average_alteration if m == "average" else r.alteration[m] for r in runs)
            for m in METRIC_ROWS
        )
        return AlterationTable(
            k=k,
            metrics=METRIC_ROWS,
            optimizations=self.costs,
            values=values,
            ranks=tuple(competition_ranks(row) for row in values),
        )

    def comparison(self, k: int) -> FigureComparison:
        """Our table at ``k`` against the paper's (``k`` must be 2, 100 or 1500)."""
        if k not in PAPER_TABLES:
            raise ParameterError("k", "Reproduction.comparison", "2, 100 or 1500", k)
        return compare(self.alteration_table(k))

    def minimum_k(self) -> dict[tuple[int, str], int]:
        """Figure 9: the minimum (effective) k of every run."""
        return {(r.k, r.cost): r.effective_k for r in self.runs}

    def to_polars(self) -> pl.DataFrame:
        """One row per run (see :meth:`Run.to_dict`)."""
        return pl.DataFrame([r.to_dict() for r in self.runs])

    def _grid_minimum_k(self) -> dict[tuple[int, str], int]:
        return {(k, c): self.run(k, c).effective_k for k in self.k_values for c in self.costs}

    def figure9_svg(self) -> str:
        """Figure 9 as a standalone SVG: minimum k against requested k, log-log axes.

        One line per optimization, the diagonal ``minimum k = requested k``, and the
        values the paper's text states as hollow black circles.
        """
        return figure9_svg(self._grid_minimum_k(), self.k_values, self.costs)

    def to_markdown(self, *, figure9_image: str | None = None) -> str:
        """Our tables beside the paper's, Figure 9 as a table, and the setup.

        Parameters
        ----------
        figure9_image
            Path of the Figure 9 SVG to link from the Markdown, if any.
        """
        lines = setup_markdown(
            n_records=self.n_records,
            n_initial_classes=self.n_initial_classes,
            columns=self.columns,
            hierarchy_shapes=self.hierarchy_shapes,
            k_values=self.k_values,
            costs=self.costs,
            small_class=self.small_class,
            leaves=self.leaves,
            workers=self.workers,
            seconds=self.seconds,
            run_seconds=[r.seconds for r in self.runs],
        )
        for k in FIGURE_K:
            if k in self.k_values:
                lines += figure_markdown(self.comparison(k))
        lines += figure9_markdown(
            self._grid_minimum_k(), self.k_values, self.costs, image=figure9_image
        )
        lines += rank_notes_markdown(self.k_values)
        return "\n".join(lines)
