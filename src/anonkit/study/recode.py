"""Recode held-out test records with the transformation that produced a train release.

To score a classifier trained on a release on data it has not seen, the test records must
be written the way the release writes its records (Iyengar 2002 and LeFevre et al. 2006
evaluate anonymized training data this way). :func:`recode_test` does it for every kind of
anonkit release:

* **full-domain** (``transformation`` non-empty; flash, incognito, ...): each column's
  hierarchy level is applied to the test values;
* **local recoding** (Mondrian, greedy class merging): each test record takes the released
  labels of a release class whose cells all contain it
  (:func:`anonkit.metrics.matching.match_classes`), the most specific one first: the
  smallest covered domain (product over the attributes of the covered domain values),
  ties to the larger class, then to the first class. A record that no class contains
  takes the *nearest* class: the fewest attributes whose cell does not contain it, then
  the smallest extension (over the attributes, the share of the domain the cell would
  have to grow by: for a hierarchy attribute the leaves of the lowest common ancestor of
  the cell and the value minus the cell's leaves; for a numeric attribute the distance to
  the interval over the domain width), then the larger class. The share of such records
  is reported as ``uncovered_share``;
* **microaggregation**: each test record takes the aggregates of the group whose
  aggregates are nearest to its values in standardized Euclidean distance (each attribute
  divided by its train standard deviation; Domingo-Ferrer & Mateo-Sanz 2002), ties to the
  larger group; the attributes that were not aggregated keep the test values.

References
----------
Domingo-Ferrer, J., Mateo-Sanz, J. M. (2002). Practical data-oriented microaggregation for
statistical disclosure control. IEEE TKDE 14(1).
Iyengar, V. S. (2002). Transforming data to satisfy privacy constraints. KDD.
LeFevre, K., DeWitt, D. J., Ramakrishnan, R. (2006). Workload-aware anonymization. KDD.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit._validation import check_int
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.snapshot import first_of_runs
from anonkit.engines.polars_engine import as_text
from anonkit.exceptions import (
    DataError,
    MissingValuesError,
    UnknownColumnError,
    ValuesNotInHierarchyError,
)
from anonkit.metrics.columns import QIColumn
from anonkit.metrics.labels import STAR
from anonkit.metrics.matching import distinct_rows, match_classes
from anonkit.metrics.release import Release
from anonkit.study.features import read_release, setup_hierarchies
from anonkit.study.setup import UtilitySetup

__all__ = ["METHODS", "RecodedTest", "recode_test"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: How a test split can be recoded.
METHODS = ("identity", "full_domain", "local", "microaggregation")
_OWNER = "recode_test"
#: Cap on the (rows x classes) block evaluated at once when searching nearest classes.
_BLOCK = 1 << 21


@dataclass(frozen=True, eq=False)
class RecodedTest:
    """The test split written the way the train release writes its records.

    Attributes
    ----------
    frame
        The test split with every quasi-identifier replaced by its released form (other
        columns unchanged), row-aligned with the test split.
    uncovered_share
        Share of test records that no release class contains (local recoding only; 0
        otherwise).
    method
        One of :data:`METHODS`.
    levels
        The full-domain levels applied (``{}`` unless ``method == "full_domain"``); the
        level hint for reading the frame.
    """

    frame: pl.DataFrame
    uncovered_share: float
    method: str
    levels: Mapping[str, int]


def recode_test(
    setup: UtilitySetup,
    train: pl.DataFrame,
    release: pl.DataFrame,
    test: pl.DataFrame,
    *,
    transformation: Mapping[str, int] | None = None,
    algorithm: str | None = None,
) -> RecodedTest:
    """Recode ``test`` with the transformation that turned ``train`` into ``release``.

    Parameters
    ----------
    setup
        Quasi-identifiers, hierarchies and numeric columns.
    train, release
        The original train split and its release, row-aligned (suppressed records as
        ``*``).
    test
        The held-out records, original values.
    transformation
        ``AnonymizationResult.transformation``: the hierarchy level of each
        quasi-identifier of a full-domain release; empty or ``None`` for local recodings.
    algorithm
        ``AnonymizationResult.algorithm``; ``"microaggregation"`` selects the nearest-group
        recoding. When neither ``transformation`` nor ``algorithm`` is given, the method is
        inferred from the release: every hierarchy attribute at one level and numeric
        attributes unchanged -> full-domain; hierarchy attributes unchanged and numeric
        attributes exact numbers -> microaggregation; otherwise local recoding.

    Returns
    -------
    RecodedTest

    Raises
    ------
    UnknownColumnError
        If a quasi-identifier is missing from a frame.
    ValuesNotInHierarchyError
        If a test value is not in its column's hierarchy.
    DataError
        If ``train`` and ``release`` differ in length or a cell cannot be read.

    Examples
    --------
    >>> from anonkit.study.setup import UtilitySetup
    >>> h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]])
    >>> setup = UtilitySetup(target="y", quasi_identifiers=("x",), hierarchies={"x": h})
    >>> train = pl.DataFrame({"x": ["a", "b", "c", "c"]})
    >>> release = pl.DataFrame({"x": ["ab", "ab", "c", "c"]})
    >>> test = pl.DataFrame({"x": ["b", "c"]})
    >>> recode_test(setup, train, release, test, transformation={"x": 1}).frame["x"].to_list()
    ['ab', 'c']
    >>> local = pl.DataFrame({"x": ["ab", "ab", "*", "*"]})
    >>> recode_test(setup, train, local, test, algorithm="mondrian").frame["x"].to_list()
    ['ab', '*']
    """
    qi = list(setup.quasi_identifiers)
    for frame in (train, release, test):
        missing = [c for c in qi if c not in frame.columns]
        if missing:
            raise UnknownColumnError(missing, frame.columns)
    if train.height != release.height:
        raise DataError(
            f"The release has {release.height} rows but the train split {train.height}; "
            "they must be row-aligned."
        )
    hierarchies = setup_hierarchies(setup, train, test, release=release)
    levels = dict(transformation or {})
    if levels:
        return _full_domain(setup, hierarchies, test, levels)
    if algorithm == "microaggregation":
        return _microaggregation(setup, train, release, test)
    if algorithm is None:
        method, inferred = _infer(setup, hierarchies, train, release)
        if method == "full_domain":
            return _full_domain(setup, hierarchies, test, inferred)
        if method == "microaggregation":
            return _microaggregation(setup, train, release, test)
    return _local(setup, hierarchies, train, release, test)


# ----------------------------------------------------------------------- full domain
def _generalize(series: pl.Series, h: Hierarchy, level: int, column: str) -> pl.Series:
    """Each value's label at ``level`` (one dictionary lookup per distinct value)."""
    text = as_text(series)
    nulls = text.null_count()
    if nulls:
        raise MissingValuesError(column, nulls)
    labels = [row[level] for row in h.rows]
    out = text.replace_strict(list(h.leaves), labels, default=None, return_dtype=pl.String)
    bad = out.is_null()
    if bad.any():
        unknown = text.filter(bad).unique().sort().to_list()
        raise ValuesNotInHierarchyError(column, unknown[:10], len(unknown))
    return out.alias(column)


def _full_domain(
    setup: UtilitySetup,
    hierarchies: Mapping[str, Hierarchy],
    test: pl.DataFrame,
    levels: Mapping[str, int],
) -> RecodedTest:
    columns: list[pl.Series] = []
    for c in setup.quasi_identifiers:
        lv = check_int(levels.get(c, 0), "transformation", _OWNER, low=0)
        h = hierarchies.get(c, setup.hierarchies.get(c))
        if lv == 0:
            continue
        if h is None:  # a numeric column without a hierarchy: kept or suppressed
            columns.append(pl.Series(c, [STAR] * test.height, dtype=pl.String))
        else:
            columns.append(_generalize(test[c], h, min(int(lv), h.max_level), c))
    frame = test.with_columns(columns) if columns else test
    levels_out = {c: int(levels.get(c, 0)) for c in hierarchies}
    method = "full_domain" if columns else "identity"
    return RecodedTest(frame, 0.0, method, MappingProxyType(levels_out))


# ------------------------------------------------------------------------- inference
def _infer(
    setup: UtilitySetup,
    hierarchies: Mapping[str, Hierarchy],
    train: pl.DataFrame,
    release: pl.DataFrame,
) -> tuple[str, dict[str, int]]:
    """Guess how ``release`` was made: full-domain (with its levels), microaggregation or
    local recoding (see :func:`recode_test`)."""
    read = read_release(setup, hierarchies, train, release)
    levels: dict[str, int] = {}
    one_level = True
    numbers_kept = True
    numbers_exact = True
    for col in read.columns:
        kept = ~read.suppressed
        if col.kind == "hierarchy":
            assert col.hierarchy is not None
            lv = np.unique(col.level[col.cell[kept]])
            if lv.size > 1:
                one_level = False
            else:
                levels[col.name] = int(lv[0]) if lv.size else col.hierarchy.max_level
                # a node label at that level, equal to the value's ancestor
                if not bool(col.truthful[kept].all()):
                    one_level = False
        else:
            assert col.original is not None
            value = col.value[col.cell]
            numbers_exact &= bool(np.isfinite(value[kept]).all())
            numbers_kept &= bool((value[kept] == col.original[kept]).all())
    if one_level and numbers_kept:
        return "full_domain", levels
    if numbers_exact and setup.numeric and all(v == 0 for v in levels.values()) and one_level:
        return "microaggregation", {}
    return "local", {}


# ---------------------------------------------------------------------- local recoding
def _first_rows(class_of: IntArray, n_classes: int) -> IntArray:
    """The first record of every class."""
    first = np.full(n_classes, -1, dtype=np.int64)
    n = class_of.shape[0]
    first[class_of[::-1]] = np.arange(n - 1, -1, -1)
    return first


def _gather(
    release: pl.DataFrame, test: pl.DataFrame, qi: Sequence[str], rows: IntArray
) -> pl.DataFrame:
    """``test`` with its quasi-identifiers replaced by the release's cells of ``rows``."""
    picked = release.select(list(qi))[pl.Series(rows)]
    return test.with_columns([picked[c].alias(c) for c in qi])


def _miss_table(col: QIColumn, points: FloatArray, q: int) -> FloatArray:
    """``(P, L)`` cost of giving a point each label: ``(q + 1)`` if the label does not
    contain it, plus the share of the domain the label would have to grow by."""
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
    grow = np.where(contains, 0.0, np.clip(grow, 0.0, 1.0))
    out: FloatArray = (~contains).astype(np.float64) * (q + 1) + grow
    return out


def _nearest_classes(read: Release, points: Sequence[FloatArray], rows: IntArray) -> IntArray:
    """For each row of ``rows``, the nearest class (see :func:`recode_test`).

    Rows are processed in blocks of at most ``_BLOCK`` (row, class) pairs; within a block
    each column's cost is computed once per distinct point and label, then gathered per
    (row, class).
    """
    q = len(read.columns)
    n_classes = int(read.class_sizes.shape[0])
    widest = max([n_classes, *(len(col.labels) for col in read.columns)])
    step = max(1, _BLOCK // max(widest, 1))
    sizes = read.class_sizes.astype(np.float64)
    out = np.empty(rows.shape[0], dtype=np.int64)
    for a in range(0, rows.shape[0], step):
        block = rows[a : a + step]
        cost = np.zeros((block.shape[0], n_classes))
        for j, col in enumerate(read.columns):
            upts, inv = np.unique(points[j][block], return_inverse=True)
            table = _miss_table(col, upts, q)  # (distinct points, labels)
            cost += table[inv.reshape(-1)[:, None], read.class_labels[None, :, j]]
        best = cost.min(axis=1, keepdims=True)
        tied = cost <= best + 1e-9
        out[a : a + step] = np.argmax(np.where(tied, sizes[None, :], -1.0), axis=1)
    return out


def _local(
    setup: UtilitySetup,
    hierarchies: Mapping[str, Hierarchy],
    train: pl.DataFrame,
    release: pl.DataFrame,
    test: pl.DataFrame,
) -> RecodedTest:
    qi = list(setup.quasi_identifiers)
    read = read_release(setup, hierarchies, train, release)
    n_test = test.height
    if n_test == 0:
        return RecodedTest(test, 0.0, "local", MappingProxyType({}))
    points = [col.points(test[col.name]) for col in read.columns]
    rows, classes = match_classes(read, points)
    # specificity: log of the covered domain, summed over the attributes
    spec = np.zeros(read.class_sizes.shape[0])
    for j, col in enumerate(read.columns):
        spec += np.log(np.maximum(col.covered, 1).astype(np.float64))[read.class_labels[:, j]]
    chosen = np.full(n_test, -1, dtype=np.int64)
    if rows.size:
        order = np.lexsort((classes, -read.class_sizes[classes], spec[classes], rows))
        rows_s, classes_s = rows[order], classes[order]
        first = first_of_runs(rows_s)
        chosen[rows_s[first]] = classes_s[first]
    uncovered = np.flatnonzero(chosen < 0)
    if uncovered.size:
        chosen[uncovered] = _nearest_classes(read, points, uncovered)
    rep = _first_rows(read.class_of, int(read.class_sizes.shape[0]))
    frame = _gather(release, test, qi, rep[chosen])
    return RecodedTest(frame, uncovered.size / n_test, "local", MappingProxyType({}))


# --------------------------------------------------------------------- microaggregation
def _as_float(series: pl.Series, column: str) -> FloatArray:
    values = series.cast(pl.Float64, strict=False)
    if values.null_count() or values.is_nan().any():
        raise DataError(f"Column {column!r} must hold numbers to be recoded by microaggregation.")
    out: FloatArray = values.to_numpy().astype(np.float64)
    return out


def _microaggregation(
    setup: UtilitySetup, train: pl.DataFrame, release: pl.DataFrame, test: pl.DataFrame
) -> RecodedTest:
    qi = list(setup.quasi_identifiers)
    columns = [c for c in qi if c in setup.numeric] or qi
    n_test = test.height
    if n_test == 0:
        return RecodedTest(test, 0.0, "microaggregation", MappingProxyType({}))
    orig = np.column_stack([_as_float(train[c], c) for c in columns])
    agg = np.column_stack([_as_float(release[c], c) for c in columns])
    mean = orig.mean(axis=0)
    std = orig.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    first, counts = distinct_rows([agg[:, j] for j in range(agg.shape[1])])
    groups = (agg[first] - mean) / std  # (G, d)
    sizes = counts.astype(np.float64)
    x = (np.column_stack([_as_float(test[c], c) for c in columns]) - mean) / std
    chosen = np.empty(n_test, dtype=np.int64)
    g2 = (groups**2).sum(axis=1)
    step = max(1, _BLOCK // max(groups.shape[0], 1))
    for a in range(0, n_test, step):
        b = min(a + step, n_test)
        d2 = g2[None, :] - 2.0 * x[a:b] @ groups.T
        best = d2.min(axis=1, keepdims=True)
        tied = d2 <= best + 1e-9
        chosen[a:b] = np.argmax(np.where(tied, sizes[None, :], -1.0), axis=1)
    picked = release.select(columns)[pl.Series(first[chosen])]
    frame = test.with_columns([picked[c].alias(c) for c in columns])
    return RecodedTest(frame, 0.0, "microaggregation", MappingProxyType({}))
