"""Markdown of the reproduction of Mauger et al. (2020): our tables beside the paper's.

The sections of :meth:`~anonkit.study.mauger2020.results.Reproduction.to_markdown`, each
a list of lines: the setup against the paper's Figure 5 (:func:`setup_markdown`), one
side-by-side table per Figure 6-8 (:func:`figure_markdown`), Figure 9 as a table
(:func:`figure9_markdown`) and the printed ranks of the paper that contradict its own
values (:func:`rank_notes_markdown`).

The paper's full reference is in :mod:`anonkit.study.mauger2020`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from anonkit.study.markdown import md_table
from anonkit.study.mauger2020.comparison import FigureComparison
from anonkit.study.mauger2020.paper import (
    LABELS,
    METRIC_ROWS,
    PAPER_FIGURE5,
    PAPER_INITIAL_CLASSES,
    PAPER_MINIMUM_K,
    PAPER_RECORDS,
    PAPER_TABLES,
    range_statement,
)

__all__ = [
    "figure9_markdown",
    "figure_markdown",
    "md_table",
    "rank_notes_markdown",
    "setup_markdown",
]


def _names(opts: Sequence[str]) -> str:
    return ", ".join(LABELS[o] for o in opts) or "-"


def figure_markdown(cmp: FigureComparison) -> list[str]:
    """One of Figures 6-8: ours beside the paper's, then the differences and agreement."""
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
        *md_table(head, side, "l"),
        "",
        "Ours minus the paper's, in percentage points; Spearman's rho between the two rows; "
        "the rank-1 optimizations (the paper's recomputed from its printed values).",
        "",
        *md_table(
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


def setup_markdown(
    *,
    n_records: int,
    n_initial_classes: int,
    columns: Sequence[str],
    hierarchy_shapes: Sequence[tuple[int, int, int]],
    k_values: Sequence[int],
    costs: Sequence[str],
    small_class: str,
    leaves: str,
    workers: int,
    seconds: float,
    run_seconds: Sequence[float],
) -> list[str]:
    """The data, the grid, the time, and the hierarchies against the paper's Figure 5.

    ``hierarchy_shapes`` holds (height, leaves of the hierarchy, values in the data) per
    column; ``seconds`` is the grid's wall time, ``run_seconds`` each run's own time.
    """
    cpu = sum(run_seconds)
    shapes = []
    for col, (height, n_leaves, n_present) in zip(columns, hierarchy_shapes, strict=True):
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
    return [
        "### Setup",
        "",
        f"- Data: {n_records:,} records (paper: {PAPER_RECORDS:,}), "
        f"{n_initial_classes:,} initial equivalence classes (paper: "
        f"{PAPER_INITIAL_CLASSES:,}); quasi-identifiers in this order: "
        f"{', '.join(columns)}.",
        f"- Grid: requested k = {', '.join(str(k) for k in k_values)}; optimizations "
        f"{_names(costs)}; C_small = `{small_class}`; hierarchy leaves = "
        f"`{leaves}`.",
        f"- Time: {seconds:.1f} s wall with {workers} worker process(es), "
        f"{cpu:.1f} s summed over {len(run_seconds)} runs.",
        "",
        "Hierarchies against the paper's Figure 5 (height = number of levels):",
        "",
        *md_table(
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


def figure9_markdown(
    minimum_k: Mapping[tuple[int, str], int],
    k_values: Sequence[int],
    costs: Sequence[str],
    *,
    image: str | None = None,
) -> list[str]:
    """Figure 9 as a table: our minimum k per (requested k, optimization), the paper's text.

    ``minimum_k`` maps (requested k, optimization) to the smallest released class;
    ``image`` is the path of the Figure 9 SVG to link, if any.
    """
    rows = []
    for k in k_values:
        cells = []
        for c in costs:
            ours = minimum_k[(k, c)]
            stated = PAPER_MINIMUM_K.get((k, c))
            cells.append(f"{ours:,}" + ("" if stated is None else f" (paper {stated:,})"))
        rows.append([f"{k:,}", *cells, range_statement(k)])
    out = [
        "### Figure 9: minimum k against requested k",
        "",
        "Smallest released class per requested k and optimization; in brackets the values "
        "the paper's text states (the plot's other points are not given in the text); the "
        "last column is the text's statement for that k.",
        "",
        *md_table(
            ["requested k", *[LABELS[c] for c in costs], "paper's text"],
            rows,
            "r" * (len(costs) + 1) + "l",
        ),
        "",
    ]
    if image:
        out += [f"![Figure 9: minimum k against requested k]({image})", ""]
    return out


def rank_notes_markdown(k_values: Sequence[int]) -> list[str]:
    """The paper's printed ranks that contradict its printed values, for the tables run."""
    notes = [
        f"- {t.figure}, row {m}, {LABELS[o]}: printed rank {p}, its printed value ranks {r}."
        for t in PAPER_TABLES.values()
        if t.k in k_values
        for m, o, p, r in t.rank_inconsistencies()
    ]
    if not notes:
        return []
    return [
        "### Printed ranks of the paper that contradict its printed values",
        "",
        *notes,
        "",
    ]
