"""Correlations of the study's metrics with accuracy, their intervals, ranking and tables."""

from __future__ import annotations

import math
import statistics
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit.exceptions import ParameterError, UnknownColumnError, UnknownNameError
from anonkit.study.analysis import (
    baseline_table,
    cell_rows,
    correlations,
    load_results,
    metric_columns,
    metric_label,
    rank_metrics,
    summary_table,
)
from anonkit.study.stats import average_ranks, t_quantile

KS = (2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500)
CELLS = (("flash", "loss"), ("mondrian", "strict"), ("greedy_merge", "nllm"))
CLASSIFIERS = ("logistic_regression", "random_forest")
Metric = Callable[[np.random.Generator, int, int, float], float]


def results(
    *,
    folds: int = 1,
    seed: int = 0,
    metrics: dict[str, Metric] | None = None,
    baselines: bool = True,
) -> pl.DataFrame:
    """A tidy frame in the study schema: 10 k × 3 cells × 2 classifiers × 2 evaluations.

    Accuracy falls with log k (plus noise); each metric is ``f(rng, cell index, k, acc)``.
    Defaults: ``loss_mono`` strictly decreasing in accuracy (Spearman -1), ``loss_linear``
    an exact linear function of accuracy (Pearson -1), ``loss_random`` noise,
    ``loss_const`` constant, ``loss_nan`` all NaN.
    """
    rng = np.random.default_rng(seed)
    metrics = metrics or {
        "loss_mono": lambda r, c, k, acc: math.exp(-20 * acc),
        "loss_linear": lambda r, c, k, acc: 3.0 - 2.0 * acc,
        "loss_random": lambda r, c, k, acc: float(r.uniform()),
        "loss_const": lambda r, c, k, acc: 0.25,
        "loss_nan": lambda r, c, k, acc: math.nan,
    }
    rows: list[dict[str, object]] = []
    for fold in range(folds):
        original = {c: 0.85 + 0.01 * i for i, c in enumerate(CLASSIFIERS)}
        if baselines:
            for c in CLASSIFIERS:
                rows.append(
                    dict(fold=fold, k=1, algorithm="original", variant="", cell="original",
                         classifier=c, evaluation="original_test", accuracy=original[c],
                         status="ok")
                )  # fmt: skip
            rows.append(
                dict(fold=fold, k=1, algorithm="majority", variant="", cell="majority",
                     classifier="majority", evaluation="original_test", accuracy=0.75,
                     status="ok")
            )  # fmt: skip
        for ci, (algorithm, variant) in enumerate(CELLS):
            for k in KS:
                for c in CLASSIFIERS:
                    for evaluation in ("anonymized_test", "original_test"):
                        acc = original[c] - 0.02 * math.log10(k) * (1 + 0.3 * ci)
                        acc += float(rng.normal(0, 0.002))
                        row: dict[str, object] = dict(
                            fold=fold, k=k, algorithm=algorithm, variant=variant,
                            cell=f"{algorithm}:{variant}", classifier=c,
                            evaluation=evaluation, accuracy=acc,
                            accuracy_drop=original[c] - acc, effective_k=k, n_classes=1000 // k,
                            status="ok",
                        )  # fmt: skip
                        for name, f in metrics.items():
                            row[name] = f(rng, ci, k, acc)
                        rows.append(row)
    frame = pl.DataFrame(rows, infer_schema_length=None)
    return frame.with_columns(pl.col("accuracy").alias("balanced_accuracy"))


def pick(
    table: pl.DataFrame, metric: str, *, classifier: str = "random_forest", target: str = "accuracy"
) -> dict[str, Any]:
    return table.filter(
        (pl.col("metric") == metric)
        & (pl.col("classifier") == classifier)
        & (pl.col("target") == target)
    ).row(0, named=True)


def columns_of(frame: pl.DataFrame, metric: str, classifier: str, fold: int = 0) -> tuple:
    sub = cell_rows(frame).filter((pl.col("classifier") == classifier) & (pl.col("fold") == fold))
    return sub[metric].to_numpy(), sub["accuracy"].to_numpy()


# ---------------------------------------------------------------- correlations
def test_perfectly_monotone_and_linear_metrics() -> None:
    table = correlations(results())
    mono = pick(table, "loss_mono")
    assert mono["spearman"] == pytest.approx(-1.0)
    assert -1.0 < mono["pearson"] < -0.5  # monotone but not linear
    assert mono["n"] == len(KS) * len(CELLS) and mono["n_folds"] == 1
    assert mono["ci_method"] == "fisher"
    assert mono["spearman_low"] == mono["spearman_high"] == pytest.approx(-1.0)
    linear = pick(table, "loss_linear")
    assert linear["pearson"] == pytest.approx(-1.0) and linear["spearman"] == pytest.approx(-1.0)
    drop = pick(table, "loss_mono", target="accuracy_drop")
    assert drop["spearman"] == pytest.approx(1.0)


def test_random_metric_is_weak_and_its_interval_covers_zero() -> None:
    table = correlations(results(seed=3))
    for classifier in CLASSIFIERS:
        row = pick(table, "loss_random", classifier=classifier)
        assert abs(row["spearman"]) < 0.5
        assert row["spearman_low"] < 0.0 < row["spearman_high"]
        assert row["pearson_low"] < 0.0 < row["pearson_high"]


def test_fisher_interval_formula_and_fieller_factor() -> None:
    frame = results(seed=1)
    row = pick(correlations(frame), "loss_random")
    n = row["n"]
    z = statistics.NormalDist().inv_cdf(0.975)
    for method, factor in (("spearman", 1.06), ("pearson", 1.0)):
        r = row[method]
        half = z * math.sqrt(factor / (n - 3))
        assert row[f"{method}_low"] == pytest.approx(math.tanh(math.atanh(r) - half))
        assert row[f"{method}_high"] == pytest.approx(math.tanh(math.atanh(r) + half))
    wider = pick(correlations(frame, confidence=0.99), "loss_random")
    assert wider["spearman_low"] < row["spearman_low"] < row["spearman_high"]
    assert row["spearman_high"] < wider["spearman_high"]


def test_estimates_match_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    frame = results(seed=2, metrics={"loss_ties": lambda r, c, k, acc: float(r.integers(0, 4))})
    row = pick(correlations(frame), "loss_ties")
    x, y = columns_of(frame, "loss_ties", "random_forest")
    assert row["spearman"] == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert row["pearson"] == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)


def test_folds_give_mean_and_t_interval() -> None:
    frame = results(folds=3, seed=4)
    table = correlations(frame)
    assert set(table["ci_method"]) == {"folds"}
    row = pick(table, "loss_random")
    assert row["n_folds"] == 3 and row["n"] == len(KS) * len(CELLS)
    per_fold = []
    for fold in range(3):
        one = results(folds=3, seed=4).filter(pl.col("fold") == fold)
        per_fold.append(pick(correlations(one), "loss_random")["spearman"])
    mean = sum(per_fold) / 3
    half = 4.302652729911275 * statistics.stdev(per_fold) / math.sqrt(3)  # t(0.975, 2)
    assert row["spearman"] == pytest.approx(mean)
    assert row["spearman_low"] == pytest.approx(max(-1.0, mean - half))
    assert row["spearman_high"] == pytest.approx(min(1.0, mean + half))
    mono = pick(table, "loss_mono")
    assert mono["spearman"] == pytest.approx(-1.0)
    assert mono["spearman_low"] == pytest.approx(-1.0) == mono["spearman_high"]


def test_constant_and_missing_metrics_give_nan_without_warnings() -> None:
    frame = results()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = correlations(frame)
        folds = correlations(results(folds=2))
    for t in (table, folds):
        for metric in ("loss_const", "loss_nan"):
            row = pick(t, metric)
            for key in ("spearman", "spearman_low", "pearson", "pearson_high"):
                assert math.isnan(row[key])
    assert pick(table, "loss_nan")["n"] == 0
    assert pick(table, "loss_const")["n"] == len(KS) * len(CELLS)
    assert pick(folds, "loss_const")["n_folds"] == 0


def test_partially_missing_metric_uses_the_pairs_it_has() -> None:
    frame = results(
        metrics={"loss_sse": lambda r, c, k, acc: -acc if c == 2 else math.nan},
    )
    row = pick(correlations(frame), "loss_sse")
    assert row["n"] == len(KS) and row["spearman"] == pytest.approx(-1.0)


def test_constant_accuracy_gives_nan() -> None:
    frame = results().with_columns(pl.lit(0.8).alias("accuracy"))
    assert math.isnan(pick(correlations(frame), "loss_mono")["spearman"])


def test_baselines_and_failed_cells_are_left_out() -> None:
    clean = correlations(results(baselines=False))
    frame = results()
    failed = (
        frame.filter(pl.col("algorithm") == "flash")
        .with_columns(
            pl.lit("error: flash found nothing.").alias("status"),
            pl.lit(math.nan).alias("accuracy"),
            pl.lit(123.0).alias("loss_mono"),
        )
        .with_columns(pl.lit("flash:broken").alias("cell"))
    )
    noisy = pl.concat([frame, failed], how="vertical_relaxed")
    got = correlations(noisy)
    assert got.select("spearman", "pearson", "n").equals(clean.select("spearman", "pearson", "n"))
    assert cell_rows(noisy).filter(pl.col("algorithm").is_in(["original", "majority"])).is_empty()


def test_evaluation_filter() -> None:
    frame = results()
    shifted = frame.with_columns(
        pl.when(pl.col("evaluation") == "original_test")
        .then(pl.lit(0.5))
        .otherwise(pl.col("accuracy"))
        .alias("accuracy")
    )
    assert pick(correlations(shifted), "loss_mono")["spearman"] == pytest.approx(-1.0)
    assert set(correlations(shifted, evaluation="original_test")["evaluation"]) == {"original_test"}


def test_metric_columns_and_labels() -> None:
    frame = results()
    assert metric_columns(frame) == (
        "loss_mono", "loss_linear", "loss_random", "loss_const", "loss_nan", "effective_k",
        "n_classes", "k",
    )  # fmt: skip
    assert metric_label("loss_conditional_entropy") == "Conditional entropy (Gionis-Tassa)"
    assert metric_label("loss_unknown_thing") == "Unknown thing"


def test_errors() -> None:
    frame = results()
    with pytest.raises(UnknownNameError, match="evaluation"):
        correlations(frame, evaluation="test")
    with pytest.raises(UnknownColumnError, match="accuracy"):
        correlations(frame.drop("accuracy"))
    with pytest.raises(ParameterError, match="confidence"):
        correlations(frame, confidence=1.5)
    with pytest.raises(ParameterError, match="frame"):
        correlations(frame.to_dict())  # type: ignore[arg-type]
    with pytest.raises(UnknownNameError):
        rank_metrics(correlations(frame), method="kendall")
    with pytest.raises(UnknownColumnError):
        rank_metrics(frame)


def test_empty_results_give_an_empty_table() -> None:
    frame = results().with_columns(pl.lit("error: boom.").alias("status"))
    table = correlations(frame)
    assert table.is_empty() and "ci_method" in table.columns
    assert rank_metrics(table).is_empty()


# ------------------------------------------------------------------ statistics
def testt_quantile() -> None:
    assert t_quantile(0.95, 1) == pytest.approx(12.706204736174707)
    assert t_quantile(0.95, 4) == pytest.approx(2.7764451051977987)
    assert t_quantile(0.95, 9) == pytest.approx(2.2621571627409915)
    stats = pytest.importorskip("scipy.stats")
    for df in (2, 3, 5, 10, 29, 60):
        for confidence in (0.9, 0.95, 0.99):
            expected = stats.t.ppf(0.5 + confidence / 2, df)
            assert t_quantile(confidence, df) == pytest.approx(expected, rel=1e-10)


@given(st.lists(st.integers(-3, 3), min_size=1, max_size=30))
def testaverage_ranks(values: list[int]) -> None:
    x = np.array(values, dtype=np.float64)
    ranks = average_ranks(x)
    assert ranks.sum() == pytest.approx(x.size * (x.size + 1) / 2)
    for i in range(x.size):  # rank = (#smaller) + (#equal + 1) / 2
        assert ranks[i] == (x < x[i]).sum() + ((x == x[i]).sum() + 1) / 2


@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=10, max_size=10),
    st.sampled_from([1, 2, 3]),
)
def test_correlations_stay_in_bounds(noise: list[float], folds: int) -> None:
    values = iter(noise * 100)
    frame = results(folds=folds, metrics={"loss_x": lambda r, c, k, acc: next(values)})
    for row in correlations(frame).filter(pl.col("metric") == "loss_x").iter_rows(named=True):
        for method in ("spearman", "pearson"):
            est, low, high = row[method], row[f"{method}_low"], row[f"{method}_high"]
            if math.isfinite(est):
                assert -1.0 <= est <= 1.0
            if math.isfinite(low):
                assert -1.0 <= low <= est + 1e-12 and est - 1e-12 <= high <= 1.0


# ---------------------------------------------------------------------- ranking
def test_rank_metrics_orders_by_strength() -> None:
    table = correlations(results(seed=5))
    ranking = rank_metrics(table)
    order = ranking["metric"].to_list()
    assert order.index("loss_mono") < order.index("loss_random")
    assert order[-2:] == ["loss_const", "loss_nan"]  # undefined last, in frame order
    assert ranking["rank"].to_list()[-2:] == [None, None]
    assert ranking["rank"][0] == 1
    top = ranking.row(0, named=True)
    assert top["abs_rho"] == pytest.approx(1.0) and top["n_classifiers"] == len(CLASSIFIERS)
    assert top["rho_min"] <= top["rho"] <= top["rho_max"]
    kinds = dict(zip(ranking["metric"], ranking["kind"], strict=True))
    assert kinds["k"] == "design" and kinds["loss_mono"] == "loss"
    assert kinds["n_classes"] == "structure"
    drop = rank_metrics(table, target="accuracy_drop", method="pearson")
    assert drop.filter(pl.col("metric") == "loss_linear")["rho"][0] == pytest.approx(1.0)


# ----------------------------------------------------------------------- tables
def test_summary_table_means_over_folds() -> None:
    frame = results(folds=2)
    wide = summary_table(frame)
    assert wide.columns == ["classifier", "k", "flash:loss", "mondrian:strict", "greedy_merge:nllm"]
    assert wide.height == len(CLASSIFIERS) * len(KS)
    assert wide["classifier"].to_list()[0] == CLASSIFIERS[0]
    expected = (
        cell_rows(frame)
        .filter((pl.col("classifier") == "random_forest") & (pl.col("k") == 10))
        .filter(pl.col("cell") == "mondrian:strict")["accuracy"]
        .mean()
    )
    got = wide.filter((pl.col("classifier") == "random_forest") & (pl.col("k") == 10))
    assert got["mondrian:strict"][0] == pytest.approx(expected)
    with pytest.raises(UnknownNameError):
        summary_table(frame, value="loss_mono")


def test_baseline_table() -> None:
    base = baseline_table(results(folds=2))
    assert base.height == len(CLASSIFIERS) + 1
    majority = base.filter(pl.col("algorithm") == "majority").row(0, named=True)
    assert majority["accuracy"] == pytest.approx(0.75) and majority["n_folds"] == 2
    assert baseline_table(results(baselines=False)).is_empty()


def test_load_results_round_trip(tmp_path: Path) -> None:
    frame = results().with_columns(pl.lit("adult").alias("dataset"))
    path = tmp_path / "results.csv"
    frame.write_csv(path)
    back = load_results(path)
    assert back["variant"].null_count() == 0 and "" in back["variant"].to_list()
    assert back.schema["loss_nan"] == pl.Float64 and back.schema["k"] == pl.Int64
    assert correlations(back).equals(correlations(frame.select(back.columns)))


def test_within_k_correlations_rank_releases_of_equal_k() -> None:
    # Within each k the metric orders the three algorithms exactly like accuracy (rho = -1),
    # but its level is unrelated to k, so over the whole grid the relation is weak.
    rows = []
    for k, offset, acc0 in [(2, 5.0, 0.80), (10, 0.0, 0.75), (100, 10.0, 0.70)]:
        for i, cell in enumerate(["a:x", "b:y", "c:z"]):
            rows.append(
                {
                    "fold": 0,
                    "k": k,
                    "algorithm": cell.split(":")[0],
                    "cell": cell,
                    "classifier": "logistic_regression",
                    "evaluation": "anonymized_test",
                    "accuracy": acc0 - 0.01 * i,
                    "loss_loss": offset + i,
                }
            )
    frame = pl.DataFrame(rows)
    within = correlations(frame, within="k").filter(
        (pl.col("metric") == "loss_loss") & (pl.col("target") == "accuracy")
    )
    row = within.row(0, named=True)
    assert row["spearman"] == pytest.approx(-1.0)
    assert row["ci_method"] == "within-k" and row["n_folds"] == 3 and row["n"] == 3
    overall = correlations(frame).filter(
        (pl.col("metric") == "loss_loss") & (pl.col("target") == "accuracy")
    )
    assert abs(overall.row(0, named=True)["spearman"]) < 0.6
    with pytest.raises(UnknownNameError):
        correlations(frame, within="cell")
