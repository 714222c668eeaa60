"""The README's Python examples run as printed, one after another in one namespace (as a
reader pastes them), in a folder holding the files they name."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_its_python_examples() -> None:
    assert len(_python_blocks()) >= 5


def test_the_readme_python_examples_run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    shared_data: Path,
    adult_frame: pl.DataFrame,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the files the examples name: the raw Adult file and a Parquet table to stream
    shutil.copy(shared_data / "adult" / "adult_full.csv", tmp_path / "adult_full.csv")
    adult_frame.write_parquet(tmp_path / "claims.parquet")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    for i, block in enumerate(_python_blocks(), 1):
        exec(compile(block, f"README.md, Python example {i}", "exec"), namespace)
    # what the examples say they give: the first prints its summary as JSON
    printed = json.loads(capsys.readouterr().out)
    assert printed["verified"] and printed["transformation"]
    assert getattr(namespace["result"], "verified", False)
    assert (tmp_path / "release.parquet").is_file()
