"""ℓ-diversity (Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam 2007).

Three instantiations, each judging one sensitive attribute per equivalence class from the
class's histogram of sensitive values:

* distinct ℓ-diversity: at least ``l`` distinct values;
* entropy ℓ-diversity: Shannon entropy ``-sum_s p(s) ln p(s) >= ln l``;
* recursive (c, ℓ)-diversity: ``r_1 < c (r_l + r_{l+1} + ... + r_m)`` with ``r_1 >= r_2 >=
  ... >= r_m`` the class's value counts sorted in descending order.

The per-class statistics (:func:`distinct_values`, :func:`class_entropy`,
:func:`top_and_tail`) are shared with :mod:`anonkit.models.measure`.

References
----------
A. Machanavajjhala, D. Kifer, J. Gehrke, M. Venkitasubramaniam. ℓ-Diversity: Privacy beyond
k-anonymity. ACM TKDD 1(1), 2007 (ICDE 2006).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from anonkit._arrays import BoolArray, FloatArray, IntArray
from anonkit._validation import check_int, check_real
from anonkit.models._common import OneAttribute, by_value, exceeds, reaches, sensitive
from anonkit.models.base import ClassSummary

#: Largest count whose ``c ln c`` :func:`class_entropy` looks up in a table (the
#: compiled judge of :mod:`anonkit.algorithms.lattice.compiled_judge` builds its tables
#: up to the same count).
XLOGX_TABLE = 1 << 20


def distinct_values(histogram: IntArray) -> IntArray:
    """Number of distinct sensitive values in each class (non-zero histogram cells).

    Examples
    --------
    >>> distinct_values(np.array([[2, 0, 1], [0, 0, 4]])).tolist()
    [2, 1]
    """
    out: IntArray = (by_value(histogram) > 0).sum(axis=0, dtype=np.int64)
    return out


def class_entropy(histogram: IntArray) -> FloatArray:
    """Shannon entropy with the natural logarithm of each class's sensitive values.

    ``H = -sum_s p(s) ln p(s)`` over the values ``s`` present in the class, ``p(s)`` the
    share of the class's records holding ``s``. A class with no records has entropy 0.

    Examples
    --------
    >>> [round(x, 4) for x in class_entropy(np.array([[1, 1, 0], [5, 0, 0]])).tolist()]
    [0.6931, 0.0]
    """
    # H = ln n - (sum_s c_s ln c_s) / n with c_s the counts: c ln c is looked up per count
    # instead of taking a logarithm per cell.
    counts = by_value(histogram)
    n = counts.sum(axis=0)
    safe = np.maximum(n, 1).astype(np.float64)
    largest = int(counts.max(initial=0))
    if largest <= XLOGX_TABLE:
        xlogx = np.arange(largest + 1, dtype=np.float64)
        xlogx[1:] *= np.log(xlogx[1:])
        weighted = xlogx[counts].sum(axis=0)
    else:  # huge classes: a logarithm per cell rather than a huge table
        cells = counts.astype(np.float64)
        weighted = (cells * np.log(np.where(cells > 0, cells, 1.0))).sum(axis=0)
    entropy = np.log(safe) - weighted / safe
    out: FloatArray = np.maximum(entropy, 0.0)  # rounding; also no negative zero
    return out


def top_and_tail(histogram: IntArray, l: int) -> tuple[IntArray, IntArray]:  # noqa: E741
    """Per class, ``r_1`` and ``r_l + ... + r_m`` of the descending value counts.

    ``r_1`` is the count of the most frequent value; the tail sums the counts from the
    ``l``-th most frequent on (zero when the class has fewer than ``l`` distinct values).

    Examples
    --------
    >>> top, tail = top_and_tail(np.array([[1, 5, 2, 2], [3, 3, 0, 0]]), 3)
    >>> top.tolist(), tail.tolist()
    ([5, 3], [3, 0])
    """
    counts = by_value(histogram)
    n = counts.sum(axis=0)
    top = counts.max(axis=0, initial=0)
    if l > counts.shape[0]:
        return top, np.zeros_like(n)
    # head = r_1 + ... + r_{l-1}: stream the value rows through l - 1 running maxima per
    # class (best[0] >= best[1] >= ...), each an elementwise max / min over all classes
    n_classes = counts.shape[1]
    best = [np.zeros(n_classes, dtype=np.int64) for _ in range(l - 1)]
    spare = np.empty(n_classes, dtype=np.int64)
    carry = np.empty(n_classes, dtype=np.int64)
    for row in counts:
        carry[:] = row
        for j in range(l - 1):
            np.maximum(best[j], carry, out=spare)
            np.minimum(best[j], carry, out=carry)
            best[j], spare = spare, best[j]
    head = np.zeros_like(n)
    for b in best:
        head += b
    return top, n - head


@dataclass(frozen=True)
class DistinctLDiversity(OneAttribute):
    """Every equivalence class holds at least ``l`` distinct values of ``attribute``.

    Monotone under generalization, with and without suppression: a class made by merging
    classes holds every value of each of them, so it has at least ``l`` distinct values as
    soon as one of its parts does. Hence a class violating the model after generalization
    is made only of classes that violated it before, and the records to suppress never grow.

    Parameters
    ----------
    attribute
        The sensitive attribute.
    l
        Minimum number of distinct values per class, an int >= 1.

    References
    ----------
    Machanavajjhala et al., ℓ-Diversity: Privacy beyond k-anonymity, TKDD 2007, Sec. 4.1.

    Examples
    --------
    >>> from anonkit.models.base import SensitiveColumn
    >>> hist = np.array([[2, 2, 0], [1, 2, 1]])
    >>> col = SensitiveColumn("disease", ("a", "b", "c"), hist, hist.sum(axis=0))
    >>> summary = ClassSummary(np.array([4, 4]), 8, {"disease": col})
    >>> DistinctLDiversity("disease", l=3).violations(summary).tolist()
    [True, False]
    """

    attribute: str
    l: int  # noqa: E741

    monotone_generalization: ClassVar[bool] = True
    monotone_suppression: ClassVar[bool] = True

    def check_parameters(self, owner: str) -> None:
        check_int(self.l, "l", owner, low=1)

    def violations(self, classes: ClassSummary) -> BoolArray:
        hist = sensitive(classes, self.attribute).histogram
        return np.asarray(distinct_values(hist) < self.l, dtype=np.bool_)

    def describe(self) -> str:
        return f"distinct {self.l}-diversity of {self.attribute!r}"

    @property
    def min_class_size(self) -> int:
        """Smallest class that can satisfy the model: ``l`` distinct values need ``l``
        records (a size screen valid in any projection, see ``prefilter``)."""
        return self.l


@dataclass(frozen=True)
class EntropyLDiversity(OneAttribute):
    """Every class's entropy of ``attribute`` is at least ``ln l``.

    ``-sum_s p(s) ln p(s) >= ln l`` over the values ``s`` of the class (natural logarithm;
    the base cancels out). ``l`` may be fractional; a class uniform over exactly ``l``
    values meets it.

    Monotone under generalization without suppression (Machanavajjhala et al., Sec. 5):
    entropy is concave, so a merged class's entropy is at least the smallest entropy of its
    parts. Not monotone with suppression: a diverse class merged with a large homogeneous
    class that was suppressed can fall below ``ln l`` and take the diverse records with it
    into suppression, so generalizing can increase the records to suppress.

    Parameters
    ----------
    attribute
        The sensitive attribute.
    l
        Entropy level, a real number >= 1.

    References
    ----------
    Machanavajjhala et al., ℓ-Diversity: Privacy beyond k-anonymity, TKDD 2007, Def. 4.2.

    Examples
    --------
    >>> from anonkit.models.base import SensitiveColumn
    >>> hist = np.array([[2, 2, 0], [1, 1, 1], [4, 1, 1]])
    >>> col = SensitiveColumn("disease", ("a", "b", "c"), hist, hist.sum(axis=0))
    >>> summary = ClassSummary(np.array([4, 3, 6]), 13, {"disease": col})
    >>> EntropyLDiversity("disease", l=3).violations(summary).tolist()
    [True, False, True]
    """

    attribute: str
    l: float  # noqa: E741

    monotone_generalization: ClassVar[bool] = True
    monotone_suppression: ClassVar[bool] = False

    def check_parameters(self, owner: str) -> None:
        check_real(self.l, "l", owner, low=1)

    def violations(self, classes: ClassSummary) -> BoolArray:
        hist = sensitive(classes, self.attribute).histogram
        return exceeds(math.log(float(self.l)), class_entropy(hist))

    def describe(self) -> str:
        return f"entropy {self.l:g}-diversity of {self.attribute!r}"

    @property
    def min_class_size(self) -> int:
        """Smallest class that can satisfy the model: entropy ``>= ln l`` needs at least
        ``ceil(l)`` distinct values, hence records."""
        return max(1, math.ceil(self.l - 1e-9))


@dataclass(frozen=True)
class RecursiveCLDiversity(OneAttribute):
    """Recursive (c, ℓ)-diversity: ``r_1 < c (r_l + ... + r_m)`` in every class.

    ``r_1 >= ... >= r_m`` are the counts of the class's sensitive values in descending
    order: the most frequent value must not be too frequent compared with the less frequent
    ones. A class with fewer than ``l`` distinct values has an empty tail and violates.

    Monotone under generalization without suppression (Machanavajjhala et al., Sec. 5):
    ``r_1`` and ``r_1 + ... + r_{l-1}`` are sub-additive over merged classes while the class
    size is additive, so the condition ``r_1 / c + (r_1 + ... + r_{l-1}) < n`` survives
    merging. Not monotone with suppression: merging a satisfying class with a suppressed
    homogeneous class can make the merged class violate.

    Parameters
    ----------
    attribute
        The sensitive attribute.
    c
        A real number > 0.
    l
        An int >= 1.

    References
    ----------
    Machanavajjhala et al., ℓ-Diversity: Privacy beyond k-anonymity, TKDD 2007, Def. 4.3.

    Examples
    --------
    >>> from anonkit.models.base import SensitiveColumn
    >>> hist = np.array([[2, 2, 0], [4, 1, 1], [5, 0, 0]])
    >>> col = SensitiveColumn("disease", ("a", "b", "c"), hist, hist.sum(axis=0))
    >>> summary = ClassSummary(np.array([4, 6, 5]), 15, {"disease": col})
    >>> RecursiveCLDiversity("disease", c=2, l=2).violations(summary).tolist()
    [False, True, True]
    """

    attribute: str
    c: float
    l: int  # noqa: E741

    monotone_generalization: ClassVar[bool] = True
    monotone_suppression: ClassVar[bool] = False

    def check_parameters(self, owner: str) -> None:
        check_real(self.c, "c", owner, low=0, closed="neither")
        check_int(self.l, "l", owner, low=1)

    def violations(self, classes: ClassSummary) -> BoolArray:
        hist = sensitive(classes, self.attribute).histogram
        top, tail = top_and_tail(hist, self.l)
        return reaches(top, float(self.c) * tail)

    def describe(self) -> str:
        return f"recursive ({self.c:g}, {self.l})-diversity of {self.attribute!r}"

    @property
    def min_class_size(self) -> int:
        """Smallest class that can satisfy the model: a non-empty tail needs ``l``
        distinct values, hence records."""
        return self.l
