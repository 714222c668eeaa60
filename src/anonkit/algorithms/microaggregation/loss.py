"""Standardization and the information loss of a microaggregation (SSE, SST, IL).

Pure functions of a numeric table and a partition of its records into groups. They follow
the definition used throughout the microaggregation literature (Domingo-Ferrer & Mateo-Sanz
2002) and in the CASC benchmarks: attributes are standardized to zero mean and unit
variance, the within-group sum of squares ``SSE`` is compared with the total sum of squares
``SST``, and the information loss is ``IL = 100 * SSE / SST`` percent.

References
----------
J. Domingo-Ferrer and J. M. Mateo-Sanz. Practical data-oriented microaggregation for
statistical disclosure control. IEEE TKDE 14(1):189-201, 2002.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray, IntArray
from anonkit.exceptions import ParameterError


def as_table(data: npt.ArrayLike, owner: str = "microaggregation") -> FloatArray:
    """``data`` as a 2-D float64 array ``(n_records, n_attributes)``; a 1-D input is one column."""
    table = np.asarray(data, dtype=np.float64)
    if table.ndim == 1:
        table = table.reshape(-1, 1)
    if table.ndim != 2:
        raise ParameterError("data", owner, "a 1-D or 2-D numeric array", f"{table.ndim}-D")
    return table


def standardize(data: npt.ArrayLike) -> FloatArray:
    """Standardize each attribute to zero mean and unit variance.

    ``z_ij = (x_ij - mean_j) / std_j`` with the *population* standard deviation
    (``ddof=0``, dividing by ``n``). A constant attribute (``std_j = 0``) becomes all zeros.
    The choice of ``ddof`` scales every attribute by the same factor ``sqrt(n / (n - 1))``,
    so it changes neither nearest-neighbour decisions nor ``IL`` (a ratio).

    Examples
    --------
    >>> standardize([[1.0], [3.0]]).ravel().tolist()
    [-1.0, 1.0]
    """
    table = as_table(data)
    mean = table.mean(axis=0)
    std = table.std(axis=0)
    std[std == 0.0] = 1.0
    result: FloatArray = (table - mean) / std
    return result


def _check_groups(groups: npt.ArrayLike, n: int, owner: str) -> IntArray:
    labels = np.asarray(groups)
    if labels.shape != (n,) or (labels.size and labels.dtype.kind not in "iu"):
        raise ParameterError(
            "groups", owner, f"an int array with one group id per record ({n})", labels.shape
        )
    labels = labels.astype(np.int64, copy=False)
    if labels.size and labels.min() < 0:
        raise ParameterError("groups", owner, "non-negative group ids", int(labels.min()))
    return labels


def sse(data: npt.ArrayLike, groups: npt.ArrayLike, *, standardize: bool = True) -> float:
    """Within-group sum of squares of a partition.

    ``SSE = sum over groups g, records i in g of (x_i - xbar_g)' (x_i - xbar_g)``, the
    squared Euclidean distance of every record to the centroid (mean) of its group
    (seed 002; Domingo-Ferrer & Mateo-Sanz 2002, eq. 1), on standardized attributes unless
    ``standardize=False``. It is a property of the partition: whatever value the release
    shows (mean, median or mode), the loss is measured against the group mean.

    Parameters
    ----------
    data
        ``(n_records, n_attributes)`` numeric table (1-D: one attribute).
    groups
        Group id of each record (non-negative ints).
    standardize
        Standardize the attributes first (population std, see :func:`standardize`).

    Examples
    --------
    >>> sse([[0.0], [2.0], [10.0], [14.0]], [0, 0, 1, 1], standardize=False)
    10.0
    """
    table = _standardized(data, standardize)
    labels = _check_groups(groups, table.shape[0], "sse")
    if table.shape[0] == 0:
        return 0.0
    sizes = np.bincount(labels).astype(np.float64)
    used = sizes > 0
    total = 0.0
    for j in range(table.shape[1]):
        column = table[:, j]
        means = np.zeros_like(sizes)
        means[used] = np.bincount(labels, weights=column)[used] / sizes[used]
        diff = column - means[labels]
        total += float(diff @ diff)
    return total


def sst(data: npt.ArrayLike, *, standardize: bool = True) -> float:
    """Total sum of squares ``SST = sum_i (x_i - xbar)' (x_i - xbar)``.

    On standardized attributes (the default) this is ``n`` times the number of
    non-constant attributes, up to rounding.

    Examples
    --------
    >>> sst([[0.0], [2.0], [10.0], [14.0]], standardize=False)
    131.0
    """
    table = _standardized(data, standardize)
    if table.shape[0] == 0:
        return 0.0
    centered = table - table.mean(axis=0)
    return float(np.einsum("ij,ij->", centered, centered))


def information_loss(
    data: npt.ArrayLike, groups: npt.ArrayLike, *, standardize: bool = True
) -> float:
    """Information loss of a microaggregation, ``IL = 100 * SSE / SST`` (percent).

    ``SSE`` and ``SST`` as in :func:`sse` and :func:`sst`, on standardized attributes
    unless ``standardize=False`` (Domingo-Ferrer & Mateo-Sanz 2002; the measure reported
    for the CASC Census, Tarragona and EIA benchmarks). ``0`` when every record is in its
    own group, ``100`` when all records form one group; defined as ``0`` when ``SST = 0``
    (all records identical).

    Examples
    --------
    >>> round(information_loss([[0.0], [2.0], [10.0], [14.0]], [0, 0, 1, 1]), 4)
    7.6336
    """
    table = _standardized(data, standardize)
    total = sst(table, standardize=False)
    if total == 0.0:
        _check_groups(groups, table.shape[0], "information_loss")
        return 0.0
    return 100.0 * sse(table, groups, standardize=False) / total


def _standardized(data: npt.ArrayLike, apply: bool) -> FloatArray:
    return standardize(data) if apply else as_table(data)
