"""The Spark engine on a jittered Adult-like table: count, search, release to Parquet.

The table is :mod:`scale_data`'s (issue 17: Adult rows resampled with replacement, age
jittered by up to 5 years, a skewed 5-digit zip; eight quasi-identifiers), generated once
and cached next to the streaming benchmark's copy. The hierarchies (Adult's files,
intervals for age, masking for zip) are built once from the file's distinct values, outside
the timings, and shared by both engines.

Steps, each timed in the same process (Spark start-up timed separately, excluded):

* ``count``: ``SparkEngine().count(path, qi, hierarchies)`` (the bottom snapshot), run
  twice: the first run in a fresh JVM (class loading, JIT, Python workers) is reported
  apart, the second counts;
* Spark's own floor for the count: ``groupBy`` of the raw quasi-identifier columns,
  ``count()``, ``collect()`` (no codes, no checks);
* ``search``: Flash for k-anonymity (``--k``, suppression limit ``--suppression``) on the
  snapshot, on the driver (the estimator's search, called directly);
* ``release``: ``SparkEngine().apply(path, plan)`` written with ``df.write.parquet``;
* the same three steps with the polars in-memory engine on the same file, and the polars
  floor (scan the Parquet file and group by the quasi-identifiers once, plus scan and write
  it once), for ratios.

Peak RSS: the Python driver's (``ru_maxrss``) and the Spark JVM's (``VmHWM`` of the JVM
process, which runs the local executors too).

Run from the repository root::

    PYTHONPATH=src .venv/bin/python benchmarks/spark_scale.py --rows 1000000
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common  # noqa: E402
import scale_data  # noqa: E402

from anonkit.algorithms.lattice import LATTICE_ALGORITHMS, Evaluator  # noqa: E402
from anonkit.core.encoding import EncodedTable  # noqa: E402
from anonkit.core.hierarchy import Hierarchy  # noqa: E402
from anonkit.core.lattice import Lattice  # noqa: E402
from anonkit.core.resolve import resolve_hierarchy  # noqa: E402
from anonkit.core.transform import ReleasePlan  # noqa: E402
from anonkit.engines.polars_engine import PolarsEngine  # noqa: E402
from anonkit.models import KAnonymity  # noqa: E402

SECTION = "spark_scale"
TITLE = "## Spark engine: count, search and release of a jittered Adult-like table"
QI = scale_data.QUASI_IDENTIFIERS


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=1_000_000, help="records (default 1,000,000)")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--suppression", type=float, default=0.04)
    p.add_argument("--master", default="local[2]", help="Spark master (default local[2])")
    p.add_argument("--driver-memory", default="2g")
    p.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "anonkit-scale")
    p.add_argument("--skip-polars", action="store_true", help="time the Spark engine only")
    p.add_argument("--output", type=Path, default=common.RESULTS_PATH)
    return p.parse_args(argv)


def build_hierarchies(path: Path) -> dict[str, Hierarchy]:
    """Each quasi-identifier's hierarchy, built from the distinct values in ``path``."""
    specs = scale_data.hierarchies()
    distinct = pl.scan_parquet(path).select(pl.col(c).unique().implode() for c in QI).collect()
    return {c: resolve_hierarchy(c, specs[c], distinct[c][0].sort()) for c in QI}


def plan_for(table: EncodedTable, k: int, suppression: float) -> ReleasePlan:
    """Flash's release plan for k-anonymity (as the full-domain estimator builds it)."""
    lattice = Lattice(table.heights)
    evaluator = Evaluator(table, lattice, [KAnonymity(k)], suppression, "loss")
    found = LATTICE_ALGORITHMS["flash"]().search(evaluator)
    cls, _, bad = evaluator.node_classes(found.node)
    codes = np.ascontiguousarray(cls.codes[: table.width][:, bad])
    return ReleasePlan(tuple(table.columns), table.hierarchies, found.levels, codes)


def jvm_peak_rss(spark: Any) -> int:
    """Peak resident memory of the Spark JVM in bytes (0 when unknown)."""
    try:
        pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except Exception:  # noqa: BLE001 - best effort, reported as unknown
        pass
    return 0


def python_peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def gb(n: int) -> str:
    return f"{n / 1e9:.2f} GB" if n else "unknown"


def timed(fn: Any) -> tuple[Any, float]:
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def run_spark(
    args: argparse.Namespace, path: Path, hierarchies: dict[str, Hierarchy]
) -> dict[str, Any]:
    from pyspark.sql import SparkSession

    from anonkit.engines.spark_engine import SparkEngine

    t = time.perf_counter()
    spark = (
        SparkSession.builder.master(args.master)
        .appName("anonkit-spark-scale")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    startup = time.perf_counter() - t
    engine = SparkEngine(spark)
    hs = [hierarchies[c] for c in QI]
    # the first job of a fresh JVM pays for class loading, JIT and Python workers
    _, t_cold = timed(lambda: engine.count(str(path), QI, hs))
    table, t_count = timed(lambda: engine.count(str(path), QI, hs))
    count_rss = python_peak_rss()  # before the floor, which collects Python rows
    raw = spark.read.parquet(str(path))
    _, t_floor = timed(lambda: raw.groupBy(*QI).count().collect())
    plan, t_search = timed(lambda: plan_for(table, args.k, args.suppression))
    out = args.data_dir / f"release_spark_{args.rows}.parquet"
    shutil.rmtree(out, ignore_errors=True)
    _, t_release = timed(lambda: engine.apply(str(path), plan).write.parquet(str(out)))
    released = spark.read.parquet(str(out))
    suppressed = released.filter(released["age"] == "*").count()
    jvm = jvm_peak_rss(spark)
    spark.stop()
    shutil.rmtree(out, ignore_errors=True)
    return {
        "startup": startup,
        "cold": t_cold,
        "count": t_count,
        "floor": t_floor,
        "count_rss": count_rss,
        "search": t_search,
        "release": t_release,
        "classes": table.snapshot.counts.size,
        "levels": plan.levels,
        "suppressed": suppressed,
        "jvm_rss": jvm,
    }


def run_polars(
    args: argparse.Namespace, path: Path, hierarchies: dict[str, Hierarchy]
) -> dict[str, Any]:
    engine = PolarsEngine()
    hs = [hierarchies[c] for c in QI]
    out = args.data_dir / f"release_polars_{args.rows}.parquet"

    def floor() -> None:
        pl.scan_parquet(path).group_by(QI).len().collect()
        pl.scan_parquet(path).sink_parquet(out)

    _, t_floor = timed(floor)
    frame, t_read = timed(lambda: pl.read_parquet(path))
    table, t_count = timed(lambda: engine.count(frame, QI, hs))
    plan, t_search = timed(lambda: plan_for(table, args.k, args.suppression))
    _, t_release = timed(lambda: engine.apply(frame, plan).write_parquet(out))
    out.unlink(missing_ok=True)
    return {
        "floor": t_floor,
        "read": t_read,
        "count": t_count,
        "search": t_search,
        "release": t_release,
        "levels": plan.levels,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    command = common.command_line()
    info = common.machine_info()
    path, t_gen = timed(
        lambda: scale_data.write(args.rows, args.data_dir / f"scale_{args.rows}.parquet")
    )
    hierarchies, t_build = timed(lambda: build_hierarchies(path))
    print(f"table {path} ready in {t_gen:.1f} s, hierarchies in {t_build:.1f} s", flush=True)
    spark = run_spark(args, path, hierarchies)
    driver_rss = python_peak_rss()
    polars = None if args.skip_polars else run_polars(args, path, hierarchies)
    spark_total = spark["count"] + spark["search"] + spark["release"]
    rows = [
        ["Spark start-up (excluded)", common.fmt_seconds(spark["startup"]), ""],
        ["Spark count, first (cold JVM, excluded)", common.fmt_seconds(spark["cold"]), ""],
        ["Spark count, second", common.fmt_seconds(spark["count"]), ""],
        [
            "Spark floor: groupBy(raw QI).count().collect()",
            common.fmt_seconds(spark["floor"]),
            f"count / floor {spark['count'] / spark['floor']:.2f}",
        ],
        ["search (driver, Flash)", common.fmt_seconds(spark["search"]), ""],
        ["Spark release -> Parquet", common.fmt_seconds(spark["release"]), ""],
        ["Spark total", common.fmt_seconds(spark_total), ""],
    ]
    if polars is not None:
        polars_total = polars["read"] + polars["count"] + polars["search"] + polars["release"]
        rows += [
            ["polars total (read, count, search, write)", common.fmt_seconds(polars_total), ""],
            ["polars floor (scan+group_by, scan+write)", common.fmt_seconds(polars["floor"]), ""],
            ["ratio Spark / polars", f"{spark_total / polars_total:.2f}", ""],
            ["ratio Spark / floor", f"{spark_total / polars['floor']:.2f}", ""],
        ]
        same = polars["levels"] == spark["levels"]
    else:
        same = None
    table_md = common.markdown_table(["step", "time", ""], rows, "lrl")
    notes = [
        f"- {args.rows:,} records, 8 quasi-identifiers, k = {args.k}, suppression limit "
        f"{args.suppression:.0%}; {spark['classes']:,} distinct combinations; "
        f"transformation {spark['levels']}, {spark['suppressed']:,} records suppressed"
        + ("" if same is None else f"; polars chose the same transformation: {same}"),
        f"- Spark master `{args.master}`, driver memory {args.driver_memory}; peak RSS of the "
        f"Spark JVM (driver and local executors) {gb(spark['jvm_rss'])}, of the Python "
        f"driver {gb(spark['count_rss'])} after the two counts, {gb(driver_rss)} after "
        "Spark's floor (which collects its groups as Python rows), before the polars run.",
    ]
    body = "\n".join([*common.section_preamble(TITLE, command, info), "", table_md, "", *notes])
    print(body)
    section = SECTION if args.rows == 1_000_000 else f"{SECTION}_{args.rows}"
    common.update_section(section, body, args.output)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    raise SystemExit(main())
