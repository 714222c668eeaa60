""":func:`anonkit.evaluate.evaluate` for Spark DataFrames: the figures group-bys give.

A Spark DataFrame has no row order, so the release cannot be matched to the original
table record by record as :func:`~anonkit.evaluate.evaluate` does in memory. Most
figures do not need the pairing; they follow from group-bys that run on the executors,
of which only small results come to the driver:

* the original table's records per value of each quasi-identifier (the engine's count,
  with the default engine's errors for missing values and values outside a hierarchy);
* the release's classes (``groupBy`` of the released quasi-identifiers), and from them
  the records per label of each column and the histogram of class sizes;
* per sensitive attribute, each class's distinct values and entropy, reduced to the
  smallest in Spark (achieved ℓ-diversity); with ``class_attribute``, each class's
  majority value (the classification metric), both read from the release.

From these, :mod:`anonkit.metrics.tallied` computes the loss metrics and
:mod:`anonkit.metrics.risk` the risk measures, exactly as in memory. What stays
single-machine (the figures are NaN, and ``notes`` says why): the KL divergence, SSE and
IL, the count of untruthful cells (they need each record paired with its original), and
journalist risk (a population table matched against the classes; give
``population_size`` for the population-uniqueness estimate). The non-uniform entropy
assumes that every released cell contains its record's value (see
:mod:`anonkit.metrics.tallied`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit.core.hierarchy import Hierarchy
from anonkit.engines.base import resolve_hierarchies
from anonkit.engines.counting import COUNT, check_counts
from anonkit.engines.spark_csv import TEXT_SUFFIXES, unescape_formulas
from anonkit.engines.spark_frames import named
from anonkit.exceptions import DataError, MissingValuesError, ParameterError, UnknownColumnError
from anonkit.metric_info import LOSS_INFO
from anonkit.metrics.classes import starred_suppressed
from anonkit.metrics.tables import Measuring
from anonkit.metrics.tallied import (
    TalliedColumn,
    star_labels,
    tallied_attribute_losses,
    tallied_column,
    tallied_losses,
)
from anonkit.progress import start_stage

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

__all__ = ["SINGLE_MACHINE", "SparkMeasures", "measure_spark"]

OWNER = "evaluate"
#: The figures that stay single-machine, and why (the notes of a Spark evaluation).
SINGLE_MACHINE = {
    "kl_divergence": "needs each record paired with its original, which Spark's unordered "
    "rows do not give; evaluate the tables in memory for it",
    "sse": "needs each record's original number (a pairing Spark does not give)",
    "il": "needs each record's original number (a pairing Spark does not give)",
}
_SIZE = "__anonkit_size__"


def _pairs(df: DataFrame, column: str) -> pl.DataFrame:
    """``column``'s distinct values of ``df`` with their records (column ``COUNT``)."""
    from pyspark.sql import functions as F

    from anonkit.engines.spark_engine import collect_frame

    grouped = df.groupBy(named(column)).agg(F.sum(_SIZE).alias(COUNT))
    return collect_frame(grouped).cast({COUNT: pl.Int64})


def _label_counts(classes: DataFrame, qi: Sequence[str]) -> dict[str, pl.DataFrame]:
    """Per quasi-identifier, the release's distinct labels and their records (``COUNT``):
    the text columns in one job (stacked), the others one job each."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    from anonkit.engines.spark_engine import collect_frame

    types = {f.name: f.dataType for f in classes.schema.fields}
    text = [c for c in qi if isinstance(types[c], StringType)]
    out = {c: _pairs(classes, c) for c in qi if c not in text}
    if text:
        cells = F.array(
            *[
                F.struct(F.lit(j).alias("j"), named(c).alias("v"), F.col(_SIZE).alias("n"))
                for j, c in enumerate(text)
            ]
        )
        stacked = classes.select(F.explode(cells).alias("cell")).select("cell.*")
        grouped = collect_frame(stacked.groupBy("j", "v").agg(F.sum("n").alias(COUNT)))
        for j, c in enumerate(text):
            part = grouped.filter(pl.col("j") == j)
            out[c] = pl.DataFrame({c: part["v"].cast(pl.String), COUNT: part[COUNT].cast(pl.Int64)})
    return out


def _original_counts(
    orig: DataFrame, qi: Sequence[str], numeric: Sequence[str], hs: Mapping[str, Hierarchy]
) -> dict[str, tuple[pl.Series, npt.NDArray[np.int64]]]:
    """Per quasi-identifier, the original's distinct values and their records."""
    from pyspark.sql import functions as F

    from anonkit.engines.spark_engine import SparkEngine

    engine = SparkEngine()
    out: dict[str, tuple[pl.Series, npt.NDArray[np.int64]]] = {}
    hier = [c for c in qi if c not in numeric]
    if hier:
        hlist = [hs[c] for c in hier]
        counts = engine.group_counts(orig, hier, hlist)
        check_counts(
            counts, hier, (), lambda j: engine.unknown_values(orig, hier[j], hlist[j]), hlist
        )
        for c in hier:
            per = counts.group_by(c).agg(pl.col(COUNT).sum())
            leaves = pl.Series(c, hs[c].leaves, dtype=pl.String)
            out[c] = (leaves.gather(per[c]), per[COUNT].to_numpy())
    for c in numeric:
        per = _pairs(orig.select(named(c), F.lit(1).alias(_SIZE)), c)
        out[c] = (per[c], per[COUNT].to_numpy())
    return out


def _all_star(qi: Sequence[str], stars: Mapping[str, list[Any]]) -> Column:
    """Whether a class of the release is suppressed: every label reads as ``*``."""
    from pyspark.sql import functions as F

    flag = F.lit(True)
    for c in qi:
        values = [v for v in stars[c] if v is not None]
        cell = named(c).isNull()
        if values:
            cell = cell | named(c).isin(values)
        flag = flag & cell
    return flag


def _diversity(rel: DataFrame, qi: Sequence[str], s: str, kept: Column) -> dict[str, float]:
    """Smallest distinct and entropy ℓ over the classes not suppressed, in Spark."""
    from pyspark.sql import functions as F

    per = rel.filter(kept).groupBy(*map(named, [*qi, s])).agg(F.count(F.lit(1)).alias("n"))
    classes = per.groupBy(*map(named, qi)).agg(
        F.count(F.lit(1)).alias("d"),
        F.sum("n").alias("size"),
        F.sum(F.col("n") * F.log2("n")).alias("nlogn"),
        F.sum(F.when(named(s).isNull(), F.col("n")).otherwise(0)).alias("nulls"),
    )
    row = classes.agg(
        F.min("d").alias("d"),
        F.min(F.log2("size") - F.col("nlogn") / F.col("size")).alias("h"),
        F.sum("nulls").alias("nulls"),
    ).collect()[0]
    if row["nulls"]:  # not one more value: verify_release refuses them too
        raise MissingValuesError(s, int(row["nulls"]))
    if row["d"] is None:
        return {"distinct_l": 0.0, "entropy_l": 0.0}
    return {"distinct_l": float(row["d"]), "entropy_l": float(2.0 ** max(float(row["h"]), 0.0))}


def _classification(
    rel: DataFrame, qi: Sequence[str], target: str, kept: Column, n: int, n_suppressed: int
) -> float:
    """Iyengar's CM from the release's class attribute: records not of their class's
    majority value, plus the suppressed ones, over all records."""
    from pyspark.sql import functions as F

    per = rel.filter(kept).groupBy(*map(named, [*qi, target])).agg(F.count(F.lit(1)).alias("n"))
    wrong = (
        per.groupBy(*map(named, qi))
        .agg((F.sum("n") - F.max("n")).alias("w"))
        .agg(F.sum("w").alias("w"))
        .collect()[0]["w"]
    )
    return (float(wrong or 0) + n_suppressed) / n


@dataclass(frozen=True, eq=False)
class SparkMeasures:
    """What :func:`measure_spark` read from the two tables: the release's size, classes
    and loss, for :func:`anonkit.evaluate.evaluate` to finish (risk, notes) as in memory.

    Attributes
    ----------
    n_records, n_suppressed, sizes
        Records of the original table, those with every quasi-identifier ``*``, and the
        sizes of the other classes.
    loss, attributes
        The loss metrics by name and per quasi-identifier.
    notes
        What could not be measured on Spark, and why.
    explained
        Loss metrics whose NaN a note explains already.
    matched, measured
        When (``time.perf_counter``) reading the release against the original, and
        measuring its loss, ended.
    """

    n_records: int
    n_suppressed: int
    sizes: npt.NDArray[np.int64]
    loss: dict[str, float]
    attributes: dict[str, dict[str, Any]]
    notes: list[str]
    explained: frozenset[str]
    matched: float
    measured: float
    release: Any
    quasi_identifiers: tuple[str, ...]
    kept: Any

    #: Why a loss metric is infinite here.
    infinite: ClassVar[str] = (
        "some released labels hold more records than the original values they cover "
        "(a perturbative release)"
    )

    def l_diversity(self, attribute: str) -> dict[str, float] | None:
        """Smallest distinct and entropy ℓ of ``attribute`` over the classes not
        suppressed, in Spark; ``None`` when the release has no such column."""
        if attribute not in self.release.columns:
            return None
        return _diversity(self.release, self.quasi_identifiers, attribute, self.kept)


def measure_spark(
    original: Any, release: Any, asked: Measuring, population: Any = None
) -> SparkMeasures:
    """Read a release on Spark (DataFrames or paths Spark reads) against its original and
    measure its loss, for :func:`anonkit.evaluate.evaluate` (its parameters checked; see
    the module docstring for what is computed). Records at ``*`` in every
    quasi-identifier are suppressed ones unless more than ``suppression_limit`` allows
    (:func:`~anonkit.metrics.classes.starred_suppressed`): then they are one class.

    Raises
    ------
    ParameterError
        If a population table is given (journalist risk stays single-machine).
    UnknownColumnError, MissingValuesError, ValuesNotInHierarchyError, DataError
        As :func:`~anonkit.evaluate.evaluate` for the same tables.
    """
    from pyspark.sql import functions as F

    from anonkit.engines.spark_engine import SparkEngine, collect_frame

    if population is not None:
        raise ParameterError(
            "population",
            OWNER,
            "None with Spark DataFrames (journalist risk matches a population table against "
            "the release's classes in memory; give population_size for the population-"
            "uniqueness estimate, or evaluate the tables in memory)",
            type(population).__name__,
        )
    qi, num, cls = list(asked.quasi_identifiers), list(asked.numeric), asked.class_attribute
    progress, value_ranges, levels = asked.progress, asked.value_ranges, asked.levels
    engine = SparkEngine()
    orig = engine.frame(original)
    needed = [*qi, *([cls] if cls is not None else [])]
    missing = [c for c in dict.fromkeys(needed) if c not in orig.columns]
    if missing:
        raise UnknownColumnError(missing, orig.columns)
    rel = engine.frame(release, qi)
    if isinstance(release, (str, Path)) and str(release).lower().endswith(TEXT_SUFFIXES):
        rel = unescape_formulas(rel)  # a CSV release as released: '@home is @home
    start_stage(progress, "Matching the release")
    hier = [c for c in qi if c not in num]
    specs = dict(asked.hierarchies or {})
    resolved = dict(zip(hier, resolve_hierarchies(engine, orig, hier, specs), strict=True))
    originals = _original_counts(orig, qi, num, resolved)
    n = int(originals[qi[0]][1].sum())
    classes = rel.groupBy(*map(named, qi)).agg(F.count(F.lit(1)).alias(_SIZE)).cache()
    try:
        columns: list[TalliedColumn] = []
        stars: dict[str, list[Any]] = {}
        labels = _label_counts(classes, qi)
        for c in qi:
            per = labels[c]
            col = tallied_column(
                c,
                originals[c][0],
                originals[c][1],
                per[c],
                per[COUNT].to_numpy(),
                hierarchy=resolved.get(c),
                value_range=(value_ranges or {}).get(c),
                level=(levels or {}).get(c),
            )
            columns.append(col)
            stars[c] = star_labels(col, per[c].to_list())
        n_release = int(columns[0].label_counts.sum())
        if n_release != n:
            raise DataError(
                f"The release has {n_release} rows but the original table {n}; rows are "
                "matched by position, so the release must keep every row (write suppressed "
                "records as '*' instead of dropping them)."
            )
        suppressed = _all_star(qi, stars)
        hist = collect_frame(
            classes.filter(~suppressed).groupBy(_SIZE).agg(F.count(F.lit(1)).alias(COUNT))
        )
        sizes = np.repeat(
            hist[_SIZE].to_numpy().astype(np.int64), hist[COUNT].to_numpy().astype(np.int64)
        )
        n_suppressed = n - int(sizes.sum())
    finally:
        classes.unpersist()
    kept = ~_all_star(qi, stars)
    if not starred_suppressed(n_suppressed, n, asked.suppression_limit):  # a class at the top
        sizes, n_suppressed, kept = np.append(sizes, n_suppressed), 0, F.lit(True)
    t1 = time.perf_counter()

    start_stage(progress, "Measuring loss")
    notes: list[str] = []
    loss = tallied_losses(
        columns, sizes, n_suppressed=n_suppressed, k=asked.k, weights=asked.weights
    )
    if cls is not None:
        if cls in rel.columns:
            loss["classification"] = _classification(rel, qi, cls, kept, n, n_suppressed)
        else:
            loss["classification"] = math.nan
            notes.append(
                f"{LOSS_INFO['classification'].title}: the release has no column "
                f"{cls!r} (on Spark it is read from the release)."
            )
    loss["kl_divergence"] = math.nan
    notes.append(f"{LOSS_INFO['kl_divergence'].title}: {SINGLE_MACHINE['kl_divergence']}.")
    if num:
        loss["sse"] = loss["il"] = math.nan
        notes.append(f"SSE and IL: {SINGLE_MACHINE['sse']}.")
    if len(num) == len(qi):
        for name in ("height", "relative_distance", "precision"):
            del loss[name]
    notes.append(
        "Untruthful cells are not counted and the non-uniform entropy assumes every released "
        "cell contains its record's value: checking either needs each record paired with "
        "its original, which Spark's unordered rows do not give."
    )
    return SparkMeasures(
        n_records=n,
        n_suppressed=n_suppressed,
        sizes=sizes,
        loss=loss,
        attributes=tallied_attribute_losses(columns),
        notes=notes,
        explained=frozenset({*SINGLE_MACHINE, "classification"}),
        matched=t1,
        measured=time.perf_counter(),
        release=rel,
        quasi_identifiers=tuple(qi),
        kept=kept,
    )
