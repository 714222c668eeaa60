"""Whole ``anonymize()`` calls on Adult, with the encode / search / release breakdown.

The lattice benchmarks time the search on a table encoded once; users pay for the whole
call: reading the frame, counting, searching, writing and verifying the release. This
script times that call in one process (warm: the first call of each case is not timed)
for the cases below, and reports per case the median wall time and the median of each
stage of ``result.timing``:

* 9 quasi-identifiers, k = 2, 10, 100, at 0 % and 4 % suppression;
* 8 quasi-identifiers with ``occupation`` sensitive, k = 5 and entropy ℓ-diversity ℓ = 3,
  at 5 % suppression.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/anonymize_adult.py [--repeats 15] [--record]

``--record`` writes the section ``anonymize_adult`` of ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402
import polars as pl  # noqa: E402

import anonkit  # noqa: E402
from anonkit.models import EntropyLDiversity  # noqa: E402

SENSITIVE = "occupation"


def cases(columns: list[str]) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for supp in (0.0, 0.04):
        for k in (2, 10, 100):
            out.append((f"k={k}, {supp:.0%}", {"k": k, "suppression_limit": supp}))
    qi = [c for c in columns if c != SENSITIVE]
    out.append(
        (
            "k=5, entropy l=3, 5%",
            {
                "k": 5,
                "suppression_limit": 0.05,
                "quasi_identifiers": qi,
                "sensitive": [SENSITIVE],
                "privacy": [EntropyLDiversity(SENSITIVE, 3)],
            },
        )
    )
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--record", action="store_true", help="write the results to RESULTS.md")
    args = p.parse_args(argv)
    command, info = common.command_line(), common.machine_info()
    frame = pl.read_csv(common.ADULT_CSV, separator=";", infer_schema=False)
    columns = list(common.ADULT_COLUMNS)
    paths = {c: common.adult_hierarchy_path(c) for c in columns}
    rows = []
    for name, options in cases(columns):
        kwargs: dict[str, Any] = {
            "quasi_identifiers": columns,
            "hierarchies": {c: paths[c] for c in columns},
            "others": "drop",
            **options,
        }
        anonkit.anonymize(frame, **kwargs)  # warm-up
        walls: list[float] = []
        stages: dict[str, list[float]] = {"encode": [], "search": [], "release": []}
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            result = anonkit.anonymize(frame, **kwargs)
            walls.append(time.perf_counter() - t0)
            for stage, values in stages.items():
                values.append(result.timing[stage])
        med = {s: statistics.median(v) * 1000 for s, v in stages.items()}
        rows.append(
            f"| {name} | {statistics.median(walls) * 1000:.1f} | {med['encode']:.1f} "
            f"| {med['search']:.1f} | {med['release']:.1f} |"
        )
        print(rows[-1], flush=True)
    table = "\n".join(
        [
            "| case | wall ms | encode ms | search ms | release ms |",
            "|---|---:|---:|---:|---:|",
            *rows,
        ]
    )
    print(table)
    if args.record:
        lines = common.section_preamble("## Whole anonymize() calls on Adult", command, info)
        lines += ["", f"Medians of {args.repeats} warm calls per case.", "", table, ""]
        common.update_section("anonymize_adult", "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
