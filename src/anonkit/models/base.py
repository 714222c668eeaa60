"""The privacy-model contract.

A privacy model is a small frozen value object. It declares, as data, which per-class
statistics it needs and whether it is monotone under generalization (with and without
record suppression); the search chooses its pruning from those flags. Its one method,
:meth:`PrivacyModel.violations`, takes the equivalence-class summary and returns which
classes violate it. Violating classes are suppressed as long as the suppression limit
allows.

A model declares the sensitive attributes it protects (``sensitive_attributes``; the caller
puts each one's :class:`SensitiveColumn` into the summary when the model requires
``SENSITIVE_HISTOGRAM``) and the smallest class that can satisfy it (``min_class_size``:
k-anonymity's ``k``, ℓ-diversity's ``l``, else 1), which lets searches rule out classes by
their size alone. A model that requires ``POPULATION_COUNT`` reads
``ClassSummary.population``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Protocol, runtime_checkable

from anonkit._arrays import BoolArray, IntArray

if TYPE_CHECKING:
    from anonkit.core.hierarchy import Hierarchy

#: Statistic names a model may require.
CLASS_SIZE = "class_size"
SENSITIVE_HISTOGRAM = "sensitive_histogram"
POPULATION_COUNT = "population_count"


@dataclass(frozen=True, eq=False)
class SensitiveColumn:
    """How one sensitive attribute is distributed over the equivalence classes.

    Attributes
    ----------
    name
        The attribute's column name.
    labels
        The attribute's distinct values; code ``i`` stands for ``labels[i]``.
    histogram
        ``(n_classes, n_values)`` int64: records of each class holding each value.
    totals
        ``(n_values,)`` int64: records of the *whole table* holding each value (the
        distribution t-closeness, δ-disclosure and β-likeness compare against). Carried
        explicitly because a summary may cover only some classes (Mondrian's split test).
    hierarchy
        The attribute's generalization hierarchy, when one was given (hierarchical EMD).
    """

    name: str
    labels: tuple[str, ...]
    histogram: IntArray
    totals: IntArray
    hierarchy: Hierarchy | None = None


@dataclass(frozen=True, eq=False)
class ClassSummary:
    """Per-equivalence-class statistics at one transformation.

    Attributes
    ----------
    sizes
        Number of records in each class.
    n_records
        Records in the table (the sum of ``sizes`` when the summary covers every class).
    sensitive
        Per sensitive attribute name, its :class:`SensitiveColumn` (only when a model
        requires ``SENSITIVE_HISTOGRAM``).
    population
        ``(n_classes,)`` int64: records of the known population table that fall into each
        class (only when a model requires ``POPULATION_COUNT``; k-map, δ-presence).
    population_size
        Records in the population table.
    """

    sizes: IntArray
    n_records: int
    sensitive: Mapping[str, SensitiveColumn] = field(default_factory=dict)
    population: IntArray | None = None
    population_size: int | None = None

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
    #: A class's verdict depends only on its own statistics (and table-wide totals), not
    #: on the other classes. False for table-level models such as average risk.
    class_local: ClassVar[bool]

    @property
    def sensitive_attributes(self) -> tuple[str, ...]:
        """The sensitive attributes the model protects (empty when it judges class sizes or
        population counts only)."""
        ...

    @property
    def min_class_size(self) -> int:
        """The smallest class that can satisfy the model: every class with fewer records
        violates it, whatever its other statistics (1 when sizes alone bound nothing)."""
        ...

    def violations(self, classes: ClassSummary) -> BoolArray:
        """Mask of the classes that violate the model."""
        ...

    def describe(self) -> str:
        """One line naming the model and its parameters."""
        ...
