"""Our version of one of the paper's Figures 6-8, and how it compares with the printed one.

:class:`AlterationTable` holds our percentages of alteration (unrounded) with their ranks;
:func:`compare` sets it beside :data:`~anonkit.study.mauger2020.paper.PAPER_TABLES`: the
difference in percentage points, Spearman's rho per metric row between our whole
percentages (the values our ranks come from) and the paper's printed ones, and the
rank-1 optimizations of both (the paper's recomputed from its printed values).

The paper's full reference is in :mod:`anonkit.study.mauger2020`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from anonkit.exceptions import ParameterError
from anonkit.study.mauger2020.paper import PAPER_TABLES, PaperTable
from anonkit.study.mauger2020.ranks import round_half_up, spearman

__all__ = ["AlterationTable", "FigureComparison", "compare"]


@dataclass(frozen=True)
class AlterationTable:
    """Our version of one of Figures 6-8: percentages (unrounded) and ranks.

    ``values[i][j]`` is the percentage of alteration of optimization ``optimizations[j]``
    under ``metrics[i]``; ranks are competition ranks of the whole-percent values per row.
    """

    k: int
    metrics: tuple[str, ...]
    optimizations: tuple[str, ...]
    values: tuple[tuple[float, ...], ...]
    ranks: tuple[tuple[int, ...], ...]

    def best(self, metric: str) -> tuple[str, ...]:
        """Optimizations at rank 1 under ``metric``."""
        row = self.ranks[self.metrics.index(metric)]
        return tuple(o for o, r in zip(self.optimizations, row, strict=True) if r == 1)


@dataclass(frozen=True)
class FigureComparison:
    """Our table against the paper's for one requested k.

    Attributes
    ----------
    ours, paper
        The two tables (the paper's restricted to our optimizations for ``best``).
    difference
        ``8 x len(optimizations)``: our percentage minus the paper's printed one, in points.
    spearman
        Per metric row, Spearman's rho between our and the paper's percentages.
    our_best, paper_best
        Per metric row, the rank-1 optimizations.
    """

    ours: AlterationTable
    paper: PaperTable
    difference: tuple[tuple[float, ...], ...]
    spearman: tuple[float, ...]
    our_best: tuple[tuple[str, ...], ...]
    paper_best: tuple[tuple[str, ...], ...]

    @property
    def best_overlap(self) -> int:
        """Rows where our and the paper's rank-1 sets share an optimization."""
        return sum(
            bool(set(a) & set(b)) for a, b in zip(self.our_best, self.paper_best, strict=True)
        )

    @property
    def best_identical(self) -> int:
        """Rows where our and the paper's rank-1 sets are the same."""
        return sum(set(a) == set(b) for a, b in zip(self.our_best, self.paper_best, strict=True))

    @property
    def mean_abs_difference(self) -> float:
        """Mean absolute difference over all cells, in percentage points."""
        cells = [abs(d) for row in self.difference for d in row]
        return float(sum(cells) / len(cells)) if cells else math.nan

    @property
    def mean_spearman(self) -> float:
        """Mean of the per-row Spearman correlations that are defined."""
        vals = [r for r in self.spearman if not math.isnan(r)]
        return float(sum(vals) / len(vals)) if vals else math.nan


def compare(ours: AlterationTable) -> FigureComparison:
    """Our table against the paper's table at the same requested k (2, 100 or 1500).

    Raises
    ------
    ParameterError
        If the paper prints no table for ``ours.k``.
    """
    if ours.k not in PAPER_TABLES:
        raise ParameterError("k", "Reproduction.comparison", "2, 100 or 1500", ours.k)
    paper = PAPER_TABLES[ours.k]
    costs = ours.optimizations
    diff = tuple(
        tuple(v - paper.value(m, o) for v, o in zip(row, costs, strict=True))
        for m, row in zip(ours.metrics, ours.values, strict=True)
    )
    rho = tuple(
        spearman([round_half_up(v) for v in row], [paper.value(m, o) for o in costs])
        for m, row in zip(ours.metrics, ours.values, strict=True)
    )
    return FigureComparison(
        ours=ours,
        paper=paper,
        difference=diff,
        spearman=rho,
        our_best=tuple(ours.best(m) for m in ours.metrics),
        paper_best=tuple(paper.best(m, costs) for m in ours.metrics),
    )
