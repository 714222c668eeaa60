"""k-anonymity (Samarati & Sweeney 1998; Sweeney 2002)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from anonkit._arrays import BoolArray
from anonkit._validation import check_int
from anonkit.models._common import NoAttribute
from anonkit.models.base import ClassSummary, PrivacyModel


@dataclass(frozen=True)
class KAnonymity(NoAttribute):
    """Every equivalence class holds at least ``k`` records.

    A table is k-anonymous when each combination of quasi-identifier values that occurs in
    it occurs at least ``k`` times, so a record cannot be told apart from ``k - 1`` others:
    the prosecutor re-identification risk is at most ``1/k``.

    Monotone under generalization, with and without suppression: merging classes never
    shrinks them, and a record in a too-small class after generalization was in a
    too-small class before it.

    Parameters
    ----------
    k
        Minimum class size, an int >= 1.

    References
    ----------
    L. Sweeney. k-anonymity: a model for protecting privacy. IJUFKS 10(5), 2002.

    Examples
    --------
    >>> import numpy as np
    >>> KAnonymity(3).violations(ClassSummary(np.array([2, 3, 5]), 10)).tolist()
    [True, False, False]
    """

    k: int

    monotone_generalization: ClassVar[bool] = True
    monotone_suppression: ClassVar[bool] = True

    def check_parameters(self, owner: str) -> None:
        check_int(self.k, "k", owner, low=1)

    def violations(self, classes: ClassSummary) -> BoolArray:
        return classes.sizes < self.k

    def describe(self) -> str:
        return f"{self.k}-anonymity"

    @property
    def min_class_size(self) -> int:
        """Smallest class that can satisfy the model: ``k``."""
        return int(self.k)


def split_k_anonymity(
    models: Iterable[PrivacyModel],
) -> tuple[int | None, tuple[PrivacyModel, ...]]:
    """The largest ``k`` of the :class:`KAnonymity` models among ``models`` (``None`` when
    there is none) and the other models, in their order.

    For code that needs k-anonymity's ``k`` itself (a class-size metric, the cell
    suppression of :mod:`anonkit.algorithms.local_suppression`); the least class size any
    model needs is its ``min_class_size``.

    Examples
    --------
    >>> from anonkit.models.population import KMap
    >>> split_k_anonymity([KAnonymity(2), KMap(3), KAnonymity(5)])
    (5, (KMap(k=3),))
    """
    ks: list[int] = []
    others: list[PrivacyModel] = []
    for m in models:
        if isinstance(m, KAnonymity):
            ks.append(int(m.k))
        else:
            others.append(m)
    return (max(ks) if ks else None), tuple(others)
