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
are replaced. A ``--quick`` run writes its page into ``seed000-quick/`` beside its studies
and leaves the full study's page alone.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from anonkit.datasets import ADULT_COLUMNS
from anonkit.metrics.cost_matrix import COST_FUNCTIONS
from anonkit.study.analysis import baseline_table, load_results
from anonkit.study.config import StudyConfig
from anonkit.study.inference import frontier, release_rows
from anonkit.study.markdown import with_marked_blocks
from anonkit.study.plots import Reference, Series, line_chart_svg, scatter_svg
from anonkit.study.runner import cached_results, run_study
from anonkit.study.seed000_page import (
    ANSWER_END,
    ANSWER_START,
    DATASETS,
    RESULTS_END,
    RESULTS_START,
    analyse,
    render_answer,
    render_markdown,
)
from anonkit.study.specs import AlgorithmSpec
from anonkit.study.staging import staged_files

__all__ = [
    "default_data_folder",
    "page_folder",
    "reproduce",
    "study_configs",
    "write_outputs",
]

#: The k practitioners use (issue 21).
K_VALUES: tuple[int, ...] = (2, 3, 5, 10, 20, 50, 100)
#: Suppression limits of the full-domain searches.
SUPPRESSION_LIMITS: tuple[float, ...] = (0.0, 0.01, 0.05)
#: Records per dataset in the full study (a sample: the whole tables do not fit the budget;
#: see the page's "Budget and what was cut").
FULL_SAMPLE = 3_000
#: Classifiers, tuned on their small grids inside each training split (random forests are
#: not run: tuned, they cost more than the other two together; see the page's budget).
CLASSIFIERS: tuple[str, ...] = ("logistic_regression", "hist_gradient_boosting")
#: What the design leaves out that could change the answer (the answer paragraph says so).
CUTS = (
    "random forests (not run) or the whole tables instead of 3,000-record samples (beyond "
    "the time budget; see 'Budget and what was cut')"
)

#: Adult's quasi-identifiers: the ARX Adult set's columns but the class.
_ADULT_QI = tuple(c for c in ADULT_COLUMNS if c != "salary-class")
#: Adult's kept features: the raw file's other columns, except ``fnlwgt`` (a survey
#: weight, not an attribute of the person) and ``education-num`` (a one-to-one recoding of
#: the quasi-identifier ``education``: keeping it would undo education's generalization).
ADULT_FEATURES = ("relationship", "capital-gain", "capital-loss", "hours-per-week")
#: Credit card: the demographic columns are the quasi-identifiers, the payment history the
#: features (integer codes of ARX's benchmark, read as numbers). The benchmark's authors
#: mapped every value to a random integer (its README; the leaves under one level-1 node
#: of the AGE hierarchy are codes such as 0, 10, 15, 18, 25), so no quasi-identifier is
#: numeric: Mondrian reads AGE and LIMIT_BAL through their hierarchies, and MDAV, which
#: needs distances between values, does not run on this table.
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


def _algorithms(quick: bool, *, numeric: bool = True) -> tuple[AlgorithmSpec, ...]:
    """The algorithm settings of a dataset: the issue's list (see the page's design
    table); ``quick`` keeps one or two settings per family. MDAV only where ``numeric``:
    it needs a numeric quasi-identifier to aggregate."""
    if quick:
        specs = [AlgorithmSpec("flash", m) for m in ("loss", "nonuniform_entropy")]
        specs += [AlgorithmSpec(a, "loss") for a in ("datafly", "incognito")]
        costs: tuple[str, ...] = ("nllm",)
    else:
        metrics = ("loss", "discernibility", "nonuniform_entropy")
        specs = [AlgorithmSpec("flash", m) for m in metrics]
        # Incognito reaches Flash's optimum (a check: its release is scored once);
        # Lightning and the top-down search stand for the heuristic searches
        searches = ("datafly", "incognito", "lightning", "topdown")
        specs += [AlgorithmSpec(a, "loss") for a in searches]
        costs = COST_FUNCTIONS
    specs += [AlgorithmSpec("mondrian", m) for m in ("strict", "relaxed")]
    specs += [AlgorithmSpec("greedy_merge", c) for c in costs]
    if numeric:
        # MDAV on the numeric quasi-identifiers, the categorical ones at their root: a
        # release k-anonymous over all of them (anonkit.study.microaggregation)
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

    Full: :data:`FULL_SAMPLE`-record samples, 5x2 cross-validation, the k of
    :data:`K_VALUES`, the limits of :data:`SUPPRESSION_LIMITS`, every algorithm setting of
    the issue (MDAV on Adult and the synthetic table, which have numeric
    quasi-identifiers), the :data:`CLASSIFIERS` tuned inside each training split. ``quick``:
    3,000-record samples, 2x2 cross-validation, k = 2, 10, 50, limits 0 and 5 % and one or
    two settings per algorithm family (minutes instead of an hour). ``data`` is the shared
    data folder holding ``adult/`` and ``highdim/`` (default :func:`default_data_folder`).
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
        "tuning": True,
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
        output=root / "adult",
        algorithms=_algorithms(quick),
        **common,
    )
    high = base / "highdim"
    credit = StudyConfig(
        dataset=str(high / "creditcard_int.csv"),
        separator=";",
        target=CREDITCARD_TARGET,
        quasi_identifiers=CREDITCARD_QI,
        # no numeric quasi-identifier: AGE and LIMIT_BAL are random integer codes
        numeric=(),
        features=CREDITCARD_FEATURES,
        hierarchies={c: str(high / f"creditcard_int_hierarchy_{c}.csv") for c in CREDITCARD_QI},
        output=root / "creditcard",
        algorithms=_algorithms(quick, numeric=False),
        **common,
    )
    synthetic = StudyConfig(
        dataset="synthetic",
        output=root / "synthetic",
        algorithms=_algorithms(quick),
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
    frames: dict[str, pl.DataFrame] = {}
    configs = study_configs(folder, workers=workers, quick=quick, data=data)
    for name, config in configs.items():
        bar = progress(name) if progress is not None else None
        frames[name] = run_study(config, progress=bar).frame
    return frames


# ------------------------------------------------------------------------ rendering
def _figures(frames: Mapping[str, pl.DataFrame]) -> dict[str, tuple[str, str]]:
    """The figures of the page: caption -> (file name, SVG), not written yet."""
    drawn: dict[str, tuple[str, str]] = {}
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
        svg = line_chart_svg(
            series,
            title=f"{name}: accuracy vs k ({clf}, mean over splits and settings)",
            xlabel="requested k (log scale)",
            ylabel="accuracy",
            log_x=True,
            references=refs,
        )
        drawn[f"{name}: accuracy vs k by algorithm ({clf})"] = (
            f"seed000_{name}_accuracy_vs_k.svg",
            svg,
        )
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
            caption = f"{name}: privacy-utility frontier ({clf})"
            drawn[caption] = (f"seed000_{name}_frontier.svg", svg)
    return drawn


def page_folder(folder: str | os.PathLike[str], quick: bool) -> Path:
    """Where a run writes ``seed000.md`` and its figures: ``folder``, or for a quick run
    ``folder/seed000-quick`` beside its studies, so that it never replaces the full
    study's page."""
    return Path(folder) / "seed000-quick" if quick else Path(folder)


def write_outputs(
    frames: Mapping[str, pl.DataFrame],
    folder: str | os.PathLike[str],
    *,
    note: str = "",
    cuts: str = CUTS,
) -> Path:
    """Write the figures and replace the answer and results blocks of
    ``folder/seed000.md`` (``note``: which run drew them, shown above the results;
    ``cuts``: what the design left out, named in the answer). The figures and the page
    are written together (:func:`anonkit.study.staging.staged_files`): an interruption
    leaves the previous page and the figures it links as they were."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    page = out / "seed000.md"
    title = "# Does a loss metric predict classifier accuracy?"
    with staged_files() as stage:
        drawn = _figures(frames)
        for file, svg in drawn.values():
            stage(out / file).write_text(svg, encoding="utf-8")
        figures = {caption: file for caption, (file, _) in drawn.items()}
        analysed = analyse(frames)  # the answer and the results read the same statistics
        answer = render_answer(frames, cuts=cuts, analyses=analysed)
        results = render_markdown(frames, figures=figures, note=note, analyses=analysed)
        blocks = [(ANSWER_START, ANSWER_END, answer), (RESULTS_START, RESULTS_END, results)]
        stage(page).write_text(with_marked_blocks(page, blocks, title=title), encoding="utf-8")
    return page


def _text_progress(name: str) -> Callable[[int, int], None]:
    """A progress callback writing ``name: done/total cells`` to stderr, at most every
    5 % and at the end (``anonkit reproduce seed000`` draws a bar instead)."""
    shown = [-1]

    def report(done: int, total: int) -> None:
        step = max(1, total // 20)
        if done == total or done // step != shown[0] // step:
            shown[0] = done
            print(f"{name}: {done}/{total} cells", file=sys.stderr, flush=True)

    return report


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
        frames = reproduce(
            args.output,
            workers=args.workers,
            progress=_text_progress,
            quick=args.quick,
            data=args.data,
        )
    print(write_outputs(frames, page_folder(args.output, args.quick), note=note))
    print(f"wall: {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
