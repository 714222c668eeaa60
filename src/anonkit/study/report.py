"""The HTML report of a utility study: which information-loss metric tracks accuracy?

:func:`render_study_report` turns a study's tidy results (one row per fold, cell,
classifier and evaluation; see :mod:`anonkit.study.analysis`) into one self-contained page:
the study at a glance, a plain-language guide to the correlations, the ranking of the
metrics, the correlation tables (colored by strength), accuracy against k with the
baselines, the accuracy tables, each metric against k, each metric against accuracy, the
failed cells, the settings and the timing. The page is the template
``report/templates/study.html.j2``; this module computes what it shows. Plots are inline
SVG (:mod:`anonkit.study.plots`); the page loads nothing from anywhere and holds no record
(the results have none), only figures computed over whole releases.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from anonkit._atomic import atomic_write_text
from anonkit._validation import check_int
from anonkit.report._common import fmt, render
from anonkit.report.plots import Renderer, renamed_renderer
from anonkit.study.analysis import (
    BASELINE_ALGORITHMS,
    EVALUATIONS,
    baseline_table,
    cell_rows,
    correlations,
    metric_columns,
    metric_label,
    rank_metrics,
    summary_table,
)
from anonkit.study.plots import accuracy_vs_k_svgs, metric_vs_accuracy_svg, metric_vs_k_svg

__all__ = ["SECTIONS", "render_study_report", "write_study_report"]

#: Section headings of the report, in order (``Failed cells`` only when some cell failed).
SECTIONS = (
    "The study",
    "How to read the correlations",
    "Which metric tracks accuracy best",
    "Which metric picks the better release at equal k",
    "Correlations with accuracy",
    "Correlations with the accuracy drop",
    "Accuracy vs k",
    "Accuracy by k and cell",
    "Baselines",
    "Metrics vs k",
    "Metrics vs accuracy",
    "Failed cells",
    "Settings and timing",
)

_OWNER = "render_study_report"
_KIND = {
    "loss": "loss metric",
    "alteration": "alteration (Mauger et al.)",
    "structure": "release structure",
    "design": "reference: requested k",
}


class _Cell(NamedTuple):
    """A table cell of the template: its text (escaped there), right-aligned or not, and
    a CSS background (or ``""``)."""

    text: str
    numeric: bool = False
    style: str = ""


def _cell(value: Any, *, numeric: bool = False, style: str = "") -> _Cell:
    return _Cell(fmt(value), numeric, style)


def _strength(r: float) -> str:
    """Background for a correlation: blue when negative, orange when positive, by |r|."""
    if not math.isfinite(r):
        return ""
    alpha = 0.06 + 0.6 * abs(r)
    rgb = "47,129,247" if r < 0 else "219,109,40"
    return f"background:rgba({rgb},{alpha:.2f})"


def _r(r: float) -> str:
    return "n/a" if not math.isfinite(r) else f"{r:+.3f}"


def _interval(low: float, high: float) -> str:
    if not (math.isfinite(low) and math.isfinite(high)):
        return "n/a"
    return f"[{low:+.2f}, {high:+.2f}]"


def _listed(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) if value else "none"
    if isinstance(value, Mapping):
        return "; ".join(f"{k} = {v}" for k, v in value.items()) if value else "none"
    return value


def _reading_guide(ci_method: str, n_folds: int) -> list[str]:
    interval = (
        f"The bracketed 95 % intervals come from the spread of the correlation over the "
        f"{n_folds} cross-validation folds (a t-interval around their mean)."
        if ci_method == "folds"
        else "The bracketed 95 % intervals use Fisher's z-transform over the cells of the "
        "single train/test split (for Spearman with the variance 1.06 / (n - 3) of Fieller, "
        "Hartley and Pearson, 1957). The cells share the data and the k grid, so they are "
        "not independent samples: read the interval as a sign of how settled the figure "
        "is, not as an exact probability."
    )
    paragraphs = [
        "Each cell of the study is one requested k and one algorithm (with its variant). "
        "For every classifier, the study trains on each cell's anonymized training split "
        "and measures accuracy on the test split. A correlation compares two columns over "
        "those cells: the value of an information-loss metric and the accuracy.",
        "Spearman's ρ asks whether ordering the cells by the metric puts them in the same "
        "order as their accuracy (any monotone relation counts). Pearson's r asks whether "
        "the two fall on a straight line. Both run from -1 to +1. All loss metrics are "
        "'lower is better', so a metric that predicts utility well has a correlation "
        "close to -1 with accuracy: more loss, less accuracy. Values near 0 mean the "
        "metric says little about accuracy; a positive value means it points the wrong "
        "way. Blue cells are negative correlations, orange positive; the stronger the "
        "color, the stronger the correlation.",
        "The accuracy drop is the original-data accuracy of the same classifier minus the "
        "anonymized accuracy. Within a fold the original accuracy is fixed, so the drop's "
        "correlations are those with accuracy with the sign flipped; they are listed for "
        "completeness.",
        interval,
        "The number of released classes grows as releases get finer, so for it a "
        "positive correlation is the expected direction. "
        "The requested k is listed as a reference: it orders the cells of one algorithm "
        "but knows nothing about how an algorithm generalizes. A metric worth computing "
        "should track accuracy at least as well as k does. Correlations mix algorithms: a "
        "metric can follow accuracy within one algorithm and still rank two algorithms "
        "the wrong way, which the scatter plots below show.",
    ]
    return paragraphs


def _study_cards(frame: pl.DataFrame, rows: pl.DataFrame) -> tuple[str, list[tuple[str, Any]]]:
    """The datasets' names and the headline cards of the study."""
    cells = frame.filter(~pl.col("algorithm").is_in(BASELINE_ALGORITHMS))
    ks = sorted(int(k) for k in cells["k"].unique().drop_nulls())
    runs = cells.select("fold", "cell", "k").unique().height
    failed = (
        cells.filter(pl.col("status") != "ok").select("fold", "cell", "k").unique().height
        if "status" in cells.columns
        else 0
    )
    datasets = (
        ", ".join(str(d) for d in frame["dataset"].unique(maintain_order=True))
        if "dataset" in frame.columns
        else ""
    )
    k_text = f"{len(ks)} ({fmt(ks[0])} to {fmt(ks[-1])})" if ks else "none"
    return datasets, [
        ("folds", cells["fold"].n_unique()),
        ("algorithms × variants (cells)", cells["cell"].n_unique()),
        (f"requested k values: {k_text}", len(ks)),
        ("classifiers", rows["classifier"].n_unique()),
        ("anonymizations run", runs),
        ("anonymizations failed", failed),
    ]


def _ranking(ranking: pl.DataFrame, other: pl.DataFrame | None, other_name: str) -> dict[str, Any]:
    """The verdict sentence (``None`` when no correlation is defined) and the table."""
    finite = ranking.filter(pl.col("rank").is_not_null())
    if finite.is_empty():
        return {"sentence": None, "header": [], "rows": []}
    most = max(finite["n"].to_list(), default=0)
    full = finite.filter(pl.col("n") == most)  # metrics defined on every cell
    best = (full if full.height else finite).row(0, named=True)
    sentence = (
        f"The metric that tracks accuracy best is {best['label']} ({best['metric']}): "
        f"mean Spearman ρ = {best['rho']:+.2f} over the classifiers "
        f"(from {best['rho_min']:+.2f} to {best['rho_max']:+.2f}), over {best['n']} cells."
    )
    partial = finite.filter(pl.col("n") < most)["metric"].to_list()
    if partial:
        sentence += (
            f" Metrics defined on fewer cells ({', '.join(partial)}) are correlated over "
            "those cells only (e.g. one algorithm), which is an easier task; they are "
            "marked 'partial' and left out of this verdict."
        )
    reference = finite.filter(pl.col("metric") == "k")
    if not reference.is_empty() and best["metric"] != "k":
        r = reference.row(0, named=True)
        sentence += f" The requested k alone reaches ρ = {r['rho']:+.2f} (rank {r['rank']})."
    other_rho: dict[str, float] = {}
    if other is not None:
        other_rho = dict(zip(other["metric"], other["rho"], strict=True))
    header = [
        "Rank",
        "Metric",
        "Column",
        "Kind",
        "Mean ρ",
        "Range over classifiers",
        "Mean 95 % interval",
        "Cells",
    ]
    if other is not None:
        header.append(f"Mean ρ ({other_name.replace('_', ' ')})")
    rows = []
    for row in ranking.iter_rows(named=True):
        cells = [
            _cell("–" if row["rank"] is None else row["rank"], numeric=True),
            _cell(row["label"]),
            _cell(row["metric"]),
            _cell(_KIND.get(row["kind"], row["kind"])),
            _cell(_r(row["rho"]), numeric=True, style=_strength(row["rho"])),
            _cell(
                f"{_r(row['rho_min'])} to {_r(row['rho_max'])}"
                if math.isfinite(row["rho_min"])
                else "n/a",
                numeric=True,
            ),
            _cell(_interval(row["low"], row["high"]), numeric=True),
            _cell(row["n"] if row["n"] >= most else f"{fmt(row['n'])} (partial)", numeric=True),
        ]
        if other is not None:
            value = other_rho.get(row["metric"], math.nan)
            cells.append(_cell(_r(value), numeric=True, style=_strength(value)))
        rows.append(cells)
    return {"sentence": sentence, "header": header, "rows": rows}


_CORRELATION_HEADER = (
    "Metric",
    "Column",
    "Spearman ρ",
    "95 % interval",
    "Pearson r",
    "95 % interval",
    "Cells",
)

#: A table per classifier: its name, the header and the rows of cells.
_Tables = list[tuple[str, list[str], list[list[_Cell]]]]


def _correlation_tables(table: pl.DataFrame, target: str) -> _Tables:
    out: _Tables = []
    sub = table.filter(pl.col("target") == target)
    for (classifier,), part in sub.partition_by(
        "classifier", as_dict=True, maintain_order=True
    ).items():
        rows = [
            [
                _cell(metric_label(row["metric"])),
                _cell(row["metric"]),
                _cell(_r(row["spearman"]), numeric=True, style=_strength(row["spearman"])),
                _cell(_interval(row["spearman_low"], row["spearman_high"]), numeric=True),
                _cell(_r(row["pearson"]), numeric=True, style=_strength(row["pearson"])),
                _cell(_interval(row["pearson_low"], row["pearson_high"]), numeric=True),
                _cell(row["n"], numeric=True),
            ]
            for row in part.iter_rows(named=True)
        ]
        out.append((str(classifier), list(_CORRELATION_HEADER), rows))
    return out


def _summary_tables(frame: pl.DataFrame, evaluation: str) -> _Tables:
    """Mean accuracy by k (rows) and cell (columns; the template lets long names wrap)."""
    wide = summary_table(frame, evaluation=evaluation)
    out: _Tables = []
    cells = [c for c in wide.columns if c not in ("classifier", "k")]
    for (classifier,), part in wide.partition_by(
        "classifier", as_dict=True, maintain_order=True
    ).items():
        rows = [
            [_cell(row["k"], numeric=True)]
            + [_cell(math.nan if row[c] is None else float(row[c]), numeric=True) for c in cells]
            for row in part.iter_rows(named=True)
        ]
        out.append((str(classifier), ["k", *cells], rows))
    return out


def _seconds(value: Any) -> str:
    if isinstance(value, float) and math.isfinite(value):
        return f"{value:,.2f}"
    return fmt(_listed(value))


def _timing_rows(frame: pl.DataFrame, timing: Mapping[str, Any] | None) -> list[list[_Cell]]:
    rows = [
        [_cell(str(name)), _cell(_seconds(value), numeric=True)]
        for name, value in (timing or {}).items()
    ]
    stages = [
        c for c in ("seconds_anonymize", "seconds_metrics", "seconds_utility") if c in frame.columns
    ]
    if stages:
        # the seconds columns are per cell run, repeated on each of its rows
        per_run = frame.group_by(["fold", "cell", "k"]).agg(
            pl.col(stages).cast(pl.Float64).fill_nan(None).first()
        )
        for column in stages:
            total = per_run[column].sum()
            rows.append(
                [
                    _cell(f"{column.removeprefix('seconds_')}, core-seconds summed over runs"),
                    _cell(_seconds(float(total or 0.0)), numeric=True),
                ]
            )
    return rows


def render_study_report(
    frame: pl.DataFrame,
    *,
    title: str = "Utility study",
    config_summary: Mapping[str, Any] | None = None,
    timing: Mapping[str, Any] | None = None,
    evaluation: str = "anonymized_test",
    renderer: Renderer = "auto",
    plots: Renderer | None = None,
    max_scatter: int | None = None,
) -> str:
    """The study report as one self-contained HTML page.

    Parameters
    ----------
    frame
        The study's tidy results (:func:`anonkit.study.analysis.load_results` reads the
        CSV).
    title
        Page heading.
    config_summary
        The study's settings to list (name -> value), e.g. the configuration's summary.
    timing
        Wall-clock figures to list (name -> seconds), e.g. ``{"total": 1234.5}``; the
        per-stage core-seconds summed from the ``seconds_*`` columns are added.
    evaluation
        Which test presentation the correlations, tables and plots use:
        ``"anonymized_test"`` (default) or ``"original_test"``; the ranking also shows the
        other one when the study measured it.
    renderer
        Kept for compatibility: every chart is plain SVG (``"auto"`` or ``"svg"``; see
        :func:`anonkit.report.plots.check_renderer`).
    plots
        Deprecated name of ``renderer`` (a :class:`DeprecationWarning`; passing both is a
        :class:`~anonkit.exceptions.ParameterError`).
    max_scatter
        Draw at most this many metric-vs-accuracy scatter plots (the best-ranked first);
        default all.

    Raises
    ------
    UnknownColumnError, UnknownNameError
        If the frame lacks a required column or ``evaluation`` is unknown.
    ParameterError
        If ``max_scatter`` is not a non-negative int or None.

    Examples
    --------
    >>> import polars as pl
    >>> frame = pl.DataFrame({
    ...     "dataset": ["toy"] * 5, "fold": [0] * 5, "k": [2, 5, 10, 50, 100],
    ...     "algorithm": ["flash"] * 5, "cell": ["flash:loss"] * 5,
    ...     "classifier": ["random_forest"] * 5, "evaluation": ["anonymized_test"] * 5,
    ...     "accuracy": [0.84, 0.83, 0.81, 0.80, 0.76],
    ...     "loss_ncp": [0.10, 0.15, 0.22, 0.40, 0.51], "status": ["ok"] * 5,
    ... })
    >>> page = render_study_report(frame)
    >>> "<h2>Which metric tracks accuracy best</h2>" in page, page.count("<svg") >= 3
    (True, True)
    """
    if max_scatter is not None:
        check_int(max_scatter, "max_scatter", _OWNER, low=0)
    renamed_renderer(renderer, plots, old_name="plots", owner="render_study_report")
    rows = cell_rows(frame, evaluation=evaluation)
    table = correlations(frame, evaluation=evaluation)
    ranking = rank_metrics(table)
    other_name = next(e for e in EVALUATIONS if e != evaluation)
    other_rows = cell_rows(frame, evaluation=other_name)
    other = (
        None if other_rows.is_empty() else rank_metrics(correlations(frame, evaluation=other_name))
    )
    ci_method = str(table["ci_method"][0]) if table.height else "fisher"
    n_folds = max(table["n_folds"].to_list(), default=0)

    datasets, cards = _study_cards(frame, rows)
    within = rank_metrics(correlations(frame, evaluation=evaluation, within="k"))
    other_within = (
        None
        if other is None
        else rank_metrics(correlations(frame, evaluation=other_name, within="k"))
    )
    metric_charts: list[str] = []
    flat: list[str] = []
    for metric in metric_columns(frame):
        if metric == "k":
            continue
        line = metric_vs_k_svg(frame, metric)
        if line is None:
            flat.append(metric)
        else:
            metric_charts.append(line)
    scatter_charts: list[str] = []
    for row in ranking.iter_rows(named=True):
        if max_scatter is not None and len(scatter_charts) >= max_scatter:
            break
        cloud = metric_vs_accuracy_svg(frame, row["metric"], evaluation=evaluation, rho=row["rho"])
        if cloud is not None:
            scatter_charts.append(cloud)
    return render(
        "study.html.j2",
        title=title,
        sections=SECTIONS,
        evaluation=evaluation.replace("_", " "),
        datasets=datasets,
        cards=cards,
        guide=_reading_guide(ci_method, n_folds),
        ranking_all=_ranking(ranking, other, other_name),
        ranking_within=_ranking(within, other_within, other_name),
        ci_method=ci_method,
        correlations=_correlation_tables(table, "accuracy"),
        drop_correlations=_correlation_tables(table, "accuracy_drop"),
        accuracy_charts=[svg for _, svg in accuracy_vs_k_svgs(frame, evaluation=evaluation)],
        summaries=_summary_tables(frame, evaluation),
        baselines=[
            [
                _cell(row["algorithm"]),
                _cell(row["classifier"]),
                _cell(row["evaluation"].replace("_", " ")),
                _cell(row.get("accuracy", math.nan), numeric=True),
                _cell(row.get("balanced_accuracy", math.nan), numeric=True),
                _cell(row["n_folds"], numeric=True),
            ]
            for row in baseline_table(frame).iter_rows(named=True)
        ],
        metric_charts=metric_charts,
        flat=flat,
        scatter_charts=scatter_charts,
        failed=_failed_rows(frame),
        settings=[[_cell(str(k)), _cell(_listed(v))] for k, v in (config_summary or {}).items()],
        timing=_timing_rows(frame, timing),
    )


def _failed_rows(frame: pl.DataFrame) -> list[list[_Cell]]:
    """Fold, cell, k and status of every run that raised an error."""
    if "status" not in frame.columns:
        return []
    failed = (
        frame.filter(pl.col("status") != "ok")
        .select("fold", "cell", "k", "status")
        .unique(maintain_order=True)
    )
    return [
        [
            _cell(r["fold"], numeric=True),
            _cell(r["cell"]),
            _cell(r["k"], numeric=True),
            _cell(r["status"]),
        ]
        for r in failed.iter_rows(named=True)
    ]


def write_study_report(frame: pl.DataFrame, path: str | Path, **kwargs: Any) -> None:
    """Render the report (keywords as :func:`render_study_report`) and write it atomically."""
    atomic_write_text(Path(path), render_study_report(frame, **kwargs))
