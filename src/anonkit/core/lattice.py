"""The full-domain generalization lattice.

A node assigns one level to every quasi-identifier. Nodes are numbered in mixed radix
(the last quasi-identifier varies fastest), so node ``i`` and its level vector convert in
O(Q). Node ``a`` is *below* node ``b`` (``a <= b``) when every level of ``a`` is at most
the matching level of ``b``; ``b`` then generalizes ``a``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from anonkit.exceptions import ParameterError

#: Above this many nodes the explicit lattice would not fit comfortably in memory.
MAX_NODES = 5_000_000


class Lattice:
    """All level vectors for quasi-identifiers with the given hierarchy heights.

    Parameters
    ----------
    heights
        Number of levels of each quasi-identifier's hierarchy (levels ``0..h-1``).

    Examples
    --------
    >>> lat = Lattice([2, 3])
    >>> lat.size, lat.node(5), lat.index((1, 2))
    (6, (1, 2), 5)
    """

    def __init__(self, heights: Sequence[int]) -> None:
        if not heights:
            raise ParameterError("quasi_identifiers", "Lattice", "a non-empty list", [])
        self.heights = tuple(int(h) for h in heights)
        if any(h < 1 for h in self.heights):
            raise ParameterError("heights", "Lattice", "positive ints", self.heights)
        size = 1
        for h in self.heights:
            size *= h
        if size > MAX_NODES:
            raise ParameterError(
                "quasi_identifiers",
                "the full-domain search",
                f"a set whose lattice has at most {MAX_NODES:,} nodes (use fewer or shallower "
                "hierarchies, or algorithm='datafly')",
                f"{len(self.heights)} columns with {size:,} nodes",
            )
        self.size = size
        strides = [1] * len(self.heights)
        for j in range(len(self.heights) - 2, -1, -1):
            strides[j] = strides[j + 1] * self.heights[j + 1]
        self.strides = np.asarray(strides, dtype=np.int64)
        grids = np.indices(self.heights, dtype=np.int16).reshape(len(self.heights), -1)
        self.nodes: npt.NDArray[np.int16] = np.ascontiguousarray(grids.T)
        self.nodes.setflags(write=False)
        self.levels: npt.NDArray[np.int64] = self.nodes.sum(axis=1, dtype=np.int64)
        self.levels.setflags(write=False)
        self.max_height = int(sum(self.heights) - len(self.heights))

    @property
    def width(self) -> int:
        """Number of quasi-identifiers."""
        return len(self.heights)

    @property
    def bottom(self) -> int:
        return 0

    @property
    def top(self) -> int:
        return self.size - 1

    def node(self, index: int) -> tuple[int, ...]:
        """Level vector of node ``index``."""
        return tuple(int(x) for x in self.nodes[index])

    def index(self, levels: Sequence[int]) -> int:
        """Node number of a level vector."""
        return int(np.dot(np.asarray(levels, dtype=np.int64), self.strides))

    def successors(self, index: int) -> list[int]:
        """Nodes one generalization step above ``index``."""
        vec = self.nodes[index]
        return [
            index + int(self.strides[j]) for j in range(self.width) if vec[j] + 1 < self.heights[j]
        ]

    def predecessors(self, index: int) -> list[int]:
        """Nodes one generalization step below ``index``."""
        vec = self.nodes[index]
        return [index - int(self.strides[j]) for j in range(self.width) if vec[j] > 0]

    def upset(self, index: int) -> npt.NDArray[np.bool_]:
        """Mask of nodes that generalize ``index`` (including itself)."""
        # nodes are numbered in mixed radix, so the up-set is a box of the level grid
        box = np.zeros(self.heights, dtype=bool)
        box[tuple(slice(int(v), None) for v in self.nodes[index])] = True
        return box.reshape(-1)

    def downset(self, index: int) -> npt.NDArray[np.bool_]:
        """Mask of nodes that ``index`` generalizes (including itself)."""
        box = np.zeros(self.heights, dtype=bool)
        box[tuple(slice(0, int(v) + 1) for v in self.nodes[index])] = True
        return box.reshape(-1)

    def by_height(self) -> npt.NDArray[np.int64]:
        """Node numbers sorted by height (stable, so ties keep numeric order)."""
        return np.argsort(self.levels, kind="stable")
