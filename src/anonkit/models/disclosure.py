"""δ-disclosure privacy (Brickell & Shmatikov 2008) and β-likeness (Cao & Karras 2012).

Both bound how much seeing a record's equivalence class changes the belief about its
sensitive value, comparing the share ``q(s)`` of value ``s`` in the class with its share
``p(s)`` in the whole table (``SensitiveColumn.totals``):

* δ-disclosure: ``|ln(q(s) / p(s))| < δ`` for every value ``s`` occurring in the class;
* basic β-likeness: ``(q(s) - p(s)) / p(s) <= β`` for every ``s`` with ``q(s) > p(s)``;
* enhanced β-likeness: ``(q(s) - p(s)) / p(s) <= min(β, -ln p(s))`` for those ``s``.

All three read the likelihood ratios ``q(s) / p(s)`` (:func:`likelihood_ratios`); the
per-class statistics (:func:`disclosure_levels`, :func:`beta_levels`,
:func:`enhanced_excess`) are shared with :mod:`anonkit.models.measure`.

References
----------
J. Brickell, V. Shmatikov. The cost of privacy: destruction of data-mining utility in
anonymized data publishing. KDD 2008.

J. Cao, P. Karras. Publishing microdata with a robust privacy guarantee. PVLDB 5(11), 2012.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from anonkit._arrays import BoolArray, FloatArray
from anonkit._validation import check_real
from anonkit.models._common import OneAttribute, by_value, exceeds, reaches, sensitive, shares
from anonkit.models.base import ClassSummary, SensitiveColumn


def likelihood_ratios(column: SensitiveColumn) -> FloatArray:
    """Per class and value, ``q(s) / p(s)``: the value's share in the class over its share
    in the table.

    Infinity where the class holds a value the table totals lack (an inconsistent
    summary); 0 in empty cells and in classes with no records.

    Examples
    --------
    >>> hist = np.array([[2, 0], [1, 1]])
    >>> col = SensitiveColumn("s", ("a", "b"), hist, np.array([3, 1]))
    >>> [[round(x, 4) for x in row] for row in likelihood_ratios(col).tolist()]
    [[1.3333, 0.0], [0.6667, 2.0]]
    """
    return _ratios_by_value(column).T


def _ratios_by_value(column: SensitiveColumn) -> FloatArray:
    """Values x classes ``q(s) / p(s) = count * (N / total(s)) / n``."""
    counts = by_value(column.histogram)
    totals = np.asarray(column.totals, dtype=np.float64)
    scale = np.divide(totals.sum(), totals, out=np.zeros_like(totals), where=totals > 0)
    sizes = counts.sum(axis=0)
    ratio: FloatArray = counts * scale[:, None] / np.maximum(sizes, 1)
    unknown = (counts > 0) & (totals == 0)[:, None]
    if unknown.any():
        ratio[unknown] = np.inf
    return ratio


def disclosure_levels(column: SensitiveColumn) -> FloatArray:
    """Per class, ``max |ln(q(s) / p(s))|`` over the values ``s`` occurring in the class.

    Values absent from the class are not judged (see :class:`DeltaDisclosure`). A value
    occurring in a class but not in the table totals (an inconsistent summary) gives
    infinity; a class with no records gives 0.

    Examples
    --------
    >>> hist = np.array([[2, 0], [1, 1]])
    >>> col = SensitiveColumn("s", ("a", "b"), hist, np.array([3, 1]))
    >>> [round(x, 4) for x in disclosure_levels(col).tolist()]
    [0.2877, 0.6931]
    """
    ratio = _ratios_by_value(column)
    # the largest |ln r| is at the largest or the smallest ratio r of the values present
    highest = ratio.max(axis=0, initial=1.0)
    lowest = np.where(ratio > 0, ratio, np.inf).min(axis=0, initial=1.0)
    out: FloatArray = np.maximum(np.log(highest), -np.log(lowest))
    return out


def relative_gains(column: SensitiveColumn) -> FloatArray:
    """Per class and value, Cao & Karras' relative distance ``(q - p) / p`` where ``q > p``.

    Zero where ``q <= p`` (a value no more likely in the class than in the table reveals
    nothing positive); infinity where the table share ``p`` is 0 but the class holds the
    value (an inconsistent summary).

    Examples
    --------
    >>> hist = np.array([[2, 0], [1, 1]])
    >>> col = SensitiveColumn("s", ("a", "b"), hist, np.array([3, 1]))
    >>> [[round(x, 4) for x in row] for row in relative_gains(col).tolist()]
    [[0.3333, 0.0], [0.0, 1.0]]
    """
    return _gains_by_value(column).T


def _gains_by_value(column: SensitiveColumn) -> FloatArray:
    out: FloatArray = np.maximum(_ratios_by_value(column) - 1.0, 0.0)
    return out


def beta_levels(column: SensitiveColumn) -> FloatArray:
    """Per class, the largest relative gain ``(q - p) / p`` over its values (0 if none).

    Examples
    --------
    >>> hist = np.array([[2, 0], [1, 1]])
    >>> col = SensitiveColumn("s", ("a", "b"), hist, np.array([3, 1]))
    >>> [round(x, 4) for x in beta_levels(col).tolist()]
    [0.3333, 1.0]
    """
    out: FloatArray = np.maximum(_ratios_by_value(column).max(axis=0, initial=1.0) - 1.0, 0.0)
    return out


def enhanced_excess(column: SensitiveColumn, beta: float) -> BoolArray:
    """Per class, whether some value's gain exceeds ``min(beta, -ln p(s))`` (``beta`` may be
    infinite: then only the ``-ln p(s)`` caps bind)."""
    bound = np.minimum(beta, enhanced_caps(column))
    return np.asarray(exceeds(_gains_by_value(column), bound[:, None]).any(axis=0))


def enhanced_caps(column: SensitiveColumn) -> FloatArray:
    """Per value, the enhanced β-likeness cap ``-ln p(s)`` (infinity where ``p(s) = 0``).

    Examples
    --------
    >>> col = SensitiveColumn("s", ("a", "b"), np.zeros((1, 2), np.int64), np.array([1, 1]))
    >>> [round(x, 4) for x in enhanced_caps(col).tolist()]
    [0.6931, 0.6931]
    """
    p = shares(column.totals)
    out: FloatArray = np.where(p > 0, -np.log(np.where(p > 0, p, 1.0)), np.inf)
    return out


@dataclass(frozen=True)
class DeltaDisclosure(OneAttribute):
    """δ-disclosure privacy: ``|ln(q(s) / p(s))| < δ`` for every value ``s`` in the class.

    ``q(s)`` is the share of value ``s`` in the class, ``p(s)`` in the whole table.

    **Values absent from a class.** Brickell & Shmatikov state the condition for all
    ``s`` in the domain of the sensitive attribute; read literally, a value of the table
    that is absent from a class has ``ln(0 / p(s)) = -inf`` and makes the class violate for
    every δ, so each class would have to hold every value of the table. As the issue
    specifies (and as ARX and pycanon do), this model judges only the values that occur
    in the class: an absent value is not a violation. Note the strict inequality: a class
    whose largest ``|ln(q/p)|`` equals δ violates. The logarithm is natural (ARX uses base
    2, so its δ is this one divided by ``ln 2``).

    Not monotone, with or without suppression: a value present in only one of two merged
    classes is diluted in the union. For example, with ``p(a) = p(b) = 1/2`` and
    ``δ = 1``, the classes ``{a, b}`` (levels 0) and ``{a} x 10`` (level ``ln 2``) satisfy
    it, but their union has ``q(b) = 1/12`` and ``|ln(1/6)| > 1``.

    Parameters
    ----------
    attribute
        The sensitive attribute.
    delta
        A real number > 0.

    References
    ----------
    Brickell, Shmatikov. The cost of privacy. KDD 2008, Def. 4 (δ-disclosure privacy).

    Examples
    --------
    >>> hist = np.array([[1, 1], [2, 0]])
    >>> col = SensitiveColumn("s", ("a", "b"), hist, hist.sum(axis=0))
    >>> summary = ClassSummary(np.array([2, 2]), 4, {"s": col})
    >>> DeltaDisclosure("s", delta=0.5).violations(summary).tolist()
    [True, False]
    """

    attribute: str
    delta: float

    monotone_generalization: ClassVar[bool] = False
    monotone_suppression: ClassVar[bool] = False

    def check_parameters(self, owner: str) -> None:
        check_real(self.delta, "delta", owner, low=0, closed="neither")

    def violations(self, classes: ClassSummary) -> BoolArray:
        levels = disclosure_levels(sensitive(classes, self.attribute))
        return reaches(levels, float(self.delta))

    def describe(self) -> str:
        return f"{self.delta:g}-disclosure privacy of {self.attribute!r}"


@dataclass(frozen=True)
class _BetaLikeness(OneAttribute):
    """Fields, flags, validation and judgement shared by the two β-likeness models.

    A subclass names its ``variant`` and the per-class test :attr:`excess`.
    """

    attribute: str
    beta: float

    monotone_generalization: ClassVar[bool] = True
    monotone_suppression: ClassVar[bool] = False
    variant: ClassVar[str]

    def check_parameters(self, owner: str) -> None:
        check_real(self.beta, "beta", owner, low=0, closed="neither")

    @staticmethod
    def excess(column: SensitiveColumn, beta: float) -> BoolArray:
        """Per class, whether some value's gain exceeds what the variant allows."""
        raise NotImplementedError

    def violations(self, classes: ClassSummary) -> BoolArray:
        return self.excess(sensitive(classes, self.attribute), float(self.beta))

    def describe(self) -> str:
        return f"{self.variant} {self.beta:g}-likeness of {self.attribute!r}"


@dataclass(frozen=True)
class BasicBetaLikeness(_BetaLikeness):
    """Basic β-likeness: ``(q(s) - p(s)) / p(s) <= β`` for every ``s`` with ``q(s) > p(s)``.

    Equivalently ``q(s) <= (1 + β) p(s)`` for every value, a bound that does not depend on
    the class; a merged class's shares are size-weighted means of its parts', so merging
    classes that meet it gives a class that meets it: monotone under generalization
    without suppression. Not monotone with suppression (a satisfying class merged with a
    suppressed violating one can violate).

    Parameters
    ----------
    attribute
        The sensitive attribute.
    beta
        Largest relative gain ``(q - p) / p`` of a value, a real number > 0.

    References
    ----------
    Cao, Karras. Publishing microdata with a robust privacy guarantee. PVLDB 2012, Def. 2.

    Examples
    --------
    >>> hist = np.array([[1, 1], [2, 0]])
    >>> col = SensitiveColumn("s", ("a", "b"), hist, hist.sum(axis=0))
    >>> summary = ClassSummary(np.array([2, 2]), 4, {"s": col})
    >>> BasicBetaLikeness("s", beta=0.5).violations(summary).tolist()
    [True, False]
    """

    variant: ClassVar[str] = "basic"

    @staticmethod
    def excess(column: SensitiveColumn, beta: float) -> BoolArray:
        return exceeds(beta_levels(column), beta)


@dataclass(frozen=True)
class EnhancedBetaLikeness(_BetaLikeness):
    """Enhanced β-likeness: ``(q(s) - p(s)) / p(s) <= min(β, -ln p(s))`` where ``q > p``.

    The cap ``-ln p(s)`` tightens the bound for frequent values so that ``q(s)`` stays
    below 1. The per-value bound ``(1 + min(β, -ln p(s))) p(s)`` on ``q(s)`` does not depend
    on the class, so, as for basic β-likeness, the model is monotone under generalization
    without suppression and not with suppression.

    Parameters
    ----------
    attribute
        The sensitive attribute.
    beta
        Largest relative gain of a value before its cap ``-ln p(s)``, a real number > 0.

    References
    ----------
    Cao, Karras. Publishing microdata with a robust privacy guarantee. PVLDB 2012, Def. 3.

    Examples
    --------
    >>> hist = np.array([[3, 1], [4, 0]])
    >>> col = SensitiveColumn("s", ("a", "b"), hist, hist.sum(axis=0))
    >>> summary = ClassSummary(np.array([4, 4]), 8, {"s": col})
    >>> EnhancedBetaLikeness("s", beta=1.0).violations(summary).tolist()
    [False, True]
    """

    variant: ClassVar[str] = "enhanced"
    excess = staticmethod(enhanced_excess)


__all__ = [
    "BasicBetaLikeness",
    "DeltaDisclosure",
    "EnhancedBetaLikeness",
    "disclosure_levels",
    "enhanced_caps",
    "relative_gains",
]
