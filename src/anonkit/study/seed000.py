"""Seed 000's question, answered: does a loss metric predict classifier accuracy?

Seed 000 asks whether (conditional) entropy, or any information-loss metric, tells a data
holder how useful a k-anonymized table will be for training classifiers. The design
follows issue 21: repeated stratified splits (5x2 cross-validation), suppression limits
0 %, 1 % and 5 %, the k practitioners use (2 ... 100), every algorithm family anonkit has,
three datasets with their non-quasi-identifier features kept, three outcomes (accuracy,
balanced accuracy, ROC AUC), and statistics that control for k, algorithm and split
(:mod:`anonkit.study.inference`). The studies run through
:func:`anonkit.study.runner.run_study` (parallel, cached, resumable); this module writes
``docs/studies/seed000.md``'s answer paragraph and results block and its figures.

Run it with ``python -m anonkit.study.seed000 --output docs/studies [--quick]`` (or
``anonkit reproduce seed000 -o docs/studies`` for the full study). The written page keeps
its prose; only the blocks between the ``seed000:answer`` and ``seed000:results`` markers
are replaced.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from anonkit.study.analysis import baseline_table, cell_rows, load_results, metric_columns
from anonkit.study.config import StudyConfig
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
from anonkit.study.specs import AlgorithmSpec

__all__ = [
    "ANSWER_END",
    "ANSWER_START",
    "DATASETS",
    "RESULTS_END",
    "RESULTS_START",
    "default_data_folder",
    "render_answer",
    "render_markdown",
    "reproduce",
    "study_configs",
    "write_outputs",
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

#: The k practitioners use (issue 21).
K_VALUES: tuple[int, ...] = (2, 3, 5, 10, 20, 50, 100)
#: Suppression limits of the full-domain searches.
SUPPRESSION_LIMITS: tuple[float, ...] = (0.0, 0.01, 0.05)
#: Records per dataset in the full study (a sample: the full tables do not fit the budget).
FULL_SAMPLE = 3_000
#: Classifiers of the full study (random forests were cut for the time budget).
CLASSIFIERS: tuple[str, ...] = ("logistic_regression", "hist_gradient_boosting")

_ADULT_QI = (
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
)
#: Adult's kept features: the raw file's other columns, except ``fnlwgt`` (a survey
#: weight, not an attribute of the person) and ``education-num`` (a one-to-one recoding of
#: the quasi-identifier ``education``: keeping it would undo education's generalization).
ADULT_FEATURES = ("relationship", "capital-gain", "capital-loss", "hours-per-week")
#: Credit card: the demographic columns are the quasi-identifiers, the payment history the
#: features (integer codes of ARX's benchmark, read as numbers).
CREDITCARD_QI = ("SEX", "EDUCATION", "MARRIAGE", "AGE", "LIMIT_BAL")
CREDITCARD_FEATURES = tuple(
    [f"PAY_{i}" for i in (0, 2, 3, 4, 5, 6)]
    + [f"BILL_AMT{i}" for i in range(1, 7)]
    + [f"PAY_AMT{i}" for i in range(1, 7)]
)
CREDITCARD_TARGET = "default-payment-next-month"


def default_data_folder() -> Path:
    """``$ANONKIT_SHARED_DATA``, else ``../shared/data`` from the working directory."""
    return Path(os.environ.get("ANONKIT_SHARED_DATA", str(Path.cwd().parent / "shared" / "data")))


def _full_domain(metrics: Sequence[str]) -> list[AlgorithmSpec]:
    return [AlgorithmSpec("flash", m) for m in metrics]


def _algorithms(name: str, quick: bool) -> tuple[AlgorithmSpec, ...]:
    if quick:
        specs = [
            *_full_domain(("loss", "nonuniform_entropy")),
            AlgorithmSpec("datafly", "loss"),
            AlgorithmSpec("incognito", "loss"),
            AlgorithmSpec("mondrian", "strict"),
            AlgorithmSpec("mondrian", "relaxed"),
        ]
        if name == "adult":
            specs.append(AlgorithmSpec("greedy_merge", "nllm"))
        if name == "synthetic":
            specs.append(AlgorithmSpec("microaggregation", "mdav"))
        return tuple(specs)
    specs = [
        *_full_domain(("loss", "discernibility", "nonuniform_entropy")),
        AlgorithmSpec("datafly", "loss"),
        AlgorithmSpec("incognito", "loss"),  # equal optimum to Flash's: scored once
        AlgorithmSpec("lightning", "loss"),
        AlgorithmSpec("mondrian", "strict"),
        AlgorithmSpec("mondrian", "relaxed"),
    ]
    if name == "adult":
        from anonkit.metrics.cost_matrix import COST_FUNCTIONS

        specs += [AlgorithmSpec("greedy_merge", c) for c in COST_FUNCTIONS]
    if name == "synthetic":
        specs.append(AlgorithmSpec("microaggregation", "mdav"))
    return tuple(specs)


def study_configs(
    folder: str | os.PathLike[str],
    *,
    workers: int | None = None,
    quick: bool = False,
    data: str | os.PathLike[str] | None = None,
) -> dict[str, StudyConfig]:
    """The three studies (see the module docstring); results in
    ``folder/seed000/<dataset>/`` (``folder/seed000-quick/`` with ``quick``).

    Full: :data:`FULL_SAMPLE`-record samples, 5x2 cross-validation. ``quick``: 3,000-record
    samples, 2x2 cross-validation, k = 2, 10, 50, limits 0 and 5 %
    and fewer algorithms (minutes instead of an hour). ``data`` is the shared data folder
    holding ``adult/`` and ``highdim/`` (default :func:`default_data_folder`).
    """
    base = Path(data) if data is not None else default_data_folder()
    root = Path(folder) / ("seed000-quick" if quick else "seed000")
    common: dict[str, Any] = {
        "folds": 2,
        "repeats": 2 if quick else 5,
        "k_values": (2, 10, 50) if quick else K_VALUES,
        "suppression_limits": (0.0, 0.05) if quick else SUPPRESSION_LIMITS,
        "classifiers": CLASSIFIERS,
        "workers": workers,
        "sample": 3000 if quick else FULL_SAMPLE,
    }
    adult_dir = base / "adult"
    adult = StudyConfig(
        dataset=str(adult_dir / "adult_full.csv"),
        separator=",",
        missing=("", "?"),
        target="salary-class",
        quasi_identifiers=_ADULT_QI,
        numeric=("age",),
        features=ADULT_FEATURES,
        hierarchies={c: str(adult_dir / f"adult_hierarchy_{c}.csv") for c in _ADULT_QI},
        algorithms=_algorithms("adult", quick),
        output=root / "adult",
        **common,
    )
    high = base / "highdim"
    credit = StudyConfig(
        dataset=str(high / "creditcard_int.csv"),
        separator=";",
        target=CREDITCARD_TARGET,
        quasi_identifiers=CREDITCARD_QI,
        numeric=(),
        features=CREDITCARD_FEATURES,
        hierarchies={c: str(high / f"creditcard_int_hierarchy_{c}.csv") for c in CREDITCARD_QI},
        algorithms=_algorithms("creditcard", quick),
        output=root / "creditcard",
        **common,
    )
    synthetic = StudyConfig(
        dataset="synthetic",
        algorithms=_algorithms("synthetic", quick),
        output=root / "synthetic",
        **common,
    )
    return {"adult": adult, "creditcard": credit, "synthetic": synthetic}


def reproduce(
    folder: str | os.PathLike[str],
    *,
    workers: int | None = None,
    progress: Callable[[str], Callable[[int, int], None] | None] | None = None,
    quick: bool = False,
    data: str | os.PathLike[str] | None = None,
) -> dict[str, pl.DataFrame]:
    """Run (or resume) the three studies; returns each dataset's tidy results.

    ``progress(dataset)`` may return a ``progress(done, total)`` callback for that study.
    """
    from anonkit.study.runner import run_study

    frames: dict[str, pl.DataFrame] = {}
    configs = study_configs(folder, workers=workers, quick=quick, data=data)
    for name, config in configs.items():
        bar = progress(name) if progress is not None else None
        frames[name] = run_study(config, progress=bar).frame
    return frames


# ------------------------------------------------------------------------ rendering
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


def _analysis(frame: pl.DataFrame) -> dict[str, Any]:
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


def _within_table(a: Mapping[str, Any]) -> list[str]:
    within: pl.DataFrame = a["within"]
    others = {key: _by_metric(a[key]) for key in ("within_bal", "within_auc", "within_all")}
    partial = _by_metric(a["partial"])
    ranked = within.filter(pl.col("n_splits") > 1)
    shown = ranked.head(_TOP)["metric"].to_list()
    if REFERENCE_METRIC not in shown and REFERENCE_METRIC in ranked["metric"].to_list():
        shown.append(REFERENCE_METRIC)
    w = _by_metric(within)
    lines = [
        "| metric | ρ accuracy (95 % CI over splits) | ρ balanced acc. | ρ ROC AUC | "
        "ρ accuracy, degenerate cells in | partial ρ \\| k, algorithm, split (95 % CI) | groups |",
        "| :--- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in shown:
        r = w[name]
        bal = others["within_bal"].get(name, {})
        auc = others["within_auc"].get(name, {})
        inc = others["within_all"].get(name, {})
        p = partial.get(name, {})
        p_text = (
            f"{_fmt(p.get('partial'))} ({_fmt(p.get('low'))} to {_fmt(p.get('high'))})"
            if p
            else "n/a"
        )
        lines.append(
            f"| {r['label']} (`{name}`) | {_ci(r, 'rho')} | {_fmt(bal.get('rho'))} | "
            f"{_fmt(auc.get('rho'))} | {_fmt(inc.get('rho'))} | {p_text} | {r['n_groups']} |"
        )
    return lines


def _difference_table(a: Mapping[str, Any]) -> list[str]:
    diff: pl.DataFrame = a["differences"].filter(pl.col("n_splits") > 1)
    lines = [
        "| metric | Δ oriented ρ vs conditional entropy (95 % bootstrap CI) | p | p (Holm) |",
        "| :--- | ---: | ---: | ---: |",
    ]
    for r in diff.head(_TOP).iter_rows(named=True):
        lines.append(
            f"| {r['label']} (`{r['metric']}`) | {_fmt(r['difference'])} "
            f"({_fmt(r['low'])} to {_fmt(r['high'])}) | {r['p']:.3f} | {r['p_holm']:.3f} |"
        )
    return lines


def _regret_table(a: Mapping[str, Any]) -> list[str]:
    reg: pl.DataFrame = a["regret"].filter(pl.col("n_splits") > 1)
    bal = _by_metric(a["regret_bal"])
    shown = reg.head(_TOP)["metric"].to_list()
    for extra in ("random", REFERENCE_METRIC):
        if extra not in shown and extra in reg["metric"].to_list():
            shown.append(extra)
    r_by = _by_metric(reg)
    lines = [
        "| choose the release ranked best by | accuracy regret, points (95 % CI) | "
        "balanced-accuracy regret, points | groups |",
        "| :--- | ---: | ---: | ---: |",
    ]
    for name in shown:
        r = r_by[name]
        b = bal.get(name, {}).get("regret", math.nan)
        lines.append(
            f"| {r['label']} (`{name}`) | {100 * r['regret']:.2f} "
            f"({100 * r['low']:.2f} to {100 * r['high']:.2f}) | {100 * b:.2f} | {r['n_groups']} |"
        )
    return lines


def _degenerate_table(frame: pl.DataFrame, a: Mapping[str, Any]) -> list[str]:
    lines = [
        "| classifier | cells | single-class cells | share | by algorithm |",
        "| :--- | ---: | ---: | ---: | :--- |",
    ]
    for r in a["degenerate"].iter_rows(named=True):
        lines.append(
            f"| {r['classifier']} | {r['cells']} | {r['degenerate']} | "
            f"{100 * r['share']:.1f} % | {r['by_algorithm']} |"
        )
    return lines


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


def _baseline_line(frame: pl.DataFrame) -> str:
    base = baseline_table(frame)
    parts = []
    for r in base.filter(pl.col("algorithm") == "original").iter_rows(named=True):
        parts.append(f"{r['classifier']} {r['accuracy']:.3f}")
    majority = base.filter(pl.col("algorithm") == "majority")["accuracy"].mean()
    maj = f"{float(majority):.3f}" if isinstance(majority, float) else "n/a"
    return f"Accuracy on the original data: {', '.join(parts)}; majority class {maj}."


def render_markdown(
    frames: Mapping[str, pl.DataFrame], *, figures: Mapping[str, str], note: str = ""
) -> str:
    """The results block of ``seed000.md``: per dataset, its tables and figures; ``note``
    (which run drew them) first."""
    out: list[str] = [f"*{note}*", ""] if note else []
    for name, frame in frames.items():
        a = _analysis(frame)
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
            f"{', '.join(sorted(ok['classifier'].unique().to_list()))}. " + _baseline_line(frame),
            "",
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


def render_answer(frames: Mapping[str, pl.DataFrame]) -> str:
    """The one-paragraph answer at the top of the page, from the numbers."""
    parts: list[str] = []
    wins = 0
    splits = 0
    strengths: list[float] = []
    for name, frame in frames.items():
        a = _analysis(frame)
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
    return (
        f"**Answer.** At equal k, the best information-loss metric is a {verdict} selector "
        "(median dataset) of the release that trains the most accurate classifier "
        "(within-k Spearman ρ with accuracy, mean over k and classifiers, 95 % interval "
        "over splits): "
        + "; ".join(parts)
        + f". The best metric beats conditional entropy after Holm correction on {wins} of "
        f"{len(parts)} datasets (sign-flip test over splits; its smallest possible p with "
        f"{splits} splits is {2 / 2**splits:.3f}). Uncertainty: the intervals come from "
        f"{splits} splits of "
        "repeated 2-fold cross-validation, which share records, so they are narrower than "
        "exact coverage would give, and the metric ranking changes between datasets; "
        "degenerate (single-class) cells are left out and reported apart. What would change "
        "it: other quasi-identifier sets or hierarchies (few releases differ within k), "
        "tuned or other classifiers (tuning and random forests were cut for time), larger k "
        "(more releases collapse to the majority class), or a utility task other than "
        "predicting the class column.\n"
    )


def _figures(frames: Mapping[str, pl.DataFrame], folder: Path) -> dict[str, str]:
    from anonkit._atomic import atomic_write_text
    from anonkit.study.plots import Reference, Series, line_chart_svg, scatter_svg

    written: dict[str, str] = {}
    for name, frame in frames.items():
        rows = release_rows(frame, degenerate="include")
        if rows.is_empty():
            continue
        clf = "hist_gradient_boosting" if "hist_gradient_boosting" in rows["classifier"] else None
        clf = clf or str(rows["classifier"][0])
        part = rows.filter(pl.col("classifier") == clf)
        means = (
            part.group_by(["algorithm", "k"])
            .agg(pl.col("accuracy").mean())
            .sort(["algorithm", "k"])
        )
        series = [
            Series(str(alg), tuple(map(float, p["k"])), tuple(map(float, p["accuracy"])))
            for (alg,), p in means.partition_by("algorithm", as_dict=True).items()
        ]
        base = baseline_table(frame)
        refs = [
            Reference("original data", float(v))
            for v in base.filter(
                (pl.col("algorithm") == "original") & (pl.col("classifier") == clf)
            )["accuracy"].head(1)
        ]
        majority = base.filter(pl.col("algorithm") == "majority")["accuracy"]
        if majority.len():
            refs.append(Reference("majority class", float(majority.mean())))  # type: ignore[arg-type]
        file = f"seed000_{name}_accuracy_vs_k.svg"
        atomic_write_text(
            folder / file,
            line_chart_svg(
                series,
                title=f"{name}: accuracy vs k ({clf}, mean over splits and settings)",
                xlabel="requested k (log scale)",
                ylabel="accuracy",
                log_x=True,
                references=refs,
            ),
        )
        written[f"{name}: accuracy vs k by algorithm ({clf})"] = file
        # every release is a point of the front, degenerate ones included: a release on
        # which classifiers fall back on the majority class has that accuracy
        front = frontier(
            release_rows(frame, degenerate="include").filter(pl.col("classifier") == clf)
        )
        if front.height:
            on = front.filter(pl.col("on_front"))
            off = front.filter(~pl.col("on_front"))
            svg = scatter_svg(
                [
                    Series(
                        "release (k, setting)",
                        tuple(map(float, off["average_risk"])),
                        tuple(map(float, off["accuracy"])),
                    ),
                    Series(
                        "Pareto front",
                        tuple(map(float, on["average_risk"])),
                        tuple(map(float, on["accuracy"])),
                    ),
                ],
                title=f"{name}: accuracy vs average re-identification risk ({clf})",
                xlabel="average prosecutor risk (log scale)",
                ylabel="accuracy",
                log_x=True,
            )
            file = f"seed000_{name}_frontier.svg"
            atomic_write_text(folder / file, svg)
            written[f"{name}: privacy-utility frontier ({clf})"] = file
    return written


def write_outputs(
    frames: Mapping[str, pl.DataFrame], folder: str | os.PathLike[str], *, note: str = ""
) -> Path:
    """Write the figures and replace the answer and results blocks of
    ``folder/seed000.md`` (``note``: which run drew them, shown above the results)."""
    from anonkit._atomic import replace_marked_block

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    figures = _figures(frames, out)
    page = out / "seed000.md"
    title = "# Does a loss metric predict classifier accuracy?"
    replace_marked_block(page, ANSWER_START, ANSWER_END, render_answer(frames), title=title)
    replace_marked_block(
        page,
        RESULTS_START,
        RESULTS_END,
        render_markdown(frames, figures=figures, note=note),
        title=title,
    )
    return page


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anonkit.study.seed000 [--output DIR] [--quick] [--from-results]``."""
    p = argparse.ArgumentParser(
        prog="python -m anonkit.study.seed000", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--output", default="docs/studies", help="folder of seed000.md")
    p.add_argument("--data", default=None, help="shared data folder (adult/, highdim/)")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--quick", action="store_true", help="small samples and grid (minutes)")
    p.add_argument(
        "--from-results",
        action="store_true",
        help="only redraw from the existing results.csv files (no study run)",
    )
    p.add_argument(
        "--from-cache",
        action="store_true",
        help="only redraw from the cells already cached (a study still running or cut)",
    )
    args = p.parse_args(argv)
    start = time.perf_counter()
    kind = "quick study (--quick)" if args.quick else "full study"
    note = f"Results of the {kind}."
    if args.from_cache:
        from anonkit.study.runner import cached_results

        frames = {}
        configs = study_configs(args.output, quick=args.quick, data=args.data)
        sources = []
        for name, config in configs.items():
            frame, found, total = cached_results(config)
            splits = frame["fold"].n_unique() if found else 0
            quick_csv = Path(args.output) / "seed000-quick" / name / "results.csv"
            if splits >= 2:
                frames[name] = frame
                sources.append(f"{name}: {kind}, {splits} of {config.n_splits} splits")
            elif not args.quick and quick_csv.is_file():
                frames[name] = load_results(quick_csv)
                sources.append(f"{name}: quick study ({kind} not cached yet)")
        note = "Results drawn from cached cells; " + "; ".join(sources) + "."
        print(note)
    elif args.from_results:
        root = Path(args.output) / ("seed000-quick" if args.quick else "seed000")
        frames = {
            name: load_results(root / name / "results.csv")
            for name in DATASETS
            if (root / name / "results.csv").is_file()
        }
    else:
        frames = reproduce(args.output, workers=args.workers, quick=args.quick, data=args.data)
    print(write_outputs(frames, args.output, note=note))
    print(f"wall: {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
