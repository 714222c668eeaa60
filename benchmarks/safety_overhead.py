"""What the safety checks of issue 15 cost on Adult: leak check, verification, reading.

``anonymize`` now checks the released columns for leaks before searching and re-checks
every release by an independent path before returning it. The script times, in one
process and interleaved (so that load on a noisy machine hits both sides alike):

* ``anonymize`` on Adult with 8 quasi-identifiers and ``salary-class`` released, k = 5,
  at 0 % and 4 % suppression, with ``leak_check=True`` and ``leak_check=False``
  (verification always runs: it cannot be switched off);
* ``anonymize`` with ``occupation`` sensitive under distinct 3-diversity (k = 5, 0 %),
  leak check on and off, on Adult and on Adult 33 times over: the fit counts the sensitive
  column with the quasi-identifiers, and the leak check reads that count for its
  dependencies (:class:`anonkit.estimators.leak_check.PendingLeaks`);
* the two checks alone: :func:`anonkit.safety.leaks.check_leaks` and
  :func:`anonkit.verify.verify_release` on that release, and the leak check with
  ``occupation`` released instead (on Adult, and on Adult 33 times over);
* :func:`anonkit.io.tables.read_table` of ``adult.csv``, which now also checks encoding,
  quoting and field counts, against a plain ``polars.read_csv``.

Reports medians of ``--repeats`` runs and the ratios. ``--record`` writes the section
``safety_overhead`` of ``benchmarks/RESULTS.md``. Run from the repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/safety_overhead.py [--record]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

import anonkit  # noqa: E402
from anonkit.core.hierarchy import Hierarchy  # noqa: E402
from anonkit.io.tables import read_table  # noqa: E402
from anonkit.models import DistinctLDiversity, KAnonymity  # noqa: E402
from anonkit.safety.leaks import check_leaks  # noqa: E402
from anonkit.verify import verify_release  # noqa: E402

SECTION = "safety_overhead"
TITLE = "## Cost of the safety checks on Adult (issue 15)"
QI = [c for c in common.ADULT_COLUMNS if c != "salary-class"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=15, help="runs per cell (%(default)s)")
    p.add_argument("--record", action="store_true", help="write the section of RESULTS.md")
    p.add_argument("--output", default=str(common.RESULTS_PATH), help="results file (%(default)s)")
    return p.parse_args(argv)


def _time(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def _on(leak: bool) -> str:
    return "on" if leak else "off"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    command = common.command_line()
    info = common.machine_info()
    frame = pl.read_csv(common.ADULT_CSV, separator=";", infer_schema=False)
    hierarchies = {c: Hierarchy.from_csv(common.adult_hierarchy_path(c), name=c) for c in QI}

    def run(limit: float, leak: bool) -> anonkit.AnonymizationResult:
        return anonkit.anonymize(
            frame, quasi_identifiers=QI, hierarchies=hierarchies, k=5,
            suppression_limit=limit, sensitive=["salary-class"], leak_check=leak,
        )  # fmt: skip

    cells: dict[str, Callable[[], object]] = {}
    for limit in (0.0, 0.04):
        cells[f"anonymize, {limit:.0%} suppression, leak check on"] = lambda lim=limit: run(
            lim, True
        )
        cells[f"anonymize, {limit:.0%} suppression, leak check off"] = lambda lim=limit: run(
            lim, False
        )
    release = run(0.04, False).release
    cells["check_leaks alone"] = lambda: check_leaks(
        frame, quasi_identifiers=QI, released=["salary-class"]
    )
    # a kept column without digits (the identifier patterns need one), and the table 33
    # times over (995,346 records)
    others = [c for c in common.ADULT_COLUMNS if c != "occupation"]
    big = pl.concat([frame] * 33)
    cells["check_leaks alone, occupation released"] = lambda: check_leaks(
        frame, quasi_identifiers=others, released=["occupation"]
    )
    cells["check_leaks alone, occupation released, Adult x33"] = lambda: check_leaks(
        big, quasi_identifiers=others, released=["occupation"]
    )
    diverse = [KAnonymity(5), DistinctLDiversity("occupation", 3)]
    occupation = {c: Hierarchy.from_csv(common.adult_hierarchy_path(c), name=c) for c in others}
    for label, table in (("Adult", frame), ("Adult x33", big)):
        for leak in (False, True):
            cells[f"anonymize, occupation 3-diverse, {label}, leak check {_on(leak)}"] = (
                lambda t=table, lk=leak: anonkit.anonymize(
                    t,
                    quasi_identifiers=others,
                    hierarchies=occupation,
                    privacy=diverse,
                    sensitive=["occupation"],
                    others="drop",
                    leak_check=lk,
                )
            )
    cells["verify_release alone"] = lambda: verify_release(
        release, quasi_identifiers=QI, models=[KAnonymity(5)], n_records=frame.height,
        suppression_limit=0.04,
    )  # fmt: skip
    cells["read_table(adult.csv)"] = lambda: read_table(common.ADULT_CSV)
    cells["polars.read_csv(adult.csv)"] = lambda: pl.read_csv(
        common.ADULT_CSV, separator=";", infer_schema=False
    )
    for fn in cells.values():  # warm up (numba, caches)
        fn()
    times: dict[str, list[float]] = {name: [] for name in cells}
    for _ in range(args.repeats):  # interleaved
        for name, fn in cells.items():
            times[name].append(_time(fn))
    med = {name: common.median(ts) for name, ts in times.items()}

    rows = ["| step | median | ratio |", "|---|---:|---:|"]
    for limit in ("0%", "4%"):
        on = med[f"anonymize, {limit} suppression, leak check on"]
        off = med[f"anonymize, {limit} suppression, leak check off"]
        rows.append(
            f"| anonymize, {limit} suppression, leak check off | {common.fmt_seconds(off)} | 1.00 |"
        )
        rows.append(
            f"| anonymize, {limit} suppression, leak check on | {common.fmt_seconds(on)} | "
            f"{on / off:.2f} |"
        )
    for label in ("Adult", "Adult x33"):
        off = med[f"anonymize, occupation 3-diverse, {label}, leak check off"]
        on = med[f"anonymize, occupation 3-diverse, {label}, leak check on"]
        name = f"anonymize, occupation 3-diverse, {label}, leak check"
        rows.append(f"| {name} off | {common.fmt_seconds(off)} | 1.00 |")
        rows.append(f"| {name} on | {common.fmt_seconds(on)} | {on / off:.2f} |")
    leaks = [name for name in cells if name.startswith("check_leaks")]
    for name in (*leaks, "verify_release alone"):
        rows.append(f"| {name} | {common.fmt_seconds(med[name])} | |")
    base = med["polars.read_csv(adult.csv)"]
    rows.append(f"| polars.read_csv(adult.csv) | {common.fmt_seconds(base)} | 1.00 |")
    strict = med["read_table(adult.csv)"]
    rows.append(f"| read_table(adult.csv) | {common.fmt_seconds(strict)} | {strict / base:.2f} |")
    body = "\n".join(
        [
            *common.section_preamble(TITLE, command, info),
            "",
            f"Adult (30,162 records), quasi-identifiers {', '.join(QI)}, `salary-class` "
            "released as sensitive, k = 5 (occupation 3-diverse: the other eight columns "
            "quasi-identifiers, `occupation` sensitive); medians of "
            f"{args.repeats} interleaved runs in one process. Ratios are against the line "
            "marked 1.00 above them.",
            "",
            *rows,
        ]
    )
    print(body)
    if args.record:
        common.update_section(SECTION, body, args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
