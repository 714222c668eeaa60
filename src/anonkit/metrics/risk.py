"""Re-identification risk of a release (probabilities in [0, 1]).

The attacker links on the released quasi-identifiers. Seed 001 names the scenarios
(after El Emam & Dankar 2008): the *prosecutor* knows the target is in the release, the
*journalist* targets any individual of a population the release was drawn from, the
*marketer* tries to re-identify as many records as possible. With ``f_E`` the records of
release class ``E`` and ``F_E`` the population records that class matches, a record of
``E`` is re-identified with probability ``1 / f_E`` (prosecutor) or ``1 / F_E``
(journalist).

The functions take the class sizes of the released records, e.g.
:attr:`Release.kept_sizes <anonkit.metrics.release.Release.kept_sizes>`. Suppressed
records (every quasi-identifier ``*``) carry no quasi-identifier to link on; as in ARX
they are left out, so shares are of the released records. Every function returns 0 for a
release without released records.

Where no population table exists, :func:`population_uniqueness_risk` estimates the share
of the population that is unique from the sample's class sizes with Pitman's model
(Hoshino 2001) or Zayatz's (1991), kept within what the sample makes logically possible
(:func:`possible_population_uniques`); with the population table,
:func:`population_table_uniqueness` counts it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit._arrays import FloatArray, IntArray
from anonkit._frozen import FrozenDict
from anonkit._validation import Interval, check_choice, check_real
from anonkit.exceptions import (
    POPULATION_TABLE,
    DataError,
    ParameterError,
    UnknownColumnError,
    ValuesNotInHierarchyError,
)
from anonkit.metrics.columns import QIColumn
from anonkit.metrics.matching import distinct_rows, match_classes
from anonkit.metrics.release import Release


def _sizes(sizes: npt.ArrayLike, owner: str, parameter: str = "sizes") -> IntArray:
    arr = np.asarray(sizes)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise ParameterError(parameter, owner, "a 1-D array of class sizes", f"shape {arr.shape}")
    out = arr.astype(np.int64)
    if out.size and out.min() < 1:
        raise ParameterError(parameter, owner, "class sizes >= 1", int(out.min()))
    return out


def _population(sizes: IntArray, population_sizes: npt.ArrayLike, owner: str) -> IntArray:
    pop = np.asarray(population_sizes)
    if pop.shape != sizes.shape or (pop.size and pop.dtype.kind not in "iu"):
        raise ParameterError(
            "population_sizes", owner, "one int count per class", f"shape {pop.shape}"
        )
    # A class matches at least its own records: a population that misses them is read as
    # holding them (the release's records are part of the population).
    return np.maximum(pop.astype(np.int64), sizes)


def prosecutor_risk(sizes: npt.ArrayLike) -> float:
    """Highest prosecutor risk ``1 / min_E f_E`` (seed 001; the release's ``1/k``).

    Examples
    --------
    >>> prosecutor_risk([4, 4, 5]), average_prosecutor_risk([4, 4, 5])
    (0.25, 0.23076923076923078)
    """
    s = _sizes(sizes, "prosecutor_risk")
    return 1.0 / float(s.min()) if s.size else 0.0


def average_prosecutor_risk(sizes: npt.ArrayLike) -> float:
    """Average prosecutor risk over records: ``(1/n) sum_E f_E / f_E = n_classes / n``."""
    s = _sizes(sizes, "average_prosecutor_risk")
    return s.size / float(s.sum()) if s.size else 0.0


def journalist_risk(sizes: npt.ArrayLike, population_sizes: npt.ArrayLike) -> float:
    """Highest journalist risk ``1 / min_E F_E`` over the released classes (seed 001).

    ``F_E`` (:func:`population_class_sizes`) counts the population records that class
    ``E`` matches; a class is taken to match at least its own ``f_E`` records.
    """
    s = _sizes(sizes, "journalist_risk")
    if not s.size:
        return 0.0
    return 1.0 / float(_population(s, population_sizes, "journalist_risk").min())


def average_journalist_risk(sizes: npt.ArrayLike, population_sizes: npt.ArrayLike) -> float:
    """Average journalist risk over the released records: ``(1/n) sum_E f_E / F_E``."""
    s = _sizes(sizes, "average_journalist_risk")
    if not s.size:
        return 0.0
    pop = _population(s, population_sizes, "average_journalist_risk")
    return float((s / pop).sum() / s.sum())


def marketer_risk(sizes: npt.ArrayLike, population_sizes: npt.ArrayLike | None = None) -> float:
    """Marketer risk: the expected share of released records re-identified (seed 001).

    ``(1/n) sum_E f_E / F_E`` against a population (El Emam & Dankar 2008); without one the
    release is its own population and this is ``n_classes / n``.

    References
    ----------
    K. El Emam, F. K. Dankar. Protecting privacy using k-anonymity. JAMIA 15(5), 2008.
    """
    s = _sizes(sizes, "marketer_risk")
    if not s.size:
        return 0.0
    if population_sizes is None:
        return s.size / float(s.sum())
    pop = _population(s, population_sizes, "marketer_risk")
    return float((s / pop).sum() / s.sum())


def sample_uniqueness_risk(sizes: npt.ArrayLike) -> float:
    """Share of released records that are alone in their class (sample uniques).

    Examples
    --------
    >>> sample_uniqueness_risk([1, 1, 2]), records_at_risk([1, 1, 2], threshold=0.5)
    (0.5, 0.5)
    """
    s = _sizes(sizes, "sample_uniqueness_risk")
    return float(s[s == 1].sum() / s.sum()) if s.size else 0.0


def records_at_risk(
    sizes: npt.ArrayLike,
    *,
    threshold: float,
    population_sizes: npt.ArrayLike | None = None,
) -> float:
    """Share of released records whose risk is above ``threshold``.

    The risk of a record of class ``E`` is ``1 / f_E`` (prosecutor), or ``1 / F_E`` when
    ``population_sizes`` are given (journalist). ``threshold = 0.2`` counts the records in
    classes smaller than 5.
    """
    check_real(threshold, "threshold", "records_at_risk", low=0, high=1, noun="a number")
    s = _sizes(sizes, "records_at_risk")
    if not s.size:
        return 0.0
    base = s if population_sizes is None else _population(s, population_sizes, "records_at_risk")
    return float(s[1.0 / base > threshold].sum() / s.sum())


#: Risk buckets of :func:`risk_distribution`: (label, lower bound exclusive, upper inclusive).
RISK_BUCKETS: tuple[tuple[str, float, float], ...] = (
    ("(50%, 100%]", 0.5, 1.0),
    ("(20%, 50%]", 0.2, 0.5),
    ("(10%, 20%]", 0.1, 0.2),
    ("(5%, 10%]", 0.05, 0.1),
    ("(1%, 5%]", 0.01, 0.05),
    ("[0%, 1%]", -1.0, 0.01),
)


def risk_distribution(
    sizes: npt.ArrayLike, population_sizes: npt.ArrayLike | None = None
) -> Mapping[str, int]:
    """Released records per risk bucket (:data:`RISK_BUCKETS`), highest risk first.

    Examples
    --------
    >>> dict(risk_distribution([1, 3, 10]))["(20%, 50%]"]
    3
    """
    s = _sizes(sizes, "risk_distribution")
    base = s if population_sizes is None else _population(s, population_sizes, "risk_distribution")
    risk = 1.0 / base if s.size else np.zeros(0)
    out: dict[str, int] = {}
    for label, lo, hi in RISK_BUCKETS:
        sel = (risk > lo) & (risk <= hi)
        out[label] = int(s[sel].sum())
    return FrozenDict(out)


# ------------------------------------------------------------------ population table
def population_class_sizes(release: Release, population: pl.DataFrame) -> IntArray:
    """``F_E``: population records matched by each release class (``release.class_sizes`` order).

    A population record matches a class when each of its quasi-identifier values lies in
    the class's released cell (the release's generalization, local recoding included), so
    with overlapping cells one record can match several classes. The population holds the
    quasi-identifiers in original form; hierarchy values must be in the hierarchies.

    Raises
    ------
    UnknownColumnError
        If a quasi-identifier is not a column of the population.
    """
    missing = [c for c in release.quasi_identifiers if c not in population.columns]
    if missing:
        raise UnknownColumnError(missing, population.columns, POPULATION_TABLE)
    if population.height == 0:
        raise DataError("The population table has no records.")
    pts = [_population_points(col, population) for col in release.columns]
    first, counts = distinct_rows(pts)
    rows, classes = match_classes(release, [p[first] for p in pts])
    return np.bincount(
        classes, weights=counts[rows], minlength=release.class_sizes.shape[0]
    ).astype(np.int64)


def _population_points(column: QIColumn, population: pl.DataFrame) -> FloatArray:
    """The population's values of ``column`` as points; a value outside the column's
    hierarchy is named as the population table's (the sample may hold no such value)."""
    try:
        return column.points(population[column.name])
    except ValuesNotInHierarchyError as err:
        raise ValuesNotInHierarchyError(
            column.name, err.missing, err.count, table=POPULATION_TABLE
        ) from None


def population_table_uniqueness(
    sizes: npt.ArrayLike, population_sizes: npt.ArrayLike, *, population_size: int
) -> float:
    """Share of the population unique on the released quasi-identifiers, counted in a
    population table: the records of the released classes no other population record
    matches (``F_E = 1``), divided by the population size ``N``.

    ``population_sizes`` are the classes' ``F_E`` (:func:`population_class_sizes`); a
    class is taken to match at least its own records, so a class of two or more records
    is never unique. A journalist who finds such a record re-identifies it with certainty;
    this is the count :func:`population_uniqueness_risk` estimates without the table.

    Examples
    --------
    >>> population_table_uniqueness([1, 1, 1, 2], [1, 1, 1, 2], population_size=5)
    0.6
    """
    s = _sizes(sizes, "population_table_uniqueness")
    n = int(s.sum())
    if not Interval(int, max(n, 1)).accepts(population_size):
        raise ParameterError(
            "population_size",
            "population_table_uniqueness",
            f"an int >= the sample size ({n})",
            population_size,
        )
    if not s.size:
        return 0.0
    pop = _population(s, population_sizes, "population_table_uniqueness")
    return int((pop == 1).sum()) / float(population_size)


# -------------------------------------------------------------- population uniqueness
def possible_population_uniques(
    sample_uniques: int, sample_size: int, population_size: int
) -> tuple[int, int]:
    """The fewest and most population uniques a sample makes logically possible.

    Of the ``N`` population records, ``n`` were sampled, ``f1`` of them alone in their
    sample class. A sample class of two or more records is no population unique, so at
    most the ``f1`` sample uniques and the ``N - n`` records left out are; each record
    left out can join at most one sample unique's class, so at least ``f1 - (N - n)``
    sample uniques stay unique. At ``N = n`` the sample is the population: exactly ``f1``.
    Every estimate of :func:`population_uniques` is kept within these bounds.

    Examples
    --------
    >>> possible_population_uniques(1, 41, 41), possible_population_uniques(3, 10, 12)
    ((1, 1), (1, 5))
    """
    left_out = max(population_size - sample_size, 0)
    return max(sample_uniques - left_out, 0), sample_uniques + left_out


def _within(value: float, bounds: tuple[int, int]) -> float:
    return min(max(value, float(bounds[0])), float(bounds[1]))


@dataclass(frozen=True)
class PitmanFit:
    """Maximum-likelihood parameters of Pitman's sampling formula for a sample.

    Attributes
    ----------
    theta, alpha
        The parameters (``0 <= alpha < 1``, ``theta > -alpha``).
    log_likelihood
        At the estimate (up to a constant).
    iterations
        Newton steps taken.
    converged
        Whether the gradient vanished to the tolerance.
    sample_size, sample_uniques
        The fitted sample's records and its classes of size 1 (0 when not known: the
        estimate is then only kept within ``[0, N]``).
    """

    theta: float
    alpha: float
    log_likelihood: float
    iterations: int
    converged: bool
    sample_size: int = 0
    sample_uniques: int = 0

    def population_uniques(self, population_size: int) -> float:
        """Expected population uniques ``Γ(θ+1) / Γ(θ+α) * N^α`` (Hoshino 2001), kept
        within what the sample makes possible (:func:`possible_population_uniques`; a
        population of the sample alone holds exactly its uniques) and within [0, N]."""
        n = float(population_size)
        val = math.exp(
            math.lgamma(self.theta + 1.0)
            - math.lgamma(self.theta + self.alpha)
            + self.alpha * math.log(n)
        )
        val = min(max(val, 0.0), n)
        if self.sample_size:
            bounds = possible_population_uniques(
                self.sample_uniques, self.sample_size, population_size
            )
            val = _within(val, bounds)
        return val


class _PitmanLikelihood:
    """Log-likelihood of Pitman's sampling formula and its derivatives (Hoshino 2001)::

        l(θ, α) = sum_{i=1}^{u-1} log(θ + iα) - sum_{i=1}^{n-1} log(θ + i)
                  + sum_{j>=2} F_j sum_{i=1}^{j-1} log(i - α)

    with ``u`` classes, ``n`` records and ``F_j`` classes of size ``j``; the last sum is
    ``sum_i T_i log(i - α)`` with ``T_i`` the classes larger than ``i``.
    """

    def __init__(self, sizes: IntArray) -> None:
        self.u = int(sizes.size)
        self.n = int(sizes.sum())
        hist = np.bincount(sizes)
        larger = self.u - np.cumsum(hist)  # larger[i]: classes of size > i
        self.i_t = np.arange(1, hist.size - 1, dtype=np.float64)
        self.t = larger[1 : hist.size - 1].astype(np.float64)
        self.i_u = np.arange(1, self.u, dtype=np.float64)
        self.i_n = np.arange(1, self.n, dtype=np.float64)

    def value(self, theta: float, alpha: float) -> float:
        a = theta + self.i_u * alpha
        return float(
            np.log(a).sum()
            - np.log(theta + self.i_n).sum()
            + (self.t * np.log(self.i_t - alpha)).sum()
        )

    def derivatives(self, theta: float, alpha: float) -> tuple[FloatArray, FloatArray]:
        inv = 1.0 / (theta + self.i_u * alpha)
        inv_n = 1.0 / (theta + self.i_n)
        inv_t = 1.0 / (self.i_t - alpha)
        grad = np.array(
            [
                inv.sum() - inv_n.sum(),
                (self.i_u * inv).sum() - (self.t * inv_t).sum(),
            ]
        )
        h_tt = -(inv * inv).sum() + (inv_n * inv_n).sum()
        h_ta = -(self.i_u * inv * inv).sum()
        h_aa = -(self.i_u * self.i_u * inv * inv).sum() - (self.t * inv_t * inv_t).sum()
        return grad, np.array([[h_tt, h_ta], [h_ta, h_aa]])

    def theta_score(self, theta: float, alpha: float) -> float:
        return float((1.0 / (theta + self.i_u * alpha)).sum() - (1.0 / (theta + self.i_n)).sum())


_ALPHA_MIN = 1e-9
_ALPHA_MAX = 1.0 - 1e-9


def _feasible(theta: float, alpha: float) -> bool:
    return _ALPHA_MIN <= alpha <= _ALPHA_MAX and theta + alpha > 0 and math.isfinite(theta)


def fit_pitman(sizes: npt.ArrayLike, *, max_iterations: int = 200) -> PitmanFit:
    """Fit Pitman's sampling formula to class sizes by maximum likelihood (Hoshino 2001).

    Damped Newton–Raphson on ``(θ, α)`` with step halving, kept inside ``0 < α < 1``,
    ``θ > -α``; the start is ``α = (sample uniques) / (classes)`` (the ratio both counts
    grow at under the model) and the ``θ`` solving the likelihood equation for that ``α``.

    Raises
    ------
    ParameterError
        If the sizes hold fewer than two classes, no sample unique, or only uniques (the
        likelihood then has no maximum).

    References
    ----------
    N. Hoshino. Applying Pitman's sampling formula to microdata disclosure risk
    assessment. Journal of Official Statistics 17(4), 2001.
    """
    s = _sizes(sizes, "fit_pitman")
    u, n, f1 = int(s.size), int(s.sum()), int((s == 1).sum())
    if u < 2 or f1 == 0 or u == n:
        raise ParameterError(
            "sizes",
            "fit_pitman",
            "at least two classes, some but not all of size 1",
            f"{u} classes, {f1} of size 1",
        )
    lik = _PitmanLikelihood(s)
    alpha = min(max(f1 / u, 0.05), 0.95)
    theta = _best_theta(lik, alpha, u)
    current = lik.value(theta, alpha)
    converged = False
    iterations = 0
    while iterations < max_iterations:
        iterations += 1
        grad, hess = lik.derivatives(theta, alpha)
        scale = np.array([max(1.0, abs(theta)), 1.0])
        if float(np.abs(grad * scale).max()) < 1e-9 * max(1.0, abs(current)):
            converged = True
            break
        try:
            step = -np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            step = grad
        if float(step @ grad) <= 0:  # not an ascent direction: follow the gradient
            step = grad / max(float(np.abs(grad).max()), 1e-300) * 1e-3 * scale
        t = 1.0
        moved = False
        while t > 1e-14:
            cand_t, cand_a = theta + t * step[0], alpha + t * step[1]
            if _feasible(cand_t, cand_a):
                val = lik.value(cand_t, cand_a)
                if val >= current:
                    moved = True
                    break
            t *= 0.5
        if not moved:
            converged = True  # no better point along the step: a (boundary) maximum
            break
        small = abs(cand_t - theta) <= 1e-12 * max(1.0, abs(theta)) and abs(cand_a - alpha) <= 1e-12
        theta, alpha, current = cand_t, cand_a, val
        if small:
            converged = True
            break
    # Where the maximum lies on α's bound the steps point out of the box and shrink to
    # nothing before θ is at its best for that α: finish θ alone.
    best = _best_theta(lik, alpha, u)
    value = lik.value(best, alpha)
    if value > current:
        theta, current = best, value
    return PitmanFit(float(theta), float(alpha), float(current), iterations, converged, n, f1)


def _best_theta(lik: _PitmanLikelihood, alpha: float, classes: int) -> float:
    """The θ maximizing the likelihood at ``alpha``: bisection on the θ-score (positive
    near θ = -α, negative for large θ)."""
    lo, hi = -alpha + 1e-12, max(1.0, float(classes))
    while lik.theta_score(hi, alpha) > 0 and hi < 1e15:
        hi *= 4.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if lik.theta_score(mid, alpha) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-10 * max(1.0, abs(hi)):
            break
    return 0.5 * (lo + hi)


def _log_binom(a: int, b: int) -> float:
    return math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)


def _log_hypergeom_one(population: int, successes: IntArray, draws: int) -> FloatArray:
    """``log P[X = 1]``, X hypergeometric: ``successes`` of ``population`` marked, ``draws`` drawn.

    One value per (distinct) class size, so a plain loop.
    """
    total = _log_binom(population, draws)
    out = np.full(successes.shape[0], -np.inf)
    for i, j in enumerate(successes.tolist()):
        if j >= 1 and population - j >= draws - 1:
            out[i] = math.log(j) + _log_binom(population - j, draws - 1) - total
    return out


PopulationModel = Literal["pitman", "zayatz"]


def population_uniques(
    sizes: npt.ArrayLike, *, population_size: int, model: PopulationModel = "pitman"
) -> float:
    """Estimated number of population records unique on the released quasi-identifiers.

    ``sizes`` are the sample's (the release's) class sizes, ``population_size`` the size
    ``N`` of the population the sample was drawn from (simple random sampling).

    * ``"pitman"`` (Hoshino 2001): fit :func:`fit_pitman`, then ``Γ(θ+1)/Γ(θ+α) N^α``.
      Suited to small sampling fractions (Dankar et al. 2012 use it up to 10%).
    * ``"zayatz"`` (Zayatz 1991): the sample's class-size distribution stands for the
      population's; ``P(population unique | sample unique) = F_1 h(1) / sum_j F_j h(j)``
      with ``h(j)`` the hypergeometric probability that a population class of size ``j``
      leaves exactly one record in the sample; the estimate is
      ``F_1 P(...) / (n / N)``.

    Without sample uniques the estimate is 0 (nothing in the release is unique, as ARX
    reports); when every sample record is unique it is ``N`` under Pitman's model (its
    likelihood grows towards ``α = 1``). Every model's estimate is kept within what the
    sample makes logically possible (:func:`possible_population_uniques`): no more than
    the sample uniques plus the ``N - n`` records left out, no fewer than the sample
    uniques minus those, so exactly the sample uniques when ``N = n``.

    References
    ----------
    N. Hoshino. Applying Pitman's sampling formula to microdata disclosure risk
    assessment. Journal of Official Statistics 17(4), 2001.
    L. Zayatz. Estimation of the percent of unique population elements on a microdata
    file using the sample. Statistical Research Division Report 91/08, US Census Bureau,
    1991.
    F. K. Dankar, K. El Emam, A. Neisa, T. Roffey. Estimating the re-identification risk of
    clinical data sets. BMC Medical Informatics and Decision Making 12:66, 2012.
    """
    s = _sizes(sizes, "population_uniques")
    n = int(s.sum())
    if not Interval(int, max(n, 1)).accepts(population_size):
        raise ParameterError(
            "population_size",
            "population_uniques",
            f"an int >= the sample size ({n})",
            population_size,
        )
    check_choice(model, "model", "population_uniques", ("pitman", "zayatz"))
    f1 = int((s == 1).sum())
    if f1 == 0:
        return 0.0
    big_n = int(population_size)
    return _within(_model_uniques(s, f1, big_n, model), possible_population_uniques(f1, n, big_n))


def _model_uniques(s: IntArray, f1: int, big_n: int, model: PopulationModel) -> float:
    """``model``'s own estimate of the population uniques (``f1 >= 1`` sample uniques)."""
    n = int(s.sum())
    if model == "pitman":
        if s.size == n:
            return float(big_n)
        if s.size < 2:  # pragma: no cover - one class of size 1 means s.size == n
            return float(big_n)
        return fit_pitman(s).population_uniques(big_n)
    # Zayatz
    values, freq = np.unique(s, return_counts=True)
    log_h = _log_hypergeom_one(big_n, values.astype(np.int64), n)
    top = float(log_h.max())
    weights = freq * np.exp(log_h - top)
    total = float(weights.sum())
    if total <= 0:
        return 0.0
    p_cond = float(weights[values == 1].sum()) / total
    return min(f1 * p_cond * big_n / n, float(big_n))


def population_uniqueness_risk(
    sizes: npt.ArrayLike, *, population_size: int, model: PopulationModel = "pitman"
) -> float:
    """Estimated share of the population unique on the released quasi-identifiers.

    :func:`population_uniques` divided by ``population_size``. A population unique
    found in the release is re-identified with certainty by a journalist, so this is a
    model-based stand-in for journalist risk when no population table exists.

    Examples
    --------
    >>> sizes = [1] * 40 + [2] * 20 + [3] * 10 + [5] * 6
    >>> 0.0 < population_uniqueness_risk(sizes, population_size=10_000) < 1.0
    True
    >>> population_uniqueness_risk([2, 3], population_size=100)
    0.0
    """
    return population_uniques(sizes, population_size=population_size, model=model) / float(
        population_size
    )
