"""The design of issue 21: repeated splits, a suppression-limit grid, tuned classifiers,
ROC AUC, degenerate (single-class) predictions and identical releases scored once."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ParameterError
from anonkit.study import ml, runner
from anonkit.study.config import StudyConfig
from anonkit.study.grid import split_indices, study_cells
from anonkit.study.runner import StudyResult, run_study
from anonkit.study.setup import UtilitySetup


def test_repeats_need_folds_and_give_folds_times_repeats_splits() -> None:
    with pytest.raises(ParameterError, match="repeats"):
        StudyConfig(repeats=2)
    cfg = StudyConfig(folds=2, repeats=5, k_values=[2], algorithms=[{"algorithm": "flash"}])
    assert cfg.n_splits == 10
    assert cfg.to_dict()["repeats"] == 5


def test_repeated_splits_partition_each_repeat_and_differ_between_repeats() -> None:
    y = pl.Series(["a"] * 30 + ["b"] * 10)
    splits = split_indices(y, folds=2, test_size=0.2, seed=0, repeats=3)
    assert len(splits) == 6
    labels = y.to_numpy()
    for r in range(3):
        (tr0, te0), (_tr1, te1) = splits[2 * r], splits[2 * r + 1]
        assert sorted([*te0, *te1]) == list(range(40))  # each repeat covers every row once
        assert np.array_equal(np.sort(tr0), np.sort(te1))
        assert (labels[te0] == "b").sum() == 5  # stratified
    assert not np.array_equal(splits[0][1], splits[2][1])


def test_suppression_limits_are_a_grid_dimension_of_full_domain_cells() -> None:
    cfg = StudyConfig(
        k_values=[5],
        algorithms=[{"algorithm": "flash"}, {"algorithm": "mondrian", "mode": "relaxed"}],
        suppression_limits=[0.0, 0.01, 0.05],
    )
    names = [c.name for c in study_cells(cfg) if c.spec is not None]
    assert names == ["flash:loss@0%", "flash:loss@1%", "flash:loss@5%", "mondrian:relaxed"]
    with pytest.raises(ParameterError, match="suppression_limits"):
        StudyConfig(suppression_limits=[0.5, 2.0])
    # a single limit keeps the plain names of earlier studies
    single = StudyConfig(k_values=[5], algorithms=[{"algorithm": "flash"}])
    assert [c.name for c in study_cells(single) if c.spec is not None] == ["flash:loss"]


def test_tuned_classifier_is_a_small_cross_validated_grid() -> None:
    model = ml.make_classifier("logistic_regression", tuned=True)
    assert type(model).__name__ == "LogisticRegressionCV"  # the C path, warm-started
    assert list(model.Cs) == [0.1, 1.0, 10.0] and model.cv.get_n_splits() == ml.TUNING_FOLDS
    boosting = ml.make_classifier("hist_gradient_boosting", tuned=True)
    assert type(boosting).__name__ == "GridSearchCV"
    assert list(boosting.param_grid) == ["max_leaf_nodes"]
    assert boosting.estimator.early_stopping is True
    with pytest.raises(ParameterError, match="tuning"):
        UtilitySetup(target="y", quasi_identifiers=("x",), hierarchies={}, tuning="yes")  # type: ignore[arg-type]


def test_scores_carry_roc_auc_and_flag_single_class_predictions() -> None:
    h = Hierarchy([["a", "*"], ["b", "*"]])
    train = pl.DataFrame({"x": ["a", "b", "b"] * 20, "y": ["0", "1", "1"] * 20})
    setup = UtilitySetup(
        target="y",
        quasi_identifiers=("x",),
        hierarchies={"x": h},
        classifiers=("logistic_regression",),
        tuning=True,
    )
    informative = ml.utility_scores(setup, train, train, train)
    assert all(s.roc_auc == pytest.approx(1.0) and not s.single_class for s in informative)
    blank = train.with_columns(pl.lit("*").alias("x"))  # everything generalized away
    degenerate = ml.utility_scores(setup, train, blank, train)
    assert degenerate[0].single_class and degenerate[0].accuracy == pytest.approx(2 / 3)
    assert degenerate[0].roc_auc == pytest.approx(0.5)
    majority = ml.baseline_scores(setup, train, train)[-1]
    assert majority.classifier == "majority" and majority.single_class


@pytest.fixture(scope="module")
def design(tmp_path_factory: pytest.TempPathFactory) -> StudyResult:
    from anonkit.study.report import write_study_report

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(
            runner, "_report_writer", lambda: functools.partial(write_study_report, renderer="svg")
        )
        return run_study(
            StudyConfig(
                sample=600,
                k_values=[5],
                folds=2,
                repeats=2,
                algorithms=[
                    {"algorithm": "flash", "metric": "loss"},
                    {"algorithm": "incognito", "metric": "loss"},
                    {"algorithm": "mondrian", "mode": "strict"},
                ],
                suppression_limits=[0.0, 0.05],
                classifiers=["logistic_regression"],
                workers=1,
                output=tmp_path_factory.mktemp("design"),
            )
        )


def test_design_study_rows(design: StudyResult) -> None:
    frame = design.frame
    assert design.cells_total == 4 * (1 + 2 * 2 + 1) and design.cells_failed == 0
    assert sorted(set(frame["fold"])) == [0, 1, 2, 3]
    cells = frame.filter(pl.col("k") == 5)
    assert set(cells["cell"]) == {
        "flash:loss@0%",
        "flash:loss@5%",
        "incognito:loss@0%",
        "incognito:loss@5%",
        "mondrian:strict",
    }
    assert set(cells["suppression_limit"]) == {0.0, 0.05}
    auc = cells["roc_auc"].drop_nans()
    assert auc.len() > 0 and bool(((auc >= 0) & (auc <= 1)).all())
    assert cells["single_class"].dtype == pl.Boolean
    assert bool(((cells["average_risk"] > 0) & (cells["average_risk"] <= 1 / 5)).all())
    assert bool((cells["max_risk"] <= 1 / 5).all())


def test_equal_optima_share_a_release_and_its_scores(design: StudyResult) -> None:
    """Incognito finds Flash's optimum (both minimize loss): one release, one training."""
    cells = design.frame.filter(pl.col("k") == 5)
    for _key, part in cells.group_by(["fold", "suppression_limit"]):
        flash = part.filter(pl.col("algorithm") == "flash")
        incognito = part.filter(pl.col("algorithm") == "incognito")
        if flash.is_empty():
            continue
        assert flash["release_id"].to_list() == incognito["release_id"].to_list()
        assert flash["accuracy"].to_list() == incognito["accuracy"].to_list()
    releases = Path(design.config.cache_folder) / "releases"
    assert len(list(releases.glob("*.json"))) < cells.select("fold", "cell").unique().height


def test_cached_results_draw_the_finished_cells(design: StudyResult) -> None:
    from anonkit.study.runner import cached_results

    frame, found, total = cached_results(design.config)
    assert found == total == design.cells_total
    assert frame.equals(design.frame)


def test_cached_results_keep_complete_splits_only(design: StudyResult, tmp_path: Path) -> None:
    import shutil

    from anonkit.study.grid import cell_key, load_study_data, study_cells
    from anonkit.study.runner import cached_results

    cfg = design.config.replace(cache=tmp_path / "cache")
    shutil.copytree(design.config.cache_folder, cfg.cache_folder)
    data = load_study_data(cfg)
    last = [c for c in study_cells(cfg) if c.fold == 3][-1]
    (cfg.cache_folder / f"{cell_key(last, cfg, data.fingerprint)}.json").unlink()
    frame, found, total = cached_results(cfg)
    assert sorted(set(frame["fold"])) == [0, 1, 2]
    assert found == total - 6
