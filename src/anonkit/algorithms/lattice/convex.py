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

from anonkit.models.base import ClassSummary, PrivacyModel, SensitiveColumn
from anonkit.models.k_anonymity import KAnonymity
from anonkit.models.l_diversity import DistinctLDiversity, EntropyLDiversity, class_entropy
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


def violating_shares(model: PrivacyModel, summary: ClassSummary) -> FloatArray | None:
    """Per class, the least share of its records in violating classes at any finer node.

    ``None`` when nothing is known for this model.
    """
    sizes = summary.sizes
    if isinstance(model, KAnonymity):
        return (sizes < model.k).astype(np.float64)
    if isinstance(model, KMap) and summary.population is not None:
        return (summary.population < model.k).astype(np.float64)
    if isinstance(model, DistinctLDiversity):
        return model.violations(summary).astype(np.float64)
    if isinstance(model, EntropyLDiversity):
        column = summary.sensitive[model.attribute]
        target = math.log(float(model.l))
        if target <= 0:
            return np.zeros(sizes.shape[0])
        share = 1.0 - class_entropy(column.histogram) / target
        return np.where(model.violations(summary), np.clip(share, 0.0, 1.0), 0.0)
    if isinstance(
        model, (EqualDistanceTCloseness, OrderedDistanceTCloseness, HierarchicalTCloseness)
    ):
        column = summary.sensitive[model.attribute]
        emd = _emd(model, column)
        assert emd is not None
        top = _largest_emd(model, column)
        t = float(model.t)
        if top <= t:
            return np.zeros(sizes.shape[0])
        share = (emd - t) / (top - t)
        return np.where(model.violations(summary), np.clip(share, 0.0, 1.0), 0.0)
    return None


def records_suppressed_below(models: Sequence[PrivacyModel], summary: ClassSummary) -> float:
    """A lower bound on the records suppressed at every node finer than this one.

    Per class the largest share any model forces (the violating records of different
    models may coincide, so the shares are not added), times the class size, summed.
    """
    best = np.zeros(summary.n_classes)
    for model in models:
        share = violating_shares(model, summary)
        if share is not None:
            np.maximum(best, share, out=best)
    # a share is a real lower bound on a count of whole records: round up, with slack
    return float(np.ceil(best * summary.sizes - 1e-9).sum())
