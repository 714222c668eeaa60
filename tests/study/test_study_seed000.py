"""The seed 000 write-up: studies, statistics, figures and the marked blocks of the page."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from anonkit.cli.main import app
from anonkit.study import seed000, seed000_page
from anonkit.study.config import StudyConfig
from anonkit.study.runner import run_study


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pl.DataFrame]:
    """One tiny repeated-split study on an Adult sample, standing in for the three."""
    cfg = StudyConfig(
        sample=800,
        k_values=[2, 10],
        folds=2,
        repeats=2,
        suppression_limits=[0.0, 0.05],
        algorithms=[
            {"algorithm": "flash", "metric": ["loss", "nonuniform_entropy"]},
            {"algorithm": "datafly"},
            {"algorithm": "incognito"},
            {"algorithm": "mondrian", "mode": ["strict", "relaxed"]},
            {"algorithm": "microaggregation"},  # age aggregated, the other QIs at the root
        ],
        classifiers=["logistic_regression"],
        workers=1,
        output=tmp_path_factory.mktemp("study"),
    )
    frame = run_study(cfg).frame
    return {"adult": frame, "creditcard": frame, "synthetic": frame}


def test_study_configs_follow_the_issue_21_design(tmp_path: Path, shared_data: Path) -> None:
    configs = seed000.study_configs(tmp_path, workers=1, data=shared_data)
    assert list(configs) == list(seed000_page.DATASETS)
    adult = configs["adult"]
    assert adult.output == tmp_path / "seed000" / "adult"
    assert adult.n_splits == 10 and adult.k_values == (2, 3, 5, 10, 20, 50, 100)
    assert adult.suppression_limits == (0.0, 0.01, 0.05)
    assert "education-num" not in adult.features and "hours-per-week" in adult.features
    cells = [s.cell for s in adult.algorithms or ()]
    for cell in ("flash:discernibility", "datafly:loss", "incognito:loss", "mondrian:relaxed"):
        assert cell in cells
    assert sum(c.startswith("greedy_merge:") for c in cells) == 7
    assert "topdown:loss" in cells and "lightning:loss" in cells
    credit = configs["creditcard"]
    assert credit.target == "default-payment-next-month" and len(credit.features) == 18
    # the same settings everywhere (greedy merging too), but MDAV where no QI is numeric
    assert cells[-1] == "microaggregation:mdav"
    for config in configs.values():
        assert config.tuning
        assert config.algorithms == (adult.algorithms if config.numeric else adult.algorithms[:-1])
    quick = seed000.study_configs(tmp_path, quick=True, data=shared_data)
    assert quick["adult"].n_splits == 4 and quick["adult"].sample == 3000
    assert quick["adult"].output == tmp_path / "seed000-quick" / "adult"


def test_quick_study_loads_every_dataset(tmp_path: Path, shared_data: Path) -> None:
    from anonkit.study.grid import load_study_data

    for name, cfg in seed000.study_configs(tmp_path, quick=True, data=shared_data).items():
        data = load_study_data(cfg)
        assert data.frame.height == 3000, name
        assert data.frame.null_count().sum_horizontal()[0] == 0


def test_write_outputs_replaces_only_the_marked_blocks(
    frames: dict[str, pl.DataFrame], tmp_path: Path
) -> None:
    page = tmp_path / "seed000.md"
    page.write_text(
        f"# Title\n\n{seed000_page.ANSWER_START}\nOLD-ANSWER\n{seed000_page.ANSWER_END}\n\n"
        f"Prose before.\n\n{seed000_page.RESULTS_START}\nSTALE-BLOCK\n"
        f"{seed000_page.RESULTS_END}\n\nProse after.\n",
        encoding="utf-8",
    )
    seed000.write_outputs(frames, tmp_path)
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Title\n\n") and text.rstrip().endswith("Prose after.")
    assert "STALE-BLOCK" not in text and "OLD-ANSWER" not in text
    assert "**Answer.**" in text and "Holm" in text
    for heading in ("Within k", "Tested differences", "Regret", "Degenerate cells"):
        assert heading in text
    assert "Conditional entropy" in text and "Random release" in text
    assert "Checks: 0 of" in text and "Incognito releases are Flash's" in text
    # MDAV's line: 2 k x 4 splits, each k-anonymous over all quasi-identifiers
    assert "**MDAV**" in text and "all 8 of its cells reach their k" in text
    assert "k = 2: 0." in text and "k = 10: 0." in text
    assert "min of CPU when they were computed" in text
    assert "What would change it" in text and "distinct releases per split" in text
    for name in seed000_page.DATASETS:
        for kind in ("accuracy_vs_k", "frontier"):
            svg = tmp_path / f"seed000_{name}_{kind}.svg"
            assert svg.read_text(encoding="utf-8").startswith("<svg")
            assert f"({svg.name})" in text
    seed000.write_outputs(frames, tmp_path)  # deterministic rendering
    assert page.read_text(encoding="utf-8") == text


def test_main_redraws_from_results(frames: dict[str, pl.DataFrame], tmp_path: Path) -> None:
    folder = tmp_path / "seed000-quick" / "adult"
    folder.mkdir(parents=True)
    frames["adult"].write_csv(folder / "results.csv")
    assert seed000.main(["--output", str(tmp_path), "--quick", "--from-results"]) == 0
    assert "### Adult" in (tmp_path / "seed000-quick" / "seed000.md").read_text(encoding="utf-8")
    assert not (tmp_path / "seed000.md").exists()  # the full study's page is left alone


def test_cli_seed000_needs_an_output_folder() -> None:
    result = CliRunner().invoke(app, ["reproduce", "seed000"])
    assert result.exit_code == 2
    assert "--output" in result.output


def test_an_interrupted_page_write_leaves_the_page_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the answer block was written before the results were rendered: a Ctrl-C in
    # between left a new answer above the previous run's results
    page = tmp_path / "seed000.md"
    old = (
        f"# T\n\n{seed000_page.ANSWER_START}\nold\n{seed000_page.ANSWER_END}\n\n"
        f"{seed000_page.RESULTS_START}\nold\n{seed000_page.RESULTS_END}\n"
    )
    page.write_text(old, encoding="utf-8")

    def interrupted(*args: object, **kwargs: object) -> str:
        raise KeyboardInterrupt

    # the figures were renamed into place one by one before the page was rendered: a
    # Ctrl-C then left new figures beside the previous run's page
    figure = tmp_path / "seed000_adult_accuracy_vs_k.svg"
    figure.write_text("<svg>old</svg>", encoding="utf-8")
    drawn = {"adult: accuracy vs k": (figure.name, "<svg>new</svg>")}
    monkeypatch.setattr(seed000, "_figures", lambda frames: drawn)
    monkeypatch.setattr(seed000, "analyse", lambda frames: {})
    monkeypatch.setattr(seed000, "render_answer", lambda *a, **k: "NEW ANSWER")
    monkeypatch.setattr(seed000, "render_markdown", interrupted)
    with pytest.raises(KeyboardInterrupt):
        seed000.write_outputs({}, tmp_path)
    assert page.read_text(encoding="utf-8") == old
    assert figure.read_text(encoding="utf-8") == "<svg>old</svg>"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([figure.name, page.name])
