"""Small statistics for the study analysis: ranks, Pearson and Spearman correlations and
their confidence intervals (Fisher's z over pooled rows, Student's t over folds).

Plain numpy and :mod:`math`, no scipy: the t quantile is found by bisection on the exact
two-sided coverage of Student's distribution.

References
----------
E. C. Fieller, H. O. Hartley, E. S. Pearson. Tests for rank correlation coefficients. I.
Biometrika 44 (1957) (the 1.06 variance factor of Spearman's z).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from anonkit._arrays import FloatArray

__all__ = [
    "average_ranks",
    "fisher_interval",
    "fold_interval",
    "mean_finite",
    "pearson",
    "spearman",
    "t_quantile",
]


def average_ranks(x: FloatArray) -> FloatArray:
    """Ranks 1 … n, ties sharing the average of the ranks they span."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    new = np.empty(xs.size, dtype=bool)
    new[:1] = True
    np.not_equal(xs[1:], xs[:-1], out=new[1:])
    run = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], xs.size)
    ranks = np.empty(x.size, dtype=np.float64)
    ranks[order] = ((starts + ends + 1) / 2.0)[run]
    return ranks


def pearson(x: FloatArray, y: FloatArray) -> float:
    """Pearson's r; NaN when either side is constant or there are fewer than 2 pairs."""
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    dx = x - x.mean()
    dy = y - y.mean()
    denominator = math.sqrt(float(dx @ dx) * float(dy @ dy))
    if denominator == 0.0:
        return math.nan
    return max(-1.0, min(1.0, float(dx @ dy) / denominator))


def spearman(x: FloatArray, y: FloatArray) -> float:
    """Spearman's rho: Pearson's r of the average ranks."""
    if x.size < 2:
        return math.nan
    return pearson(average_ranks(x), average_ranks(y))


def _t_two_sided_coverage(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with an integer ``df`` (Abramowitz & Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    s = math.sin(theta)
    if df % 2 == 1:
        if df == 1:
            return 2.0 * theta / math.pi
        term = total = math.cos(theta)
        for i in range(1, (df - 3) // 2 + 1):
            term *= c2 * (2 * i) / (2 * i + 1)
            total += term
        return 2.0 / math.pi * (theta + s * total)
    term = total = 1.0
    for i in range(1, (df - 2) // 2 + 1):
        term *= c2 * (2 * i - 1) / (2 * i)
        total += term
    return s * total


def t_quantile(confidence: float, df: int) -> float:
    """The t with P(|T| <= t) = ``confidence`` (two-sided critical value), by bisection."""
    low, high = 0.0, 1.0
    while _t_two_sided_coverage(high, df) < confidence:
        low, high = high, high * 2.0
    for _ in range(200):
        mid = (low + high) / 2.0
        if _t_two_sided_coverage(mid, df) < confidence:
            low = mid
        else:
            high = mid
        if high - low <= 1e-14 * high:
            break
    return (low + high) / 2.0


def fisher_interval(r: float, n: int, factor: float, z: float) -> tuple[float, float]:
    """Fisher z-transform interval: tanh(atanh r ± z sqrt(factor / (n - 3)))."""
    if not math.isfinite(r) or n <= 3:
        return math.nan, math.nan
    if abs(r) >= 1.0:
        return r, r
    centre = math.atanh(r)
    half = z * math.sqrt(factor / (n - 3))
    return math.tanh(centre - half), math.tanh(centre + half)


def fold_interval(values: Sequence[float], t_crit: dict[int, float]) -> tuple[float, float]:
    """Mean ± t_{m-1} s / sqrt(m) of the finite per-fold correlations, clipped to [-1, 1]."""
    finite = np.array([v for v in values if math.isfinite(v)], dtype=np.float64)
    m = finite.size
    if m < 2:
        return math.nan, math.nan
    mean = float(finite.mean())
    half = t_crit[m - 1] * float(finite.std(ddof=1)) / math.sqrt(m)
    return max(-1.0, mean - half), min(1.0, mean + half)


def mean_finite(values: Sequence[float]) -> float:
    finite = [v for v in values if math.isfinite(v)]
    return sum(finite) / len(finite) if finite else math.nan
