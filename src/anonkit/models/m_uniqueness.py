"""m-uniqueness (Xiao & Tao 2007): the per-release half of m-invariance."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from anonkit._arrays import BoolArray
from anonkit._validation import check_int
from anonkit.models._common import OneAttribute, sensitive
from anonkit.models.base import ClassSummary


@dataclass(frozen=True)
class MUniqueness(OneAttribute):
    """Every class holds at least ``m`` records, all with different values of ``attribute``.

    Xiao and Tao (2007, Definition 3) call a generalized table m-unique when this holds;
    m-invariance asks it of every release, together with invariant signatures across
    releases (:mod:`anonkit.releases`). Counterfeit records count as records of their class.

    Not monotone under generalization: merging two m-unique classes that share a value gives
    a class holding that value twice.

    Parameters
    ----------
    attribute
        The sensitive attribute.
    m
        Least class size, an int >= 2.

    References
    ----------
    Xiao, X., Tao, Y. (2007). m-invariance: towards privacy preserving re-publication of
    dynamic datasets. SIGMOD, 689-700.

    Examples
    --------
    >>> from anonkit.models.base import SensitiveColumn
    >>> hist = np.array([[1, 1, 0], [2, 1, 0], [1, 1, 1]])
    >>> col = SensitiveColumn("disease", ("a", "b", "c"), hist, hist.sum(axis=0))
    >>> summary = ClassSummary(np.array([2, 3, 3]), 8, {"disease": col})
    >>> MUniqueness("disease", m=2).violations(summary).tolist()
    [False, True, False]
    """

    attribute: str
    m: int

    monotone_generalization: ClassVar[bool] = False
    monotone_suppression: ClassVar[bool] = False

    def check_parameters(self, owner: str) -> None:
        check_int(self.m, "m", owner, low=2)

    def violations(self, classes: ClassSummary) -> BoolArray:
        hist = sensitive(classes, self.attribute).histogram
        repeated = hist.max(axis=1) > 1 if hist.shape[1] else np.zeros(hist.shape[0], bool)
        return np.asarray((classes.sizes < self.m) | repeated, dtype=np.bool_)

    def describe(self) -> str:
        return f"{self.m}-uniqueness of {self.attribute}"

    @property
    def min_class_size(self) -> int:
        """Smallest class that can satisfy the model: ``m``."""
        return int(self.m)
