"""SVG of the reproduction of Mauger et al. (2020): Figure 9, minimum k against requested k.

:func:`figure9_svg` draws our minimum k per optimization beside the values the paper's
text states; :func:`loglog_svg` is the plain log-log line chart under it (a standalone
document: no scripts, no fonts, no plotting library).

The paper's full reference is in :mod:`anonkit.study.mauger2020`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

from anonkit.study.mauger2020.paper import LABELS, PAPER_MINIMUM_K

__all__ = ["figure9_svg", "loglog_svg"]

_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2")


def loglog_svg(
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


def figure9_svg(
    minimum_k: Mapping[tuple[int, str], int], k_values: Sequence[int], costs: Sequence[str]
) -> str:
    """Figure 9 as a standalone SVG: minimum k against requested k, log-log axes.

    One line per optimization (``minimum_k`` maps (requested k, optimization) to the
    smallest released class), the diagonal ``minimum k = requested k``, and the values
    the paper's text states as hollow black circles.
    """
    series = {LABELS[c]: [(float(k), float(minimum_k[(k, c)])) for k in k_values] for c in costs}
    stated = [
        (float(k), float(v))
        for (k, o), v in sorted(PAPER_MINIMUM_K.items())
        if k in k_values and o in costs
    ]
    return loglog_svg(
        series,
        stated,
        title="Minimum k against requested k (Mauger et al. 2020, Figure 9)",
        xlabel="requested k",
        ylabel="minimum k (smallest class)",
    )
