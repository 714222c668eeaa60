"""The engine contract and registry: where the records are counted and released.

The full-domain search never sees a record. It works on frequency snapshots (one row per
distinct combination of quasi-identifier codes), so the records are touched twice: once
to count them, once to write the release. An engine does both where the data lives:

``count``
    the bottom snapshot of the quasi-identifiers (:class:`~anonkit.core.encoding.EncodedTable`);
``count_detail``
    the same, with the sensitive values and population counts the privacy models read;
``distinct``
    the distinct (normalized) values of a column, for building hierarchies;
``apply``
    the release of a :class:`~anonkit.core.transform.ReleasePlan`, in the engine's own
    frame type (a polars frame, a lazy query, a Spark DataFrame).

Every engine reports the same errors for the same data (missing values, values outside
a hierarchy, an empty table): :class:`GroupingEngine` derives ``count`` and
``count_detail`` from one grouped count an engine provides, so an engine implements a
group-by, not the rules. Algorithms that work record by record (Mondrian, greedy
merging, microaggregation, local suppression) need the records in memory; engines that
do not hold them say so with ``in_memory = False``. Optional engines (``spark``) are
imported only when asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any, Protocol

import polars as pl

from anonkit.core.encoding import EncodedTable
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.transform import ReleasePlan
from anonkit.engines.counting import COUNT, SensitiveSpec, check_counts, table_from_counts
from anonkit.exceptions import UnknownNameError

__all__ = [
    "COUNT",
    "Engine",
    "GroupingEngine",
    "SensitiveSpec",
    "available_engines",
    "get_engine",
]


class Engine(Protocol):
    """Count records and write releases where the data lives."""

    name: str
    #: Whether the records sit in this process's memory (record-level algorithms need it).
    in_memory: bool

    def count(
        self, source: Any, columns: Sequence[str], hierarchies: Sequence[Hierarchy]
    ) -> EncodedTable:
        """The bottom snapshot of ``columns`` of ``source``, encoded against ``hierarchies``.

        Raises
        ------
        EmptyDataError
            If ``source`` holds no record.
        MissingValuesError
            If a quasi-identifier holds nulls.
        ValuesNotInHierarchyError
            If a value is not a leaf of its column's hierarchy.
        """
        ...

    def count_detail(
        self,
        source: Any,
        columns: Sequence[str],
        hierarchies: Sequence[Hierarchy],
        sensitive: Sequence[SensitiveSpec] = (),
        population: Any = None,
    ) -> EncodedTable:
        """:meth:`count`, plus the detail snapshot over the quasi-identifiers and the
        sensitive attributes, with the population's counts when ``population`` is given."""
        ...

    def distinct(self, source: Any, column: str) -> list[str]:
        """The distinct normalized values of ``column`` (missing values left out)."""
        ...

    def apply(self, source: Any, plan: ReleasePlan) -> Any:
        """The release of ``source`` under ``plan``, in the engine's frame type."""
        ...


class GroupingEngine:
    """``count`` and ``count_detail`` from one grouped count.

    Subclasses implement :meth:`group_counts` (one pass over the records) and
    :meth:`unknown_values` (asked only when a value is missing from a hierarchy, to name
    it in the error).
    """

    name = "grouping"
    in_memory = True

    def group_counts(
        self,
        source: Any,
        columns: Sequence[str],
        hierarchies: Sequence[Hierarchy],
        sensitive: Sequence[str] = (),
    ) -> pl.DataFrame:
        """One row per distinct combination: the quasi-identifiers' level-0 codes (Int64;
        :data:`~anonkit.core.values.UNKNOWN_CODE` / :data:`~anonkit.core.values.MISSING_CODE`
        for values outside the hierarchy / missing), the sensitive columns' normalized
        text (String, null when missing) and the number of records in ``COUNT``."""
        raise NotImplementedError

    def unknown_values(
        self, source: Any, column: str, hierarchy: Hierarchy
    ) -> tuple[list[str], int]:
        """Up to ten distinct values of ``column`` that ``hierarchy`` lacks, and how many
        distinct ones there are in all."""
        raise NotImplementedError

    def count(
        self, source: Any, columns: Sequence[str], hierarchies: Sequence[Hierarchy]
    ) -> EncodedTable:
        counts = self.group_counts(source, columns, hierarchies)
        check_counts(counts, columns, (), lambda j: self._unknown(source, columns, hierarchies, j))
        return table_from_counts(counts, columns, hierarchies, detailed=False)

    def count_detail(
        self,
        source: Any,
        columns: Sequence[str],
        hierarchies: Sequence[Hierarchy],
        sensitive: Sequence[SensitiveSpec] = (),
        population: Any = None,
    ) -> EncodedTable:
        names = [s.name for s in sensitive]
        counts = self.group_counts(source, columns, hierarchies, names)
        check_counts(
            counts, columns, names, lambda j: self._unknown(source, columns, hierarchies, j)
        )
        pop = None
        if population is not None:
            pop = self.group_counts(population, columns, hierarchies)
            check_counts(
                pop, columns, (), lambda j: self._unknown(population, columns, hierarchies, j)
            )
        return table_from_counts(counts, columns, hierarchies, sensitive, pop)

    def _unknown(
        self, source: Any, columns: Sequence[str], hierarchies: Sequence[Hierarchy], j: int
    ) -> tuple[list[str], int]:
        return self.unknown_values(source, columns[j], hierarchies[j])


_ENGINES: dict[str, str] = {
    "polars": "anonkit.engines.polars_engine:PolarsEngine",
    "streaming": "anonkit.engines.polars_engine:StreamingEngine",
    "numpy": "anonkit.engines.numpy_engine:NumpyEngine",
    "spark": "anonkit.engines.spark_engine:SparkEngine",
}


def available_engines() -> list[str]:
    """Names of the registered engines."""
    return sorted(_ENGINES)


def get_engine(name: str = "polars") -> Engine:
    """Instantiate the engine registered under ``name``."""
    try:
        target = _ENGINES[name]
    except KeyError:
        raise UnknownNameError("engine", name, list(_ENGINES)) from None
    module_name, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module_name), attr)
    engine: Engine = cls()
    return engine
