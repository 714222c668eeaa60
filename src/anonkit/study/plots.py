"""Plots of a study as inline SVG: accuracy vs k, each metric vs k, metric vs accuracy.

Like :mod:`anonkit.report.plots` (which says why there is one chart path, no plotting
library), a chart is one hand-written ``<svg>`` element for an HTML page: no external
fonts, scripts, styles or links, and every text escaped. The two chart kinds,
:func:`line_chart_svg` and :func:`scatter_svg`, share the axes code (linear or
logarithmic x axis, "nice" ticks, legend); the study-level functions
(:func:`accuracy_vs_k_svgs`, :func:`metric_vs_k_svg`, :func:`metric_vs_accuracy_svg`)
turn the tidy results into series, averaging over folds.

Examples
--------
>>> svg = line_chart_svg(
...     [Series("flash:loss", (2, 10, 100), (0.84, 0.82, 0.79))],
...     title="Accuracy vs k", xlabel="k", ylabel="accuracy", log_x=True,
...     references=[Reference("original data", 0.85)],
... )
>>> svg.startswith("<svg") and svg.endswith("</svg>") and "flash:loss" in svg
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Literal

import polars as pl

from anonkit.report.plots import Renderer, renamed_renderer, svg_open
from anonkit.study.analysis import (
    BASELINE_ALGORITHMS,
    baseline_table,
    cell_rows,
    metric_label,
)

__all__ = [
    "PALETTE",
    "Reference",
    "Series",
    "accuracy_vs_k_svgs",
    "line_chart_svg",
    "metric_vs_accuracy_svg",
    "metric_vs_k_svg",
    "scatter_svg",
]

Kind = Literal["line", "scatter"]

#: Series colors, in order (a series past the tenth reuses them with a dashed line).
PALETTE: tuple[str, ...] = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
_REFERENCE_COLORS = ("#1f2328", "#8c959f")
_TEXT = "#1f2328"
_MUTED = "#57606a"
_GRID = "#eaeef2"


@dataclass(frozen=True)
class Series:
    """One named line (or point cloud): x and y of equal length; NaN values are skipped."""

    label: str
    x: tuple[float, ...]
    y: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.x) != len(self.y):
            raise ValueError(f"series {self.label!r}: x and y must have the same length")


@dataclass(frozen=True)
class Reference:
    """A horizontal reference line (a baseline) at height ``y``."""

    label: str
    y: float


def _style(index: int) -> tuple[str, bool]:
    """Color of the index-th series, and whether it is dashed (past the palette)."""
    return PALETTE[index % len(PALETTE)], index >= len(PALETTE)


def _grid_tick(at: float, vertical: bool, bottom: float, text: str) -> str:
    """A grid line across the plot at ``at`` (an x when ``vertical``, else a y) and its
    tick label below or left of the plot."""
    if vertical:
        line = f'<line x1="{at:.1f}" y1="{_TOP}" x2="{at:.1f}" y2="{bottom}" stroke="{_GRID}"/>'
        label = f'<text x="{at:.1f}" y="{bottom + 15}" font-size="11" text-anchor="middle" '
    else:
        line = (
            f'<line x1="{_PLOT_LEFT}" y1="{at:.1f}" x2="{_PLOT_RIGHT}" y2="{at:.1f}" '
            f'stroke="{_GRID}"/>'
        )
        label = f'<text x="{_PLOT_LEFT - 6}" y="{at + 4:.1f}" font-size="11" text-anchor="end" '
    return f'{line}{label}fill="{_MUTED}">{escape(text)}</text>'


def line_chart_svg(
    series: Sequence[Series],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    log_x: bool = False,
    references: Sequence[Reference] = (),
) -> str:
    """Lines with point markers, one per series, plus horizontal reference lines.

    Parameters
    ----------
    series
        The lines; points with a NaN coordinate (or x <= 0 on a log axis) break the line.
    title, xlabel, ylabel
        Chart title (also the SVG's accessible name) and axis labels.
    log_x
        Logarithmic x axis (e.g. for k from 2 to 15,000).
    references
        Horizontal lines across the chart, e.g. the original-data accuracy.
    """
    return _chart("line", series, title, xlabel, ylabel, log_x, references)


def scatter_svg(
    series: Sequence[Series],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    log_x: bool = False,
) -> str:
    """Points, one color per series; parameters as in :func:`line_chart_svg`.

    Examples
    --------
    >>> svg = scatter_svg([Series("rf", (0.1, 0.5), (0.8, 0.7))], title="NCP vs accuracy",
    ...                   xlabel="NCP", ylabel="accuracy")
    >>> svg.count("<circle")  # two points and the legend's marker
    3
    """
    return _chart("scatter", series, title, xlabel, ylabel, log_x, ())


_WIDTH, _PLOT_LEFT, _PLOT_RIGHT, _TOP, _PLOT_HEIGHT = 660, 64, 470, 36, 260
_LEGEND_X, _LEGEND_ROW, _LEGEND_CHARS = 482, 16, 24


def _usable(value: float, log: bool) -> bool:
    return math.isfinite(value) and (value > 0 or not log)


def _nice_step(span: float, target: int = 5) -> float:
    raw = span / target
    magnitude = 10.0 ** math.floor(math.log10(raw))
    for multiple in (1.0, 2.0, 2.5, 5.0):
        if raw <= multiple * magnitude * (1 + 1e-9):
            return multiple * magnitude
    return 10.0 * magnitude


class _Axis:
    """A linear or logarithmic mapping from data values to pixels, with its ticks."""

    def __init__(self, values: Sequence[float], log: bool, start: float, end: float) -> None:
        self.log = log
        self.start, self.end = start, end
        finite = [v for v in values if _usable(v, log)]
        if log:
            lo, hi = (math.log10(min(finite)), math.log10(max(finite))) if finite else (0.0, 1.0)
        else:
            lo, hi = (min(finite), max(finite)) if finite else (0.0, 1.0)
        if lo == hi:
            pad = 0.5 if log else (abs(lo) * 0.05 or 0.5)
        else:
            pad = (hi - lo) * 0.05
        self.lo, self.hi = lo - pad, hi + pad  # in log10 units on a log axis

    def __call__(self, value: float) -> float:
        v = math.log10(value) if self.log else value
        return self.start + (v - self.lo) / (self.hi - self.lo) * (self.end - self.start)

    def ticks(self) -> list[float]:
        if self.log:
            first, last = math.ceil(self.lo - 1e-9), math.floor(self.hi + 1e-9)
            decades = [10.0**e for e in range(first, last + 1)]
            if len(decades) >= 2:
                return decades
            lo, hi = 10.0**self.lo, 10.0**self.hi
            e0 = math.floor(self.lo)
            finer = [m * 10.0**e for e in range(e0, e0 + 3) for m in (1.0, 2.0, 5.0)]
            finer = [t for t in finer if lo <= t <= hi]
            if len(finer) >= 2:
                return finer
            return [t for t in self._linear(lo, hi) if t > 0]
        return self._linear(self.lo, self.hi)

    @staticmethod
    def _linear(lo: float, hi: float) -> list[float]:
        step = _nice_step(hi - lo)
        i = math.ceil(lo / step - 1e-9)
        out = []
        while i * step <= hi + 1e-9 * step:
            out.append(round(i * step, 12))
            i += 1
        return out


def _tick_text(value: float) -> str:
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:.6g}"


def _short(text: str) -> str:
    return text if len(text) <= _LEGEND_CHARS else text[: _LEGEND_CHARS - 1] + "…"


def _chart(
    kind: Kind,
    series: Sequence[Series],
    title: str,
    xlabel: str,
    ylabel: str,
    log_x: bool,
    references: Sequence[Reference],
) -> str:
    bottom = _TOP + _PLOT_HEIGHT
    legend_rows = len(series) + len(references)
    height = max(bottom + 46, _TOP + 8 + legend_rows * _LEGEND_ROW + 8)
    xs = [v for s in series for v in s.x]
    ys = [v for s in series for v in s.y] + [r.y for r in references]
    x_axis = _Axis(xs, log_x, _PLOT_LEFT, _PLOT_RIGHT)
    y_axis = _Axis(ys, False, bottom, _TOP)
    parts = svg_open(_WIDTH, height, title)
    # grid, ticks and axes
    parts += [_grid_tick(x_axis(t), True, bottom, _tick_text(t)) for t in x_axis.ticks()]
    parts += [_grid_tick(y_axis(t), False, bottom, _tick_text(t)) for t in y_axis.ticks()]
    parts.append(
        f'<polyline points="{_PLOT_LEFT},{_TOP} {_PLOT_LEFT},{bottom} {_PLOT_RIGHT},{bottom}" '
        f'fill="none" stroke="{_MUTED}"/>'
        f'<text x="{(_PLOT_LEFT + _PLOT_RIGHT) / 2:.1f}" y="{bottom + 34}" font-size="12" '
        f'text-anchor="middle" fill="{_MUTED}">{escape(xlabel)}</text>'
        f'<text x="14" y="{(_TOP + bottom) / 2:.1f}" font-size="12" text-anchor="middle" '
        f'fill="{_MUTED}" transform="rotate(-90 14 {(_TOP + bottom) / 2:.1f})">'
        f"{escape(ylabel)}</text>"
    )
    legend: list[tuple[str, str, str]] = []  # label, color, swatch kind
    for j, ref in enumerate(references):
        if not math.isfinite(ref.y):
            continue
        color = _REFERENCE_COLORS[j % len(_REFERENCE_COLORS)]
        y = y_axis(ref.y)
        parts.append(
            f'<line x1="{_PLOT_LEFT}" y1="{y:.1f}" x2="{_PLOT_RIGHT}" y2="{y:.1f}" '
            f'stroke="{color}" stroke-width="1.2" stroke-dasharray="5 3">'
            f"<title>{escape(ref.label)}: {escape(_tick_text(ref.y))}</title></line>"
        )
        legend.append((ref.label, color, "reference"))
    for i, s in enumerate(series):
        color, dashed = _style(i)
        points = [
            (x_axis(x), y_axis(y)) if _usable(x, log_x) and math.isfinite(y) else None
            for x, y in zip(s.x, s.y, strict=True)
        ]
        if kind == "line":
            dash = ' stroke-dasharray="6 3"' if dashed else ""
            for segment in _segments(points):
                if len(segment) >= 2:
                    coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in segment)
                    parts.append(
                        f'<polyline points="{coords}" fill="none" stroke="{color}" '
                        f'stroke-width="1.6"{dash}/>'
                    )
        radius, opacity = (2.6, "1") if kind == "line" else (3.2, "0.75")
        for point, x, y in zip(points, s.x, s.y, strict=True):
            if point is not None:
                parts.append(
                    f'<circle cx="{point[0]:.1f}" cy="{point[1]:.1f}" r="{radius}" '
                    f'fill="{color}" fill-opacity="{opacity}"><title>'
                    f"{escape(s.label)}: {escape(_tick_text(x))}, {escape(_tick_text(y))}"
                    "</title></circle>"
                )
        legend.append((s.label, color, "dashed" if dashed and kind == "line" else kind))
    for row, (label, color, swatch) in enumerate(legend):
        y = _TOP + 8 + row * _LEGEND_ROW
        if swatch == "scatter":
            mark = f'<circle cx="{_LEGEND_X + 9}" cy="{y}" r="3.5" fill="{color}"/>'
        else:
            mark = (
                f'<line x1="{_LEGEND_X}" y1="{y}" x2="{_LEGEND_X + 18}" y2="{y}" '
                f'stroke="{color}" stroke-width="2"{_LEGEND_DASH.get(swatch, "")}/>'
            )
        parts.append(
            f'{mark}<text x="{_LEGEND_X + 24}" y="{y + 4}" font-size="11" fill="{_TEXT}">'
            f"<title>{escape(label)}</title>{escape(_short(label))}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


_LEGEND_DASH = {"reference": ' stroke-dasharray="5 3"', "dashed": ' stroke-dasharray="6 3"'}


def _segments(
    points: Sequence[tuple[float, float] | None],
) -> list[list[tuple[float, float]]]:
    """Runs of consecutive defined points."""
    out: list[list[tuple[float, float]]] = [[]]
    for p in points:
        if p is None:
            if out[-1]:
                out.append([])
        else:
            out[-1].append(p)
    return [s for s in out if s]


# ------------------------------------------------------------------ study plots
def _ok_cells(frame: pl.DataFrame) -> pl.DataFrame:
    keep = ~pl.col("algorithm").is_in(BASELINE_ALGORITHMS)
    if "status" in frame.columns:
        keep = keep & (pl.col("status") == "ok")
    return frame.filter(keep)


def _as_float(column: str) -> pl.Expr:
    return pl.col(column).cast(pl.Float64, strict=False).fill_nan(None)


def _series(means: pl.DataFrame, by: str, x: str, y: str) -> list[Series]:
    out = []
    for (name,), part in means.partition_by(by, as_dict=True, maintain_order=True).items():
        part = part.sort(x)
        out.append(
            Series(
                str(name),
                tuple(part[x].cast(pl.Float64).fill_null(math.nan).to_list()),
                tuple(part[y].cast(pl.Float64).fill_null(math.nan).to_list()),
            )
        )
    return out


def accuracy_vs_k_svgs(
    frame: pl.DataFrame,
    *,
    evaluation: str = "anonymized_test",
    renderer: Renderer = "auto",
    engine: Renderer | None = None,
) -> list[tuple[str, str]]:
    """One accuracy-vs-k chart per classifier: ``(classifier, svg)`` pairs.

    One line per cell (mean accuracy over the folds at each k, log x axis); the
    classifier's accuracy on the original data and the majority class are dashed
    horizontal lines. ``renderer`` and ``engine`` as in :func:`metric_vs_k_svg`.

    Examples
    --------
    >>> import polars as pl
    >>> frame = pl.DataFrame({
    ...     "fold": [0] * 3, "k": [2, 10, 1], "algorithm": ["flash", "flash", "original"],
    ...     "cell": ["flash:loss", "flash:loss", "original"], "classifier": ["rf"] * 3,
    ...     "evaluation": ["anonymized_test", "anonymized_test", "original_test"],
    ...     "accuracy": [0.8, 0.78, 0.85], "status": ["ok"] * 3,
    ... })
    >>> [(name, "original data" in svg) for name, svg in accuracy_vs_k_svgs(frame)]
    [('rf', True)]
    """
    renamed_renderer(renderer, engine, old_name="engine", owner="accuracy_vs_k_svgs")
    rows = cell_rows(frame, evaluation=evaluation)
    baselines = baseline_table(frame)
    means = rows.group_by(["classifier", "cell", "k"], maintain_order=True).agg(
        _as_float("accuracy").mean()
    )
    majority = baselines.filter(pl.col("algorithm") == "majority")["accuracy"].to_list()
    out = []
    for (classifier,), part in means.partition_by(
        "classifier", as_dict=True, maintain_order=True
    ).items():
        references = []
        original = baselines.filter(
            (pl.col("algorithm") == "original")
            & (pl.col("classifier") == classifier)
            & (pl.col("evaluation") == "original_test")
        )["accuracy"].to_list()
        if original:
            references.append(Reference("original data", float(original[0])))
        if majority:
            references.append(Reference("majority class", float(majority[0])))
        svg = line_chart_svg(
            _series(part, "cell", "k", "accuracy"),
            title=f"Accuracy vs k: {classifier}",
            xlabel="requested k (log scale)",
            ylabel=f"accuracy ({evaluation.replace('_', ' ')})",
            log_x=True,
            references=references,
        )
        out.append((str(classifier), svg))
    return out


def _varies(values: Sequence[float]) -> bool:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    return bool(finite) and min(finite) != max(finite)


def metric_vs_k_svg(
    frame: pl.DataFrame,
    metric: str,
    *,
    renderer: Renderer = "auto",
    engine: Renderer | None = None,
) -> str | None:
    """A metric against k, one line per cell (mean over folds), log x axis.

    Returns ``None`` when the metric has no value that varies over the cells (all NaN or
    constant): there is nothing to draw. ``renderer`` is kept for compatibility
    (:func:`anonkit.report.plots.check_renderer`); ``engine`` is its deprecated name (a
    :class:`DeprecationWarning`; passing both is a
    :class:`~anonkit.exceptions.ParameterError`).
    """
    renamed_renderer(renderer, engine, old_name="engine", owner="metric_vs_k_svg")
    if metric not in frame.columns:
        return None
    cells = _ok_cells(frame).with_columns(_as_float(metric).alias("_y"))
    means = cells.group_by(["cell", "k"], maintain_order=True).agg(pl.col("_y").mean())
    if not _varies(means["_y"].to_list()):
        return None
    label = metric_label(metric)
    return line_chart_svg(
        _series(means, "cell", "k", "_y"),
        title=f"{label} vs k",
        xlabel="requested k (log scale)",
        ylabel=metric,
        log_x=True,
    )


def metric_vs_accuracy_svg(
    frame: pl.DataFrame,
    metric: str,
    *,
    evaluation: str = "anonymized_test",
    rho: float | None = None,
    renderer: Renderer = "auto",
    engine: Renderer | None = None,
) -> str | None:
    """A metric (x) against accuracy (y): one point per (cell, k), one color per classifier.

    Values are means over the folds. The x axis is logarithmic when the metric is
    positive and spans more than two orders of magnitude (discernibility, k). ``rho``
    (e.g. the mean Spearman correlation) goes into the title. Returns ``None`` when the
    metric does not vary over the cells. ``renderer`` and ``engine`` as in
    :func:`metric_vs_k_svg`.
    """
    renamed_renderer(renderer, engine, old_name="engine", owner="metric_vs_accuracy_svg")
    if metric not in frame.columns:
        return None
    rows = cell_rows(frame, evaluation=evaluation).with_columns(_as_float(metric).alias("_x"))
    means = rows.group_by(["classifier", "cell", "k"], maintain_order=True).agg(
        pl.col("_x").mean(), _as_float("accuracy").mean()
    )
    values = [v for v in means["_x"].to_list() if v is not None and math.isfinite(v)]
    if not _varies(values):
        return None
    log_x = min(values) > 0 and max(values) / min(values) > 100
    label = metric_label(metric)
    title = f"{label} vs accuracy"
    if rho is not None and math.isfinite(rho):
        title += f" (mean Spearman ρ = {rho:+.2f})"
    return scatter_svg(
        _series(means, "classifier", "_x", "accuracy"),
        title=title,
        xlabel=metric + (" (log scale)" if log_x else ""),
        ylabel=f"accuracy ({evaluation.replace('_', ' ')})",
        log_x=log_x,
    )
