"""Helpers shared by the privacy models: their declarations, sensitive-column lookup,
class frequencies and rounding-tolerant comparisons (parameter checks are in
:mod:`anonkit._validation`).

Private to :mod:`anonkit.models`; the formulas themselves live with their models.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray, IntArray
from anonkit._validation import check_name
from anonkit.exceptions import DataError, EmptyDataError, UnknownColumnError
from anonkit.models.base import CLASS_SIZE, SENSITIVE_HISTOGRAM, ClassSummary, SensitiveColumn

#: Relative tolerance of every threshold comparison. A level that equals its bound
#: mathematically (a class uniform over exactly ``l`` values has entropy ``ln l``; the Li et
#: al. class with EMD exactly ``1/6`` meets ``t = 1/6``) may miss it by a rounding error;
#: comparisons treat values within this tolerance of the bound as equal to it.
TOLERANCE = 1e-9


def slack(bound: npt.ArrayLike) -> FloatArray:
    """The rounding error :func:`exceeds` and :func:`reaches` allow around ``bound``."""
    return TOLERANCE * np.maximum(1.0, np.abs(np.asarray(bound, dtype=np.float64)))


def exceeds(value: npt.ArrayLike, bound: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """``value > bound`` beyond rounding error (so ``value <= bound`` holds otherwise)."""
    return np.asarray(np.asarray(value) > np.asarray(bound) + slack(bound), dtype=np.bool_)


def reaches(value: npt.ArrayLike, bound: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """``value >= bound`` up to rounding error (so ``value < bound`` fails)."""
    return np.asarray(np.asarray(value) >= np.asarray(bound) - slack(bound), dtype=np.bool_)


def snap(value: float) -> float:
    """``value`` rounded to the nearest integer when within :data:`TOLERANCE` of it."""
    if math.isfinite(value) and abs(value - round(value)) <= TOLERANCE * max(1.0, abs(value)):
        return float(round(value))
    return value


class ModelDeclarations:
    """Declarations and validation every privacy model shares.

    The model judges each class on its own (``class_local``; a model that reads the whole
    table overrides it) and any class size can satisfy it unless it overrides
    ``min_class_size``. ``__post_init__`` checks the model's parameters in
    :meth:`check_parameters`.
    """

    class_local: ClassVar[bool] = True

    def __post_init__(self) -> None:
        self.check_parameters(type(self).__name__)

    def check_parameters(self, owner: str) -> None:
        """Check the model's parameters, naming ``owner`` (the model's class) in errors;
        none here."""

    @property
    def min_class_size(self) -> int:
        """Smallest class that can satisfy the model: 1 (no bound from sizes alone)."""
        return 1


class OneAttribute(ModelDeclarations):
    """Declarations and validation of a model that protects one sensitive attribute.

    The model reads the histogram of its ``attribute`` field per class; ``__post_init__``
    checks ``attribute`` before the model's own parameters.
    """

    attribute: str

    requires: ClassVar[frozenset[str]] = frozenset({SENSITIVE_HISTOGRAM})

    def __post_init__(self) -> None:
        check_name(self.attribute, "attribute", type(self).__name__)
        super().__post_init__()

    @property
    def sensitive_attributes(self) -> tuple[str, ...]:
        """The attribute the model protects."""
        return (self.attribute,)


class NoAttribute(ModelDeclarations):
    """Declarations of a model that protects no sensitive attribute: it judges class sizes
    (``requires``, unless the model overrides it) or population counts."""

    requires: ClassVar[frozenset[str]] = frozenset({CLASS_SIZE})

    @property
    def sensitive_attributes(self) -> tuple[str, ...]:
        """None: the model reads no sensitive histogram."""
        return ()


def sensitive(classes: ClassSummary, attribute: str) -> SensitiveColumn:
    """The summary's :class:`SensitiveColumn` for ``attribute``.

    Raises
    ------
    UnknownColumnError
        If the summary carries no histogram for ``attribute``.
    """
    column = classes.sensitive.get(attribute)
    if column is None:
        raise UnknownColumnError([attribute], list(classes.sensitive))
    return column


def population(classes: ClassSummary, owner: str) -> IntArray:
    """The summary's population counts per class.

    Raises
    ------
    DataError
        If the summary carries none (no population table was given).
    """
    if classes.population is None:
        raise DataError(
            f"{owner} needs the population records per class; give a population table "
            "(the summary carries no population counts)."
        )
    return classes.population


def by_value(histogram: npt.ArrayLike) -> IntArray:
    """``histogram`` (classes x values) as a C-ordered values x classes array.

    The statistics reduce over the values of each class; numpy reduces the leading axis of
    a C-ordered array with vectorized inner loops over the classes, many times faster than
    reducing short rows. Free (no copy) when the histogram is Fortran-ordered.
    """
    out: IntArray = np.ascontiguousarray(np.asarray(histogram, dtype=np.int64).T)
    return out


def shares(counts_by_value: IntArray) -> FloatArray:
    """Column-normalized values x classes counts: the share of each value in each class.

    A class with no records stays all zero. Also takes a 1-d totals vector.
    """
    counts = np.asarray(counts_by_value, dtype=np.float64)
    sizes = counts.sum(axis=0)
    out: FloatArray = counts / np.where(sizes > 0, sizes, 1.0)
    return out


def require_classes(classes: ClassSummary) -> None:
    """Raise :class:`EmptyDataError` when the summary holds no class to measure."""
    if classes.n_classes == 0:
        raise EmptyDataError("The release")


T = TypeVar("T")


class IdentityMemo:
    """Values computed from objects that stay the same throughout a search (a model, a
    table's value counts), remembered by the objects' identity.

    Arrays are not hashable, so the key is their ``id``; each entry keeps its owners alive
    and is checked against them, so a reused ``id`` never returns a stale value. The
    memo empties itself past ``size`` entries.

    Examples
    --------
    >>> memo, owner = IdentityMemo(), np.arange(3)
    >>> memo.get((owner,), lambda: int(owner.sum())), memo.get((owner,), lambda: -1)
    (3, 3)
    """

    def __init__(self, size: int = 64) -> None:
        self._size = size
        self._entries: dict[tuple[int, ...], tuple[tuple[Any, ...], Any]] = {}

    def get(self, owners: tuple[Any, ...], compute: Callable[[], T]) -> T:
        """The value for ``owners``, computing it with ``compute`` the first time."""
        key = tuple(id(o) for o in owners)
        hit = self._entries.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], owners, strict=True)):
            value: T = hit[1]
            return value
        value = compute()
        if len(self._entries) >= self._size:
            self._entries.clear()
        self._entries[key] = (owners, value)
        return value
