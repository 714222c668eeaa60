"""Mondrian's allowable-cut test: privacy models judged on the parts a cut would create.

A cut is *allowable* when every privacy model accepts the parts it creates
(LeFevre, DeWitt & Ramakrishnan 2006, Sec. 4: a cut is allowable when both sides still
satisfy the requirement). Models are judged through the contract of
:mod:`anonkit.models.base`:

* class-local models (``class_local`` True) see a :class:`ClassSummary` of the candidate
  parts only; a cut is allowed when none of its parts violates. Many partitions are
  judged in one call, one row per candidate part.
* table-level models (``class_local`` False, e.g. average risk) see the summary of the
  whole set of partitions as it would be after the cut (:class:`TableState`).

Sensitive histograms carry the *whole table's* histogram as ``totals``; population counts
are the number of population records inside the box the part would be released as.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from anonkit._arrays import BoolArray, IntArray
from anonkit.algorithms.mondrian.attributes import SensitiveAttribute
from anonkit.algorithms.mondrian.segments import ramp
from anonkit.exceptions import ParameterError
from anonkit.models.base import (
    CLASS_SIZE,
    POPULATION_COUNT,
    SENSITIVE_HISTOGRAM,
    ClassSummary,
    PrivacyModel,
)
from anonkit.models.judge import (
    SensitiveSource,
    class_histograms,
    first_violated,
    summarize_classes,
    value_totals,
    violations,
)
from anonkit.models.k_anonymity import KAnonymity, split_k_anonymity

KNOWN_REQUIREMENTS = frozenset({CLASS_SIZE, SENSITIVE_HISTOGRAM, POPULATION_COUNT})


@dataclass(frozen=True, eq=False)
class PartStats:
    """Statistics of a batch of (candidate or final) parts, one row per part."""

    sizes: IntArray
    histograms: Mapping[str, IntArray]
    population: IntArray | None

    def take(self, rows: IntArray) -> PartStats:
        return PartStats(
            self.sizes[rows],
            {k: v[rows] for k, v in self.histograms.items()},
            None if self.population is None else self.population[rows],
        )

    @staticmethod
    def concat(parts: Sequence[PartStats]) -> PartStats:
        first = parts[0]
        return PartStats(
            np.concatenate([p.sizes for p in parts]),
            {k: np.concatenate([p.histograms[k] for p in parts]) for k in first.histograms},
            None
            if first.population is None
            else np.concatenate([p.population for p in parts if p.population is not None]),
        )


class Judge:
    """The privacy models, split by kind, with the data they read.

    Parameters
    ----------
    models
        Privacy models (at least one).
    n_records
        Records in the table.
    sensitive
        Sensitive attributes by name; those named by a model's ``attribute`` are used.
    population_size
        Records in the population table, or ``None`` if none was given.
    """

    def __init__(
        self,
        models: Sequence[PrivacyModel],
        n_records: int,
        sensitive: Mapping[str, SensitiveAttribute],
        population_size: int | None,
    ) -> None:
        self.models = tuple(models)
        self.n_records = n_records
        self.population_size = population_size
        names: dict[str, SensitiveAttribute] = {}
        for model in self.models:
            unknown = set(model.requires) - KNOWN_REQUIREMENTS
            if unknown:
                raise ParameterError(
                    "models",
                    "Mondrian",
                    f"models requiring only {sorted(KNOWN_REQUIREMENTS)}",
                    f"{model.describe()} requiring {sorted(unknown)}",
                )
            if SENSITIVE_HISTOGRAM in model.requires:
                for attribute in model.sensitive_attributes:
                    if attribute not in sensitive:
                        raise ParameterError(
                            "sensitive",
                            "Mondrian",
                            f"a SensitiveAttribute named {attribute!r} (required by "
                            f"{model.describe()})",
                            sorted(sensitive),
                        )
                    names[attribute] = sensitive[attribute]
            if POPULATION_COUNT in model.requires and population_size is None:
                raise ParameterError(
                    "population",
                    "Mondrian",
                    f"a population table (required by {model.describe()})",
                    None,
                )
        self.sensitive = names
        #: The sensitive attributes with their table totals, for the class summaries.
        self.sources = [
            SensitiveSource(
                name, attr.labels, value_totals(attr.codes, len(attr.labels)), attr.hierarchy
            )
            for name, attr in names.items()
        ]
        self.local = tuple(m for m in self.models if m.class_local)
        self.table = tuple(m for m in self.models if not m.class_local)
        k, _ = split_k_anonymity(self.models)
        #: Every part of an allowable cut has at least this many records (k-anonymity).
        self.min_part_size = k if k is not None else 1
        #: Partitions smaller than this cannot be cut (each part needs k records).
        self.min_cut_size = max(2, 2 * self.min_part_size)
        #: Only part sizes matter: every model is k-anonymity.
        self.sizes_only = all(isinstance(m, KAnonymity) for m in self.models)

    # ----------------------------------------------------------------- statistics
    def part_stats(
        self, records: IntArray, part: IntArray, sizes: IntArray, population: IntArray | None
    ) -> PartStats:
        """Statistics of parts: ``part[i]`` is the part of ``records[i]``, ``sizes`` the
        records per part; adds the sensitive histograms the models need."""
        n_parts = int(sizes.shape[0])
        hists = {
            name: class_histograms(
                part, attr.codes[records].astype(np.int64), n_parts, len(attr.labels)
            )
            for name, attr in self.sensitive.items()
        }
        return PartStats(sizes, hists, population)

    def summary(self, stats: PartStats) -> ClassSummary:
        """The class summary of ``stats`` (one class per part)."""
        return summarize_classes(
            stats.sizes,
            self.n_records,
            self.sources,
            [stats.histograms[s.name] for s in self.sources],
            population=stats.population,
            population_size=self.population_size,
        )

    # -------------------------------------------------------------------- verdicts
    def local_violations(self, stats: PartStats) -> BoolArray:
        """Per part: does any class-local model reject it?"""
        if not self.local:
            return np.zeros(stats.sizes.shape[0], dtype=bool)
        return violations(self.local, self.summary(stats))

    def table_violated(self, stats: PartStats) -> bool:
        """Does any table-level model reject this complete set of partitions?"""
        if not self.table:
            return False
        return first_violated(self.table, self.summary(stats)) is not None

    def first_violated(self, stats: PartStats) -> PrivacyModel | None:
        """The first model (in the given order) that rejects a complete set of classes."""
        return first_violated(self.models, self.summary(stats))


class TableState:
    """The current partitions' statistics, for table-level models.

    One row per partition (finished or still to be cut); cutting a partition retires its
    row and appends one row per part. Each check builds the summary of the live rows, so
    it costs O(partitions): table-level models make Mondrian quadratic in the number of
    partitions (class-local models do not).
    """

    def __init__(self, judge: Judge, root: PartStats) -> None:
        self.judge = judge
        self.stats = root
        self.alive = np.ones(1, dtype=bool)
        #: Row of each partition of the current round.
        self.row_of: IntArray = np.zeros(1, dtype=np.int64)
        self._first_row: dict[int, int] = {}

    def try_cut(self, partition: int, parts: PartStats) -> bool:
        """Record the cut of ``partition`` into ``parts`` if the table-level models allow it."""
        row = int(self.row_of[partition])
        keep = self.alive.copy()
        keep[row] = False
        candidate = PartStats.concat([self.stats.take(np.flatnonzero(keep)), parts])
        if self.judge.table_violated(candidate):
            return False
        self._first_row[partition] = int(self.alive.shape[0])
        self.stats = PartStats.concat([self.stats, parts])
        self.alive = np.concatenate([keep, np.ones(parts.sizes.shape[0], dtype=bool)])
        return True

    def next_round(self, cut_partitions: IntArray, fans: IntArray) -> None:
        """Map the next round's partitions (the parts, in partition order) to their rows."""
        first = np.array([self._first_row[int(p)] for p in cut_partitions], dtype=np.int64)
        self.row_of = np.repeat(first, fans) + ramp(fans)
        self._first_row = {}
