"""Statistics of repeated-split studies on hand-made tidy tables."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from anonkit.study import inference


def table(seed: int = 0, splits: int = 6) -> pl.DataFrame:
    """Per split and k, 6 releases: `good` tracks accuracy, `noise` does not, k lowers it;
    one release per group is degenerate with a constant accuracy."""
    rng = np.random.default_rng(seed)
    rows = []
    for fold in range(splits):
        for k in (2, 10, 50):
            for j in range(6):
                good = rng.uniform(0, 1)
                degenerate = j == 5
                rows.append(
                    {
                        "dataset": "t",
                        "fold": fold,
                        "k": k,
                        "algorithm": "flash" if j < 3 else "mondrian",
                        "cell": f"c{j}",
                        "classifier": "lr",
                        "evaluation": "anonymized_test",
                        "status": "ok",
                        "accuracy": 0.75 if degenerate else 0.9 - 0.1 * good - k / 1000,
                        "loss_good": good,
                        "loss_noise": rng.uniform(0, 1),
                        "loss_conditional_entropy": rng.uniform(0, 1),
                        "single_class": degenerate,
                        "release_id": f"r{fold}{k}{j}",
                        "effective_k": k,
                        "average_risk": 1 / (k + j),
                    }
                )
    return pl.DataFrame(rows)


def test_release_rows_keep_degenerate_cells_apart() -> None:
    frame = table()
    assert inference.release_rows(frame).height == 6 * 3 * 5
    assert inference.release_rows(frame, degenerate="only").height == 6 * 3
    assert inference.release_rows(frame, degenerate="include").height == 6 * 3 * 6
    with pytest.raises(ValueError, match="degenerate"):
        inference.release_rows(frame, degenerate="pooled")


def test_within_k_finds_the_informative_metric() -> None:
    result = inference.within_k(inference.release_rows(table()), ["loss_good", "loss_noise"])
    good = result.row(0, named=True)
    assert good["metric"] == "loss_good" and good["rho"] == pytest.approx(-1.0)
    noise = result.filter(pl.col("metric") == "loss_noise").row(0, named=True)
    assert noise["n_splits"] == 6 and noise["low"] < noise["rho"] < noise["high"]


def test_within_k_ranks_a_metric_of_kept_information_by_its_positive_rho() -> None:
    # n_classes counts what a release keeps: its best case is ρ = +1, not the bottom row
    rows = inference.release_rows(table()).with_columns(
        (1 - pl.col("loss_good")).alias("n_classes")
    )
    result = inference.within_k(rows, ["loss_noise", "n_classes"])
    assert result["metric"].to_list() == ["n_classes", "loss_noise"]
    assert result["rho"][0] == pytest.approx(1.0)


def test_partial_correlation_controls_for_k() -> None:
    rows = inference.release_rows(table())
    result = inference.partial_correlations(rows, ["loss_good", "loss_noise", "k"])
    values = {r["metric"]: r["partial"] for r in result.iter_rows(named=True)}
    assert values["loss_good"] < -0.95 and abs(values["loss_noise"]) < 0.3
    assert math.isnan(values["k"])  # k is a control: nothing left to correlate


def test_differences_are_holm_corrected_and_favour_the_informative_metric() -> None:
    rows = inference.release_rows(table(splits=10))
    result = inference.metric_differences(rows, ["loss_good", "loss_noise"], n_boot=500)
    top = result.row(0, named=True)
    assert top["metric"] == "loss_good" and top["difference"] > 0.5 and top["low"] > 0
    assert top["p_holm"] >= top["p"] and top["p_holm"] < 0.05
    assert inference.sign_flip_p(np.array([0.1, -0.1])) == 1.0
    assert inference.holm([0.01, math.nan, 0.02]) == [
        0.02,
        pytest.approx(math.nan, nan_ok=True),
        0.02,
    ]


def test_regret_is_zero_for_a_perfect_ranker_and_positive_at_random() -> None:
    rows = inference.release_rows(table())
    result = inference.regret(rows, ["loss_good", "loss_noise"])
    values = {r["metric"]: r["regret"] for r in result.iter_rows(named=True)}
    assert values["loss_good"] == pytest.approx(0.0)
    assert values["random"] > 0 and values["loss_noise"] > 0
    assert result["metric"][0] == "loss_good"


def test_frontier_and_degenerate_summary() -> None:
    frame = table()
    front = inference.frontier(inference.release_rows(frame))
    assert front["on_front"].any() and not front["on_front"].all()
    summary = inference.degenerate_summary(frame).row(0, named=True)
    assert summary["degenerate"] == 18 and summary["cells"] == 108
    assert summary["by_algorithm"] == "mondrian 18"


def test_degenerate_summary_lists_tied_algorithms_by_name() -> None:
    """Algorithms with as many degenerate cells are listed by name, whatever order the
    rows come in (polars' group_by order varies; the page must not change with it)."""
    frame = table()
    # two algorithms with 18 degenerate cells each, in both row orders
    twin = frame.filter(pl.col("single_class")).with_columns(pl.lit("datafly").alias("algorithm"))
    for rows in (pl.concat([frame, twin]), pl.concat([twin, frame])):
        for _ in range(5):
            summary = inference.degenerate_summary(rows).row(0, named=True)
            assert summary["by_algorithm"] == "datafly 18, mondrian 18"
