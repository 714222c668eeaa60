"""Where the cells of the seed 000 study spend their time (issue 21).

Runs every cell of one train/test split of ``anonkit.study.seed000``'s design (the full
design, or ``--quick``) in this process, dataset by dataset, and sums the CPU time
(``time.process_time``) of each stage: ``anonymize`` (the algorithm), ``metrics`` (every
loss metric and the seven cost-matrix alterations), ``recode`` (the test split written like
the release), ``encode`` (feature matrices), ``fit <classifier>`` (training, tuning
included) and ``predict`` (both test sets, labels and probabilities). Identical releases
are trained once, as in the study. The whole design runs ``n_splits`` such splits, so the
figures times the splits estimate its CPU time, and that over the cores its wall time on an
otherwise idle machine.

Results go to stdout; ``--record`` rewrites this script's section of
``benchmarks/RESULTS.md``. Run from the repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/study_cells.py [--quick] [--record]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

from anonkit.study import cells as cells_module  # noqa: E402
from anonkit.study import ml, seed000, seed000_page  # noqa: E402
from anonkit.study.cells import CellWorker  # noqa: E402
from anonkit.study.features import FeatureEncoder  # noqa: E402
from anonkit.study.grid import study_cells  # noqa: E402

SECTION = "study_cells"
TITLE = "## Where a seed 000 study cell spends its time (issue 21)"

CPU: dict[str, float] = defaultdict(float)


def _timed(label: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            CPU[label] += time.process_time() - start

    return run


class _TimedModel:
    """A classifier whose fit and predictions are timed (CPU) under their stage."""

    def __init__(self, model: Any, name: str) -> None:
        self._model = model
        self._name = name

    def fit(self, x: Any, y: Any) -> _TimedModel:
        _timed(f"fit {self._name}", self._model.fit)(x, y)
        return self

    def predict(self, x: Any) -> Any:
        return _timed("predict", self._model.predict)(x)

    def predict_proba(self, x: Any) -> Any:
        return _timed("predict", self._model.predict_proba)(x)


@contextmanager
def _instrumented() -> Iterator[None]:
    """Time the stages by wrapping the functions a cell calls (restored afterwards)."""
    make = ml.make_classifier
    saved = [
        (cells_module, "anonymize"),
        (cells_module, "evaluate"),
        (cells_module, "recode_test"),
        (CellWorker, "_alteration"),
        (FeatureEncoder, "fit"),
        (FeatureEncoder, "transform"),
        (ml, "make_classifier"),
    ]
    originals = [(owner, name, owner.__dict__[name]) for owner, name in saved]
    cells_module.anonymize = _timed("anonymize", cells_module.anonymize)  # type: ignore[attr-defined]
    cells_module.evaluate = _timed("metrics", cells_module.evaluate)  # type: ignore[attr-defined]
    cells_module.recode_test = _timed("recode", cells_module.recode_test)  # type: ignore[attr-defined]
    CellWorker._alteration = _timed("metrics", CellWorker._alteration)  # type: ignore[method-assign]
    fit = FeatureEncoder.fit.__func__  # type: ignore[attr-defined]
    FeatureEncoder.fit = classmethod(_timed("encode", fit))  # type: ignore[assignment,method-assign]
    FeatureEncoder.transform = _timed("encode", FeatureEncoder.transform)  # type: ignore[method-assign]

    def timed_classifier(name: str, **options: Any) -> _TimedModel:
        ml.make_classifier = make  # a tuned model builds its inner one unwrapped
        try:
            return _TimedModel(make(name, **options), name)
        finally:
            ml.make_classifier = timed_classifier  # type: ignore[assignment]

    ml.make_classifier = timed_classifier  # type: ignore[assignment]
    try:
        yield
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)


def _profile(name: str, config: Any, split: int) -> dict[str, Any]:
    CPU.clear()
    start = time.process_time()
    worker = CellWorker(config)
    load = time.process_time() - start
    cells = [c for c in study_cells(config) if c.fold == split]
    failed = 0
    with _instrumented():
        start = time.process_time()
        for cell in cells:
            outcome = worker.run(cell)
            if not outcome.ok:
                failed += 1
                print(f"  {cell.label}: {outcome.status}", file=sys.stderr)
        total = time.process_time() - start
    return {
        "dataset": name,
        "records": worker.data.frame.height,
        "train": int(worker.splits[split][0].shape[0]),
        "cells": len(cells),
        "failed": failed,
        "releases": len(worker._scored),
        "load_cpu": load,
        "cpu": total,
        "stages": dict(CPU),
        "splits": config.n_splits,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="the --quick design")
    p.add_argument("--datasets", default=",".join(seed000_page.DATASETS), help="comma-separated")
    p.add_argument("--split", type=int, default=0, help="which split to run (default 0)")
    p.add_argument("--sample", type=int, default=None, help="records per dataset (0: all)")
    p.add_argument("--tuning", choices=("on", "off"), default=None, help="override tuning")
    p.add_argument("--classifiers", default=None, help="override, comma-separated")
    p.add_argument("--data", default=None, help="shared data folder (adult/, highdim/)")
    p.add_argument("--record", action="store_true", help="write the results to RESULTS.md")
    args = p.parse_args(argv)
    command = common.command_line()
    info = common.machine_info()
    loads = [common.load_average()]
    rows = []
    with tempfile.TemporaryDirectory(prefix="anonkit-cells-") as tmp:
        configs = seed000.study_configs(tmp, workers=1, quick=args.quick, data=args.data)
        for name in args.datasets.split(","):
            config = configs[name].replace(cache=Path(tmp) / name / "cache")
            changes: dict[str, Any] = {}
            if args.sample is not None:
                changes["sample"] = args.sample or None
            if args.tuning is not None:
                changes["tuning"] = args.tuning == "on"
            if args.classifiers:
                changes["classifiers"] = tuple(args.classifiers.split(","))
            config = config.replace(**changes)
            print(
                f"{name}: {config.sample or 'all'} records, tuning {config.tuning}", file=sys.stderr
            )
            row = _profile(name, config, args.split)
            row["tuning"] = config.tuning
            row["classifiers"] = config.classifiers
            rows.append(row)
            print(f"  {row['cells']} cells, {row['releases']} releases trained, "
                  f"{row['cpu']:.1f} s CPU", file=sys.stderr)  # fmt: skip
    loads.append(common.load_average())
    stages = sorted({s for r in rows for s in r["stages"]})
    table = common.markdown_table(
        ["dataset", "records (train)", "cells", "releases trained", *stages, "split CPU",
         "design CPU (× splits)", "÷ 2 cores"],
        [
            [r["dataset"], f"{r['records']:,} ({r['train']:,})", r["cells"], r["releases"],
             *(f"{r['stages'].get(s, 0.0):.1f} s" for s in stages), f"{r['cpu']:.0f} s",
             f"{r['cpu'] * r['splits'] / 60:.1f} min", f"{r['cpu'] * r['splits'] / 120:.1f} min"]
            for r in rows
        ],
        "lrrr" + "r" * len(stages) + "rrr",
    )  # fmt: skip
    total = sum(r["cpu"] * r["splits"] for r in rows)
    design = "`--quick`" if args.quick else "full"
    lines = [
        *common.section_preamble(TITLE, command, info),
        f"- Load average (1 / 5 / 15 min) before / after: {loads[0]} / {loads[1]}",
        "",
        f"The cells of split {args.split} of the {design} seed 000 design, one process, CPU "
        "time per stage summed over the split's cells (`time.process_time`, so other "
        "processes' load does not count); tuning "
        f"{'on' if rows and rows[0]['tuning'] else 'off'}, classifiers "
        f"{', '.join(rows[0]['classifiers']) if rows else ''}.",
        "",
        table,
        "",
        f"Whole design, estimated from this split: {total / 60:.1f} min of CPU, "
        f"{total / 120:.1f} min on 2 otherwise idle cores (plus each worker's start, "
        "a few seconds).",
    ]
    body = "\n".join(lines) + "\n"
    print(body)
    if args.record:
        common.update_section(SECTION, body)
        print(f"wrote section {SECTION!r} of {common.RESULTS_PATH}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
