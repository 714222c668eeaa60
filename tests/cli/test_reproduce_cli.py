"""``anonkit reproduce``: the Mauger et al. (2020) reproduction from the command line."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from typer.testing import CliRunner

from anonkit.cli.main import app
from anonkit.datasets import load_adult
from anonkit.study import mauger2020

runner = CliRunner()


@pytest.fixture
def small_adult(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the reproduction on a 1,500-record sample so the test stays fast."""
    frame, _ = load_adult()
    sample = frame.sample(1500, seed=0)
    monkeypatch.setattr(
        mauger2020, "reproduce", functools.partial(mauger2020.reproduce, data=sample)
    )


def test_reproduce_prints_side_by_side_tables_and_writes_outputs(
    small_adult: None, tmp_path: Path
) -> None:
    out = tmp_path / "studies"
    result = runner.invoke(
        app,
        [
            "reproduce",
            "mauger2020",
            "--k",
            "2,100",
            "--costs",
            "nllm,ncp",
            "-w",
            "1",
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Figure 6" in result.output and "Figure 7" in result.output
    assert "Each cell: ours (rank) / the paper's (printed rank)." in result.output
    page = (out / "mauger2020.md").read_text(encoding="utf-8")
    assert "mauger2020:results:start" in page
    assert (out / "mauger2020_figure9.svg").read_text(encoding="utf-8").startswith("<svg")
    assert (out / "mauger2020_runs.csv").stat().st_size > 0


def test_unknown_experiment_and_bad_options_exit_2() -> None:
    result = runner.invoke(app, ["reproduce", "nope"])
    assert result.exit_code == 2
    assert "Unknown experiment 'nope'" in result.output
    result = runner.invoke(app, ["reproduce", "mauger2020", "--k", "0"])
    assert result.exit_code == 2
    assert "--k" in result.output


def test_reproduce_runs_one_cell_of_the_full_adult(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["reproduce", "mauger2020", "--k", "2", "--costs", "ncp", "-w", "1", "-o", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    assert "### Figure 6" in result.output and "| 2 | 2 (paper 2) |" in result.output
    assert (tmp_path / "mauger2020_figure9.svg").exists()


def test_reproduce_reports_an_unknown_cost() -> None:
    result = runner.invoke(
        app, ["reproduce", "mauger2020", "--k", "2", "--costs", "entropy", "-w", "1"]
    )
    assert result.exit_code == 2
    assert "Unknown cost function 'entropy'" in result.output


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """The options the CLI passes to ``mauger2020.reproduce`` (run on 200 records)."""
    options_seen: dict[str, object] = {}
    real = mauger2020.reproduce

    def spy(**options: object) -> mauger2020.Reproduction:
        options_seen.update(options)
        frame, _ = load_adult()
        return real(data=frame.head(200), **options)  # type: ignore[arg-type]

    monkeypatch.setattr(mauger2020, "reproduce", spy)
    return options_seen


def test_leaves_option_reaches_the_reproduction(seen: dict[str, object]) -> None:
    args = ["reproduce", "mauger2020", "--k", "2", "--costs", "ncp", "-w", "1", "-q"]
    result = runner.invoke(app, [*args, "--leaves", "data"])
    assert result.exit_code == 0, result.output
    assert seen["leaves"] == "data"
    result = runner.invoke(app, [*args, "--leaves", "nope"])
    assert result.exit_code == 2
    assert "leaves" in result.output


def test_order_seed_and_fusion_options_reach_the_reproduction(seen: dict[str, object]) -> None:
    args = ["reproduce", "mauger2020", "--k", "2", "--costs", "ncp", "-w", "1", "-q"]
    result = runner.invoke(app, [*args, "--order", "random", "--seed", "7", "--no-fusion"])
    assert result.exit_code == 0, result.output
    assert (seen["order"], seen["seed"], seen["fuse"]) == ("random", 7, False)
    result = runner.invoke(app, [*args, "--order", "hash"])
    assert result.exit_code == 2 and "order" in result.output
    result = runner.invoke(app, [*args, "--quick"])
    assert result.exit_code == 2 and "--quick" in result.output


def test_study_mode_writes_the_page_and_keeps_its_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from anonkit.study.mauger2020.orders import Design

    frame, _ = load_adult()
    sample = frame.sample(1500, seed=2)
    tiny = Design((100,), (100,), (), 1, (100,), 1, ("no-fusion",))
    seen: dict[str, object] = {}
    real = mauger2020.run_study

    def small(design: object, **options: object) -> mauger2020.MaugerStudy:
        seen["design"] = design
        seen.update(options)
        return real(tiny, data=sample, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(mauger2020, "run_study", small)
    out = tmp_path / "studies"
    result = runner.invoke(app, ["reproduce", "mauger2020", "--quick", "-w", "1", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert seen["design"] is mauger2020.QUICK
    assert seen["cache"] == out / "mauger2020" / "cache"
    assert any((out / "mauger2020" / "cache").iterdir())
    # a quick run's page goes beside its own folder: it never replaces the full study's
    assert not (out / "mauger2020.md").exists()
    page = (out / "mauger2020-quick" / "mauger2020.md").read_text(encoding="utf-8")
    assert page.startswith("# Mauger") and "**Answer (1 random orders" in page
    assert "### Every claim of the paper, under every order" in page
    assert (out / "mauger2020-quick" / "mauger2020_strip100.svg").exists()
    result = runner.invoke(app, ["reproduce", "mauger2020", "-w", "1", "-q"])
    assert result.exit_code == 0 and seen["design"] is mauger2020.FULL


def test_reproduce_seed000_passes_quick_and_data_to_the_study(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from anonkit.study import seed000

    seen: dict[str, object] = {}

    def fake_reproduce(folder: object, **kwargs: object) -> dict[str, object]:
        seen.update(kwargs)
        return {}

    monkeypatch.setattr(seed000, "reproduce", fake_reproduce)
    written: list[Path] = []

    def fake_write(frames: object, output: Path) -> Path:
        written.append(output)
        return output / "seed000.md"

    monkeypatch.setattr(seed000, "write_outputs", fake_write)
    done = runner.invoke(
        app,
        ["reproduce", "seed000", "--output", str(tmp_path), "--quick", "--data", str(tmp_path)],
    )
    assert done.exit_code == 0, done.output
    assert seen["quick"] is True and seen["data"] == tmp_path
    # the quick page is written beside the quick studies, never over the full study's page
    assert written == [tmp_path / "seed000-quick"]


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["seed000", "--k", "5"], "--k"),
        (["seed000", "--costs", "nllm"], "--costs"),
        (["seed000", "--order", "random"], "--order"),
        (["seed000", "--seed", "3"], "--seed"),
        (["seed000", "--small-class", "queue"], "--small-class"),
        (["seed000", "--leaves", "data"], "--leaves"),
        (["seed000", "--no-fusion"], "--no-fusion"),
        (["mauger2020", "--data", "."], "--data"),
    ],
)
def test_options_of_the_other_experiment_are_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, args: list[str], option: str
) -> None:
    # they were ignored without a word: seed000 ran its whole grid despite --k 5
    from anonkit.study import seed000

    def never(*args: object, **kwargs: object) -> object:
        raise AssertionError("the experiment ran")

    monkeypatch.setattr(seed000, "reproduce", never)
    monkeypatch.setattr(mauger2020, "reproduce", never)
    monkeypatch.setattr(mauger2020, "run_study", never)
    result = runner.invoke(app, ["reproduce", *args, "-o", str(tmp_path), "-w", "1"])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"'{option}' parameter of anonkit reproduce" in lines[0]


def test_a_bad_k_names_the_reproduce_command() -> None:
    result = runner.invoke(app, ["reproduce", "mauger2020", "--k", "2,x"])
    assert result.exit_code == 2
    assert "'--k' parameter of anonkit reproduce mauger2020" in result.stderr
