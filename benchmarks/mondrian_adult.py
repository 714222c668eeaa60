"""Mondrian on Adult and on a 1,000,000-row resample (issue 4).

Adult (30,162 records) with its 9 columns as quasi-identifiers: ``age`` numeric, the 8
others cut along the ARX hierarchies. For every ``mode x k`` the script runs
``Mondrian(mode=...).fit(...)`` ``--repeats`` times on the encoded columns and reports the
median algorithm time (``MondrianResult.timing["total"]``: rank encoding, partitioning,
labels and classes), the number of classes and their sizes. Reading and encoding the
CSV happens once, before any timing, and is reported separately.

Then the same for ``--rows`` records drawn from Adult with replacement
(``numpy.random.default_rng(--seed)``), at k = 10.

Targets: <= 50 ms at k = 10 on Adult; <= 10 s on 1,000,000 rows.

``--implementation`` picks Mondrian's implementation (default ``auto``: the compiled
recursion, since the only model is k-anonymity; ``numpy`` for the vectorized rounds;
``--engine`` is its former name, still accepted). The first fit of the
process (loading, or on a fresh install compiling, the numba kernel) is timed apart and
reported, not counted in the cells.

Prints the results; ``--record`` also writes them into ``benchmarks/RESULTS.md`` (section
``mondrian_adult``, or ``mondrian_adult_<implementation>`` for another
``--implementation``). Run from the
repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/mondrian_adult.py [--record]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

from anonkit.algorithms.mondrian import (  # noqa: E402
    IMPLEMENTATIONS,
    MODES,
    HierarchicalQI,
    Mondrian,
    MondrianResult,
    NumericQI,
    QuasiIdentifier,
)
from anonkit.core.hierarchy import Hierarchy  # noqa: E402
from anonkit.core.values import encode_column  # noqa: E402
from anonkit.models import KAnonymity  # noqa: E402

SECTION = "mondrian_adult"
TITLE = "## Mondrian on Adult (issue 4)"
DEFAULT_K = (2, 5, 10, 50, 100)
NUMERIC = ("age",)
TARGET_ADULT = 0.050  # seconds, at k = 10
TARGET_BIG = 10.0  # seconds, 1,000,000 rows
BIG_K = 10


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--k", default=",".join(map(str, DEFAULT_K)), help="k values (%(default)s)")
    p.add_argument("--modes", default=",".join(MODES), help="modes (%(default)s)")
    p.add_argument("--split", default="widest", help="split heuristic (%(default)s)")
    p.add_argument(
        "--implementation",
        default="auto",
        choices=IMPLEMENTATIONS,
        help="Mondrian's implementation (%(default)s)",
    )
    p.add_argument(  # the former name of --implementation
        "--engine",
        dest="implementation",
        default=argparse.SUPPRESS,
        choices=IMPLEMENTATIONS,
        help=argparse.SUPPRESS,
    )
    p.add_argument("--repeats", type=int, default=7, help="runs per cell (%(default)s)")
    p.add_argument(
        "--rows", type=int, default=1_000_000, help="resampled rows, 0 to skip (%(default)s)"
    )
    p.add_argument("--big-repeats", type=int, default=3, help="runs of the resample (%(default)s)")
    p.add_argument("--seed", type=int, default=0, help="resampling seed (%(default)s)")
    p.add_argument("--data", default=str(common.ADULT_CSV), help="Adult CSV (';'-separated)")
    p.add_argument("--record", action="store_true", help="write the section of RESULTS.md")
    p.add_argument("--output", default=str(common.RESULTS_PATH), help="results file (%(default)s)")
    args = p.parse_args(argv)
    args.k = [int(x) for x in args.k.split(",") if x.strip()]
    args.modes = [x.strip() for x in args.modes.split(",") if x.strip()]
    unknown = [m for m in args.modes if m not in MODES]
    if unknown:
        p.error(f"unknown mode(s) {unknown}; choose from {list(MODES)}")
    if args.repeats < 1 or args.big_repeats < 1:
        p.error("--repeats and --big-repeats must be >= 1")
    return args


def encode(frame: pl.DataFrame) -> list[QuasiIdentifier]:
    """Adult's columns as Mondrian inputs (age numeric, the others hierarchical)."""
    out: list[QuasiIdentifier] = []
    for c in common.ADULT_COLUMNS:
        if c in NUMERIC:
            out.append(NumericQI(c, frame[c].cast(pl.Float64).to_numpy()))
        else:
            h = Hierarchy.from_csv(common.adult_hierarchy_path(c), name=c)
            out.append(HierarchicalQI(c, encode_column(frame[c], h, c).to_numpy(), h))
    return out


def resample(qis: list[QuasiIdentifier], rows: int, seed: int) -> list[QuasiIdentifier]:
    pick = np.random.default_rng(seed).integers(0, len(qis[0]), rows)
    out: list[QuasiIdentifier] = []
    for q in qis:
        if isinstance(q, NumericQI):
            out.append(NumericQI(q.name, q.values[pick]))
        elif isinstance(q, HierarchicalQI):
            out.append(HierarchicalQI(q.name, q.codes[pick], q.hierarchy))
    return out


def run(
    qis: list[QuasiIdentifier], mode: str, split: str, implementation: str, k: int, repeats: int
) -> tuple[list[float], list[float], MondrianResult]:
    totals, partition = [], []
    result = None
    for _ in range(repeats):
        gc.collect()
        result = Mondrian(mode=mode, split=split, implementation=implementation).fit(
            qis, [KAnonymity(k)]
        )
        totals.append(result.timing["total"])
        partition.append(result.timing["partition"])
    assert result is not None
    return totals, partition, result


def row(
    label: str, mode: str, k: int, totals: list[float], partition: list[float], res: MondrianResult
) -> dict[str, object]:
    return {
        "data": label,
        "mode": mode,
        "k": k,
        "median": common.median(totals),
        "min": min(totals),
        "partition": common.median(partition),
        "classes": res.n_classes,
        "partitions": res.n_partitions,
        "min_size": res.min_size,
        "mean_size": res.n_records / res.n_classes,
        "max_size": int(res.sizes.max()),
        "rounds": res.rounds,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    command = common.command_line()
    info = common.machine_info()
    t0 = time.perf_counter()
    frame = pl.read_csv(args.data, separator=";", infer_schema=False)
    t1 = time.perf_counter()
    qis = encode(frame)
    t2 = time.perf_counter()
    print(
        f"Adult: {frame.height:,} records; read {common.fmt_seconds(t1 - t0)}, "
        f"hierarchies + encode {common.fmt_seconds(t2 - t1)}",
        file=sys.stderr,
    )
    # warm-up: imports, hierarchy tables and (compiled implementation) loading the numba kernel,
    # or compiling it when no cached build exists
    t3 = time.perf_counter()
    Mondrian(implementation=args.implementation).fit(qis, [KAnonymity(10)])
    first_fit = time.perf_counter() - t3

    rows: list[dict[str, object]] = []
    for mode in args.modes:
        for k in args.k:
            totals, partition, res = run(
                qis, mode, args.split, args.implementation, k, args.repeats
            )
            rows.append(row("Adult", mode, k, totals, partition, res))
            print(
                f"Adult {mode} k={k}: median {common.fmt_seconds(common.median(totals))} "
                f"(min {common.fmt_seconds(min(totals))}), {res.n_classes:,} classes",
                file=sys.stderr,
                flush=True,
            )
    big_prep = 0.0
    if args.rows:
        t3 = time.perf_counter()
        big = resample(qis, args.rows, args.seed)
        big_prep = time.perf_counter() - t3
        for mode in args.modes:
            totals, partition, res = run(
                big, mode, args.split, args.implementation, BIG_K, args.big_repeats
            )
            rows.append(row(f"{args.rows:,} rows", mode, BIG_K, totals, partition, res))
            print(
                f"{args.rows:,} rows {mode} k={BIG_K}: median "
                f"{common.fmt_seconds(common.median(totals))}, {res.n_classes:,} classes",
                file=sys.stderr,
                flush=True,
            )
    body = render(args, command, info, frame.height, t1 - t0, t2 - t1, first_fit, big_prep, rows)
    print(body)
    if args.record:
        section = SECTION if args.implementation == "auto" else f"{SECTION}_{args.implementation}"
        path = common.update_section(section, body, args.output)
        print(f"wrote section '{section}' of {path}", file=sys.stderr)
    return 0


def render(
    args: argparse.Namespace,
    command: str,
    info: dict[str, str],
    n_records: int,
    read: float,
    encode_time: float,
    first_fit: float,
    big_prep: float,
    rows: list[dict[str, object]],
) -> str:
    def verdict(r: dict[str, object]) -> str:
        if r["data"] == "Adult" and r["k"] == 10:
            target = TARGET_ADULT
        elif r["data"] != "Adult":
            target = TARGET_BIG
        else:
            return "—"
        ok = float(r["median"]) <= target  # type: ignore[arg-type]
        return ("yes" if ok else "**no**") + f" (≤ {common.fmt_seconds(target)})"

    table = common.markdown_table(
        [
            "data",
            "mode",
            "k",
            "median time",
            "min",
            "partitioning",
            "classes",
            "class sizes min / mean / max",
            "rounds",
            "meets target",
        ],
        [
            [
                r["data"],
                r["mode"],
                r["k"],
                common.fmt_seconds(r["median"]),  # type: ignore[arg-type]
                common.fmt_seconds(r["min"]),  # type: ignore[arg-type]
                common.fmt_seconds(r["partition"]),  # type: ignore[arg-type]
                f"{r['classes']:,}",
                f"{r['min_size']} / {float(r['mean_size']):.1f} / {r['max_size']}",  # type: ignore[arg-type]
                r["rounds"],
                verdict(r),
            ]
            for r in rows
        ],
        align="llrrrrrlrl",
    )
    resample_note = (
        f" The resample draws {args.rows:,} Adult rows with replacement "
        f"(`numpy.random.default_rng({args.seed})`, {common.fmt_seconds(big_prep)}, not "
        f"timed) and is run {args.big_repeats} time(s) per mode at k = {BIG_K}."
        if args.rows
        else ""
    )
    parts = [
        *common.section_preamble(
            TITLE
            if args.implementation == "auto"
            else f"{TITLE[:-1]}, implementation `{args.implementation}`)",
            command,
            info,
        ),
        "",
        f"Setup: Adult (`adult.csv`), {n_records:,} records, 9 quasi-identifiers: `age` "
        "numeric (cut at the median, released as `[min-max]`), the other 8 cut along the "
        f"ARX hierarchies; privacy model k-anonymity; split heuristic `{args.split}`; "
        f"implementation `{args.implementation}`.",
        "",
        "Method: the CSV is read and encoded once (read "
        f"{common.fmt_seconds(read)}, hierarchies + encoding "
        f"{common.fmt_seconds(encode_time)}), then `Mondrian(mode=...).fit(columns, "
        f"[KAnonymity(k)])` runs {args.repeats} time(s) per cell after one warm-up run "
        f"({common.fmt_seconds(first_fit)}: imports and, for the compiled implementation, loading "
        "the cached numba kernel, or compiling it on a fresh install). "
        "\"median time\" is the median of `MondrianResult.timing['total']` (rank encoding, "
        'partitioning, labels and classes), "partitioning" the median of its partitioning '
        "stage." + resample_note,
        "",
        "Targets: ≤ 50 ms at k = 10 on Adult; ≤ 10 s on 1,000,000 rows.",
        "",
        table,
    ]
    return "\n".join(parts)


if __name__ == "__main__":
    sys.exit(main())
