"""The one judging path: summarize equivalence classes, then apply the privacy models.

Every algorithm that judges classes (the lattice evaluator, Mondrian's cut test, local
suppression) keeps its own data layout and calls these functions for what is common:

1. :func:`value_totals` once per sensitive attribute: its value counts over the whole table;
2. :func:`class_histograms` per batch of classes: records of each class holding each value;
3. :func:`summarize_classes`: sizes, histograms with the table totals and population counts
   gathered into one :class:`~anonkit.models.base.ClassSummary`;
4. :func:`violations` (or :func:`first_violated`): the models applied to the summary.

Examples
--------
>>> import numpy as np
>>> from anonkit.models import KAnonymity
>>> summary = summarize_classes(np.array([3, 1]), 4)
>>> violations([KAnonymity(2)], summary).tolist()
[False, True]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from anonkit._arrays import BoolArray, IntArray
from anonkit.models.base import ClassSummary, PrivacyModel, SensitiveColumn

if TYPE_CHECKING:
    from anonkit.core.hierarchy import Hierarchy


@dataclass(frozen=True, eq=False)
class SensitiveSource:
    """What a judge knows of one sensitive attribute besides its per-class histograms.

    The fields of :class:`~anonkit.models.base.SensitiveColumn` but the histogram:
    ``totals`` comes from :func:`value_totals` over the whole table, once.
    """

    name: str
    labels: tuple[str, ...]
    totals: IntArray
    hierarchy: Hierarchy | None = None

    @property
    def n_values(self) -> int:
        """Width of the attribute's histograms (at least 1)."""
        return max(len(self.labels), 1)


def value_totals(
    codes: npt.ArrayLike, n_values: int, weights: npt.ArrayLike | None = None
) -> IntArray:
    """Records holding each value code (each row counted ``weights`` times when given)."""
    out: IntArray = np.bincount(
        np.asarray(codes, dtype=np.int64), weights=weights, minlength=n_values
    ).astype(np.int64)
    return out


def class_histograms(
    class_of: IntArray,
    codes: IntArray,
    n_classes: int,
    n_values: int,
    weights: npt.ArrayLike | None = None,
) -> IntArray:
    """``(n_classes, n_values)`` records of each class holding each value.

    ``class_of[i]`` is the class of row ``i``, ``codes[i]`` its value code, ``weights[i]``
    the records it stands for (1 when not given).
    """
    flat = np.bincount(class_of * n_values + codes, weights=weights, minlength=n_classes * n_values)
    out: IntArray = flat.astype(np.int64).reshape(n_classes, n_values)
    return out


def summarize_classes(
    sizes: IntArray,
    n_records: int,
    sensitive: Sequence[SensitiveSource] = (),
    histograms: Sequence[IntArray] = (),
    *,
    population: IntArray | None = None,
    population_size: int | None = None,
) -> ClassSummary:
    """The :class:`ClassSummary` of classes with ``sizes`` records.

    Parameters
    ----------
    sizes
        Records per class.
    n_records
        Records in the table.
    sensitive
        The sensitive attributes the models read, in the order of ``histograms``.
    histograms
        Per attribute of ``sensitive``, its ``(n_classes, n_values)`` histogram.
    population
        Population records per class (k-map, δ-presence), if any.
    population_size
        Records of the population table, if any.
    """
    columns = {
        s.name: SensitiveColumn(s.name, s.labels, hist, s.totals, s.hierarchy)
        for s, hist in zip(sensitive, histograms, strict=True)
    }
    return ClassSummary(
        sizes,
        n_records,
        sensitive=columns,
        population=population,
        population_size=population_size,
    )


def violations(models: Sequence[PrivacyModel], summary: ClassSummary) -> BoolArray:
    """Per class of ``summary``: does any of ``models`` reject it?

    Class-local models judge every class; a table-level model (``class_local`` False:
    average risk) then judges the classes they keep, and gives up the fewest more, as the
    release's verification judges it: on every class it would have given up others too,
    suppressing more than needed, or keeping a release it does not accept.
    """
    bad = np.zeros(summary.n_classes, dtype=bool)
    for model in models:
        if model.class_local:
            bad |= np.asarray(model.violations(summary), dtype=bool)
    return table_violations(models, summary, bad)


def table_violations(
    models: Sequence[PrivacyModel], summary: ClassSummary, bad: BoolArray
) -> BoolArray:
    """``bad`` (the classes the class-local ``models`` reject) with the classes the
    table-level ones give up besides, each judging the classes still kept."""
    for model in models:
        if not model.class_local:
            kept = np.flatnonzero(~bad)
            rejected = np.asarray(model.violations(_classes(summary, kept)), dtype=bool)
            bad = bad.copy()
            bad[kept[rejected]] = True
    return bad


def _classes(summary: ClassSummary, rows: IntArray) -> ClassSummary:
    """``summary`` of the classes ``rows`` only (table-wide totals unchanged)."""
    if rows.shape[0] == summary.n_classes:
        return summary
    sensitive = {
        name: dataclasses.replace(col, histogram=col.histogram[rows])
        for name, col in summary.sensitive.items()
    }
    population = None if summary.population is None else summary.population[rows]
    return dataclasses.replace(
        summary, sizes=summary.sizes[rows], sensitive=sensitive, population=population
    )


def first_violated(models: Sequence[PrivacyModel], summary: ClassSummary) -> PrivacyModel | None:
    """The first of ``models`` (in order) that rejects some class of ``summary``."""
    for model in models:
        if np.any(model.violations(summary)):
            return model
    return None
