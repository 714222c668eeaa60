"""MDAV microaggregation on the CASC reference sets, and on a large synthetic table.

For the CASC Census (1,080 x 13), Tarragona (834 x 13) and EIA (4,092 x 11: UTILITYID and
the ten revenue/sales columns) sets and k in {3, 4, 5, 10}, runs
``Microaggregation(k=k, method="mdav").fit(values)`` ``--repeats`` times and reports the
information loss IL = 100 * SSE / SST (standardized attributes), the value published in
the microaggregation literature, the groups, and the median times (the whole ``fit``, and
the MDAV partition alone as ``result.timing["partition"]``). Then times MDAV on
``--rows`` x 6 standard-normal attributes (``numpy.random.default_rng(--seed)``).

Targets (issue 4): EIA <= 0.5 s per k; 100,000 x 6 <= 60 s.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/microaggregation_casc.py            # print
    PYTHONPATH=src .venv/bin/python benchmarks/microaggregation_casc.py --record   # + RESULTS.md
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

from anonkit.algorithms.microaggregation import (  # noqa: E402
    Microaggregation,
    MicroaggregationResult,
)

SECTION = "microaggregation_casc"
TITLE = "## MDAV microaggregation on the CASC sets (issue 4)"
CASC_DIR = common.SHARED_DATA / "casc"
TARGET_EIA = 0.5
TARGET_LARGE = 60.0
EIA_COLUMNS = (
    "UTILITYID",
    "RESREVENUE",
    "RESSALES",
    "COMREVENUE",
    "COMSALES",
    "INDREVENUE",
    "INDSALES",
    "OTHREVENUE",
    "OTHRSALES",
    "TOTREVENUE",
    "TOTSALES",
)
#: (label, file, columns or None for all)
SETS = (
    ("Census", "CASCrefmicrodata.csv", None),
    ("Tarragona", "Tarragona.csv", None),
    ("EIA", "EIA.csv", EIA_COLUMNS),
)
#: MDAV IL (%) as published for the CASC sets (Domingo-Ferrer, Martinez-Balleste,
#: Mateo-Sanz & Sebe, VLDB J. 15(4), 2006, and the later microaggregation literature),
#: to two decimals.
PUBLISHED = {
    ("Census", 3): 5.69,
    ("Census", 4): 7.49,
    ("Census", 5): 9.09,
    ("Census", 10): 14.16,
    ("Tarragona", 3): 16.93,
    ("Tarragona", 4): 19.55,
    ("Tarragona", 5): 22.46,
    ("Tarragona", 10): 33.19,
    ("EIA", 3): 0.48,
    ("EIA", 4): 0.67,
    ("EIA", 5): 1.67,
    ("EIA", 10): 3.84,
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--k", default="3,4,5,10", help="k values for the CASC sets (default 3,4,5,10)")
    p.add_argument("--repeats", type=int, default=5, help="timed runs per CASC cell (default 5)")
    p.add_argument("--rows", type=int, default=100_000, help="synthetic rows (default 100000)")
    p.add_argument("--large-k", default="3", help="k values for the synthetic table (default 3)")
    p.add_argument("--seed", type=int, default=0, help="numpy default_rng seed (default 0)")
    p.add_argument("--data", default=str(CASC_DIR), help="folder of the CASC CSV files")
    p.add_argument(
        "--record",
        action="store_true",
        help="write this script's section of the results file (default: only print)",
    )
    p.add_argument(
        "--output",
        default=str(common.RESULTS_PATH),
        help="results file for --record (default: benchmarks/RESULTS.md)",
    )
    args = p.parse_args(argv)
    args.k = [int(v) for v in args.k.split(",") if v]
    args.large_k = [int(v) for v in args.large_k.split(",") if v]
    if args.repeats < 1 or args.rows < 1 or min(args.k + args.large_k, default=1) < 1:
        p.error("--repeats, --rows and every k must be >= 1")
    return args


def load(folder: Path, file: str, columns: tuple[str, ...] | None) -> tuple[np.ndarray, list[str]]:
    frame = pl.read_csv(folder / file)
    if columns is not None:
        frame = frame.select(columns)
    return frame.to_numpy().astype(np.float64), list(frame.columns)


def time_fit(
    values: np.ndarray, k: int, repeats: int
) -> tuple[MicroaggregationResult, list[float], list[float]]:
    """Run ``fit`` ``repeats`` times; the last result, total and partition times."""
    totals: list[float] = []
    partitions: list[float] = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = Microaggregation(k=k, method="mdav").fit(values)
        totals.append(time.perf_counter() - start)
        partitions.append(result.timing["partition"])
    return result, totals, partitions


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    command = common.command_line()
    info = common.machine_info()
    folder = Path(args.data)

    rows = []
    eia_worst = 0.0
    mismatches = []
    for label, file, columns in SETS:
        values, names = load(folder, file, columns)
        n, p = values.shape
        for k in args.k:
            result, totals, partitions = time_fit(values, k, args.repeats)
            il = result.il
            fit_s, part_s = common.median(totals), common.median(partitions)
            published = PUBLISHED.get((label, k))
            agrees = "" if published is None else ("yes" if round(il, 2) == published else "NO")
            if agrees == "NO":
                mismatches.append(f"{label} k={k}: {il:.4f} vs {published}")
            if label == "EIA":
                eia_worst = max(eia_worst, fit_s)
            sizes = f"{result.min_group_size}-{result.max_group_size}"
            rows.append(
                [
                    label,
                    f"{n:,} x {p}",
                    k,
                    f"{il:.4f}",
                    "" if published is None else f"{published:.2f}",
                    agrees,
                    f"{result.n_groups:,}",
                    sizes,
                    common.fmt_seconds(fit_s),
                    common.fmt_seconds(part_s),
                ]
            )
            print(
                f"{label:9s} k={k:<3d} IL={il:8.4f} (published {published}) "
                f"fit {common.fmt_seconds(fit_s)} partition {common.fmt_seconds(part_s)}",
                file=sys.stderr,
                flush=True,
            )

    rng = np.random.default_rng(args.seed)
    large = rng.standard_normal((args.rows, 6))
    large_rows = []
    large_worst = 0.0
    for k in args.large_k:
        start = time.perf_counter()
        cpu = time.process_time()
        result = Microaggregation(k=k, method="mdav").fit(large)
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu
        large_worst = max(large_worst, wall)
        large_rows.append(
            [
                f"{args.rows:,} x 6",
                k,
                f"{result.il:.4f}",
                f"{result.n_groups:,}",
                f"{result.min_group_size}-{result.max_group_size}",
                common.fmt_seconds(wall),
                common.fmt_seconds(result.timing["partition"]),
                common.fmt_seconds(cpu),
            ]
        )
        print(
            f"synthetic {args.rows:,} x 6 k={k}: fit {common.fmt_seconds(wall)} "
            f"(partition {common.fmt_seconds(result.timing['partition'])}, "
            f"process CPU {common.fmt_seconds(cpu)}), IL={result.il:.4f}",
            file=sys.stderr,
            flush=True,
        )

    eia_met = eia_worst <= TARGET_EIA
    large_met = large_worst <= TARGET_LARGE
    casc_table = common.markdown_table(
        [
            "set",
            "records x attributes",
            "k",
            "IL (%)",
            "published IL",
            "same to 2 decimals",
            "groups",
            "group sizes",
            f"fit (median of {args.repeats})",
            "MDAV partition",
        ],
        rows,
        align="llrrrlrlrr",
    )
    large_table = common.markdown_table(
        ["table", "k", "IL (%)", "groups", "group sizes", "fit", "MDAV partition", "process CPU"],
        large_rows,
        align="lrrrlrrr",
    )
    threads = {
        name: os.environ[name]
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
        if name in os.environ
    }
    body = "\n".join(
        [
            *common.section_preamble(TITLE, command, info),
            f"- BLAS thread settings: {threads or 'library defaults'}",
            "",
            'Setup: `Microaggregation(k=k, method="mdav").fit(values)` on the CASC sets of '
            f"`{folder}` (Census = `CASCrefmicrodata.csv`, all 13 attributes; Tarragona, all "
            "13; EIA, UTILITYID and the ten revenue/sales attributes). Attributes are "
            'standardized (population std); IL = 100 * SSE / SST. "fit" is the whole '
            'call (standardize, MDAV, aggregate, SSE/SST), "MDAV partition" the '
            '`result.timing["partition"]` part; medians of '
            f"{args.repeats} run(s), `time.perf_counter`. Published values: Domingo-Ferrer, "
            "Martinez-Balleste, Mateo-Sanz & Sebe (VLDB J. 15(4), 2006) and the later "
            "microaggregation literature, to two decimals.",
            "",
            casc_table,
            "",
            f"Large table: {args.rows:,} x 6 standard-normal attributes "
            f"(`numpy.random.default_rng({args.seed})`), one run per k; process CPU includes "
            "every thread of the process.",
            "",
            large_table,
            "",
            f"- EIA: slowest fit {common.fmt_seconds(eia_worst)}; target ≤ {TARGET_EIA:g} s "
            "per k — " + ("**met**" if eia_met else "**missed**") + ".",
            f"- {args.rows:,} x 6: slowest fit {common.fmt_seconds(large_worst)}; target ≤ "
            f"{TARGET_LARGE:g} s (for 100,000 rows) — "
            + ("**met**" if large_met else "**missed**")
            + ".",
            "- Published IL reproduced to two decimals: "
            + ("**all cells**." if not mismatches else "**no**: " + "; ".join(mismatches)),
        ]
    )
    if args.record:
        out = common.update_section(SECTION, body, args.output)
        print(f"wrote section '{SECTION}' of {out}", file=sys.stderr)
    else:
        print(body)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
