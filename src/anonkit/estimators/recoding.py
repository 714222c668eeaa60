"""Write new records the way a fitted release writes its records.

The three recodings behind the estimators' ``transform`` (and the study's
:func:`~anonkit.study.recode.recode_test`):

* :func:`apply_levels` (full-domain): each column's hierarchy level is applied to the
  values;
* :func:`assign_classes` (local recoding: Mondrian, greedy class merging): each record
  takes the released labels of a release class whose cells all contain it
  (:func:`anonkit.metrics.matching.match_classes`), the most specific one first: the
  smallest covered domain (product over the attributes of the covered domain values),
  ties to the larger class, then to the first class. A record that no class contains
  takes the *nearest* class: the fewest attributes whose cell does not contain it, then
  the smallest extension (summed over the attributes, the share of the domain the cell
  would have to grow by: for a hierarchy attribute the leaves of the lowest common
  ancestor of the cell and the value minus the cell's leaves; for a numeric attribute the
  distance to the interval over the domain width, more than 1 for a value farther than
  the domain is wide), then the larger class, then the first;
* :func:`nearest_groups` (microaggregation): each record takes the aggregates of the group
  whose aggregates are nearest to its values in standardized Euclidean distance (each
  attribute divided by its train standard deviation; Domingo-Ferrer & Mateo-Sanz 2002),
  ties to the larger group; the attributes that were not aggregated keep their values.

Numbers to recode must be finite, as the fit's are (:func:`refuse_infinite`).

References
----------
Domingo-Ferrer, J., Mateo-Sanz, J. M. (2002). Practical data-oriented microaggregation for
statistical disclosure control. IEEE TKDE 14(1).
Iyengar, V. S. (2002). Transforming data to satisfy privacy constraints. KDD.
LeFevre, K., DeWitt, D. J., Ramakrishnan, R. (2006). Workload-aware anonymization. KDD.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

from anonkit._arrays import BoolArray, FloatArray, IntArray
from anonkit.core.grouping import first_of_runs
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import infinite_numbers
from anonkit.core.values import as_text
from anonkit.exceptions import DataError, MissingValuesError, ValuesNotInHierarchyError
from anonkit.metrics.columns import QIColumn
from anonkit.metrics.labels import STAR
from anonkit.metrics.matching import distinct_rows, match_classes
from anonkit.metrics.release import Release

__all__ = [
    "apply_levels",
    "assign_classes",
    "generalize_column",
    "like_training",
    "nearest_groups",
    "parse_numbers",
    "refuse_infinite",
]


#: Cap on the (rows x classes) block evaluated at once when searching nearest classes.
_BLOCK = 1 << 21


# ----------------------------------------------------------------------- full domain
def generalize_column(series: pl.Series, h: Hierarchy, level: int, column: str) -> pl.Series:
    """Each value's label at ``level`` (one dictionary lookup per distinct value).

    Raises
    ------
    MissingValuesError
        If ``series`` holds nulls.
    ValuesNotInHierarchyError
        If a value is not a leaf of ``h``.
    """
    text = as_text(series)
    nulls = text.null_count()
    if nulls:
        raise MissingValuesError(column, nulls)
    labels = [row[level] for row in h.rows]
    out = text.replace_strict(list(h.leaves), labels, default=None, return_dtype=pl.String)
    bad = out.is_null()
    if bad.any():
        unknown = text.filter(bad).unique().sort().to_list()
        raise ValuesNotInHierarchyError(column, unknown[:10], len(unknown), h.leaves)
    return out.alias(column)


def apply_levels(
    frame: pl.DataFrame,
    levels: Mapping[str, int],
    hierarchies: Mapping[str, Hierarchy | None],
) -> tuple[pl.DataFrame, int]:
    """``frame`` with each column of ``levels`` generalized to its level.

    A column at level 0 is kept; a column without a hierarchy (``None``) is kept at level
    0 and suppressed (``*``) above. Returns the frame and how many columns changed.
    """
    columns: list[pl.Series] = []
    for c, lv in levels.items():
        h = hierarchies.get(c)
        if lv == 0:
            continue
        if h is None:
            columns.append(pl.Series(c, [STAR] * frame.height, dtype=pl.String))
        else:
            columns.append(generalize_column(frame[c], h, min(int(lv), h.max_level), c))
    return (frame.with_columns(columns) if columns else frame), len(columns)


# ---------------------------------------------------------------------- local recoding
def _first_rows(class_of: IntArray, n_classes: int) -> IntArray:
    """The first record of every class."""
    first = np.full(n_classes, -1, dtype=np.int64)
    n = class_of.shape[0]
    first[class_of[::-1]] = np.arange(n - 1, -1, -1)
    return first


def _miss_table(col: QIColumn, points: FloatArray) -> tuple[BoolArray, FloatArray]:
    """``(P, L)`` tables of whether each label misses each point (does not contain it),
    and of the share of the domain the label would have to grow by to contain it (0
    where it does; unbounded: a point beyond the domain grows it past 1)."""
    n_labels = len(col.labels)
    if col.kind == "hierarchy":
        h = col.hierarchy
        assert h is not None and col.order is not None
        pos = points.astype(np.int64)
        contains = (col.start[None, :] <= pos[:, None]) & (pos[:, None] < col.stop[None, :])
        leaf_p = col.order[pos]
        leaf_l = col.order[np.minimum(col.start, col.order.shape[0] - 1)]
        lca = np.full((pos.shape[0], n_labels), float(col.domain_size))
        for lv in range(h.max_level, -1, -1):
            codes = h.codes(lv)
            same = (codes[leaf_p][:, None] == codes[leaf_l][None, :]) & (col.level[None, :] <= lv)
            size = h.leaf_counts(lv)[codes[leaf_l]].astype(np.float64)
            lca = np.where(same, size[None, :], lca)
        grow = (lca - col.covered[None, :]) / max(col.domain_size, 1)
    else:
        x = points[:, None]
        lo, hi = col.lo[None, :], col.hi[None, :]
        above = np.where(col.lo_closed[None, :], x >= lo, x > lo)
        below = np.where(col.hi_closed[None, :], x <= hi, x < hi)
        contains = above & below
        vmin, vmax = col.value_range
        span = vmax - vmin if vmax > vmin else 1.0
        grow = np.maximum(np.maximum(lo - x, x - hi), 0.0) / span
    contains |= col.star[None, :]
    missed: BoolArray = ~contains
    extension: FloatArray = np.where(contains, 0.0, np.maximum(grow, 0.0))
    return missed, extension


def _nearest_classes(read: Release, points: Sequence[FloatArray], rows: IntArray) -> IntArray:
    """For each row of ``rows``, the nearest class (see the module docstring): the
    fewest attributes missed, then the smallest extension (equal within a relative
    1e-9), then the largest class, then the first.

    Rows are processed in blocks of at most ``_BLOCK`` (row, class) pairs; within a block
    each column's tables are computed once per distinct point and label, then gathered per
    (row, class).
    """
    n_classes = int(read.class_sizes.shape[0])
    widest = max([n_classes, *(len(col.labels) for col in read.columns)])
    step = max(1, _BLOCK // max(widest, 1))
    sizes = read.class_sizes.astype(np.float64)
    out = np.empty(rows.shape[0], dtype=np.int64)
    for a in range(0, rows.shape[0], step):
        block = rows[a : a + step]
        misses = np.zeros((block.shape[0], n_classes), dtype=np.int64)
        extension = np.zeros((block.shape[0], n_classes))
        for j, col in enumerate(read.columns):
            upts, inv = np.unique(points[j][block], return_inverse=True)
            missed, grow = _miss_table(col, upts)  # (distinct points, labels)
            at = (inv.reshape(-1)[:, None], read.class_labels[None, :, j])
            misses += missed[at]
            extension += grow[at]
        fewest = misses == misses.min(axis=1, keepdims=True)
        extension = np.where(fewest, extension, np.inf)
        best = extension.min(axis=1, keepdims=True)
        tied = fewest & (extension <= best + 1e-9 * np.maximum(best, 1.0))
        out[a : a + step] = np.argmax(np.where(tied, sizes[None, :], -1.0), axis=1)
    return out


def assign_classes(
    read: Release, release: pl.DataFrame, frame: pl.DataFrame
) -> tuple[pl.DataFrame, int]:
    """``frame`` with its quasi-identifiers replaced by the labels of the release class
    each record falls in (the most specific containing class, else the nearest one).

    Parameters
    ----------
    read
        The release read against its original (:func:`anonkit.metrics.release.interpret_release`).
    release
        The released table read, row-aligned with the original.
    frame
        New records, original values.

    Returns
    -------
    tuple
        The recoded frame and the number of records no class contains.
    """
    qi = list(read.quasi_identifiers)
    n = frame.height
    if n == 0:
        return frame, 0
    points = [col.points(frame[col.name]) for col in read.columns]
    rows, classes = match_classes(read, points)
    # specificity: log of the covered domain, summed over the attributes
    spec = np.zeros(read.class_sizes.shape[0])
    for j, col in enumerate(read.columns):
        spec += np.log(np.maximum(col.covered, 1).astype(np.float64))[read.class_labels[:, j]]
    chosen = np.full(n, -1, dtype=np.int64)
    if rows.size:
        order = np.lexsort((classes, -read.class_sizes[classes], spec[classes], rows))
        rows_s, classes_s = rows[order], classes[order]
        first = first_of_runs(rows_s)
        chosen[rows_s[first]] = classes_s[first]
    uncovered = np.flatnonzero(chosen < 0)
    if uncovered.size:
        chosen[uncovered] = _nearest_classes(read, points, uncovered)
    rep = _first_rows(read.class_of, int(read.class_sizes.shape[0]))
    picked = release.select(qi)[pl.Series(rep[chosen])]
    return frame.with_columns([picked[c].alias(c) for c in qi]), int(uncovered.size)


def refuse_infinite(frame: pl.DataFrame, columns: Sequence[str]) -> None:
    """Refuse infinite numbers in ``columns`` of records to recode, as the fit refuses
    them in the training records (:func:`anonkit.core.resolve.resolve_hierarchy`): no
    class holds them, and no distance to one is finite. Text is read as a number.

    Raises
    ------
    DataError
        Naming the first such column and how many infinite numbers it holds.

    Examples
    --------
    >>> refuse_infinite(pl.DataFrame({"x": [1.0, 2.0]}), ["x"])
    >>> try:
    ...     refuse_infinite(pl.DataFrame({"x": [1.0, float("-inf")]}), ["x"])
    ... except DataError as err:
    ...     print(str(err)[:44])
    Column 'x' holds 1 infinite number(s); repla
    """
    for c in columns:
        series = frame[c]
        if series.dtype == pl.String:
            series = series.str.strip_chars().cast(pl.Float64, strict=False)
        if not series.dtype.is_float():
            continue
        infinite = int(series.is_infinite().sum())
        if infinite:
            raise infinite_numbers(c, infinite)


# --------------------------------------------------------------------- microaggregation
def parse_numbers(data: pl.DataFrame, columns: Sequence[str]) -> pl.DataFrame:
    """``data`` with the text columns among ``columns`` parsed as numbers (microaggregation).

    Tables read from CSV hold text. Whole numbers become Int64 (so a median or mode
    stays whole), others Float64. Empty cells and ``NaN`` raise
    :class:`~anonkit.exceptions.MissingValuesError`, other text a
    :class:`~anonkit.exceptions.DataError` naming the column and the count, as does a
    column of booleans.
    """
    parsed = []
    for c in columns:
        text = data[c]
        if text.dtype == pl.Boolean:  # its mean (0.8) would be released as a value
            raise DataError(
                f"Column {c!r} holds true/false values, which microaggregation would "
                "release as averages such as 0.8; generalize it with a hierarchy instead "
                "(another algorithm), or code it as numbers if an average means something."
            )
        if text.dtype != pl.String:
            continue
        stripped = text.str.strip_chars()
        number = stripped.cast(pl.Float64, strict=False)
        empty = int((stripped == "").sum())
        missing = text.null_count() + empty + int(number.is_nan().sum())
        if missing:
            raise MissingValuesError(c, missing)
        words = number.null_count() - text.null_count() - empty
        if words:
            raise DataError(
                f"Column {c!r} must hold numbers to be microaggregated, but {words} of its "
                "values are not numbers; fix those cells or code the column as integers."
            )
        whole = stripped.cast(pl.Int64, strict=False)
        parsed.append(whole if whole.null_count() == text.null_count() else number)
    return data.with_columns(parsed) if parsed else data


def _as_float(series: pl.Series, column: str) -> FloatArray:
    values = series.cast(pl.Float64, strict=False)
    if values.null_count() or values.is_nan().any():
        raise DataError(f"Column {column!r} must hold numbers to be recoded by microaggregation.")
    out: FloatArray = values.to_numpy().astype(np.float64)
    return out


def nearest_groups(
    original: pl.DataFrame, release: pl.DataFrame, frame: pl.DataFrame, columns: Sequence[str]
) -> pl.DataFrame:
    """``frame`` with ``columns`` replaced by the aggregates of the nearest release group.

    ``original`` and ``release`` are row-aligned (the records before and after
    microaggregation); distances are standardized by the original's standard deviations.

    Raises
    ------
    DataError
        If a cell of ``columns`` is not a number.
    """
    columns = list(columns)
    n = frame.height
    if n == 0:
        return frame
    orig = np.column_stack([_as_float(original[c], c) for c in columns])
    agg = np.column_stack([_as_float(release[c], c) for c in columns])
    mean = orig.mean(axis=0)
    std = orig.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    first, counts = distinct_rows([agg[:, j] for j in range(agg.shape[1])])
    groups = (agg[first] - mean) / std  # (G, d)
    sizes = counts.astype(np.float64)
    x = (np.column_stack([_as_float(frame[c], c) for c in columns]) - mean) / std
    chosen = np.empty(n, dtype=np.int64)
    g2 = (groups**2).sum(axis=1)
    step = max(1, _BLOCK // max(groups.shape[0], 1))
    for a in range(0, n, step):
        b = min(a + step, n)
        d2 = g2[None, :] - 2.0 * x[a:b] @ groups.T
        best = d2.min(axis=1, keepdims=True)
        tied = d2 <= best + 1e-9
        chosen[a:b] = np.argmax(np.where(tied, sizes[None, :], -1.0), axis=1)
    picked = release.select(columns)[pl.Series(first[chosen])]
    return frame.with_columns([picked[c].alias(c) for c in columns])


def like_training(series: pl.Series, dtype: pl.DataType) -> pl.Series:
    """A quasi-identifier of records to transform, of the training column's type:
    text as the fit reads a value (a float ``30.0`` as ``30``), text cast to numbers or
    dates exactly; numbers stay numbers (``35.5`` is not cut to ``35``).

    Raises
    ------
    MissingValuesError
        If a value is missing (null, or NaN), as the fit refuses.
    DataError
        If a value is not of the training column's type (text ``"abc"`` for numbers).
    """
    column = series.name
    missing = series.null_count() + (int(series.is_nan().sum()) if series.dtype.is_float() else 0)
    if missing:
        raise MissingValuesError(column, missing)
    if series.dtype == dtype or (series.dtype.is_numeric() and dtype.is_numeric()):
        return series  # numbers are compared as numbers, or read as text like the fit's
    if dtype == pl.String:
        return as_text(series).alias(column)
    cast = series.cast(dtype, strict=False)
    if cast.null_count():
        bad = series.filter(cast.is_null())[0]
        raise DataError(
            f"Column {column!r} of the records to transform holds {bad!r}, which is not a "
            f"{dtype} value like the training column's."
        )
    return cast
