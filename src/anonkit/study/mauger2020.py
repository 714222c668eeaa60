"""Reproduction of Mauger, Le Mahec & Dequen (2020), Figures 6 to 9.

The paper k-anonymizes Adult (30,162 records, nine quasi-identifiers) with a greedy class
merging algorithm (its Algorithm 1, :class:`~anonkit.algorithms.greedy_merge.GreedyMerge`)
that optimizes one of seven cost functions, for 21 requested k from 2 to 15,000. Figures 6,
7 and 8 give, for requested k = 2, 100 and 1500, the *percentage of alteration*
``100 * m(T_o,k) / m(T*)`` of the table optimized with ``o`` under each metric ``m``
(``T*``: every value at its hierarchy's root), with the rank of each optimization per
metric (1 = least altered). Figure 9 plots the *minimum k* (smallest class of the release)
against the requested k.

This module holds the paper's published numbers as data (:data:`PAPER_TABLES`,
:func:`paper_minimum_k`), runs the grid (:func:`reproduce`, in parallel over processes
started with the *spawn* method), and prints ours beside the paper's
(:meth:`Reproduction.to_markdown`, :meth:`Reproduction.figure9_svg`).

Conventions:

* Ranks are competition ranks (``1 2 2 4``: ties share the best rank) computed on the
  percentages rounded half-up to whole numbers, the precision the paper prints; the
  paper's tables rank the same way (e.g. Figure 6, row *distortion*: four optimizations
  at 2 % share rank 1, the next is rank 5).
* The "Average" row is the mean of the seven metrics' percentages.
* Rank agreement per metric is Spearman's rho between our whole percentages (the values
  our ranks come from) and the paper's printed ones over the optimizations (ties get
  average ranks; NaN when a row is constant); the *best* optimizations
  of a row are those at rank 1, recomputed from the printed values for the paper, since a
  few printed ranks contradict their own values (:meth:`PaperTable.rank_inconsistencies`).

Run from the command line (``--output`` writes the SVG, a CSV of every run, and the
results block of ``DIR/mauger2020.md``)::

    python -m anonkit.study.mauger2020 --workers 2 --output docs/studies

References
----------
C. Mauger, G. Le Mahec, G. Dequen. Modeling and evaluation of k-anonymization metrics.
PPAI workshop at AAAI 2020. hal-03236397.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit.algorithms.greedy_merge import (
    PAPER_ADULT_COLUMNS,
    PAPER_K_VALUES,
    SMALL_CLASS_CHOICES,
    GreedyMerge,
)
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import AnonkitError, DataError, ParameterError, UnknownColumnError
from anonkit.metrics.cost_matrix import COST_FUNCTIONS, check_cost

__all__ = [
    "FIGURE_K",
    "LABELS",
    "LEAVES_CHOICES",
    "PAPER_FIGURE5",
    "PAPER_MINIMUM_K",
    "PAPER_TABLES",
    "AlterationTable",
    "FigureComparison",
    "PaperMinimumK",
    "PaperTable",
    "Reproduction",
    "Run",
    "competition_ranks",
    "main",
    "paper_minimum_k",
    "parse_paper_table",
    "reproduce",
    "spearman",
    "write_outputs",
]

IntArray = npt.NDArray[np.int64]

#: The requested k of the paper's three tables.
FIGURE_K: Mapping[int, str] = MappingProxyType({2: "Figure 6", 100: "Figure 7", 1500: "Figure 8"})
#: The paper's names of the seven optimizations.
LABELS: Mapping[str, str] = MappingProxyType(
    {
        "distortion": "Distortion",
        "ncp": "NCP",
        "total": "Total",
        "llm": "LLM",
        "nllm": "NLLM",
        "wllm": "WLLM",
        "wnllm": "WNLLM",
    }
)
#: Rows of the paper's tables: the seven metrics, then their average.
METRIC_ROWS: tuple[str, ...] = (*COST_FUNCTIONS, "average")
#: Which leaves the hierarchies keep: all rows of the hierarchy files, or only the values
#: that occur in the data (closer to the "number of values" of the paper's Figure 5).
LEAVES_CHOICES: tuple[str, ...] = ("hierarchy", "data")
#: The paper's Figure 5: number of values and hierarchy height (levels) per attribute.
PAPER_FIGURE5: Mapping[str, tuple[int, int]] = MappingProxyType(
    {
        "age": (74, 5),
        "sex": (2, 2),
        "race": (5, 2),
        "marital-status": (7, 3),
        "education": (16, 4),
        "native-country": (41, 3),
        "workclass": (7, 3),
        "occupation": (14, 3),
        "salary-class": (2, 2),
    }
)
#: Records and initial equivalence classes the paper reports for Adult.
PAPER_RECORDS = 30162
PAPER_INITIAL_CLASSES = 19502

# The tables of Figures 6-8 as printed in the paper (columns: Distortion, NCP, Total, LLM,
# NLLM, WLLM, WNLLM). Copied cell by cell from the seed text; its row "nep" is an OCR
# misreading of "ncp". Some printed ranks contradict the printed values (see
# PaperTable.rank_inconsistencies); they are kept as printed.
_PAPER_TEXT: Mapping[int, str] = {
    2: """
        distortion  2 (1)   2 (1)   3 (5)   5 (7)   2 (1)   4 (6)   2 (1)
        ncp         4 (3)   3 (1)   4 (3)   5 (6)   3 (1)   5 (6)   4 (3)
        total       5 (1)   5 (1)   5 (1)   7 (7)   5 (1)   6 (5)   6 (5)
        llm         8 (6)   5 (2)   5 (2)   3 (1)   6 (5)   5 (2)   8 (6)
        nllm        3 (2)   3 (2)   3 (2)   5 (7)   2 (1)   4 (6)   3 (2)
        wllm        4 (3)   4 (3)   5 (7)   3 (1)   4 (3)   3 (1)   4 (3)
        wnllm       2 (1)   3 (4)   4 (5)   5 (7)   2 (1)   4 (5)   2 (1)
        average     4 (2)   4 (2)   4 (2)   5 (7)   3 (1)   4 (2)   4 (2)
    """,
    100: """
        distortion  24 (1)  34 (5)  30 (4)  56 (7)  27 (2)  47 (6)  28 (3)
        ncp         35 (2)  38 (4)  38 (4)  52 (7)  34 (1)  50 (6)  37 (3)
        total       35 (1)  42 (5)  39 (3)  58 (7)  37 (2)  54 (6)  39 (3)
        llm         54 (6)  48 (3)  52 (4)  30 (1)  53 (5)  43 (2)  57 (1)
        nllm        28 (2)  33 (5)  32 (4)  57 (7)  27 (1)  53 (6)  30 (3)
        wllm        39 (3)  45 (7)  43 (4)  32 (7)  43 (4)  26 (1)  43 (4)
        wnllm       28 (1)  35 (5)  33 (4)  56 (7)  28 (1)  47 (6)  30 (3)
        average     35 (1)  39 (5)  38 (3)  49 (7)  36 (2)  46 (6)  38 (3)
    """,
    1500: """
        distortion  72 (5)  68 (4)  61 (2)  86 (7)  58 (1)  73 (2)  65 (3)
        ncp         67 (2)  82 (7)  67 (2)  81 (6)  63 (1)  78 (5)  70 (4)
        total       67 (2)  72 (4)  73 (5)  86 (7)  63 (1)  79 (2)  70 (3)
        llm         83 (4)  86 (7)  80 (3)  59 (1)  83 (4)  65 (2)  85 (6)
        nllm        60 (3)  65 (5)  59 (1)  85 (7)  59 (1)  80 (2)  63 (4)
        wllm        79 (4)  85 (7)  75 (3)  58 (2)  80 (5)  52 (1)  82 (2)
        wnllm       63 (3)  69 (4)  62 (2)  85 (7)  59 (1)  75 (5)  75 (5)
        average     70 (3)  75 (6)  68 (2)  77 (7)  66 (1)  72 (4)  73 (5)
    """,
}

_CELL = re.compile(r"(-?\d+(?:\.\d+)?)\s*\(\s*(\d+)\s*\)")


# ---------------------------------------------------------------- ranks and agreement
def _round_half_up(value: float, decimals: int = 0) -> float:
    scale = 10.0**decimals
    return math.floor(value * scale + 0.5) / scale


def competition_ranks(values: Sequence[float], *, decimals: int | None = 0) -> tuple[int, ...]:
    """Competition ranks, 1 for the smallest value; ties share the best rank (``1 2 2 4``).

    Parameters
    ----------
    values
        The values to rank (NaN ranks last).
    decimals
        Round half-up to this many decimals before ranking (the paper ranks its printed
        whole percentages); ``None`` ranks the values as they are.

    Examples
    --------
    >>> competition_ranks([2.4, 2.1, 3.0, 1.6])
    (1, 1, 4, 1)
    >>> competition_ranks([2.4, 2.1, 3.0, 1.6], decimals=None)
    (3, 2, 4, 1)
    """
    shown = [
        math.inf
        if math.isnan(v)
        else (float(v) if decimals is None else _round_half_up(float(v), decimals))
        for v in values
    ]
    return tuple(1 + sum(other < x for other in shown) for x in shown)


def _average_ranks(values: Sequence[float]) -> npt.NDArray[np.float64]:
    arr = np.asarray(values, dtype=np.float64)
    order = np.argsort(arr, kind="stable")
    ranks = np.empty(arr.shape[0], dtype=np.float64)
    sorted_vals = arr[order]
    i = 0
    while i < arr.shape[0]:
        j = i
        while j + 1 < arr.shape[0] and sorted_vals[j + 1] == sorted_vals[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation of two equally long sequences (ties: average ranks).

    NaN when fewer than two values, when either sequence holds NaN or is constant.

    Examples
    --------
    >>> spearman([1, 2, 3, 4], [10, 20, 30, 40])
    1.0
    >>> spearman([1, 2, 3], [3, 2, 1])
    -1.0
    """
    if len(a) != len(b):
        raise ParameterError("b", "spearman", f"a sequence of length {len(a)}", len(b))
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape[0] < 2 or np.isnan(x).any() or np.isnan(y).any():
        return math.nan
    rx = _average_ranks(x.tolist())
    ry = _average_ranks(y.tolist())
    rx -= rx.mean()
    ry -= ry.mean()
    denom = math.sqrt(float((rx**2).sum()) * float((ry**2).sum()))
    if denom == 0.0:
        return math.nan
    return round(float((rx * ry).sum()) / denom, 12)


# ---------------------------------------------------------------- the paper's numbers
@dataclass(frozen=True)
class PaperTable:
    """One of the paper's Figures 6-8: percentage of alteration with ranks.

    Attributes
    ----------
    figure, k
        The figure's name and its requested k.
    metrics
        Row names: the seven metrics of :data:`~anonkit.metrics.cost_matrix.COST_FUNCTIONS`
        and ``"average"``.
    optimizations
        Column names: the seven optimizations, in the paper's order.
    values, ranks
        ``8 x 7``: the printed whole percentages and the printed ranks.

    Examples
    --------
    >>> t = PAPER_TABLES[100]
    >>> t.value("distortion", "nllm"), t.rank("ncp", "ncp")
    (27, 4)
    """

    figure: str
    k: int
    metrics: tuple[str, ...]
    optimizations: tuple[str, ...]
    values: tuple[tuple[int, ...], ...]
    ranks: tuple[tuple[int, ...], ...]

    def value(self, metric: str, optimization: str) -> int:
        """The printed percentage of ``optimization`` under ``metric``."""
        return self.values[self.metrics.index(metric)][self.optimizations.index(optimization)]

    def rank(self, metric: str, optimization: str) -> int:
        """The printed rank of ``optimization`` under ``metric``."""
        return self.ranks[self.metrics.index(metric)][self.optimizations.index(optimization)]

    def best(self, metric: str, optimizations: Sequence[str] | None = None) -> tuple[str, ...]:
        """Optimizations with the lowest printed value in a row (among ``optimizations``)."""
        cols = tuple(self.optimizations if optimizations is None else optimizations)
        vals = [self.value(metric, o) for o in cols]
        return tuple(o for o, r in zip(cols, competition_ranks(vals), strict=True) if r == 1)

    def rank_inconsistencies(self) -> tuple[tuple[str, str, int, int], ...]:
        """Cells whose printed rank differs from the rank of the printed values.

        Returns ``(metric, optimization, printed rank, recomputed rank)`` tuples.
        """
        out = []
        for metric, vals, printed in zip(self.metrics, self.values, self.ranks, strict=True):
            recomputed = competition_ranks(vals)
            for o, p, r in zip(self.optimizations, printed, recomputed, strict=True):
                if p != r:
                    out.append((metric, o, p, r))
        return tuple(out)


def parse_paper_table(text: str, *, figure: str, k: int) -> PaperTable:
    """Read a table of the paper written as one line per metric of ``value (rank)`` cells.

    Each non-blank line is a row name (one of ``distortion`` ... ``wnllm``, ``average``)
    followed by seven ``value (rank)`` cells; the rows must come in the paper's order.

    Raises
    ------
    DataError
        If a row is missing, unknown, out of order or does not hold seven cells.

    Examples
    --------
    >>> rows = [f"{m} " + " ".join(f"{i} ({i})" for i in range(1, 8)) for m in METRIC_ROWS]
    >>> parse_paper_table("\\n".join(rows), figure="Figure X", k=3).ranks[0]
    (1, 2, 3, 4, 5, 6, 7)
    """
    names: list[str] = []
    values: list[tuple[int, ...]] = []
    ranks: list[tuple[int, ...]] = []
    for line in text.strip().splitlines():
        line = line.strip()
        if not line:
            continue
        name, _, rest = line.partition(" ")
        cells = _CELL.findall(rest)
        if len(cells) != len(COST_FUNCTIONS):
            raise DataError(
                f"row {name!r} of {figure} holds {len(cells)} 'value (rank)' cells, "
                f"not {len(COST_FUNCTIONS)}."
            )
        names.append(name.lower())
        values.append(tuple(int(round(float(v))) for v, _ in cells))
        ranks.append(tuple(int(r) for _, r in cells))
    if tuple(names) != METRIC_ROWS:
        raise DataError(f"the rows of {figure} must be {list(METRIC_ROWS)}; got {names}.")
    return PaperTable(
        figure=figure,
        k=k,
        metrics=METRIC_ROWS,
        optimizations=COST_FUNCTIONS,
        values=tuple(values),
        ranks=tuple(ranks),
    )


#: The paper's Figures 6, 7 and 8 by requested k.
PAPER_TABLES: Mapping[int, PaperTable] = MappingProxyType(
    {k: parse_paper_table(_PAPER_TEXT[k], figure=FIGURE_K[k], k=k) for k in FIGURE_K}
)

#: Minimum k values the paper's text states for Figure 9 (the plot's other points are not
#: given in the text).
PAPER_MINIMUM_K: Mapping[tuple[int, str], int] = MappingProxyType(
    {
        **{(2, o): 2 for o in COST_FUNCTIONS},
        (7500, "llm"): 12307,
        (10000, "distortion"): PAPER_RECORDS,
        (10000, "total"): PAPER_RECORDS,
        **{(15000, o): PAPER_RECORDS for o in COST_FUNCTIONS},
    }
)


@dataclass(frozen=True)
class PaperMinimumK:
    """What the paper's text says about the minimum k of one point of Figure 9.

    Attributes
    ----------
    value
        The number the text states, or ``None`` when it gives none for this point.
    statement
        The text's statement that covers this requested k (paraphrased closely).
    """

    value: int | None
    statement: str


def paper_minimum_k(k: int, optimization: str) -> PaperMinimumK:
    """The paper's Figure 9 at requested ``k`` for ``optimization``, as far as its text says.

    Examples
    --------
    >>> paper_minimum_k(7500, "llm").value
    12307
    >>> paper_minimum_k(500, "ncp")
    PaperMinimumK(value=None, statement='equal or very close to the requested k (k <= 1000)')
    """
    check_cost(optimization)
    value = PAPER_MINIMUM_K.get((k, optimization))
    statement = _range_statement(k)
    if (k, optimization) == (7500, "llm"):
        statement = "T_LLM,7500 has minimum k 12307"
    elif k == 10000 and optimization in ("distortion", "total"):
        statement = "a single class (minimum k 30162)"
    return PaperMinimumK(value=value, statement=statement)


def _range_statement(k: int) -> str:
    """What the paper's text says about Figure 9 for every optimization at requested k."""
    if k == 2:
        return "the smallest class of every T_o,2 has size 2"
    if k <= 1000:
        return "equal or very close to the requested k (k <= 1000)"
    if k <= 4000:
        return "relatively close to the requested k, same for all (1500 <= k <= 4000)"
    if k < 15000:
        return "strongly above the requested k (from k = 5000)"
    return "every optimization gives minimum k 30162"


# ---------------------------------------------------------------- our runs
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

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # MappingProxyType does not pickle; rebuild it (runs cross process boundaries).
        state = {f: getattr(self, f) for f in self.__dataclass_fields__}
        state["alteration"] = dict(self.alteration)
        return (_make_run, (state,))

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
        }


def _make_run(state: dict[str, Any]) -> Run:
    state = dict(state)
    state["alteration"] = MappingProxyType(dict(state["alteration"]))
    return Run(**state)


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
        ours = self.alteration_table(k)
        paper = PAPER_TABLES[k]
        diff = tuple(
            tuple(v - paper.value(m, o) for v, o in zip(row, self.costs, strict=True))
            for m, row in zip(METRIC_ROWS, ours.values, strict=True)
        )
        rho = tuple(
            spearman([_round_half_up(v) for v in row], [paper.value(m, o) for o in self.costs])
            for m, row in zip(METRIC_ROWS, ours.values, strict=True)
        )
        return FigureComparison(
            ours=ours,
            paper=paper,
            difference=diff,
            spearman=rho,
            our_best=tuple(ours.best(m) for m in METRIC_ROWS),
            paper_best=tuple(paper.best(m, self.costs) for m in METRIC_ROWS),
        )

    def minimum_k(self) -> dict[tuple[int, str], int]:
        """Figure 9: the minimum (effective) k of every run."""
        return {(r.k, r.cost): r.effective_k for r in self.runs}

    def to_polars(self) -> pl.DataFrame:
        """One row per run (see :meth:`Run.to_dict`)."""
        return pl.DataFrame([r.to_dict() for r in self.runs])

    def figure9_svg(self) -> str:
        """Figure 9 as a standalone SVG: minimum k against requested k, log-log axes.

        One line per optimization, the diagonal ``minimum k = requested k``, and the
        values the paper's text states as hollow black circles.
        """
        series = {
            LABELS[c]: [(float(k), float(self.run(k, c).effective_k)) for k in self.k_values]
            for c in self.costs
        }
        stated = [
            (float(k), float(v))
            for (k, o), v in sorted(PAPER_MINIMUM_K.items())
            if k in self.k_values and o in self.costs
        ]
        return _loglog_svg(
            series,
            stated,
            title="Minimum k against requested k (Mauger et al. 2020, Figure 9)",
            xlabel="requested k",
            ylabel="minimum k (smallest class)",
        )

    def to_markdown(self, *, figure9_image: str | None = None) -> str:
        """Our tables beside the paper's, Figure 9 as a table, and the setup.

        Parameters
        ----------
        figure9_image
            Path of the Figure 9 SVG to link from the Markdown, if any.
        """
        return "\n".join(_markdown(self, figure9_image))


# ---------------------------------------------------------------- running the grid
_WORKER: tuple[IntArray, tuple[Hierarchy, ...]] | None = None


def _init_worker(codes: Path, hierarchies: tuple[Hierarchy, ...]) -> None:
    """Process-pool initializer: load the encoded table (a ``.npy`` file) once per worker.

    A file, not the array itself: the arguments are written to each new process through
    a pipe it reads only after its imports, and a Ctrl-C waits while that is done.
    """
    global _WORKER
    _WORKER = (np.load(codes), hierarchies)


def _fit(codes: IntArray, hs: tuple[Hierarchy, ...], k: int, cost: str, small: str) -> Run:
    start = time.perf_counter()
    r = GreedyMerge(k=k, cost=cost, small_class=small).fit(codes, hs)
    seconds = time.perf_counter() - start
    return Run(
        k=k,
        cost=cost,
        effective_k=r.effective_k,
        n_classes=r.n_classes,
        n_merges=r.n_merges,
        n_fused=r.n_fused,
        alteration=MappingProxyType({m: float(r.alteration[m]) for m in COST_FUNCTIONS}),
        modified_percentage=float(r.modified_percentage),
        deleted_percentage=float(r.deleted_percentage),
        deleted_of_modified_percentage=float(r.deleted_of_modified_percentage),
        seconds=seconds,
    )


def _run_cell(cell: tuple[int, str, str]) -> Run:
    """Worker task: one (k, cost, small_class) cell on the table set by the initializer."""
    if _WORKER is None:  # pragma: no cover - only if the initializer did not run
        raise RuntimeError("the worker was started without its table")
    return _fit(_WORKER[0], _WORKER[1], *cell)


def _prepare(
    data: pl.DataFrame | None,
    hierarchies: Mapping[str, Hierarchy | str | os.PathLike[str]] | None,
    leaves: str,
) -> tuple[IntArray, tuple[Hierarchy, ...], tuple[tuple[int, int, int], ...]]:
    """Level-0 codes ``(n_qi, n)`` and hierarchies of the quasi-identifiers."""
    from anonkit.datasets import load_adult
    from anonkit.engines.polars_engine import PolarsEngine

    if data is None or hierarchies is None:
        frame, paths = load_adult()
        if data is None:
            data = frame
        if hierarchies is None:
            hierarchies = {c: paths[c] for c in PAPER_ADULT_COLUMNS}
    columns = list(hierarchies)
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise UnknownColumnError(missing, data.columns)
    data = data.select(columns).drop_nulls()
    if data.height == 0:
        raise DataError("the data has no record without missing quasi-identifier values.")
    hs = [
        spec.with_name(c) if isinstance(spec, Hierarchy) else Hierarchy.from_csv(Path(spec), name=c)
        for c, spec in hierarchies.items()
    ]
    present = [set(data[c].cast(pl.String).unique().to_list()) for c in columns]
    shapes = tuple((h.height, len(h.leaves), len(p)) for h, p in zip(hs, present, strict=True))
    if leaves == "data":
        hs = [
            Hierarchy([r for r in h.rows if r[0] in p], name=c)
            for h, p, c in zip(hs, present, columns, strict=True)
        ]
    table = PolarsEngine().encode(data, columns, hs)
    assert table.record_codes is not None
    codes = np.ascontiguousarray(table.record_codes, dtype=np.int64)
    return codes, tuple(hs), shapes


def reproduce(
    *,
    k_values: Sequence[int] = PAPER_K_VALUES,
    costs: Sequence[str] = COST_FUNCTIONS,
    small_class: str = "first",
    leaves: str = "hierarchy",
    data: pl.DataFrame | None = None,
    hierarchies: Mapping[str, Hierarchy | str | os.PathLike[str]] | None = None,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Reproduction:
    """Run the paper's grid: greedy merging for every requested k and optimization.

    Every run starts from the original table (as in the paper). With ``workers > 1`` the
    runs go to a process pool started with the *spawn* method (forking a process whose
    polars/numpy thread pools are running can deadlock the child); each worker loads
    the encoded table once, from a temporary ``.npy`` file, in the pool's initializer. As
    always with spawn, a script that calls this with ``workers > 1`` must do so under
    ``if __name__ == "__main__":``.

    Parameters
    ----------
    k_values
        Requested k (default: :data:`~anonkit.algorithms.greedy_merge.PAPER_K_VALUES`).
    costs
        Optimizations (default: all seven, in the paper's order).
    small_class
        How Algorithm 1 chooses ``C_small``: ``"first"`` (the paper) or ``"smallest"``.
    leaves
        ``"hierarchy"`` keeps every row of the hierarchy files; ``"data"`` keeps only the
        values that occur in the data (changes the leaf counts of NCP and the LLM family).
    data, hierarchies
        The table and an ordered mapping from quasi-identifier to hierarchy (or hierarchy
        file); the order of the mapping is the column order of ``C(T)``. Default: the
        bundled Adult with the paper's nine quasi-identifiers in its order
        (:data:`~anonkit.algorithms.greedy_merge.PAPER_ADULT_COLUMNS`). Records with a
        missing quasi-identifier are dropped.
    workers
        Processes (default ``os.cpu_count()``, at most the number of runs); 1 runs in this
        process.
    progress
        Called as ``progress(done, total)`` after each finished run.

    Raises
    ------
    ParameterError
        For empty ``k_values``, a k outside 1..n, bad ``workers``, ``small_class`` or
        ``leaves``.
    UnknownNameError
        For an unknown cost.

    Examples
    --------
    >>> rows = [["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"], ["d", "C", "*"]]
    >>> frame = pl.DataFrame({"q": ["a", "b", "c", "d", "d"]})
    >>> rep = reproduce(k_values=[2], costs=["ncp"], data=frame,
    ...                 hierarchies={"q": Hierarchy(rows)}, workers=1)
    >>> rep.run(2, "ncp").effective_k, rep.n_initial_classes
    (2, 4)
    """
    owner = "reproduce"
    ks = tuple(k_values)
    if not ks:
        raise ParameterError("k_values", owner, "a non-empty sequence of ints", ks)
    for k in ks:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ParameterError("k_values", owner, "ints >= 1", k)
    cost_list = tuple(check_cost(c) for c in costs)
    if not cost_list:
        raise ParameterError("costs", owner, "at least one cost function", cost_list)
    if small_class not in SMALL_CLASS_CHOICES:
        raise ParameterError(
            "small_class", owner, f"one of {list(SMALL_CLASS_CHOICES)}", small_class
        )
    if leaves not in LEAVES_CHOICES:
        raise ParameterError("leaves", owner, f"one of {list(LEAVES_CHOICES)}", leaves)
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise ParameterError("workers", owner, "None or an int >= 1", workers)

    codes, hs, shapes = _prepare(data, hierarchies, leaves)
    n = int(codes.shape[1])
    if max(ks) > n:
        raise ParameterError("k_values", owner, f"at most the number of records ({n})", max(ks))
    n_initial = int(np.unique(codes, axis=1).shape[1])
    cells = [(int(k), c, small_class) for k in ks for c in cost_list]
    n_workers = min(workers or os.cpu_count() or 1, len(cells))

    start = time.perf_counter()
    results: dict[tuple[int, str], Run] = {}
    if n_workers == 1:
        for cell in cells:
            results[cell[:2]] = _fit(codes, hs, *cell)
            if progress is not None:
                progress(len(results), len(cells))
    else:
        from anonkit.study.runner import run_in_processes

        def finished(_: int, run: Run) -> None:
            results[(run.k, run.cost)] = run
            if progress is not None:
                progress(len(results), len(cells))

        # spawn, workers ignore Ctrl-C, and any exception (a failed run, Ctrl-C) ends them
        with tempfile.TemporaryDirectory(prefix="anonkit-") as folder:
            table = Path(folder) / "codes.npy"
            np.save(table, codes)
            run_in_processes(
                _run_cell,
                cells,
                finished,
                workers=n_workers,
                initializer=_init_worker,
                initargs=(table, hs),
            )
    seconds = time.perf_counter() - start
    return Reproduction(
        k_values=tuple(int(k) for k in ks),
        costs=cost_list,
        small_class=small_class,
        leaves=leaves,
        columns=tuple(h.name or f"q{i}" for i, h in enumerate(hs)),
        hierarchy_shapes=shapes,
        n_records=n,
        n_initial_classes=n_initial,
        runs=tuple(results[(k, c)] for k, c, _ in cells),
        workers=n_workers,
        seconds=seconds,
    )


# ---------------------------------------------------------------- Markdown
def _md_table(header: Sequence[str], rows: Sequence[Sequence[object]], align: str) -> list[str]:
    align = align.ljust(len(header), "r")
    sep = ["---:" if a == "r" else ":---" for a in align]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def _names(opts: Sequence[str]) -> str:
    return ", ".join(LABELS[o] for o in opts) or "-"


def _figure_markdown(cmp: FigureComparison) -> list[str]:
    ours, paper = cmp.ours, cmp.paper
    opts = ours.optimizations
    head = ["metric \\ optimization", *[LABELS[o] for o in opts]]
    side = []
    for i, m in enumerate(METRIC_ROWS):
        side.append(
            [m]
            + [
                f"{ours.values[i][j]:.1f} ({ours.ranks[i][j]}) / "
                f"{paper.value(m, o)} ({paper.rank(m, o)})"
                for j, o in enumerate(opts)
            ]
        )
    diff = []
    for i, m in enumerate(METRIC_ROWS):
        rho = cmp.spearman[i]
        same = set(cmp.our_best[i]) & set(cmp.paper_best[i])
        diff.append(
            [m, *[f"{d:+.1f}" for d in cmp.difference[i]]]
            + [
                "n/a" if math.isnan(rho) else f"{rho:.2f}",
                _names(cmp.our_best[i]),
                _names(cmp.paper_best[i]),
                "yes" if same else "no",
            ]
        )
    return [
        f"### {paper.figure}: percentage of alteration for requested k = {ours.k}",
        "",
        "Each cell: ours (rank) / the paper's (printed rank).",
        "",
        *_md_table(head, side, "l"),
        "",
        "Ours minus the paper's, in percentage points; Spearman's rho between the two rows; "
        "the rank-1 optimizations (the paper's recomputed from its printed values).",
        "",
        *_md_table(
            ["metric", *[LABELS[o] for o in opts], "rho", "our best", "paper's best", "agree"],
            diff,
            "l" + "r" * (len(opts) + 1) + "lll",
        ),
        "",
        f"Summary at k = {ours.k}: mean |difference| {cmp.mean_abs_difference:.1f} points; "
        f"mean rho {cmp.mean_spearman:.2f}; best optimization shared in "
        f"{cmp.best_overlap} of {len(METRIC_ROWS)} rows (identical in {cmp.best_identical}).",
        "",
    ]


def _markdown(rep: Reproduction, figure9_image: str | None) -> list[str]:
    cpu = sum(r.seconds for r in rep.runs)
    shapes = []
    for col, (height, n_leaves, n_present) in zip(rep.columns, rep.hierarchy_shapes, strict=True):
        p_values, p_height = PAPER_FIGURE5.get(col, (None, None))
        shapes.append(
            [
                col,
                height,
                "-" if p_height is None else p_height,
                n_leaves,
                n_present,
                "-" if p_values is None else p_values,
            ]
        )
    out = [
        "### Setup",
        "",
        f"- Data: {rep.n_records:,} records (paper: {PAPER_RECORDS:,}), "
        f"{rep.n_initial_classes:,} initial equivalence classes (paper: "
        f"{PAPER_INITIAL_CLASSES:,}); quasi-identifiers in this order: "
        f"{', '.join(rep.columns)}.",
        f"- Grid: requested k = {', '.join(str(k) for k in rep.k_values)}; optimizations "
        f"{_names(rep.costs)}; C_small = `{rep.small_class}`; hierarchy leaves = "
        f"`{rep.leaves}`.",
        f"- Time: {rep.seconds:.1f} s wall with {rep.workers} worker process(es), "
        f"{cpu:.1f} s summed over {len(rep.runs)} runs.",
        "",
        "Hierarchies against the paper's Figure 5 (height = number of levels):",
        "",
        *_md_table(
            [
                "attribute",
                "height",
                "paper height",
                "leaves in hierarchy",
                "values in data",
                "paper values",
            ],
            shapes,
            "l",
        ),
        "",
    ]
    for k in FIGURE_K:
        if k in rep.k_values:
            out += _figure_markdown(rep.comparison(k))
    rows = []
    for k in rep.k_values:
        cells = []
        for c in rep.costs:
            ours = rep.run(k, c).effective_k
            stated = PAPER_MINIMUM_K.get((k, c))
            cells.append(f"{ours:,}" + ("" if stated is None else f" (paper {stated:,})"))
        rows.append([f"{k:,}", *cells, _range_statement(k)])
    out += [
        "### Figure 9: minimum k against requested k",
        "",
        "Smallest released class per requested k and optimization; in brackets the values "
        "the paper's text states (the plot's other points are not given in the text); the "
        "last column is the text's statement for that k.",
        "",
        *_md_table(
            ["requested k", *[LABELS[c] for c in rep.costs], "paper's text"],
            rows,
            "r" * (len(rep.costs) + 1) + "l",
        ),
        "",
    ]
    if figure9_image:
        out += [f"![Figure 9: minimum k against requested k]({figure9_image})", ""]
    notes = [
        f"- {t.figure}, row {m}, {LABELS[o]}: printed rank {p}, its printed value ranks {r}."
        for t in PAPER_TABLES.values()
        if t.k in rep.k_values
        for m, o, p, r in t.rank_inconsistencies()
    ]
    if notes:
        out += [
            "### Printed ranks of the paper that contradict its printed values",
            "",
            *notes,
            "",
        ]
    return out


# ---------------------------------------------------------------- SVG
_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2")


def _loglog_svg(
    series: Mapping[str, Sequence[tuple[float, float]]],
    stated: Sequence[tuple[float, float]],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
) -> str:
    """A plain log-log line chart as a standalone SVG document (no scripts, no fonts)."""
    width, height = 760, 480
    left, right, top, bottom = 70, 170, 40, 55
    xs = [x for pts in series.values() for x, _ in pts] + [x for x, _ in stated]
    ys = [y for pts in series.values() for _, y in pts] + [y for _, y in stated] + xs
    lo_x, hi_x = math.floor(math.log10(min(xs))), math.ceil(math.log10(max(xs)))
    lo_y, hi_y = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    hi_x, hi_y = max(hi_x, lo_x + 1), max(hi_y, lo_y + 1)
    pw, ph = width - left - right, height - top - bottom

    def px(x: float) -> float:
        return left + (math.log10(x) - lo_x) / (hi_x - lo_x) * pw

    def py(y: float) -> float:
        return top + ph - (math.log10(y) - lo_y) / (hi_y - lo_y) * ph

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}" '
        'font-family="sans-serif" font-size="12">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{left + pw / 2:.1f}" y="22" text-anchor="middle" font-size="14">'
        f"{escape(title)}</text>",
    ]
    for e in range(lo_x, hi_x + 1):
        x = px(10.0**e)
        parts.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ph}" stroke="#e5e5e5"/>'
        )
        parts.append(f'<text x="{x:.1f}" y="{top + ph + 18}" text-anchor="middle">{10**e:,}</text>')
    for e in range(lo_y, hi_y + 1):
        y = py(10.0**e)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#e5e5e5"/>'
        )
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{10**e:,}</text>')
    parts += [
        f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#57606a"/>',
        f'<text x="{left + pw / 2:.1f}" y="{height - 12}" text-anchor="middle">'
        f"{escape(xlabel)}</text>",
        f'<text x="16" y="{top + ph / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {top + ph / 2:.1f})">{escape(ylabel)}</text>',
    ]
    d0, d1 = 10.0 ** max(lo_x, lo_y), 10.0 ** min(hi_x, hi_y)
    parts.append(
        f'<line x1="{px(d0):.1f}" y1="{py(d0):.1f}" x2="{px(d1):.1f}" y2="{py(d1):.1f}" '
        'stroke="#999999" stroke-dasharray="5,4"/>'
    )
    n = len(series)
    for i, (name, pts) in enumerate(series.items()):
        color = _PALETTE[i % len(_PALETTE)]
        # Earlier lines are drawn wider so that lines lying on top of each other stay visible.
        w = 1.5 + 1.2 * (n - 1 - i)
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
        parts.append(
            f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="{w:.1f}" '
            f'stroke-opacity="0.85"><title>{escape(name)}</title></polyline>'
        )
        ly = top + 14 + 18 * i
        parts.append(
            f'<line x1="{left + pw + 14}" y1="{ly}" x2="{left + pw + 40}" y2="{ly}" '
            f'stroke="{color}" stroke-width="3"/>'
        )
        parts.append(f'<text x="{left + pw + 46}" y="{ly + 4}">{escape(name)}</text>')
    for x, y in stated:
        parts.append(
            f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="6" fill="none" stroke="#000000" '
            'stroke-width="1.5"/>'
        )
    ly = top + 14 + 18 * n
    parts += [
        f'<line x1="{left + pw + 14}" y1="{ly}" x2="{left + pw + 40}" y2="{ly}" '
        'stroke="#999999" stroke-dasharray="5,4"/>',
        f'<text x="{left + pw + 46}" y="{ly + 4}">minimum k = k</text>',
        f'<circle cx="{left + pw + 27}" cy="{ly + 18}" r="6" fill="none" stroke="#000000" '
        'stroke-width="1.5"/>',
        f'<text x="{left + pw + 46}" y="{ly + 22}">paper (text)</text>',
        "</svg>",
    ]
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------- files and command line
RESULTS_START = "<!-- mauger2020:results:start -->"
RESULTS_END = "<!-- mauger2020:results:end -->"


def write_outputs(rep: Reproduction, folder: str | os.PathLike[str]) -> dict[str, Path]:
    """Write ``mauger2020_figure9.svg``, ``mauger2020_runs.csv`` and the results block.

    The Markdown of :meth:`Reproduction.to_markdown` replaces the part of
    ``folder/mauger2020.md`` between ``<!-- mauger2020:results:start -->`` and
    ``<!-- mauger2020:results:end -->`` (the rest of the page is kept); a page without
    the markers gets the block appended, a missing page is created. Every file is written
    atomically.
    """
    from anonkit.io.atomic import atomic_path, atomic_write_text, replace_marked_block

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    svg, csv, page = (
        out / "mauger2020_figure9.svg",
        out / "mauger2020_runs.csv",
        out / "mauger2020.md",
    )
    atomic_write_text(svg, rep.figure9_svg())
    with atomic_path(csv) as tmp:
        rep.to_polars().write_csv(tmp)
    replace_marked_block(
        page,
        RESULTS_START,
        RESULTS_END,
        rep.to_markdown(figure9_image=svg.name),
        title="# Mauger et al. (2020): Figures 6 to 9 reproduced",
    )
    return {"svg": svg, "csv": csv, "markdown": page}


def _int_list(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def _str_list(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run the reproduction, print the Markdown, optionally write files.

    ``python -m anonkit.study.mauger2020 [--workers N] [--output DIR] [--k 2,100,1500]
    [--costs nllm,ncp] [--small-class first|smallest] [--leaves hierarchy|data]``
    """
    p = argparse.ArgumentParser(
        prog="python -m anonkit.study.mauger2020",
        description="Reproduce Figures 6-9 of Mauger, Le Mahec & Dequen (2020) on Adult.",
    )
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("--output", default=None, help="folder for the SVG, CSV and mauger2020.md")
    p.add_argument("--k", type=_int_list, default=list(PAPER_K_VALUES), help="requested k")
    p.add_argument("--costs", type=_str_list, default=list(COST_FUNCTIONS), help="optimizations")
    p.add_argument("--small-class", default="first", choices=SMALL_CLASS_CHOICES)
    p.add_argument("--leaves", default="hierarchy", choices=LEAVES_CHOICES)
    args = p.parse_args(argv)

    def report(done: int, total: int) -> None:
        print(f"[{done}/{total}] runs done", file=sys.stderr, flush=True)

    try:
        rep = reproduce(
            k_values=args.k,
            costs=args.costs,
            small_class=args.small_class,
            leaves=args.leaves,
            workers=args.workers,
            progress=report,
        )
    except AnonkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    if args.output:
        paths = write_outputs(rep, args.output)
        for path in paths.values():
            print(f"wrote {path}", file=sys.stderr)
    print(rep.to_markdown(figure9_image="mauger2020_figure9.svg" if args.output else None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
