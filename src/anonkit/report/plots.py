"""Bar charts as inline SVG for the HTML report, with or without matplotlib.

matplotlib is an optional extra (``pip install anonkit[report]``). When it can be imported
:func:`bar_chart_svg` draws with it (through the object-oriented ``Figure`` API, which
leaves the user's pyplot backend alone) and returns the SVG element; otherwise, or with
``engine="svg"``, it writes a plain SVG bar chart itself. Either way the result is one
``<svg>`` element to place inline in an HTML page: no external fonts, scripts, styles or
links, and every text escaped.

Examples
--------
>>> svg = bar_chart_svg(["1", "2-4", "5+"], [3, 0, 12], title="Classes by size",
...                     engine="svg")
>>> svg.startswith("<svg") and svg.endswith("</svg>") and "5+" in svg
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from typing import Literal

__all__ = ["bar_chart_svg", "matplotlib_available"]

Engine = Literal["auto", "matplotlib", "svg"]

_COLOR = "#2f81f7"
_TEXT = "#1f2328"
_MUTED = "#57606a"


def matplotlib_available() -> bool:
    """Whether matplotlib can be imported (imports it when it can)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def use_matplotlib(engine: Engine) -> bool:
    """Whether a chart with this ``engine`` is drawn by matplotlib (``"auto"``: when it
    is importable) rather than as plain SVG; ``ValueError`` for an unknown engine."""
    if engine not in ("auto", "matplotlib", "svg"):
        raise ValueError(f"unknown engine {engine!r}; use 'auto', 'matplotlib' or 'svg'")
    return engine == "matplotlib" or (engine == "auto" and matplotlib_available())


def bar_chart_svg(
    labels: Sequence[str],
    values: Sequence[float],
    *,
    title: str,
    xlabel: str = "",
    value_format: str = "{:,.0f}",
    maximum: float | None = None,
    engine: Engine = "auto",
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
    engine
        ``"auto"`` (matplotlib when importable, else plain SVG), ``"matplotlib"`` or
        ``"svg"``.

    Raises
    ------
    ValueError
        If ``labels`` and ``values`` differ in length or ``engine`` is unknown.
    ImportError
        If ``engine="matplotlib"`` and matplotlib is not installed.
    """
    names = [str(x) for x in labels]
    numbers = [float(v) for v in values]
    if len(names) != len(numbers):
        raise ValueError("labels and values must have the same length")
    if use_matplotlib(engine):
        return _matplotlib_svg(names, numbers, title, xlabel, value_format, maximum)
    return _plain_svg(names, numbers, title, xlabel, value_format, maximum)


# ------------------------------------------------------------------------ plain SVG
def _plain_svg(
    labels: list[str],
    values: list[float],
    title: str,
    xlabel: str,
    fmt: str,
    maximum: float | None,
) -> str:
    bar_h, gap, top, bottom = 18, 6, 34, 30 if xlabel else 12
    label_w = min(max((len(s) for s in labels), default=1) * 7 + 12, 220)
    plot_w, value_w = 360, 70
    width = label_w + plot_w + value_w
    height = top + len(labels) * (bar_h + gap) + bottom
    biggest = max([*values, maximum or 0.0], default=0.0) or 1.0
    parts = [
        f'<svg viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="{escape(title)}" class="plot" '
        'style="max-width:100%;height:auto;font-family:system-ui,sans-serif">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="18" font-size="14" font-weight="600" fill="{_TEXT}">'
        f"{escape(title)}</text>",
    ]
    for i, (name, value) in enumerate(zip(labels, values, strict=True)):
        y = top + i * (bar_h + gap)
        w = max(value, 0.0) / biggest * plot_w
        mid = y + bar_h / 2 + 4
        parts.append(
            f'<text x="{label_w - 6}" y="{mid:.1f}" font-size="12" text-anchor="end" '
            f'fill="{_TEXT}">{escape(name)}</text>'
            f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" rx="2" '
            f'fill="{_COLOR}"><title>{escape(name)}: {escape(fmt.format(value))}</title>'
            "</rect>"
            f'<text x="{label_w + w + 4:.1f}" y="{mid:.1f}" font-size="11" '
            f'fill="{_MUTED}">{escape(fmt.format(value))}</text>'
        )
    axis_y = top + len(labels) * (bar_h + gap) - gap / 2
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


# ----------------------------------------------------------------------- matplotlib
_DROP = (
    re.compile(r"<\?xml.*?\?>", re.S),
    re.compile(r"<!DOCTYPE.*?>", re.S),
    re.compile(r"<metadata>.*?</metadata>", re.S),
    re.compile(r"<style[^>]*>.*?</style>", re.S),  # '*' rules would style the whole page
    re.compile(r'\s+xmlns(?::\w+)?="[^"]*"'),
)


def _mpl_text(text: str) -> str:
    """Text matplotlib prints literally (a '$' would start mathtext)."""
    return text.replace("$", r"\$")


def _matplotlib_svg(
    labels: list[str],
    values: list[float],
    title: str,
    xlabel: str,
    fmt: str,
    maximum: float | None,
) -> str:
    import io
    import zlib

    import matplotlib
    from matplotlib.figure import Figure

    # ids (clip paths, markers) hash with this salt: distinct per chart, stable per run
    salt = f"anonkit-{zlib.crc32(repr((title, labels)).encode()):08x}"
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt, "font.size": 9}):
        fig = Figure(figsize=(6.4, 0.45 + 0.3 * max(len(labels), 1) + 0.5), dpi=100)
        ax = fig.add_subplot()
        positions = list(range(len(labels)))
        bars = ax.barh(positions, values, color=_COLOR)
        ax.set_yticks(positions, [_mpl_text(s) for s in labels])
        ax.invert_yaxis()
        ax.set_title(_mpl_text(title), loc="left", fontsize=11, fontweight="bold")
        if xlabel:
            ax.set_xlabel(_mpl_text(xlabel))
        ax.bar_label(
            bars,
            labels=[_mpl_text(fmt.format(v)) for v in values],
            padding=3,
            fontsize=8,
            color=_MUTED,
        )
        if maximum:
            ax.set_xlim(0, max([maximum, *values]) * 1.15)
        else:
            ax.margins(x=0.15)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        fig.tight_layout()
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    for pattern in _DROP:
        text = pattern.sub("", text)
    text = re.sub(r'(<g)\s+id="[^"]*"', r"\1", text)  # unreferenced, repeated per chart
    start = text.find("<svg")
    text = text[start:].strip()
    text = re.sub(r'\s(width|height)="[^"]*pt"', "", text, count=2)
    return text.replace(
        "<svg",
        f'<svg role="img" aria-label="{escape(title)}" class="plot" '
        'style="max-width:100%;height:auto"',
        1,
    )
