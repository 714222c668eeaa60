"""Information loss of a release from counts alone: per-column tallies, no paired records.

:mod:`anonkit.metrics.loss` reads a release against its original table record by record
(:func:`~anonkit.metrics.release.interpret_release`). Where the records cannot be paired
(a Spark DataFrame has no row order) or cannot be held, most of the same metrics still
follow from counts that a group-by gives:

* per quasi-identifier, the original table's records per value (its domain counts);
* per quasi-identifier, the release's records per label;
* the release's class sizes (records per combination of labels), and how many records
  are suppressed (every quasi-identifier ``*``).

From these, :func:`tallied_losses` computes the height, relative distance, precision,
generalized (Iyengar LM), NCP, discernibility, average-class-size and conditional
entropy losses exactly as :func:`anonkit.metrics.loss.all_losses` does on the paired
records (the formulas are sums over labels and classes; each is documented there), and
the non-uniform entropy under one assumption: that every released cell contains its
record's original value (true of every release anonkit makes; a pairing would be needed
to check it, so a release whose label counts exceed the records it covers is reported as
infinite, and others are not checked). The KL divergence, the classification metric (it
reads each record's class attribute), SSE and IL (each record's number), and the count of
untruthful cells need the paired records and are not computed here.

References
----------
Iyengar, V. S. (2002). Transforming data to satisfy privacy constraints. KDD 2002.

Xu, J., Wang, W., Pei, J., Wang, X., Shi, B. & Fu, A. W.-C. (2006). Utility-based
anonymization using local recoding. KDD 2006.

Gionis, A. & Tassa, T. (2009). k-Anonymization with minimal loss of information. IEEE
TKDE 21(2).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit._arrays import FloatArray, IntArray
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ParameterError
from anonkit.metrics.columns import QIColumn, hierarchy_column, numeric_column
from anonkit.metrics.labels import STAR, is_star
from anonkit.metrics.loss import (
    attribute_loss,
    cell_losses,
    cover_sums,
    discernibility,
    ncp_cells,
)

__all__ = ["TalliedColumn", "tallied_attribute_losses", "tallied_column", "tallied_losses"]


@dataclass(frozen=True, eq=False)
class TalliedColumn:
    """One released quasi-identifier read from counts.

    Attributes
    ----------
    column
        The labels read as covered sets (:class:`~anonkit.metrics.columns.QIColumn`,
        built on the distinct values; its per-record fields describe distinct values,
        not records).
    label_counts
        ``(L,)`` records released with each label of ``column.labels``.
    domain_counts
        Original records holding each domain position's value.
    label_of
        For each released value given to :func:`tallied_column`, its label's index.
    """

    column: QIColumn
    label_counts: FloatArray
    domain_counts: FloatArray
    label_of: IntArray

    @property
    def name(self) -> str:
        return self.column.name


def _preferred_level(labels: Sequence[str], counts: FloatArray, h: Hierarchy) -> int | None:
    """The level most records of the unambiguous labels are at (what
    :func:`~anonkit.metrics.columns.hierarchy_column` picks for labels found at several
    levels when the records are paired), weighted by ``counts``."""
    levels: dict[str, set[int]] = {}
    for lv in range(h.height):
        for lab in h.labels(lv):
            levels.setdefault(lab, set()).add(lv)
    per_level = np.zeros(h.height)
    known = False
    for lab, c in zip(labels, counts, strict=True):
        found = {h.max_level} if is_star(lab) else levels.get(str(lab).strip(), set())
        if len(found) == 1:
            per_level[next(iter(found))] += c
            known = True
    return int(np.argmax(per_level)) if known else None


def tallied_column(
    name: str,
    original_values: pl.Series,
    original_counts: npt.ArrayLike,
    released_values: pl.Series,
    released_counts: npt.ArrayLike,
    *,
    hierarchy: Hierarchy | None = None,
    value_range: tuple[float, float] | None = None,
    level: int | None = None,
) -> TalliedColumn:
    """A released quasi-identifier read from the distinct values of both tables.

    Parameters
    ----------
    name
        The column.
    original_values, original_counts
        The original table's distinct values and their records.
    released_values, released_counts
        The release's distinct cells and their records.
    hierarchy
        The column's hierarchy; without one the column is numeric.
    value_range
        Numeric columns: ``(min, max)`` of the domain (default: the original's).
    level
        Hierarchy columns: the level to read labels found at several levels at (default:
        the level most records of the other labels are at).

    Raises
    ------
    ValuesNotInHierarchyError, DataError
        As :func:`~anonkit.metrics.release.interpret_release` for the same values.
    """
    o_counts = np.asarray(original_counts, dtype=np.float64)
    r_counts = np.asarray(released_counts, dtype=np.float64)
    if hierarchy is not None:
        hint = level
        if hint is None:
            hint = _preferred_level(released_values.cast(pl.String).to_list(), r_counts, hierarchy)
        col = hierarchy_column(
            name, original_values, released_values, hierarchy, hint, paired=False
        )
    else:
        col = numeric_column(name, original_values, released_values, value_range)
    n_labels = len(col.labels)
    label_counts = np.bincount(col.cell, weights=r_counts, minlength=n_labels)
    domain = np.bincount(col.position, weights=o_counts, minlength=col.domain_size)
    return TalliedColumn(
        col, label_counts.astype(np.float64), domain.astype(np.float64), col.cell.astype(np.int64)
    )


def _kept(col: TalliedColumn, n_suppressed: int) -> FloatArray:
    counts = col.label_counts.copy()
    if n_suppressed:
        counts[np.asarray(col.column.star)] -= n_suppressed
    return counts


def tallied_losses(
    columns: Sequence[TalliedColumn],
    class_sizes: npt.ArrayLike,
    *,
    n_suppressed: int,
    k: int | None = None,
    weights: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """The loss metrics that counts determine (see the module docstring), by name.

    Parameters
    ----------
    columns
        Every released quasi-identifier (:func:`tallied_column`).
    class_sizes
        Records of each class of records that are not suppressed.
    n_suppressed
        Records with every quasi-identifier ``*`` (one more class when there are some).
    k
        Normalizes the average class size; a class smaller than k costs discernibility
        the whole table.
    weights
        NCP attribute weights (default 1 each).
    """
    sizes = np.asarray(class_sizes, dtype=np.float64)
    n = float(sizes.sum()) + n_suppressed
    n_kept = n - n_suppressed
    cols = list(columns)
    hier = [c for c in cols if c.column.kind == "hierarchy"]
    height = distance = precision = 0.0
    for c in hier:
        q = c.column
        top = q.max_level
        kept = _kept(c, n_suppressed)
        if n_kept == 0:
            height += top
            distance += 1.0 if top else 0.0
        else:
            height += float(kept @ q.level) / n_kept
            if top:
                distance += float(kept @ q.level) / (n_kept * top)
        if top:
            precision += float(c.label_counts @ q.level) / top
    w = dict(weights or {})
    unknown = [name for name in w if name not in [c.name for c in cols]]
    if unknown:
        raise ParameterError("weights", "ncp_loss", "keyed by quasi-identifiers", unknown[0])
    ncp = sum(float(w.get(c.name, 1.0)) * float(c.label_counts @ ncp_cells(c.column)) for c in cols)
    wsum = sum(float(w.get(c.name, 1.0)) for c in cols)
    generalized = sum(float(c.label_counts @ cell_losses(c.column)) for c in cols)
    n_classes = int(sizes.shape[0]) + (1 if n_suppressed else 0)
    entropy = 0.0
    nonuniform = 0.0
    for c in cols:
        c_sum, clogc = cover_sums(c.column, c.domain_counts)
        used = c.label_counts > 0
        if math.isnan(entropy) or (c_sum[used] <= 0).any():
            entropy = math.nan
        else:
            safe = np.where(c_sum > 0, c_sum, 1.0)
            h = np.log2(safe) - clogc / safe
            entropy += float(c.label_counts[used] @ np.maximum(h[used], 0.0))
        if (c.label_counts[used] > c_sum[used] + 1e-9).any():
            nonuniform = math.inf
        elif math.isfinite(nonuniform):
            d = c.domain_counts[c.domain_counts > 0]
            nonuniform += float(c.label_counts[used] @ np.log2(c_sum[used])) - float(
                (d * np.log2(d)).sum()
            )
    return {
        "height": height,
        "relative_distance": distance,
        "precision": precision / (n * len(hier)) if hier else math.nan,
        "loss": generalized / (n * len(cols)),
        "ncp": ncp / (n * wsum) if wsum else 0.0,
        "discernibility": discernibility(sizes, n_suppressed, n, k),
        "average_class_size": n / (n_classes * (k or 1)),
        "conditional_entropy": entropy,
        "nonuniform_entropy": max(nonuniform, 0.0),
    }


def hierarchy_losses(
    originals: Sequence[tuple[pl.Series | IntArray, npt.ArrayLike]],
    tally: pl.DataFrame,
    count: str,
    hierarchies: Mapping[str, Hierarchy],
    class_sizes: npt.ArrayLike,
    *,
    n_suppressed: int,
    k: int | None = None,
) -> dict[str, float]:
    """The finite :func:`tallied_losses` of a release whose quasi-identifiers (the keys
    of ``hierarchies``) all follow their hierarchies, as the Mondrian fits streamed and on
    Spark measure them.

    ``originals``: per quasi-identifier, in that order, the original table's leaf codes
    and their record counts; ``tally``: the release's records per combination of labels
    (in column ``count``); ``class_sizes`` and ``n_suppressed`` as for
    :func:`tallied_losses`.
    """
    columns = []
    for (c, h), (codes, counts) in zip(hierarchies.items(), originals, strict=True):
        released = tally.group_by(c).agg(pl.col(count).sum())
        leaves = pl.Series(c, h.leaves, dtype=pl.String).gather(codes)
        released_counts = released[count].to_numpy()
        columns.append(tallied_column(c, leaves, counts, released[c], released_counts, hierarchy=h))
    losses = tallied_losses(columns, class_sizes, n_suppressed=n_suppressed, k=k)
    return {name: v for name, v in losses.items() if np.isfinite(v)}


def tallied_attribute_losses(columns: Sequence[TalliedColumn]) -> dict[str, dict[str, Any]]:
    """Per quasi-identifier, :func:`anonkit.metrics.loss.attribute_losses` from counts
    (``untruthful_cells`` is ``None``: it needs the paired records)."""
    return {
        c.name: attribute_loss(
            c.column,
            c.label_counts,
            float(c.label_counts.sum()),
            distinct_labels=int((c.label_counts > 0).sum()),
            untruthful_cells=None,
        )
        for c in columns
    }


def star_labels(col: TalliedColumn, released_values: Sequence[Any]) -> list[Any]:
    """The released values of :func:`tallied_column` that read as ``*``."""
    star = {i for i, lab in enumerate(col.column.labels) if lab == STAR}
    return [v for v, i in zip(released_values, col.label_of.tolist(), strict=True) if i in star]
