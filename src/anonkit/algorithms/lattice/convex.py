"""How many records of a node's classes must be suppressed at every finer node.

A generalization merges classes, so a class ``C`` of a node is the union of classes of any
finer node. For the models below the set of class distributions that *satisfy* the model is
convex: then the records of ``C`` that lie in satisfying finer classes, taken together, have
a satisfying distribution. They form a sub-multiset ``mu <= C`` (value by value), so if
``m*`` is the largest size of any satisfying ``mu <= C``, at least ``|C| - m*`` records of
``C`` lie in violating finer classes and are suppressed there. This module bounds ``m*``
from above per model (the *capped* bounds, exact or nearly so):

* t-closeness. Every EMD used here is a weighted sum over groups ``g`` of values (equal
  distance: the single values; ordered distance: the prefixes and suffixes of the order;
  hierarchical distance: the nodes below the root, each weighing ``1 / H``) of the mass the
  class lacks in the group: ``EMD(Q) = sum_g w_g (P_g - Q_g)^+`` for a distribution ``Q``
  and the table distribution ``P``. A satisfying ``mu`` of size ``m`` has ``Q = mu / m <=
  C / m``, so ``sum_g w_g (P_g - C_g / m)^+ <= t``. The left side is convex in ``1 / m``
  and grows with ``m``; Newton steps approach the largest ``m`` meeting it from above, each
  step a valid bound. (For equal distance that largest ``m`` is exactly ``m*``.)
* entropy ℓ-diversity: among the ``mu <= C`` of a given size the most even one caps every
  count at a common level ``theta``, and its entropy falls as ``theta`` rises; ``m*`` is the
  size at the largest ``theta`` whose capped class has entropy ``>= ln ℓ``, bracketed between
  the class's own counts and narrowed by bisection (keeping the upper end).
* recursive (c, ℓ)-diversity: if ``mu`` satisfies ``r_1 <= c (r_ℓ + ... + r_m)``, so does
  ``min(C, max mu)``, which holds ``mu``; ``m*`` is the largest capped class meeting it,
  solved in closed form between the class's counts.
* k-anonymity, distinct ℓ-diversity, k-map: every finer class of a violating class
  violates too (``|C| - m* = |C|``).

The earlier, weaker convexity bounds (the EMD, entropy and recursive statistic of ``C``
against their worst case) are kept as a floor, so the bound never drops below them.

The sum over a node's classes is therefore a lower bound on the records suppressed at
every node *below* it. When it exceeds the suppression limit, those nodes cannot be
private, even for models that are not monotone under suppression. Models not covered here
contribute nothing, which keeps the bound valid.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from anonkit._arrays import BoolArray, FloatArray
from anonkit.models._common import IdentityMemo, exceeds, reaches
from anonkit.models.base import ClassSummary, PrivacyModel, SensitiveColumn
from anonkit.models.judge import table_violations
from anonkit.models.k_anonymity import KAnonymity
from anonkit.models.l_diversity import (
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
    class_entropy,
    top_and_tail,
)
from anonkit.models.population import KMap
from anonkit.models.t_closeness import (
    EqualDistanceTCloseness,
    HierarchicalTCloseness,
    OrderedDistanceTCloseness,
    deficit_emd,
    deficit_groups,
    equal_emd,
    group_shares,
    hierarchical_emd,
    ordered_emd,
)


def _emd(model: PrivacyModel, column: SensitiveColumn) -> FloatArray | None:
    if isinstance(model, EqualDistanceTCloseness):
        return equal_emd(column)
    if isinstance(model, OrderedDistanceTCloseness):
        return ordered_emd(column, model.order)
    if isinstance(model, HierarchicalTCloseness):
        return hierarchical_emd(column, model.hierarchy)
    return None


_LARGEST = IdentityMemo()


def largest_emd(model: PrivacyModel, column: SensitiveColumn) -> float:
    """The largest EMD any class can have: a class holding a single value (memoized per
    model and table distribution, which stay the same throughout a search)."""

    def compute() -> float:
        nv = len(column.labels)
        single = SensitiveColumn(
            column.name, column.labels, np.eye(nv, dtype=np.int64), column.totals, column.hierarchy
        )
        emd = _emd(model, single)
        assert emd is not None
        return float(emd.max()) if emd.size else 0.0

    return _LARGEST.get((model, column.totals), compute)


_T_CLOSENESS = (EqualDistanceTCloseness, OrderedDistanceTCloseness, HierarchicalTCloseness)
#: Models whose bound is a share in (0, 1) of the class (not all-or-nothing).
_PARTIAL = (EntropyLDiversity, RecursiveCLDiversity, *_T_CLOSENESS)


# ------------------------------------------------------------------ the capped bounds
def _groups(model: PrivacyModel, column: SensitiveColumn) -> tuple[FloatArray, FloatArray]:
    if isinstance(model, EqualDistanceTCloseness):
        return deficit_groups(column, "equal")
    if isinstance(model, OrderedDistanceTCloseness):
        return deficit_groups(column, "ordered", order=model.order)
    assert isinstance(model, HierarchicalTCloseness)
    return deficit_groups(column, "hierarchical", hierarchy=model.hierarchy)


def _open_rows(
    bad: BoolArray,
    share: FloatArray,
    sizes: npt.NDArray[np.int64],
    within: BoolArray | None = None,
    histogram: npt.NDArray[np.int64] | None = None,
    need: int = 0,
) -> npt.NDArray[np.intp]:
    """The violating classes (in ``within``, when given) whose capped bound may add a
    record to ``share`` (updated in place): not those whose every record is already
    counted (single records among them). With ``histogram`` and ``need``, a class with
    fewer than ``need`` distinct values (ℓ-diversity: every part of it has fewer too) gets
    share 1 without further work."""
    open_ = bad & (share * sizes < sizes - 1.0 + 1e-9)
    if within is not None:
        open_ &= within
    rows = np.flatnonzero(open_)
    if histogram is not None and need > 1 and rows.size:
        few = np.count_nonzero(histogram[rows], axis=1) < need
        share[rows[few]] = 1.0
        rows = rows[~few]
    return rows


def _suffix_sums(values: FloatArray) -> FloatArray:
    """Per row, the sum of each entry and every entry after it."""
    out: FloatArray = np.cumsum(values[:, ::-1], axis=1)[:, ::-1]
    return out


def _after(suffix: FloatArray) -> FloatArray:
    """From suffix sums (entry on), the sums strictly after each entry."""
    out = np.zeros_like(suffix)
    out[:, :-1] = suffix[:, 1:]
    return out


def emd_capped_share(
    class_share: FloatArray,
    table: FloatArray,
    weights: FloatArray,
    t: float,
    steps: int = 3,
) -> FloatArray:
    """Per class, a lower bound on the share of its records in classes that are not t-close
    at every finer node (the t-closeness case of the module notes).

    ``class_share`` is ``(n, G)``: each class's share in each group of
    :func:`~anonkit.models.t_closeness.deficit_groups`; ``table`` the table's share per
    group and ``weights`` the groups' weights. A satisfying part holding a share ``m`` of
    the class needs ``d(u) = sum_g w_g (P_g - C_g u)^+ <= t`` with ``u = 1 / m``. ``d`` is
    convex and falls with ``u``, so Newton steps from ``u = 1`` approach the least such
    ``u`` from below and every step gives a valid bound ``1 - 1 / u`` (each kink of ``d``
    crossed takes one step; ``steps`` of them are taken). When ``d`` stays above ``t`` for
    every ``u`` (the groups still short hold none of the class) the share is 1.

    Examples
    --------
    A class holding only a value the table has 30 % of, t = 0.2 (equal distance):
    a t-close part would need 50 % of the other value, which the class lacks.

    >>> emd_capped_share(np.array([[1.0, 0.0]]), np.array([0.3, 0.7]), np.ones(2), 0.2)
    array([1.])

    Shares 60/40 against the table's 30/70: a t-close part needs at least 50 % of the
    second value, so it keeps at most 0.4 / 0.5 = 80 % of the class.

    >>> share = np.array([[0.6, 0.4]])
    >>> emd_capped_share(share, np.array([0.3, 0.7]), np.ones(2), 0.2).round(6).tolist()
    [0.2]
    """
    n, n_groups = class_share.shape
    if n_groups == 0 or n == 0:
        return np.zeros(n)
    limit = t + 1e-9 * max(1.0, abs(t))  # as permissive as the models' own comparison
    wp = weights * table
    wc = class_share * weights
    u = np.ones(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(steps):
            # d(u) = A - u B over the groups still short of their table share at u; the
            # Newton step lands at (A - t) / B. B = 0 with A > t: d never reaches t (u = inf)
            short = (table > class_share * u[:, None]).astype(np.float64)
            above = short @ wp - limit
            slope = np.einsum("ij,ij->i", short, wc)
            u = np.fmax(u, above / slope)
    out: FloatArray = 1.0 - 1.0 / u
    return out


def _descending(histogram: npt.NDArray[np.int64]) -> FloatArray:
    out: FloatArray = -np.sort(-np.asarray(histogram, dtype=np.float64), axis=1)
    return out


def entropy_capped_share(
    histogram: npt.NDArray[np.int64], target: float, steps: int = 8
) -> FloatArray:
    """Per class (rows of ``histogram``), a lower bound on the share of its records in
    classes whose entropy is below ``target`` (``ln l``) at every finer node.

    The most even part of a class capping every count at ``theta`` has entropy falling in
    ``theta``; the largest satisfying ``theta`` lies between two of the class's sorted counts
    (found at once) and is narrowed by ``steps`` bisections, keeping the upper end so that
    the size, and the bound, stay on the safe side.

    Examples
    --------
    Counts 9 and 1 with ℓ = 2: at most 1 + 1 records can be 2-diverse, so 8 of 10 go
    (the bisection stops just below 0.8, on the safe side).

    >>> entropy_capped_share(np.array([[9, 1]]), float(np.log(2))).round(2).tolist()
    [0.8]
    """
    counts = _descending(histogram)
    n, v = counts.shape
    sizes = counts.sum(axis=1)
    xlogx = counts * np.log(np.where(counts > 0, counts, 1.0))
    rest, rest_x = _after(_suffix_sums(counts)), _after(_suffix_sums(xlogx))
    capped = np.arange(1, v + 1, dtype=np.float64)[None, :]
    # capping at the j-th count: the first j counts equal it, the rest stay
    mass = capped * counts + rest
    safe = np.where(mass > 0, mass, 1.0)
    entropy = np.log(safe) - (capped * xlogx + rest_x) / safe
    goal = target - 1e-9 * max(1.0, abs(target))
    ok = (entropy >= goal) & (counts > 0)
    found = ok.any(axis=1)
    j = ok.argmax(axis=1)  # the entropy rises with j: the first j that meets the target
    rows = np.arange(n)
    upper = np.maximum(j - 1, 0)
    lo, hi = counts[rows, j], counts[rows, upper]
    n_capped = j.astype(np.float64)  # between the two counts, j counts are capped
    base, base_x = rest[rows, upper], rest_x[rows, upper]
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        size = n_capped * mid + base
        safe_size = np.where(size > 0, size, 1.0)
        h = np.log(safe_size) - (n_capped * mid * np.log(np.maximum(mid, 1e-300)) + base_x) / (
            safe_size
        )
        good = h >= goal
        lo, hi = np.where(good, mid, lo), np.where(good, hi, mid)
    kept = np.where(j == 0, sizes, n_capped * hi + base)
    out: FloatArray = np.where(found, np.clip(1.0 - kept / np.maximum(sizes, 1.0), 0.0, 1.0), 1.0)
    return out


def recursive_capped_share(histogram: npt.NDArray[np.int64], c: float, l: int) -> FloatArray:  # noqa: E741
    """Per class (rows of ``histogram``), a lower bound on the share of its records in
    classes that are not recursive (c, l)-diverse at every finer node.

    With the counts sorted, ``r_1 >= ... >= r_m``, capping the first ``J`` at ``theta`` (in
    ``[r_{J+1}, r_J]``) keeps ``J theta + r_{J+1} + ... + r_m`` records, with top count
    ``theta`` and tail ``(J - l + 1) theta + r_{J+1} + ... + r_m`` when ``J >= l`` (else the
    class's own tail from ``r_l``); ``theta <= c * tail`` is solved per ``J`` and the largest
    kept size wins.

    Examples
    --------
    Counts 6, 2, 1, 1 with (c, l) = (2, 3): capping 6 at 4 keeps 8 of 10.

    >>> recursive_capped_share(np.array([[6, 2, 1, 1]]), 2.0, 3).round(6).tolist()
    [0.2]
    """
    counts = _descending(histogram)
    n, v = counts.shape
    sizes = counts.sum(axis=1)
    if n == 0:
        return np.zeros(0)
    rest = _after(_suffix_sums(counts))
    following = np.zeros_like(counts)
    following[:, :-1] = counts[:, 1:]
    n_capped = np.arange(1, v + 1, dtype=np.float64)[None, :]
    # J < l: the tail is the class's own r_l + ... + r_m
    own_tail = rest[:, l - 2] if 2 <= l <= v else np.zeros(n)
    theta = np.minimum(counts, (c * own_tail)[:, None] * (1.0 + 1e-12))
    coef = c * (n_capped - l + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        solved = np.where(coef < 1.0, c * rest / (1.0 - coef) * (1.0 + 1e-12), np.inf)
    theta = np.where(n_capped >= l, np.minimum(counts, solved), theta)
    feasible = theta >= following * (1.0 - 1e-12)
    kept = np.where(feasible, n_capped * theta + rest, 0.0).max(axis=1)
    out: FloatArray = np.clip(1.0 - kept / np.maximum(sizes, 1.0), 0.0, 1.0)
    return out


def has_share_bound(model: PrivacyModel) -> bool:
    """Whether :func:`violating_shares` gives a fractional bound for ``model`` from
    sensitive histograms alone."""
    return isinstance(model, _PARTIAL)


#: Raises a share array (in place) to the capped bounds of the classes still open, or of
#: those of them in the optional mask.
Refine = Callable[[FloatArray, "BoolArray | None"], None]


def _judged(
    model: PrivacyModel, summary: ClassSummary
) -> tuple[BoolArray, FloatArray | None, Refine | None]:
    """Per class: does ``model`` reject it, the least share of its records in violating
    classes at any finer node from the plain convexity bound (``None`` when nothing is
    known), and how to raise shares to the capped bound (``None`` when there is none).

    For the models with a fractional share, the statistic behind the verdict (entropy,
    top and tail counts, EMD) is computed once and the verdict uses the model's own
    comparison, so it equals ``model.violations(summary)``. The capped bound costs more
    and is left to the caller, who may not need it (see :func:`judge_classes`).
    """
    sizes = summary.sizes
    if isinstance(model, EntropyLDiversity):
        target = math.log(float(model.l))
        histogram = summary.sensitive[model.attribute].histogram
        entropy = class_entropy(histogram)
        bad = exceeds(target, entropy)
        if target <= 0:
            return bad, np.zeros(sizes.shape[0]), None
        need = math.ceil(float(model.l) - 1e-9)

        def entropy_refine(share: FloatArray, within: BoolArray | None = None) -> None:
            rows = _open_rows(bad, share, sizes, within, histogram, need)
            if rows.size:
                capped = entropy_capped_share(histogram[rows], target)
                share[rows] = np.maximum(share[rows], capped)

        plain = np.where(bad, np.clip(1.0 - entropy / target, 0.0, 1.0), 0.0)
        return bad, plain, entropy_refine
    if isinstance(model, RecursiveCLDiversity):
        histogram = summary.sensitive[model.attribute].histogram
        c, l = float(model.c), model.l  # noqa: E741
        top, tail = top_and_tail(histogram, l)
        bad = reaches(top, c * tail)

        def recursive_refine(share: FloatArray, within: BoolArray | None = None) -> None:
            rows = _open_rows(bad, share, sizes, within, histogram, l)
            if rows.size:
                capped = recursive_capped_share(histogram[rows], c, l)
                share[rows] = np.maximum(share[rows], capped)

        excess = (top - c * tail) / np.maximum(sizes, 1)
        return bad, np.where(bad, np.clip(excess, 0.0, 1.0), 0.0), recursive_refine
    if isinstance(model, _T_CLOSENESS):
        column = summary.sensitive[model.attribute]
        groups, weights = _groups(model, column)
        parts = None
        emd: FloatArray | None
        if isinstance(model, HierarchicalTCloseness):
            # hierarchical_emd's own steps, keeping the class shares for the capped bound
            parts = group_shares(column.histogram, column.totals, groups)
            emd = deficit_emd(*parts, weights)
        else:
            emd = _emd(model, column)
        assert emd is not None
        t = float(model.t)
        bad = exceeds(emd, t)
        largest = largest_emd(model, column)
        if largest <= t:
            return bad, np.zeros(sizes.shape[0]), None

        def emd_refine(share: FloatArray, within: BoolArray | None = None) -> None:
            rows = _open_rows(bad, share, sizes, within)
            if rows.size:
                if parts is not None:
                    class_share, table = parts[0][rows], parts[1]
                else:
                    class_share, table = group_shares(column.histogram[rows], column.totals, groups)
                capped = emd_capped_share(class_share, table, weights, t)
                share[rows] = np.maximum(share[rows], capped)

        plain = np.where(bad, np.clip((emd - t) / (largest - t), 0.0, 1.0), 0.0)
        return bad, plain, emd_refine
    bad = np.asarray(model.violations(summary), dtype=bool)
    if isinstance(model, KAnonymity):
        return bad, (sizes < model.k).astype(np.float64), None
    if isinstance(model, KMap) and summary.population is not None:
        return bad, (summary.population < model.k).astype(np.float64), None
    if isinstance(model, DistinctLDiversity):
        return bad, bad.astype(np.float64), None
    return bad, None, None


def violating_shares(model: PrivacyModel, summary: ClassSummary) -> FloatArray | None:
    """Per class, the least share of its records in violating classes at any finer node
    (the capped bound where there is one).

    ``None`` when nothing is known for this model.
    """
    _, share, refine = _judged(model, summary)
    if share is not None and refine is not None:
        refine(share, None)
    return share


def judge_classes(
    models: Sequence[PrivacyModel], summary: ClassSummary, limit: float = math.inf
) -> tuple[BoolArray, float]:
    """The classes any model rejects, and :func:`records_suppressed_below`, computing
    each model's statistic once.

    The capped bounds are computed only while the plain ones force at most ``limit``
    records: beyond it the caller learns all it needs (the bound returned then is the
    plain one, still above ``limit``).
    """
    mask, best, refines = _plain_bounds(models, summary)
    forced = float(_whole_records(best, summary.sizes).sum())
    if refines and forced <= limit:
        for refine in refines:
            refine(best, None)
        forced = float(_whole_records(best, summary.sizes).sum())
    return mask, forced


def _plain_bounds(
    models: Sequence[PrivacyModel], summary: ClassSummary
) -> tuple[BoolArray, FloatArray, list[Refine]]:
    """The classes any model rejects, per class the largest plain share any model forces
    (the violating records of different models may coincide, so shares are not added),
    and each model's way to raise shares to its capped bound."""
    mask = np.zeros(summary.n_classes, dtype=bool)
    best = np.zeros(summary.n_classes)
    refines: list[Refine] = []
    for model in models:
        if not model.class_local:  # judged below, on the classes the others keep
            continue
        bad, share, refine = _judged(model, summary)
        mask |= bad
        if share is not None:
            np.maximum(best, share, out=best)
        if refine is not None:
            refines.append(refine)
    return table_violations(models, summary, mask), best, refines


def _whole_records(share: FloatArray, sizes: npt.NDArray[np.int64]) -> FloatArray:
    # a share is a real lower bound on a count of whole records: round up, with slack
    out: FloatArray = np.ceil(share * sizes - 1e-9)
    return out


def forced_per_class(models: Sequence[PrivacyModel], summary: ClassSummary) -> FloatArray:
    """Per class, a lower bound on its records suppressed at every finer node.

    The largest share any model forces (the violating records of different models may
    coincide, so the shares are not added), times the class size, rounded up.
    """
    plain, refine = staged_forced(models, summary)
    return refine(None) if refine is not None else plain


def staged_forced(
    models: Sequence[PrivacyModel], summary: ClassSummary
) -> tuple[FloatArray, Callable[[BoolArray | None], FloatArray] | None]:
    """:func:`forced_per_class` in two stages: the records the plain convexity bounds
    force per class, and (``None`` when no model has one) a function giving the capped
    bounds for the classes in a mask (all with ``None``), the plain ones elsewhere."""
    _, best, refines = _plain_bounds(models, summary)
    plain = _whole_records(best, summary.sizes)
    if not refines:
        return plain, None

    def capped(within: BoolArray | None) -> FloatArray:
        raised = best.copy()
        for refine in refines:  # after the plain bounds: fewer classes are left open
            refine(raised, within)
        return _whole_records(raised, summary.sizes)

    return plain, capped


def records_suppressed_below(models: Sequence[PrivacyModel], summary: ClassSummary) -> float:
    """A lower bound on the records suppressed at every node finer than this one: the
    sum over classes of :func:`forced_per_class`."""
    return float(forced_per_class(models, summary).sum())
