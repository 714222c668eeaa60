"""Achieved privacy levels of a release, measured from its equivalence-class summary.

Pure functions for ``anonkit check``: each returns the strongest parameter of a model that
the summary satisfies without suppressing anything, computed from the same per-class
statistics the models judge with (one implementation of every formula). They raise
:class:`~anonkit.exceptions.EmptyDataError` for a summary without classes, and
:class:`~anonkit.exceptions.UnknownColumnError` when the summary lacks the sensitive
attribute asked for.

Where a model's condition is a strict inequality (recursive (c, ℓ)-diversity,
δ-disclosure) the value returned is the infimum: the model holds for every parameter
strictly above it, not at it.

Examples
--------
The seed-001 4-anonymous hospital release (classes Heart/Heart/Viral/Viral,
Cancer/Heart/Viral/Viral, Cancer x 5):

>>> import numpy as np
>>> from anonkit.models.base import SensitiveColumn
>>> hist = np.array([[0, 2, 2], [1, 1, 2], [5, 0, 0]])
>>> col = SensitiveColumn("Disease", ("Cancer", "Heart", "Viral"), hist, hist.sum(axis=0))
>>> summary = ClassSummary(np.array([4, 4, 5]), 13, {"Disease": col})
>>> achieved_k(summary), achieved_distinct_l(summary, "Disease")
(4, 1)
>>> round(achieved_t(summary, "Disease"), 4)
0.5385
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from anonkit._arrays import IntArray
from anonkit._validation import check_choice, check_int
from anonkit.core.hierarchy import Hierarchy
from anonkit.models._common import population, require_classes, sensitive, snap
from anonkit.models.base import ClassSummary, PrivacyModel
from anonkit.models.disclosure import beta_levels, disclosure_levels, enhanced_excess
from anonkit.models.l_diversity import class_entropy, distinct_values, top_and_tail
from anonkit.models.population import presence_levels
from anonkit.models.risk import average_risk_level
from anonkit.models.t_closeness import equal_emd, hierarchical_emd, ordered_emd

Distance = Literal["equal", "ordered", "hierarchical"]

__all__ = [
    "achieved_average_risk",
    "achieved_beta",
    "achieved_delta",
    "achieved_distinct_l",
    "achieved_entropy_l",
    "achieved_k",
    "achieved_k_map",
    "achieved_presence",
    "achieved_recursive_c",
    "achieved_t",
    "failing_classes",
]


def achieved_k(summary: ClassSummary) -> int:
    """The smallest class size: the largest ``k`` of k-anonymity (Sweeney 2002)."""
    require_classes(summary)
    return int(np.min(summary.sizes))


def achieved_distinct_l(summary: ClassSummary, attribute: str) -> int:
    """The fewest distinct values of ``attribute`` in a class: the largest distinct ℓ."""
    require_classes(summary)
    return int(distinct_values(sensitive(summary, attribute).histogram).min())


def achieved_entropy_l(summary: ClassSummary, attribute: str) -> float:
    """``exp`` of the smallest class entropy (natural log): the largest entropy ℓ.

    A result within rounding error of an integer is returned as that integer (a class
    uniform over 3 values gives exactly 3.0). pycanon returns this value truncated to an
    int.
    """
    require_classes(summary)
    entropy = float(class_entropy(sensitive(summary, attribute).histogram).min())
    return snap(math.exp(entropy))


def achieved_recursive_c(summary: ClassSummary, attribute: str, l: int) -> float:  # noqa: E741
    """The infimum ``c`` of recursive (c, ℓ)-diversity for the given ``l``.

    ``max over classes of r_1 / (r_l + ... + r_m)``; the model holds for every ``c``
    strictly greater. Infinity when a class has fewer than ``l`` distinct values (no ``c``
    works). pycanon's ``recursive_c_l_diversity`` computes a different quantity (an int,
    from the counts sorted ascending) and is not comparable.
    """
    check_int(l, "l", "achieved_recursive_c", low=1)
    require_classes(summary)
    top, tail = top_and_tail(sensitive(summary, attribute).histogram, int(l))
    ratio = np.divide(top.astype(np.float64), tail, out=np.full(top.shape, np.inf), where=tail > 0)
    return float(ratio.max())


def achieved_t(
    summary: ClassSummary,
    attribute: str,
    distance: Distance = "equal",
    *,
    order: Sequence[str] | None = None,
    hierarchy: Hierarchy | None = None,
) -> float:
    """The largest EMD of a class from the table: the smallest ``t`` of t-closeness.

    Parameters
    ----------
    distance
        ``"equal"``, ``"ordered"`` (with optional ``order``, as in
        :class:`~anonkit.models.t_closeness.OrderedDistanceTCloseness`) or
        ``"hierarchical"`` (with optional ``hierarchy``, else the summary's).
    """
    check_choice(distance, "distance", "achieved_t", ("equal", "ordered", "hierarchical"))
    require_classes(summary)
    column = sensitive(summary, attribute)
    if distance == "equal":
        levels = equal_emd(column)
    elif distance == "ordered":
        levels = ordered_emd(column, order)
    else:
        levels = hierarchical_emd(column, hierarchy)
    return float(levels.max())


def achieved_delta(summary: ClassSummary, attribute: str) -> float:
    """The infimum δ of δ-disclosure privacy: the largest ``|ln(q(s)/p(s))|``.

    Over every class and every value occurring in it (see
    :class:`~anonkit.models.disclosure.DeltaDisclosure`); the model holds for every δ
    strictly greater.
    """
    require_classes(summary)
    return float(disclosure_levels(sensitive(summary, attribute)).max())


def achieved_beta(summary: ClassSummary, attribute: str, *, enhanced: bool = False) -> float:
    """The smallest β of basic (or enhanced) β-likeness.

    Basic: the largest relative gain ``(q - p) / p`` over classes and values with ``q > p``.
    Enhanced: the same, provided every gain is also at most ``-ln p`` (the cap no β can
    raise); infinity otherwise, since no β then satisfies enhanced β-likeness. pycanon's
    ``enhanced_beta_likeness`` computes a different quantity and is not comparable.
    """
    require_classes(summary)
    column = sensitive(summary, attribute)
    if enhanced and bool(enhanced_excess(column, math.inf).any()):
        return math.inf
    return float(beta_levels(column).max())


def achieved_k_map(summary: ClassSummary) -> int:
    """The fewest population records matching a released class: the largest k of k-map."""
    require_classes(summary)
    return int(np.min(population(summary, "KMap")))


def achieved_presence(summary: ClassSummary) -> tuple[float, float]:
    """The smallest and largest share sample / population records of a released class.

    The tightest ``(delta_min, delta_max)`` of δ-presence the release meets.
    """
    require_classes(summary)
    share = presence_levels(summary)
    return float(share.min()), float(share.max())


def achieved_average_risk(summary: ClassSummary) -> float:
    """The average prosecutor re-identification risk: classes / records."""
    require_classes(summary)
    return average_risk_level(summary.sizes)


def failing_classes(summary: ClassSummary, model: PrivacyModel) -> IntArray:
    """Indices of the classes of ``summary`` that violate ``model``, ascending.

    Examples
    --------
    >>> from anonkit.models.k_anonymity import KAnonymity
    >>> failing_classes(ClassSummary(np.array([2, 5, 1]), 8), KAnonymity(2)).tolist()
    [2]
    """
    return np.flatnonzero(model.violations(summary)).astype(np.int64)
