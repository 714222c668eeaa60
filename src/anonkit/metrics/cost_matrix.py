"""Weighted generalization hierarchies, cost matrices and the seven cost functions.

Mauger, Le Mahec & Dequen (2020) model information loss with weights on the edges of each
quasi-identifier's generalization hierarchy. With ``w(n -> m)`` the summed weights of the
path from node ``n`` up to its ancestor ``m``, the *cost matrix* of attribute ``Q`` is::

    Cost_Q(n, m) = w(n -> LCA(n, m))

the cost of generalizing ``n`` to the smallest node that also covers ``m`` (their lowest
common ancestor). Two equivalence classes ``C1 = [x_1..x_m]`` and ``C2 = [y_1..y_m]`` merge
at the cost::

    MC(C1, C2) = sum_i Cost_Qi(x_i, y_i) * |C1| + Cost_Qi(y_i, x_i) * |C2|

Every edge weight of the seven functions of the paper telescopes along a path: there is a
node *potential* ``phi(v)`` with ``w(n -> m) = phi(m) - phi(n)`` and ``phi(leaf) = 0``. The
cost of a class at values ``v`` is ``|C| * sum_i phi_i(v_i)`` and the cost of a table the sum
over its classes. With ``l`` a node's level, ``nl`` the leaves under it, ``h_i`` the number
of levels of hierarchy ``i`` (its highest level plus 1), ``NL_i`` its number of leaves,
``h_max = max_i h_i`` and ``m`` quasi-identifiers:

============  ==================================================================
distortion    ``(sum_{j=1..l} c_j) / (sum_{j=1..h_i-1} c_j) * wid_i``, ``c_j = 1/(h_i - j)``
ncp           ``(nl - 1) / NL_i``
total         ``l / (h_i - 1)``
llm           ``(nl - 1) * h_max / h_i``
nllm          ``(nl - 1) / NL_i * h_max / h_i``
wllm          ``(nl - 1) * wid_i``
wnllm         ``(nl - 1) / NL_i * wid_i``
============  ==================================================================

with the attribute weights (Pramanik, Lau & Zhang 2016, as used by the paper)
``wid_i = 1 - (h_i - 1)^m / sum_j (h_j - 1)^m`` (``wid = 1`` for a single attribute).

These are the paper's edge weights ``omega`` (the ones "from which we compute the cost
matrix"). Two places where the paper's closed forms differ from its weights, and where
this module follows the weights: the closed forms of LLM, NLLM, WLLM and WNLLM use
``nl(v)`` rather than ``nl(v) - 1`` (a constant per record, so an unmodified table would
not cost 0), and the closed form of Distortion divides by ``h_i - 1`` rather than by
``sum_j c_j`` (a different scale per attribute). With the weights every function is 0 on
the original table and the "percentage of alteration" of the original table is 0.

A node's *level* is its column in the hierarchy file (level 0 = original values); a
hierarchy of ``h`` columns has ``h_i = h``, the paper's "number of nodes on the longest
path". Leaf counts are taken over the hierarchy as given (all its rows), not over the
values that occur in the data.

The measures of the paper's experiments are here too: :func:`alteration_percentage`
(Figures 6-8, 10), :func:`modified_percentage` (Figure 11), :func:`deleted_percentage`
(Figures 12-13) and :func:`effective_k` (Figure 9).

Released tables are described cell by cell, in the layout of
:class:`~anonkit.core.encoding.EncodedTable`: ``leaf_codes`` and ``levels`` are
``(n_qi, n_rows)`` int arrays, one row per quasi-identifier, holding each cell's original
value (its row in the hierarchy) and the level it is released at. ``weights`` (default 1)
says how many records each column of the arrays stands for, so a table can be passed
one equivalence class per column.

References
----------
C. Mauger, G. Le Mahec, G. Dequen. Modeling and evaluation of k-anonymization metrics.
PPAI workshop at AAAI 2020. hal-03236397.

J. Li, R. C.-W. Wong, A. W.-C. Fu, J. Pei. Achieving k-anonymity by clustering in attribute
hierarchical structures. DaWaK 2006 (Distortion).

J. Xu, W. Wang, J. Pei, X. Wang, B. Shi, A. W.-C. Fu. Utility-based anonymization using
local recoding. KDD 2006 (NCP).

J.-W. Byun, A. Kamra, E. Bertino, N. Li. Efficient k-anonymization using clustering
techniques. DASFAA 2007 (Total).

M. I. Pramanik, R. Y. K. Lau, W. Zhang. K-anonymity through the enhanced clustering
method. ICEBE 2016 (wid weights).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray, IntArray
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.snapshot import group_codes
from anonkit.exceptions import UnknownNameError

#: The seven optimization functions of Mauger et al. (2020), in the paper's order.
COST_FUNCTIONS: tuple[str, ...] = ("distortion", "ncp", "total", "llm", "nllm", "wllm", "wnllm")


def check_cost(cost: str) -> str:
    """Return ``cost`` if it names one of :data:`COST_FUNCTIONS`, else raise.

    Raises
    ------
    UnknownNameError
        Listing the seven names.
    """
    if cost not in COST_FUNCTIONS:
        raise UnknownNameError("cost function", str(cost), COST_FUNCTIONS)
    return cost


# ---------------------------------------------------------------- hierarchy nodes
@dataclass(frozen=True, eq=False)
class HierarchyNodes:
    """Every node of a hierarchy, numbered level by level, with ancestors and LCAs.

    Node ``offsets[l] + c`` is the label ``hierarchy.labels(l)[c]``; the leaves are nodes
    ``0 .. n_leaves - 1`` in file order and the root is the last node.

    Attributes
    ----------
    hierarchy
        The hierarchy described.
    level, code
        ``(n_nodes,)``: each node's level and its code at that level.
    offsets
        ``(height,)``: id of the first node of each level.
    leaf_count
        ``(n_nodes,)``: leaves under each node (``nl`` in the paper).
    ancestors
        ``(n_nodes, height)``: the id of each node's ancestor at every level, ``-1`` below
        the node's own level.
    leaf_nodes
        ``(height, n_leaves)``: the node that each leaf generalizes to at every level.

    Examples
    --------
    >>> h = Hierarchy([["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"]])
    >>> nodes = hierarchy_nodes(h)
    >>> nodes.n_nodes, nodes.labels
    (6, ('a', 'b', 'c', 'A', 'C', '*'))
    >>> [nodes.labels[i] for i in nodes.lca(np.array([0, 0, 3]), np.array([1, 2, 1]))]
    ['A', '*', 'A']
    """

    hierarchy: Hierarchy
    level: IntArray
    code: IntArray
    offsets: IntArray
    leaf_count: IntArray
    ancestors: IntArray
    leaf_nodes: IntArray

    @property
    def n_nodes(self) -> int:
        return int(self.level.shape[0])

    @property
    def root(self) -> int:
        return self.n_nodes - 1

    @property
    def labels(self) -> tuple[str, ...]:
        """Label of every node, in node order."""
        h = self.hierarchy
        return tuple(label for lv in range(h.height) for label in h.labels(lv))

    def lca(self, x: IntArray, y: IntArray) -> IntArray:
        """Lowest common ancestor of nodes ``x[i]`` and ``y[i]`` (vectorized)."""
        x = np.asarray(x, dtype=np.int64)
        y = np.asarray(y, dtype=np.int64)
        x, y = np.broadcast_arrays(x, y)
        out = np.full(x.shape, self.root, dtype=np.int64)
        for lv in range(self.hierarchy.height - 1, -1, -1):
            ax = self.ancestors[x, lv]
            same = (ax == self.ancestors[y, lv]) & (ax >= 0)
            out[same] = ax[same]
        return out

    def lca_row(self, x: int) -> IntArray:
        """``LCA(x, y)`` for node ``x`` and every node ``y``, as an ``(n_nodes,)`` array."""
        out = np.full(self.n_nodes, self.root, dtype=np.int64)
        for lv in range(self.hierarchy.height - 1, int(self.level[x]) - 1, -1):
            ax = self.ancestors[x, lv]
            out[self.ancestors[:, lv] == ax] = ax
        return out


@lru_cache(maxsize=64)
def hierarchy_nodes(hierarchy: Hierarchy) -> HierarchyNodes:
    """The node table of ``hierarchy`` (cached per hierarchy)."""
    height = hierarchy.height
    sizes = [len(hierarchy.labels(lv)) for lv in range(height)]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    n_nodes = int(sum(sizes))
    level = np.repeat(np.arange(height, dtype=np.int64), sizes)
    code = np.concatenate([np.arange(s, dtype=np.int64) for s in sizes])
    leaf_nodes = np.stack([offsets[lv] + hierarchy.codes(lv) for lv in range(height)])
    leaf_count = np.concatenate([hierarchy.leaf_counts(lv) for lv in range(height)])
    # A representative leaf per node gives its ancestors: the leaf's nodes at higher levels.
    rep = np.empty(n_nodes, dtype=np.int64)
    for lv in range(height - 1, -1, -1):  # lower levels overwrite: any leaf under it works
        rep[leaf_nodes[lv]] = np.arange(leaf_nodes.shape[1])
    ancestors = leaf_nodes[:, rep].T.copy()
    ancestors[np.arange(height)[None, :] < level[:, None]] = -1
    arrays = (level, code, offsets, leaf_count, ancestors, leaf_nodes)
    for arr in arrays:
        arr.setflags(write=False)
    return HierarchyNodes(hierarchy, *arrays)


# ---------------------------------------------------------------- weights and potentials
def wid_weights(heights: Sequence[int]) -> FloatArray:
    """Attribute weights ``wid_i = 1 - (h_i - 1)^m / sum_j (h_j - 1)^m`` (Pramanik et al.).

    ``m`` is the number of attributes; a single attribute gets ``wid = 1``. When no
    attribute can be generalized (every ``h_i = 1``) all weights are 1. The powers are
    computed exactly with Python integers.

    Examples
    --------
    >>> wid_weights([2, 3]).tolist()  # 1^2 = 1, 2^2 = 4: 1 - 1/5, 1 - 4/5
    [0.8, 0.19999999999999996]
    """
    m = len(heights)
    if m == 1:
        return np.ones(1)
    powers = [(int(h) - 1) ** m for h in heights]
    total = sum(powers)
    if total == 0:
        return np.ones(m)
    return np.array([1.0 - p / total for p in powers])


def _potential(nodes: HierarchyNodes, cost: str, h_max: int, wid: float) -> FloatArray:
    """``phi(v) = w(leaf -> v)`` for every node ``v`` of one hierarchy."""
    h = nodes.hierarchy.height
    if h == 1:
        return np.zeros(nodes.n_nodes)
    lv = nodes.level
    if cost == "distortion":
        c = 1.0 / (h - np.arange(1, h, dtype=np.float64))  # c_{j,j-1}, j = 1..h-1
        cum = np.concatenate([[0.0], np.cumsum(c)])
        return np.asarray(cum[lv] / cum[-1] * wid, dtype=np.float64)
    if cost == "total":
        return lv / (h - 1.0)
    lost = nodes.leaf_count - 1.0
    n_leaves = float(nodes.leaf_count[-1])
    factor = {
        "ncp": 1.0 / n_leaves,
        "llm": h_max / h,
        "nllm": h_max / (h * n_leaves),
        "wllm": wid,
        "wnllm": wid / n_leaves,
    }[check_cost(cost)]
    return lost * factor


def node_costs(hierarchies: Sequence[Hierarchy], cost: str) -> tuple[FloatArray, ...]:
    """Per quasi-identifier, the cost ``w(leaf -> v)`` of every node ``v`` (its potential).

    ``h_max`` and the ``wid`` weights depend on all the quasi-identifiers, so the
    hierarchies are passed together. Nodes are numbered as in :class:`HierarchyNodes`.

    Examples
    --------
    >>> h = Hierarchy([["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"]])
    >>> node_costs([h], "ncp")[0].tolist()  # a b c A C *: (nl - 1) / 3
    [0.0, 0.0, 0.0, 0.3333333333333333, 0.0, 0.6666666666666666]
    """
    check_cost(cost)
    heights = [h.height for h in hierarchies]
    wid = wid_weights(heights) if heights else np.ones(0)
    h_max = max(heights, default=1)
    return tuple(
        _potential(hierarchy_nodes(h), cost, h_max, float(w))
        for h, w in zip(hierarchies, wid, strict=True)
    )


def generalization_costs(hierarchies: Sequence[Hierarchy], cost: str) -> tuple[FloatArray, ...]:
    """Per quasi-identifier, the cost of generalizing each value to each of its ancestors.

    Returns one ``(height, n_leaves)`` array per hierarchy: entry ``[l, v]`` is
    ``w(v -> ancestor of v at level l)``; row 0 is zero.

    Examples
    --------
    >>> h = Hierarchy([["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"]])
    >>> generalization_costs([h], "total")[0].tolist()
    [[0.0, 0.0, 0.0], [0.5, 0.5, 0.5], [1.0, 1.0, 1.0]]
    """
    return tuple(
        phi[hierarchy_nodes(h).leaf_nodes]
        for h, phi in zip(hierarchies, node_costs(hierarchies, cost), strict=True)
    )


def cost_matrices(hierarchies: Sequence[Hierarchy], cost: str) -> tuple[FloatArray, ...]:
    """The paper's cost matrix ``Cost_Q(n, m) = w(n -> LCA(n, m))`` of every attribute.

    One ``(n_nodes, n_nodes)`` array per hierarchy over all its nodes (internal ones
    included), in :class:`HierarchyNodes` order. It is not symmetric:
    ``Cost_Q(root, a) = 0`` while ``Cost_Q(a, root) = w(a -> root)``.

    Examples
    --------
    >>> h = Hierarchy([["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"]])
    >>> cost_matrices([h], "total")[0][[0, 5, 0, 0], [1, 0, 2, 5]].tolist()
    [0.5, 0.0, 1.0, 1.0]
    """
    out = []
    for h, phi in zip(hierarchies, node_costs(hierarchies, cost), strict=True):
        nodes = hierarchy_nodes(h)
        ids = np.arange(nodes.n_nodes)
        lca = nodes.lca(ids[:, None], ids[None, :])
        out.append(phi[lca] - phi[:, None])
    return tuple(out)


def merge_cost(
    first: Sequence[int],
    first_size: float,
    second: Sequence[int],
    second_size: float,
    matrices: Sequence[FloatArray],
) -> float:
    """``MC(C1, C2) = sum_i Cost_Qi(x_i, y_i) |C1| + Cost_Qi(y_i, x_i) |C2|``.

    ``first`` and ``second`` hold each class's node per attribute (ids of
    :class:`HierarchyNodes`), ``matrices`` come from :func:`cost_matrices`.

    Examples
    --------
    >>> h = Hierarchy([["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"]])
    >>> merge_cost([0], 2, [1], 3, cost_matrices([h], "total"))  # both to A: 2/2 + 3/2
    2.5
    """
    total = 0.0
    for x, y, mat in zip(first, second, matrices, strict=True):
        total += float(mat[x, y]) * first_size + float(mat[y, x]) * second_size
    return total


# ---------------------------------------------------------------- table measures
def _cells(
    leaf_codes: npt.ArrayLike | None,
    levels: npt.ArrayLike,
    hierarchies: Sequence[Hierarchy],
    weights: npt.ArrayLike | None,
) -> tuple[IntArray | None, IntArray, FloatArray]:
    lv = np.asarray(levels, dtype=np.int64)
    if lv.ndim != 2 or lv.shape[0] != len(hierarchies):
        raise ValueError(
            f"levels must be (n_qi, n_rows) with n_qi = {len(hierarchies)}; got {lv.shape}"
        )
    leaves = None
    if leaf_codes is not None:
        leaves = np.asarray(leaf_codes, dtype=np.int64)
        if leaves.shape != lv.shape:
            raise ValueError(f"leaf_codes has shape {leaves.shape}, levels {lv.shape}")
    w = np.ones(lv.shape[1]) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (lv.shape[1],):
        raise ValueError(f"weights must have one entry per row ({lv.shape[1]}); got {w.shape}")
    return leaves, lv, w


def cost_loss(
    leaf_codes: npt.ArrayLike,
    levels: npt.ArrayLike,
    hierarchies: Sequence[Hierarchy],
    *,
    cost: str,
    weights: npt.ArrayLike | None = None,
) -> float:
    """Cost of a released table under one of the seven functions of Mauger et al. (2020).

    ``sum over records r and attributes i of w_i(x_ri -> released node)``: the sum over
    classes of ``|C| sum_i phi_i(v_i)`` (see the module docstring for ``phi``). Lower is
    better; 0 for the original table.

    Examples
    --------
    >>> h = Hierarchy([["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"]])
    >>> cost_loss([[0, 1, 2]], [[1, 1, 2]], [h], cost="ncp")  # A, A, *: 1/3 + 1/3 + 2/3
    1.3333333333333333
    """
    leaves, lv, w = _cells(leaf_codes, levels, hierarchies, weights)
    assert leaves is not None
    total = 0.0
    for i, table in enumerate(generalization_costs(hierarchies, cost)):
        total += float(np.sum(table[lv[i], leaves[i]] * w))
    return total


def alteration_percentage(
    leaf_codes: npt.ArrayLike,
    levels: npt.ArrayLike,
    hierarchies: Sequence[Hierarchy],
    *,
    cost: str,
    weights: npt.ArrayLike | None = None,
) -> float:
    """Percentage of alteration ``100 * m(T) / m(T*)`` (Mauger et al. 2020, Figures 6-8).

    ``m`` is :func:`cost_loss` under ``cost`` and ``T*`` the same records with every value
    generalized to its hierarchy's root. In [0, 100]; 0 when nothing can be generalized.

    Examples
    --------
    >>> h = Hierarchy([["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"]])
    >>> round(alteration_percentage([[0, 1, 2]], [[1, 1, 2]], [h], cost="ncp"), 2)
    66.67
    """
    leaves, lv, w = _cells(leaf_codes, levels, hierarchies, weights)
    assert leaves is not None
    root_cost = sum(float(phi[-1]) for phi in node_costs(hierarchies, cost))
    full = root_cost * float(w.sum())
    if full <= 0.0:
        return 0.0
    share = cost_loss(leaves, lv, hierarchies, cost=cost, weights=w) / full
    return min(100.0, max(0.0, 100.0 * share))  # clip rounding noise at the ends


def _modified_mask(leaves: IntArray, lv: IntArray, hierarchies: Sequence[Hierarchy]) -> IntArray:
    """Per cell, 1 if the released label differs from the original value."""
    out = np.zeros(lv.shape, dtype=np.int64)
    for i, h in enumerate(hierarchies):
        nodes = hierarchy_nodes(h)
        labels = np.array(nodes.labels, dtype=object)
        differs = labels[nodes.leaf_nodes] != labels[nodes.leaf_nodes[0]][None, :]
        out[i] = differs[lv[i], leaves[i]]
    return out


def modified_percentage(
    leaf_codes: npt.ArrayLike,
    levels: npt.ArrayLike,
    hierarchies: Sequence[Hierarchy],
    *,
    weights: npt.ArrayLike | None = None,
) -> float:
    """Percentage of modified values (Mauger et al. 2020, Figure 11).

    A value is modified when its released label differs from the original value, at
    whatever level. Counted over all ``n_records * n_qi`` cells.

    Examples
    --------
    >>> h = Hierarchy([["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"]])
    >>> modified_percentage([[0, 1, 2]], [[0, 1, 2]], [h])
    66.66666666666667
    """
    leaves, lv, w = _cells(leaf_codes, levels, hierarchies, weights)
    assert leaves is not None
    return _percent(_modified_mask(leaves, lv, hierarchies), w, float(w.sum()) * len(hierarchies))


def _percent(mask: IntArray, weights: FloatArray, whole: float) -> float:
    """``100 * (weighted cells of mask) / whole``, 0 when ``whole`` is 0."""
    if whole == 0:
        return 0.0
    return 100.0 * float(np.sum(mask * weights)) / whole


def _deleted_mask(lv: IntArray, hierarchies: Sequence[Hierarchy]) -> IntArray:
    tops = np.array([h.max_level for h in hierarchies], dtype=np.int64)[:, None]
    deleted: IntArray = ((lv == tops) & (tops > 0)).astype(np.int64)
    return deleted


def deleted_percentage(
    levels: npt.ArrayLike,
    hierarchies: Sequence[Hierarchy],
    *,
    weights: npt.ArrayLike | None = None,
) -> float:
    """Percentage of deleted values (Mauger et al. 2020, Figure 12).

    A value is deleted when it is released at its hierarchy's root (highest level).
    Counted over all ``n_records * n_qi`` cells (271,458 on Adult).

    Examples
    --------
    >>> h = Hierarchy([["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"]])
    >>> round(deleted_percentage([[0, 1, 2, 2]], [h]), 1)
    50.0
    """
    _, lv, w = _cells(None, levels, hierarchies, weights)
    return _percent(_deleted_mask(lv, hierarchies), w, float(w.sum()) * len(hierarchies))


def deleted_of_modified_percentage(
    leaf_codes: npt.ArrayLike,
    levels: npt.ArrayLike,
    hierarchies: Sequence[Hierarchy],
    *,
    weights: npt.ArrayLike | None = None,
) -> float:
    """Deleted values as a percentage of modified values (Mauger et al. 2020, Figure 13).

    0 when no value is modified.

    Examples
    --------
    >>> h = Hierarchy([["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"]])
    >>> deleted_of_modified_percentage([[0, 1, 2, 2]], [[0, 1, 2, 0]], [h])
    50.0
    """
    leaves, lv, w = _cells(leaf_codes, levels, hierarchies, weights)
    assert leaves is not None
    modified = float(np.sum(_modified_mask(leaves, lv, hierarchies) * w))
    return _percent(_deleted_mask(lv, hierarchies), w, modified)


def released_nodes(
    leaf_codes: npt.ArrayLike, levels: npt.ArrayLike, hierarchies: Sequence[Hierarchy]
) -> IntArray:
    """``(n_qi, n_rows)``: the :class:`HierarchyNodes` id of every released cell."""
    leaves, lv, _ = _cells(leaf_codes, levels, hierarchies, None)
    assert leaves is not None
    out = np.empty(lv.shape, dtype=np.int64)
    for i, h in enumerate(hierarchies):
        out[i] = hierarchy_nodes(h).leaf_nodes[lv[i], leaves[i]]
    return out


def effective_k(
    leaf_codes: npt.ArrayLike,
    levels: npt.ArrayLike,
    hierarchies: Sequence[Hierarchy],
    *,
    weights: npt.ArrayLike | None = None,
) -> int:
    """Size of the smallest equivalence class of a release ("minimum k", Figure 9).

    Records are grouped by their released labels (identical label vectors form one class,
    whichever class of the algorithm they came from). 0 for an empty table.

    Examples
    --------
    >>> h = Hierarchy([["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"]])
    >>> effective_k([[0, 1, 2]], [[1, 1, 0]], [h])  # A, A, c
    1
    """
    _, lv, w = _cells(None, levels, hierarchies, weights)
    if lv.shape[1] == 0:
        return 0
    nodes = released_nodes(leaf_codes, lv, hierarchies)
    if len(hierarchies) == 0:
        return int(round(float(w.sum())))
    cards = [hierarchy_nodes(h).n_nodes for h in hierarchies]
    _, _, inverse = group_codes(list(nodes), cards, with_inverse=True)
    assert inverse is not None
    sizes = np.bincount(inverse, weights=w)
    return int(round(float(sizes[sizes > 0].min())))
