"""A real Spark standalone cluster (master + 2 workers on loopback) runs Mondrian through
``spark-submit`` (issue 17): the benchmark script, on a small table. Slow (JVM start-ups,
several minutes on a loaded machine), so out of the default run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from spark_support import SKIP_REASON

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(SKIP_REASON is not None, reason=str(SKIP_REASON)),
]


def test_spark_submit_to_a_standalone_cluster(tmp_path: Path) -> None:
    results = tmp_path / "RESULTS.md"
    command = [
        sys.executable,
        str(ROOT / "benchmarks" / "spark_cluster.py"),
        "--rows",
        "5000",
        "--algorithms",
        "mondrian",
        "--max-block-records",
        "2000",
        "--skip-single",
        "--data-dir",
        str(tmp_path),
        "--output",
        str(results),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1500)
    assert run.returncode == 0, run.stderr[-3000:]
    text = results.read_text(encoding="utf-8")
    assert "mondrian: verified True, smallest class 10" in text
    assert "spark://127.0.0.1:" in text
