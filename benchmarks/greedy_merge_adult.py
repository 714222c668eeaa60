"""Greedy class merging with cost matrices on Adult (issue 4; Mauger et al. 2020).

The grid of the paper: 21 requested k from 2 to 15,000 x the seven optimization functions
(Distortion, NCP, Total, LLM, NLLM, WLLM, WNLLM), on Adult with the paper's nine
quasi-identifiers. Each run starts from the original table. The grid itself, the tables of
the paper's Figures 6-8 (percentage of alteration with ranks, beside the paper's numbers)
and Figure 9 (effective k) come from :mod:`anonkit.study.mauger2020`; this script adds the
timings (per run: ``GreedyMerge.fit`` wall time, i.e. grouping, merging and all measures)
and records them. Target: the whole grid in <= 15 minutes.

Worker processes are started with the *spawn* method: the parent has already run polars
(reading and encoding the table), and a child forked from it blocked forever in its first
polars call (polars' thread pool does not survive ``fork``), which hung ``--workers 2``.

Run from the repository root (prints only; ``--record`` writes benchmarks/RESULTS.md)::

    PYTHONPATH=src .venv/bin/python benchmarks/greedy_merge_adult.py --workers 2 --record

``--ab-loops`` instead times the compiled merge loop (numba, the default when no progress
callback listens) against the Python loop, interleaved in one process on the same cells
under random orders, and prints the per-cell ratios (issue 21: the study under 30 orders
needs the runs to be cheap); it checks that both give the same release::

    PYTHONPATH=src nice -n 15 .venv/bin/python benchmarks/greedy_merge_adult.py --ab-loops
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

from anonkit.algorithms.greedy_merge import (  # noqa: E402
    PAPER_ADULT_COLUMNS,
    PAPER_K_VALUES,
    SMALL_CLASS_CHOICES,
)
from anonkit.metrics.cost_matrix import COST_FUNCTIONS  # noqa: E402
from anonkit.study.mauger2020 import LABELS, Reproduction, reproduce  # noqa: E402

SECTION = "greedy_merge_adult"
TITLE = "## Greedy class merging with cost matrices on Adult (issue 4, Mauger et al. 2020)"
GRID_TARGET = 15 * 60.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument(
        "--k",
        default=",".join(str(k) for k in PAPER_K_VALUES),
        help="comma-separated requested k (default: the paper's 21 values)",
    )
    p.add_argument(
        "--costs",
        default=",".join(COST_FUNCTIONS),
        help="comma-separated optimization functions (default: all seven)",
    )
    p.add_argument("--small-class", default="first", choices=SMALL_CLASS_CHOICES)
    p.add_argument(
        "--ab-loops",
        action="store_true",
        help="time the compiled merge loop against the Python loop (print only)",
    )
    p.add_argument("--repeats", type=int, default=3, help="seeds per cell for --ab-loops")
    p.add_argument("--workers", type=int, default=1, help="processes (default: 1)")
    p.add_argument(
        "--data", default=None, help="Adult CSV (';'-separated; default: the bundled copy)"
    )
    p.add_argument("--csv", default=None, help="also write one row per run to this CSV file")
    p.add_argument(
        "--record",
        action="store_true",
        help="write this script's section of the results file (default: print only)",
    )
    p.add_argument(
        "--output",
        default=str(common.RESULTS_PATH),
        help="results file for --record (default: benchmarks/RESULTS.md)",
    )
    args = p.parse_args(argv)
    args.k = [int(x) for x in args.k.split(",") if x.strip()]
    args.costs = [x.strip() for x in args.costs.split(",") if x.strip()]
    unknown = [c for c in args.costs if c not in COST_FUNCTIONS]
    if unknown:
        p.error(f"unknown cost function(s) {unknown}; choose from {list(COST_FUNCTIONS)}")
    if args.workers < 1:
        p.error("--workers must be >= 1")
    return args


def render(args: argparse.Namespace, command: str, info: dict[str, str], rep: Reproduction) -> str:
    times = [r.seconds for r in rep.runs]
    slowest = max(rep.runs, key=lambda r: r.seconds)
    meets = rep.seconds <= GRID_TARGET
    per_run = common.markdown_table(
        [
            "k",
            "optimization",
            "time",
            "effective k",
            "classes",
            *COST_FUNCTIONS,
            "modified %",
            "deleted %",
        ],
        [
            [
                r.k,
                LABELS[r.cost],
                common.fmt_seconds(r.seconds),
                f"{r.effective_k:,}",
                f"{r.n_classes:,}",
                *[f"{r.alteration[m]:.1f}" for m in COST_FUNCTIONS],
                f"{r.modified_percentage:.1f}",
                f"{r.deleted_percentage:.1f}",
            ]
            for r in rep.runs
        ],
        "rlrrr" + "r" * (len(COST_FUNCTIONS) + 2),
    )
    parts = [
        *common.section_preamble(TITLE, command, info),
        "",
        f"Setup: Adult ({args.data or 'bundled `adult.csv`'}), {rep.n_records:,} records, the "
        f"paper's nine quasi-identifiers ({', '.join(rep.columns)}) with the ARX hierarchies; "
        f"{rep.n_initial_classes:,} distinct combinations. Requested k: "
        f"{', '.join(str(k) for k in rep.k_values)}; optimizations: {', '.join(rep.costs)}; "
        f"C_small choice `{rep.small_class}`; {rep.workers} worker process(es) (spawn).",
        "",
        "Method: `anonkit.study.mauger2020.reproduce`; the table is encoded once and handed "
        "to each worker once (not timed); each run times `GreedyMerge(k=k, cost=o).fit` "
        "(grouping, merge loop, all measures) with `time.perf_counter`, starting from the "
        "original table. Percentage of alteration = 100 · m(T_o,k) / m(T*), T* = every "
        "value at its hierarchy's root.",
        "",
        f"- Whole grid ({len(rep.runs)} runs): **{common.fmt_seconds(rep.seconds)} wall time** "
        f"(target ≤ {GRID_TARGET / 60:g} min: {'met' if meets else '**missed**'}); "
        f"{common.fmt_seconds(sum(times))} summed over runs; per run median "
        f"{common.fmt_seconds(common.median(times))}, slowest "
        f"{common.fmt_seconds(slowest.seconds)} (k = {slowest.k}, {LABELS[slowest.cost]}).",
        "",
        rep.to_markdown(),
        "Every run (percentage of alteration under each metric, modified and deleted values "
        "in percent of the 9 · n cells):",
        "",
        per_run,
    ]
    return "\n".join(parts)


def ab_loops(args: argparse.Namespace) -> int:
    """Interleaved timings of the compiled and the Python merge loop; same releases."""
    import time

    import numpy as np

    from anonkit.algorithms.greedy_merge import GreedyMerge, merge
    from anonkit.study.mauger2020.runs import _prepare

    codes, hs, _ = _prepare(None, None, "hierarchy")
    compiled = merge.compiled_loop
    GreedyMerge(k=2, cost="ncp").fit(codes[:, :300], hs)  # compile (or load) first
    rows = []
    ratios = []
    for k in args.k:
        for cost in args.costs:
            fast, slow = [], []
            for seed in range(args.repeats):
                est = GreedyMerge(k=k, cost=cost, order="random", seed=seed)
                for use in (True, False) if seed % 2 == 0 else (False, True):
                    merge.compiled_loop = compiled if use else (lambda: None)  # type: ignore[assignment]
                    t0 = time.perf_counter()
                    r = est.fit(codes, hs)
                    (fast if use else slow).append((time.perf_counter() - t0, r))
                merge.compiled_loop = compiled  # type: ignore[assignment]
                a, b = fast[-1][1], slow[-1][1]
                if not np.array_equal(a.levels, b.levels):
                    print(f"k={k} {cost} seed={seed}: releases differ", file=sys.stderr)
                    return 1
            ratio = common.median([s for s, _ in slow]) / common.median([f for f, _ in fast])
            ratios.append(ratio)
            rows.append(
                [
                    k,
                    LABELS[cost],
                    common.fmt_seconds(common.median([f for f, _ in fast])),
                    common.fmt_seconds(common.median([s for s, _ in slow])),
                    f"{ratio:.2f}",
                ]
            )
    print(
        common.markdown_table(
            ["k", "optimization", "compiled loop", "Python loop", "Python / compiled"],
            rows,
            "rlrrr",
        )
    )
    print(f"\nmedian ratio {common.median(ratios):.2f} over {len(ratios)} cells; same releases")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.ab_loops:
        return ab_loops(args)
    command = common.command_line()
    info = common.machine_info()
    data = None if args.data is None else pl.read_csv(args.data, separator=";", infer_schema=False)
    total = len(args.k) * len(args.costs)
    print(
        f"Adult, {len(PAPER_ADULT_COLUMNS)} quasi-identifiers; {len(args.k)} k x "
        f"{len(args.costs)} functions = {total} runs on {args.workers} worker(s)",
        file=sys.stderr,
    )

    def progress(done: int, total: int) -> None:
        print(f"[{done}/{total}] runs done", file=sys.stderr, flush=True)

    rep = reproduce(
        k_values=args.k,
        costs=args.costs,
        small_class=args.small_class,
        data=data,
        workers=args.workers,
        progress=progress,
    )
    if args.csv:
        rep.to_polars().write_csv(args.csv)
        print(f"wrote {args.csv}", file=sys.stderr)

    body = render(args, command, info, rep)
    if args.record:
        path = common.update_section(SECTION, body, args.output)
        print(f"wrote section '{SECTION}' of {path}", file=sys.stderr)
    else:
        print(body)
    full = total >= len(PAPER_K_VALUES) * len(COST_FUNCTIONS)
    return 0 if rep.seconds <= GRID_TARGET or not full else 1


if __name__ == "__main__":
    sys.exit(main())
