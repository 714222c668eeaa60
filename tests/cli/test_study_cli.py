"""``anonkit study CONFIG.toml``: a tiny study end to end, overrides and one-line errors."""

from __future__ import annotations

import functools
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from anonkit.cli.main import app
from anonkit.cli.study import parse_k_list
from anonkit.exceptions import ParameterError
from anonkit.study import runner as study_runner
from anonkit.study.runner import COLUMNS

runner = CliRunner()

TINY = """
dataset = "adult"
sample = 800
k = [50]
classifiers = ["logistic_regression"]
workers = 1
output = "out"
algorithms = [{ algorithm = "flash", metric = "loss" }]
"""


@pytest.fixture(autouse=True)
def fast_report(monkeypatch: pytest.MonkeyPatch) -> None:
    from anonkit.study.report import write_study_report

    monkeypatch.setattr(
        study_runner,
        "_report_writer",
        lambda: functools.partial(write_study_report, renderer="svg"),
    )


def one_error_line(result: object, code: int) -> str:
    assert result.exit_code == code, result.output  # type: ignore[attr-defined]
    lines = result.stderr.strip().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return str(lines[0])


def test_tiny_study_writes_results(tmp_path: Path) -> None:
    config = tmp_path / "study.toml"
    config.write_text(TINY, encoding="utf-8")
    out = tmp_path / "elsewhere"
    result = runner.invoke(app, ["study", str(config), "--output", str(out), "--k", "5,10"])
    assert result.exit_code == 0, result.output
    frame = pl.read_csv(out / "results.csv")
    assert frame.columns == list(COLUMNS)
    assert sorted(set(frame["k"])) == [1, 5, 10] and (frame["status"] == "ok").all()
    assert (out / "study.json").is_file() and (out / "report.html").is_file()
    assert not (tmp_path / "out").exists()  # --output replaced the file's folder
    text = result.stdout
    assert "Study summary" in text and "Best cell per classifier" in text
    assert "3 computed" in text and "time per stage" in text
    assert "Private" not in text and "Married" not in text  # figures only, no records

    again = runner.invoke(app, ["study", str(config), "-o", str(out), "--k", "5,10"])
    assert again.exit_code == 0 and "0 computed, 3 from the cache" in again.stdout
    fresh = runner.invoke(app, ["study", str(config), "-o", str(out), "--k", "5", "--no-cache"])
    assert fresh.exit_code == 0 and "2 computed, 0 from the cache" in fresh.stdout


def test_failed_cells_are_noted(tmp_path: Path) -> None:
    config = tmp_path / "study.toml"
    config.write_text(TINY, encoding="utf-8")
    result = runner.invoke(app, ["study", str(config), "--k", "5000", "-q"])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    frame = pl.read_csv(tmp_path / "out" / "results.csv")
    assert frame.filter(pl.col("k") == 5000)["status"].str.starts_with("error: ").all()


def test_bad_k_option(tmp_path: Path) -> None:
    config = tmp_path / "study.toml"
    config.write_text(TINY, encoding="utf-8")
    line = one_error_line(runner.invoke(app, ["study", str(config), "--k", "2,x"]), 2)
    assert "'--k' parameter of anonkit study" in line


@pytest.mark.parametrize(
    ("text", "code", "message"),
    [
        ('dataset = "adult"\nalgorithms = [{ algorithm = "magic" }]\n', 2, "Unknown algorithm"),
        ('dataset = "adult"\nfolds = 0\n', 2,
         "The key 'folds' in {config} must be an int >= 1, not 0."),
        ('dataset = "missing.csv"\ntarget = "y"\n[attributes]\nquasi_identifiers = ["a"]\n',
         2, "no such file"),
        ('dataset = "adult"\nk = [5]\nworkers = 1\n[attributes]\nquasi_identifiers = ["zip"]\n'
         'numeric = []\n', 2, "Unknown column(s) 'zip'"),
        ('dataset = "adult"\nk = [5]\nworkers = 1\nsample = 1000000\n', 2,
         "The key 'sample' in {config} must be at most the 30,162 complete records of the "
         "bundled Adult table, not 1000000."),
    ],
)  # fmt: skip
def test_config_errors_are_one_line(tmp_path: Path, text: str, code: int, message: str) -> None:
    config = tmp_path / "study.toml"
    config.write_text(text, encoding="utf-8")
    line = one_error_line(runner.invoke(app, ["study", str(config)]), code)
    assert message.format(config=config.resolve()) in line


def test_missing_config(tmp_path: Path) -> None:
    line = one_error_line(runner.invoke(app, ["study", str(tmp_path / "none.toml")]), 2)
    assert "no such file" in line


def test_parse_k_list() -> None:
    assert parse_k_list("2,5, 10,") == (2, 5, 10)
    for bad in ("", "0", "a", "2;5"):
        with pytest.raises(ParameterError):
            parse_k_list(bad)


def test_progress_bar_draws_cells() -> None:
    import io

    from rich.console import Console

    from anonkit.cli.study import StudyProgress

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=80)
    with StudyProgress(force=True, console=console) as bar:
        bar(0, 4)
        bar(4, 4)
    assert "4/4" in buffer.getvalue() and "cells" in buffer.getvalue()
    hidden = StudyProgress(enabled=False)
    hidden(1, 2)
    assert hidden._progress is None


def test_best_cells_show_whole_names_on_an_80_column_terminal(tmp_path: Path) -> None:
    """'hist_gradient_boosting' was cut to 'hist_gradient_boos…' on 80 columns: the name
    a study's configuration takes."""
    config = tmp_path / "study.toml"
    text = TINY.replace('"logistic_regression"', '"hist_gradient_boosting"').replace(
        '{ algorithm = "flash", metric = "loss" }', '{ algorithm = "greedy_merge", cost = "total" }'
    )
    config.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["study", str(config)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    best = result.stdout[result.stdout.index("Best cell per classifier") :]
    assert "…" not in best  # a name may wrap, but loses no character
    assert "hist_gradient_boos" in best and "greedy_merge" in best


def test_a_config_file_among_the_outputs_is_refused(tmp_path: Path) -> None:
    # a configuration named like an output in the output folder was written over
    config = tmp_path / "study.json"
    config.write_text(TINY.replace('output = "out"', 'output = "."'), encoding="utf-8")
    line = one_error_line(runner.invoke(app, ["study", str(config)]), 2)
    assert "study.json" in line and "Choose another output" in line
    assert config.read_text(encoding="utf-8").startswith("\ndataset")
    assert not (tmp_path / "cache").exists()


def test_interrupt_line_agrees_with_the_count() -> None:
    from anonkit.cli.study import interrupted_study

    one = interrupted_study(1, Path("out/cache"))
    assert one == "Interrupted; 1 finished cell is kept in out/cache and a rerun resumes from it."
    many = interrupted_study(2, Path("out/cache"))
    assert many.endswith("2 finished cells are kept in out/cache and a rerun resumes from them.")


def test_a_quasi_identifier_without_hierarchy_is_noted_on_stderr(tmp_path: Path) -> None:
    config = tmp_path / "study.toml"
    config.write_text(TINY + '[hierarchies]\nrace = { type = "suppression" }\n', encoding="utf-8")
    result = runner.invoke(app, ["study", str(config), "--no-progress"])
    assert result.exit_code == 0, result.output
    notes = " ".join(result.stderr.split())
    assert notes.startswith("note: 'race' had no hierarchy but '*', so the study's cells")
    assert notes.count("note: ") == 1 and "Warning" not in notes
    assert "had no hierarchy" not in result.stdout
    quiet = runner.invoke(app, ["study", str(config), "-q"])
    assert quiet.exit_code == 0 and quiet.stderr == ""
