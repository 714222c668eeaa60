"""``anonkit anonymize --engine streaming|auto``: a table scanned, not read (issue 17)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

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


def _row(out: str, name: str) -> str:
    """The text of the summary table's row ``name`` (its continuation lines joined)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip("│┃ ").startswith(name))
    cells = [lines[start].split("│")[2]]
    for line in lines[start + 1 :]:
        parts = line.split("│")
        if len(parts) < 3 or parts[1].strip():
            break
        cells.append(parts[2])
    return " ".join(" ".join(cells).split())


def _both_engines(
    cfg: Path, folder: Path, suffix: str = ".csv"
) -> dict[str, tuple[str, dict[str, Any]]]:
    """``anonymize cfg`` in memory (``polars``) and streamed: each run's printed summary
    and its summary JSON, by engine; each must succeed."""
    runs = {}
    for name in ("polars", "streaming"):
        summary = folder / f"{name}.json"
        code, out, err = _run(
            "anonymize", str(cfg), "--engine", name, "--summary", str(summary),
            "-o", str(folder / f"{name}{suffix}"), "--no-progress",
        )  # fmt: skip
        assert code == 0, err
        runs[name] = (out, json.loads(summary.read_text()))
    return runs


def test_a_streamed_run_shows_what_the_same_run_in_memory_shows(
    adult_csv: Path, tmp_path: Path
) -> None:
    """The streamed run printed 'age=3' where the run in memory printed 'age=3/4' (no
    heights), its summary's input section dropped the separator and the encoding [read]
    declared, and the engine's reason read 'the engine argument' in memory where the
    streamed run said 'set by [search] engine or --engine'."""
    read = '\n[read]\nseparator = ";"\nencoding = "utf-8"\n'
    cfg = _config(tmp_path, adult_csv, "memory.csv", f'{read}\n[search]\nengine = "polars"\n')
    runs = _both_engines(cfg, tmp_path)
    (memory, in_memory), (streamed, on_disk) = runs["polars"], runs["streaming"]
    assert "/" in _row(memory, "transformation")
    assert _row(streamed, "transformation") == _row(memory, "transformation")
    for key in ("separator", "separator_detected", "encoding"):
        assert on_disk["input"][key] == in_memory["input"][key], key
    assert in_memory["input"]["separator"] == ";" and in_memory["input"]["encoding"] == "utf-8"
    assert in_memory["details"]["engine"] == {
        "name": "polars", "reason": "set by [search] engine or --engine"
    }  # fmt: skip
    assert on_disk["details"]["engine"]["reason"] == in_memory["details"]["engine"]["reason"]


def test_a_streamed_run_reports_a_sniffed_separator_as_the_run_in_memory_does(
    adult_csv: Path, tmp_path: Path
) -> None:
    """Without a [read] separator, both runs guess ';' from the first records and say so."""
    cfg = _config(tmp_path, adult_csv, "out.csv")
    runs = []
    for out, summary in _both_engines(cfg, tmp_path, ".parquet").values():
        assert "separator ';' (detected)" in out
        runs.append(summary["input"])
    for key in ("separator", "separator_detected", "encoding"):
        assert runs[1][key] == runs[0][key], key
    assert runs[1]["separator_detected"] is True


def test_a_streamed_mondrian_run_shows_its_metrics(adult_csv: Path, tmp_path: Path) -> None:
    """repro_streaming_mondrian_metrics.sh: the streamed Mondrian run printed an empty
    'metrics' row (result.metrics was {}); it shows the metrics the run in memory shows
    (but the KL divergence)."""
    cfg = _config(tmp_path, adult_csv, "out.csv", '\n[search]\nalgorithm = "mondrian"\n')
    rows = {}
    for name, (out, _) in _both_engines(cfg, tmp_path).items():
        rows[name] = dict(re.findall(r"([a-z_]+) = ([-0-9.,]+)", _row(out, "metrics")))
    assert {"loss", "ncp", "height", "discernibility"} <= set(rows["streaming"])
    assert rows["streaming"] == {n: v for n, v in rows["polars"].items() if n != "kl_divergence"}


def test_metrics_not_measured_are_said_so_not_left_empty(
    adult_csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose metrics were not measured (Mondrian in memory on a large table) printed
    an empty 'metrics' row without saying why."""
    from anonkit.estimators import local

    monkeypatch.setattr(local, "LARGE_TABLE", 100)  # 8,000 records are a large table here
    cfg = _config(tmp_path, adult_csv, "out.csv", '\n[search]\nalgorithm = "mondrian"\n')
    code, out, err = _run("anonymize", str(cfg), "--no-progress")
    assert code == 0, err
    row = _row(out, "metrics")
    assert row.startswith("not measured on more than 100 records")
    assert "anonkit evaluate" in row or "anonkit.evaluate" in row


def test_a_streamed_run_shows_the_heights_of_built_hierarchies(
    adult_csv: Path, tmp_path: Path
) -> None:
    """The tester's repro: builder tables ({type = "intervals"}) printed 'age=3' on a
    streamed run where the run in memory printed 'age=3/4'."""
    cfg = _config(tmp_path, adult_csv, "out.csv")
    text = cfg.read_text(encoding="utf-8").replace(
        f'"age" = "{adult_path() / "adult_hierarchy_age.csv"}"',
        '"age" = { type = "intervals", widths = [5, 10, 20] }',
    )
    cfg.write_text(text, encoding="utf-8")
    rows = [_row(out, "transformation") for out, _ in _both_engines(cfg, tmp_path).values()]
    assert "age=" in rows[0] and rows[1] == rows[0]
