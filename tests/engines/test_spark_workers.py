"""``anonkit anonymize`` with ``engine = "spark"`` and Spark's Python workers: a local
session runs them with anonkit's interpreter when PYSPARK_PYTHON is unset, and workers
that cannot run anonkit are one paragraph saying what to set, not a traceback."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

pytest.importorskip("pyspark", reason="pyspark is not installed (the spark extra)")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Java is not installed (Spark needs a JVM)", allow_module_level=True)

from anonkit.cli.main import app  # noqa: E402
from anonkit.datasets import adult_path  # noqa: E402

QI = ["age", "sex", "race"]


def _no_anonkit_python(folder: Path, name: str = "python3") -> Path:
    """A program that runs this interpreter without its site-packages (``-S``): a
    Python of the right version that cannot import anonkit (Spark ships pyspark)."""
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / name
    program.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "$@"\n', encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return program


def _config(folder: Path, algorithm: str = "mondrian") -> Path:
    frame = pl.read_csv(adult_path() / "adult.csv", separator=";", infer_schema=False)
    data = folder / "adult.csv"
    frame.select(QI).head(2000).write_csv(data)
    hierarchies = "\n".join(f'"{c}" = "{adult_path() / f"adult_hierarchy_{c}.csv"}"' for c in QI)
    path = folder / "run.toml"
    path.write_text(
        f'input = "{data}"\noutput = "{folder / "out.csv"}"\n\n[attributes]\n'
        f"quasi_identifiers = {json.dumps(QI)}\n\n[hierarchies]\n{hierarchies}\n\n"
        f'[privacy]\nk = 5\nsuppression_limit = 0.02\n\n[search]\nengine = "spark"\n'
        f'algorithm = "{algorithm}"\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture
def worker_python(spark: Any) -> Iterator[Any]:
    """The fixture session's context, its worker Python restored afterwards."""
    context = spark.sparkContext
    before = context.pythonExec
    yield context
    context.pythonExec = before


def test_a_local_session_runs_its_workers_with_this_python(
    spark: Any, worker_python: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anonkit.engines.spark_session import local_workers

    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    worker_python.pythonExec = "python3"  # pyspark's default when PYSPARK_PYTHON is unset
    local_workers(spark)
    assert worker_python.pythonExec == sys.executable
    monkeypatch.setenv("PYSPARK_PYTHON", "/opt/elsewhere/python")
    worker_python.pythonExec = "/opt/elsewhere/python"
    local_workers(spark)  # what the user set is kept
    assert worker_python.pythonExec == "/opt/elsewhere/python"


def test_workers_without_anonkit_are_a_paragraph_saying_what_to_set(
    spark: Any, worker_python: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PYSPARK_PYTHON names a Python without anonkit: Mondrian's tasks cannot load; the
    command says so and what to set, exit 2, no traceback (it printed Spark's)."""
    program = _no_anonkit_python(tmp_path / "bin")
    monkeypatch.setenv("PYSPARK_PYTHON", str(program))
    worker_python.pythonExec = str(program)
    res = CliRunner().invoke(app, ["anonymize", str(_config(tmp_path)), "--no-progress"])
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    message = " ".join(res.stderr.split())
    assert res.exit_code == 2
    assert f"PYSPARK_PYTHON={program}, has no anonkit installed" in message
    assert f"PYSPARK_PYTHON={sys.executable}" in message
    assert "Traceback" not in res.stderr
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.slow
def test_the_command_runs_without_pyspark_python(tmp_path: Path) -> None:
    """A fresh ``anonkit anonymize`` (its own local session) without PYSPARK_PYTHON, where
    the ``python3`` on the PATH has no anonkit: Spark's default worker Python. Mondrian's
    tasks ran there and the command printed a traceback."""
    bin_folder = tmp_path / "bin"
    _no_anonkit_python(bin_folder)
    env = {k: v for k, v in os.environ.items() if k != "PYSPARK_PYTHON"}
    env["PATH"] = f"{bin_folder}{os.pathsep}{env.get('PATH', '')}"
    anonkit = Path(sys.executable).with_name("anonkit")
    done = subprocess.run(
        [str(anonkit), "anonymize", str(_config(tmp_path)), "--no-progress"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert (tmp_path / "out.csv").exists()
