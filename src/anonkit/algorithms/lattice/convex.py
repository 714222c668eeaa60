"""How many records of a node's classes must be suppressed at every finer node.

A generalization merges classes, so a class ``C`` of a node is the union of classes of any
finer node. For many models the set of class distributions that *satisfy* the model is
convex: then the part of ``C`` that lies in satisfying finer classes has a satisfying
distribution, and the records in violating finer classes must make up the difference.

* t-closeness (any EMD ground distance): the EMD to the table distribution is convex in
  the class distribution. If a share ``w`` of ``C`` sits in violating finer classes, whose
  EMD is at most ``D`` (the largest EMD of any distribution, reached at a single value),
  then ``EMD(C) <= (1 - w) t + w D``, so ``w >= (EMD(C) - t) / (D - t)``.
* entropy ℓ-diversity: entropy is concave, so ``H(C) >= (1 - w) ln ℓ`` and
  ``w >= 1 - H(C) / ln ℓ``.
* recursive (c, ℓ)-diversity: on value shares ``p`` (sorted descending), a class
  satisfies it when ``f(p) = p_1 - c (p_ℓ + ... + p_m) < 0``. ``p_1`` is convex and the
  tail is one minus the (convex) sum of the ``ℓ - 1`` largest shares, so ``f`` is convex,
  at most 1 (a single value), and ``f(C) < (1 - w) * 0 + w * 1``: ``w >= f(C)``.
* k-anonymity, distinct ℓ-diversity, k-map: every finer class of a violating class
  violates too (``w = 1``).

The sum over a node's classes is therefore a lower bound on the records suppressed at
every node *below* it. When it exceeds the suppression limit, those nodes cannot be
private, even for models that are not monotone under suppression. Models not covered here
contribute nothing, which keeps the bound valid.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from anonkit.models._common import exceeds, reaches
from anonkit.models.base import ClassSummary, PrivacyModel, SensitiveColumn
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
    equal_emd,
    hierarchical_emd,
    ordered_emd,
)

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


def _emd(model: PrivacyModel, column: SensitiveColumn) -> FloatArray | None:
    if isinstance(model, EqualDistanceTCloseness):
        return equal_emd(column)
    if isinstance(model, OrderedDistanceTCloseness):
        return ordered_emd(column, model.order)
    if isinstance(model, HierarchicalTCloseness):
        return hierarchical_emd(column, model.hierarchy)
    return None


_LARGEST: dict[tuple[int, int], tuple[PrivacyModel, npt.NDArray[np.int64], float]] = {}


def _largest_emd(model: PrivacyModel, column: SensitiveColumn) -> float:
    """The largest EMD any class can have: a class holding a single value (memoized per
    model and table distribution, which stay the same throughout a search)."""
    key = (id(model), id(column.totals))
    hit = _LARGEST.get(key)
    if hit is not None and hit[0] is model and hit[1] is column.totals:
        return hit[2]
    nv = len(column.labels)
    single = SensitiveColumn(
        column.name, column.labels, np.eye(nv, dtype=np.int64), column.totals, column.hierarchy
    )
    emd = _emd(model, single)
    assert emd is not None
    top = float(emd.max()) if emd.size else 0.0
    if len(_LARGEST) > 64:
        _LARGEST.clear()
    _LARGEST[key] = (model, column.totals, top)
    return top


_T_CLOSENESS = (EqualDistanceTCloseness, OrderedDistanceTCloseness, HierarchicalTCloseness)
#: Models whose bound is a share in (0, 1) of the class (not all-or-nothing).
_PARTIAL = (EntropyLDiversity, RecursiveCLDiversity, *_T_CLOSENESS)


def has_share_bound(model: PrivacyModel) -> bool:
    """Whether :func:`violating_shares` gives a fractional bound for ``model`` from
    sensitive histograms alone."""
    return isinstance(model, _PARTIAL)


def _judged(model: PrivacyModel, summary: ClassSummary) -> tuple[BoolArray, FloatArray | None]:
    """Per class: does ``model`` reject it, and the least share of its records in
    violating classes at any finer node (``None`` when nothing is known).

    For the models with a fractional share, the statistic behind the verdict (entropy,
    top and tail counts, EMD) is computed once and the verdict uses the model's own
    comparison, so it equals ``model.violations(summary)``.
    """
    sizes = summary.sizes
    if isinstance(model, EntropyLDiversity):
        target = math.log(float(model.l))
        entropy = class_entropy(summary.sensitive[model.attribute].histogram)
        bad = exceeds(target, entropy)
        if target <= 0:
            return bad, np.zeros(sizes.shape[0])
        return bad, np.where(bad, np.clip(1.0 - entropy / target, 0.0, 1.0), 0.0)
    if isinstance(model, RecursiveCLDiversity):
        top, tail = top_and_tail(summary.sensitive[model.attribute].histogram, model.l)
        bad = reaches(top, float(model.c) * tail)
        excess = (top - float(model.c) * tail) / np.maximum(sizes, 1)
        return bad, np.where(bad, np.clip(excess, 0.0, 1.0), 0.0)
    if isinstance(model, _T_CLOSENESS):
        column = summary.sensitive[model.attribute]
        emd = _emd(model, column)
        assert emd is not None
        t = float(model.t)
        bad = exceeds(emd, t)
        largest = _largest_emd(model, column)
        if largest <= t:
            return bad, np.zeros(sizes.shape[0])
        return bad, np.where(bad, np.clip((emd - t) / (largest - t), 0.0, 1.0), 0.0)
    bad = np.asarray(model.violations(summary), dtype=bool)
    if isinstance(model, KAnonymity):
        return bad, (sizes < model.k).astype(np.float64)
    if isinstance(model, KMap) and summary.population is not None:
        return bad, (summary.population < model.k).astype(np.float64)
    if isinstance(model, DistinctLDiversity):
        return bad, bad.astype(np.float64)
    return bad, None


def violating_shares(model: PrivacyModel, summary: ClassSummary) -> FloatArray | None:
    """Per class, the least share of its records in violating classes at any finer node.

    ``None`` when nothing is known for this model.
    """
    return _judged(model, summary)[1]


def judge_classes(models: Sequence[PrivacyModel], summary: ClassSummary) -> tuple[BoolArray, float]:
    """The classes any model rejects, and :func:`records_suppressed_below`, computing
    each model's statistic once."""
    mask = np.zeros(summary.n_classes, dtype=bool)
    best = np.zeros(summary.n_classes)
    for model in models:
        bad, share = _judged(model, summary)
        mask |= bad
        if share is not None:
            np.maximum(best, share, out=best)
    return mask, float(_whole_records(best, summary.sizes).sum())


def _whole_records(share: FloatArray, sizes: npt.NDArray[np.int64]) -> FloatArray:
    # a share is a real lower bound on a count of whole records: round up, with slack
    out: FloatArray = np.ceil(share * sizes - 1e-9)
    return out


def forced_per_class(models: Sequence[PrivacyModel], summary: ClassSummary) -> FloatArray:
    """Per class, a lower bound on its records suppressed at every finer node.

    The largest share any model forces (the violating records of different models may
    coincide, so the shares are not added), times the class size, rounded up.
    """
    best = np.zeros(summary.n_classes)
    for model in models:
        share = violating_shares(model, summary)
        if share is not None:
            np.maximum(best, share, out=best)
    return _whole_records(best, summary.sizes)


def records_suppressed_below(models: Sequence[PrivacyModel], summary: ClassSummary) -> float:
    """A lower bound on the records suppressed at every node finer than this one: the
    sum over classes of :func:`forced_per_class`."""
    return float(forced_per_class(models, summary).sum())
