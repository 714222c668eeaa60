"""Time one benchmark script on two checkouts, interleaved, and report the ratio.

Refactorings must not slow anonkit down, and the machines are noisy: the only figure that
holds is a ratio measured in the same session with the two versions taking turns. This
script runs ``SCRIPT ARGS`` from each checkout's ``benchmarks/`` with ``PYTHONPATH`` set
to that checkout's ``src/``, alternating before/after ``--runs`` times after one warm-up
each, and reports the median wall time of the whole process and the median of the
pairwise ratios after / before.

Make the "before" checkout with ``git worktree add /tmp/before REV``. Run from the
repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/ab_compare.py --before /tmp/before \\
        --after . --runs 6 lattice_adult.py --algorithms flash --k 10 --repeats 3 \\
        --output /tmp/lattice.md

``--same-script`` runs the "after" checkout's script on both (with each checkout's
``src/``), for a benchmark the "before" version does not have yet. ``--per-case FIELD``
also compares, case by case, the figure ``FIELD`` of the JSON lines the script prints
(``anonymize_adult.py --json`` prints ``{"case": ..., "wall": ...}`` per case): a cell
of 30 ms is lost in a whole process of seconds. ``--record NAME`` writes the result as
section ``ab_NAME`` of ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--before", required=True, help="checkout of the version before")
    p.add_argument("--after", default=".", help="checkout of the version after (%(default)s)")
    p.add_argument("--runs", type=int, default=6, help="timed runs of each (%(default)s)")
    p.add_argument("--record", default=None, help="write section ab_NAME of RESULTS.md")
    p.add_argument("--label", default="", help="what the two versions are, for the record")
    p.add_argument(
        "--same-script", action="store_true", help="run the after checkout's script on both"
    )
    p.add_argument(
        "--per-case",
        default=None,
        metavar="FIELD",
        help="also compare FIELD of the script's JSON lines, case by case",
    )
    p.add_argument("script", help="a script of benchmarks/, e.g. lattice_adult.py")
    p.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    return p.parse_args(argv)


def _run(
    checkout: Path, script: str, args: list[str], scripts: Path | None = None
) -> tuple[float, str]:
    """Wall time and standard output of ``script`` (from ``scripts``, else the checkout's
    ``benchmarks/``) run on ``checkout``'s ``src/``."""
    env = {**os.environ, "PYTHONPATH": str(checkout / "src")}
    t = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str((scripts or checkout / "benchmarks") / script), *args],
        env=env,
        check=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    return time.perf_counter() - t, done.stdout


def _cases(output: str, field: str) -> dict[str, float]:
    """``field`` of each JSON line of ``output`` that names a ``case``."""
    out: dict[str, float] = {}
    for line in output.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            if "case" in row and field in row:
                out[str(row["case"])] = float(row[field])
    return out


def _case_rows(runs: dict[str, list[dict[str, float]]], field: str) -> list[str]:
    """Per case: the median ``field`` of each version and the pairwise ratios."""
    rows = [
        "",
        f"Case by case (`{field}` of each run, median of the runs; ratio after / before "
        "pair by pair):",
        "",
        "| case | before | after | ratio | min | max |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for case in runs["after"][0]:
        b = [r[case] for r in runs["before"] if case in r]
        a = [r[case] for r in runs["after"]]
        if len(b) != len(a):
            continue
        ratios = [x / y for x, y in zip(a, b, strict=True) if y]
        rows.append(
            f"| {case} | {statistics.median(b):.1f} | {statistics.median(a):.1f} "
            f"| {statistics.median(ratios):.2f} | {min(ratios):.2f} | {max(ratios):.2f} |"
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    command = common.command_line()
    info = common.machine_info()
    before, after = Path(args.before).resolve(), Path(args.after).resolve()
    scripts = after / "benchmarks" if args.same_script else None
    for checkout in (before, after):  # warm-up: caches, compiled kernels
        _run(checkout, args.script, args.args, scripts)
    times: dict[str, list[float]] = {"before": [], "after": []}
    cases: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for _ in range(args.runs):
        for side, checkout in (("before", before), ("after", after)):
            wall, output = _run(checkout, args.script, args.args, scripts)
            times[side].append(wall)
            if args.per_case:
                cases[side].append(_cases(output, args.per_case))
    ratios = [a / b for a, b in zip(times["after"], times["before"], strict=True)]
    rows = [
        "| version | median wall | min | max |",
        "|---|---:|---:|---:|",
        *(
            f"| {side} | {common.fmt_seconds(statistics.median(ts))} | "
            f"{common.fmt_seconds(min(ts))} | {common.fmt_seconds(max(ts))} |"
            for side, ts in times.items()
        ),
        "",
        f"Ratio after / before, pair by pair: median {statistics.median(ratios):.2f} "
        f"(min {min(ratios):.2f}, max {max(ratios):.2f}) over {args.runs} pairs.",
    ]
    if args.per_case and cases["after"] and cases["after"][0]:
        rows += _case_rows(cases, args.per_case)
    body = "\n".join(
        [
            *common.section_preamble(
                f"## Before / after: {args.label or args.script}", command, info
            ),
            "",
            f"`{args.script} {shlex.join(args.args)}` as a whole process, the two checkouts "
            "taking turns after one warm-up each"
            + (" (the after checkout's script on both)." if args.same_script else "."),
            "",
            *rows,
        ]
    )
    print(body)
    if args.record:
        common.update_section(f"ab_{args.record}", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
