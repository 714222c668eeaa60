"""Information loss of any release, read against its original table.

Pure functions of a :class:`~anonkit.metrics.release.Release` (see
:func:`~anonkit.metrics.release.interpret_release`): they work for full-domain releases,
local recoding (Mondrian ranges, greedy merging at mixed levels), local and record
suppression, and numeric releases (microaggregated means), whether anonkit made them or
another tool did. All are losses: lower is better, 0 for the original table itself.

Suppressed records are written with every quasi-identifier ``*``: wherever a metric looks
at cells, a suppressed cell is the hierarchy's root (every value, the whole numeric range).
Each docstring says how suppressed records count where that is not the cell rule.

The full-domain metrics of :mod:`anonkit.metrics.generalization` compute several of the
same definitions from a lattice node; the tests check both paths agree.

Entropies and the KL divergence are in bits (log base 2), as in
:mod:`anonkit.metrics.generalization`.

Examples
--------
>>> import polars as pl
>>> from anonkit.core.hierarchy import Hierarchy
>>> from anonkit.metrics.release import interpret_release
>>> h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name="x")
>>> original = pl.DataFrame({"x": ["a", "b", "c", "c"], "y": [1, 2, 3, 4]})
>>> release = pl.DataFrame({"x": ["ab", "ab", "c", "c"], "y": ["[1-2]", "[1-2]", "3", "4"]})
>>> r = interpret_release(original, release, quasi_identifiers=["x", "y"],
...                       hierarchies={"x": h}, numeric=["y"])
>>> height_loss(r), precision_loss(r), discernibility_loss(r)
(1.0, 0.5, 6.0)
>>> round(generalized_loss(r), 4), conditional_entropy_loss(r)
(0.2083, 4.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit._arrays import FloatArray, IntArray
from anonkit._validation import check_int
from anonkit.exceptions import DataError, ParameterError
from anonkit.metrics.columns import QIColumn
from anonkit.metrics.matching import distinct_rows, match_classes
from anonkit.metrics.release import Release


def _label_counts(col: QIColumn) -> FloatArray:
    return col.counts.astype(np.float64)


def _kept_counts(release: Release, col: QIColumn) -> FloatArray:
    """Records released with each label, suppressed records (all ``*``) left out."""
    counts = col.counts.astype(np.float64)
    if release.n_suppressed:
        counts[col.star] -= release.n_suppressed  # the one "*" label of the column
    return counts


def _hierarchy_columns(release: Release) -> list[QIColumn]:
    return [c for c in release.columns if c.kind == "hierarchy"]


def cover_sums(col: QIColumn, domain_counts: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Per label of ``col``: the records whose value it covers ``C``, and ``sum c log2 c``
    over its values, from the records of each domain position (``domain_counts``)."""
    c = np.asarray(domain_counts, dtype=np.float64)
    clogc = np.where(c > 0, c * np.log2(np.where(c > 0, c, 1.0)), 0.0)
    cum = np.r_[0.0, np.cumsum(c)]
    cumlog = np.r_[0.0, np.cumsum(clogc)]
    return cum[col.stop] - cum[col.start], cumlog[col.stop] - cumlog[col.start]


# --------------------------------------------------------------- hierarchy-level metrics
def height_loss(release: Release) -> float:
    """Absolute distance (generalization height; Samarati & Sweeney 1998, seed 000 eq. 2.7).

    ``sum_j d_j`` where ``d_j`` is the level of attribute ``j``'s released cells. A local
    recoding has cells at several levels: ``d_j`` is then their mean over the records that
    are not suppressed, so a full-domain release gets exactly the sum of its levels.
    Suppressed records do not change it (as for a full-domain transformation); when every
    record is suppressed every attribute counts at its highest level. A range that is not a
    hierarchy node counts at the level of the smallest node holding it. Numeric attributes
    (no hierarchy) do not enter.
    """
    n_kept = release.n_released
    total = 0.0
    for col in _hierarchy_columns(release):
        if n_kept == 0:
            total += col.max_level
        else:
            total += float(_kept_counts(release, col) @ col.level) / n_kept
    return total


def relative_distance_loss(release: Release) -> float:
    """Relative distance (Samarati & Sweeney 1998, seed 000 eq. 2.8): ``sum_j d_j / |DGH_j|``.

    ``d_j`` as in :func:`height_loss` (mean level over records not suppressed),
    ``|DGH_j|`` the highest level of hierarchy ``j``; each term lies in [0, 1]. Suppressed
    records do not change it. Numeric attributes do not enter.
    """
    n_kept = release.n_released
    total = 0.0
    for col in _hierarchy_columns(release):
        if col.max_level == 0:
            continue
        if n_kept == 0:
            total += 1.0
        else:
            total += float(_kept_counts(release, col) @ col.level) / (n_kept * col.max_level)
    return total


def precision_loss(release: Release) -> float:
    """One minus Sweeney's precision (Sweeney 2002; seed 000 eq. 2.9, seed 001 C_prec).

    ``Prec = 1 - (sum over records i and attributes j of h_ij / |DGH_j|) / (N * Q)`` with
    ``h_ij`` the level of cell ``(i, j)``; this returns ``1 - Prec`` in [0, 1]. A suppressed
    cell has ``h_ij = |DGH_j|``. Only hierarchy attributes enter (``Q`` counts them); NaN
    when there are none.

    References
    ----------
    L. Sweeney. Achieving k-anonymity privacy protection using generalization and
    suppression. IJUFKS 10(5), 2002.
    """
    cols = _hierarchy_columns(release)
    if not cols:
        return math.nan
    total = 0.0
    for col in cols:
        if col.max_level:
            total += float(_label_counts(col) @ col.level) / col.max_level
    return total / (release.n_records * len(cols))


# ------------------------------------------------------------------- cell-size metrics
def cell_losses(col: QIColumn) -> FloatArray:
    """Per label of ``col``, what one cell of it costs in :func:`generalized_loss`."""
    if col.kind == "numeric":
        return col.relative_width
    a = col.domain_size
    if a <= 1:
        return np.zeros(len(col.labels))
    return (col.covered - 1) / (a - 1)


def ncp_cells(col: QIColumn) -> FloatArray:
    """Per label of ``col``, its attribute's ``NCP_j`` in :func:`ncp_loss`."""
    if col.kind == "numeric":
        return col.relative_width
    return np.where(col.covered > 1, col.covered / max(col.domain_size, 1), 0.0)


def generalized_loss(release: Release) -> float:
    """Iyengar's loss metric LM, the generalized information loss, in [0, 1].

    A cell covering ``M`` of the ``|A|`` leaves of its hierarchy costs
    ``(M - 1) / (|A| - 1)``; a numeric cell ``[lo, hi]`` costs ``(hi - lo) / (max - min)``
    over the attribute's range (seed 001's GenILoss; bounds clipped to the range, an exact
    number costs 0). The loss is the mean over all cells (records x attributes), as
    seed 001's GenILoss normalizes it: Iyengar's LM (seed 003) sums the attributes' mean
    losses, so it is this value times the number of attributes. A suppressed cell costs
    1. An attribute with a single possible value costs 0.

    References
    ----------
    V. S. Iyengar. Transforming data to satisfy privacy constraints. KDD 2002.
    """
    total = 0.0
    for col in release.columns:
        total += float(_label_counts(col) @ cell_losses(col))
    return total / (release.n_records * len(release.columns))


def ncp_loss(release: Release, *, weights: Mapping[str, float] | None = None) -> float:
    """Normalized certainty penalty (Xu et al. 2006), weighted by class size, in [0, 1].

    For a class ``G`` and a numeric attribute, ``NCP_j(G) = (hi - lo) / (max - min)`` of its
    released range; for a hierarchy attribute ``NCP_j(G) = |u| / |A_j|`` with ``|u|`` the
    leaves its released value covers, and 0 when that is a single leaf. ``NCP(G) = sum_j
    w_j NCP_j(G)`` and the table's NCP is ``sum_G |G| NCP(G)``; this returns it divided by
    ``N * sum_j w_j``. A suppressed record is one class of ``*`` cells, each costing 1.

    Parameters
    ----------
    weights
        Attribute weights ``w_j`` (default 1 each).

    References
    ----------
    J. Xu, W. Wang, J. Pei, X. Wang, B. Shi, A. W.-C. Fu. Utility-based anonymization using
    local recoding. KDD 2006.
    """
    w = dict(weights or {})
    unknown = [name for name in w if name not in release.quasi_identifiers]
    if unknown:
        raise ParameterError("weights", "ncp_loss", "keyed by quasi-identifiers", unknown[0])
    total = 0.0
    wsum = 0.0
    for col in release.columns:
        wj = float(w.get(col.name, 1.0))
        if wj < 0 or not math.isfinite(wj):
            raise ParameterError("weights", "ncp_loss", "finite and >= 0", wj)
        total += wj * float(_label_counts(col) @ ncp_cells(col))
        wsum += wj
    return total / (release.n_records * wsum) if wsum else 0.0


# ------------------------------------------------------------------ class-size metrics
def discernibility_loss(release: Release, *, k: int | None = None) -> float:
    """Discernibility metric (Bayardo & Agrawal 2005; seed 001 C_DM).

    ``C_DM = sum over classes of size f >= k of f^2 + sum over classes of size f < k of
    f * N``: each record is charged the size of its class, a record of a class smaller than
    ``k`` and a suppressed record the size of the table. Without ``k`` every released class
    is charged its square.
    """
    if k is not None:
        check_int(k, "k", "discernibility_loss", low=1)
    return discernibility(release.kept_sizes, release.n_suppressed, release.n_records, k)


def discernibility(
    sizes: npt.NDArray[Any], n_suppressed: int, n_records: float, k: int | None
) -> float:
    """C_DM of released classes of ``sizes`` beside ``n_suppressed`` suppressed records
    (:func:`discernibility_loss`; the tallied losses read it too)."""
    kept = sizes.astype(np.float64)
    n = float(n_records)
    charged = np.where(kept < (k or 1), kept * n, kept * kept)
    return float(charged.sum() + n_suppressed * n)


def average_class_size_loss(release: Release, *, k: int | None = None) -> float:
    """Average equivalence-class size (LeFevre et al. 2006; seed 001 C_avg).

    ``C_avg = N / (n_classes * k)``, normalized by ``k`` when given (ideal value 1), else
    ``N / n_classes``. Suppressed records all read ``*`` and so form one class together.
    """
    if k is not None:
        check_int(k, "k", "average_class_size_loss", low=1)
    n_classes = int(release.class_sizes.shape[0])
    return release.n_records / (n_classes * (k or 1))


# -------------------------------------------------------------------- entropy metrics
def conditional_entropy_loss(release: Release) -> float:
    """Gionis–Tassa conditional entropy Π_e, in bits (seed 000 eq. 2.10–2.12).

    ``Π_e = sum over cells (i, j) of H(V_ij | a_ij)``, with
    ``H(V | a) = -sum over values v covered by a of P(v | a) log2 P(v | a)`` and
    ``P(v | a)`` the share of the original records whose value lies in ``a`` that hold
    ``v`` (eq. 2.11). A cell that is its exact value costs 0; a suppressed cell costs the
    attribute's entropy ``H(V_j)``. NaN if a released cell covers no original value (a
    perturbed number).

    References
    ----------
    A. Gionis, T. Tassa. k-Anonymization with minimal loss of information. ESA 2007;
    IEEE TKDE 21(2), 2009.
    """
    total = 0.0
    for col in release.columns:
        counts = _label_counts(col)
        c_sum, clogc = cover_sums(col, col.domain_counts)
        used = counts > 0
        if (c_sum[used] <= 0).any():
            return math.nan
        safe = np.where(c_sum > 0, c_sum, 1.0)
        h = np.log2(safe) - clogc / safe
        total += float(counts[used] @ np.maximum(h[used], 0.0))
    return total


def nonuniform_entropy_loss(release: Release) -> float:
    """Non-uniform entropy (Gionis & Tassa 2009; ARX), in bits.

    ``sum over cells (i, j) of -log2 P(X_j = x_ij | X'_j = a_ij)``: the share, among the
    records whose value lies in the released cell ``a_ij``, of those holding the record's
    own value ``x_ij``. A suppressed cell costs ``-log2(c(x) / N)``. Infinite when a cell
    does not contain its record's original value (a perturbative release).
    """
    total = 0.0
    for col in release.columns:
        if not col.truthful.all():
            return math.inf
        c_sum, _ = cover_sums(col, col.domain_counts)
        counts = _label_counts(col)
        used = counts > 0
        c = col.domain_counts.astype(np.float64)
        present = c[c > 0]
        total += float(counts[used] @ np.log2(c_sum[used])) - float(
            (present * np.log2(present)).sum()
        )
    return max(total, 0.0)


# ------------------------------------------------------------------ other utility
def _codes_of(values: Any, n: int, owner: str, parameter: str) -> IntArray:
    series = values if isinstance(values, pl.Series) else pl.Series(list(values))
    if series.len() != n:
        raise DataError(f"{owner}: '{parameter}' has {series.len()} values for {n} records.")
    text = series.cast(pl.String).fill_null("\x00null")
    uniq = text.unique(maintain_order=True)
    return text.cast(pl.Enum(uniq)).to_physical().to_numpy().astype(np.int64)


def classification_loss(release: Release, *, target: Sequence[object] | pl.Series) -> float:
    """Iyengar's classification metric CM, in [0, 1] (seed 000 eq. 2.13–2.14).

    ``CM = sum over records t of penalty(t) / N`` where the penalty is 1 if ``t`` is
    suppressed or its class label differs from the majority label of its equivalence
    class, else 0 (ties: any majority label, the count is the same).

    Parameters
    ----------
    target
        The class attribute's value of every record (e.g. ``original["salary-class"]``).

    References
    ----------
    V. S. Iyengar. Transforming data to satisfy privacy constraints. KDD 2002.
    """
    n = release.n_records
    y = _codes_of(target, n, "classification_loss", "target")
    n_y = int(y.max()) + 1 if n else 1
    key = release.class_of * n_y + y
    pair_counts = np.bincount(key, minlength=release.class_sizes.shape[0] * n_y)
    majority = pair_counts.reshape(-1, n_y).max(axis=1)
    kept = ~release.class_suppressed
    wrong = float((release.class_sizes[kept] - majority[kept]).sum())
    return (wrong + release.n_suppressed) / n


def release_distribution(release: Release) -> tuple[FloatArray, FloatArray]:
    """Original and release-implied probability of each distinct original combination.

    Seed 001: ``F(x)`` is the share of records holding the combination ``x``; the
    release implies ``F_anon(x) = (1/N) sum over classes E of P[x in E] * |E|`` where a
    class spreads its records uniformly over the combinations its cells cover, so
    ``P[x in E] = 1 / prod_j |covered_j(E)|`` when ``E`` contains ``x`` (0 otherwise). A
    hierarchy cell covers its leaves (also those absent from the data); a numeric cell the
    distinct original numbers it contains. Suppressed records are one class of ``*`` cells.

    Returns
    -------
    p, q
        ``F(x)`` and ``F_anon(x)`` for every distinct combination ``x`` of the original
        table (same order).
    """
    cols = release.columns
    first, counts = distinct_rows([c.position for c in cols])
    pts = [c.own_points()[first] for c in cols]
    rows, classes = match_classes(release, pts)
    log_cells = np.zeros(release.class_sizes.shape[0])
    for j, col in enumerate(cols):
        log_cells += np.log(np.maximum(col.covered[release.class_labels[:, j]], 1))
    log_w = np.log(release.class_sizes) - math.log(release.n_records) - log_cells
    lw = log_w[classes]
    n_x = first.shape[0]
    top = np.full(n_x, -np.inf)
    np.maximum.at(top, rows, lw)
    sums = np.bincount(rows, weights=np.exp(lw - top[rows]), minlength=n_x)
    with np.errstate(divide="ignore"):
        q = np.where(sums > 0, np.exp(top + np.log(np.where(sums > 0, sums, 1.0))), 0.0)
    p = counts / release.n_records
    return p.astype(np.float64), q.astype(np.float64)


def kl_divergence_loss(release: Release) -> float:
    """KL divergence between the original and the release-implied distribution, in bits.

    ``KL(F || F_anon) = sum over x of F(x) log2(F(x) / F_anon(x))`` over the distinct
    original combinations, with ``F_anon`` the seed 001 distribution described in
    :func:`release_distribution` (Kifer & Gehrke 2006). 0 for the original table; every
    truthful release scores at most full suppression. Infinite when some original
    combination lies in no released class (a perturbative release).

    References
    ----------
    D. Kifer, J. Gehrke. Injecting utility into anonymized datasets. SIGMOD 2006.
    """
    p, q = release_distribution(release)
    if (q <= 0).any():
        return math.inf
    return max(float((p * (np.log2(p) - np.log2(q))).sum()), 0.0)


# ---------------------------------------------------------------- numeric attributes
def _sse_sst(release: Release) -> tuple[float, float]:
    sse = sst = 0.0
    sizes = release.class_sizes.astype(np.float64)
    for col in release.columns:
        if col.kind != "numeric" or col.original is None:
            continue
        x = col.original
        sd = float(x.std())
        if sd == 0 or not math.isfinite(sd):
            continue
        z = (x - float(x.mean())) / sd
        centroid = np.bincount(release.class_of, weights=z, minlength=sizes.shape[0]) / sizes
        released = col.value[col.cell]
        zhat = np.where(
            np.isnan(released), centroid[release.class_of], (released - float(x.mean())) / sd
        )
        sse += float(((z - zhat) ** 2).sum())
        sst += float((z * z).sum())
    return sse, sst


def sse_loss(release: Release) -> float:
    """Within-group sum of squared errors SSE of the numeric attributes (seed 002).

    ``SSE = sum over records i and numeric attributes j of (z_ij - ẑ_ij)^2`` on attributes
    standardized to zero mean and unit variance (``z = (x - mean) / std`` of the original).
    ``ẑ_ij`` is the released number when the cell is a number (microaggregation releases the
    group centroid, so this is the distance to it), else the centroid of the record's
    release class (a range or ``*`` says the value is somewhere in the class). Suppressed
    records are one class. NaN without numeric attributes; constant attributes do not
    enter.

    References
    ----------
    J. Domingo-Ferrer, J. M. Mateo-Sanz. Practical data-oriented microaggregation for
    statistical disclosure control. IEEE TKDE 14(1), 2002.
    """
    if not any(c.kind == "numeric" for c in release.columns):
        return math.nan
    return _sse_sst(release)[0]


def il_loss(release: Release) -> float:
    """Information loss ``IL = 100 * SSE / SST`` in percent (Domingo-Ferrer & Mateo-Sanz 2002).

    ``SSE`` as in :func:`sse_loss` and ``SST = sum of z_ij^2`` the total sum of squares of
    the standardized numeric attributes; 0 for the original, 100 when every record is in one
    group (full suppression). NaN without numeric attributes that vary.
    """
    if not any(c.kind == "numeric" for c in release.columns):
        return math.nan
    sse, sst = _sse_sst(release)
    return 100.0 * sse / sst if sst > 0 else math.nan


# ----------------------------------------------------------------------- breakdowns
def attribute_losses(release: Release) -> dict[str, dict[str, Any]]:
    """Per quasi-identifier: its share of the loss and how its cells were generalized.

    Keys of each entry: ``kind``; ``generalized_loss`` (Iyengar LM of the attribute, mean
    over records); ``ncp`` (Xu et al. 2006 of the attribute); ``precision_loss`` (mean
    ``h / |DGH|``, hierarchy attributes, else None); ``levels`` (records per released level,
    hierarchy attributes, else None); ``distinct_labels``; ``suppressed_cells`` (``*``);
    ``untruthful_cells`` (cells not containing their record's original value).
    """
    n = release.n_records
    return {
        col.name: attribute_loss(
            col,
            _label_counts(col),
            n,
            distinct_labels=len(col.labels),
            untruthful_cells=int((~col.truthful).sum()),
        )
        for col in release.columns
    }


def attribute_loss(
    col: QIColumn,
    counts: FloatArray,
    n: float,
    *,
    distinct_labels: int,
    untruthful_cells: int | None,
) -> dict[str, Any]:
    """One entry of :func:`attribute_losses`: the column's loss figures from the records
    released with each of its labels (``counts``, ``n`` in all)."""
    entry: dict[str, Any] = {
        "kind": col.kind,
        "generalized_loss": float(counts @ cell_losses(col)) / n,
        "ncp": float(counts @ ncp_cells(col)) / n,
        "precision_loss": None,
        "levels": None,
        "distinct_labels": distinct_labels,
        "suppressed_cells": int(counts[np.asarray(col.star)].sum()),
        "untruthful_cells": untruthful_cells,
    }
    if col.kind == "hierarchy":
        top = col.max_level
        entry["precision_loss"] = float(counts @ col.level) / (n * top) if top else 0.0
        per_level = np.bincount(col.level, weights=counts, minlength=top + 1)
        entry["levels"] = {str(lv): int(c) for lv, c in enumerate(per_level) if c}
    return entry


def all_losses(
    release: Release,
    *,
    k: int | None = None,
    target: Sequence[object] | pl.Series | None = None,
    weights: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Every loss metric of this module, by name (``classification`` only with a target)."""
    out = {
        "height": height_loss(release),
        "relative_distance": relative_distance_loss(release),
        "precision": precision_loss(release),
        "loss": generalized_loss(release),
        "ncp": ncp_loss(release, weights=weights),
        "discernibility": discernibility_loss(release, k=k),
        "average_class_size": average_class_size_loss(release, k=k),
        "conditional_entropy": conditional_entropy_loss(release),
        "nonuniform_entropy": nonuniform_entropy_loss(release),
        "kl_divergence": kl_divergence_loss(release),
        "sse": sse_loss(release),
        "il": il_loss(release),
    }
    if target is not None:
        out["classification"] = classification_loss(release, target=target)
    return out
