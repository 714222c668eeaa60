"""Cached cost rows of greedy class merging: ``phi(LCA(x, .))`` per attribute and node,
packed into joint groups so that a candidate costs one lookup per group."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonkit._arrays import FloatArray, IntArray
from anonkit.metrics.cost_matrix import HierarchyNodes

#: Attributes are packed into groups whose joint node space stays below this size, so the
#: merge cost against every candidate takes one lookup per group instead of per attribute.
JOINT_SPACE = 4096
#: Floats of memoized joint rows kept per group (32 MiB).
JOINT_CACHE = 1 << 22


class CostRows:
    """Cached rows ``phi(LCA(x, .))`` and ``LCA(x, .)`` per attribute and node ``x``.

    Classes are vectors of global node ids (attribute ``a``'s nodes start at
    ``offsets[a]``). For the vectorized step the attributes are packed into groups; a
    class's *joint id* in group ``g`` is the mixed-radix number of its nodes in the group's
    attributes, and :meth:`joint_row` gives ``sum_{a in g} phi_a(LCA(x_a, y_a))`` for every
    joint id ``y`` at once.
    """

    def __init__(self, nodes: Sequence[HierarchyNodes], phis: Sequence[FloatArray]) -> None:
        self.nodes = nodes
        self.phis = phis
        sizes = [nd.n_nodes for nd in nodes]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.phi = np.concatenate(list(phis)) if phis else np.zeros(0)
        self._cache: list[dict[int, tuple[FloatArray, IntArray]]] = [{} for _ in nodes]
        # First-fit decreasing: fewest groups whose joint space stays <= JOINT_SPACE.
        groups: list[list[int]] = []
        spaces: list[int] = []
        for a in sorted(range(len(sizes)), key=lambda i: (-sizes[i], i)):
            for gi, space in enumerate(spaces):
                if space * sizes[a] <= JOINT_SPACE:
                    groups[gi].append(a)
                    spaces[gi] = space * sizes[a]
                    break
            else:
                groups.append([a])
                spaces.append(sizes[a])
        groups = [sorted(g) for g in groups]
        self.groups = groups
        strides = np.zeros(len(sizes), dtype=np.int64)
        for g in groups:
            stride = 1
            for a in reversed(g):
                strides[a] = stride
                stride *= sizes[a]
        self.strides = strides
        self._joint_cache: list[dict[tuple[int, ...], FloatArray]] = [{} for _ in groups]

    def row(self, attr: int, local: int) -> tuple[FloatArray, IntArray]:
        cache = self._cache[attr]
        hit = cache.get(local)
        if hit is None:
            lca = self.nodes[attr].lca_row(local)
            hit = (self.phis[attr][lca], lca + self.offsets[attr])
            cache[local] = hit
        return hit

    def joint(self, nodes: IntArray) -> IntArray:
        """``(n_groups, n)`` joint ids of the ``(m, n)`` global node vectors ``nodes``."""
        local = (nodes - self.offsets[:, None]) * self.strides[:, None]
        out = np.zeros((len(self.groups), nodes.shape[1]), dtype=np.int64)
        for gi, g in enumerate(self.groups):
            out[gi] = local[g].sum(axis=0)
        return out

    def joint_row(self, x: IntArray, previous: Sequence[FloatArray] = ()) -> list[FloatArray]:
        """Per group, ``sum_{a in g} phi_a(LCA(x_a, y_a))`` for every joint id ``y``.

        Rows are memoized per group and per node combination (up to a memory budget).
        """
        out = []
        xs = x.tolist()
        for gi, g in enumerate(self.groups):
            key = tuple(xs[a] for a in g)
            memo = self._joint_cache[gi]
            acc = memo.get(key)
            if acc is None:
                acc = self.row(g[0], xs[g[0]] - int(self.offsets[g[0]]))[0]
                for a in g[1:]:
                    r = self.row(a, xs[a] - int(self.offsets[a]))[0]
                    acc = (acc[:, None] + r[None, :]).ravel()
                if len(memo) * acc.shape[0] > JOINT_CACHE:
                    memo.clear()
                memo[key] = acc
            out.append(acc)
        return out

    def lca_row(self, x: IntArray) -> IntArray:
        """``LCA(x_a, y)`` (global ids) for every global node ``y`` of every attribute ``a``.

        Index it with a class's global node vector to get the merged vector.
        """
        xs = x.tolist()
        return np.concatenate(
            [self.row(a, xs[a] - int(self.offsets[a]))[1] for a in range(len(xs))]
        )
