"""Hilbert-curve k-anonymization (Ghinita et al. 2007) as an estimator.

The records are grouped (:mod:`anonkit.algorithms.hilbert`) and each group is released
as Mondrian releases its partitions (:func:`anonkit.algorithms.mondrian.release.build_release`):
numeric quasi-identifiers (``numeric=``) as ``[min-max]`` of the group, categorical ones
as the lowest common ancestor of the group's values in their hierarchy. Groups that get
identical labels form one class (never smaller than either group). ``transform`` works as
for Mondrian: a record seen in training takes its release labels, a new one the most
specific class containing it (else the nearest).

:class:`_Grouped` is the part shared with the other estimators that cut the records into
groups (BangA).
"""

from __future__ import annotations

from typing import Any, ClassVar

import polars as pl

from anonkit._validation import Constraint
from anonkit.algorithms.hilbert.partition import groups_to_partitioning, hilbert_groups
from anonkit.algorithms.mondrian.attributes import Axis, QuasiIdentifier
from anonkit.algorithms.mondrian.frame import encode_frame
from anonkit.algorithms.mondrian.release import build_release
from anonkit.estimators.base import Fitting, Privacy
from anonkit.estimators.local import Outcome, _Classes, _k_only
from anonkit.progress import Progress, start_stage

__all__ = ["Hilbert"]


def encode_quasi_identifiers(fitting: Fitting) -> list[QuasiIdentifier]:
    """The quasi-identifiers of ``fitting`` encoded as Mondrian encodes them
    (:func:`~anonkit.algorithms.mondrian.frame.encode_frame`): numeric columns by value,
    the others on their hierarchies."""
    numeric = fitting.numeric
    return encode_frame(
        fitting.data,
        quasi_identifiers=fitting.quasi_identifiers,
        hierarchies={c: h for c, h in fitting.by_name.items() if c not in numeric},
        numeric=numeric,
    )


class _Grouped(_Classes):
    """Estimators that group records (k-anonymity only) and release groups as boxes."""

    def _group(self, axes: list[Axis], k: int) -> tuple[Any, dict[str, Any], dict[str, float]]:
        """``(group_of, details, metrics)`` of the records."""
        raise NotImplementedError

    def _outcome(self, fitting: Fitting) -> Outcome:
        k = _k_only(fitting.models, self.name)
        qis = encode_quasi_identifiers(fitting)
        axes = [Axis.of(q) for q in qis]
        group_of, details, metrics = self._group(axes, k)
        start_stage(self.progress, "Releasing")
        part = groups_to_partitioning(axes, group_of)
        class_of, sizes, attributes, _ = build_release(axes, qis, part, "range")
        columns = {
            a.name: pl.Series(a.name, list(a.table), dtype=pl.String).gather(
                pl.Series(a.codes[class_of])
            )
            for a in attributes
        }
        details = {**details, "groups": part.n_partitions, "classes": int(sizes.shape[0])}
        self.details_ = {self.name: details}
        return Outcome(fitting.data.with_columns(**columns), metrics, self._metric, k)

    #: The metric the algorithm minimizes (the result's ``metric``).
    _metric: ClassVar[str] = "none"
    reads_numbers = True

    def _loss_numeric(self, fitting: Fitting) -> list[str] | None:
        return fitting.numeric

    def _read_numeric(self, fitting: Fitting) -> list[str]:
        return fitting.numeric


class Hilbert(_Grouped):
    """Hilbert-curve k-anonymization (Ghinita, Karras, Kalnis, Mamoulis 2007).

    Each record's quasi-identifiers, as ranks (numeric columns: the value's rank among the
    distinct values; categorical columns: the leaf's position in its hierarchy's leaf
    order), are a point of a grid; the points are sorted along the Hilbert curve, and the
    sequence is cut optimally (dynamic programming) into groups of ``k`` to ``2k - 1``
    consecutive records minimizing the global certainty penalty (GCP: per record, the
    summed normalized width of its group's box). Privacy must be k-anonymity alone.

    Parameters
    ----------
    privacy, leak_check, progress
        As for every estimator (:class:`~anonkit.estimators.FullDomain`).

    Notes
    -----
    Where the implementation had to choose (see ``docs/algorithms/hilbert.md``): the
    grid coordinates of categorical values are their leaf order (the paper assumes an
    ordering of each domain), the width of a categorical group is that of its lowest
    common ancestor in the hierarchy (the release's label), and the curve's order is the
    fewest bits holding every column's ranks. ``result_.metrics["gcp"]`` is the optimized
    cost; the result's loss metrics are measured on the release like Mondrian's.

    References
    ----------
    G. Ghinita, P. Karras, P. Kalnis, N. Mamoulis. Fast data anonymization with low
    information loss. VLDB 2007.
    """

    name = "hilbert"
    _metric = "gcp"
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {}

    def __init__(
        self,
        *,
        privacy: Privacy | None = None,
        leak_check: bool = True,
        progress: Progress | None = None,
    ) -> None:
        self.privacy = privacy
        self.leak_check = leak_check
        self.progress = progress

    def _group(self, axes: list[Axis], k: int) -> tuple[Any, dict[str, Any], dict[str, float]]:
        grouping = hilbert_groups(axes, k, progress=self.progress)
        return grouping.group_of, {"gcp": grouping.gcp}, {"gcp": grouping.gcp}
