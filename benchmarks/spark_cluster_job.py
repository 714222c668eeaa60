"""The Spark application :mod:`spark_cluster` submits: anonymize the benchmark table.

Run by ``spark-submit`` (see ``docs/spark.md``)::

    spark-submit --master spark://127.0.0.1:7077 benchmarks/spark_cluster_job.py \\
        /tmp/anonkit-scale/scale_1000000.parquet /tmp/anonkit-cluster --algorithms flash,mondrian

For each algorithm it anonymizes the table with ``engine="spark"`` (k-anonymity; Flash
with a suppression limit, Mondrian per block), writes the release under the output
folder (verified from what was written, then renamed into place) and prints one JSON
line of figures (never a record). The Spark session's start-up is timed apart.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.dont_write_bytecode = True  # keep benchmarks/ free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))

import scale_data  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("source", help="the table (Parquet)")
    p.add_argument("output", help="folder for the releases")
    p.add_argument("--algorithms", default="flash,mondrian")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--suppression", type=float, default=0.04, help="Flash's limit")
    p.add_argument("--max-block-records", type=int, default=250_000)
    args = p.parse_args(argv)

    t = time.perf_counter()
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("anonkit-cluster-benchmark").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    startup = time.perf_counter() - t
    print(json.dumps({"startup": startup, "master": spark.sparkContext.master}), flush=True)

    from anonkit import anonymize
    from anonkit.estimators import Mondrian

    settings = {
        "quasi_identifiers": scale_data.QUASI_IDENTIFIERS,
        "hierarchies": scale_data.hierarchies(),
        "sensitive": [scale_data.SENSITIVE],
        "insensitive": [scale_data.INSENSITIVE],
        "k": args.k,
    }
    for algorithm in args.algorithms.split(","):
        source = spark.read.parquet(args.source)
        target = str(Path(args.output) / f"{algorithm}.parquet")
        t = time.perf_counter()
        if algorithm == "mondrian":
            estimator = Mondrian(engine="spark", max_block_records=args.max_block_records)
            result = anonymize(source, algorithm=estimator, output=target, **settings)
        else:
            result = anonymize(
                source,
                engine="spark",
                algorithm=algorithm,
                suppression_limit=args.suppression,
                output=target,
                **settings,
            )
        seconds = time.perf_counter() - t
        figures = {
            "algorithm": algorithm,
            "seconds": seconds,
            "timing": dict(result.timing),
            "verified": result.verified,
            "n_records": result.n_records,
            "suppressed": result.suppressed,
            "min_class": result.classes.min_size,
            "classes": result.classes.n_classes,
            "transformation": dict(result.transformation),
            "ncp": result.metrics.get("ncp"),
            "mondrian": dict(result.details.get("mondrian", {})),
        }
        print(json.dumps(figures), flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
