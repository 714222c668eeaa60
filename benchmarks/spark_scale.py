"""The Spark engine on a jittered Adult-like table: count, search, release to Parquet.

The table (issue 17): Adult rows resampled with replacement
(``numpy.random.default_rng(--seed)``), age jittered by a uniform integer in -5..5 (clipped
to the age hierarchy's leaves), and a skewed 5-digit zip code (Zipf-distributed rank over
2,000 codes, generalized by dropping digits). Eight quasi-identifiers: age, sex, race,
marital-status, education, native-country, workclass, zip; occupation and salary-class are
carried along. The Parquet file is written once per row count and reused.

Steps, each timed in the same process (Spark start-up timed separately, excluded):

* ``count``: ``SparkEngine().count(path, qi, hierarchies)`` (the bottom snapshot);
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

from anonkit.algorithms.lattice import LATTICE_ALGORITHMS, Evaluator  # noqa: E402
from anonkit.core.encoding import EncodedTable  # noqa: E402
from anonkit.core.hierarchy import Hierarchy  # noqa: E402
from anonkit.core.lattice import Lattice  # noqa: E402
from anonkit.core.transform import ReleasePlan  # noqa: E402
from anonkit.datasets import load_adult  # noqa: E402
from anonkit.engines.polars_engine import PolarsEngine  # noqa: E402
from anonkit.models import KAnonymity  # noqa: E402

SECTION = "spark_scale"
TITLE = "## Spark engine: count, search and release of a jittered Adult-like table"
QI = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass", "zip"]
ZIPS = 2_000


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=1_000_000, help="records (default 1,000,000)")
    p.add_argument("--seed", type=int, default=17)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--suppression", type=float, default=0.04)
    p.add_argument("--master", default="local[2]", help="Spark master (default local[2])")
    p.add_argument("--driver-memory", default="2g")
    p.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "anonkit_scale")
    p.add_argument("--skip-polars", action="store_true", help="time the Spark engine only")
    p.add_argument("--output", type=Path, default=common.RESULTS_PATH)
    return p.parse_args(argv)


def zip_codes(seed: int) -> list[str]:
    """The ``ZIPS`` distinct 5-digit codes the table draws from, most frequent first."""
    rng = np.random.default_rng(seed + 1)
    codes = rng.choice(np.arange(10_000, 100_000), size=ZIPS, replace=False)
    return [str(int(c)) for c in codes]


def zip_hierarchy(codes: list[str]) -> Hierarchy:
    """5 digits, 4 + ``*``, 3 + ``**``, 2 + ``***``, 1 + ``****``, then ``*``."""
    return Hierarchy(
        [[c, *[c[:i] + "*" * (5 - i) for i in (4, 3, 2, 1)], "*"] for c in sorted(codes)],
        name="zip",
    )


def generate(rows: int, seed: int, path: Path) -> dict[str, Hierarchy]:
    """Write the jittered table to ``path`` (unless it is there) and return the QIs'
    hierarchies."""
    adult, paths = load_adult()
    hierarchies = {c: Hierarchy.from_csv(paths[c], name=c) for c in QI if c != "zip"}
    codes = zip_codes(seed)
    hierarchies["zip"] = zip_hierarchy(codes)
    if path.exists():
        return hierarchies
    rng = np.random.default_rng(seed)
    picked = adult[rng.integers(0, adult.height, rows)]
    ages = np.asarray([int(a) for a in hierarchies["age"].leaves])
    jittered = picked["age"].cast(pl.Int64).to_numpy() + rng.integers(-5, 6, rows)
    ranks = rng.zipf(1.3, rows) - 1  # the tail past ZIPS is spread evenly over all codes
    tail = ranks >= ZIPS
    ranks[tail] = rng.integers(0, ZIPS, int(tail.sum()))
    frame = picked.with_columns(
        pl.Series("age", np.clip(jittered, ages.min(), ages.max()).astype(str)),
        pl.Series("zip", np.asarray(codes)[ranks]),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    frame.write_parquet(tmp)
    tmp.replace(path)
    return hierarchies


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
    table, t_count = timed(lambda: engine.count(str(path), QI, hs))
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
        "count": t_count,
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
    path = args.data_dir / f"adult_jitter_{args.rows}_{args.seed}.parquet"
    hierarchies, t_gen = timed(lambda: generate(args.rows, args.seed, path))
    print(f"table {path} ready in {t_gen:.1f} s", flush=True)
    spark = run_spark(args, path, hierarchies)
    driver_rss = python_peak_rss()
    polars = None if args.skip_polars else run_polars(args, path, hierarchies)
    spark_total = spark["count"] + spark["search"] + spark["release"]
    rows = [
        ["Spark start-up (excluded)", common.fmt_seconds(spark["startup"]), ""],
        ["Spark count", common.fmt_seconds(spark["count"]), ""],
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
        f"driver {gb(driver_rss)} (measured before the polars run, which follows).",
    ]
    body = "\n".join([*common.section_preamble(TITLE, command, info), "", table_md, "", *notes])
    print(body)
    common.update_section(SECTION, body, args.output)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    raise SystemExit(main())
