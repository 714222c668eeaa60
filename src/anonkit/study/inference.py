"""Statistics of a repeated-split study: which metric picks the better release at equal k?

The replication unit is the train/test split (``fold`` of the tidy table: 5x2
cross-validation gives 10). Every function works on the rows of
:func:`release_rows`: successful cells of one evaluation, one row per (split, k,
classifier, distinct release) (cells whose releases are identical, such as Incognito's
optimum and Flash's, or a suppression limit that suppresses nothing more, count once), with
the *degenerate* ones (the classifier predicted one class for every test record, see
:attr:`anonkit.study.ml.UtilityScore.single_class`) kept out, kept alone or kept in, as
asked: never pooled silently.

* :func:`within_k` -- Spearman's ρ between a metric and an outcome among the releases of
  one (split, k, classifier), averaged over k and the classifiers per split, then a
  t-interval across splits;
* :func:`partial_correlations` -- rank (Spearman) partial correlation of the outcome with a
  metric controlling for k, algorithm and split (residuals of both ranks on their dummies,
  by least squares in numpy), with a Fisher interval;
* :func:`metric_differences` -- per split, the within-k ρ of each metric minus that of a
  reference metric (conditional entropy), oriented so that positive favours the metric;
  percentile bootstrap over splits and Holm's step-down correction of the p-values;
* :func:`regret` -- the outcome lost by publishing, at each (split, k, classifier), the
  release a metric ranks best instead of the best release (the oracle), with a random
  choice (the mean release) as reference;
* :func:`frontier` -- mean outcome against achieved risk per (k, cell) and the
  privacy-utility Pareto front;
* :func:`degenerate_summary` -- how many cells are degenerate, per classifier.

The splits of repeated K-fold share records, so the t-intervals are narrower than exact
coverage would give (Dietterich 1998; Nadeau & Bengio 2003): read them as the stability
of a result over splits, and the Holm-corrected bootstrap tests as screening.

References
----------
T. G. Dietterich. Approximate statistical tests for comparing supervised classification
learning algorithms. Neural Computation 10 (1998).
C. Nadeau, Y. Bengio. Inference for the generalization error. Machine Learning 52 (2003).
S. Holm. A simple sequentially rejective multiple test procedure. Scand. J. Statist. 6
(1979).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit._arrays import FloatArray
from anonkit.exceptions import ParameterError
from anonkit.study.analysis import cell_rows, metric_label
from anonkit.study.stats import average_ranks, fisher_interval, pearson, spearman, t_quantile

__all__ = [
    "DEGENERATE",
    "OUTCOMES",
    "REFERENCE_METRIC",
    "degenerate_summary",
    "frontier",
    "holm",
    "metric_differences",
    "partial_correlations",
    "regret",
    "release_rows",
    "sign_flip_p",
    "within_k",
]


#: Outcomes a study scores (columns of the tidy table).
OUTCOMES: tuple[str, ...] = ("accuracy", "balanced_accuracy", "roc_auc")
#: How :func:`release_rows` treats degenerate (single-class) cells.
DEGENERATE: tuple[str, ...] = ("exclude", "include", "only")
#: Seed 000's candidate, the reference of :func:`metric_differences`.
REFERENCE_METRIC = "loss_conditional_entropy"
#: Metrics where a larger value means *more* information kept.
_MORE_IS_BETTER = frozenset({"n_classes"})
_OWNER = "the study statistics"


def _t_interval(values: Sequence[float]) -> tuple[float, float, float, int]:
    finite = np.array([v for v in values if math.isfinite(v)], dtype=np.float64)
    m = int(finite.size)
    if m == 0:
        return math.nan, math.nan, math.nan, 0
    mean = float(finite.mean())
    if m < 2:
        return mean, math.nan, math.nan, m
    half = t_quantile(0.95, m - 1) * float(finite.std(ddof=1)) / math.sqrt(m)
    return mean, mean - half, mean + half, m


def release_rows(
    frame: pl.DataFrame, *, evaluation: str = "anonymized_test", degenerate: str = "exclude"
) -> pl.DataFrame:
    """Rows of successful cells, one per (split, k, classifier, distinct release).

    Parameters
    ----------
    degenerate
        ``"exclude"`` (drop single-class cells), ``"include"`` (keep them) or ``"only"``.

    Examples
    --------
    >>> f = pl.DataFrame({"fold": [0, 0], "k": [2, 2], "algorithm": ["flash", "incognito"],
    ...     "cell": ["flash:loss", "incognito:loss"], "classifier": ["lr", "lr"],
    ...     "evaluation": ["anonymized_test"] * 2, "accuracy": [0.8, 0.8],
    ...     "release_id": ["a", "a"], "single_class": [False, False]})
    >>> release_rows(f)["cell"].to_list()
    ['flash:loss']
    """
    if degenerate not in DEGENERATE:
        raise ParameterError("degenerate", _OWNER, f"one of {DEGENERATE}", degenerate)
    rows = cell_rows(frame, evaluation=evaluation)
    if "release_id" in rows.columns:
        rows = rows.with_columns(
            pl.when(pl.col("release_id").is_null() | (pl.col("release_id") == ""))
            .then(pl.col("cell"))
            .otherwise(pl.col("release_id"))
            .alias("_release")
        )
        rows = rows.unique(
            ["fold", "k", "classifier", "_release"], keep="first", maintain_order=True
        )
        rows = rows.drop("_release")
    if "single_class" in rows.columns and degenerate != "include":
        flag = pl.col("single_class").fill_null(False)
        rows = rows.filter(flag if degenerate == "only" else ~flag)
    return rows


def _groups(rows: pl.DataFrame) -> list[tuple[int, npt.NDArray[np.int64]]]:
    """The split and the row indices of every (split, classifier, k) group, in order of
    first appearance (one group-by; the statistics then work on numpy columns)."""
    if rows.is_empty():
        return []
    found = (
        rows.with_row_index("_row")
        .group_by(["fold", "classifier", "k"], maintain_order=True)
        .agg(pl.col("_row"))
    )
    return [
        (int(fold), np.asarray(index, dtype=np.int64))
        for fold, index in zip(found["fold"].to_list(), found["_row"].to_list(), strict=True)
    ]


def _values(rows: pl.DataFrame, column: str) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """A column as floats (missing values NaN) and which of its values are null."""
    series = rows[column].cast(pl.Float64)
    return series.fill_null(math.nan).to_numpy(), series.is_null().to_numpy()


def _per_split_within(
    rows: pl.DataFrame,
    metric: str,
    outcome: str,
    groups: list[tuple[int, npt.NDArray[np.int64]]] | None = None,
) -> dict[int, float]:
    """Per split: ρ(metric, outcome) within each (classifier, k), averaged (releases where
    either is missing are left out; a group needs 3 releases varying in both)."""
    x_all, _ = _values(rows, metric)
    y_all, _ = _values(rows, outcome)
    sums: dict[int, list[float]] = {}
    for fold, index in groups if groups is not None else _groups(rows):
        x, y = x_all[index], y_all[index]
        keep = ~(np.isnan(x) | np.isnan(y))
        if int(keep.sum()) < 3:
            continue
        x, y = x[keep], y[keep]
        if np.ptp(x) == 0 or np.ptp(y) == 0:
            continue
        sums.setdefault(fold, []).append(spearman(x, y))
    return {f: float(np.mean(v)) for f, v in sums.items() if v}


def _varying_groups(
    rows: pl.DataFrame, metric: str, groups: list[tuple[int, npt.NDArray[np.int64]]]
) -> int:
    """Groups with at least 3 releases where ``metric`` is not NaN and where it takes more
    than one value (NaN and null count as values)."""
    values, null = _values(rows, metric)
    nan = np.isnan(values) & ~null
    count = 0
    for _fold, index in groups:
        v, is_nan, is_null = values[index], nan[index], null[index]
        if int((~is_nan).sum()) < 3:
            continue
        present = v[~(is_nan | is_null)]
        distinct = np.unique(present).size + int(is_nan.any()) + int(is_null.any())
        count += distinct > 1
    return count


def within_k(
    rows: pl.DataFrame, metrics: Sequence[str], *, outcome: str = "accuracy"
) -> pl.DataFrame:
    """Within-k Spearman ρ of each metric with ``outcome``, interval across splits.

    Columns ``metric, label, rho, low, high, n_splits, n_groups`` (groups: (split,
    classifier, k) with at least 3 releases that vary in both), the best predictor first:
    by ρ, most negative first for a loss, most positive first for a metric of kept
    information (:data:`_MORE_IS_BETTER`).
    """
    records = []
    index = _groups(rows)
    for metric in metrics:
        per = _per_split_within(rows, metric, outcome, index)
        mean, low, high, m = _t_interval(list(per.values()))
        groups = _varying_groups(rows, metric, index)
        records.append(
            {
                "metric": metric,
                "label": metric_label(metric),
                "rho": mean,
                "low": low,
                "high": high,
                "n_splits": m,
                "n_groups": groups,
            }
        )
    schema = {
        "metric": pl.String,
        "label": pl.String,
        "rho": pl.Float64,
        "low": pl.Float64,
        "high": pl.Float64,
        "n_splits": pl.Int64,
        "n_groups": pl.Int64,
    }
    oriented = pl.when(pl.col("metric").is_in(list(_MORE_IS_BETTER)))
    return (
        pl.DataFrame(records, schema=schema)
        .with_columns(oriented.then(-pl.col("rho")).otherwise(pl.col("rho")).alias("_key"))
        .sort("_key", nulls_last=True)
        .drop("_key")
    )


def _dummies(values: Sequence[object]) -> FloatArray:
    levels = sorted(set(values), key=str)
    index = {v: i for i, v in enumerate(levels)}
    out = np.zeros((len(values), max(len(levels) - 1, 0)), dtype=np.float64)
    for row, v in enumerate(values):
        j = index[v]
        if j > 0:
            out[row, j - 1] = 1.0
    return out


def partial_correlations(
    rows: pl.DataFrame,
    metrics: Sequence[str],
    *,
    outcome: str = "accuracy",
    controls: Sequence[str] = ("k", "algorithm", "fold"),
) -> pl.DataFrame:
    """Rank partial correlation of ``outcome`` with each metric given ``controls``.

    Per classifier: the ranks of the metric and of the outcome are regressed (least
    squares, numpy) on an intercept and the dummies of every control; the Pearson
    correlation of the two residuals is the partial Spearman correlation. The interval is
    Fisher's with ``n - q`` in place of ``n`` (``q`` controlled columns) and Fieller's
    1.06 factor. The classifiers' coefficients are averaged (interval: the average of
    their bounds). Columns ``metric, label, partial, low, high, n``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> k = np.repeat([2, 10], 20); m = rng.normal(size=40)
    >>> f = pl.DataFrame({"k": k, "algorithm": ["a"] * 40, "fold": [0] * 40,
    ...     "classifier": ["lr"] * 40, "m": m, "accuracy": -m - k + rng.normal(0, .1, 40)})
    >>> round(partial_correlations(f, ["m"])["partial"][0], 1)
    -1.0
    """
    records = []
    for metric in metrics:
        values: list[tuple[float, float, float, int]] = []
        for _clf, part in rows.group_by("classifier", maintain_order=True):
            sub = part.filter(
                pl.col(metric).is_not_null()
                & pl.col(metric).cast(pl.Float64).is_not_nan()
                & pl.col(outcome).is_not_null()
                & pl.col(outcome).cast(pl.Float64).is_not_nan()
            )
            n = sub.height
            if n < 8:
                continue
            z = np.hstack(
                [np.ones((n, 1))]
                + [_dummies(sub[c].to_list()) for c in controls if c in sub.columns]
            )
            q = int(np.linalg.matrix_rank(z))
            if n - q < 4:
                continue
            x = average_ranks(sub[metric].to_numpy().astype(np.float64))
            y = average_ranks(sub[outcome].to_numpy().astype(np.float64))
            rx = x - z @ np.linalg.lstsq(z, x, rcond=None)[0]
            ry = y - z @ np.linalg.lstsq(z, y, rcond=None)[0]
            if np.allclose(rx, 0) or np.allclose(ry, 0):
                continue
            r = pearson(rx, ry)
            lo, hi = fisher_interval(r, n - q + 1, 1.06, 1.959964)
            values.append((r, lo, hi, n))
        arr = np.array([v[:3] for v in values], dtype=np.float64) if values else None
        records.append(
            {
                "metric": metric,
                "label": metric_label(metric),
                "partial": float(arr[:, 0].mean()) if arr is not None else math.nan,
                "low": float(arr[:, 1].mean()) if arr is not None else math.nan,
                "high": float(arr[:, 2].mean()) if arr is not None else math.nan,
                "n": int(sum(v[3] for v in values)),
            }
        )
    schema = {
        "metric": pl.String,
        "label": pl.String,
        "partial": pl.Float64,
        "low": pl.Float64,
        "high": pl.Float64,
        "n": pl.Int64,
    }
    return pl.DataFrame(records, schema=schema).sort("partial", nulls_last=True)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (monotone, capped at 1; NaN stays NaN).

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    finite = [(p, i) for i, p in enumerate(p_values) if math.isfinite(p)]
    finite.sort()
    m = len(finite)
    out = [math.nan] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(finite):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = round(running, 12)
    return out


def sign_flip_p(d: FloatArray) -> float:
    """Two-sided p-value of the sign-flip (paired permutation) test of mean ``d`` = 0.

    Exact over the ``2^m`` sign assignments for ``m <= 16`` values (a 5x2 study has 10),
    else 20,000 random ones. The smallest possible p is ``2 / 2^m``: 0.125 with 4 splits.

    Examples
    --------
    >>> sign_flip_p(np.array([0.1, 0.2, 0.3, 0.4]))
    0.125
    """
    m = int(d.size)
    observed = abs(float(d.mean()))
    if m <= 16:
        signs = 1 - 2 * ((np.arange(2**m)[:, None] >> np.arange(m)) & 1)
    else:
        signs = np.random.default_rng(0).choice([-1, 1], size=(20_000, m))
    means = np.abs((signs * d[None, :]).mean(axis=1))
    return float((means >= observed - 1e-12).mean())


def metric_differences(
    rows: pl.DataFrame,
    metrics: Sequence[str],
    *,
    reference: str = REFERENCE_METRIC,
    outcome: str = "accuracy",
    n_boot: int = 4000,
    seed: int = 0,
) -> pl.DataFrame:
    """Does a metric predict the outcome within k better than ``reference``?

    Per split, ``d = s(metric) - s(reference)`` where ``s`` is the within-k ρ oriented so
    that positive means "ranks releases the way the outcome does" (``-ρ`` for loss-like
    metrics, ``+ρ`` for :data:`_MORE_IS_BETTER`). The mean ``d`` gets a percentile
    bootstrap interval over splits (``n_boot`` resamples) and the two-sided p-value of
    the exact sign-flip test (:func:`sign_flip_p`; a bootstrap p-value would be
    anti-conservative with 4 or 10 splits), Holm-corrected over the metrics. Columns
    ``metric, label, difference, low, high, p, p_holm, n_splits``, best first.
    """
    index = _groups(rows)
    ref = _per_split_within(rows, reference, outcome, index)
    rng = np.random.default_rng(seed)
    records = []
    for metric in metrics:
        if metric == reference:
            continue
        per = _per_split_within(rows, metric, outcome, index)
        sign = 1.0 if metric in _MORE_IS_BETTER else -1.0
        ref_sign = 1.0 if reference in _MORE_IS_BETTER else -1.0
        folds = sorted(set(per) & set(ref))
        d = np.array([sign * per[f] - ref_sign * ref[f] for f in folds], dtype=np.float64)
        if d.size < 2:
            records.append((metric, math.nan, math.nan, math.nan, math.nan, int(d.size)))
            continue
        boots = d[rng.integers(0, d.size, size=(n_boot, d.size))].mean(axis=1)
        low, high = np.quantile(boots, [0.025, 0.975])
        p = sign_flip_p(d)
        records.append((metric, float(d.mean()), float(low), float(high), p, int(d.size)))
    adjusted = holm([r[4] for r in records])
    out = [
        {
            "metric": r[0],
            "label": metric_label(r[0]),
            "difference": r[1],
            "low": r[2],
            "high": r[3],
            "p": r[4],
            "p_holm": a,
            "n_splits": r[5],
        }
        for r, a in zip(records, adjusted, strict=True)
    ]
    schema = {
        "metric": pl.String,
        "label": pl.String,
        "difference": pl.Float64,
        "low": pl.Float64,
        "high": pl.Float64,
        "p": pl.Float64,
        "p_holm": pl.Float64,
        "n_splits": pl.Int64,
    }
    return pl.DataFrame(out, schema=schema).sort("difference", descending=True, nulls_last=True)


def regret(
    rows: pl.DataFrame, metrics: Sequence[str], *, outcome: str = "accuracy"
) -> pl.DataFrame:
    """Outcome lost by publishing the release a metric ranks best, at each k.

    For each (split, classifier, k) with at least two releases: the best release's
    outcome minus that of the release the metric prefers (lowest value; highest for
    :data:`_MORE_IS_BETTER`; ties: their mean outcome). Metrics undefined on some release
    of a group skip it. ``"random"`` is the expected regret of picking a release at
    random. Averaged over k and classifiers per split, then a t-interval across splits.
    Columns ``metric, label, regret, low, high, n_splits, n_groups``, lowest regret first.

    Examples
    --------
    >>> f = pl.DataFrame({"fold": [0] * 3, "classifier": ["lr"] * 3, "k": [2] * 3,
    ...     "m": [1.0, 2.0, 3.0], "accuracy": [0.7, 0.8, 0.6]})
    >>> r = regret(f, ["m"]).select("metric", "regret").rows()
    >>> [(name, round(v, 2)) for name, v in r]
    [('random', 0.1), ('m', 0.1)]
    """
    per: dict[str, dict[int, list[float]]] = {m: {} for m in [*metrics, "random"]}
    counts = dict.fromkeys(per, 0)
    y_column = _values(rows, outcome)[0]
    x_columns = {metric: _values(rows, metric)[0] for metric in metrics}
    for fold, index in _groups(rows):
        y_all = y_column[index]
        if index.size < 2 or not np.isfinite(y_all).all():
            continue
        best = float(y_all.max())
        per["random"].setdefault(fold, []).append(best - float(y_all.mean()))
        counts["random"] += 1
        for metric in metrics:
            x = x_columns[metric][index]
            if not np.isfinite(x).all():
                continue
            target = x.max() if metric in _MORE_IS_BETTER else x.min()
            chosen = float(y_all[x == target].mean())
            per[metric].setdefault(fold, []).append(best - chosen)
            counts[metric] += 1
    records = []
    for metric, folds in per.items():
        mean, low, high, m = _t_interval([float(np.mean(v)) for v in folds.values()])
        records.append(
            {
                "metric": metric,
                "label": "Random release (reference)"
                if metric == "random"
                else metric_label(metric),
                "regret": mean,
                "low": low,
                "high": high,
                "n_splits": m,
                "n_groups": counts[metric],
            }
        )
    schema = {
        "metric": pl.String,
        "label": pl.String,
        "regret": pl.Float64,
        "low": pl.Float64,
        "high": pl.Float64,
        "n_splits": pl.Int64,
        "n_groups": pl.Int64,
    }
    return pl.DataFrame(records, schema=schema).sort("regret", nulls_last=True)


def frontier(
    rows: pl.DataFrame, *, risk: str = "average_risk", outcome: str = "accuracy"
) -> pl.DataFrame:
    """Mean ``outcome`` and ``risk`` per (classifier, k, cell) over splits, with the
    privacy-utility Pareto front marked (``on_front``: no other point has lower or equal
    risk and higher outcome).

    Examples
    --------
    >>> f = pl.DataFrame({"classifier": ["lr"] * 3, "k": [2, 5, 10], "cell": ["a"] * 3,
    ...     "average_risk": [0.3, 0.1, 0.05], "accuracy": [0.8, 0.82, 0.7]})
    >>> frontier(f)["on_front"].to_list()
    [False, True, True]
    """
    means = (
        rows.group_by(["classifier", "k", "cell"], maintain_order=True)
        .agg(pl.col(risk).cast(pl.Float64).mean(), pl.col(outcome).cast(pl.Float64).mean())
        .sort(["classifier", risk])
    )
    flags: list[bool] = []
    for _clf, part in means.group_by("classifier", maintain_order=True):
        r = part[risk].to_numpy()
        y = part[outcome].to_numpy()
        for i in range(part.height):
            dominated = bool(np.any((r <= r[i]) & (y > y[i])))
            flags.append(not dominated)
    return means.with_columns(pl.Series("on_front", flags, dtype=pl.Boolean)).sort(
        ["classifier", risk], descending=[False, True]
    )


def degenerate_summary(frame: pl.DataFrame, *, evaluation: str = "anonymized_test") -> pl.DataFrame:
    """Per classifier: cells, degenerate (single-class) cells, their share and the
    algorithms that produced most of them. Columns ``classifier, cells, degenerate,
    share, by_algorithm``."""
    rows = cell_rows(frame, evaluation=evaluation)
    if "single_class" not in rows.columns:
        rows = rows.with_columns(pl.lit(False).alias("single_class"))
    records = []
    for clf, part in rows.group_by("classifier", maintain_order=True):
        flag = part["single_class"].fill_null(False)
        bad = part.filter(flag)
        # most first; ties by name, so the text does not follow group_by's row order
        by_alg = (
            bad.group_by("algorithm").len().sort(["len", "algorithm"], descending=[True, False])
        )
        text = ", ".join(f"{a} {n}" for a, n in by_alg.iter_rows())
        records.append(
            {
                "classifier": str(clf[0]),
                "cells": part.height,
                "degenerate": bad.height,
                "share": bad.height / part.height if part.height else math.nan,
                "by_algorithm": text or "none",
            }
        )
    schema = {
        "classifier": pl.String,
        "cells": pl.Int64,
        "degenerate": pl.Int64,
        "share": pl.Float64,
        "by_algorithm": pl.String,
    }
    return pl.DataFrame(records, schema=schema).sort("classifier")
