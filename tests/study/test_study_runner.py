"""The study runner on a tiny Adult study: schema, failed cells, caching and resuming."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from anonkit.metrics.cost_matrix import COST_FUNCTIONS
from anonkit.study import runner
from anonkit.study.config import StudyConfig
from anonkit.study.runner import COLUMNS, StudyResult, run_study

CLASSIFIER = "logistic_regression"
SPECS = [
    {"algorithm": "flash", "metric": "loss"},
    {"algorithm": "mondrian", "mode": "strict"},
    {"algorithm": "greedy_merge", "cost": "nllm"},
]


@pytest.fixture(autouse=True)
def fast_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """The report with the built-in SVG plots (matplotlib takes tens of seconds)."""
    from anonkit.study.report import write_study_report

    monkeypatch.setattr(
        runner, "_report_writer", lambda: functools.partial(write_study_report, renderer="svg")
    )


def tiny(output: Path, **changes: Any) -> StudyConfig:
    settings: dict[str, Any] = {
        "sample": 2000,
        "k_values": [5, 50, 5000],  # 5000 > the 1,600 training records: failed cells
        "algorithms": SPECS,
        "classifiers": [CLASSIFIER],
        "workers": 1,
        "output": output,
        **changes,
    }
    return StudyConfig(**settings)


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> StudyResult:
    from anonkit.study.report import write_study_report

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(
            runner, "_report_writer", lambda: functools.partial(write_study_report, renderer="svg")
        )
        calls: list[tuple[int, int]] = []
        result = run_study(
            tiny(tmp_path_factory.mktemp("study")), progress=lambda d, t: calls.append((d, t))
        )
    assert calls[0] == (0, 10) and calls[-1] == (10, 10) and len(calls) == 11
    return result


def test_schema_is_exact(study: StudyResult) -> None:
    frame = study.frame
    assert frame.columns == list(COLUMNS)
    assert dict(frame.schema) == {c: t() for c, t in COLUMNS.items()}
    losses = [c for c in frame.columns if c.startswith("loss_")]
    assert "loss_ncp" in losses and "loss_conditional_entropy" in losses
    assert [c for c in frame.columns if c.startswith("alteration_")] == [
        f"alteration_{c}" for c in COST_FUNCTIONS
    ]
    # baselines (classifier + majority), then 3 k x 3 specs x 2 evaluations
    assert frame.height == 2 + 3 * 3 * 2
    assert study.cells_total == 10 and study.cells_computed == 10 and study.cells_cached == 0


def test_rows_and_figures(study: StudyResult) -> None:
    frame = study.frame
    assert set(frame["dataset"]) == {"adult"} and set(frame["fold"]) == {0}
    base = frame.filter(pl.col("algorithm") == "original")
    assert base.height == 1 and base["k"][0] == 1 and base["cell"][0] == "original"
    assert base["variant"][0] == "" and base["evaluation"][0] == "original_test"
    assert base["loss_ncp"][0] == 0.0 and base["alteration_nllm"][0] == 0.0
    majority = frame.filter(pl.col("algorithm") == "majority")
    assert majority["classifier"][0] == "majority" and math.isnan(majority["loss_ncp"][0])
    ok = frame.filter((pl.col("status") == "ok") & (pl.col("k") > 1))
    assert ok.height == 2 * 3 * 2
    assert set(ok["evaluation"]) == {"anonymized_test", "original_test"}
    assert set(ok["cell"]) == {"flash:loss", "mondrian:strict", "greedy_merge:nllm"}
    baseline = base["accuracy"][0]
    assert (ok["baseline_accuracy"] == baseline).all()
    drop = ok["baseline_accuracy"] - ok["accuracy"]
    assert (drop - ok["accuracy_drop"]).abs().max() < 1e-12  # type: ignore[operator]
    assert ok["accuracy"].is_between(0, 1).all() and (ok["effective_k"] >= ok["k"]).all()
    assert (ok["n_classes"] >= 1).all() and ok["loss_ncp"].is_between(0, 1).all()
    flash = ok.filter(pl.col("algorithm") == "flash")
    assert (flash["uncovered_share"] == 0).all()
    assert flash["alteration_ncp"].is_between(0, 100).all()
    greedy = ok.filter(pl.col("algorithm") == "greedy_merge")
    assert not greedy["alteration_nllm"].is_nan().any()
    mondrian = ok.filter(pl.col("algorithm") == "mondrian")
    assert mondrian["alteration_nllm"].is_nan().all()  # ranges are not hierarchy nodes
    assert (ok["seconds_anonymize"] > 0).all() and (ok["seconds_utility"] > 0).all()
    assert (ok["seconds_cpu"] > 0).all()  # what each cell cost, whatever the load


def test_huge_k_is_a_failed_cell(study: StudyResult) -> None:
    failed = study.frame.filter(pl.col("k") == 5000)
    assert failed.height == 3 * 2 and study.cells_failed == 3
    assert failed["status"].str.starts_with("error: The 'k' parameter of KAnonymity").all()
    assert failed["accuracy"].is_nan().all() and failed["loss_ncp"].is_nan().all()
    assert failed["effective_k"].is_null().all()


def test_files(study: StudyResult) -> None:
    results = pl.read_csv(study.paths["results"])
    assert results.columns == list(COLUMNS) and results.height == study.frame.height
    summary = json.loads(study.paths["study"].read_text())
    assert summary["cells"] == {"total": 10, "computed": 10, "cached": 0, "failed": 3}
    assert summary["dataset"]["records"] == 2000 and summary["dataset"]["test_records"] == 400
    assert set(summary["timing_seconds"]) == {"anonymize", "metrics", "utility", "cpu", "wall"}
    assert {"anonkit", "polars", "scikit-learn"} <= set(summary["versions"])
    assert summary["config"]["k_values"] == [5, 50, 5000]
    page = study.paths["report"].read_text()
    assert "<html" in page.lower()
    best = study.best_cells()
    assert best["classifier"].to_list() == [CLASSIFIER] and best["k"][0] in (5, 50)


def test_resume_computes_nothing(study: StudyResult) -> None:
    again = run_study(study.config)
    assert again.cells_computed == 0 and again.cells_cached == 10 and again.cells_failed == 3
    assert again.frame.equals(study.frame)


def test_resume_computes_only_missing_cells(study: StudyResult, tmp_path: Path) -> None:
    cfg = study.config.replace(output=tmp_path, cache=study.config.cache_folder)
    files = sorted(cfg.cache_folder.glob("*.json"))
    assert len(files) == 10  # failed cells are cached too: their failure is deterministic
    files[3].unlink()
    again = run_study(cfg)
    assert again.cells_computed == 1 and again.cells_cached == 9
    drop = [c for c in COLUMNS if c.startswith("seconds_")]
    assert again.frame.drop(drop).equals(study.frame.drop(drop))


def test_folds(tmp_path: Path) -> None:
    cfg = tiny(tmp_path, sample=600, k_values=[10], algorithms=[SPECS[0]], folds=2)
    result = run_study(cfg)
    frame = result.frame
    assert frame.height == 2 * (2 + 2) and sorted(set(frame["fold"])) == [0, 1]
    assert (frame["status"] == "ok").all()
    for fold in (0, 1):
        part = frame.filter(pl.col("fold") == fold)
        base = part.filter(pl.col("algorithm") == "original")["accuracy"][0]
        assert (part.filter(pl.col("k") == 10)["baseline_accuracy"] == base).all()


def test_unexpected_errors_are_not_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom\nsecond line")

    from anonkit.study import ml

    monkeypatch.setattr(ml, "utility_scores", broken)
    cfg = tiny(tmp_path, sample=600, k_values=[10], algorithms=[SPECS[0]])
    result = run_study(cfg)
    failed = result.frame.filter(pl.col("k") == 10)
    assert (failed["status"] == "error: RuntimeError: boom second line").all()
    assert result.cells_failed == 1
    monkeypatch.undo()
    monkeypatch.setattr(
        runner,
        "_report_writer",
        lambda: None,
    )
    again = run_study(cfg)
    assert again.cells_computed == 1 and again.cells_failed == 0
    assert "report" not in again.paths
    fresh = run_study(cfg, use_cache=False)  # the cache is not read
    assert fresh.cells_computed == 2 and fresh.cells_cached == 0


def test_load_errors_raise_before_any_cell(tmp_path: Path) -> None:
    from anonkit.exceptions import UnknownColumnError

    cfg = tiny(tmp_path, quasi_identifiers=["sex", "zipcode"], numeric=())
    with pytest.raises(UnknownColumnError):
        run_study(cfg)
    assert not (tmp_path / "results.csv").exists()


@pytest.mark.slow
def test_spawn_pool_gives_the_same_table(study: StudyResult, tmp_path: Path) -> None:
    calls: list[int] = []
    progress: Callable[[int, int], None] = lambda d, t: calls.append(d)  # noqa: E731
    pooled = run_study(study.config.replace(output=tmp_path, workers=2), progress=progress)
    assert pooled.cells_computed == 10 and calls[-1] == 10
    drop = [c for c in COLUMNS if c.startswith("seconds_")]
    assert pooled.frame.drop(drop).equals(study.frame.drop(drop))


def test_cached_cells_take_the_names_of_the_current_grid(tmp_path: Path) -> None:
    # a cell computed when the study had one suppression limit ("flash:loss") is reused
    # when it has two, where a fresh run names it "flash:loss@0%"
    cfg = tiny(tmp_path / "a", sample=600, k_values=[10], algorithms=[SPECS[0]])
    run_study(cfg)
    varied = cfg.replace(suppression_limits=(0.0, 0.05))
    resumed = run_study(varied)
    assert resumed.cells_cached == 2
    fresh = run_study(varied.replace(output=tmp_path / "b"), use_cache=False)
    assert resumed.frame["cell"].to_list() == fresh.frame["cell"].to_list()
    assert "flash:loss@0%" in resumed.frame["cell"].to_list()
    drop = [c for c in COLUMNS if c.startswith("seconds_")]
    assert resumed.frame.drop(drop).equals(fresh.frame.drop(drop))


def test_no_cache_does_not_read_the_scores_of_releases(tmp_path: Path) -> None:
    cfg = tiny(tmp_path, sample=600, k_values=[10], algorithms=[SPECS[0]])
    first = run_study(cfg)
    for path in (cfg.cache_folder / "releases").glob("*.json"):
        rows = json.loads(path.read_text())
        path.write_text(json.dumps([{**row, "accuracy": 0.125} for row in rows]))
    fresh = run_study(cfg, use_cache=False)
    assert 0.125 not in fresh.frame["accuracy"].to_list()
    assert fresh.frame["accuracy"].to_list() == first.frame["accuracy"].to_list()


def test_split_errors_raise_before_the_pool_starts(tmp_path: Path) -> None:
    from anonkit.exceptions import ParameterError

    cfg = tiny(tmp_path, sample=600, k_values=[10], algorithms=[SPECS[0]], folds=5000, workers=2)
    with pytest.raises(ParameterError, match="'folds' parameter"):
        run_study(cfg)
    assert not cfg.cache_folder.exists()


def test_a_failed_worker_start_is_the_error_of_its_first_task(tmp_path: Path) -> None:
    # an exception in the pool's initializer breaks the pool ("BrokenProcessPool" and a
    # traceback per worker); kept, it is raised by the worker's tasks and reaches the caller
    from anonkit.exceptions import DataError
    from anonkit.study import cells

    cfg = tiny(tmp_path, sample=600, k_values=[10], algorithms=[SPECS[0]])
    cells._init_worker(cfg, "another fingerprint")
    with pytest.raises(DataError, match="dataset changed"):
        cells._run_in_worker(())


@pytest.mark.parametrize("role", ["dataset", "hierarchy"])
def test_an_output_file_that_is_an_input_is_refused(tmp_path: Path, role: str) -> None:
    # results.csv written over the table (or a hierarchy) the study reads
    from anonkit.datasets import load_adult
    from anonkit.exceptions import OutputIsInputError

    frame, _ = load_adult()
    data = tmp_path / ("results.csv" if role == "dataset" else "data.csv")
    frame.head(300).write_csv(data)
    race = tmp_path / ("results.csv" if role == "hierarchy" else "race.csv")
    values = sorted(set(frame["race"]))
    race.write_text("".join(f"{v},*\n" for v in values), encoding="utf-8")
    before = {p: p.read_bytes() for p in (data, race)}
    cfg = StudyConfig(
        dataset=str(data),
        target="salary-class",
        quasi_identifiers=["sex", "race"],
        hierarchies={"race": str(race)},
        k_values=[5],
        algorithms=[SPECS[0]],
        classifiers=[CLASSIFIER],
        workers=1,
        output=tmp_path,
    )
    with pytest.raises(OutputIsInputError, match="results.csv"):
        run_study(cfg)
    assert {p: p.read_bytes() for p in before} == before and not cfg.cache_folder.exists()


def test_an_interrupted_write_leaves_the_previous_outputs_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # results.csv was renamed into place before the report was rendered: a Ctrl-C then
    # left the new results beside the previous study.json and report.html
    cfg = tiny(tmp_path, sample=600, k_values=[10], algorithms=[SPECS[0]])
    run_study(cfg)
    before = {name: (tmp_path / name).read_bytes() for name in ("results.csv", "study.json")}

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "_report_writer", lambda: interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_study(cfg.replace(k_values=[50]))
    assert {name: (tmp_path / name).read_bytes() for name in before} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "cache",
        "report.html",
        "results.csv",
        "study.json",
    ]


def test_the_renames_of_the_outputs_hold_ctrl_c() -> None:
    import signal

    from anonkit.study.staging import signals_held

    done = []
    # Python's own handler, whatever an earlier test left (a SparkContext installs its own)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with signals_held():
                signal.raise_signal(signal.SIGINT)
                done.append("renamed")  # not cut short: the Ctrl-C arrives after the block
        assert done == ["renamed"]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_quasi_identifier_without_hierarchy_is_named_once_before_the_cells(
    tmp_path: Path,
) -> None:
    # the study resolved a value -> '*' hierarchy for it, so anonymize never warned and
    # the column was released as it stands or as '*' in every cell without a word
    import warnings

    from anonkit.exceptions import SuppressedColumnWarning
    from anonkit.study.grid import NoHierarchyWarning

    cfg = tiny(
        tmp_path,
        sample=600,
        k_values=[10],
        algorithms=[SPECS[0]],
        hierarchies={"race": {"type": "suppression"}},
    )
    at_first_progress: list[int] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        def named() -> list[warnings.WarningMessage]:
            return [w for w in caught if issubclass(w.category, SuppressedColumnWarning)]

        run_study(cfg, progress=lambda done, total: at_first_progress.append(len(named())))
    assert len(named()) == 1 and at_first_progress[0] == 1  # once, before any cell
    warning = named()[0]
    assert issubclass(warning.category, NoHierarchyWarning) and warning.filename == __file__
    text = str(warning.message)
    assert text.startswith("'race' had no hierarchy but '*', so the study's cells")
    assert "[hierarchies]" in text and '{type = "masking"}' in text
    assert warning.message.columns == ["race"]  # type: ignore[union-attr]


def test_staged_files_are_renamed_together_or_not_at_all(tmp_path: Path) -> None:
    from anonkit.study.staging import staged_files

    first, second = tmp_path / "a.svg", tmp_path / "b.md"
    first.write_text("old", encoding="utf-8")
    with pytest.raises(KeyboardInterrupt):
        with staged_files() as stage:
            stage(first).write_text("new", encoding="utf-8")
            assert first.read_text(encoding="utf-8") == "old"  # not yet in place
            raise KeyboardInterrupt
    assert [p.name for p in tmp_path.iterdir()] == ["a.svg"]
    assert first.read_text(encoding="utf-8") == "old"
    with staged_files() as stage:
        stage(first).write_text("new", encoding="utf-8")
        stage(second).write_text("page", encoding="utf-8")
    assert (
        first.read_text(encoding="utf-8") == "new" and second.read_text(encoding="utf-8") == "page"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.svg", "b.md"]
