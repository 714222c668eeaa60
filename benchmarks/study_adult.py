"""The default Adult utility study, timed end to end (issue 6).

Runs :func:`anonkit.study.runner.run_study` with the default :class:`StudyConfig` (Adult,
target ``salary-class``, 8 quasi-identifiers, the 21 requested k of Mauger et al. 2020,
Flash/loss + strict Mondrian + greedy merging under the 7 costs, 3 classifiers, one
train/test split) into a fresh temporary folder, so no cell comes from a cache. Reports the
wall time (including writing ``results.csv``, ``study.json`` and ``report.html``) and the
per-stage split summed over cells (anonymize, metrics, utility). Target: ≤ 30 min.

Results go to stdout; ``--record`` rewrites this script's section of
``benchmarks/RESULTS.md``. Run from the repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/study_adult.py [--workers N] [--record]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

from anonkit.study.config import StudyConfig  # noqa: E402
from anonkit.study.runner import run_study  # noqa: E402

SECTION = "study_adult"
TITLE = "## The default Adult utility study (issue 6)"
TARGET = 30 * 60.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", type=int, default=None, help="processes (default: the cores)")
    p.add_argument("--k", default=None, help="comma-separated k (default: the 21 of the paper)")
    p.add_argument("--record", action="store_true", help="write the results to RESULTS.md")
    args = p.parse_args(argv)
    command = common.command_line()
    info = common.machine_info()
    with tempfile.TemporaryDirectory(prefix="anonkit-study-") as tmp:
        changes: dict[str, object] = {"output": Path(tmp), "workers": args.workers}
        if args.k:
            changes["k_values"] = tuple(int(k) for k in args.k.split(","))
        config = StudyConfig(**changes)  # type: ignore[arg-type]
        start = time.perf_counter()
        result = run_study(config, use_cache=False)
        wall = time.perf_counter() - start
    stages = {s: float(result.timing.get(s, 0.0)) for s in ("anonymize", "metrics", "utility")}
    summed = sum(stages.values())
    n_algorithms = len(config.algorithms or ())
    lines = [
        *common.section_preamble(TITLE, command, info),
        "",
        f"Setup: Adult, target `{config.target}`, {len(config.quasi_identifiers or ())} "
        f"quasi-identifiers, {len(config.k_values or ())} requested k × {n_algorithms} "
        f"algorithm settings ({', '.join(s.cell for s in config.algorithms or ())}) × "
        f"{len(config.classifiers)} classifiers ({', '.join(config.classifiers)}), "
        f"{config.folds} train/test split, {config.n_workers} worker process(es), no cache.",
        "",
        f"- Cells: {result.cells_total} ({result.cells_computed} computed, "
        f"{result.cells_failed} failed); rows in `results.csv`: {result.frame.height:,}.",
        f"- **Wall time: {common.fmt_seconds(wall)}** (target ≤ {TARGET / 60:g} min: "
        f"{'met' if wall <= TARGET else '**missed**'}), including writing the CSV, "
        "`study.json` and `report.html`.",
        "- Per stage, summed over cells (CPU-side seconds of the workers): "
        + ", ".join(
            f"{name} {common.fmt_seconds(sec)} ({100 * sec / summed:.0f} %)"
            for name, sec in stages.items()
        )
        + ".",
    ]
    body = "\n".join(lines) + "\n"
    print(body)
    if args.record:
        common.update_section(SECTION, body)
        print(f"wrote section {SECTION!r} of {common.RESULTS_PATH}", file=sys.stderr)
    return 0 if wall <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
