"""The size screens of :mod:`.prefilter` for every column pair, in compiled calls.

One call of :func:`._screen_kernel.pairs_below` counts, per column pair and level
combination, the records in projected classes smaller than the least class size; one
call of :func:`._screen_kernel.open_nodes` then tells which lattice nodes every pair
leaves open. The kernels load with the other compiled kernels
(:func:`~anonkit.core.grouping.compiled_ready`); without them the screens are empty and
:mod:`.prefilter` screens pair by pair in numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from anonkit._arrays import BoolArray, FloatArray, IntArray
from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.core.grouping import compiled_ready
from anonkit.core.lattice import Lattice
from anonkit.models.k_anonymity import KAnonymity

__all__ = ["DENSE_PAIRS", "DENSE_TRIPLES", "CompiledScreens", "compiled_screens", "share_screens"]


#: Largest value-pair table (leaves of a times leaves of b) a pair screen builds densely.
DENSE_PAIRS = 1 << 16
#: Largest table of value triples (leaves of a and b, sensitive values) a share screen
#: builds densely (8 MB of counts).
DENSE_TRIPLES = 1 << 20


@dataclass(frozen=True)
class CompiledScreens:
    """Per screened pair ``(a, b)``, the records a size screen rejects at each level
    combination ``la * heights[b] + lb``: ``out[starts[p]:]`` for ``pairs[p]``."""

    pairs: dict[tuple[int, int], int] = field(default_factory=dict)
    starts: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    out: FloatArray = field(default_factory=lambda: np.zeros(0))
    heights: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def get(self, pair: tuple[int, int]) -> FloatArray | None:
        """The screen of ``pair``, or ``None`` when it was not screened here."""
        p = self.pairs.get(pair)
        if p is None:
            return None
        a, b = pair
        start = int(self.starts[p])
        return self.out[start : start + int(self.heights[a] * self.heights[b])]

    def passing(
        self, lattice: Lattice, pairs: Sequence[tuple[int, int]], limit: int
    ) -> BoolArray | None:
        """The nodes of ``lattice`` at which every one of ``pairs`` rejects at most
        ``limit`` records, in one pass; ``None`` unless all of them were screened here
        and the lattice lists its nodes."""
        if not pairs or any(p not in self.pairs for p in pairs) or not lattice.explicit:
            return None
        from anonkit.algorithms.lattice._screen_kernel import open_nodes

        index = np.asarray([self.pairs[p] for p in pairs], dtype=np.int64)
        passes: BoolArray = open_nodes(
            lattice.nodes,
            self.out,
            self.starts[index],
            np.asarray(pairs, dtype=np.int64).reshape(-1, 2),
            self.heights,
            int(limit),
        )
        return passes


def compiled_screens(evaluator: Evaluator, pairs: Sequence[tuple[int, int]]) -> CompiledScreens:
    """The size screens of every pair whose value pairs fit its dense table, in one
    compiled call: the figures of :func:`.prefilter._pair_suppressed`, without a dozen
    array operations per pair (Adult's 28 pairs: about 4 ms in numpy). Empty when the
    process does not run compiled kernels, or when a screening model judges more than a
    least class size."""
    models = evaluator.screen_models
    if not compiled_ready() or not all(isinstance(m, KAnonymity) for m in models):
        return CompiledScreens()
    table = evaluator.table
    cards = table.cardinalities
    dense = [(a, b) for a, b in pairs if cards[a][0] * cards[b][0] <= DENSE_PAIRS]
    if not dense:
        return CompiledScreens()
    from anonkit.algorithms.lattice._screen_kernel import pairs_below

    ups, labels, heights = _level_tables(evaluator)
    starts, out = _combinations(dense, heights)
    snap = table.snapshot
    pairs_below(
        np.ascontiguousarray(snap.codes, dtype=np.int64),
        snap.counts.astype(np.int64, copy=False),
        ups,
        labels,
        heights,
        np.asarray(dense, dtype=np.int64).reshape(-1, 2),
        starts,
        max([evaluator.implied_min_size, *(int(m.min_class_size) for m in models)]),
        out,
    )
    numbered = {pair: p for p, pair in enumerate(dense)}
    return CompiledScreens(numbered, starts, out, heights)


def share_screens(
    evaluator: Evaluator, pairs: Sequence[tuple[int, int]], open_nodes: BoolArray
) -> BoolArray | None:
    """``open_nodes`` less the nodes with a projection onto a column pair that has a class
    the evaluator's compiled judge rejects (entropy or recursive ℓ-diversity,
    t-closeness, without suppression), in one compiled call: the histogram screen of
    :func:`.prefilter.pair_screen` without its numpy passes (on Adult with occupation
    sensitive, hierarchical t-closeness: 5 nodes left open of 4,320, in about 2 ms, where
    the search then evaluates 2 nodes instead of 26). ``None`` when the
    evaluator has no compiled judge or one whose model does not pay
    (:attr:`.CompiledJudge.screens_pairs`), the process does not run compiled kernels,
    the lattice does not list its nodes, or a pair's value triples exceed
    :data:`DENSE_TRIPLES`."""
    judge = evaluator.compiled_judge
    detail = evaluator.table.detail
    lat = evaluator.lattice
    if (
        judge is None
        or not judge.screens_pairs
        or detail is None
        or detail.population is not None
        or not lat.explicit
        or not compiled_ready()
    ):
        return None
    cards = evaluator.table.cardinalities
    n_values = max(len(evaluator.table.sensitive[0].labels), 1)
    if any(cards[a][0] * cards[b][0] * n_values > DENSE_TRIPLES for a, b in pairs):
        return None  # the general screens keep their pair-by-pair ways for large pairs
    kept = judge.pairs_failing(
        np.ascontiguousarray(detail.codes, dtype=np.int64),
        detail.counts.astype(np.int64, copy=False),
        _level_tables(evaluator),
        np.asarray(pairs, dtype=np.int64).reshape(-1, 2),
        lat.nodes,
        open_nodes,
    )
    left: BoolArray = np.zeros(lat.size, dtype=bool)
    left[kept] = True
    return left


def _level_tables(evaluator: Evaluator) -> tuple[IntArray, IntArray, IntArray]:
    """The kernels' level tables of the quasi-identifiers: ``ups[j, level, code]``, the
    label of level-0 code ``code`` at ``level``; ``labels[j, level]``, the labels there;
    ``heights[j]``, the levels."""
    table, lat = evaluator.table, evaluator.lattice
    cards = table.cardinalities
    heights = [int(h) for h in lat.heights]
    ups = np.zeros((lat.width, max(heights), max(c[0] for c in cards)), dtype=np.int64)
    labels = np.zeros((lat.width, max(heights)), dtype=np.int64)
    for j, height in enumerate(heights):
        for level in range(height):
            up = table.level_maps[j][0][level]
            ups[j, level, : up.shape[0]] = up
            labels[j, level] = cards[j][level]
    return ups, labels, np.asarray(heights, dtype=np.int64)


def _combinations(
    pairs: Sequence[tuple[int, int]], heights: IntArray
) -> tuple[IntArray, FloatArray]:
    """Where each pair's level combinations start in the kernels' output, and the
    output, zeroed."""
    spans = [int(heights[a] * heights[b]) for a, b in pairs]
    starts = np.concatenate(([0], np.cumsum(spans)[:-1])).astype(np.int64)
    return starts, np.zeros(sum(spans))
