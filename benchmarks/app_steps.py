"""Response time of the ``anonkit app`` steps on Adult, and load + profile of 1M rows.

Times the functions each page calls (the Shiny layer adds one websocket round trip), the
median of ``--repeats`` runs after one warm-up:

* Adult (30,162 records): load, propose roles (profile), leak check, the hierarchy
  preview of every quasi-identifier, the run (Flash, k = 5, 5 % suppression), the
  alternatives, the explore tables and charts, the TOML;
* a ``--rows`` CSV resampled from Adult (``numpy.random.default_rng(--seed)``): load and
  profile (the Load and Roles pages).

The issue's targets: every Adult step but the run within 0.3 s, 1M rows loaded and
profiled within 10 s. ``--record`` writes the table into RESULTS.md.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/app_steps.py
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

from anonkit.app import export, results, workflow  # noqa: E402

SECTION = "app_steps"
TITLE = "## anonkit app: step response times"


def _time(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    value = fn()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return common.median(times), value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--record", action="store_true", help="write into RESULTS.md")
    args = parser.parse_args(argv)
    r = args.repeats
    rows: list[tuple[str, float, str]] = []

    t, loaded = _time(workflow.load_adult, r)
    rows.append(("Adult: load", t, "0.3 s"))
    t, starter = _time(lambda: workflow.propose(loaded), r)
    rows.append(("Adult: propose roles (profile)", t, "0.3 s"))
    roles = {p.column: p.role for p in starter.proposals}
    t, _ = _time(lambda: workflow.role_leaks(loaded.frame, roles), r)
    rows.append(("Adult: leak check", t, "0.3 s"))
    specs = workflow.default_hierarchies(loaded, starter)
    by = workflow.roles_by_kind(roles)
    qi = by["quasi_identifier"]
    t, _ = _time(lambda: [workflow.hierarchy_preview(loaded.frame, c, specs[c]) for c in qi], r)
    rows.append((f"Adult: preview all {len(qi)} hierarchies", t, "0.3 s"))
    keywords = results.anonymizer_keywords(
        by, specs, k=5, models=[], suppression_limit=0.05, algorithm="flash", metric="loss"
    )
    t, outcome = _time(lambda: results.run(results.RunRequest(loaded.frame, keywords)), r)
    rows.append(("Adult: run (Flash, k = 5, 5 %)", t, "-"))
    t, _ = _time(lambda: results.alternatives(outcome.estimator), r)
    rows.append(("Adult: alternatives (radius 2)", t, "0.3 s"))

    def explore() -> None:
        results.loss_rows(outcome.result)
        results.risk_rows(outcome.result)
        results.class_size_svg(outcome.result.classes.histogram)
        for c in qi:
            results.distribution_svgs(loaded.frame, outcome.result.release, c)

    t, _ = _time(explore, r)
    rows.append(("Adult: explore tables and charts", t, "0.3 s"))
    t, _ = _time(
        lambda: export.config_toml(
            input=loaded.path,
            read=loaded.read,
            roles=by,
            hierarchies=specs,
            k=5,
            suppression_limit=0.05,
            algorithm="flash",
            metric="loss",
        ),  # fmt: skip
        r,
    )
    rows.append(("Adult: TOML", t, "0.3 s"))

    rng = np.random.default_rng(args.seed)
    big = loaded.frame[rng.integers(0, loaded.frame.height, args.rows)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.csv"
        big.write_csv(path, separator=";")
        t, big_loaded = _time(lambda: workflow.load_table(path), 1)
        rows.append((f"{args.rows:,} rows: load", t, ""))
        t2, _ = _time(lambda: workflow.propose(big_loaded), 1)
        rows.append((f"{args.rows:,} rows: propose roles (profile)", t2, ""))
        rows.append((f"{args.rows:,} rows: load + profile", t + t2, "10 s"))

    table = common.markdown_table(
        ["step", "median", "target"],
        [(name, common.fmt_seconds(sec), target) for name, sec, target in rows],
        "lrr",
    )
    print(table)
    if args.record:
        lines = common.section_preamble(TITLE, common.command_line(argv))
        common.update_section(SECTION, "\n".join([*lines, "", table, ""]))


if __name__ == "__main__":
    main()
