"""The privacy-model contract.

A privacy model is a small frozen value object. It declares, as data, which per-class
statistics it needs and whether it is monotone under generalization (with and without
record suppression); the search chooses its pruning from those flags. Its one method,
:meth:`PrivacyModel.violations`, takes the equivalence-class summary and returns which
classes violate it. Violating classes are suppressed as long as the suppression limit
allows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]

#: Statistic names a model may require.
CLASS_SIZE = "class_size"
SENSITIVE_HISTOGRAM = "sensitive_histogram"
POPULATION_COUNT = "population_count"


@dataclass(frozen=True, eq=False)
class ClassSummary:
    """Per-equivalence-class statistics at one transformation.

    Attributes
    ----------
    sizes
        Number of records in each class.
    n_records
        Records in the table (the sum of ``sizes``).
    """

    sizes: IntArray
    n_records: int

    @property
    def n_classes(self) -> int:
        return int(self.sizes.shape[0])


@runtime_checkable
class PrivacyModel(Protocol):
    """What every privacy model provides."""

    #: Statistics this model reads from :class:`ClassSummary`.
    requires: ClassVar[frozenset[str]]
    #: If a transformation satisfies the model without suppression, so does every
    #: generalization of it.
    monotone_generalization: ClassVar[bool]
    #: The same, when classes that violate the model are suppressed within a limit.
    monotone_suppression: ClassVar[bool]

    def violations(self, classes: ClassSummary) -> BoolArray:
        """Mask of the classes that violate the model."""
        ...

    def describe(self) -> str:
        """One line naming the model and its parameters."""
        ...
