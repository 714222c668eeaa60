"""The full-domain generalization lattice.

A node assigns one level to every quasi-identifier. Nodes are numbered in mixed radix
(the last quasi-identifier varies fastest), so node ``i`` and its level vector convert in
O(Q). Node ``a`` is *below* node ``b`` (``a <= b``) when every level of ``a`` is at most
the matching level of ``b``; ``b`` then generalizes ``a``.

Lattices of at most :data:`MAX_NODES` nodes are *explicit*: every level vector is held in
one read-only array (``nodes``), which the exact searches index in bulk. Larger lattices
(wide tables: 24 quasi-identifiers give 10^13 nodes and more) are *implicit*: a node's
level vector is computed from its number on demand, and only the per-node operations
(``node``, ``index``, ``successors``, ``predecessors``, ``height``) are available; the
heuristic searches need no more.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from anonkit.exceptions import ParameterError

#: Above this many nodes the explicit lattice would not fit comfortably in memory: larger
#: lattices are implicit, and refused unless the caller lifts ``max_nodes``.
MAX_NODES = 5_000_000


#: Explicit lattices of at most this many nodes share their (read-only) level vectors
#: with every lattice of the same heights: a fit on Adult's 9 columns built the same
#: 12,960 vectors call after call (0.9 ms of its fixed cost).
_SHARED_NODES = 1 << 17


def _grid(heights: tuple[int, ...]) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int64]]:
    """The read-only level vectors of every node of an explicit lattice of ``heights``
    and their sums."""
    grids = np.indices(heights, dtype=np.int16).reshape(len(heights), -1)
    nodes = np.ascontiguousarray(grids.T)
    nodes.setflags(write=False)
    levels = nodes.sum(axis=1, dtype=np.int64)
    levels.setflags(write=False)
    return nodes, levels


_shared_grid = functools.lru_cache(maxsize=16)(_grid)


class Lattice:
    """All level vectors for quasi-identifiers with the given hierarchy heights.

    Parameters
    ----------
    heights
        Number of levels of each quasi-identifier's hierarchy (levels ``0..h-1``).
    max_nodes
        Largest lattice accepted (default :data:`MAX_NODES`, what the exact searches can
        hold); ``None`` accepts any size (the heuristic searches). Lattices above
        :data:`MAX_NODES` are implicit whatever this says.

    Examples
    --------
    >>> lat = Lattice([2, 3])
    >>> lat.size, lat.node(5), lat.index((1, 2))
    (6, (1, 2), 5)
    >>> big = Lattice([4] * 24, max_nodes=None)
    >>> big.explicit, big.size, big.node(big.top) == (3,) * 24
    (False, 281474976710656, True)
    """

    def __init__(self, heights: Sequence[int], *, max_nodes: int | None = MAX_NODES) -> None:
        if not heights:
            raise ParameterError("quasi_identifiers", "Lattice", "a non-empty list", [])
        self.heights = tuple(int(h) for h in heights)
        if any(h < 1 for h in self.heights):
            raise ParameterError("heights", "Lattice", "positive ints", self.heights)
        size = 1
        for h in self.heights:
            size *= h
        self.size = size
        if max_nodes is not None and size > max_nodes:
            raise self._too_large(max_nodes)
        strides = [1] * len(self.heights)
        for j in range(len(self.heights) - 2, -1, -1):
            strides[j] = strides[j + 1] * self.heights[j + 1]
        # beyond 2^63 nodes (some 40 or more columns) node numbers are Python ints only
        self.strides = np.asarray(strides, dtype=np.int64 if size < 2**63 else object)
        self._strides = tuple(strides)
        #: Whether every level vector is held in ``nodes`` (at most :data:`MAX_NODES`).
        self.explicit = size <= MAX_NODES
        self._nodes: npt.NDArray[np.int16] | None = None
        self._levels: npt.NDArray[np.int64] | None = None
        if self.explicit:
            grid = _shared_grid if size <= _SHARED_NODES else _grid
            self._nodes, self._levels = grid(self.heights)
        self.max_height = int(sum(self.heights) - len(self.heights))

    def _too_large(self, limit: int) -> ParameterError:
        return ParameterError(
            "quasi_identifiers",
            "the full-domain search",
            f"a set whose lattice has at most {limit:,} nodes (use fewer or shallower "
            "hierarchies, or a heuristic search: algorithm='lightning' or 'genetic')",
            f"{len(self.heights)} columns with {self.size:,} nodes",
        )

    @property
    def nodes(self) -> npt.NDArray[np.int16]:
        """``(size, width)`` read-only level vectors of every node (explicit lattices)."""
        if self._nodes is None:
            raise self._too_large(MAX_NODES)
        return self._nodes

    @property
    def levels(self) -> npt.NDArray[np.int64]:
        """``(size,)`` read-only height (sum of levels) of every node (explicit lattices)."""
        if self._levels is None:
            raise self._too_large(MAX_NODES)
        return self._levels

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
        if self._nodes is not None:
            return tuple(int(x) for x in self._nodes[index])
        out = []
        rest = int(index)
        for s in self._strides:
            lv, rest = divmod(rest, s)
            out.append(lv)
        return tuple(out)

    def height(self, index: int) -> int:
        """Sum of the levels of node ``index``."""
        if self._levels is not None:
            return int(self._levels[index])
        return sum(self.node(index))

    def index(self, levels: Sequence[int]) -> int:
        """Node number of a level vector."""
        if self._nodes is not None:
            return int(np.dot(np.asarray(levels, dtype=np.int64), self.strides))
        return sum(int(lv) * s for lv, s in zip(levels, self._strides, strict=True))

    def successors(self, index: int) -> list[int]:
        """Nodes one generalization step above ``index``."""
        vec = self.nodes[index] if self._nodes is not None else self.node(index)
        return [index + self._strides[j] for j in range(self.width) if vec[j] + 1 < self.heights[j]]

    def predecessors(self, index: int) -> list[int]:
        """Nodes one generalization step below ``index``."""
        vec = self.nodes[index] if self._nodes is not None else self.node(index)
        return [index - self._strides[j] for j in range(self.width) if vec[j] > 0]

    def upset(self, index: int) -> npt.NDArray[np.bool_]:
        """Mask of nodes that generalize ``index`` (including itself); explicit lattices."""
        box = np.zeros(self.heights, dtype=bool)
        box[self.upset_box(index)] = True
        return box.reshape(-1)

    def downset(self, index: int) -> npt.NDArray[np.bool_]:
        """Mask of nodes that ``index`` generalizes (including itself); explicit lattices."""
        box = np.zeros(self.heights, dtype=bool)
        box[self.downset_box(index)] = True
        return box.reshape(-1)

    def upset_box(self, index: int) -> tuple[slice, ...]:
        """:meth:`upset` as slices of the level grid (nodes are numbered in mixed radix, so
        the up-set is a box of it): ``per_node.reshape(heights)[box]`` is a view."""
        return tuple(slice(int(v), None) for v in self.nodes[index])

    def downset_box(self, index: int) -> tuple[slice, ...]:
        """:meth:`downset` as slices of the level grid (see :meth:`upset_box`)."""
        return tuple(slice(0, int(v) + 1) for v in self.nodes[index])

    def by_height(self) -> npt.NDArray[np.int64]:
        """Node numbers sorted by height (stable, so ties keep numeric order); explicit
        lattices."""
        return np.argsort(self.levels, kind="stable")
