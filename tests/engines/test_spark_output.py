"""The Spark engine writes a CSV release with the separator the in-memory path writes:
``output_separator`` in Python, the ``[read]`` separator from ``anonkit anonymize``
(it wrote ',' whatever was asked)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

pytest.importorskip("pyspark", reason="pyspark is not installed (the spark extra)")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Java is not installed (Spark needs a JVM)", allow_module_level=True)

import anonkit  # noqa: E402
from anonkit.cli.main import app  # noqa: E402
from anonkit.datasets import adult_path  # noqa: E402

QI = ["age", "sex", "race"]


def _parts(folder: Path, separator: str) -> pl.DataFrame:
    """Spark's part files, each with its header line, read with ``separator``."""
    parts = [p for p in sorted(folder.glob("part-*")) if p.stat().st_size]
    return pl.concat(pl.read_csv(p, separator=separator, infer_schema=False) for p in parts)


@pytest.mark.slow  # the command's test below runs the same write in the default run
def test_output_separator_reaches_the_spark_release(
    spark: Any, adult: tuple[pl.DataFrame, dict[str, Path]], tmp_path: Path
) -> None:
    frame, paths = adult
    data = tmp_path / "data.parquet"
    frame.select(QI).head(1000).write_parquet(data)
    keywords: dict[str, Any] = {
        "quasi_identifiers": QI,
        "hierarchies": {c: paths[c] for c in QI},
        "k": 5,
        "suppression_limit": 0.05,
    }
    out = tmp_path / "release.csv"
    got = anonkit.anonymize(str(data), engine="spark", output=out, output_separator=";", **keywords)
    assert got.verified
    for part in out.glob("part-*"):
        if part.stat().st_size:
            assert part.read_text(encoding="utf-8").split("\n", 1)[0] == ";".join(QI)
    memory = anonkit.anonymize(frame.select(QI).head(1000), **keywords).release
    assert sorted(_parts(out, ";").rows()) == sorted(memory.rows())


def test_the_command_writes_the_read_separator_on_spark(spark: Any, tmp_path: Path) -> None:
    """A ';'-separated input with ``separator = ";"`` in [read]: the release is written
    with ';' by Spark as in memory."""
    frame = pl.read_csv(adult_path() / "adult.csv", separator=";", infer_schema=False)
    data = tmp_path / "adult.csv"
    frame.select(QI).head(1000).write_csv(data, separator=";")
    hierarchies = "\n".join(f'"{c}" = "{adult_path() / f"adult_hierarchy_{c}.csv"}"' for c in QI)
    config = tmp_path / "run.toml"
    config.write_text(
        f'input = "{data}"\noutput = "{tmp_path / "spark.csv"}"\n\n[read]\nseparator = ";"\n\n'
        f"[attributes]\nquasi_identifiers = {json.dumps(QI)}\n\n[hierarchies]\n"
        f"{hierarchies}\n\n[privacy]\nk = 5\nsuppression_limit = 0.05\n",
        encoding="utf-8",
    )
    runner = CliRunner()
    res = runner.invoke(app, ["anonymize", str(config), "--engine", "spark", "--no-progress"])
    assert res.exit_code == 0, res.stderr
    assert "writes a CSV release with" not in " ".join(res.stderr.split())
    memory = tmp_path / "memory.csv"
    res = runner.invoke(app, ["anonymize", str(config), "--no-progress", "-o", str(memory)])
    assert res.exit_code == 0, res.stderr
    assert memory.read_text(encoding="utf-8").split("\n", 1)[0] == ";".join(QI)
    expected = pl.read_csv(memory, separator=";", infer_schema=False)
    assert sorted(_parts(tmp_path / "spark.csv", ";").rows()) == sorted(expected.rows())


def test_spark_s_hidden_folder_is_removed_when_the_gateway_refuses_calls(tmp_path: Path) -> None:
    """SIGTERM while Spark wrote the release broke the JVM gateway; the clean-up asked
    Hadoop's FileSystem through it, failed, and left '.release.parquet.<id>.tmp/' with
    Spark's part files in the output folder."""
    from anonkit.engines.spark_engine import _remove_tmp

    hidden = tmp_path / ".release.parquet.0123.tmp"
    hidden.mkdir()
    (hidden / "part-0000.parquet").write_bytes(b"x")

    class Broken:
        def exists(self, path: object) -> bool:
            raise RuntimeError("the gateway is gone")  # py4j's Py4JError, in effect

    _remove_tmp(Broken(), lambda p: p, str(hidden))
    assert list(tmp_path.iterdir()) == []
