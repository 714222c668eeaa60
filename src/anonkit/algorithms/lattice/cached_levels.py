"""Which cached snapshot to roll up from, on lattices too large to index: the levels and
class counts of the evaluator's cached nodes as rows of one array (see
:class:`CachedLevels`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["NOT_CACHED", "CachedLevels"]

#: Class count of a node without a cached snapshot (larger than any real count).
NOT_CACHED = np.iinfo(np.int64).max


class CachedLevels:
    """The levels and class counts of the cached nodes of an implicit lattice, one row per
    node, so that finding the finer cached node with the fewest classes is one vectorized
    comparison (scanning the cache in Python took about half of a node's time on wide
    tables)."""

    def __init__(self, width: int) -> None:
        self._levels = np.zeros((8, width), dtype=np.int64)
        self._classes = np.full(8, NOT_CACHED, dtype=np.int64)
        self._slot_of: dict[int, int] = {}
        self._node_in_slot: list[int] = [-1] * 8
        self._free: list[int] = list(range(7, -1, -1))

    def add(self, index: int, levels: Sequence[int], n_classes: int) -> None:
        if not self._free:  # double the rows
            size = self._classes.shape[0]
            self._levels = np.concatenate([self._levels, np.zeros_like(self._levels)])
            self._classes = np.concatenate([self._classes, np.full(size, NOT_CACHED)])
            self._node_in_slot += [-1] * size
            self._free = list(range(2 * size - 1, size - 1, -1))
        slot = self._free.pop()
        self._levels[slot] = levels
        self._classes[slot] = n_classes
        self._slot_of[index] = slot
        self._node_in_slot[slot] = index

    def remove(self, index: int) -> None:
        slot = self._slot_of.pop(index)
        self._classes[slot] = NOT_CACHED
        self._node_in_slot[slot] = -1
        self._free.append(slot)

    def smallest_finer(self, target: Sequence[int], below: int) -> int | None:
        """The cached node at or below ``target`` with the fewest classes, if fewer than
        ``below``."""
        if not self._slot_of:
            return None
        finer = np.all(self._levels <= np.asarray(target, dtype=np.int64), axis=1)
        classes = np.where(finer, self._classes, NOT_CACHED)
        slot = int(classes.argmin())
        if classes[slot] >= below:
            return None
        return self._node_in_slot[slot]
