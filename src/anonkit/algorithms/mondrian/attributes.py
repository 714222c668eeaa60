"""Mondrian's inputs: quasi-identifier and sensitive columns, and their rank encodings.

The caller hands Mondrian one value object per column (:class:`NumericQI`,
:class:`HierarchicalQI`, :class:`OrderedQI`, :class:`SensitiveAttribute`). Before the
partitioning starts each quasi-identifier becomes an :class:`Axis`: every record gets an
integer *rank* such that a partition's extent on the axis is the pair ``(min rank, max
rank)``:

* numeric: the rank of the value among the table's distinct values;
* ordered categorical: the position of the value in the declared order;
* hierarchical: the position of the value's leaf in a depth-first order of the hierarchy,
  so that the leaves under any node hold consecutive ranks and the lowest common ancestor
  of a set of leaves is the lowest common ancestor of its smallest and largest rank.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray, IntArray
from anonkit.core.grouping import first_of_runs
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import DataError, MissingValuesError, ParameterError

#: Per-record codes: int32 (half the memory of int64 on tables of millions of records).
CodeArray = npt.NDArray[np.int32]
AxisKind = Literal["numeric", "ordered", "hierarchical"]

#: Largest hierarchy (in leaves) whose lowest-common-ancestor table is precomputed.
_LCA_TABLE_MAX_LEAVES = 512


def _as_codes(values: npt.ArrayLike, owner: str, parameter: str, n_labels: int) -> CodeArray:
    """``values`` checked as codes ``0 .. n_labels - 1``, as a read-only int32 array (a
    copy unless ``values`` is already a read-only int32 array)."""
    arr = np.asarray(values)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise ParameterError(parameter, owner, "a 1-D array of int codes", f"dtype {arr.dtype}")
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) >= n_labels):
        raise DataError(
            f"{owner} {parameter!r} holds codes outside 0..{n_labels - 1} "
            f"(found {int(arr.min())}..{int(arr.max())})."
        )
    if arr.dtype == np.int32 and not arr.flags.writeable:
        return arr
    codes = arr.astype(np.int32, copy=True)
    codes.setflags(write=False)
    return codes


@dataclass(frozen=True, eq=False)
class NumericQI:
    """A numeric quasi-identifier, cut at the median and released as a range or a mean.

    Parameters
    ----------
    name
        Column name.
    values
        One number per record (converted to float64; NaN is not allowed).

    Examples
    --------
    >>> NumericQI("age", [30, 41, 52]).values.tolist()
    [30.0, 41.0, 52.0]
    """

    name: str
    values: FloatArray

    def __post_init__(self) -> None:
        arr = np.asarray(self.values)
        if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iuf"):
            raise ParameterError("values", "NumericQI", "a 1-D numeric array", f"dtype {arr.dtype}")
        values = arr.astype(np.float64, copy=True)
        missing = int(np.isnan(values).sum())
        if missing:
            raise MissingValuesError(self.name, missing)
        infinite = int(np.isinf(values).sum())
        if infinite:
            raise DataError(
                f"Column {self.name!r} has {infinite} infinite value(s); a numeric "
                "quasi-identifier needs finite numbers."
            )
        values.setflags(write=False)
        object.__setattr__(self, "values", values)

    def __len__(self) -> int:
        return int(self.values.shape[0])


@dataclass(frozen=True, eq=False)
class HierarchicalQI:
    """A categorical quasi-identifier cut along its generalization hierarchy.

    Parameters
    ----------
    name
        Column name.
    codes
        One level-0 code per record: the row of the record's value in ``hierarchy``
        (an index into ``hierarchy.leaves``).
    hierarchy
        The column's generalization hierarchy.

    Examples
    --------
    >>> h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]])
    >>> HierarchicalQI("x", [0, 2, 1], h).codes.tolist()
    [0, 2, 1]
    """

    name: str
    codes: CodeArray
    hierarchy: Hierarchy

    def __post_init__(self) -> None:
        if not isinstance(self.hierarchy, Hierarchy):
            raise ParameterError(
                "hierarchy", "HierarchicalQI", "a Hierarchy", type(self.hierarchy).__name__
            )
        codes = _as_codes(self.codes, "HierarchicalQI", "codes", len(self.hierarchy.leaves))
        object.__setattr__(self, "codes", codes)

    def __len__(self) -> int:
        return int(self.codes.shape[0])


@dataclass(frozen=True, eq=False)
class OrderedQI:
    """A categorical quasi-identifier with a declared order, cut like a number on its ranks.

    Released as ``[first-last]`` (the first and last label present in the class), or as the
    label itself when a class holds one value.

    Parameters
    ----------
    name
        Column name.
    codes
        One code per record: the position of the record's value in ``order``.
    order
        The distinct labels, lowest first.

    Examples
    --------
    >>> OrderedQI("size", [2, 0], ("S", "M", "L")).order
    ('S', 'M', 'L')
    """

    name: str
    codes: CodeArray
    order: tuple[str, ...]

    def __post_init__(self) -> None:
        order = tuple(str(x) for x in self.order)
        if not order or len(set(order)) != len(order):
            raise ParameterError(
                "order", "OrderedQI", "a non-empty sequence of distinct labels", order
            )
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "codes", _as_codes(self.codes, "OrderedQI", "codes", len(order)))

    def __len__(self) -> int:
        return int(self.codes.shape[0])


@dataclass(frozen=True, eq=False)
class SensitiveAttribute:
    """A sensitive attribute, for models that read per-class value histograms.

    Parameters
    ----------
    name
        Column name; a model protects it when its ``attribute`` field holds this name.
    codes
        One code per record, an index into ``labels``.
    labels
        The attribute's distinct values.
    hierarchy
        Optional generalization hierarchy (hierarchical EMD in t-closeness).

    Examples
    --------
    >>> SensitiveAttribute("disease", [0, 1, 1], ("flu", "cold")).labels
    ('flu', 'cold')
    """

    name: str
    codes: CodeArray
    labels: tuple[str, ...]
    hierarchy: Hierarchy | None = None

    def __post_init__(self) -> None:
        labels = tuple(str(x) for x in self.labels)
        if not labels:
            raise ParameterError("labels", "SensitiveAttribute", "a non-empty sequence", labels)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(
            self, "codes", _as_codes(self.codes, "SensitiveAttribute", "codes", len(labels))
        )

    def __len__(self) -> int:
        return int(self.codes.shape[0])


QuasiIdentifier = NumericQI | HierarchicalQI | OrderedQI


@dataclass(frozen=True, eq=False)
class _HierarchyTables:
    rank_of_leaf: IntArray
    labels: tuple[str, ...]
    node_of_rank: IntArray
    first_rank: IntArray
    last_rank: IntArray
    node_level: IntArray
    node_width: FloatArray
    lca_table: npt.NDArray[np.int8] | None
    sibling_of_rank: IntArray
    max_fan: int


@functools.lru_cache(maxsize=64)
def _hierarchy_tables(h: Hierarchy) -> _HierarchyTables:
    """Depth-first ranks and per-node tables of a hierarchy (cached: hierarchies are
    immutable and hashable)."""
    n_leaves = len(h.leaves)
    by_leaf = np.stack([h.codes(level) for level in range(h.height)])  # (H, N)
    # lexsort's primary key is the last row (the root), then level H-2, ...: leaves
    # under one node end up consecutive (a depth-first order).
    dfs = np.lexsort(by_leaf)
    rank_of_leaf = np.empty(n_leaves, dtype=np.int64)
    rank_of_leaf[dfs] = np.arange(n_leaves)
    offsets = np.cumsum([0] + [len(h.labels(lv)) for lv in range(h.height)])
    node_of_rank = by_leaf[:, dfs] + offsets[:-1, None]
    n_nodes = int(offsets[-1])
    first = np.full(n_nodes, n_leaves, dtype=np.int64)
    last = np.full(n_nodes, -1, dtype=np.int64)
    ramp = np.tile(np.arange(n_leaves), h.height)
    np.minimum.at(first, node_of_rank.ravel(), ramp)
    np.maximum.at(last, node_of_rank.ravel(), ramp)
    level = np.repeat(np.arange(h.height), np.diff(offsets))
    width = (last - first).astype(np.float64) / max(n_leaves - 1, 1)
    labels = tuple(label for lv in range(h.height) for label in h.labels(lv))
    lca_table = None
    if n_leaves <= _LCA_TABLE_MAX_LEAVES:
        # lca_table[a, b]: level of the lowest common ancestor of ranks a and b, i.e.
        # the number of levels at which their ancestors differ (equality is upward
        # closed in a tree).
        diff = node_of_rank[:-1, :, None] != node_of_rank[:-1, None, :]
        lca_table = diff.sum(axis=0).astype(np.int8)
        lca_table.setflags(write=False)
    # sibling_of_rank[l, r]: index of the level-l ancestor of rank r among the children
    # of its parent (children ordered by their first rank)
    sibling_of_rank = np.zeros((max(h.height - 1, 1), n_leaves), dtype=np.int64)
    max_fan = 2
    for lv in range(h.height - 1):
        nodes = np.arange(offsets[lv], offsets[lv + 1])
        nodes = nodes[np.argsort(first[nodes], kind="stable")]
        parent = node_of_rank[lv + 1, first[nodes]]
        new_parent = first_of_runs(parent)
        group_start = np.maximum.accumulate(np.where(new_parent, np.arange(nodes.size), 0))
        sibling = np.empty(n_nodes, dtype=np.int64)
        sibling[nodes] = np.arange(nodes.size) - group_start
        sibling_of_rank[lv] = sibling[node_of_rank[lv]]
        max_fan = max(max_fan, int(sibling[nodes].max()) + 1)
    for arr in (
        rank_of_leaf,
        node_of_rank,
        first,
        last,
        level,
        width,
        sibling_of_rank,
    ):
        arr.setflags(write=False)
    return _HierarchyTables(
        rank_of_leaf=rank_of_leaf,
        labels=labels,
        node_of_rank=node_of_rank,
        first_rank=first,
        last_rank=last,
        node_level=level,
        node_width=width,
        lca_table=lca_table,
        sibling_of_rank=sibling_of_rank,
        max_fan=max_fan,
    )


@dataclass(frozen=True, eq=False)
class Axis:
    """One quasi-identifier in rank space, with the tables the partitioning needs.

    Attributes
    ----------
    name, kind
        Column name and kind.
    ranks
        ``(n,)`` int32 rank of each record (see the module docstring).
    hierarchy
        Hierarchical: the hierarchy.
    size
        Number of possible ranks.
    norm
        Normalizer of the "widest" split heuristic: the table's range of values (numeric)
        or of ranks (ordered). Hierarchical axes use leaf counts instead (see
        :meth:`width`).
    values
        Numeric: the sorted distinct values (rank ``r`` stands for ``values[r]``).
    labels
        Ordered: the labels in order. Hierarchical: the label of each node (global id).
    node_of_rank
        Hierarchical, ``(height, n_leaves)``: global id of the level-``l`` ancestor of the
        leaf at rank ``r``. Node ids are numbered level by level.
    first_rank, last_rank, node_level, node_width
        Hierarchical, per node: its leaves' rank range, its level, and
        ``(leaves under the node - 1) / (leaves of the hierarchy - 1)``.
    lca_table
        Hierarchical, small hierarchies: level of the lowest common ancestor of two ranks.
    sibling_of_rank, max_fan
        Hierarchical, ``(height - 1, n_leaves)``: position of the level-``l`` ancestor of
        rank ``r`` among its parent's children; the largest number of children of a node.
    """

    name: str
    kind: AxisKind
    ranks: npt.NDArray[np.int32]
    size: int
    norm: float
    values: FloatArray | None = None
    labels: tuple[str, ...] = ()
    hierarchy: Hierarchy | None = None
    node_of_rank: IntArray | None = None
    first_rank: IntArray | None = None
    last_rank: IntArray | None = None
    node_level: IntArray | None = None
    node_width: FloatArray | None = None
    lca_table: npt.NDArray[np.int8] | None = None
    sibling_of_rank: IntArray | None = None
    max_fan: int = 2

    # ------------------------------------------------------------------ builders
    @classmethod
    def numeric(cls, qi: NumericQI) -> Axis:
        values, inverse = np.unique(qi.values, return_inverse=True)
        norm = float(values[-1] - values[0]) if values.size else 0.0
        return cls(
            qi.name,
            "numeric",
            inverse.reshape(-1).astype(np.int32),
            int(values.size),
            norm,
            values=values,
        )

    @classmethod
    def ordered(cls, qi: OrderedQI) -> Axis:
        ranks = qi.codes
        norm = float(ranks.max() - ranks.min()) if ranks.size else 0.0
        return cls(qi.name, "ordered", ranks, len(qi.order), norm, labels=qi.order)

    @classmethod
    def hierarchical(cls, qi: HierarchicalQI) -> Axis:
        t = _hierarchy_tables(qi.hierarchy)
        return cls(
            qi.name,
            "hierarchical",
            t.rank_of_leaf[qi.codes].astype(np.int32),
            len(qi.hierarchy.leaves),
            float(max(len(qi.hierarchy.leaves) - 1, 1)),
            labels=t.labels,
            hierarchy=qi.hierarchy,
            node_of_rank=t.node_of_rank,
            first_rank=t.first_rank,
            last_rank=t.last_rank,
            node_level=t.node_level,
            node_width=t.node_width,
            lca_table=t.lca_table,
            sibling_of_rank=t.sibling_of_rank,
            max_fan=t.max_fan,
        )

    @classmethod
    def of(cls, qi: QuasiIdentifier) -> Axis:
        if isinstance(qi, NumericQI):
            return cls.numeric(qi)
        if isinstance(qi, OrderedQI):
            return cls.ordered(qi)
        return cls.hierarchical(qi)

    # ------------------------------------------------------- per-partition queries
    def lca_level(self, lo: IntArray, hi: IntArray) -> IntArray:
        """Hierarchical: level of the lowest common ancestor of ranks ``lo`` and ``hi``."""
        nodes = self.node_of_rank
        assert nodes is not None
        out: IntArray
        if self.lca_table is not None:
            out = self.lca_table[lo, hi].astype(np.int64)
        else:
            out = (nodes[:-1, lo] != nodes[:-1, hi]).sum(axis=0).astype(np.int64)
        return out

    def lca_node(self, lo: IntArray, hi: IntArray) -> IntArray:
        """Hierarchical: global node id of the lowest common ancestor of ``lo`` and ``hi``."""
        assert self.node_of_rank is not None
        return self.node_of_rank[self.lca_level(lo, hi), lo]

    def width(self, lo: IntArray, hi: IntArray, level: IntArray | None = None) -> FloatArray:
        """Normalized width of partitions spanning ranks ``lo..hi`` (the "widest" score).

        Numeric: ``(max - min) / (table max - table min)``; ordered: the same on ranks;
        hierarchical: ``(leaves under the lowest common ancestor - 1) / (leaves - 1)``
        (``level``, if given, is the ancestor's level, see :meth:`lca_level`).
        """
        out: FloatArray
        if self.kind == "numeric":
            assert self.values is not None
            out = (self.values[hi] - self.values[lo]) / (self.norm or 1.0)
        elif self.kind == "ordered":
            out = (hi - lo).astype(np.float64) / (self.norm or 1.0)
        else:
            assert self.node_width is not None and self.node_of_rank is not None
            if level is None:
                level = self.lca_level(lo, hi)
            out = self.node_width[self.node_of_rank[level, lo]]
        return out

    def bounds(self, lo: IntArray, hi: IntArray) -> tuple[FloatArray, FloatArray]:
        """The box ``[low, high]`` of partitions spanning ranks ``lo..hi``, in the space
        of :meth:`coordinates` (used to count population records matching a release)."""
        if self.kind == "numeric":
            assert self.values is not None
            return self.values[lo], self.values[hi]
        if self.kind == "ordered":
            return lo.astype(np.float64), hi.astype(np.float64)
        assert self.first_rank is not None and self.last_rank is not None
        node = self.lca_node(lo, hi)
        return self.first_rank[node].astype(np.float64), self.last_rank[node].astype(np.float64)

    def coordinates(self, qi: QuasiIdentifier) -> FloatArray:
        """Population records of the same column, as points comparable with :meth:`bounds`."""
        if isinstance(qi, NumericQI):
            return qi.values
        if isinstance(qi, OrderedQI):
            return qi.codes.astype(np.float64)
        assert self.hierarchy is not None
        if qi.hierarchy != self.hierarchy:
            raise ParameterError(
                "population",
                "Mondrian",
                f"column {self.name!r} encoded with the same hierarchy as the table",
                "another hierarchy",
            )
        rank_of_leaf = _hierarchy_tables(self.hierarchy).rank_of_leaf
        return rank_of_leaf[qi.codes].astype(np.float64)


def same_kind(a: QuasiIdentifier, b: object) -> bool:
    """Whether ``b`` describes a column of the same kind (and order) as ``a``."""
    if isinstance(a, OrderedQI):
        return isinstance(b, OrderedQI) and b.order == a.order
    return type(a) is type(b)


def check_lengths(
    columns: Sequence[NumericQI | HierarchicalQI | OrderedQI | SensitiveAttribute],
) -> int:
    """The common number of records of ``columns``; raises :class:`DataError` otherwise."""
    lengths = {c.name: len(c) for c in columns}
    distinct = set(lengths.values())
    if len(distinct) > 1:
        shown = ", ".join(f"{k!r}: {v}" for k, v in lengths.items())
        raise DataError(f"Mondrian's columns must have the same length; got {shown}.")
    return distinct.pop() if distinct else 0
