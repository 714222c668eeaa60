"""SafePub on Adult (9 quasi-identifiers): time, k, sample size, suppression and classes,
next to Flash at SafePub's k with suppression allowed; then m-invariant successive releases
of Adult (one release, then another after 1,000 deletions).

Run: ``.venv/bin/python benchmarks/dp_adult.py``.
"""

from __future__ import annotations

import platform
import time

import polars as pl

from anonkit import anonymize
from anonkit.datasets import ADULT_COLUMNS, load_adult
from anonkit.estimators.safepub import SafePub
from anonkit.releases import publish


def main() -> None:
    frame, hierarchies = load_adult()
    qi = list(ADULT_COLUMNS)
    hs = {c: hierarchies[c] for c in qi}
    print(f"# {platform.processor() or platform.machine()}, {frame.height} records, {len(qi)} QIs")
    print("| run | ε | δ | k | sample | suppressed | classes | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for eps in (1.0, 2.0, 3.0):
        t = time.perf_counter()
        est = SafePub(epsilon=eps, delta=1e-5, steps=100, seed=1).fit(
            frame, quasi_identifiers=qi, hierarchies=hs, others="drop"
        )
        dt = time.perf_counter() - t
        r = est.result_
        d = r.details
        print(
            f"| SafePub granularity | {eps} | 1e-5 | {d['k']} | {d['sample_size']} | "
            f"{r.suppressed} | {r.classes.n_classes} | {dt:.2f} |"
        )
        t = time.perf_counter()
        flash = anonymize(
            frame.select(qi), quasi_identifiers=qi, hierarchies=hs, k=d["k"], suppression_limit=1.0
        )
        dt = time.perf_counter() - t
        print(
            f"| Flash (k of SafePub, limit 1) | - | - | {d['k']} | {frame.height} | "
            f"{flash.suppressed} | {flash.classes.n_classes} | {dt:.2f} |"
        )
    # successive releases: 5 quasi-identifiers, occupation sensitive, m = 3
    table = frame.with_row_index("pid").with_columns(
        pl.col("pid").cast(pl.String), pl.col("age").cast(pl.Int64)
    )
    cols = ["age", "sex", "race", "marital-status", "education"]
    kw = {"id_column": "pid", "quasi_identifiers": cols, "sensitive": "occupation", "m": 3}
    print()
    print("| release | records | counterfeits | classes | seconds |")
    print("|---|---|---|---|---|")
    history = None
    for name, part in (("first", table), ("after 1,000 deletions", table.slice(1000))):
        t = time.perf_counter()
        rel = publish(part, history=history, numeric=["age"], **kw)
        dt = time.perf_counter() - t
        history = rel.history
        fakes = int(rel.counterfeits["counterfeits"].sum())
        print(f"| {name} | {part.height} | {fakes} | {rel.counterfeits.height} | {dt:.2f} |")


if __name__ == "__main__":
    main()
