"""Evaluate every information-loss metric and risk measure of a release (issue 5).

Times :func:`anonkit.evaluate.evaluate` (reading the release against the original, all
loss metrics, all risk measures) on:

* **adult-full-domain**: Adult (30,162 rows, 9 quasi-identifiers) anonymized by
  ``anonkit.anonymize`` (flash, ``--k``, ``--suppression``); with the class attribute
  (classification metric), the sensitive attribute (l-diversity) and a population size
  (Pitman population-uniqueness estimate);
* **adult-local-recoding**: the same release with ``age`` rewritten as the ``[min-max]``
  range of each class (a Mondrian-style local recoding read through the age hierarchy);
* **adult-subset-vs-population**: the 3,016-row Adult subset anonymized the same way,
  with Adult as the population table (journalist risk);
* **resampled-1m**: ``--rows`` rows (default 1,000,000) resampled with replacement from
  the Adult original *and* its release together (``numpy.random.default_rng(--seed)``),
  so the release keeps the Adult transformation.

Targets: ≤ 2 s for an Adult release, ≤ 30 s for 1,000,000 rows. Anonymization, reading
files and resampling happen before the timing. Results go to stdout; ``--record``
rewrites this script's section of ``benchmarks/RESULTS.md``.

Run from the repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/evaluate_adult.py [--record]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402

import anonkit  # noqa: E402
from anonkit.core.hierarchy import Hierarchy  # noqa: E402
from anonkit.evaluate import Evaluation, evaluate  # noqa: E402

SECTION = "evaluate_adult"
TITLE = "## Evaluate a release: every loss metric and risk measure"
TARGET_ADULT = 2.0
TARGET_1M = 30.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--k", type=int, default=5, help="k of the Adult release (default: 5)")
    p.add_argument(
        "--suppression", type=float, default=0.04, help="suppression limit (default: 0.04)"
    )
    p.add_argument("--rows", type=int, default=1_000_000, help="rows of the resampled case")
    p.add_argument("--seed", type=int, default=0, help="numpy default_rng seed (default: 0)")
    p.add_argument("--repeats", type=int, default=3, help="timed runs per case (default: 3)")
    p.add_argument(
        "--population-size",
        type=int,
        default=32_000_000,
        help="population size for the Pitman estimate (default: 32,000,000)",
    )
    p.add_argument("--data", default=str(common.ADULT_DIR), help="folder of the Adult files")
    p.add_argument(
        "--record",
        action="store_true",
        help="rewrite this script's section of the results file (default: print only)",
    )
    p.add_argument(
        "--output",
        default=str(common.RESULTS_PATH),
        help="Markdown results file for --record (default: benchmarks/RESULTS.md)",
    )
    args = p.parse_args(argv)
    if args.repeats < 1:
        p.error("--repeats must be >= 1")
    if args.rows < 1:
        p.error("--rows must be >= 1")
    return args


def timed(
    run: Callable[[], Evaluation], repeats: int, label: str
) -> tuple[list[float], Evaluation]:
    times: list[float] = []
    ev: Evaluation | None = None
    for i in range(repeats):
        start = time.perf_counter()
        ev = run()
        times.append(time.perf_counter() - start)
        print(
            f"{label}: run {i + 1}/{repeats} {common.fmt_seconds(times[-1])} "
            f"(read {common.fmt_seconds(ev.timing['read'])}, "
            f"loss {common.fmt_seconds(ev.timing['loss'])}, "
            f"risk {common.fmt_seconds(ev.timing['risk'])})",
            file=sys.stderr,
            flush=True,
        )
    assert ev is not None
    return times, ev


def age_ranges(original: pl.DataFrame, release: pl.DataFrame, qi: list[str]) -> pl.DataFrame:
    """``release`` with ``age`` replaced by the ``[min-max]`` of each release class."""
    key = release.select(pl.concat_str(qi, separator="|", ignore_nulls=False)).to_series()
    frame = pl.DataFrame({"key": key, "age": original["age"].cast(pl.Int64)})
    bounds = frame.group_by("key").agg(
        pl.col("age").min().alias("lo"), pl.col("age").max().alias("hi")
    )
    ranged = frame.join(bounds, on="key", how="left", maintain_order="left")
    labels = ranged.select(pl.format("[{}-{}]", "lo", "hi").alias("age")).to_series()
    suppressed = release["age"] == "*"
    labels = pl.select(
        pl.when(pl.lit(suppressed)).then(pl.lit("*")).otherwise(pl.lit(labels))
    ).to_series()
    return release.with_columns(labels.alias("age"))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    command = common.command_line()
    info = common.machine_info()
    qi = list(common.ADULT_COLUMNS)
    folder = Path(args.data)
    paths = {c: folder / f"adult_hierarchy_{c}.csv" for c in qi}
    hierarchies = {c: Hierarchy.from_csv(p, name=c) for c, p in paths.items()}
    adult = pl.read_csv(folder / "adult.csv", separator=";", infer_schema=False)
    subset = pl.read_csv(folder / "adult_subset.csv", separator=";", infer_schema=False)

    t0 = time.perf_counter()
    res = anonkit.anonymize(
        adult, quasi_identifiers=qi, hierarchies=hierarchies, k=args.k,
        suppression_limit=args.suppression,
    )  # fmt: skip
    res_sub = anonkit.anonymize(
        subset, quasi_identifiers=qi, hierarchies=hierarchies, k=args.k,
        suppression_limit=args.suppression,
    )  # fmt: skip
    local = age_ranges(adult, res.release, qi)
    rng = np.random.default_rng(args.seed)
    picks = rng.integers(0, adult.height, size=args.rows)
    big_original, big_release = adult[picks], res.release[picks]
    setup_s = time.perf_counter() - t0
    print(
        f"setup (anonymize, local recoding, resample) {common.fmt_seconds(setup_s)}; "
        f"transformation {dict(res.transformation)}, {res.suppressed} suppressed",
        file=sys.stderr,
    )

    common_kw: dict[str, Any] = {
        "quasi_identifiers": qi,
        "hierarchies": hierarchies,
        "k": args.k,
        "class_attribute": "salary-class",
        "sensitive": ["salary-class"],
    }
    cases: list[tuple[str, int, float, Callable[[], Evaluation]]] = [
        (
            "adult-full-domain",
            adult.height,
            TARGET_ADULT,
            lambda: evaluate(adult, res.release, population_size=args.population_size, **common_kw),
        ),
        (
            "adult-local-recoding",
            adult.height,
            TARGET_ADULT,
            lambda: evaluate(adult, local, population_size=args.population_size, **common_kw),
        ),
        (
            "adult-subset-vs-population",
            subset.height,
            TARGET_ADULT,
            lambda: evaluate(subset, res_sub.release, population=adult, **common_kw),
        ),
        (
            f"resampled-{args.rows:,}".replace(",", "_"),
            args.rows,
            TARGET_1M if args.rows > adult.height else TARGET_ADULT,
            lambda: evaluate(
                big_original,
                big_release,
                population_size=max(args.population_size, args.rows),
                **common_kw,
            ),  # fmt: skip
        ),
    ]
    rows: list[list[object]] = []
    all_met = True
    for name, n_rows, target, run in cases:
        times, ev = timed(run, args.repeats, name)
        med = common.median(times)
        met = med <= target
        all_met &= met
        print(
            f"{name}: median {common.fmt_seconds(med)} (target <= {target:g} s: "
            f"{'met' if met else 'MISSED'})",
            file=sys.stderr,
        )
        rows.append(
            [
                f"`{name}`",
                f"{n_rows:,}",
                f"{ev.classes.n_classes:,}",
                f"{ev.n_suppressed:,}",
                f"{ev.loss['loss']:.4f}",
                f"{ev.risk['prosecutor_max']:.4f}",
                common.fmt_seconds(ev.timing["read"]),
                common.fmt_seconds(ev.timing["loss"]),
                common.fmt_seconds(ev.timing["risk"]),
                f"**{common.fmt_seconds(med)}**",
                f"≤ {target:g} s: " + ("met" if met else "**missed**"),
            ]
        )

    table = common.markdown_table(
        [
            "case", "rows", "classes", "suppressed", "loss (LM)", "max prosecutor risk",
            "read", "loss metrics", "risk", f"total (median of {args.repeats})", "target",
        ],
        rows,
        align="lrrrrrrrrrl",
    )  # fmt: skip
    body = "\n".join(
        [
            *common.section_preamble(TITLE, command, info),
            f"- polars thread pool: {pl.thread_pool_size()} threads",
            "",
            f"Setup: Adult anonymized with `anonkit.anonymize` (flash, k = {args.k}, "
            f"suppression limit {args.suppression:g}; transformation "
            f"`{dict(res.transformation)}`, {res.suppressed:,} records suppressed). Each "
            "case times `anonkit.evaluate.evaluate(...)` end to end: reading the release "
            "against the original (every distinct label parsed once), the 12 loss metrics "
            "(height, relative distance, precision, LM, NCP, discernibility, C_avg, "
            "conditional and non-uniform entropy, KL divergence, CM on `salary-class`) and "
            "every risk measure (prosecutor, marketer, sample uniques, records at risk, "
            "Pitman population uniqueness; journalist against the population table in the "
            "subset case), with l-diversity of `salary-class`. The local-recoding case "
            "writes `age` as the `[min-max]` range of each class. The resampled case draws "
            f"{args.rows:,} (original, release) row pairs with replacement "
            f"(`numpy.random.default_rng({args.seed})`). Setup (anonymization, resampling) "
            f"took {common.fmt_seconds(setup_s)} and is not timed.",
            "",
            table,
            "",
            "- Targets: ≤ 2 s for an Adult release, ≤ 30 s for 1,000,000 rows — "
            + ("**all met**." if all_met else "**some missed**."),
        ]
    )
    print(body)
    if args.record:
        out = common.update_section(SECTION, body, args.output)
        print(f"wrote section '{SECTION}' of {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
