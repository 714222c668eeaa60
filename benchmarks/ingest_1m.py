"""Disk -> frequency snapshot for a 1,000,000-row table.

Builds a CSV of ``--rows`` records by resampling Adult rows with replacement
(``numpy.random.default_rng(--seed)``), then times, ``--repeats`` times (median reported):

* read: ``polars.read_csv(path, separator=";", infer_schema=False)``
* encode + count: ``PolarsEngine().count(frame, columns, hierarchies)`` for all 9 columns
  (dictionary-encode against the hierarchies, then group and count the combinations).

Hierarchies are loaded once, outside the timing (their load time is reported too).
The file has just been written, so it is read from the OS page cache.

End to end (issue 19's 1M-row cell): ``anonkit.anonymize(path, ...)`` on the file, all 9
columns quasi-identifiers with the hierarchy files, k = 5, 4 % suppression, Flash: read
the CSV (strictly), the hierarchies, count, search, release, verify; with the stages of
``result.timing``.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/ingest_1m.py
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

import anonkit  # noqa: E402
from anonkit.core.hierarchy import Hierarchy  # noqa: E402
from anonkit.engines.polars_engine import PolarsEngine  # noqa: E402

SECTION = "ingest_1m"
TITLE = "## Ingest 1M rows: disk -> snapshot"
TARGET_TOTAL = 3.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=1_000_000, help="rows to generate (default: 1e6)")
    p.add_argument("--seed", type=int, default=0, help="numpy default_rng seed (default: 0)")
    p.add_argument("--repeats", type=int, default=3, help="timed runs (default: 3)")
    p.add_argument(
        "--path",
        default=None,
        help="where to write the generated CSV (default: a temporary directory, removed "
        "afterwards); an existing file is overwritten",
    )
    p.add_argument("--data", default=str(common.ADULT_CSV), help="Adult CSV (';'-separated)")
    p.add_argument(
        "--output",
        default=str(common.RESULTS_PATH),
        help="Markdown results file; only this script's section is rewritten "
        "(default: benchmarks/RESULTS.md)",
    )
    args = p.parse_args(argv)
    if args.repeats < 1:
        p.error("--repeats must be >= 1")
    if args.rows < 1:
        p.error("--rows must be >= 1")
    return args


def build(source: Path, target: Path, rows: int, seed: int) -> tuple[int, float]:
    """Write ``rows`` rows resampled from ``source`` to ``target``; return (size, seconds)."""
    start = time.perf_counter()
    adult = pl.read_csv(source, separator=";", infer_schema=False)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, adult.height, size=rows)
    adult[picks].write_csv(target, separator=";")
    return target.stat().st_size, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    command = common.command_line()
    info = common.machine_info()
    columns = list(common.ADULT_COLUMNS)

    with contextlib.ExitStack() as stack:
        if args.path:
            path = Path(args.path)
            path.parent.mkdir(parents=True, exist_ok=True)
        else:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="anonkit-ingest-"))
            path = Path(tmp) / f"adult_{args.rows}.csv"
        size, build_s = build(Path(args.data), path, args.rows, args.seed)
        print(
            f"built {path} ({args.rows:,} rows, {size / 1e6:.1f} MB) in "
            f"{common.fmt_seconds(build_s)}",
            file=sys.stderr,
        )

        t0 = time.perf_counter()
        hierarchies = [Hierarchy.from_csv(common.adult_hierarchy_path(c), name=c) for c in columns]
        hier_s = time.perf_counter() - t0

        reads: list[float] = []
        encodes: list[float] = []
        totals: list[float] = []
        ends: list[float] = []
        stages: dict[str, list[float]] = {"encode": [], "search": [], "release": []}
        files = {c: str(common.adult_hierarchy_path(c)) for c in columns}
        n_classes = n_records = 0
        for run in range(1, args.repeats + 1):
            start = time.perf_counter()
            frame = pl.read_csv(path, separator=";", infer_schema=False)
            mid = time.perf_counter()
            encoded = PolarsEngine().count(frame, columns, hierarchies)
            end = time.perf_counter()
            reads.append(mid - start)
            encodes.append(end - mid)
            totals.append(end - start)
            n_classes, n_records = encoded.snapshot.n_classes, encoded.n_records
            del frame, encoded
            begin = time.perf_counter()
            result = anonkit.anonymize(
                path,
                quasi_identifiers=columns,
                hierarchies=files,
                k=5,
                suppression_limit=0.04,
                algorithm="flash",
            )
            ends.append(time.perf_counter() - begin)
            for stage, values in stages.items():
                values.append(result.timing[stage])
            del result
            print(
                f"run {run}/{args.repeats}: read {common.fmt_seconds(reads[-1])}, encode+count "
                f"{common.fmt_seconds(encodes[-1])}, total {common.fmt_seconds(totals[-1])}; "
                f"{n_records:,} records, {n_classes:,} distinct combinations; end to end "
                f"{common.fmt_seconds(ends[-1])}",
                file=sys.stderr,
                flush=True,
            )

    read_m, enc_m, tot_m = (common.median(x) for x in (reads, encodes, totals))
    meets = tot_m <= TARGET_TOTAL
    print(
        f"median: read {common.fmt_seconds(read_m)}, encode+count {common.fmt_seconds(enc_m)}, "
        f"total {common.fmt_seconds(tot_m)} (target <= {TARGET_TOTAL:g} s: "
        f"{'met' if meets else 'MISSED'})",
        file=sys.stderr,
    )

    table = common.markdown_table(
        ["step", f"median of {args.repeats}", "min", "max"],
        [
            [
                "read (`pl.read_csv`)",
                common.fmt_seconds(read_m),
                common.fmt_seconds(min(reads)),
                common.fmt_seconds(max(reads)),
            ],
            [
                "encode + count (`PolarsEngine().encode`)",
                common.fmt_seconds(enc_m),
                common.fmt_seconds(min(encodes)),
                common.fmt_seconds(max(encodes)),
            ],
            [
                "**total**",
                f"**{common.fmt_seconds(tot_m)}**",
                common.fmt_seconds(min(totals)),
                common.fmt_seconds(max(totals)),
            ],
            [
                "end to end: `anonymize(path, k=5, 4 %)`",
                common.fmt_seconds(common.median(ends)),
                common.fmt_seconds(min(ends)),
                common.fmt_seconds(max(ends)),
            ],
            *(
                [
                    f"… of which {stage} (`result.timing`)",
                    common.fmt_seconds(common.median(values)),
                    common.fmt_seconds(min(values)),
                    common.fmt_seconds(max(values)),
                ]
                for stage, values in stages.items()
            ),
        ],
        align="lrrr",
    )
    body = "\n".join(
        [
            *common.section_preamble(TITLE, command, info),
            f"- polars thread pool: {pl.thread_pool_size()} threads",
            "",
            f"Setup: {n_records:,} rows resampled with replacement from Adult "
            f"(`numpy.random.default_rng({args.seed})`), written as a `;`-separated CSV "
            f"({size / 1e6:.1f} MB, built in {common.fmt_seconds(build_s)}, read back from "
            "the OS page cache); all 9 columns as quasi-identifiers. Hierarchies are loaded "
            f"once outside the timing ({common.fmt_seconds(hier_s)}).",
            "",
            'Measured: `pl.read_csv(path, separator=";", infer_schema=False)` then '
            "`PolarsEngine().count(frame, columns, hierarchies)` (encode against the "
            "hierarchies + group-by count into the bottom frequency snapshot).",
            "",
            table,
            "",
            f"- Distinct combinations (snapshot rows): {n_classes:,}",
            f"- Target: total ≤ {TARGET_TOTAL:g} s — "
            + ("**met**" if meets else "**missed**")
            + f" ({common.fmt_seconds(tot_m)}).",
        ]
    )
    out = common.update_section(SECTION, body, args.output)
    print(f"wrote section '{SECTION}' of {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
