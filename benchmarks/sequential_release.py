"""Sequential releases (m-invariance) of Adult: a first release and the next one.

:func:`anonkit.releases.publish` divides the records by the signature an earlier release
gave them, balances and splits the buckets, assigns the new records to classes and writes
the release with its counterfeits and the updated history. The script times, on Adult
repeated ``--scales`` times (each row given an id), in one process after one warm-up:

* the **first** release: the first half of the rows, no history (every record in the
  pool);
* the **second** release: the rows from the first quarter on, with the first release's
  history (a third of the rows deleted, as many inserted: buckets to balance, a pool of
  new records).

Quasi-identifiers ``age``, ``sex``, ``race`` (released as value sets), sensitive
``occupation``, m = 3. Reports the median of ``--repeats`` runs of each cell, the rows
released and the classes. ``--json`` prints one JSON object per cell (``case``, ``wall``
in ms: for ``ab_compare.py --per-case wall``); ``--record`` writes the section
``sequential_release`` of ``benchmarks/RESULTS.md``. Run from the repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/sequential_release.py [--repeats 3] [--record]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import polars as pl

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

from anonkit.releases import SequentialRelease, publish  # noqa: E402

SECTION = "sequential_release"
TITLE = "## Sequential releases of Adult (m-invariance)"
QI = ["age", "sex", "race"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=3, help="runs per cell (%(default)s)")
    p.add_argument("--scales", default="1,10", help="Adult repeated N times (%(default)s)")
    p.add_argument("--json", action="store_true", help="one JSON object per cell")
    p.add_argument("--record", action="store_true", help="write the section of RESULTS.md")
    p.add_argument("--output", default=str(common.RESULTS_PATH), help="results file (%(default)s)")
    return p.parse_args(argv)


def _timed(frame: pl.DataFrame, first: SequentialRelease | None) -> tuple[float, SequentialRelease]:
    t = time.perf_counter()
    history = first.history if first is not None else None
    release = publish(
        frame, id_column="id", quasi_identifiers=QI, sensitive="occupation", m=3, history=history
    )
    return time.perf_counter() - t, release


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    command, info = common.command_line(), common.machine_info()
    adult = pl.read_csv(common.ADULT_CSV, separator=";", infer_schema=False)
    rows = []
    for scale in [int(s) for s in args.scales.split(",") if s.strip()]:
        frame = pl.concat([adult] * scale).with_row_index("id")
        now = frame.head(frame.height // 2)
        later = frame.slice(frame.height // 4)
        _, first = _timed(now, None)  # warm-up
        _timed(later, first)
        times: dict[str, list[float]] = {"first": [], "second": []}
        second = first
        for _ in range(args.repeats):
            wall, first = _timed(now, None)
            times["first"].append(wall)
            wall, second = _timed(later, first)
            times["second"].append(wall)
        for name, release, n in (("first", first, now.height), ("second", second, later.height)):
            case = f"Adult x{scale}, {name} release ({n:,} records)"
            wall = common.median(times[name])
            classes = release.counterfeits.height
            if args.json:
                print(json.dumps({"case": case, "wall": wall * 1000}), flush=True)
            rows.append(
                [case, common.fmt_seconds(wall), f"{release.table.height:,}", f"{classes:,}"]
            )
            print(f"{case}: {common.fmt_seconds(wall)}", file=sys.stderr, flush=True)
    table = common.markdown_table(["cell", "median", "rows released", "classes"], rows, "lrrr")
    body = "\n".join(
        [
            *common.section_preamble(TITLE, command, info),
            "",
            f"`publish(..., quasi_identifiers={QI}, sensitive='occupation', m=3)` on Adult "
            "repeated N times with a row id: the first half of the rows (first release), "
            "then the rows from the first quarter on with the first release's history "
            f"(second release); medians of {args.repeats} runs after one warm-up.",
            "",
            table,
        ]
    )
    if not args.json:
        print(body)
    if args.record:
        common.update_section(SECTION, body, args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
