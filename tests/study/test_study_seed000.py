"""The seed 000 write-up: studies, rankings, figures and the results block."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from anonkit.cli.main import app
from anonkit.study import seed000
from anonkit.study.config import StudyConfig
from anonkit.study.runner import run_study


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pl.DataFrame]:
    """Two tiny studies on an Adult sample, standing in for the real ones."""
    cfg = StudyConfig(
        sample=1000,
        k_values=[2, 10, 100],
        algorithms=[
            {"algorithm": "flash", "metric": "loss"},
            {"algorithm": "mondrian", "mode": "strict"},
            {"algorithm": "greedy_merge", "cost": "nllm"},
        ],
        classifiers=["logistic_regression"],
        workers=1,
        output=tmp_path_factory.mktemp("study"),
    )
    frame = run_study(cfg).frame
    return {"adult": frame, "synthetic": frame, "adult-3fold": frame}


def test_study_configs_cover_both_datasets(tmp_path: Path) -> None:
    configs = seed000.study_configs(tmp_path, workers=1)
    assert list(configs) == list(seed000.DATASETS)
    assert configs["adult"].output == tmp_path / "seed000" / "adult"
    synthetic = configs["synthetic"]
    assert synthetic.sample == 30_000 and synthetic.target == "income"
    cells = [s.cell for s in synthetic.algorithms or ()]
    assert cells[0] == "flash:loss" and cells[-1] == "microaggregation:mdav" and len(cells) == 10
    assert configs["adult-3fold"].folds == 3 and configs["adult-3fold"].k_values == (
        2,
        10,
        100,
        1000,
    )


def test_write_outputs_replaces_only_the_results_block(
    frames: dict[str, pl.DataFrame], tmp_path: Path
) -> None:
    page = tmp_path / "seed000.md"
    page.write_text(
        f"# Title\n\nProse before.\n\n{seed000.RESULTS_START}\nSTALE-BLOCK\n"
        f"{seed000.RESULTS_END}\n\nProse after.\n",
        encoding="utf-8",
    )
    seed000.write_outputs(frames, tmp_path)
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Title\n\nProse before.") and text.rstrip().endswith("Prose after.")
    assert "STALE-BLOCK" not in text and text.count(seed000.RESULTS_START) == 1
    assert "### Adult" in text and "### Synthetic" in text
    assert "Conditional entropy" in text and "ρ within k" in text
    for name in ("adult", "synthetic"):
        svg = tmp_path / f"seed000_{name}_accuracy_vs_k.svg"
        assert svg.read_text(encoding="utf-8").startswith("<svg")
        assert f"({svg.name})" in text
    # rerunning gives the same page (deterministic rendering)
    seed000.write_outputs(frames, tmp_path)
    assert page.read_text(encoding="utf-8") == text


def test_cli_seed000_needs_an_output_folder() -> None:
    result = CliRunner().invoke(app, ["reproduce", "seed000"])
    assert result.exit_code == 2
    assert "--output" in result.output
