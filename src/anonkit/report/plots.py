"""Bar charts as inline SVG for the HTML reports, written by hand (no plotting library).

:func:`bar_chart_svg` returns one ``<svg>`` element to place inline in an HTML page: no
external fonts, scripts, styles or links, and every text escaped. :func:`svg_open` is the
opening every chart of the reports shares (:mod:`anonkit.study.plots` draws its line and
scatter charts with it).

There is one chart path on purpose. The reports that carry charts are written by
``anonkit anonymize --html`` and ``anonkit evaluate --html`` on a plain install, so the
charts must not need an optional extra; the same charts drawn a second time by matplotlib
(as before) doubled the code and the tests, cost seconds per page and made the bytes of a
report depend on the installed matplotlib. ``renderer`` arguments are still accepted
for compatibility (:func:`check_renderer`); ``engine`` / ``plots`` are their deprecated
former names (:func:`renamed_renderer`).

Examples
--------
>>> svg = bar_chart_svg(["1", "2-4", "5+"], [3, 0, 12], title="Classes by size")
>>> svg.startswith("<svg") and svg.endswith("</svg>") and "5+" in svg
True
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from html import escape
from typing import Literal

from anonkit.exceptions import ParameterError

__all__ = [
    "Engine",
    "Renderer",
    "bar_chart_svg",
    "check_engine",
    "check_renderer",
    "renamed_renderer",
    "svg_open",
]

#: Accepted values of the former renderer switch; both draw the same plain SVG.
Renderer = Literal["auto", "svg"]
#: Deprecated name of :data:`Renderer`.
Engine = Renderer

_COLOR = "#2f81f7"
_TEXT = "#1f2328"
_MUTED = "#57606a"


def check_renderer(renderer: str) -> None:
    """Accept ``"auto"`` and ``"svg"`` (the same plain SVG); anything else is an error.

    Raises
    ------
    ValueError
        If ``renderer`` is another value, e.g. the removed ``"matplotlib"``.
    """
    if renderer not in ("auto", "svg"):
        raise ValueError(
            f"The plot renderer must be 'auto' or 'svg' (every chart is plain SVG). "
            f"Got {renderer!r} instead."
        )


def check_engine(engine: str) -> None:
    """Deprecated name of :func:`check_renderer`."""
    warnings.warn(
        "check_engine is deprecated; use check_renderer.", DeprecationWarning, stacklevel=2
    )
    check_renderer(engine)


def renamed_renderer(renderer: str, old: str | None, *, old_name: str, owner: str) -> str:
    """The renderer chosen by ``renderer=`` or by its deprecated name ``old_name=``.

    ``old`` (``None`` when not passed) wins over the default ``renderer`` with a
    :class:`DeprecationWarning` attributed to the caller of ``owner``; the result is
    checked with :func:`check_renderer`.

    Raises
    ------
    ParameterError
        If both are passed (``old`` and a ``renderer`` other than ``"auto"``).
    ValueError
        If the chosen value is not ``"auto"`` or ``"svg"``.

    Examples
    --------
    >>> renamed_renderer("svg", None, old_name="engine", owner="metric_vs_k_svg")
    'svg'
    """
    if old is not None:
        if renderer != "auto":
            raise ParameterError(
                old_name,
                owner,
                "left out when 'renderer' is given (it is the deprecated name of 'renderer')",
                old,
            )
        warnings.warn(
            f"The '{old_name}' parameter of {owner} is deprecated; use renderer={old!r}.",
            DeprecationWarning,
            stacklevel=3,
        )
        renderer = old
    check_renderer(renderer)
    return renderer


def svg_open(width: int, height: float, title: str) -> list[str]:
    """The opening of an inline chart: the ``<svg>`` tag, its accessible name and the
    visible title (close it with ``"</svg>"``)."""
    return [
        f'<svg viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="{escape(title)}" class="plot" '
        'style="max-width:100%;height:auto;font-family:system-ui,sans-serif">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="18" font-size="14" font-weight="600" fill="{_TEXT}">'
        f"{escape(title)}</text>",
    ]


def bar_chart_svg(
    labels: Sequence[str],
    values: Sequence[float],
    *,
    title: str,
    xlabel: str = "",
    value_format: str = "{:,.0f}",
    maximum: float | None = None,
) -> str:
    """A horizontal bar chart, one bar per label (top to bottom), as an ``<svg>`` element.

    Parameters
    ----------
    labels, values
        Bar names and lengths (non-negative).
    title
        Chart title (also the SVG's accessible name).
    xlabel
        What the bar lengths count.
    value_format
        Format of the value written at the end of each bar.
    maximum
        The value a full-width bar stands for (default: the largest value), e.g. 1 for
        a share.

    Raises
    ------
    ValueError
        If ``labels`` and ``values`` differ in length.
    """
    names = [str(x) for x in labels]
    numbers = [float(v) for v in values]
    if len(names) != len(numbers):
        raise ValueError(
            f"bar_chart_svg needs one value per label: got {len(names)} labels and "
            f"{len(numbers)} values."
        )
    bar_h, gap, top, bottom = 18, 6, 34, 30 if xlabel else 12
    label_w = min(max((len(s) for s in names), default=1) * 7 + 12, 220)
    plot_w, value_w = 360, 70
    width = label_w + plot_w + value_w
    height = top + len(names) * (bar_h + gap) + bottom
    biggest = max([*numbers, maximum or 0.0], default=0.0) or 1.0
    parts = svg_open(width, height, title)
    for i, (name, value) in enumerate(zip(names, numbers, strict=True)):
        y = top + i * (bar_h + gap)
        w = max(value, 0.0) / biggest * plot_w
        mid = y + bar_h / 2 + 4
        shown = escape(value_format.format(value))
        parts.append(
            f'<text x="{label_w - 6}" y="{mid:.1f}" font-size="12" text-anchor="end" '
            f'fill="{_TEXT}">{escape(name)}</text>'
            f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" rx="2" '
            f'fill="{_COLOR}"><title>{escape(name)}: {shown}</title></rect>'
            f'<text x="{label_w + w + 4:.1f}" y="{mid:.1f}" font-size="11" '
            f'fill="{_MUTED}">{shown}</text>'
        )
    axis_y = top + len(names) * (bar_h + gap) - gap / 2
    parts.append(
        f'<line x1="{label_w}" y1="{top - 4}" x2="{label_w}" y2="{axis_y:.1f}" '
        f'stroke="{_MUTED}" stroke-width="1"/>'
    )
    if xlabel:
        parts.append(
            f'<text x="{label_w + plot_w / 2:.1f}" y="{height - 8}" font-size="12" '
            f'text-anchor="middle" fill="{_MUTED}">{escape(xlabel)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
