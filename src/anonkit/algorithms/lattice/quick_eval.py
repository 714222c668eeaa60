"""Cheap node evaluations for the anytime heuristics: hashed roll-ups from nearby nodes.

A heuristic moves between neighbouring nodes (one column one level up or down, or one
down and another up), so the node it evaluates next is almost always one roll-up of one
or two columns away from a node it has just seen. :class:`QuickEvaluator` makes that
step cheap, on top of the :class:`~anonkit.algorithms.lattice.evaluator.Evaluator`'s
public pieces:

* **hashed class keys.** Each class carries a 64-bit key, the wrapping sum over its
  columns of a random 64-bit number per (column, level, label), and a representative row
  of the bottom snapshot. Rolling column ``j`` from level ``a`` to ``b`` changes a key
  by two numbers read through the representative, so a roll-up costs a few reads per
  changed column and class and one pass through a hash table (a compiled kernel,
  :mod:`._quick_kernels`), whatever the number of columns; an exact key over 24 columns
  needs 24 passes, overflows 64 bits on wide tables, and is grouped by a sort;
* **the source** of a roll-up is the cheapest of the cached snapshots of finer nodes and
  the bottom rows themselves, whose keys follow the last node rolled up from them (a
  neighbour of the node the search stands on is one or two columns away from them); the
  cost of a source is its rows times (2 + the columns that change), compared over all
  cached nodes by one vectorized test of their level vectors;
* **judging and pricing** go through the evaluator's models (``Evaluator.violations``)
  and the step that ends its own evaluations (``Evaluator.node_result``: suppression,
  verdict, cost models), so every model and metric means the same as in the exact
  searches.

Two different classes share a key only by a collision of the hash, with probability
about ``n^2 / 2^65`` per roll-up of ``n`` classes (about ``10^-11`` for 30,000 classes). A
collision merges classes, so it can make a node look private or cheaper than it is; it
can only misguide the search, never the release: :class:`~.anytime.AnytimeSearch`
re-evaluates its incumbent through the evaluator's exact path before returning it, and
falls back on the previous incumbent if the two disagree.

Only models that read class sizes alone are judged here (k-anonymity and the size-only
models); with sensitive attributes or population counts (``Evaluator.detailed``), or
without numba, the heuristics use the evaluator itself (:meth:`QuickEvaluator.applies`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from anonkit._arrays import IntArray
from anonkit.algorithms._numba import load_kernels
from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.node_result import NodeResult
from anonkit.core.snapshot import FrequencySnapshot
from anonkit.models.base import ClassSummary

HashArray = npt.NDArray[np.uint64]

#: Rows (summed over cached snapshots) the quick evaluator keeps for roll-ups: 24 bytes a
#: row (key, count, representative), so 72 MB at most.
CACHE_ROWS = 3_000_000
#: Largest table of random key shares (8 bytes per bottom row and level of a column; the
#: bottom rows' codes at each level take as much again): beyond it the evaluator is used.
MAX_SHARE_BYTES = 512 << 20
_NONE = np.iinfo(np.int64).max


class HashedSnapshot(FrequencySnapshot):
    """The classes of one node: hashed keys, counts and a representative bottom row each.

    The classes' codes (what the cost models read for suppressed classes) are read
    through the representatives from the bottom snapshot's codes at each level, so no
    ``(q, n)`` code matrix is built for a node.
    """

    __slots__ = ("_codes_at", "hashes", "reps")

    def __init__(
        self,
        levels: tuple[int, ...],
        hashes: HashArray,
        counts: IntArray,
        reps: IntArray,
        codes_at: _LevelCodes,
    ) -> None:
        # the base class's keys and radix are unused: codes come from the representatives
        self.levels = levels
        self._codes = None
        self.counts = counts
        self.keys = None
        self.radix = None
        self.population = None
        self.hashes = hashes
        self.reps = reps
        self._codes_at = codes_at

    @property
    def codes(self) -> IntArray:
        if self._codes is None:
            self._codes = self.codes_of(np.arange(self.n_classes))
        return self._codes

    def codes_of(self, rows: IntArray) -> IntArray:
        reps = self.reps[rows]
        out = np.empty((len(self.levels), reps.shape[0]), dtype=np.int64)
        for j, lv in enumerate(self.levels):
            out[j] = self._codes_at.get(j, lv)[reps]
        return out


class _LevelCodes:
    """Per column and level, the code of every bottom row (built on first use)."""

    def __init__(
        self, bottom: FrequencySnapshot, level_maps: Sequence[Sequence[Sequence[IntArray]]]
    ) -> None:
        self.bottom_codes = bottom.codes
        self.level_maps = level_maps
        self._at: dict[tuple[int, int], IntArray] = {}

    def get(self, j: int, level: int) -> IntArray:
        got = self._at.get((j, level))
        if got is None:
            base = self.bottom_codes[j]
            got = base if level == 0 else self.level_maps[j][0][level][base]
            got = np.ascontiguousarray(got, dtype=np.int64)
            self._at[(j, level)] = got
        return got


_KERNEL: list[Callable[..., int] | None] = []


def load_kernel() -> Callable[..., int] | None:
    """The compiled roll-up, imported and run once on first call (importing numba and
    loading the kernel cached on disk take about 0.6 s of CPU, once per process), or
    ``None`` where numba cannot be imported, its JIT is disabled or its cache cannot be
    set up."""
    if not _KERNEL:
        kernel = _import_kernel()
        if kernel is not None:  # the first call sets numba's machinery up
            keys, ints = np.zeros(1, dtype=np.uint64), np.zeros(1, dtype=np.int64)
            none = np.zeros(0, dtype=np.int64)
            kernel(
                keys,
                ints,
                ints,
                keys[None, :],
                none,
                none,
                keys.copy(),
                ints.copy(),
                ints.copy(),
                keys[:0],
            )
        _KERNEL.append(kernel)
    return _KERNEL[0]


def kernel_loaded() -> bool:
    """Whether :func:`load_kernel` has run (so calling it again costs nothing)."""
    return bool(_KERNEL)


def _import_kernel() -> Callable[..., int] | None:
    kernels = load_kernels(
        "anonkit.algorithms.lattice._quick_kernels",
        "the heuristics' quick evaluator",
        "the evaluator's own roll-ups",
    )
    if kernels is None:
        return None
    kernel: Callable[..., int] = kernels.roll_up
    return kernel


class QuickEvaluator:
    """Evaluate nodes for a heuristic through hashed roll-ups (see the module docstring).

    Parameters
    ----------
    evaluator
        The search's evaluator: its table, models, suppression limit and cost models.
    seed
        Seed of the random key numbers (the evaluations do not depend on it, barring a
        collision).
    cache_rows
        Rows (summed over snapshots) kept for roll-ups, least recently used dropped first.
    """

    def __init__(
        self,
        evaluator: Evaluator,
        *,
        seed: int = 0,
        cache_rows: int = CACHE_ROWS,
    ) -> None:
        self.ev = evaluator
        table = evaluator.table
        self.width = table.width
        self.n = table.n_records
        bottom = table.snapshot
        self.levels_codes = _LevelCodes(bottom, table.level_maps)
        heights = evaluator.lattice.heights
        self.heights = heights
        # one row of random key shares per (column, level): the share of each bottom row
        self.offsets = np.concatenate(([0], np.cumsum(heights)[:-1])).astype(np.int64)
        rng = np.random.default_rng(seed)
        self.contrib = np.empty((int(sum(heights)), bottom.n_classes), dtype=np.uint64)
        for j, h in enumerate(heights):
            for lv in range(h):
                card = max(int(table.cardinalities[j][lv]), 1)
                numbers = rng.integers(0, 2**64, size=card, dtype=np.uint64, endpoint=False)
                self.contrib[self.offsets[j] + lv] = numbers[self.levels_codes.get(j, lv)]
        zero = (0,) * self.width
        hashes = self.contrib[self.offsets].sum(axis=0, dtype=np.uint64)
        self.bottom = HashedSnapshot(
            zero,
            hashes,
            np.array(bottom.counts, dtype=np.int64),  # writable: one kernel signature
            np.arange(bottom.n_classes, dtype=np.int64),
            self.levels_codes,
        )
        kernel = load_kernel()
        if kernel is None:
            raise RuntimeError("the quick evaluator needs numba (see QuickEvaluator.applies)")
        self.kernel = kernel
        # the bottom rows keyed at the levels of the last node rolled up from them
        self._view_levels: tuple[int, ...] = zero
        self._view_hashes: HashArray = hashes
        self.cache_rows = cache_rows
        self._cache: OrderedDict[int, HashedSnapshot] = OrderedDict()
        self._rows = 0
        # cached level vectors as a matrix (slots), for the vectorized source lookup
        self._slot_of: dict[int, int] = {}
        self._node_in_slot: dict[int, int] = {}
        self._slot_levels = np.zeros((64, self.width), dtype=np.int16)
        self._slot_classes = np.full(64, _NONE, dtype=np.int64)
        self._free: list[int] = list(range(63, -1, -1))
        #: Nodes evaluated here.
        self.evaluations = 0

    @staticmethod
    def applies(evaluator: Evaluator) -> bool:
        """Whether nodes can be judged here: models reading class sizes alone, no
        population counts, no suppression bounds asked for (``track_forced``), key
        shares that fit :data:`MAX_SHARE_BYTES`, and the compiled roll-up available
        (this loads it)."""
        table = evaluator.table
        share_bytes = 8 * sum(evaluator.lattice.heights) * table.snapshot.n_classes
        return (
            not evaluator.detailed
            and not evaluator.track_forced
            and table.snapshot.population is None
            and share_bytes <= MAX_SHARE_BYTES
            and load_kernel() is not None
        )

    # ------------------------------------------------------------------ snapshots
    def snapshot(self, index: int, levels: tuple[int, ...]) -> HashedSnapshot:
        """The classes of the node ``index`` at ``levels``, rolled up from the cheapest
        source: a cached snapshot of a finer node, or the bottom rows keyed at the levels
        of the last node rolled up from them (see :meth:`_source`)."""
        cached = self._cache.get(index)
        if cached is not None:
            self._cache.move_to_end(index)
            return cached
        source, from_levels, source_hashes, keep = self._source(levels)
        changed = [j for j, (a, b) in enumerate(zip(from_levels, levels, strict=True)) if a != b]
        old_rows = np.asarray([self.offsets[j] + from_levels[j] for j in changed], np.int64)
        new_rows = np.asarray([self.offsets[j] + levels[j] for j in changed], np.int64)
        n = source.n_classes
        row_hashes = np.empty(n if keep else 0, dtype=np.uint64)
        out_hashes = np.empty(n, dtype=np.uint64)
        out_counts = np.empty(n, dtype=np.int64)
        out_reps = np.empty(n, dtype=np.int64)
        m = self.kernel(
            source_hashes,
            source.counts,
            source.reps,
            self.contrib,
            old_rows,
            new_rows,
            out_hashes,
            out_counts,
            out_reps,
            row_hashes,
        )
        snap = HashedSnapshot(
            levels,
            out_hashes[:m].copy(),
            out_counts[:m].copy(),
            out_reps[:m].copy(),
            self.levels_codes,
        )
        if keep:  # the bottom rows now follow this node
            self._view_levels, self._view_hashes = levels, row_hashes
        self._store(index, snap)
        return snap

    def _source(
        self, levels: tuple[int, ...]
    ) -> tuple[HashedSnapshot, tuple[int, ...], HashArray, bool]:
        """Where to roll ``levels`` up from: ``(classes, the levels their keys are at,
        those keys, whether the classes are the bottom rows)``.

        The cost of a roll-up is about the source's rows times (2 + the columns whose
        level changes): the bottom rows, keyed at the last node rolled up from them, are
        one or two columns away from a neighbouring node; a small cached snapshot of a
        finer node (a successor's source) is cheaper still.
        """
        target = np.asarray(levels, dtype=np.int16)
        view_changed = sum(a != b for a, b in zip(self._view_levels, levels, strict=True))
        best = self.bottom.n_classes * (2 + view_changed)
        if self._cache:
            finer = (self._slot_classes != _NONE) & (self._slot_levels <= target).all(axis=1)
            changed = (self._slot_levels != target).sum(axis=1)
            costs = np.where(finer, self._slot_classes * (2.0 + changed), np.inf)
            slot = int(costs.argmin())
            if costs[slot] < best:
                snap = self._cache[self._node_in_slot[slot]]
                return snap, snap.levels, snap.hashes, False
        return self.bottom, self._view_levels, self._view_hashes, True

    def _store(self, index: int, snap: HashedSnapshot) -> None:
        if not self._free:
            grow = self._slot_levels.shape[0]
            self._slot_levels = np.concatenate(
                [self._slot_levels, np.zeros_like(self._slot_levels)]
            )
            self._slot_classes = np.concatenate(
                [self._slot_classes, np.full(grow, _NONE, dtype=np.int64)]
            )
            self._free = list(range(2 * grow - 1, grow - 1, -1))
        slot = self._free.pop()
        self._slot_of[index] = slot
        self._node_in_slot[slot] = index
        self._slot_levels[slot] = snap.levels
        self._slot_classes[slot] = snap.n_classes
        self._cache[index] = snap
        self._rows += snap.n_classes
        while self._rows > self.cache_rows and len(self._cache) > 1:
            gone, old = self._cache.popitem(last=False)
            free = self._slot_of.pop(gone)
            del self._node_in_slot[free]
            self._slot_classes[free] = _NONE
            self._free.append(free)
            self._rows -= old.n_classes

    # ------------------------------------------------------------------ judging
    def evaluate(self, index: int, levels: tuple[int, ...]) -> NodeResult:
        """Judge and price node ``index`` as :meth:`Evaluator.evaluate` does (its models
        and :meth:`Evaluator.node_result`), from its hashed classes."""
        ev = self.ev
        snap = self.snapshot(index, levels)
        self.evaluations += 1
        result = ev.node_result(index, snap, ev.violations(ClassSummary(snap.counts, self.n)))
        if ev.on_evaluate is not None:
            ev.on_evaluate(1)
        return result


__all__ = ["CACHE_ROWS", "HashedSnapshot", "QuickEvaluator", "kernel_loaded", "load_kernel"]
