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
import numpy.typing as npt

from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.core.grouping import compiled_ready
from anonkit.core.lattice import Lattice
from anonkit.models.k_anonymity import KAnonymity

__all__ = ["DENSE_PAIRS", "CompiledScreens", "compiled_screens"]

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Largest value-pair table (leaves of a times leaves of b) a pair screen builds densely.
DENSE_PAIRS = 1 << 16


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
    table, lat = evaluator.table, evaluator.lattice
    cards = table.cardinalities
    dense = [(a, b) for a, b in pairs if cards[a][0] * cards[b][0] <= DENSE_PAIRS]
    if not dense:
        return CompiledScreens()
    from anonkit.algorithms.lattice._screen_kernel import pairs_below

    heights = [int(h) for h in lat.heights]
    ups = np.zeros((lat.width, max(heights), max(c[0] for c in cards)), dtype=np.int64)
    labels = np.zeros((lat.width, max(heights)), dtype=np.int64)
    for j, height in enumerate(heights):
        for level in range(height):
            up = table.level_maps[j][0][level]
            ups[j, level, : up.shape[0]] = up
            labels[j, level] = cards[j][level]
    spans = [heights[a] * heights[b] for a, b in dense]
    starts = np.concatenate(([0], np.cumsum(spans)[:-1])).astype(np.int64)
    out = np.zeros(sum(spans))
    snap = table.snapshot
    pairs_below(
        np.ascontiguousarray(snap.codes, dtype=np.int64),
        snap.counts.astype(np.int64, copy=False),
        ups,
        labels,
        np.asarray(heights, dtype=np.int64),
        np.asarray(dense, dtype=np.int64).reshape(-1, 2),
        starts,
        max([evaluator.implied_min_size, *(int(m.min_class_size) for m in models)]),
        out,
    )
    numbered = {pair: p for p, pair in enumerate(dense)}
    return CompiledScreens(numbered, starts, out, np.asarray(heights, dtype=np.int64))
