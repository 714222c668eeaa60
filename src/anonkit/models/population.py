"""Models for a released sample of a known population: k-map and δ-presence.

Both read ``ClassSummary.population``: for each equivalence class of the released sample,
the records of the population table (for example a census the attacker can access) that
fall into the same class under the same transformation. The sample is assumed to be drawn
from the population, so each class's population count is at least its sample size.

Only classes holding sample records are judged: the summary lists the sample's classes,
and population records in generalized classes that hold no sample record are never
released, so they are neither checked nor counted as violations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from anonkit._arrays import BoolArray, FloatArray
from anonkit._validation import check_int, check_real
from anonkit.exceptions import ParameterError
from anonkit.models._common import NoAttribute, exceeds, population
from anonkit.models.base import CLASS_SIZE, POPULATION_COUNT, ClassSummary


def presence_levels(classes: ClassSummary) -> FloatArray:
    """Per class, sample records / population records: ``P(t in sample | release)``.

    Infinity for a class whose population count is 0 (the sample is not part of the
    population).

    Examples
    --------
    >>> s = ClassSummary(np.array([1, 2, 5]), 8, population=np.array([4, 4, 5]))
    >>> presence_levels(s).tolist()
    [0.25, 0.5, 1.0]
    """
    counts = np.asarray(population(classes, "DeltaPresence"), dtype=np.float64)
    sizes = np.asarray(classes.sizes, dtype=np.float64)
    out: FloatArray = np.divide(sizes, counts, out=np.full(sizes.shape, np.inf), where=counts > 0)
    return out


@dataclass(frozen=True)
class KMap(NoAttribute):
    """k-map: every released class matches at least ``k`` records of the population.

    An attacker who knows an individual is in the population (not necessarily in the
    sample) and links on the quasi-identifiers finds at least ``k`` candidates: the
    journalist re-identification risk is at most ``1/k``.

    Monotone under generalization, with and without suppression: population counts add up
    when classes merge, so a merged class reaches ``k`` as soon as one of its parts does;
    a class violating after generalization is made only of classes that violated before.

    Parameters
    ----------
    k
        Minimum population records per released class, an int >= 1.

    References
    ----------
    K. El Emam, F. K. Dankar. Protecting privacy using k-anonymity. JAMIA 15(5), 2008
    (k-map: L. Sweeney, Computational disclosure control, PhD thesis, MIT, 2001).

    Examples
    --------
    The seed-001 sample of the hospital population (1, 2 and 5 sample records in classes of
    4, 4 and 5 population records):

    >>> s = ClassSummary(np.array([1, 2, 5]), 8, population=np.array([4, 4, 5]))
    >>> KMap(5).violations(s).tolist()
    [True, True, False]
    """

    k: int

    requires: ClassVar[frozenset[str]] = frozenset({CLASS_SIZE, POPULATION_COUNT})
    monotone_generalization: ClassVar[bool] = True
    monotone_suppression: ClassVar[bool] = True

    def check_parameters(self, owner: str) -> None:
        check_int(self.k, "k", owner, low=1)

    def violations(self, classes: ClassSummary) -> BoolArray:
        return np.asarray(population(classes, "KMap") < self.k, dtype=np.bool_)

    def describe(self) -> str:
        return f"{self.k}-map"


@dataclass(frozen=True)
class DeltaPresence(NoAttribute):
    """δ-presence: ``delta_min <= sample records / population records <= delta_max``.

    For each released class, the share of its population records that are in the sample
    is the probability an attacker who knows the population assigns to "this individual is
    in the released data"; δ-presence bounds it from both sides.

    Declared not monotone (with or without suppression). Without suppression a merged
    class's share is a mediant of its parts' shares, but generalization also merges in
    population records of classes that hold no sample record (never judged, see the
    module notes), which lowers the share below ``delta_min``; and with suppression a
    violating class merged with a satisfying one can violate.

    Parameters
    ----------
    delta_min, delta_max
        Bounds with ``0 <= delta_min <= delta_max <= 1``.

    References
    ----------
    M. E. Nergiz, M. Atzori, C. Clifton. Hiding the presence of individuals from shared
    databases. SIGMOD 2007.

    Examples
    --------
    >>> s = ClassSummary(np.array([1, 2, 5]), 8, population=np.array([4, 4, 5]))
    >>> DeltaPresence(0.3, 0.9).violations(s).tolist()
    [True, False, True]
    """

    delta_min: float
    delta_max: float

    requires: ClassVar[frozenset[str]] = frozenset({CLASS_SIZE, POPULATION_COUNT})
    monotone_generalization: ClassVar[bool] = False
    monotone_suppression: ClassVar[bool] = False

    def check_parameters(self, owner: str) -> None:
        check_real(self.delta_min, "delta_min", owner, low=0, high=1)
        check_real(self.delta_max, "delta_max", owner, low=0, high=1)
        if float(self.delta_max) < float(self.delta_min):
            raise ParameterError(
                "delta_max",
                owner,
                f"a real number between delta_min ({self.delta_min!r}) and 1",
                self.delta_max,
            )

    def violations(self, classes: ClassSummary) -> BoolArray:
        share = presence_levels(classes)
        return exceeds(float(self.delta_min), share) | exceeds(share, float(self.delta_max))

    def describe(self) -> str:
        return f"({self.delta_min:g}, {self.delta_max:g})-presence"
