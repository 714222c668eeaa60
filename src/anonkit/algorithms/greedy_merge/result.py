"""The release found by greedy class merging: :class:`GreedyMergeResult`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from anonkit._arrays import IntArray
from anonkit.core.hierarchy import Hierarchy


@dataclass(frozen=True, eq=False)
class GreedyMergeResult:
    """A k-anonymous local recoding found by :class:`GreedyMerge`.

    Attributes
    ----------
    k, cost, small_class
        The parameters of the run (``k`` is the requested k).
    columns, hierarchies
        The quasi-identifiers, in order.
    class_of_record
        ``(n_records,)``: the released class of every record.
    class_sizes
        ``(n_classes,)``: records per class.
    class_levels, class_codes
        ``(n_qi, n_classes)``: each class's released node per attribute, as a level and the
        code at that level (an index into ``hierarchies[i].labels(level)``).
    levels
        ``(n_qi, n_records)``: the generalization level of every released cell.
    losses
        Each of the seven functions of :data:`~anonkit.metrics.cost_matrix.COST_FUNCTIONS`
        evaluated on the release (:func:`~anonkit.metrics.cost_matrix.cost_loss`).
    alteration
        Percentage of alteration of the release under each of the seven functions.
    modified_percentage, deleted_percentage, deleted_of_modified_percentage
        Shares of modified values, of deleted values (released at the root), and of
        deleted among modified values, in percent.
    effective_k
        Size of the smallest class of the release (the paper's "minimum k").
    n_initial_classes
        Distinct quasi-identifier combinations of the input.
    n_merges
        Iterations of Algorithm 1 (one merge each).
    n_fused
        Merges that produced another class's values, so that class joined too.
    timing
        Seconds per stage: ``group``, ``merge``, ``metrics``, ``total``.
    order, seed, fuse
        How ``C(T)`` was listed (``"codes"`` or ``"random"``, with its ``seed``) and
        whether classes that came to share their values were fused during the run.
    tie_counts
        ``(n_merges,)``: per merge, how many candidates tied for the minimal merge cost
        (1: the cost alone chose the partner; more: the position in ``C(T)`` did).
    """

    k: int
    cost: str
    small_class: str
    columns: tuple[str, ...]
    hierarchies: tuple[Hierarchy, ...] = field(repr=False)
    class_of_record: IntArray = field(repr=False)
    class_sizes: IntArray = field(repr=False)
    class_levels: IntArray = field(repr=False)
    class_codes: IntArray = field(repr=False)
    levels: npt.NDArray[np.int8] = field(repr=False)
    losses: Mapping[str, float]
    alteration: Mapping[str, float]
    modified_percentage: float
    deleted_percentage: float
    deleted_of_modified_percentage: float
    effective_k: int
    n_initial_classes: int
    n_merges: int
    n_fused: int
    timing: Mapping[str, float]
    order: str = "codes"
    seed: int = 0
    fuse: bool = True
    tie_counts: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False)

    @property
    def tied_merges(self) -> int:
        """Merges whose partner was chosen among two or more candidates of minimal cost."""
        return int((self.tie_counts > 1).sum())

    @property
    def n_records(self) -> int:
        return int(self.class_of_record.shape[0])

    @property
    def n_classes(self) -> int:
        return int(self.class_sizes.shape[0])

    @property
    def class_labels(self) -> tuple[tuple[str, ...], ...]:
        """Per class, its released label for every quasi-identifier."""
        per_qi = [
            [h.labels(int(lv))[int(c)] for lv, c in zip(lvs, codes, strict=True)]
            for h, lvs, codes in zip(
                self.hierarchies, self.class_levels, self.class_codes, strict=True
            )
        ]
        return tuple(zip(*per_qi, strict=True)) if per_qi else ()

    def released_values(self) -> dict[str, list[str]]:
        """The released quasi-identifier columns, one label per record."""
        out: dict[str, list[str]] = {}
        for col, labels in zip(self.columns, zip(*self.class_labels, strict=True), strict=True):
            arr = np.array(labels, dtype=object)
            out[col] = arr[self.class_of_record].tolist()
        return out

    def to_dict(self) -> dict[str, Any]:
        """The scalar results as plain JSON-ready values (no per-record arrays)."""
        return {
            "algorithm": "greedy_merge",
            "k": self.k,
            "cost": self.cost,
            "small_class": self.small_class,
            "columns": list(self.columns),
            "n_records": self.n_records,
            "n_classes": self.n_classes,
            "n_initial_classes": self.n_initial_classes,
            "effective_k": self.effective_k,
            "losses": dict(self.losses),
            "alteration": dict(self.alteration),
            "modified_percentage": self.modified_percentage,
            "deleted_percentage": self.deleted_percentage,
            "deleted_of_modified_percentage": self.deleted_of_modified_percentage,
            "n_merges": self.n_merges,
            "n_fused": self.n_fused,
            "order": self.order,
            "seed": self.seed,
            "fuse": self.fuse,
            "tied_merges": self.tied_merges,
            "timing": dict(self.timing),
        }
