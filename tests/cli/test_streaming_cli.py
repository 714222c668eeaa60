"""``anonkit anonymize --engine streaming|auto``: a table scanned, not read (issue 17)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from anonkit.cli.main import app
from anonkit.datasets import adult_path

runner = CliRunner()
QI = ["age", "sex", "race", "education", "marital-status"]


def _config(folder: Path, data: Path, output: str, extra: str = "") -> Path:
    hierarchies = "\n".join(f'"{c}" = "{adult_path() / f"adult_hierarchy_{c}.csv"}"' for c in QI)
    text = (
        f'input = "{data}"\noutput = "{output}"\n\n[attributes]\n'
        f'quasi_identifiers = {json.dumps(QI)}\nothers = "drop"\n\n'
        f"[hierarchies]\n{hierarchies}\n\n[privacy]\nk = 5\nsuppression_limit = 0.02\n"
        f"{extra}"
    )
    path = folder / "run.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _run(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture(scope="module")
def adult_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    frame = pl.read_csv(adult_path() / "adult.csv", separator=";", infer_schema=False)
    path = tmp_path_factory.mktemp("cli") / "adult.csv"
    frame.head(8000).write_csv(path, separator=";")
    return path


def test_streamed_cli_release_equals_the_in_memory_one(adult_csv: Path, tmp_path: Path) -> None:
    cfg = _config(tmp_path, adult_csv, "memory.parquet")
    code, _, err = _run("anonymize", str(cfg), "--no-progress")
    assert code == 0, err
    summary = tmp_path / "summary.json"
    code, out, err = _run(
        "anonymize",
        str(cfg),
        "--engine",
        "streaming",
        "-o",
        str(tmp_path / "streamed.parquet"),
        "--summary",
        str(summary),
        "--no-progress",
    )
    assert code == 0, err
    assert "engine: streaming" in out
    streamed = pl.read_parquet(tmp_path / "streamed.parquet")
    assert streamed.equals(pl.read_parquet(tmp_path / "memory.parquet"))
    data = json.loads(summary.read_text())
    assert data["verified"] is True and data["details"]["engine"]["name"] == "streaming"
    assert not list(tmp_path.glob(".*staging*"))


def test_auto_reads_a_small_file_and_refuses_html_when_streaming(
    adult_csv: Path, tmp_path: Path
) -> None:
    cfg = _config(tmp_path, adult_csv, "release.csv", '\n[search]\nengine = "auto"\n')
    code, _, err = _run("anonymize", str(cfg), "--no-progress")
    assert code == 0, err
    code, _, err = _run(
        "anonymize", str(cfg), "--engine", "streaming", "--html", str(tmp_path / "r.html")
    )
    assert code == 2 and "--html" in err  # a configuration error
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(
    ("read", "output", "written"),
    [
        ('separator = ";"', "out.csv", ";"),
        ("", "out.csv", ","),
        ('separator = ";"', "out.tsv", "\t"),
    ],
)
def test_a_streamed_csv_release_takes_the_separator_the_in_memory_one_takes(
    adult_csv: Path, tmp_path: Path, read: str, output: str, written: str
) -> None:
    """A CSV release takes the [read] separator (',' when it is sniffed; tab for .tsv),
    in memory as streamed: the streaming engine wrote ',' whatever [read] said."""
    cfg = _config(tmp_path, adult_csv, output, f"\n[read]\n{read}\n")
    code, _, err = _run("anonymize", str(cfg), "--engine", "streaming", "--no-progress")
    assert code == 0, err
    assert "writes a CSV release with" not in " ".join(err.split())
    streamed = (tmp_path / output).read_text(encoding="utf-8")
    names = pl.read_csv(adult_csv, separator=";", n_rows=0).columns  # the input's order
    assert streamed.split("\n", 1)[0] == written.join(c for c in names if c in QI)
    memory = tmp_path / f"memory{Path(output).suffix}"
    code, _, err = _run("anonymize", str(cfg), "--no-progress", "-o", str(memory))
    assert code == 0, err
    assert memory.read_text(encoding="utf-8") == streamed


def test_a_file_that_changes_during_a_streamed_run_is_named(
    adult_csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records appended between the count and the release (every value still a leaf):
    one line naming the file, exit 1, no release; it used to be an internal error."""
    from typing import Any

    from anonkit.engines.streaming_engine import StreamingEngine

    data = tmp_path / "adult.csv"
    data.write_bytes(adult_csv.read_bytes())
    count = StreamingEngine.count

    def count_then_append(self: StreamingEngine, source: Any, *args: Any) -> Any:
        table = count(self, source, *args)
        with data.open("ab") as f:  # the first records again, at the end
            f.write(b"".join(adult_csv.read_bytes().splitlines(keepends=True)[1:51]))
        return table

    monkeypatch.setattr(StreamingEngine, "count", count_then_append)
    cfg = _config(tmp_path, data, "out.csv")
    code, _, err = _run("anonymize", str(cfg), "--engine", "streaming", "--no-progress")
    message = " ".join(err.split())
    assert code == 1
    assert f"The input file {data} changed during the run" in message
    assert "Traceback" not in err
    assert not (tmp_path / "out.csv").exists() and not list(tmp_path.glob(".*staging*"))


def test_a_streamed_run_says_the_leak_check_was_skipped(adult_csv: Path, tmp_path: Path) -> None:
    """The in-memory run warned on stderr that --no-leak-check skipped the check; the
    streamed (and Spark) run said nothing."""
    cfg = _config(tmp_path, adult_csv, "streamed.parquet")
    code, _, err = _run("anonymize", str(cfg), "--engine", "streaming", "--no-leak-check")
    assert code == 0, err
    assert "leak check was skipped" in err


def test_auto_reads_a_file_the_streaming_engine_cannot_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A latin-1 CSV file large for the machine went to the streaming engine, which reads
    UTF-8 only and stopped; in memory it runs."""
    from anonkit.config import chosen_engine, load_config
    from anonkit.engines import base

    data = tmp_path / "l.csv"
    data.write_bytes("age;sex\n30;m\n31;f\n".encode("latin-1"))
    cfg = _config(
        tmp_path, data, "out.csv", '\n[search]\nengine = "auto"\n[read]\nencoding = "latin-1"\n'
    )
    monkeypatch.setattr(base, "memory_bytes", lambda: 10)  # any file is large here
    name, reason = chosen_engine(load_config(cfg))
    assert name == "polars" and "UTF-8" in reason
