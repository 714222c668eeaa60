"""Mondrian on Spark with privacy models that read sensitive values: judged against the
whole table.

:func:`~anonkit.algorithms.mondrian.blocks.snapshot_blocks` cuts a frequency snapshot into
blocks whose parts hold k records. Models that read each class's sensitive values
(ℓ-diversity, t-closeness, β-likeness) need more:

* the driver's cuts must leave every block satisfying the models as one class, or no
  partition of the block could (:func:`judged_blocks`: the same cuts, allowable when every
  part passes every model, judged on the detail snapshot's sensitive histograms);
* a block's Mondrian must judge its classes against the *whole table's* distribution of
  each sensitive attribute (t-closeness and β-likeness compare a class with it), not the
  block's: :class:`AgainstTable` wraps such a model so that every summary it judges
  carries the table's totals.

A class of the release may join classes of several blocks that share their labels. The
models allowed here (:func:`block_models`) are class-local and monotone under
generalization: a class merged from classes that satisfy the model satisfies it
(distinct ℓ-diversity: the values add up; entropy ℓ-diversity: the entropy of a mixture is
at least the smallest entropy; recursive (c, ℓ)-diversity, Machanavajjhala et al. 2007,
Sec. 4.3; t-closeness: the EMD is convex in the class distribution, Li et al. 2007,
Sec. 4). Models that judge the whole set of classes (average risk), read a population
table (k-map, δ-presence) or are not monotone under merging (δ-disclosure) are refused.

References
----------
LeFevre, K., DeWitt, D. J. & Ramakrishnan, R. (2006). Mondrian multidimensional
k-anonymity. ICDE 2006.

Machanavajjhala, A., Kifer, D., Gehrke, J. & Venkitasubramaniam, M. (2007). ℓ-diversity:
privacy beyond k-anonymity. ACM TKDD 1(1).

Li, N., Li, T. & Venkatasubramanian, S. (2007). t-Closeness: privacy beyond k-anonymity
and ℓ-diversity. ICDE 2007.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from anonkit._arrays import BoolArray, IntArray
from anonkit.algorithms.mondrian.attributes import Axis
from anonkit.algorithms.mondrian.blocks import candidate_cuts, cut_blocks
from anonkit.exceptions import ParameterError
from anonkit.models.base import CLASS_SIZE, SENSITIVE_HISTOGRAM, ClassSummary, PrivacyModel
from anonkit.models.judge import SensitiveSource, class_histograms, summarize_classes, violations

__all__ = ["AgainstTable", "SnapshotDetail", "block_models", "judged_blocks"]

OWNER = "mondrian_spark"
_READS = frozenset({CLASS_SIZE, SENSITIVE_HISTOGRAM})


def block_models(models: Sequence[PrivacyModel]) -> list[PrivacyModel]:
    """``models``, checked for per-block Mondrian (see the module docstring).

    Raises
    ------
    ParameterError
        Naming the first model that a block cannot judge, and why.
    """
    for m in models:
        why = None
        if not m.class_local:
            why = "it judges the whole set of classes, which no block sees"
        elif not set(m.requires) <= _READS:
            why = "it reads a population table"
        elif not m.monotone_generalization:
            why = "classes of different blocks that share their labels could violate it"
        if why is not None:
            raise ParameterError(
                "privacy",
                OWNER,
                "k-anonymity, ℓ-diversity, t-closeness or other class-local models monotone "
                f"under generalization ({m.describe()} cannot run per block: {why}; run "
                "Mondrian in memory for it)",
                m.describe(),
            )
    return list(models)


@dataclass(frozen=True, eq=False)
class AgainstTable:
    """A model that reads sensitive histograms, judging against the whole table's totals.

    Parameters
    ----------
    model
        The model (class-local, requiring sensitive histograms).
    totals
        Per sensitive attribute, the whole table's records per value, in the order of the
        labels the judged summaries carry.
    n_records
        Records of the whole table.
    """

    model: PrivacyModel
    totals: Mapping[str, IntArray]
    n_records: int

    requires: ClassVar[frozenset[str]] = _READS
    monotone_generalization: ClassVar[bool] = True
    monotone_suppression: ClassVar[bool] = False
    class_local: ClassVar[bool] = True

    @property
    def sensitive_attributes(self) -> tuple[str, ...]:
        return tuple(self.model.sensitive_attributes)

    @property
    def min_class_size(self) -> int:
        return int(self.model.min_class_size)

    def violations(self, classes: ClassSummary) -> BoolArray:
        columns = {
            name: dataclasses.replace(col, totals=self.totals[name]) if name in self.totals else col
            for name, col in classes.sensitive.items()
        }
        judged = dataclasses.replace(classes, sensitive=columns, n_records=self.n_records)
        return np.asarray(self.model.violations(judged), dtype=bool)

    def describe(self) -> str:
        return self.model.describe()


@dataclass(frozen=True, eq=False)
class SnapshotDetail:
    """The sensitive values of a snapshot's rows, for judging parts of it.

    Attributes
    ----------
    sources
        Per sensitive attribute: its labels and the whole table's totals.
    pointers
        Per attribute, ``(rows + 1,)``: the entries of snapshot row ``r`` are
        ``pointers[r] .. pointers[r + 1] - 1``.
    codes, counts
        Per attribute, each entry's value code and records.
    """

    sources: tuple[SensitiveSource, ...]
    pointers: tuple[IntArray, ...]
    codes: tuple[IntArray, ...]
    counts: tuple[IntArray, ...]

    @classmethod
    def build(
        cls,
        sources: Sequence[SensitiveSource],
        rows: Sequence[IntArray],
        codes: Sequence[IntArray],
        counts: Sequence[IntArray],
        n_rows: int,
    ) -> SnapshotDetail:
        """From per-attribute entries (snapshot row, value code, records), any order."""
        ptrs, cs, ns = [], [], []
        for r, c, n in zip(rows, codes, counts, strict=True):
            order = np.argsort(r, kind="stable")
            ptrs.append(np.r_[0, np.cumsum(np.bincount(r, minlength=n_rows))].astype(np.int64))
            cs.append(c[order].astype(np.int64))
            ns.append(n[order].astype(np.int64))
        return cls(tuple(sources), tuple(ptrs), tuple(cs), tuple(ns))

    def histograms(self, rows: IntArray, part: IntArray, n_parts: int) -> list[IntArray]:
        """Per attribute, ``(n_parts, n_values)`` records of each part holding each value,
        where snapshot row ``rows[i]`` belongs to part ``part[i]``."""
        out = []
        for s, ptr, codes, counts in zip(
            self.sources, self.pointers, self.codes, self.counts, strict=True
        ):
            lengths = ptr[rows + 1] - ptr[rows]
            total = int(lengths.sum())
            offsets = np.cumsum(lengths) - lengths
            entries = np.arange(total, dtype=np.int64) + np.repeat(ptr[rows] - offsets, lengths)
            owner = np.repeat(part, lengths)
            out.append(
                class_histograms(
                    owner, codes[entries], n_parts, s.n_values, weights=counts[entries]
                )
            )
        return out


def _violated(
    models: Sequence[PrivacyModel],
    detail: SnapshotDetail,
    n_records: int,
    rows: IntArray,
    key: IntArray,
    sizes: npt.NDArray[np.float64],
) -> bool:
    """Whether any non-empty part (``key`` of each of ``rows``) violates a model."""
    used = np.flatnonzero(sizes > 0)
    remap = np.full(sizes.shape[0], -1, dtype=np.int64)
    remap[used] = np.arange(used.shape[0])
    part = remap[key]
    hists = detail.histograms(rows, part, int(used.shape[0]))
    summary = summarize_classes(sizes[used].astype(np.int64), n_records, detail.sources, hists)
    return bool(violations(models, summary).any())


def _cut(
    axes: Sequence[Axis],
    rows: IntArray,
    weights: IntArray,
    judge: tuple[Sequence[PrivacyModel], SnapshotDetail, int],
) -> list[IntArray] | None:
    """The parts of the first allowable cut of the snapshot rows ``rows``, or ``None``:
    the candidates and their order are those of
    :func:`~anonkit.algorithms.mondrian.blocks.snapshot_blocks`."""
    models, detail, n_records = judge
    for key, sizes in candidate_cuts(axes, rows, weights):
        if int((sizes > 0).sum()) < 2:
            continue
        if not _violated(models, detail, n_records, rows, key, sizes):
            return [rows[key == f] for f in np.flatnonzero(sizes)]
    return None


def judged_blocks(
    axes: Sequence[Axis],
    counts: npt.ArrayLike,
    models: Sequence[PrivacyModel],
    detail: SnapshotDetail,
    *,
    max_records: int,
) -> IntArray:
    """The blocks of :func:`~anonkit.algorithms.mondrian.blocks.snapshot_blocks` (same
    ``axes``, ``counts``, ``max_records`` and return value), cut so that every part of a
    cut satisfies ``models`` as one class rather than holding ``k`` records.

    Parameters
    ----------
    models
        The privacy models (k-anonymity among them, or not).
    detail
        The sensitive values of the snapshot's rows, with the table's totals.
    """
    weights = np.asarray(counts, dtype=np.int64)
    judge = (list(models), detail, int(weights.sum()))
    return cut_blocks(weights, max_records, lambda rows: _cut(axes, rows, weights, judge))
