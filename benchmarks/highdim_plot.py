"""The convergence plot of ``highdim.py``: best loss against time, median over seeds.

Drawn with anonkit's own SVG charts (``anonkit.study.plots``), so no plotting library is
needed. Run through ``highdim.py --plot PATH``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np


def plot(
    curves: dict[tuple[str, float, int, str], list[Any]],
    budget: float,
    path: str,
    aggregate: str,
    arx_figures: dict[tuple[str, float], tuple[float, float, float]],
) -> None:
    """Best loss against time, median over seeds, one panel per (table, supp, k), drawn
    with anonkit's own SVG charts (``anonkit.study.plots``; no plotting library)."""
    from anonkit.study.plots import Reference, Series, line_chart_svg

    panels = sorted({key[:3] for key in curves})
    grid = np.geomspace(0.05, budget, 40)
    charts = []
    for panel in panels:
        series = []
        for (table, supp, k, algorithm), runs in sorted(curves.items()):
            if (table, supp, k) != panel:
                continue
            ys = []
            for conv in runs:
                y = np.full(grid.size, np.nan)
                for t, cost in conv:
                    y[grid >= t] = cost
                ys.append(y)
            med = [
                float(np.median(col[~np.isnan(col)]))
                if (~np.isnan(col)).sum() * 2 > len(col)
                else math.nan
                for col in np.array(ys).T
            ]
            series.append(Series(algorithm, tuple(grid.tolist()), tuple(med)))
        arx = arx_figures.get((panel[0], panel[1])) if panel[2] == 5 else None
        refs = []
        if arx:
            refs = [Reference(f"ARX 3.9.2, {t} s", v) for t, v in ((10, arx[1]), (100, arx[2]))]
        charts.append(
            line_chart_svg(
                series,
                title=f"{panel[0]}, {panel[1]:.0%}, k={panel[2]}",
                xlabel="seconds",
                ylabel=f"best loss ({aggregate})",
                log_x=True,
                references=refs,
            )
        )
    widths = [float(c.split('width="', 1)[1].split('"', 1)[0]) for c in charts]
    heights = [float(c.split('height="', 1)[1].split('"', 1)[0]) for c in charts]
    parts = [
        '<?xml version="1.0" encoding="utf-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{sum(widths):.0f}" '
        f'height="{max(heights):.0f}" viewBox="0 0 {sum(widths):.0f} {max(heights):.0f}">',
    ]
    offset = 0.0
    for chart, w in zip(charts, widths, strict=True):
        parts.append(chart.replace("<svg ", f'<svg x="{offset:.0f}" y="0" ', 1))
        offset += w
    parts.append("</svg>")
    Path(path).write_text("\n".join(parts) + "\n", encoding="utf-8")
