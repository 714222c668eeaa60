"""Replace each record's values by an aggregate of its group.

Microaggregation releases, for every attribute, one representative value per group
(seed 002: "Why do we take the mean?"). Three aggregates are offered, chosen per attribute:

``mean``
    The group mean: the centroid that ``SSE`` is measured against, for numeric
    (interval/ratio) attributes. Released values are usually not values of the data.
``median``
    The *lower* median, the ``ceil(size / 2)``-th smallest value of the group: always a
    value that occurs in the group, as ordinal attributes (coded as ordered integers)
    require.
``mode``
    The most frequent value of the group, the smallest one on ties: for categorical
    attributes coded as integers (Domingo-Ferrer & Torra 2005).

References
----------
J. Domingo-Ferrer and V. Torra. Ordinal, continuous and heterogeneous k-anonymity through
microaggregation. Data Mining and Knowledge Discovery 11(2):195-212, 2005.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray, IntArray
from anonkit.algorithms.microaggregation.loss import as_table
from anonkit.exceptions import ParameterError, UnknownNameError

#: The aggregate names.
AGGREGATES = ("mean", "median", "mode")


def group_aggregates(
    data: npt.ArrayLike, groups: npt.ArrayLike, how: str | Sequence[str] = "mean"
) -> FloatArray:
    """One representative value per group and attribute.

    Parameters
    ----------
    data
        ``(n_records, n_attributes)`` numeric table (1-D: one attribute).
    groups
        Group id per record, ``0 .. n_groups - 1``, every id used.
    how
        One aggregate name for all attributes, or one per attribute (see the module
        docstring).

    Returns
    -------
    numpy.ndarray
        ``(n_groups, n_attributes)`` float64.

    Examples
    --------
    >>> x = [[1, 0], [2, 0], [6, 1], [10, 5], [11, 5], [30, 6]]
    >>> group_aggregates(x, [0, 0, 0, 1, 1, 1], ["mean", "mode"]).tolist()
    [[3.0, 0.0], [17.0, 5.0]]
    >>> group_aggregates(x, [0, 0, 0, 1, 1, 1], "median").tolist()
    [[2.0, 0.0], [11.0, 5.0]]
    """
    table = as_table(data, "group_aggregates")
    labels = np.asarray(groups, dtype=np.int64)
    names = _names(how, table.shape[1])
    sizes = np.bincount(labels) if labels.size else np.zeros(0, dtype=np.int64)
    if np.any(sizes == 0):
        raise ParameterError(
            "groups", "group_aggregates", "group ids 0 .. n_groups - 1, each used", "a gap"
        )
    out = np.empty((sizes.size, table.shape[1]), dtype=np.float64)
    for j, name in enumerate(names):
        column = table[:, j]
        if name == "mean":
            out[:, j] = np.bincount(labels, weights=column, minlength=sizes.size) / sizes
        elif name == "median":
            out[:, j] = _lower_median(column, labels, sizes)
        else:
            out[:, j] = _mode(column, labels, sizes)
    return out


def aggregate(
    data: npt.ArrayLike, groups: npt.ArrayLike, how: str | Sequence[str] = "mean"
) -> FloatArray:
    """Each record's values replaced by its group's aggregates, ``(n_records, n_attributes)``.

    Examples
    --------
    >>> aggregate([1, 2, 6, 10], [0, 0, 1, 1]).ravel().tolist()
    [1.5, 1.5, 8.0, 8.0]
    """
    labels = np.asarray(groups, dtype=np.int64)
    result: FloatArray = group_aggregates(data, labels, how)[labels]
    return result


def _names(how: str | Sequence[str], n_columns: int) -> list[str]:
    names = [how] * n_columns if isinstance(how, str) else list(how)
    if len(names) != n_columns:
        raise ParameterError(
            "aggregate",
            "group_aggregates",
            f"one name or one per attribute ({n_columns})",
            len(names),
        )
    for name in names:
        if name not in AGGREGATES:
            raise UnknownNameError("aggregate", str(name), AGGREGATES)
    return names


def _sorted_within_groups(column: FloatArray, labels: IntArray) -> tuple[FloatArray, IntArray]:
    """Values sorted by (group, value) and the start of each group in that order."""
    order = np.lexsort((column, labels))
    starts = np.searchsorted(labels[order], np.arange(labels.max() + 1))
    return column[order], starts


def _lower_median(column: FloatArray, labels: IntArray, sizes: IntArray) -> FloatArray:
    values, starts = _sorted_within_groups(column, labels)
    result: FloatArray = values[starts + (sizes - 1) // 2]
    return result


def _mode(column: FloatArray, labels: IntArray, sizes: IntArray) -> FloatArray:
    values, starts = _sorted_within_groups(column, labels)
    group_of = np.repeat(np.arange(sizes.size), sizes)
    # Runs of equal values inside a group, in (group, value) order.
    new_run = np.ones(values.size, dtype=np.bool_)
    new_run[1:] = (values[1:] != values[:-1]) | (group_of[1:] != group_of[:-1])
    run_start = np.flatnonzero(new_run)
    run_length = np.diff(np.append(run_start, values.size))
    run_group = group_of[run_start]
    longest = np.maximum.reduceat(run_length, np.searchsorted(run_group, np.arange(sizes.size)))
    # The first run of maximal length in each group holds its smallest most frequent value.
    winners = run_start[run_length == longest[run_group]]
    first = np.unique(group_of[winners], return_index=True)[1]
    result: FloatArray = values[winners[first]]
    return result
