"""Seed 000's question, answered: does a loss metric predict classifier accuracy?

Seed 000 asks whether (conditional) entropy, or any information-loss metric, is a good
predictor of how useful a k-anonymized table is for training classifiers. This module runs
the two studies behind ``docs/studies/seed000.md`` (the bundled Adult extract and the
generated census-like table of :mod:`anonkit.datasets.synthetic`, both through
:func:`anonkit.study.runner.run_study`, cached and resumable), and writes the figures and the
tables of that page:

* the metrics ranked by their Spearman correlation with accuracy over the whole grid
  (``correlations(...)``) and within each requested k (``correlations(..., within="k")``);
* accuracy against k, and conditional entropy against accuracy, as SVG files.

Run it with ``anonkit reproduce seed000 -o docs/studies`` (or
``python -m anonkit.study.seed000 --output docs/studies``). The written page keeps its
prose; only the block between the ``seed000:results`` markers is replaced.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import polars as pl

from anonkit.study.analysis import (
    baseline_table,
    cell_rows,
    correlations,
    load_results,
    rank_metrics,
)
from anonkit.study.config import StudyConfig
from anonkit.study.specs import AlgorithmSpec

__all__ = [
    "DATASETS",
    "RESULTS_END",
    "RESULTS_START",
    "render_markdown",
    "reproduce",
    "study_configs",
    "write_outputs",
]

#: The studies of the write-up: the two datasets, and Adult again with 3-fold
#: cross-validation on four k (intervals across folds, a check of the one-split results).
DATASETS = ("adult", "synthetic", "adult-3fold")
_TITLES = {
    "adult": "Adult",
    "synthetic": "Synthetic",
    "adult-3fold": "Adult, 3-fold cross-validation (k = 2, 10, 100, 1000)",
}
RESULTS_START = "<!-- seed000:results:start -->"
RESULTS_END = "<!-- seed000:results:end -->"
#: Metrics always shown in the tables, whatever their rank (seed 000's candidate first).
_FOCUS = ("loss_conditional_entropy", "loss_nonuniform_entropy", "loss_classification", "k")
_TOP = 8


def study_configs(
    folder: str | os.PathLike[str], *, workers: int | None = None
) -> dict[str, StudyConfig]:
    """The studies: Adult with the default grid, the synthetic table on 30,000 records,
    and Adult with 3-fold cross-validation on k = 2, 10, 100, 1000.

    Results go to ``folder/seed000/<dataset>/`` (``results.csv``, ``study.json``,
    ``report.html``, ``cache/``).
    """
    root = Path(folder) / "seed000"
    adult = StudyConfig(dataset="adult", output=root / "adult", workers=workers)
    synthetic = StudyConfig(
        dataset="synthetic",
        sample=30_000,  # Adult's size
        algorithms=(
            AlgorithmSpec("flash", "loss"),
            AlgorithmSpec("mondrian", "strict"),
            *(AlgorithmSpec("greedy_merge", c) for c in _costs()),
            AlgorithmSpec("microaggregation", "mdav"),
        ),
        output=root / "synthetic",
        workers=workers,
    )
    folds = StudyConfig(
        dataset="adult",
        folds=3,
        k_values=(2, 10, 100, 1000),
        output=root / "adult-3fold",
        workers=workers,
    )
    return {"adult": adult, "synthetic": synthetic, "adult-3fold": folds}


def _costs() -> tuple[str, ...]:
    from anonkit.metrics.cost_matrix import COST_FUNCTIONS

    return tuple(COST_FUNCTIONS)


def reproduce(
    folder: str | os.PathLike[str],
    *,
    workers: int | None = None,
    progress: Callable[[str], Callable[[int, int], None] | None] | None = None,
) -> dict[str, pl.DataFrame]:
    """Run (or resume) both studies; returns each dataset's tidy results.

    ``progress(dataset)`` may return a ``progress(done, total)`` callback for that study.
    """
    from anonkit.study.runner import run_study

    frames: dict[str, pl.DataFrame] = {}
    for name, config in study_configs(folder, workers=workers).items():
        bar = progress(name) if progress is not None else None
        frames[name] = run_study(config, progress=bar).frame
    return frames


def _fmt(value: object, digits: int = 2) -> str:
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return "n/a"
    return f"{value:+.{digits}f}"


def _ranking_rows(ranking: pl.DataFrame) -> list[dict[str, object]]:
    """The top metrics defined on every cell, plus the focus metrics wherever they rank."""
    finite = ranking.filter(pl.col("rank").is_not_null())
    most = max(finite["n"].to_list(), default=0)
    full = finite.filter(pl.col("n") == most)
    shown = [r for r in full.iter_rows(named=True)][:_TOP]
    names = {str(r["metric"]) for r in shown}
    shown += [
        r for r in full.iter_rows(named=True) if r["metric"] in _FOCUS and r["metric"] not in names
    ]
    return shown


def _ranking_table(overall: pl.DataFrame, within: pl.DataFrame) -> list[str]:
    w = {str(r["metric"]): r for r in within.iter_rows(named=True)}
    lines = [
        "| metric | ρ over the grid (95 % CI) | range over classifiers | ρ within k (95 % CI) |",
        "| :--- | ---: | ---: | ---: |",
    ]
    for r in _ranking_rows(overall):
        inner = w.get(str(r["metric"]))
        within_text = (
            f"{_fmt(inner['rho'])} ({_fmt(inner['low'])} to {_fmt(inner['high'])})"
            if inner is not None and inner["rank"] is not None
            else "n/a (constant within k)"
        )
        lines.append(
            f"| {r['label']} (`{r['metric']}`) | {_fmt(r['rho'])} "
            f"({_fmt(r['low'])} to {_fmt(r['high'])}) | {_fmt(r['rho_min'])} to "
            f"{_fmt(r['rho_max'])} | {within_text} |"
        )
    return lines


def _within_table(within: pl.DataFrame) -> list[str]:
    lines = [
        "| rank | metric | ρ within k (95 % CI) | range over classifiers | settings per k |",
        "| ---: | :--- | ---: | ---: | ---: |",
    ]
    finite = within.filter(pl.col("rank").is_not_null())
    most = max(finite["n"].to_list(), default=0)
    for r in finite.head(_TOP).iter_rows(named=True):
        where = f"{r['n']}" if r["n"] >= most else f"{r['n']} of {most}"
        lines.append(
            f"| {r['rank']} | {r['label']} (`{r['metric']}`) | {_fmt(r['rho'])} "
            f"({_fmt(r['low'])} to {_fmt(r['high'])}) | {_fmt(r['rho_min'])} to "
            f"{_fmt(r['rho_max'])} | {where} |"
        )
    return lines


def _accuracy_table(frame: pl.DataFrame, ks: Sequence[int]) -> list[str]:
    rows = cell_rows(frame)
    base = baseline_table(frame)
    classifiers = sorted(rows["classifier"].unique().to_list())
    lines = [
        "| classifier | original data | majority | "
        + " | ".join(f"k = {k}: best / worst cell" for k in ks)
        + " |",
        "| :--- | ---: | ---: | " + " | ".join("---:" for _ in ks) + " |",
    ]
    for clf in classifiers:
        b = base.filter(pl.col("classifier") == clf)
        orig = b.filter(pl.col("algorithm") == "original")["accuracy"].mean() if b.height else None
        maj = base.filter(pl.col("algorithm") == "majority")["accuracy"].mean()
        cells = []
        for k in ks:
            sub = rows.filter((pl.col("classifier") == clf) & (pl.col("k") == k))
            if sub.is_empty():
                cells.append("n/a")
                continue
            top = sub.sort("accuracy", descending=True).row(0, named=True)
            low = sub.sort("accuracy").row(0, named=True)
            cells.append(
                f"{top['accuracy']:.3f} ({top['cell']}) / {low['accuracy']:.3f} ({low['cell']})"
            )
        lines.append(f"| {clf} | {_num(orig)} | {_num(maj)} | " + " | ".join(cells) + " |")
    return lines


def _num(value: object) -> str:
    return f"{float(value):.3f}" if isinstance(value, (int, float)) else "n/a"


def render_markdown(frames: Mapping[str, pl.DataFrame], *, figures: Mapping[str, str]) -> str:
    """The results block of ``seed000.md``: per dataset, the rankings, accuracy and figures."""
    out: list[str] = []
    for name, frame in frames.items():
        rows = cell_rows(frame)
        n_cells = rows.select("k", "cell").unique().height
        n_folds = rows["fold"].n_unique()
        overall = rank_metrics(correlations(frame))
        within = rank_metrics(correlations(frame, within="k"))
        split = (
            "one train/test split"
            if n_folds == 1
            else f"{n_folds}-fold cross-validation (ρ is the mean over the folds; the grid "
            "interval is a t-interval across folds)"
        )
        out += [
            f"### {_TITLES.get(name, name)}",
            "",
            f"{n_cells} cells (requested k × algorithm setting) that reach their k, "
            f"{rows['classifier'].n_unique()} classifiers, {split}; test "
            "records recoded like the release. ρ is Spearman's correlation with accuracy, "
            "averaged over the classifiers (negative: more loss, less accuracy).",
            "",
            *_ranking_table(overall, within),
            "",
            "Within one k (which release of equal privacy keeps more accuracy), the best metrics:",
            "",
            *_within_table(within),
            "",
            "Accuracy on the recoded test split:",
            "",
            *_accuracy_table(frame, (10, 100, 1000)),
            "",
        ]
        for caption, file in figures.items():
            if file.startswith(f"seed000_{name}_"):
                out += [f"![{caption}]({file})", ""]
    return "\n".join(out).rstrip() + "\n"


def _figures(frames: Mapping[str, pl.DataFrame], folder: Path) -> dict[str, str]:
    from anonkit._atomic import atomic_write_text
    from anonkit.study.plots import accuracy_vs_k_svgs, metric_vs_accuracy_svg

    written: dict[str, str] = {}
    for name, frame in frames.items():
        if name not in ("adult", "synthetic"):
            continue
        charts = dict(accuracy_vs_k_svgs(frame, renderer="svg"))
        if charts:  # gradient boosting, the strongest of the three classifiers, if it ran
            clf = "hist_gradient_boosting" if "hist_gradient_boosting" in charts else min(charts)
            file = f"seed000_{name}_accuracy_vs_k.svg"
            atomic_write_text(folder / file, charts[clf])
            written[f"{name}: accuracy vs k ({clf})"] = file
        scatter = metric_vs_accuracy_svg(frame, "loss_conditional_entropy", renderer="svg")
        if scatter is not None:
            file = f"seed000_{name}_entropy_vs_accuracy.svg"
            atomic_write_text(folder / file, scatter)
            written[f"{name}: conditional entropy vs accuracy"] = file
    return written


def write_outputs(frames: Mapping[str, pl.DataFrame], folder: str | os.PathLike[str]) -> Path:
    """Write the figures and replace the results block of ``folder/seed000.md``."""
    from anonkit._atomic import replace_marked_block

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    figures = _figures(frames, out)
    page = out / "seed000.md"
    replace_marked_block(
        page,
        RESULTS_START,
        RESULTS_END,
        render_markdown(frames, figures=figures),
        title="# Does a loss metric predict classifier accuracy?",
    )
    return page


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anonkit.study.seed000 [--output DIR] [--workers N] [--from-results]``."""
    p = argparse.ArgumentParser(
        prog="python -m anonkit.study.seed000", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--output", default="docs/studies", help="folder of seed000.md")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument(
        "--from-results",
        action="store_true",
        help="only redraw from the existing results.csv files (no study run)",
    )
    args = p.parse_args(argv)
    if args.from_results:
        frames = {
            name: load_results(Path(args.output) / "seed000" / name / "results.csv")
            for name in DATASETS
        }
    else:
        frames = reproduce(args.output, workers=args.workers)
    print(write_outputs(frames, args.output))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
