"""Greedy class merging with cost matrices on Adult (issue 4; Mauger et al. 2020).

The grid of the paper: 21 requested k from 2 to 15,000 x the seven optimization functions
(Distortion, NCP, Total, LLM, NLLM, WLLM, WNLLM), on Adult with the paper's nine
quasi-identifiers. Each run starts from the original table. Per run it records the time of
``GreedyMerge.fit`` (grouping, merging, measures), the effective k (smallest class of the
release), the number of classes and the percentage of alteration under each of the seven
metrics, plus the shares of modified and deleted values. It also prints the tables of the
paper's Figures 6-8 (percentage of alteration with ranks) for the k of the grid among
2, 100 and 1500. Target: the whole grid in <= 15 minutes.

Run from the repository root (prints only; ``--record`` writes benchmarks/RESULTS.md)::

    PYTHONPATH=src .venv/bin/python benchmarks/greedy_merge_adult.py --workers 2 --record
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import polars as pl

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

from anonkit.algorithms.greedy_merge import (  # noqa: E402
    PAPER_ADULT_COLUMNS,
    PAPER_K_VALUES,
    SMALL_CLASS_CHOICES,
    GreedyMerge,
)
from anonkit.core.encoding import EncodedTable  # noqa: E402
from anonkit.core.hierarchy import Hierarchy  # noqa: E402
from anonkit.engines.polars_engine import PolarsEngine  # noqa: E402
from anonkit.metrics.cost_matrix import COST_FUNCTIONS  # noqa: E402

SECTION = "greedy_merge_adult"
TITLE = "## Greedy class merging with cost matrices on Adult (issue 4, Mauger et al. 2020)"
GRID_TARGET = 15 * 60.0
FIGURE_K = {2: "Figure 6", 100: "Figure 7", 1500: "Figure 8"}
LABELS = {
    "distortion": "Distortion",
    "ncp": "NCP",
    "total": "Total",
    "llm": "LLM",
    "nllm": "NLLM",
    "wllm": "WLLM",
    "wnllm": "WNLLM",
}

_TABLE: EncodedTable | None = None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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
    p.add_argument("--workers", type=int, default=1, help="processes (default: 1)")
    p.add_argument("--data", default=str(common.ADULT_CSV), help="Adult CSV (';'-separated)")
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


def load(data: str) -> EncodedTable:
    frame = pl.read_csv(data, separator=";", infer_schema=False)
    columns = list(PAPER_ADULT_COLUMNS)
    hierarchies = [Hierarchy.from_csv(common.adult_hierarchy_path(c), name=c) for c in columns]
    return PolarsEngine().encode(frame, columns, hierarchies)


def _init(data: str) -> None:
    global _TABLE
    _TABLE = load(data)


def run_one(cell: tuple[int, str, str]) -> dict[str, Any]:
    k, cost, small_class = cell
    assert _TABLE is not None
    start = time.perf_counter()
    r = GreedyMerge(k=k, cost=cost, small_class=small_class).fit(_TABLE)
    wall = time.perf_counter() - start
    return {
        "k": k,
        "cost": cost,
        "time": wall,
        "merge_time": r.timing["merge"],
        "effective_k": r.effective_k,
        "classes": r.n_classes,
        "merges": r.n_merges,
        "fused": r.n_fused,
        **{f"alt_{m}": r.alteration[m] for m in COST_FUNCTIONS},
        "modified": r.modified_percentage,
        "deleted": r.deleted_percentage,
        "deleted_of_modified": r.deleted_of_modified_percentage,
    }


def ranks(values: list[float]) -> list[int]:
    """Competition ranks (1 = smallest; ties share the best rank), as in the paper."""
    return [1 + sum(v < x for v in values) for x in values]


def figure_table(rows: list[dict[str, Any]], k: int, costs: list[str]) -> str:
    """Percentage of alteration of each optimization (columns) under each metric (rows)."""
    by_cost = {r["cost"]: r for r in rows if r["k"] == k}
    cols = [c for c in costs if c in by_cost]
    lines = []
    for metric in [*COST_FUNCTIONS, "Average"]:
        if metric == "Average":
            values = [
                sum(by_cost[c][f"alt_{m}"] for m in COST_FUNCTIONS) / len(COST_FUNCTIONS)
                for c in cols
            ]
        else:
            values = [by_cost[c][f"alt_{metric}"] for c in cols]
        shown = [round(v, 1) for v in values]
        lines.append(
            [metric] + [f"{v:.1f} ({rk})" for v, rk in zip(shown, ranks(shown), strict=True)]
        )
    return common.markdown_table(
        ["metric \\ optimization", *[LABELS[c] for c in cols]], lines, "l" + "r" * len(cols)
    )


def render(
    args: argparse.Namespace,
    command: str,
    info: dict[str, str],
    table: EncodedTable,
    rows: list[dict[str, Any]],
    grid_wall: float,
) -> str:
    times = [r["time"] for r in rows]
    total_cpu = sum(times)
    slowest = max(rows, key=lambda r: r["time"])
    meets = grid_wall <= GRID_TARGET
    keffective = common.markdown_table(
        ["requested k", *[LABELS[c] for c in args.costs]],
        [
            [k]
            + [
                next(f"{r['effective_k']:,}" for r in rows if r["k"] == k and r["cost"] == c)
                for c in args.costs
            ]
            for k in args.k
        ],
        "r" * (len(args.costs) + 1),
    )
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
                r["k"],
                LABELS[r["cost"]],
                common.fmt_seconds(r["time"]),
                f"{r['effective_k']:,}",
                f"{r['classes']:,}",
                *[f"{r[f'alt_{m}']:.1f}" for m in COST_FUNCTIONS],
                f"{r['modified']:.1f}",
                f"{r['deleted']:.1f}",
            ]
            for r in rows
        ],
        "rlrrr" + "r" * (len(COST_FUNCTIONS) + 2),
    )
    figures = []
    for k, name in FIGURE_K.items():
        if k in args.k:
            figures += [
                f"Percentage of alteration for requested k = {k} (the paper's {name}; "
                "rank per metric in brackets):",
                "",
                figure_table(rows, k, args.costs),
                "",
            ]
    parts = [
        *common.section_preamble(TITLE, command, info),
        "",
        f"Setup: Adult (`adult.csv`), {table.n_records:,} records, the paper's nine "
        f"quasi-identifiers ({', '.join(PAPER_ADULT_COLUMNS)}) with the ARX hierarchies; "
        f"{table.snapshot.n_classes:,} distinct combinations. Requested k: "
        f"{', '.join(str(k) for k in args.k)}; optimizations: {', '.join(args.costs)}; "
        f"C_small choice `{args.small_class}`; {args.workers} worker process(es).",
        "",
        "Method: the table is read and encoded once per worker (not timed); each run times "
        "`GreedyMerge(k=k, cost=o).fit(table)` (grouping, merge loop, all measures) with "
        "`time.perf_counter`, starting from the original table. Percentage of alteration "
        "= 100 · m(T_o,k) / m(T*), T* = every value at its hierarchy's root.",
        "",
        f"- Whole grid ({len(rows)} runs): **{common.fmt_seconds(grid_wall)} wall time** "
        f"(target ≤ {GRID_TARGET / 60:g} min: {'met' if meets else '**missed**'}); "
        f"{common.fmt_seconds(total_cpu)} summed over runs; per run median "
        f"{common.fmt_seconds(common.median(times))}, slowest "
        f"{common.fmt_seconds(slowest['time'])} (k = {slowest['k']}, {LABELS[slowest['cost']]}).",
        "",
        *figures,
        "Effective k (smallest class of the release) per requested k (the paper's Figure 9):",
        "",
        keffective,
        "",
        "Every run (percentage of alteration under each metric, modified and deleted values "
        "in percent of the 9 · n cells):",
        "",
        per_run,
    ]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    command = common.command_line()
    info = common.machine_info()
    table = load(args.data)
    print(
        f"Adult: {table.n_records:,} records, {table.snapshot.n_classes:,} distinct "
        f"combinations; {len(args.k)} k x {len(args.costs)} functions",
        file=sys.stderr,
    )
    cells = [(k, c, args.small_class) for k in args.k for c in args.costs]
    rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    if args.workers == 1:
        global _TABLE
        _TABLE = table
        results = map(run_one, cells)
        pool = None
    else:
        pool = ProcessPoolExecutor(args.workers, initializer=_init, initargs=(args.data,))
        results = pool.map(run_one, cells)
    try:
        for number, row in enumerate(results, start=1):
            rows.append(row)
            print(
                f"[{number}/{len(cells)}] k={row['k']} {row['cost']}: "
                f"{common.fmt_seconds(row['time'])}, effective k {row['effective_k']:,}, "
                f"{row['classes']:,} classes, alteration ({row['cost']}) "
                f"{row['alt_' + row['cost']]:.1f}%",
                file=sys.stderr,
                flush=True,
            )
    finally:
        if pool is not None:
            pool.shutdown()
    grid_wall = time.perf_counter() - start
    order = {(k, c): i for i, (k, c, _) in enumerate(cells)}
    rows.sort(key=lambda r: order[(r["k"], r["cost"])])

    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        print(f"wrote {args.csv}", file=sys.stderr)

    body = render(args, command, info, table, rows, grid_wall)
    if args.record:
        path = common.update_section(SECTION, body, args.output)
        print(f"wrote section '{SECTION}' of {path}", file=sys.stderr)
    else:
        print(body)
    return 0 if grid_wall <= GRID_TARGET or len(cells) < len(PAPER_K_VALUES) * 7 else 1


if __name__ == "__main__":
    sys.exit(main())
