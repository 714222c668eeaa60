"""SVG of the reproduction of Mauger et al. (2020): Figure 9, minimum k against requested k.

:func:`figure9_svg` draws our minimum k per optimization beside the values the paper's
text states; :func:`loglog_svg` is the plain log-log line chart under it (a standalone
document: no scripts, no fonts, no plotting library).

The paper's full reference is in :mod:`anonkit.study.mauger2020`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from html import escape

from anonkit.study.mauger2020.paper import LABELS, PAPER_MINIMUM_K

__all__ = ["curves_svg", "figure9_svg", "loglog_svg", "strip_svg"]

_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2")


def _open(width: int, height: int, centre: float, title: str) -> list[str]:
    """The document's opening: the ``<svg>`` element, its title, a white page and the
    title written above the plot (centred at ``centre``)."""
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}" '
        'font-family="sans-serif" font-size="12">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{centre:.1f}" y="22" text-anchor="middle" font-size="14">{escape(title)}</text>',
    ]


def _frame(
    box: tuple[int, int, int, int], height: int, xlabel: str | None, ylabel: str
) -> list[str]:
    """The plot's border (``box`` = left, top, width, height) and its axis labels."""
    left, top, pw, ph = box
    parts = [
        f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#57606a"/>'
    ]
    if xlabel is not None:
        parts.append(
            f'<text x="{left + pw / 2:.1f}" y="{height - 12}" text-anchor="middle">'
            f"{escape(xlabel)}</text>"
        )
    parts.append(
        f'<text x="16" y="{top + ph / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {top + ph / 2:.1f})">{escape(ylabel)}</text>'
    )
    return parts


def _log_x_grid(exponents: range, px: Callable[[float], float], top: int, ph: int) -> list[str]:
    """A vertical grid line and a tick label at every power of ten of ``exponents``."""
    parts = []
    for e in exponents:
        x = px(10.0**e)
        parts.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ph}" stroke="#e5e5e5"/>'
        )
        parts.append(f'<text x="{x:.1f}" y="{top + ph + 18}" text-anchor="middle">{10**e:,}</text>')
    return parts


def _lines(
    series: Mapping[str, Sequence[tuple[float, float]]],
    at: tuple[Callable[[float], float], Callable[[float], float]],
    box: tuple[int, int, int, int],
    widths: Sequence[float],
) -> list[str]:
    """One polyline per series (stroke ``widths[i]``) and its entry in the legend on
    the right of the plot."""
    px, py = at
    left, top, pw, _ = box
    parts = []
    for i, (name, pts) in enumerate(series.items()):
        color = _PALETTE[i % len(_PALETTE)]
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
        parts.append(
            f'<polyline points="{path}" fill="none" stroke="{color}" '
            f'stroke-width="{widths[i]:g}" '
            f'stroke-opacity="0.85"><title>{escape(name)}</title></polyline>'
        )
        ly = top + 14 + 18 * i
        parts.append(
            f'<line x1="{left + pw + 14}" y1="{ly}" x2="{left + pw + 40}" y2="{ly}" '
            f'stroke="{color}" stroke-width="3"/>'
        )
        parts.append(f'<text x="{left + pw + 46}" y="{ly + 4}">{escape(name)}</text>')
    return parts


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
    box = (left, top, pw, ph)

    def px(x: float) -> float:
        return left + (math.log10(x) - lo_x) / (hi_x - lo_x) * pw

    def py(y: float) -> float:
        return top + ph - (math.log10(y) - lo_y) / (hi_y - lo_y) * ph

    parts = _open(width, height, left + pw / 2, title)
    parts += _log_x_grid(range(lo_x, hi_x + 1), px, top, ph)
    for e in range(lo_y, hi_y + 1):
        y = py(10.0**e)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#e5e5e5"/>'
        )
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{10**e:,}</text>')
    parts += _frame(box, height, xlabel, ylabel)
    d0, d1 = 10.0 ** max(lo_x, lo_y), 10.0 ** min(hi_x, hi_y)
    parts.append(
        f'<line x1="{px(d0):.1f}" y1="{py(d0):.1f}" x2="{px(d1):.1f}" y2="{py(d1):.1f}" '
        'stroke="#999999" stroke-dasharray="5,4"/>'
    )
    n = len(series)
    # Earlier lines are drawn wider so that lines lying on top of each other stay visible.
    parts += _lines(series, (px, py), box, [1.5 + 1.2 * (n - 1 - i) for i in range(n)])
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


def strip_svg(
    groups: Mapping[str, Sequence[float]],
    marks: Mapping[str, Mapping[str, float]],
    *,
    title: str,
    ylabel: str,
) -> str:
    """One column of dots per group (every random order), with marked reference values.

    ``marks`` maps a mark's name (``"paper"``, ``"codes order"``) to its value per group;
    the first mark is drawn as a black bar, the second as a hollow red diamond.
    """
    width, height = 760, 440
    left, right, top, bottom = 70, 150, 40, 50
    pw, ph = width - left - right, height - top - bottom
    values = [v for vs in groups.values() for v in vs] + [
        v for m in marks.values() for v in m.values()
    ]
    lo = math.floor(min(values) / 5) * 5 if values else 0.0
    hi = math.ceil(max(values) / 5) * 5 if values else 1.0
    hi = max(hi, lo + 5)
    names = list(groups)
    step = pw / max(len(names), 1)

    def py(y: float) -> float:
        return top + ph - (y - lo) / (hi - lo) * ph

    parts = _open(width, height, left + pw / 2, title)
    tick = 5 if hi - lo <= 40 else 10
    y = lo
    while y <= hi + 1e-9:
        parts.append(
            f'<line x1="{left}" y1="{py(y):.1f}" x2="{left + pw}" y2="{py(y):.1f}" '
            'stroke="#e5e5e5"/>'
        )
        parts.append(f'<text x="{left - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y:g}</text>')
        y += tick
    parts += _frame((left, top, pw, ph), height, None, ylabel)
    mark_names = list(marks)
    for i, name in enumerate(names):
        cx = left + step * (i + 0.5)
        parts.append(
            f'<text x="{cx:.1f}" y="{top + ph + 18}" text-anchor="middle">{escape(name)}</text>'
        )
        vs = list(groups[name])
        for j, v in enumerate(vs):
            jitter = ((j * 7919) % 97 / 96 - 0.5) * step * 0.4
            parts.append(
                f'<circle cx="{cx + jitter:.1f}" cy="{py(v):.1f}" r="3" fill="#1f77b4" '
                'fill-opacity="0.55"/>'
            )
        for mi, m in enumerate(mark_names):
            if name not in marks[m]:
                continue
            my = py(marks[m][name])
            if mi == 0:
                parts.append(
                    f'<line x1="{cx - step * 0.35:.1f}" y1="{my:.1f}" x2="{cx + step * 0.35:.1f}" '
                    f'y2="{my:.1f}" stroke="#000000" stroke-width="2.5"/>'
                )
            else:
                parts.append(
                    f'<path d="M{cx:.1f},{my - 6:.1f} L{cx + 6:.1f},{my:.1f} L{cx:.1f},'
                    f'{my + 6:.1f} L{cx - 6:.1f},{my:.1f} Z" fill="none" stroke="#d62728" '
                    'stroke-width="1.8"/>'
                )
    lx = left + pw + 14
    parts += [
        f'<circle cx="{lx + 13}" cy="{top + 14}" r="3" fill="#1f77b4"/>',
        f'<text x="{lx + 32}" y="{top + 18}">random orders</text>',
    ]
    for mi, m in enumerate(mark_names[:2]):
        ly = top + 34 + 20 * mi
        if mi == 0:
            parts.append(
                f'<line x1="{lx}" y1="{ly}" x2="{lx + 26}" y2="{ly}" stroke="#000000" '
                'stroke-width="2.5"/>'
            )
        else:
            parts.append(
                f'<path d="M{lx + 13},{ly - 6} L{lx + 19},{ly} L{lx + 13},{ly + 6} '
                f'L{lx + 7},{ly} Z" fill="none" stroke="#d62728" stroke-width="1.8"/>'
            )
        parts.append(f'<text x="{lx + 32}" y="{ly + 4}">{escape(m)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def curves_svg(
    series: Mapping[str, Sequence[tuple[float, float]]],
    *,
    title: str,
    ylabel: str,
    xlabel: str = "requested k",
) -> str:
    """Lines against a log x axis and a linear y axis from 0 to 100 (percentages)."""
    width, height = 760, 440
    left, right, top, bottom = 70, 150, 40, 55
    pw, ph = width - left - right, height - top - bottom
    xs = [x for pts in series.values() for x, _ in pts] or [1.0, 10.0]
    lo_x, hi_x = math.floor(math.log10(min(xs))), math.ceil(math.log10(max(xs)))
    hi_x = max(hi_x, lo_x + 1)

    def px(x: float) -> float:
        return left + (math.log10(x) - lo_x) / (hi_x - lo_x) * pw

    def py(y: float) -> float:
        return top + ph - y / 100.0 * ph

    box = (left, top, pw, ph)
    parts = _open(width, height, left + pw / 2, title)
    parts += _log_x_grid(range(lo_x, hi_x + 1), px, top, ph)
    for y in range(0, 101, 20):
        parts.append(
            f'<line x1="{left}" y1="{py(y):.1f}" x2="{left + pw}" y2="{py(y):.1f}" '
            'stroke="#e5e5e5"/>'
        )
        parts.append(f'<text x="{left - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y}</text>')
    parts += _frame(box, height, xlabel, ylabel)
    parts += _lines(series, (px, py), box, [2] * len(series))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
