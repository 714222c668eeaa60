"""Ranks and rank agreement, as the paper's tables of Mauger et al. (2020) use them.

* Ranks are competition ranks (``1 2 2 4``: ties share the best rank) of values rounded
  half-up to whole numbers, the precision the paper prints; the paper's tables rank the
  same way (e.g. Figure 6, row *distortion*: four optimizations at 2 % share rank 1, the
  next is rank 5).
* Rank agreement is Spearman's rho (ties get average ranks; NaN when a row is constant).

The paper's full reference is in :mod:`anonkit.study.mauger2020`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from anonkit.exceptions import ParameterError

__all__ = ["competition_ranks", "round_half_up", "spearman"]


def round_half_up(value: float, decimals: int = 0) -> float:
    """Round half-up (``2.5 -> 3``), as the paper's printed percentages are rounded.

    Examples
    --------
    >>> round_half_up(2.5), round_half_up(0.125, 2)
    (3.0, 0.13)
    """
    scale = 10.0**decimals
    return math.floor(value * scale + 0.5) / scale


def competition_ranks(values: Sequence[float], *, decimals: int | None = 0) -> tuple[int, ...]:
    """Competition ranks, 1 for the smallest value; ties share the best rank (``1 2 2 4``).

    Parameters
    ----------
    values
        The values to rank (NaN ranks last).
    decimals
        Round half-up to this many decimals before ranking (the paper ranks its printed
        whole percentages); ``None`` ranks the values as they are.

    Examples
    --------
    >>> competition_ranks([2.4, 2.1, 3.0, 1.6])
    (1, 1, 4, 1)
    >>> competition_ranks([2.4, 2.1, 3.0, 1.6], decimals=None)
    (3, 2, 4, 1)
    """
    shown = [
        math.inf
        if math.isnan(v)
        else (float(v) if decimals is None else round_half_up(float(v), decimals))
        for v in values
    ]
    return tuple(1 + sum(other < x for other in shown) for x in shown)


def _average_ranks(values: Sequence[float]) -> npt.NDArray[np.float64]:
    arr = np.asarray(values, dtype=np.float64)
    order = np.argsort(arr, kind="stable")
    ranks = np.empty(arr.shape[0], dtype=np.float64)
    sorted_vals = arr[order]
    i = 0
    while i < arr.shape[0]:
        j = i
        while j + 1 < arr.shape[0] and sorted_vals[j + 1] == sorted_vals[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation of two equally long sequences (ties: average ranks).

    NaN when fewer than two values, when either sequence holds NaN or is constant.

    Examples
    --------
    >>> spearman([1, 2, 3, 4], [10, 20, 30, 40])
    1.0
    >>> spearman([1, 2, 3], [3, 2, 1])
    -1.0
    """
    if len(a) != len(b):
        raise ParameterError("b", "spearman", f"a sequence of length {len(a)}", len(b))
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape[0] < 2 or np.isnan(x).any() or np.isnan(y).any():
        return math.nan
    rx = _average_ranks(x.tolist())
    ry = _average_ranks(y.tolist())
    rx -= rx.mean()
    ry -= ry.mean()
    denom = math.sqrt(float((rx**2).sum()) * float((ry**2).sum()))
    if denom == 0.0:
        return math.nan
    return round(float((rx * ry).sum()) / denom, 12)
