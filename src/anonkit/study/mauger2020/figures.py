"""The plots of the multi-order study of Mauger et al. (2020): the average alteration of
every order per table k (strip charts) and, from the codes order, Figure 9 and the curves
of Figures 10 to 13.

The paper's full reference is in :mod:`anonkit.study.mauger2020`.
"""

from __future__ import annotations

from collections.abc import Sequence

from anonkit.metrics.cost_matrix import COST_FUNCTIONS
from anonkit.study.mauger2020.paper import LABELS, METRIC_ROWS, PAPER_TABLES
from anonkit.study.mauger2020.plots import curves_svg, strip_svg
from anonkit.study.mauger2020.results import Reproduction, Run
from anonkit.study.mauger2020.spread import order_tables

__all__ = ["study_plots"]


def study_plots(runs: Sequence[Run], table_k: Sequence[int], rep: Reproduction) -> dict[str, str]:
    """SVG documents by name: ``strip<k>`` per k of ``table_k`` (the orders' average
    alteration beside the paper's and the codes order's), ``figure9`` and ``Figure 10`` to
    ``Figure 13`` (from ``rep``, the codes order)."""
    out: dict[str, str] = {}
    for k in table_k:
        tables = order_tables(runs, k)
        if tables.shape[0] == 0:
            continue
        row = METRIC_ROWS.index("average")
        groups = {LABELS[o]: tables[:, row, j].tolist() for j, o in enumerate(COST_FUNCTIONS)}
        marks: dict[str, dict[str, float]] = {
            "paper": {LABELS[o]: float(PAPER_TABLES[k].value("average", o)) for o in COST_FUNCTIONS}
        }
        if k in rep.k_values:
            marks["codes order"] = {
                LABELS[o]: rep.run(k, o).average_alteration for o in COST_FUNCTIONS
            }
        out[f"strip{k}"] = strip_svg(
            groups,
            marks,
            title=f"Average alteration at requested k = {k:,}: {tables.shape[0]} orders",
            ylabel="average percentage of alteration",
        )
    if rep.k_values:
        out["figure9"] = rep.figure9_svg()
        for fig, name, label in (
            ("Figure 10", "average", "average alteration (%)"),
            ("Figure 11", "modified_percentage", "modified values (%)"),
            ("Figure 12", "deleted_percentage", "deleted values (%)"),
            ("Figure 13", "deleted_of_modified_percentage", "deleted among modified (%)"),
        ):
            series = {
                LABELS[o]: [
                    (
                        float(k),
                        rep.run(k, o).average_alteration
                        if name == "average"
                        else float(getattr(rep.run(k, o), name)),
                    )
                    for k in rep.k_values
                ]
                for o in COST_FUNCTIONS
            }
            out[fig] = curves_svg(series, title=f"{fig} (codes order): {label}", ylabel=label)
    return out
