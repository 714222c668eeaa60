"""Analysis of a study's tidy results: does an information-loss metric track accuracy?

A study (:mod:`anonkit.study.runner`) writes one row per (fold, cell, classifier,
evaluation), a *cell* being one requested k and one algorithm (with its variant). The
functions here read that tidy table and answer seed 000's question (Gionis & Tassa style:
is conditional entropy, or any loss metric, a good predictor of the usefulness of a
k-anonymized table for training classifiers?) and give the tables of the report:

- :func:`correlations`: Spearman and Pearson correlation of every metric column with
  ``accuracy`` and ``accuracy_drop``, per classifier, over the cells, with 95 % confidence
  intervals (across cross-validation folds when there are several, Fisher's z-transform
  when there is one);
- :func:`rank_metrics`: the metrics ordered by how strongly they track accuracy;
- :func:`summary_table` and :func:`baseline_table`: accuracy by k and cell, and the
  original-data and majority-class baselines.

Baseline rows (``algorithm`` ``original`` or ``majority``) and failed cells (``status``
other than ``ok``) never enter a correlation. Everything is numpy and polars; no scipy.

References
----------
R. A. Fisher. On the "probable error" of a coefficient of correlation deduced from a small
sample. Metron 1:3-32, 1921 (the z-transform, ``Var z = 1 / (n - 3)``).

E. C. Fieller, H. O. Hartley, E. S. Pearson. Tests for rank correlation coefficients. I.
Biometrika 44(3/4):470-481, 1957 (``Var z = 1.06 / (n - 3)`` for Spearman's rho).

D. G. Bonett, T. A. Wright. Sample size requirements for estimating Pearson, Kendall and
Spearman correlations. Psychometrika 65(1):23-28, 2000 (compares the Spearman variants).

M. Abramowitz, I. A. Stegun. Handbook of Mathematical Functions, 26.7.3-26.7.4 (Student's
t distribution for an integer number of degrees of freedom, in closed form).

Examples
--------
>>> import polars as pl
>>> frame = pl.DataFrame({
...     "fold": [0] * 5, "k": [2, 5, 10, 50, 100], "algorithm": ["flash"] * 5,
...     "cell": ["flash:loss"] * 5, "classifier": ["random_forest"] * 5,
...     "evaluation": ["anonymized_test"] * 5,
...     "accuracy": [0.84, 0.83, 0.81, 0.80, 0.76],
...     "accuracy_drop": [0.01, 0.02, 0.04, 0.05, 0.09],
...     "loss_loss": [0.10, 0.15, 0.22, 0.40, 0.51], "status": ["ok"] * 5,
... })
>>> table = correlations(frame)
>>> row = table.filter(metric="loss_loss", target="accuracy").row(0, named=True)
>>> row["spearman"], row["n"], row["ci_method"]
(-1.0, 5, 'fisher')
>>> rank_metrics(table)["metric"].to_list()  # both perfectly monotone: frame order
['loss_loss', 'k']
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import numpy as np
import polars as pl

from anonkit.exceptions import (
    InputFileError,
    ParameterError,
    UnknownColumnError,
    UnknownNameError,
)
from anonkit.metric_info import LOSS_INFO
from anonkit.study.setup import EVALUATIONS
from anonkit.study.stats import (
    fisher_interval,
    fold_interval,
    mean_finite,
    pearson,
    spearman,
    t_quantile,
)

__all__ = [
    "BASELINE_ALGORITHMS",
    "EVALUATIONS",
    "STRUCTURE_METRICS",
    "TARGETS",
    "baseline_table",
    "cell_rows",
    "correlations",
    "load_results",
    "metric_columns",
    "metric_kind",
    "metric_label",
    "rank_metrics",
    "summary_table",
]


#: Values of ``algorithm`` that mark baseline rows (never part of a correlation).
BASELINE_ALGORITHMS: tuple[str, ...] = ("original", "majority")
#: What the metrics are correlated with.
TARGETS: tuple[str, ...] = ("accuracy", "accuracy_drop")
#: Metric columns besides ``loss_*`` and ``alteration_*``, in report order; ``k`` (the
#: requested k) comes last as the reference a useful metric should beat.
STRUCTURE_METRICS: tuple[str, ...] = ("effective_k", "n_classes", "suppressed_share", "k")

#: Spearman's variance factor of Fieller, Hartley & Pearson (1957): Var z = 1.06 / (n - 3).
FIELLER_FACTOR = 1.06

_REQUIRED = ("fold", "k", "algorithm", "cell", "classifier", "evaluation", "accuracy")
_TEXT_COLUMNS = (
    "dataset",
    "algorithm",
    "variant",
    "cell",
    "classifier",
    "evaluation",
    "status",
    "release_id",
)
_BOOL_COLUMNS = ("single_class",)
_OWNER = "correlations"

_STRUCTURE_LABELS = {
    "effective_k": "Effective k (smallest released class)",
    "n_classes": "Number of released classes",
    "suppressed_share": "Share of records suppressed",
    "k": "Requested k",
}


# ------------------------------------------------------------------------- input
def load_results(path: str | Path) -> pl.DataFrame:
    """Read a study's tidy CSV with the column types of the study design.

    Text columns stay text (an empty ``variant`` stays ``""``, not null); ``fold``, ``k``,
    ``effective_k`` and ``n_classes`` are integers; every other figure is a float (``NaN``
    where not applicable).

    Raises
    ------
    InputFileError
        If the file cannot be read.
    """
    try:
        header = pl.read_csv(path, n_rows=0).columns
        text = {c: pl.String for c in _TEXT_COLUMNS if c in header}
        frame = pl.read_csv(path, schema_overrides=text, infer_schema_length=None)
    except (OSError, pl.exceptions.PolarsError) as error:
        raise InputFileError(path, str(error)) from error
    casts: list[pl.Expr] = []
    for name in frame.columns:
        if name in text:
            casts.append(pl.col(name).fill_null(""))
        elif name in ("fold", "k", "effective_k", "n_classes"):
            casts.append(pl.col(name).cast(pl.Int64, strict=False))
        elif name in _BOOL_COLUMNS:
            casts.append(pl.col(name).cast(pl.String).str.to_lowercase() == "true")
        else:
            casts.append(pl.col(name).cast(pl.Float64, strict=False))
    return frame.with_columns(casts)


def _check_frame(frame: pl.DataFrame, owner: str) -> None:
    if not isinstance(frame, pl.DataFrame):
        raise ParameterError("frame", owner, "a polars DataFrame", type(frame).__name__)
    missing = [c for c in _REQUIRED if c not in frame.columns]
    if missing:
        raise UnknownColumnError(missing, frame.columns)


def _check_evaluation(evaluation: str) -> str:
    if evaluation not in EVALUATIONS:
        raise UnknownNameError("evaluation", str(evaluation), EVALUATIONS)
    return evaluation


def metric_columns(frame: pl.DataFrame) -> tuple[str, ...]:
    """The columns correlated with accuracy, in report order.

    Every ``loss_*`` column, then every ``alteration_*`` column (in the frame's order),
    then those of :data:`STRUCTURE_METRICS` the frame has.

    Examples
    --------
    >>> import polars as pl
    >>> metric_columns(pl.DataFrame({"k": [2], "alteration_ncp": [1.0], "loss_ncp": [0.1]}))
    ('loss_ncp', 'alteration_ncp', 'k')
    """
    names = frame.columns
    return (
        *(c for c in names if c.startswith("loss_")),
        *(c for c in names if c.startswith("alteration_")),
        *(c for c in STRUCTURE_METRICS if c in names),
    )


def metric_kind(column: str) -> str:
    """``"loss"``, ``"alteration"``, ``"structure"`` or ``"design"`` (the requested k)."""
    if column.startswith("loss_"):
        return "loss"
    if column.startswith("alteration_"):
        return "alteration"
    return "design" if column == "k" else "structure"


def metric_label(column: str) -> str:
    """A title for a metric column, for tables and plots.

    ``loss_<name>`` takes the title of :data:`anonkit.metric_info.LOSS_INFO`;
    ``alteration_<cost>`` is the percentage of alteration under a cost of Mauger et al.
    (2020).

    Examples
    --------
    >>> metric_label("loss_ncp"), metric_label("alteration_nllm"), metric_label("k")
    ('Normalized certainty penalty (NCP)', 'Alteration % under NLLM', 'Requested k')
    """
    if column.startswith("loss_"):
        name = column.removeprefix("loss_")
        info = LOSS_INFO.get(name)
        return info.title if info is not None else name.replace("_", " ").capitalize()
    if column.startswith("alteration_"):
        return f"Alteration % under {column.removeprefix('alteration_').upper()}"
    return _STRUCTURE_LABELS.get(column, column)


def cell_rows(frame: pl.DataFrame, *, evaluation: str = "anonymized_test") -> pl.DataFrame:
    """The rows of successful cells for one evaluation (no baselines, no failures).

    A row counts when its ``algorithm`` is not a baseline, its ``status`` (if the frame
    has one) is ``ok``, its ``accuracy`` is a number and its release reaches the requested
    k (``effective_k >= k`` where both are known): a release that is not k-anonymous over
    all quasi-identifiers (e.g. numeric ones microaggregated and categorical ones left as
    they are) is not comparable.
    """
    _check_frame(frame, "cell_rows")
    _check_evaluation(evaluation)
    keep = (
        (pl.col("evaluation") == evaluation)
        & ~pl.col("algorithm").is_in(BASELINE_ALGORITHMS)
        & pl.col("accuracy").is_not_null()
        & pl.col("accuracy").cast(pl.Float64).is_not_nan()
    )
    if "status" in frame.columns:
        keep = keep & (pl.col("status") == "ok")
    if "effective_k" in frame.columns and "k" in frame.columns:
        reached = pl.col("effective_k").is_null() | (pl.col("effective_k") >= pl.col("k"))
        if "n_classes" in frame.columns:  # no class left: everything is `*`, trivially private
            reached = reached | (pl.col("n_classes") == 0)
        keep = keep & reached
    return frame.filter(keep)


# ---------------------------------------------------------------- correlations
_SCHEMA: dict[str, type[pl.DataType]] = {
    "evaluation": pl.String,
    "classifier": pl.String,
    "metric": pl.String,
    "target": pl.String,
    "spearman": pl.Float64,
    "spearman_low": pl.Float64,
    "spearman_high": pl.Float64,
    "pearson": pl.Float64,
    "pearson_low": pl.Float64,
    "pearson_high": pl.Float64,
    "n": pl.Int64,
    "n_folds": pl.Int64,
    "ci_method": pl.String,
}


def correlations(
    frame: pl.DataFrame,
    *,
    evaluation: str = "anonymized_test",
    confidence: float = 0.95,
    within: str | None = None,
) -> pl.DataFrame:
    """Spearman and Pearson correlation of every metric with accuracy and its drop.

    For each classifier, each metric column (:func:`metric_columns`) and each target
    (``accuracy``, ``accuracy_drop``), the correlation is computed over the cells
    (k × algorithm/variant) of one fold, using the cells where both figures are numbers;
    baselines and failed cells are left out (:func:`cell_rows`).

    - **Several folds** (``ci_method = "folds"``): one correlation per fold; the estimate
      is their mean r̄ and the interval r̄ ± t_{m-1, (1+c)/2} · s / √m over the m folds
      with a defined correlation (s their standard deviation), clipped to [-1, 1].
    - **One fold** (``ci_method = "fisher"``): Fisher's z-transform,
      tanh(atanh r ± z_{(1+c)/2} · √(v / (n − 3))) with v = 1 for Pearson (Fisher 1921)
      and v = 1.06 for Spearman (Fieller, Hartley & Pearson 1957; Bonett & Wright 2000
      compare it with other variants). Needs n > 3 cells; |r| = 1 gives [r, r].

    - **Within k** (``within="k"``, ``ci_method = "within-k"``): one correlation per
      (fold, k) over the algorithms run at that k, then their mean and t-interval as for
      folds. Across the whole grid almost every metric grows with k, and so does the
      accuracy loss; within one k the question is the one a data steward faces: among
      releases with the same privacy, does the metric pick the more useful one?

    Cells are not independent draws (they share the data and the k grid), so read either
    interval as a measure of stability rather than an exact coverage.

    Parameters
    ----------
    frame
        The tidy results (see the study design; :func:`load_results` reads the CSV).
    evaluation
        ``"anonymized_test"`` (test records recoded like the release) or
        ``"original_test"``.
    confidence
        Coverage of the intervals, in (0, 1).
    within
        ``None`` (correlate over every cell of a fold) or ``"k"`` (within each requested k,
        then average).

    Returns
    -------
    polars.DataFrame
        One row per (classifier, metric, target): ``evaluation``, ``classifier``,
        ``metric``, ``target``, ``spearman``, ``spearman_low``, ``spearman_high``,
        ``pearson``, ``pearson_low``, ``pearson_high``, ``n`` (cells per group with both
        figures, the smallest over the groups that give a correlation), ``n_folds`` (the
        groups that give a correlation: folds, or (fold, k) with ``within="k"``) and
        ``ci_method``. A constant metric (or accuracy) gives NaN correlations and
        ``n_folds = 0``.

    Raises
    ------
    UnknownColumnError
        If a required column (``fold``, ``k``, ``algorithm``, ``cell``, ``classifier``,
        ``evaluation``, ``accuracy``) is missing.
    UnknownNameError
        If ``evaluation`` is not one of :data:`EVALUATIONS`.
    ParameterError
        If ``confidence`` is not in (0, 1).

    Examples
    --------
    >>> import polars as pl
    >>> frame = pl.DataFrame({
    ...     "fold": [0, 0, 0, 1, 1, 1], "k": [2, 10, 100] * 2,
    ...     "algorithm": ["mondrian"] * 6, "cell": ["mondrian:strict"] * 6,
    ...     "classifier": ["logistic_regression"] * 6,
    ...     "evaluation": ["anonymized_test"] * 6,
    ...     "accuracy": [0.82, 0.80, 0.77, 0.83, 0.79, 0.78],
    ... })
    >>> row = correlations(frame).filter(metric="k").row(0, named=True)
    >>> row["spearman"], row["n"], row["n_folds"], row["ci_method"]
    (-1.0, 3, 2, 'folds')
    """
    _check_frame(frame, _OWNER)
    _check_evaluation(evaluation)
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float))
        or not 0.0 < confidence < 1.0
    ):
        raise ParameterError("confidence", _OWNER, "a number in (0, 1)", confidence)
    if within not in (None, "k"):
        raise UnknownNameError("grouping", str(within), ("k",))
    rows = cell_rows(frame, evaluation=evaluation)
    metrics = metric_columns(frame)
    targets = [t for t in TARGETS if t in frame.columns]
    all_folds = frame.filter(~pl.col("algorithm").is_in(BASELINE_ALGORITHMS))["fold"].unique()
    by_folds = all_folds.len() >= 2 or within == "k"
    groups = ["fold"] if within is None else ["fold", "k"]
    n_groups = rows.select(groups).unique().height if within else all_folds.len()
    method_name = "within-k" if within else "folds" if by_folds else "fisher"
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2.0)
    t_crit = {df: t_quantile(confidence, df) for df in range(1, max(n_groups, 1) + 1)}

    out: dict[str, list[object]] = {name: [] for name in _SCHEMA}
    classifiers = rows["classifier"].unique(maintain_order=True).to_list()
    for classifier in classifiers:
        sub = rows.filter(pl.col("classifier") == classifier)
        parts = sub.partition_by(groups, maintain_order=True)
        arrays = [
            {
                c: part[c].cast(pl.Float64, strict=False).fill_null(math.nan).to_numpy()
                for c in (*metrics, *targets)
            }
            for part in parts
        ]
        for target in targets:
            for metric in metrics:
                spear: list[float] = []
                pear: list[float] = []
                sizes: list[int] = []
                for data in arrays:
                    x, y = data[metric], data[target]
                    ok = np.isfinite(x) & np.isfinite(y)
                    x, y = x[ok], y[ok]
                    sizes.append(int(x.size))
                    spear.append(spearman(x, y))
                    pear.append(pearson(x, y))
                used = [i for i, r in enumerate(spear) if math.isfinite(r)]
                if not used:  # no fold gives a correlation: report the cells there were
                    used = [i for i, size in enumerate(sizes) if size > 0]
                n = min((sizes[i] for i in used), default=0)
                n_folds = sum(math.isfinite(r) for r in spear)
                if by_folds:
                    s_lo, s_hi = fold_interval(spear, t_crit)
                    p_lo, p_hi = fold_interval(pear, t_crit)
                    s_est, p_est = mean_finite(spear), mean_finite(pear)
                else:
                    s_est = spear[0] if spear else math.nan
                    p_est = pear[0] if pear else math.nan
                    s_lo, s_hi = fisher_interval(s_est, n, FIELLER_FACTOR, z)
                    p_lo, p_hi = fisher_interval(p_est, n, 1.0, z)
                values: tuple[object, ...] = (
                    evaluation,
                    classifier,
                    metric,
                    target,
                    s_est,
                    s_lo,
                    s_hi,
                    p_est,
                    p_lo,
                    p_hi,
                    n,
                    n_folds,
                    method_name,
                )
                for name, value in zip(_SCHEMA, values, strict=True):
                    out[name].append(value)
    return pl.DataFrame(out, schema=_SCHEMA)


def rank_metrics(
    table: pl.DataFrame, *, target: str = "accuracy", method: str = "spearman"
) -> pl.DataFrame:
    """Which metric tracks accuracy best: the metrics by |mean correlation| over classifiers.

    Parameters
    ----------
    table
        What :func:`correlations` returned.
    target
        ``"accuracy"`` or ``"accuracy_drop"``.
    method
        ``"spearman"`` (rank agreement, the default) or ``"pearson"``.

    Returns
    -------
    polars.DataFrame
        One row per metric, strongest first: ``rank`` (1 = best; null when the
        correlation is undefined, e.g. a constant metric), ``metric``, ``label``, ``kind``
        (:func:`metric_kind`), ``rho`` (mean over classifiers of the correlation), its
        ``abs_rho``, the smallest and largest correlation over the classifiers
        (``rho_min``, ``rho_max``), ``low`` and ``high`` (the mean interval bounds),
        ``n_classifiers`` with a defined correlation and ``n`` (cells, the smallest).
        Undefined metrics come last, by name.

    Raises
    ------
    UnknownNameError
        If ``target`` or ``method`` is unknown.
    UnknownColumnError
        If ``table`` is not a correlation table.
    """
    if target not in TARGETS:
        raise UnknownNameError("target", str(target), TARGETS)
    if method not in ("spearman", "pearson"):
        raise UnknownNameError("correlation method", str(method), ("spearman", "pearson"))
    needed = ("metric", "target", method, f"{method}_low", f"{method}_high", "n")
    missing = [c for c in needed if c not in table.columns]
    if missing:
        raise UnknownColumnError(missing, table.columns)
    order = {m: i for i, m in enumerate(table["metric"].unique(maintain_order=True))}
    grouped = (
        table.filter(pl.col("target") == target)
        .with_columns(pl.col(method, f"{method}_low", f"{method}_high").fill_nan(None))
        .group_by("metric", maintain_order=True)
        .agg(
            pl.col(method).mean().alias("rho"),
            pl.col(method).min().alias("rho_min"),
            pl.col(method).max().alias("rho_max"),
            pl.col(f"{method}_low").mean().alias("low"),
            pl.col(f"{method}_high").mean().alias("high"),
            pl.col(method).count().cast(pl.Int64).alias("n_classifiers"),
            pl.col("n").min().alias("n"),
        )
        .with_columns(
            pl.col("rho").abs().alias("abs_rho"),
            pl.col("metric").replace_strict(order, return_dtype=pl.Int64).alias("_order"),
        )
        .sort(["abs_rho", "_order"], descending=[True, False], nulls_last=True)
    )
    finite = grouped["abs_rho"].is_not_null().to_list()
    ranks = [i + 1 if ok else None for i, ok in enumerate(finite)]
    labels = [metric_label(m) for m in grouped["metric"]]
    kinds = [metric_kind(m) for m in grouped["metric"]]
    return grouped.select(
        pl.Series("rank", ranks, dtype=pl.Int64),
        "metric",
        pl.Series("label", labels, dtype=pl.String),
        pl.Series("kind", kinds, dtype=pl.String),
        pl.col("rho", "abs_rho", "rho_min", "rho_max", "low", "high").fill_null(math.nan),
        "n_classifiers",
        "n",
    )


# ---------------------------------------------------------------------- tables
def summary_table(
    frame: pl.DataFrame, *, evaluation: str = "anonymized_test", value: str = "accuracy"
) -> pl.DataFrame:
    """Accuracy by k and cell: one row per (classifier, k), one column per cell.

    Each value is the mean over the folds of ``value`` (``accuracy``,
    ``balanced_accuracy`` or ``accuracy_drop``) for the successful runs of that cell;
    null where the cell failed or was not run at that k. Cells come in the order they
    first appear in the frame; classifiers too.

    Examples
    --------
    >>> import polars as pl
    >>> frame = pl.DataFrame({
    ...     "fold": [0, 0, 0], "k": [2, 2, 5], "algorithm": ["flash", "mondrian", "flash"],
    ...     "cell": ["flash:loss", "mondrian:strict", "flash:loss"],
    ...     "classifier": ["rf"] * 3, "evaluation": ["anonymized_test"] * 3,
    ...     "accuracy": [0.8, 0.82, 0.78], "status": ["ok"] * 3,
    ... })
    >>> summary_table(frame).columns
    ['classifier', 'k', 'flash:loss', 'mondrian:strict']
    """
    _check_frame(frame, "summary_table")
    if value not in ("accuracy", "balanced_accuracy", "accuracy_drop"):
        raise UnknownNameError(
            "summary value", str(value), ("accuracy", "balanced_accuracy", "accuracy_drop")
        )
    if value not in frame.columns:
        raise UnknownColumnError([value], frame.columns)
    rows = cell_rows(frame, evaluation=evaluation)
    cells = rows["cell"].unique(maintain_order=True).to_list()
    classifiers = rows["classifier"].unique(maintain_order=True).to_list()
    if not cells:
        return pl.DataFrame(schema={"classifier": pl.String, "k": pl.Int64})
    means = rows.group_by(["classifier", "k", "cell"]).agg(
        pl.col(value).cast(pl.Float64).fill_nan(None).mean()
    )
    wide = means.pivot(on="cell", index=["classifier", "k"], values=value)
    rank = {c: i for i, c in enumerate(classifiers)}
    return (
        wide.with_columns(
            pl.col("classifier").replace_strict(rank, return_dtype=pl.Int64).alias("_c")
        )
        .sort(["_c", "k"])
        .select("classifier", pl.col("k").cast(pl.Int64), *cells)
    )


def baseline_table(frame: pl.DataFrame) -> pl.DataFrame:
    """The baselines: accuracy of each classifier on the original data, and the majority.

    One row per (algorithm, classifier, evaluation) of the baseline rows, with the mean
    over the folds of ``accuracy`` (and ``balanced_accuracy`` when present) and
    ``n_folds``; failed baseline runs are left out.
    """
    _check_frame(frame, "baseline_table")
    keep = pl.col("algorithm").is_in(BASELINE_ALGORITHMS)
    if "status" in frame.columns:
        keep = keep & (pl.col("status") == "ok")
    values = [c for c in ("accuracy", "balanced_accuracy") if c in frame.columns]
    base = frame.filter(keep)
    if base.is_empty():
        schema: dict[str, type[pl.DataType]] = {
            "algorithm": pl.String,
            "classifier": pl.String,
            "evaluation": pl.String,
            **dict.fromkeys(values, pl.Float64),
            "n_folds": pl.Int64,
        }
        return pl.DataFrame(schema=schema)
    return (
        base.group_by(["algorithm", "classifier", "evaluation"], maintain_order=True)
        .agg(
            *(pl.col(v).cast(pl.Float64).fill_nan(None).mean() for v in values),
            pl.col("fold").n_unique().cast(pl.Int64).alias("n_folds"),
        )
        .with_columns(pl.col(values).fill_null(math.nan))
    )
