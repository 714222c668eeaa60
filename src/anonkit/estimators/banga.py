"""BangA (Anjum et al. 2017) as an estimator: grid blocks merged into clusters of k or more.

Released like Hilbert's groups (see :mod:`anonkit.estimators.hilbert`): numeric
quasi-identifiers as ``[min-max]`` of the cluster, categorical ones as the lowest common
ancestor of the cluster's values.
"""

from __future__ import annotations

from typing import Any, ClassVar

from anonkit._validation import Constraint, Interval, OrNone
from anonkit.algorithms.banga import bang_blocks, merge_blocks
from anonkit.algorithms.mondrian.attributes import Axis
from anonkit.estimators.base import Privacy
from anonkit.estimators.hilbert import _Grouped
from anonkit.progress import Progress, start_stage

__all__ = ["BangA"]


class BangA(_Grouped):
    """BangA: a BANG-file grid, then density-based merging of its blocks (Anjum et al. 2017).

    **A reading of the paper, not a transcription**: only its abstract was available to
    us (see ``docs/algorithms/banga.md``), which says that BangA combines a point access
    method (the BANG file) with a density-based clustering step. anonkit implements the
    closest defensible reading:

    1. *Grid* (:func:`~anonkit.algorithms.banga.bang_blocks`): the rank space of the
       quasi-identifiers is halved region by region, cycling through the dimensions,
       while a block holds more than ``capacity`` records (the BANG file's bucket split).
    2. *Clustering* (:func:`~anonkit.algorithms.banga.merge_blocks`): while some cluster
       has fewer than ``k`` records, the densest of them merges into the cluster that
       adds the least certainty penalty.
    3. *Generalization*: each cluster is released as its bounding box.

    Parameters
    ----------
    capacity
        Records a grid block may hold before it is halved; ``None`` (default) means
        ``2k - 1`` (a block then never holds two disjoint groups of ``k``).
    privacy, leak_check, progress
        As for every estimator; the models must be k-anonymity only.

    References
    ----------
    A. Anjum, N. Ahmad, S. U. R. Malik, S. Zubair, B. Shahzad. An efficient and flexible
    generalization-based algorithm for privacy preserving data publication (BangA).
    Computers 6(1):1, 2017. M. Freeston. The BANG file: a new kind of grid file.
    SIGMOD 1987.
    """

    name = "banga"
    _metric = "gcp"
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "capacity": OrNone(Interval(int, 1)),
    }

    def __init__(
        self,
        capacity: int | None = None,
        *,
        privacy: Privacy | None = None,
        leak_check: bool = True,
        progress: Progress | None = None,
    ) -> None:
        self.capacity = capacity
        self.privacy = privacy
        self.leak_check = leak_check
        self.progress = progress

    def _group(self, axes: list[Axis], k: int) -> tuple[Any, dict[str, Any], dict[str, float]]:
        capacity = self.capacity if self.capacity is not None else 2 * k - 1
        start_stage(self.progress, "BANG grid", "rounds")
        blocks = bang_blocks(axes, capacity, progress=self.progress)
        start_stage(self.progress, "Merging blocks", "small blocks")
        cluster_of, penalty = merge_blocks(axes, blocks, k, progress=self.progress)
        n, d = cluster_of.shape[0], len(axes)
        gcp = penalty / (n * d)
        details = {"capacity": capacity, "blocks": blocks.n_blocks, "grid_rounds": blocks.rounds}
        return cluster_of, {**details, "gcp": gcp}, {"gcp": gcp}
