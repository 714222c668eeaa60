"""The seed000 page's text: the answer paragraph and the results block, from the study's
tidy results (:mod:`anonkit.study.seed000` runs the studies and writes the page)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from anonkit.study.analysis import baseline_table, cell_rows, metric_columns
from anonkit.study.inference import (
    REFERENCE_METRIC,
    degenerate_summary,
    frontier,
    metric_differences,
    partial_correlations,
    regret,
    release_rows,
    within_k,
)
from anonkit.study.markdown import md_table

__all__ = [
    "ANSWER_END",
    "ANSWER_START",
    "DATASETS",
    "RESULTS_END",
    "RESULTS_START",
    "Analysis",
    "analyse",
    "render_answer",
    "render_markdown",
]

#: The studies of the write-up, in page order.
DATASETS = ("adult", "creditcard", "synthetic")
_TITLES = {
    "adult": "Adult (raw UCI file, non-quasi-identifier features kept)",
    "creditcard": "Credit card default (Taiwan, integer-coded)",
    "synthetic": "Synthetic census-like table",
}
RESULTS_START = "<!-- seed000:results:start -->"
RESULTS_END = "<!-- seed000:results:end -->"
ANSWER_START = "<!-- seed000:answer:start -->"
ANSWER_END = "<!-- seed000:answer:end -->"
_TOP = 8


def _fmt(value: object, digits: int = 2) -> str:
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return "n/a"
    return f"{value:+.{digits}f}"


def _ci(row: Mapping[str, Any], key: str, digits: int = 2) -> str:
    low, high = row.get("low"), row.get("high")
    if not isinstance(low, float) or not math.isfinite(low):
        return _fmt(row.get(key), digits)
    return f"{_fmt(row.get(key), digits)} ({_fmt(low, digits)} to {_fmt(high, digits)})"


def _metrics(frame: pl.DataFrame) -> list[str]:
    return [m for m in metric_columns(frame) if m != "k"]


def _by_metric(table: pl.DataFrame) -> dict[str, dict[str, Any]]:
    return {str(r["metric"]): r for r in table.iter_rows(named=True)}


#: Every table of one dataset's section, by name (see :func:`analyse`).
Analysis = dict[str, Any]


def analyse(frames: Mapping[str, pl.DataFrame]) -> dict[str, Analysis]:
    """Per dataset, the statistics its answer sentence and its results section read;
    compute them once and pass them to :func:`render_answer` and
    :func:`render_markdown`."""
    return {name: _analysis(frame) for name, frame in frames.items()}


def _analysis(frame: pl.DataFrame) -> Analysis:
    """Every table of one dataset's section."""
    metrics = _metrics(frame)
    rows = release_rows(frame)
    with_degenerate = release_rows(frame, degenerate="include")
    return {
        "rows": rows,
        "metrics": metrics,
        "within": within_k(rows, metrics),
        "within_bal": within_k(rows, metrics, outcome="balanced_accuracy"),
        "within_auc": within_k(rows, metrics, outcome="roc_auc"),
        "within_all": within_k(with_degenerate, metrics),
        "partial": partial_correlations(rows, metrics),
        "differences": metric_differences(rows, metrics),
        "regret": regret(rows, metrics),
        "regret_bal": regret(rows, metrics, outcome="balanced_accuracy"),
        "degenerate": degenerate_summary(frame),
    }


def _shown(ranked: pl.DataFrame, extra: Sequence[str]) -> list[str]:
    """The :data:`_TOP` first metrics of ``ranked`` and the ``extra`` ones it holds."""
    shown = ranked.head(_TOP)["metric"].to_list()
    shown += [m for m in extra if m not in shown and m in ranked["metric"].to_list()]
    return shown


def _within_table(a: Mapping[str, Any]) -> list[str]:
    others = {key: _by_metric(a[key]) for key in ("within_bal", "within_auc", "within_all")}
    partial = _by_metric(a["partial"])
    w = _by_metric(a["within"])
    rows = []
    for name in _shown(a["within"].filter(pl.col("n_splits") > 1), (REFERENCE_METRIC,)):
        r, p = w[name], partial.get(name, {})
        p_text = (
            f"{_fmt(p.get('partial'))} ({_fmt(p.get('low'))} to {_fmt(p.get('high'))})"
            if p
            else "n/a"
        )
        rest = [_fmt(others[key].get(name, {}).get("rho")) for key in others]
        rows.append([f"{r['label']} (`{name}`)", _ci(r, "rho"), *rest, p_text, r["n_groups"]])
    header = [
        "metric",
        "ρ accuracy (95 % CI over splits)",
        "ρ balanced acc.",
        "ρ ROC AUC",
        "ρ accuracy, degenerate cells in",
        "partial ρ \\| k, algorithm, split (95 % CI)",
        "groups",
    ]
    return md_table(header, rows, "l")


def _difference_table(a: Mapping[str, Any]) -> list[str]:
    diff: pl.DataFrame = a["differences"].filter(pl.col("n_splits") > 1)
    rows = [
        [
            f"{r['label']} (`{r['metric']}`)",
            f"{_fmt(r['difference'])} ({_fmt(r['low'])} to {_fmt(r['high'])})",
            f"{r['p']:.3f}",
            f"{r['p_holm']:.3f}",
        ]
        for r in diff.head(_TOP).iter_rows(named=True)
    ]
    header = ["metric", "Δ oriented ρ vs conditional entropy (95 % bootstrap CI)", "p", "p (Holm)"]
    return md_table(header, rows, "l")


def _regret_table(a: Mapping[str, Any]) -> list[str]:
    reg: pl.DataFrame = a["regret"].filter(pl.col("n_splits") > 1)
    bal = _by_metric(a["regret_bal"])
    r_by = _by_metric(reg)
    rows = []
    for name in _shown(reg, ("random", REFERENCE_METRIC)):
        r = r_by[name]
        b = bal.get(name, {}).get("regret", math.nan)
        rows.append(
            [
                f"{r['label']} (`{name}`)",
                f"{100 * r['regret']:.2f} ({100 * r['low']:.2f} to {100 * r['high']:.2f})",
                f"{100 * b:.2f}",
                r["n_groups"],
            ]
        )
    header = [
        "choose the release ranked best by",
        "accuracy regret, points (95 % CI)",
        "balanced-accuracy regret, points",
        "groups",
    ]
    return md_table(header, rows, "l")


def _degenerate_table(frame: pl.DataFrame, a: Mapping[str, Any]) -> list[str]:
    rows = [
        [
            r["classifier"],
            r["cells"],
            r["degenerate"],
            f"{100 * r['share']:.1f} %",
            r["by_algorithm"],
        ]
        for r in a["degenerate"].iter_rows(named=True)
    ]
    header = ["classifier", "cells", "single-class cells", "share", "by algorithm"]
    return md_table(header, rows, "lrrrl")


def _front_line(rows: pl.DataFrame) -> str:
    """The (k, setting) points on the privacy-utility front, lowest risk first."""
    if rows.is_empty():
        return ""
    clf = "hist_gradient_boosting"
    if clf not in rows["classifier"].to_list():
        clf = str(rows["classifier"][0])
    front = frontier(rows.filter(pl.col("classifier") == clf)).filter(pl.col("on_front"))
    points = [
        f"k = {r['k']} {r['cell']} (risk {r['average_risk']:.4f}, accuracy {r['accuracy']:.3f})"
        for r in front.sort("average_risk").iter_rows(named=True)
    ]
    return (
        f"**Privacy-utility front** ({clf}; mean over splits, degenerate cells included; "
        "average prosecutor risk = released classes / released records): "
        f"{'; '.join(points)}."
    )


def _checks_line(frame: pl.DataFrame) -> str:
    """What the statistics leave out and why: failed cells, releases below their k, and
    Incognito's releases against Flash's (both the optimum of the same metric)."""
    cells = frame.filter(
        (pl.col("evaluation") == "anonymized_test")
        & ~pl.col("algorithm").is_in(["original", "majority"])
    ).unique(["fold", "k", "cell"])
    out = []
    if "status" in cells.columns:
        failed = cells.filter(pl.col("status") != "ok")
        out.append(f"{failed.height} of {cells.height} cells failed")
    below = cells.filter(pl.col("effective_k") < pl.col("k"))
    if below.height:
        by = below.group_by("algorithm").len().sort("algorithm")
        names = ", ".join(f"{r['algorithm']} {r['len']}" for r in by.iter_rows(named=True))
        out.append(f"{below.height} releases miss their k and are left out ({names})")
    else:
        out.append("every release reaches its k")
    key = ["fold", "k", "suppression_limit"]
    inc = cells.filter((pl.col("algorithm") == "incognito") & (pl.col("variant") == "loss"))
    flash = cells.filter((pl.col("algorithm") == "flash") & (pl.col("variant") == "loss"))
    pairs = inc.select(*key, "release_id").join(
        flash.select(*key, pl.col("release_id").alias("flash_id")), on=key
    )
    if pairs.height:
        same = int((pairs["release_id"] == pairs["flash_id"]).sum())
        out.append(f"{same} of {pairs.height} Incognito releases are Flash's (loss)")
    return " Checks: " + "; ".join(out) + "."


#: The cell label of the study's MDAV setting (:mod:`anonkit.study.microaggregation`).
_MDAV = "microaggregation:mdav"


def _mdav_line(frame: pl.DataFrame) -> str:
    """MDAV's cells: how many reach their k, and their accuracy per k against the other
    settings (mean over splits, degenerate cells in); empty without MDAV cells."""
    mine = frame.filter(
        (pl.col("cell") == _MDAV) & (pl.col("evaluation") == "anonymized_test")
    ).unique(["fold", "k"])
    if mine.is_empty():
        return ""
    ok = mine.filter(pl.col("status") == "ok") if "status" in mine.columns else mine
    below = ok.filter(pl.col("effective_k") < pl.col("k")).height
    reached = ok.height - below
    reach = (
        f"all {reached} of its cells reach their k"
        if reached == mine.height
        else f"{reached} of its {mine.height} cells reach their k"
    )
    if ok.height < mine.height:
        reach += f" ({mine.height - ok.height} failed)"
    if ok.height:
        ratio = float(ok.select((pl.col("effective_k") / pl.col("k")).min()).item())
        reach += f" (smallest class over k: {ratio:.2f})"
    rows = cell_rows(frame)
    clf = "hist_gradient_boosting"
    if clf not in rows["classifier"].to_list() and rows.height:
        clf = str(rows["classifier"][0])
    means = (
        rows.filter(pl.col("classifier") == clf)
        .group_by("k", "cell")
        .agg(pl.col("accuracy").mean())
        .sort("k", "cell")
    )
    parts = []
    for (k,), at in means.partition_by("k", as_dict=True, maintain_order=True).items():
        own = at.filter(pl.col("cell") == _MDAV)["accuracy"]
        if own.is_empty():
            continue
        acc = float(own[0])
        rank = 1 + int((at["accuracy"] > acc).sum())
        best = float(at.select(pl.col("accuracy").max()).item())
        parts.append(f"k = {k}: {acc:.3f} (rank {rank} of {at.height}, best {best:.3f})")
    return (
        "**MDAV** (the numeric quasi-identifiers microaggregated, the categorical ones "
        f"released at the root of their hierarchy): {reach}. "
        f"Its {clf} accuracy on the recoded test half, mean over splits, rank among the "
        "settings of the same k (degenerate cells in): "
        + ("; ".join(parts) if parts else "none scored")
        + "."
    )


def _cpu_line(frame: pl.DataFrame) -> str:
    """The CPU time of the study's cells, as recorded when each was computed."""
    if "seconds_cpu" not in frame.columns:
        return ""
    cell = (
        pl.when(pl.col("algorithm").is_in(["original", "majority"]))
        .then(pl.lit("baselines"))
        .otherwise(pl.col("cell"))
    )
    cells = frame.with_columns(cell.alias("_cell")).unique(["fold", "k", "_cell"])
    cpu = float(cells["seconds_cpu"].fill_null(0.0).sum())
    return (
        f" The {cells.height:,} cells took {cpu / 60:.1f} min of CPU when they were computed "
        f"({cpu / 120:.1f} min over 2 cores)."
    )


def _baseline_line(frame: pl.DataFrame) -> str:
    base = baseline_table(frame)
    parts = []
    for r in base.filter(pl.col("algorithm") == "original").iter_rows(named=True):
        parts.append(f"{r['classifier']} {r['accuracy']:.3f}")
    majority = base.filter(pl.col("algorithm") == "majority")["accuracy"].mean()
    maj = f"{float(majority):.3f}" if isinstance(majority, float) else "n/a"
    return f"Accuracy on the original data: {', '.join(parts)}; majority class {maj}."


def render_markdown(
    frames: Mapping[str, pl.DataFrame],
    *,
    figures: Mapping[str, str],
    note: str = "",
    analyses: Mapping[str, Analysis] | None = None,
) -> str:
    """The results block of ``seed000.md``: per dataset, its tables and figures; ``note``
    (which run drew them) first; ``analyses`` from :func:`analyse` (computed here when not
    given)."""
    out: list[str] = [f"*{note}*", ""] if note else []
    analysed = analyses if analyses is not None else analyse(frames)
    for name, frame in frames.items():
        a = analysed[name]
        ok = cell_rows(frame)
        n_splits = ok["fold"].n_unique()
        rows: pl.DataFrame = a["rows"]
        releases = rows.select("fold", "k", "release_id").unique().height
        out += [
            f"### {_TITLES.get(name, name)}",
            "",
            f"{n_splits} train/test splits; {ok.select('k', 'cell').unique().height} "
            f"(k, algorithm setting) cells that reach their k; {releases} distinct releases "
            f"scored (identical releases of different settings count once); classifiers "
            f"{', '.join(sorted(ok['classifier'].unique().to_list()))}. "
            + _baseline_line(frame)
            + _checks_line(frame)
            + _cpu_line(frame),
            "",
        ]
        mdav = _mdav_line(frame)
        out += [mdav, ""] if mdav else []
        out += [
            "**Within k** (which release of equal k keeps more accuracy; degenerate cells "
            "left out unless said; ρ averaged over k and classifiers per split, interval "
            "across splits):",
            "",
            *_within_table(a),
            "",
            "**Tested differences** from conditional entropy (positive: the metric ranks "
            "releases more like accuracy does; bootstrap interval over splits, sign-flip "
            "test, Holm over metrics):",
            "",
            *_difference_table(a),
            "",
            "**Regret** (accuracy points lost by publishing the release the metric ranks "
            "best, against the best release of the same split, k and classifier):",
            "",
            *_regret_table(a),
            "",
            "**Degenerate cells** (every test record predicted as one class), reported apart:",
            "",
            *_degenerate_table(frame, a),
            "",
            _front_line(release_rows(frame, degenerate="include")),
            "",
        ]
        for caption, file in figures.items():
            if file.startswith(f"seed000_{name}_"):
                out += [f"![{caption}]({file})", ""]
    return "\n".join(out).rstrip() + "\n"


def render_answer(
    frames: Mapping[str, pl.DataFrame],
    *,
    cuts: str = "",
    analyses: Mapping[str, Analysis] | None = None,
) -> str:
    """The one-paragraph answer at the top of the page, from the numbers; ``cuts`` names
    what the design left out (it would change the answer too); ``analyses`` from
    :func:`analyse` (computed here when not given)."""
    analysed = analyses if analyses is not None else analyse(frames)
    parts: list[str] = []
    wins = 0
    splits = 0
    strengths: list[float] = []
    tops: list[str] = []
    per_k: list[float] = []  # distinct releases per (split, k), median per dataset
    for name in frames:
        a = analysed[name]
        within = a["within"].filter(pl.col("n_splits") > 1)
        if within.is_empty():
            continue
        splits = max(splits, int(within["n_splits"].max()))
        reg = _by_metric(a["regret"])
        # the best metric that can rank every release (alterations are undefined on
        # Mondrian's ranges and on MDAV's means, so they have no regret)
        ranked = [
            r
            for r in within.iter_rows(named=True)
            if math.isfinite(reg.get(str(r["metric"]), {}).get("regret", math.nan))
        ]
        top = ranked[0] if ranked else within.row(0, named=True)
        strengths.append(abs(float(top["rho"])))
        tops.append(str(top["label"]))
        counts = a["rows"].group_by("fold", "k").agg(pl.col("release_id").n_unique())
        per_k.append(float(counts["release_id"].median() or 0.0))
        names = within["metric"].to_list()
        ref = _by_metric(within).get(REFERENCE_METRIC)
        diff = _by_metric(a["differences"]).get(str(top["metric"]))
        if diff is not None and math.isfinite(diff["p_holm"]) and diff["p_holm"] < 0.05:
            wins += 1
        ref_text = (
            f"conditional entropy {_ci(ref, 'rho')} (rank {names.index(REFERENCE_METRIC) + 1} "
            f"of {len(names)})"
            if ref is not None
            else "conditional entropy undefined"
        )
        top_reg = reg.get(str(top["metric"]), {}).get("regret", math.nan)
        ref_reg = reg.get(REFERENCE_METRIC, {}).get("regret", math.nan)
        rnd = reg.get("random", {}).get("regret", math.nan)
        parts.append(
            f"on {name} the best metric defined on every release is {top['label']}, "
            f"ρ = {_ci(top, 'rho')}, against {ref_text}; "
            f"choosing by it loses {100 * top_reg:.1f} accuracy points against the best "
            f"release, by entropy {100 * ref_reg:.1f}, by a random pick {100 * rnd:.1f}"
        )
    if not parts:
        return "No study results yet.\n"
    strength = sorted(strengths)[len(strengths) // 2]  # the median dataset's best metric
    verdict = "weak" if strength < 0.4 else "moderate" if strength < 0.7 else "good"
    agree = (
        f"the same metric ranks first on every dataset ({tops[0]})"
        if len(set(tops)) == 1
        else "the metric that ranks first differs between datasets"
    )
    return (
        f"**Answer.** At equal k, the best information-loss metric is a {verdict} selector "
        "(median dataset) of the release that trains the most accurate classifier "
        "(within-k Spearman ρ with accuracy, mean over k and classifiers, 95 % interval "
        "over splits): "
        + "; ".join(parts)
        + f". The best metric beats conditional entropy after Holm correction on {wins} of "
        f"{len(parts)} datasets (sign-flip test over splits; its smallest possible p with "
        f"{splits} splits is {2 / 2**splits:.3f}). Uncertainty: the intervals come from "
        f"{splits} splits of repeated 2-fold cross-validation, which share records, so they "
        f"are narrower than exact coverage would give, and {agree}; degenerate "
        "(single-class) cells are left out and reported apart. What would change it: other "
        "quasi-identifier sets or hierarchies (each k compares a median of "
        f"{min(per_k):.0f} to {max(per_k):.0f} distinct releases per split), other "
        "classifiers"
        + (f", {cuts}" if cuts else "")
        + ", larger k (more releases collapse to the majority class), or a utility task "
        "other than predicting the class column.\n"
    )
