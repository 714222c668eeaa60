"""The honest reproduction of Mauger et al. (2020): every claim under many orders of C(T).

:func:`run_study` runs a :class:`~anonkit.study.mauger2020.orders.Design` (the codes
order over the requested k of the curves, random orders at the k of the tables and of
Figure 9's collapse points, the ablations) and returns a :class:`MaugerStudy`, which
gives the page's opening answer (:meth:`MaugerStudy.answer_markdown`), the results
(:meth:`MaugerStudy.to_markdown`) and the plots (:meth:`MaugerStudy.plots`).

The paper's full reference is in :mod:`anonkit.study.mauger2020`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit.core.hierarchy import Hierarchy
from anonkit.metrics.cost_matrix import COST_FUNCTIONS
from anonkit.study.mauger2020.figures import study_plots
from anonkit.study.mauger2020.orders import FULL, VARIANTS, Cell, Design, run_cells
from anonkit.study.mauger2020.paper import LABELS, METRIC_ROWS, PAPER_TABLES
from anonkit.study.mauger2020.render import md_table
from anonkit.study.mauger2020.results import Reproduction, Run
from anonkit.study.mauger2020.spread import (
    CLOSE,
    RELATIVELY_CLOSE,
    Claim,
    ablation_figures,
    ablation_summary,
    cell_spread,
    claims,
    order_tables,
    rank1_shares,
    tie_summary,
    wilson,
)

__all__ = ["PAPER_ERRORS", "MaugerStudy", "run_study", "wilson"]

#: Errors of the paper itself, found while reproducing it (the rank contradictions of its
#: tables are listed from the data, :meth:`~anonkit.study.mauger2020.paper.PaperTable.
#: rank_inconsistencies`).
PAPER_ERRORS: tuple[str, ...] = (
    "The printed cost matrix of Section 3 (the example of Figures 2-4) gives row a, columns "
    "b and c as w(a -> *), but LCA(a, b) = LCA(a, c) = A (Figure 2: a, b and c are "
    "generalized in A), so by the paper's own definition Cost(a, b) = Cost(a, c) = "
    "w(a -> A), as rows b and c of the same matrix correctly give (Cost(b, a) = w(b -> A), "
    "Cost(c, a) = w(c -> A)). The matrix is not symmetric in its structure where the tree is.",
    "The closed forms of LLM, NLLM, WLLM and WNLLM count nl(v) leaves for a value v, which "
    "is 1 for an ungeneralized value, so the original table would not cost 0; the edge "
    "weights the same section gives (nl(n2) - nl(n1)) do make it 0. The printed k = 2 "
    "values (3 % for LLM under llm) fit the weights, not the closed forms; we use the "
    "weights.",
    "The text says the value in (distortion, NLLM) of Figure 7 is 24 %; the table prints 24 "
    "under Distortion and 27 under NLLM.",
    "Figure 9 is described as 'equal or very close' to the requested k up to 1000 and the "
    "tables are computed from single runs; Algorithm 1 'chooses arbitrarily' C_small and "
    "the ties of the merge cost are not mentioned, although they decide most merges on "
    "Adult (see the ties below), so every printed number is one draw of an unstated order.",
    "Figure 5 gives 74 values for age while the records without missing values hold 72 "
    "distinct ages (17-90 spans 74), and 7 for workclass where Adult's documentation lists "
    "8 (Never-worked has no complete record).",
)


@dataclass(frozen=True)
class MaugerStudy:
    """The runs of a design and everything the page shows from them.

    Attributes
    ----------
    design
        What was run.
    runs
        Every run (:class:`~anonkit.study.mauger2020.results.Run`), in the design's order.
    facts
        Wall time, runs computed and read from the cache, workers, and the tables used
        (see :func:`~anonkit.study.mauger2020.orders.run_cells`).
    """

    design: Design
    runs: tuple[Run, ...] = field(repr=False)
    facts: Mapping[str, Any] = field(repr=False)

    # ----------------------------------------------------------------- pieces
    @property
    def n_records(self) -> int:
        return int(self.facts["tables"]["hierarchy"]["n_records"])

    def reproduction(self) -> Reproduction:
        """The codes-order runs over ``design.curve_k`` as a
        :class:`~anonkit.study.mauger2020.results.Reproduction` (tables beside the
        paper's, Figure 9)."""
        table = self.facts["tables"]["hierarchy"]
        by = {(r.k, r.cost): r for r in self.runs if r.variant == "paper" and r.seed < 0}
        ks = tuple(k for k in self.design.curve_k if all((k, c) in by for c in COST_FUNCTIONS))
        return Reproduction(
            k_values=ks,
            costs=COST_FUNCTIONS,
            small_class="first",
            leaves="hierarchy",
            columns=tuple(table["columns"]),
            hierarchy_shapes=tuple(tuple(s) for s in table["shapes"]),
            n_records=int(table["n_records"]),
            n_initial_classes=int(table["n_initial_classes"]),
            runs=tuple(by[(k, c)] for k in ks for c in COST_FUNCTIONS),
            workers=int(self.facts["workers"]),
            seconds=float(self.facts["seconds"]),
        )

    def ordered_k(self) -> tuple[int, ...]:
        return (*self.design.table_k, *self.design.collapse_k)

    def claims(self) -> list[Claim]:
        """Every checked claim of the paper, at every k run under random orders."""
        return claims(self.runs, self.ordered_k(), self.n_records)

    def to_polars(self) -> pl.DataFrame:
        """One row per run (:meth:`Run.to_dict`)."""
        return pl.DataFrame([r.to_dict() for r in self.runs])

    # ----------------------------------------------------------------- answer
    @staticmethod
    def _claim(found: list[Claim], k: int, start: str) -> Claim | None:
        for c in found:
            if c.k == k and c.statement.startswith(start):
                return c
        return None

    def answer_markdown(self) -> str:
        """The page's opening paragraph: the answer, its uncertainty, what would change it."""
        n = self.design.orders
        parts = [f"**Answer ({n} random orders of C(T) per cell).**"]
        spans = []
        for k in self.design.table_k:
            ties = [
                r.tied_share for r in self.runs if r.variant == "paper" and r.seed >= 0 and r.k == k
            ]
            if ties:
                spans.append(f"{100 * min(ties):.0f}-{100 * max(ties):.0f} % at k = {k:,}")
        if spans:
            parts.append(
                "The order of C(T), which the paper does not give, decides much of the work: "
                "the share of merges that are ties of the merge cost, broken by that order, "
                f"is {'; '.join(spans)} (every optimization, NCP included)."
            )
        found = self.claims()
        five = self._claim(found, 1500, "NLLM is at rank 1 for 5")
        avg = self._claim(found, 1500, "NLLM has the best average")
        if five is not None and avg is not None:
            lo, hi = wilson(avg.holds, avg.orders)
            verdict = "survives it" if 2 * avg.holds > avg.orders else "does not survive it"
            parts.append(
                f"The paper's headline at k = 1500 {verdict}: NLLM is at rank 1 "
                f"for exactly 5 of 7 metrics in {five.holds} of {five.orders} orders "
                f"(seen: {five.detail}) and has the best average in {avg.holds} of "
                f"{avg.orders} (95 % interval {100 * lo:.0f}-{100 * hi:.0f} %; best averages "
                f"seen: {avg.detail})."
            )
        k100 = self._claim(found, 100, "under the metric ncp, NLLM")
        if k100 is not None:
            parts.append(
                f"At k = 100 NLLM is at rank 1 under ncp in {k100.holds} of {k100.orders} orders."
            )
        single = self._claim(found, 15000, "every optimization gives a single class")
        llm = self._claim(found, 7500, "LLM's minimum k")
        if single is not None and llm is not None:
            parts.append(
                "Figure 9's collapse: all seven optimizations give "
                f"one class at k = 15,000 in {single.holds} of {single.orders} orders, and "
                f"LLM's minimum k at 7,500 is near the paper's 12,307 in {llm.holds} of "
                f"{llm.orders}."
            )
        gap = self._gap()
        if gap:
            parts.append(gap)
        closest = self._closest_ablation()
        if closest:
            parts.append(closest)
        parts.append(
            f"With {n} orders a share is known to about +-{self._half_width(n):.0f} points "
            "(95 %, worst case); the orders are "
            "uniform permutations, an assumption: the paper's unknown order may be any of "
            "them or none. What would change this answer: the paper's own C(T) order and "
            "tie-break (its code), its hierarchies' groupings (which Figure 5 does not give), "
            "or a deterministic tie-break that the paper would have to state."
        )
        return " ".join(parts)

    @staticmethod
    def _half_width(n: int) -> float:
        lo, hi = wilson(n // 2, n)
        return 100 * (hi - lo) / 2

    def _gap(self) -> str:
        out = []
        for k in (100, 1500):
            tables = order_tables(self.runs, k)
            if tables.shape[0] == 0:
                continue
            paper = np.array(PAPER_TABLES[k].values, dtype=np.float64)[:7]
            med = np.median(tables[:, :7], axis=0)
            above = int((paper > tables[:, :7].max(axis=0) + 0.5).sum())
            out.append(
                f"at k = {k} the median over orders is {float((med - paper).mean()):+.1f} "
                f"points from the paper's on average and the paper's value lies above every "
                f"order's in {above} of 49 cells"
            )
        if not out:
            return ""
        return (
            "Our levels remain below the paper's whatever the order ("
            + "; ".join(out)
            + "), so the order does not explain the gap (see 'Why our levels are lower')."
        )

    def _closest_ablation(self) -> str:
        """The setting left open by the paper whose levels come closest to the paper's, and
        the headline claim at k = 1500 under it."""
        d = self.design
        found = {}
        for v in d.ablations:
            figures = [ablation_figures(self.runs, v, k) for k in d.ablation_k]
            if all(f is not None for f in figures):
                found[v] = [f for f in figures if f is not None]
        if not found:
            return ""
        v = min(found, key=lambda name: float(np.mean([abs(f["gap"]) for f in found[name]])))
        gaps = " / ".join(f"{f['gap']:+.1f}" for f in found[v])
        ks = " / ".join(str(k) for k in d.ablation_k)
        text = (
            f"Of the settings the paper leaves open, '{v}' ({VARIANTS[v].description}) "
            f"comes closest to its levels: ours minus the paper's {gaps} points at "
            f"k = {ks}"
        )
        if 1500 in d.ablation_k:
            f = found[v][d.ablation_k.index(1500)]
            n, best = int(f["orders"]), int(f["nllm_best"])
            lo, hi = wilson(best, n)
            text += (
                f"; under it NLLM has the best average at k = 1500 in {best} of {n} orders "
                f"({100 * lo:.0f}-{100 * hi:.0f} %)"
            )
        return text + "."

    # ----------------------------------------------------------------- results
    def to_markdown(self, *, images: Mapping[str, str] | None = None) -> str:
        """The generated results: design, claims, spreads, ties, ablations, codes order."""
        images = dict(images or {})
        d = self.design
        f = self.facts
        lines = [
            "### Design and time",
            "",
            f"- Random orders: {d.orders} seeds (0-{d.orders - 1}) per optimization at "
            f"requested k = {', '.join(f'{k:,}' for k in self.ordered_k())}; ablations at "
            f"k = {', '.join(str(k) for k in d.ablation_k)} with {d.ablation_orders} "
            f"orders each; the group-by order of the codes at "
            f"{len(d.curve_k)} requested k (the curves).",
            f"- {len(self.runs):,} runs: {f['computed']:,} computed, {f['cached']:,} read "
            f"from the cache; {float(f['seconds']):.0f} s wall with {f['workers']} worker "
            f"process(es). {self._cpu_line()}",
            f"- Thresholds for Figure 9's words: 'very close' <= {CLOSE:.2f} k, "
            f"'relatively close' <= {RELATIVELY_CLOSE:.2f} k, 'strongly above' beyond.",
            "",
        ]
        lines += self._claims_markdown()
        for k in d.table_k:
            lines += self._table_markdown(k, images.get(f"strip{k}"))
        lines += self._ties_markdown()
        lines += self._figure9_markdown()
        lines += self._figures_10_13_markdown(images)
        lines += self._ablations_markdown()
        lines += [
            "### The paper's own errors",
            "",
            *[f"- {e}" for e in PAPER_ERRORS],
            "",
        ]
        rep = self.reproduction()
        if rep.k_values:
            lines += [
                "### The group-by order of the codes, cell by cell",
                "",
                'One run per cell in the order of `GreedyMerge(order="codes")` (the '
                "default): one draw among the orders above, shown for continuity with "
                "earlier versions of this page.",
                "",
            ]
            body = rep.to_markdown(figure9_image=images.get("figure9"))
            lines += [ln.replace("### ", "#### ", 1) if ln.startswith("### ") else ln
                      for ln in body.splitlines()]  # fmt: skip
        return "\n".join(lines)

    def _cpu_line(self) -> str:
        """CPU time summed over the runs, as recorded when each was computed."""
        cpu = np.array([r.cpu_seconds for r in self.runs], dtype=np.float64)
        known = np.isfinite(cpu)
        if not known.any():
            return "No CPU time recorded."
        text = (
            f"CPU time of the runs (each `GreedyMerge.fit`, recorded when it was computed): "
            f"{cpu[known].sum():,.0f} s summed, {cpu[known].sum() / 2:,.0f} s over 2 cores"
        )
        missing = int((~known).sum())
        return text + (f" ({missing} runs without a record)." if missing else ".")

    def _claims_markdown(self) -> list[str]:
        rows = []
        for c in self.claims():
            lo, hi = wilson(c.holds, c.orders)
            rows.append(
                [
                    c.source,
                    f"{c.k:,}",
                    c.statement,
                    f"{c.holds} of {c.orders} ({100 * lo:.0f}-{100 * hi:.0f} %)",
                    "-" if c.codes_order is None else ("yes" if c.codes_order else "no"),
                    c.detail,
                ]
            )
        return [
            "### Every claim of the paper, under every order",
            "",
            "How often each statement holds across the random orders (with a 95 % Wilson "
            "interval of the share), whether it holds in the group-by order of the codes, "
            "and what the orders gave. Ranks are competition ranks of whole percentages, "
            "as in the paper's tables.",
            "",
            *md_table(
                ["source", "k", "statement", "holds in", "codes order", "orders gave"],
                rows,
                "lrllll",
            ),
            "",
        ]

    def _table_markdown(self, k: int, image: str | None) -> list[str]:
        tables = order_tables(self.runs, k)
        if tables.shape[0] == 0 or k not in PAPER_TABLES:
            return []
        paper = PAPER_TABLES[k]
        sp = cell_spread(tables)
        share = rank1_shares(tables)
        rows = []
        for i, m in enumerate(METRIC_ROWS):
            cells = []
            for j, o in enumerate(COST_FUNCTIONS):
                pv = paper.value(m, o)
                flag = ""
                if pv > sp["max"][i, j] + 0.5:
                    flag = " ^"
                elif pv < sp["min"][i, j] - 0.5:
                    flag = " v"
                cells.append(
                    f"{sp['median'][i, j]:.1f} [{sp['q1'][i, j]:.1f}-{sp['q3'][i, j]:.1f}] "
                    f"({sp['min'][i, j]:.0f}-{sp['max'][i, j]:.0f}) / {pv}{flag}"
                )
            rows.append([m, *cells])
        rank_rows = [
            [m, *[f"{100 * share[i, j]:.0f}" for j in range(len(COST_FUNCTIONS))]]
            for i, m in enumerate(METRIC_ROWS)
        ]
        paper_arr = np.array(paper.values, dtype=np.float64)
        above = int((paper_arr[:7] > sp["max"][:7] + 0.5).sum())
        below = int((paper_arr[:7] < sp["min"][:7] - 0.5).sum())
        out = [
            f"### {paper.figure} (k = {k:,}) under {tables.shape[0]} orders",
            "",
            "Each cell: median [interquartile range] (min-max) of our percentage of "
            "alteration over the orders / the paper's printed value; `^` marks a printed "
            "value above every order's, `v` below every order's (by more than the "
            "rounding).",
            "",
            *md_table(["metric \\ optimization", *[LABELS[o] for o in COST_FUNCTIONS]], rows, "l"),
            "",
            f"Of the 49 metric cells, the paper's value lies above every order's in {above} "
            f"and below every order's in {below}; the median over orders minus the paper's "
            f"is {float((sp['median'][:7] - paper_arr[:7]).mean()):+.1f} points on average.",
            "",
            "Share of orders (%) in which each optimization is at rank 1 of the row:",
            "",
            *md_table(
                ["metric \\ optimization", *[LABELS[o] for o in COST_FUNCTIONS]], rank_rows, "l"
            ),
            "",
        ]
        if image:
            out += [f"![Average alteration at k = {k} under every order]({image})", ""]
        return out

    def _ties_markdown(self) -> list[str]:
        out = [
            "### Ties: how often the order decides",
            "",
            "A merge is decided by a tie when two or more candidates share the minimal merge "
            "cost (within a relative 1e-9); the partner is then the one first in C(T). "
            "Per optimization: the share of merges decided by a tie in the codes order, "
            "the median share over the random orders (range), the median number of tied "
            "candidates per tied merge, and the most seen.",
            "",
        ]
        for k in self.ordered_k():
            rows = tie_summary(self.runs, k)
            out += [
                f"k = {k:,}:",
                "",
                *md_table(
                    [
                        "optimization",
                        "codes order",
                        "random orders",
                        "tied candidates (median)",
                        "most",
                    ],
                    rows,
                    "l",
                ),
                "",
            ]
        return out

    def _spread_table(
        self, cell: Callable[[npt.NDArray[np.float64]], str], measure: str
    ) -> list[str]:
        """Per requested k run under random orders (rows) and optimization (columns),
        ``cell`` of the values of ``measure`` over the orders (a field of
        :class:`~anonkit.study.mauger2020.results.Run`, or ``"average"``)."""
        rows = []
        for k in self.ordered_k():
            by = [r for r in self.runs if r.variant == "paper" and r.k == k and r.seed >= 0]
            if not by:
                continue
            cells = []
            for o in COST_FUNCTIONS:
                values = [
                    r.average_alteration if measure == "average" else getattr(r, measure)
                    for r in by
                    if r.cost == o
                ]
                cells.append(cell(np.array(values, dtype=np.float64)))
            rows.append([f"{k:,}", *cells])
        return md_table(["requested k", *[LABELS[o] for o in COST_FUNCTIONS]], rows, "r")

    def _figure9_markdown(self) -> list[str]:
        def cell(eff: npt.NDArray[np.float64]) -> str:
            one = int((eff == self.n_records).sum())
            return f"{np.median(eff):,.0f} ({eff.min():,.0f}-{eff.max():,.0f})" + (
                f", 1 class in {one}" if one else ""
            )

        return [
            "### Figure 9 under every order: minimum k",
            "",
            "Median (min-max) over the orders of the smallest released class, and in how "
            f"many orders the release is a single class of {self.n_records:,} records.",
            "",
            *self._spread_table(cell, "effective_k"),
            "",
        ]

    def _figures_10_13_markdown(self, images: Mapping[str, str]) -> list[str]:
        measures = (
            ("Figure 10", "average", "average percentage of alteration"),
            ("Figure 11", "modified_percentage", "modified values (%)"),
            ("Figure 12", "deleted_percentage", "deleted values among all values (%)"),
            ("Figure 13", "deleted_of_modified_percentage", "deleted among modified (%)"),
        )
        out = [
            "### Figures 10-13 from the runs",
            "",
            "The paper draws these as curves over its 21 requested k and gives no numbers; "
            "its text's statements are checked in the claims table. Below, per requested k "
            "run under random orders, the median (min-max) over the orders; the plots show "
            "the codes order over every requested k.",
            "",
        ]
        for fig, name, label in measures:
            out += [
                f"{fig}: {label}.",
                "",
                *self._spread_table(
                    lambda v: f"{np.median(v):.1f} ({v.min():.1f}-{v.max():.1f})", name
                ),
                "",
            ]
            if fig in images:
                out += [f"![{fig}: {label}, codes order]({images[fig]})", ""]
        return out

    def _ablations_markdown(self) -> list[str]:
        d = self.design
        variants = ["paper", *d.ablations]
        rows = ablation_summary(self.runs, variants, d.ablation_k)
        desc = [[v, VARIANTS[v].description] for v in variants]
        return [
            "### Ablations",
            "",
            *md_table(["variant", "what it changes"], desc, "ll"),
            "",
            "Per variant and requested k, over its random orders (the `paper` rows use all "
            f"{d.orders} of its orders, the others {d.ablation_orders}): "
            "the mean of ours minus the paper's over the 49 metric cells, the "
            "mean absolute difference, NLLM's median average alteration, how often NLLM has "
            "the best average (95 % Wilson interval), and the median number of the 7 metrics "
            "with NLLM at rank 1.",
            "",
            *md_table(
                [
                    "variant",
                    "k",
                    "orders",
                    "ours - paper",
                    "mean abs diff",
                    "NLLM average",
                    "NLLM best average",
                    "NLLM rank-1 rows",
                ],
                rows,
                "lr",
            ),
            "",
        ]

    # ----------------------------------------------------------------- plots
    def plots(self) -> dict[str, str]:
        """SVG documents by name: ``strip<k>`` per table k, ``figure9``, ``Figure 10``-13
        (:func:`~anonkit.study.mauger2020.figures.study_plots`)."""
        return study_plots(self.runs, self.design.table_k, self.reproduction())


def run_study(
    design: Design = FULL,
    *,
    workers: int | None = None,
    cache: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    data: pl.DataFrame | None = None,
    hierarchies: Mapping[str, Hierarchy | str | os.PathLike[str]] | None = None,
) -> MaugerStudy:
    """Run ``design`` (default :data:`~anonkit.study.mauger2020.orders.FULL`) on Adult.

    Parameters
    ----------
    design
        What to run; :data:`~anonkit.study.mauger2020.orders.QUICK` checks the pipeline
        in a few minutes.
    workers
        Processes (default: the cores); 1 runs in this process.
    cache
        Folder of the cell cache: finished runs are read from it and new ones written
        as they finish, so an interrupted study resumes.
    progress
        Called as ``progress(done, total)`` as runs finish (cached ones count at once).
    data, hierarchies
        Another table than the bundled Adult (see
        :func:`~anonkit.study.mauger2020.runs.reproduce`); the page compares it with the
        paper's numbers all the same.
    """
    cells: list[Cell] = design.cells()
    runs, facts = run_cells(
        cells,
        workers=workers,
        cache=cache,
        progress=progress,
        data=data,
        hierarchies=hierarchies,
    )
    return MaugerStudy(design=design, runs=runs, facts=facts)
