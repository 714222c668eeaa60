"""Time ``anonymize()`` calls of two checkouts in lockstep, call against call.

:mod:`ab_compare` times whole processes, which take turns seconds apart: on a shared
machine the load changes between them, and a 3 ms change of a 35 ms cell is lost in it
(ratios spread from 0.74 to 1.49 for one unchanged cell). Here each checkout keeps one
process open on the same frame and hierarchies (read once, as the ARX harness of issue
19 keeps its parsed data), and the two run the same case one call after the other,
in alternating order; the ratio of each adjacent pair of calls sees the same load. The
cases are :func:`anonymize_adult.cases`; each runs ``--warm-up`` pairs untimed first.
Both checkouts must find the same transformation, or the case is flagged.

Make the "before" checkout with ``git worktree add /tmp/before REV``. Run from the
repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/ab_calls.py --before /tmp/before \\
        [--cases 0%] [--pairs 30] [--kernels compiled] [--record NAME]

``--kernels compiled`` loads numba in both processes first (the steady state of a long
process, see :mod:`anonymize_adult`). ``--record NAME`` writes section ``ab_NAME`` of
``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--before", required=True, help="checkout of the version before")
    p.add_argument("--after", default=".", help="checkout of the version after (%(default)s)")
    p.add_argument("--cases", nargs="*", default=[], help="keep cases whose name holds one")
    p.add_argument("--pairs", type=int, default=30, help="timed pairs per case (%(default)s)")
    p.add_argument("--warm-up", type=int, default=5, help="untimed pairs (%(default)s)")
    p.add_argument("--kernels", choices=["auto", "compiled"], default="auto")
    p.add_argument("--record", default=None, help="write section ab_NAME of RESULTS.md")
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def serve(kernels: str) -> int:
    """The worker: read a case name per line, answer with the call's wall time, CPU time
    and transformation as one JSON line."""
    import warnings

    warnings.simplefilter("ignore")  # each call's warnings would flood the pipe
    if kernels == "compiled":
        import numba  # noqa: F401

    import anonymize_adult as adult
    import polars as pl

    import anonkit
    from anonkit.core.hierarchy import Hierarchy

    frame = pl.read_csv(common.ADULT_CSV, separator=";", infer_schema=False)
    columns = list(common.ADULT_COLUMNS)
    trees = {c: Hierarchy.from_csv(common.adult_hierarchy_path(c), name=c) for c in columns}
    cases = dict(adult.cases(columns))
    answer = sys.stdout
    sys.stdout = sys.stderr  # progress or prints of the library stay off the pipe
    for line in sys.stdin:
        options = cases[line.strip()]
        t, c = time.perf_counter(), time.process_time()
        keywords = {"quasi_identifiers": columns, "others": "drop", "algorithm": "flash"}
        result = anonkit.anonymize(frame, hierarchies=trees, **{**keywords, **options})
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        levels = dict(result.transformation)
        answer.write(json.dumps({"wall": wall, "cpu": cpu, "levels": levels}) + "\n")
        answer.flush()
    return 0


class _Worker:
    """One checkout's serving process."""

    def __init__(self, checkout: Path, kernels: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(checkout / "src")}
        command = [sys.executable, __file__, "--before", "-", "--serve", "--kernels", kernels]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )

    def call(self, case: str) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(case + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker stopped on case {case!r} (see its stderr)")
        out: dict[str, Any] = json.loads(line)
        return out

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def _commit(checkout: Path) -> str:
    """The checkout's commit (short hash, ``+changes`` when its tree differs from it)."""

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(checkout), *args], capture_output=True, text=True, check=False
        )
        return done.stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return f"{head}+changes" if git("status", "--porcelain", "--untracked-files=no") else head


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.serve:
        return serve(args.kernels)
    import anonymize_adult as adult

    command = common.command_line()
    info = common.machine_info()
    names = [n for n, _ in adult.cases(list(common.ADULT_COLUMNS))]
    names = [n for n in names if not args.cases or any(c in n for c in args.cases)]
    sides = {
        "before": _Worker(Path(args.before).resolve(), args.kernels),
        "after": _Worker(Path(args.after).resolve(), args.kernels),
    }
    rows = []
    try:
        for name in names:
            for _ in range(args.warm_up):
                for worker in sides.values():
                    worker.call(name)
            wall: dict[str, list[float]] = {"before": [], "after": []}
            ratios, cpu_ratios, same = [], [], True
            for i in range(args.pairs):
                order = ["before", "after"] if i % 2 == 0 else ["after", "before"]
                got = {side: sides[side].call(name) for side in order}
                for side in wall:
                    wall[side].append(got[side]["wall"] * 1e3)
                ratios.append(got["after"]["wall"] / got["before"]["wall"])
                cpu_ratios.append(got["after"]["cpu"] / max(got["before"]["cpu"], 1e-9))
                same = same and got["after"]["levels"] == got["before"]["levels"]
            q1, _, q3 = statistics.quantiles(ratios, n=4)
            rows.append(
                [
                    name,
                    f"{statistics.median(wall['before']):.1f}",
                    f"{statistics.median(wall['after']):.1f}",
                    f"{statistics.median(ratios):.3f}",
                    f"{q1:.2f}–{q3:.2f}",
                    f"{statistics.median(cpu_ratios):.3f}",
                    "yes" if same else "**no**",
                ]
            )
            print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
    finally:
        for worker in sides.values():
            worker.close()
    table = common.markdown_table(
        ["case", "before ms", "after ms", "ratio", "middle half", "CPU ratio", "same node"],
        rows,
        "lrrrrrl",
    )
    body = "\n".join(
        [
            *common.section_preamble(
                f"## Call against call: {args.record or 'A/B'}", command, info
            ),
            "",
            f"Before: {_commit(Path(args.before))}; after: {_commit(Path(args.after))}.",
            "",
            f"Each case: {args.warm_up} untimed pairs, then {args.pairs} pairs of calls, one "
            "per checkout, in alternating order; the ratio is after / before per pair "
            "(median, and the middle half of the pairs' ratios). Kernels: "
            f"{args.kernels}.",
            "",
            table,
        ]
    )
    print(body)
    if args.record:
        common.update_section(f"ab_{args.record}", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
