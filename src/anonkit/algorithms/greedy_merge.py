"""Greedy merging of equivalence classes with cost matrices (Mauger et al. 2020, Algorithm 1).

The table starts as its equivalence classes (the distinct quasi-identifier combinations,
counted once, never row by row). While some class is smaller than ``k``, a small class
``C_small`` is merged with the small class ``C`` of minimal merge cost::

    MC(C_small, C) = sum_i Cost_Qi(x_i, y_i) |C_small| + Cost_Qi(y_i, x_i) |C|

(see :mod:`anonkit.metrics.cost_matrix`): both classes are generalized to the lowest common
ancestors of their values, attribute by attribute. The result is a local recoding, each
class released at its own LCA values.

Choices the paper leaves open, and what this implementation does:

* ``C(T)`` is ordered by the classes' original value codes (hierarchy row order,
  lexicographic in column order), the order a group-by produces. ``small_class="first"``
  (the paper: "we simply use the first element of C(T)") takes the first small class and
  keeps merging into it, in place, until it reaches ``k``; then the next first small class
  is taken. ``small_class="smallest"`` takes a smallest small class instead (ties: first).
* Candidates ``C`` are the other small classes (``Cmk(T) \\ C_small``, as in the paper).
  When ``C_small`` is the only small class left, it merges with the class of minimal
  merge cost among all classes.
* Ties of the merge cost (within a relative ``1e-9``) go to the class that comes first in
  ``C(T)``; a merged class takes the earlier position of the classes it joins.
* Equivalence classes are sets of records with identical released values: when a merge
  yields the values of another existing class, the two become one class (counted in
  ``n_fused``), so released classes never share their labels.

The classes are ordered as a group-by of the codes in column order, so the order of the
quasi-identifiers matters (:data:`PAPER_ADULT_COLUMNS` is the paper's order for Adult).

The merge cost of ``C_small`` against every candidate is computed at once with numpy. A
class is a vector of hierarchy-node ids; since every weight telescopes
(``w(n -> m) = phi(m) - phi(n)``), ``MC = (|C_small| + |C|) phi(LCA) - |C_small| phi(x) -
|C| phi(y)``. For the fixed ``x = C_small``, ``phi(LCA(x, y))`` is a lookup table over the
nodes of each attribute; attributes are packed into a few groups whose joint node space is
small, so a candidate costs one table lookup per group. The summed lookups are kept while
``C_small``'s values do not change, which is most merges for large ``k``.

References
----------
C. Mauger, G. Le Mahec, G. Dequen. Modeling and evaluation of k-anonymization metrics.
PPAI workshop at AAAI 2020. hal-03236397.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from anonkit.algorithms._ticker import Ticker
from anonkit.core.encoding import EncodedTable
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.snapshot import group_codes
from anonkit.exceptions import DataError, EmptyDataError, ParameterError
from anonkit.metrics.cost_matrix import (
    COST_FUNCTIONS,
    HierarchyNodes,
    alteration_percentage,
    check_cost,
    cost_loss,
    deleted_of_modified_percentage,
    deleted_percentage,
    effective_k,
    hierarchy_nodes,
    modified_percentage,
    node_costs,
)
from anonkit.progress import Progress

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: 21 requested k from 2 to 15,000, as in the paper's experiments. The paper's text names
#: 2, 50, 100, 500, 750, 1000, 1500, 4000, 5000, 7500, 10,000 and 15,000; the full list is
#: only on its plots' axes, so the other nine values are intermediate steps chosen here.
PAPER_K_VALUES: tuple[int, ...] = (
    2, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000,
    1500, 2000, 2500, 3000, 4000, 5000, 7500, 10000, 12500, 15000,
)  # fmt: skip
#: The paper's nine quasi-identifiers of Adult, in its order (Figure 5).
PAPER_ADULT_COLUMNS: tuple[str, ...] = (
    "age", "sex", "race", "marital-status", "education",
    "native-country", "workclass", "occupation", "salary-class",
)  # fmt: skip
#: Ways to choose ``C_small``.
SMALL_CLASS_CHOICES: tuple[str, ...] = ("first", "smallest")
#: Relative tolerance under which two merge costs are a tie.
TIE_TOLERANCE = 1e-9


@dataclass(frozen=True, eq=False)
class GreedyMergeResult:
    """A k-anonymous local recoding found by :class:`GreedyMerge`.

    Attributes
    ----------
    k, cost, small_class
        The parameters of the run (``k`` is the requested k).
    columns, hierarchies
        The quasi-identifiers, in order.
    class_of_record
        ``(n_records,)``: the released class of every record.
    class_sizes
        ``(n_classes,)``: records per class.
    class_levels, class_codes
        ``(n_qi, n_classes)``: each class's released node per attribute, as a level and the
        code at that level (an index into ``hierarchies[i].labels(level)``).
    levels
        ``(n_qi, n_records)``: the generalization level of every released cell.
    losses
        Each of the seven functions of :data:`~anonkit.metrics.cost_matrix.COST_FUNCTIONS`
        evaluated on the release (:func:`~anonkit.metrics.cost_matrix.cost_loss`).
    alteration
        Percentage of alteration of the release under each of the seven functions.
    modified_percentage, deleted_percentage, deleted_of_modified_percentage
        Shares of modified values, of deleted values (released at the root), and of
        deleted among modified values, in percent.
    effective_k
        Size of the smallest class of the release (the paper's "minimum k").
    n_initial_classes
        Distinct quasi-identifier combinations of the input.
    n_merges
        Iterations of Algorithm 1 (one merge each).
    n_fused
        Merges that produced another class's values, so that class joined too.
    timing
        Seconds per stage: ``group``, ``merge``, ``metrics``, ``total``.
    """

    k: int
    cost: str
    small_class: str
    columns: tuple[str, ...]
    hierarchies: tuple[Hierarchy, ...] = field(repr=False)
    class_of_record: IntArray = field(repr=False)
    class_sizes: IntArray = field(repr=False)
    class_levels: IntArray = field(repr=False)
    class_codes: IntArray = field(repr=False)
    levels: npt.NDArray[np.int8] = field(repr=False)
    losses: Mapping[str, float]
    alteration: Mapping[str, float]
    modified_percentage: float
    deleted_percentage: float
    deleted_of_modified_percentage: float
    effective_k: int
    n_initial_classes: int
    n_merges: int
    n_fused: int
    timing: Mapping[str, float]

    @property
    def n_records(self) -> int:
        return int(self.class_of_record.shape[0])

    @property
    def n_classes(self) -> int:
        return int(self.class_sizes.shape[0])

    @property
    def class_labels(self) -> tuple[tuple[str, ...], ...]:
        """Per class, its released label for every quasi-identifier."""
        per_qi = [
            [h.labels(int(lv))[int(c)] for lv, c in zip(lvs, codes, strict=True)]
            for h, lvs, codes in zip(
                self.hierarchies, self.class_levels, self.class_codes, strict=True
            )
        ]
        return tuple(zip(*per_qi, strict=True)) if per_qi else ()

    def released_values(self) -> dict[str, list[str]]:
        """The released quasi-identifier columns, one label per record."""
        out: dict[str, list[str]] = {}
        for col, labels in zip(self.columns, zip(*self.class_labels, strict=True), strict=True):
            arr = np.array(labels, dtype=object)
            out[col] = arr[self.class_of_record].tolist()
        return out

    def to_dict(self) -> dict[str, Any]:
        """The scalar results as plain JSON-ready values (no per-record arrays)."""
        return {
            "algorithm": "greedy_merge",
            "k": self.k,
            "cost": self.cost,
            "small_class": self.small_class,
            "columns": list(self.columns),
            "n_records": self.n_records,
            "n_classes": self.n_classes,
            "n_initial_classes": self.n_initial_classes,
            "effective_k": self.effective_k,
            "losses": dict(self.losses),
            "alteration": dict(self.alteration),
            "modified_percentage": self.modified_percentage,
            "deleted_percentage": self.deleted_percentage,
            "deleted_of_modified_percentage": self.deleted_of_modified_percentage,
            "n_merges": self.n_merges,
            "n_fused": self.n_fused,
            "timing": dict(self.timing),
        }


class GreedyMerge:
    """Greedy class merging minimizing a cost-matrix function (Mauger et al. 2020).

    Parameters
    ----------
    k
        Requested minimum class size, an int between 1 and the number of records.
    cost
        The function to optimize: one of ``distortion``, ``ncp``, ``total``, ``llm``,
        ``nllm`` (the paper's recommendation), ``wllm``, ``wnllm``.
    small_class
        How ``C_small`` is chosen: ``"first"`` (the paper) or ``"smallest"``; see the
        module docstring.
    progress
        Called as ``progress(done, total)`` while classes are merged: ``total`` is the
        number of classes smaller than ``k`` at the start, ``done`` those no longer
        small (merged into a class of ``k`` records or more, or into another one).
        Calls come at most every tenth of a second, and once at the end.

    Parameters are stored unchanged and validated by :meth:`fit`.

    References
    ----------
    C. Mauger, G. Le Mahec, G. Dequen. Modeling and evaluation of k-anonymization
    metrics. PPAI workshop at AAAI 2020. hal-03236397.

    Examples
    --------
    >>> h = Hierarchy([["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"], ["d", "C", "*"]])
    >>> result = GreedyMerge(k=2, cost="ncp").fit(np.array([[0, 1, 2, 3, 3]]), [h])
    >>> result.class_labels, result.class_sizes.tolist(), result.effective_k
    ((('A',), ('C',)), [2, 3], 2)
    """

    def __init__(
        self,
        *,
        k: int,
        cost: str = "nllm",
        small_class: str = "first",
        progress: Progress | None = None,
    ) -> None:
        self.k = k
        self.cost = cost
        self.small_class = small_class
        self.progress = progress

    def _validate(self) -> None:
        k = self.k
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ParameterError("k", "GreedyMerge", "an int >= 1", k)
        check_cost(self.cost)
        if self.small_class not in SMALL_CLASS_CHOICES:
            raise ParameterError(
                "small_class", "GreedyMerge", "'first' or 'smallest'", self.small_class
            )

    def fit(
        self,
        data: Any,
        hierarchies: Sequence[Hierarchy] | Mapping[str, Hierarchy | str | Path] | None = None,
    ) -> GreedyMergeResult:
        """Anonymize ``data`` and return the release.

        Parameters
        ----------
        data
            One of: an :class:`~anonkit.core.encoding.EncodedTable` (``hierarchies`` not
            needed); an ``(n_qi, n_records)`` int array of level-0 codes (rows of each
            hierarchy) with ``hierarchies`` a sequence, one per row; or a polars/pandas
            frame with ``hierarchies`` a mapping from quasi-identifier column to
            :class:`Hierarchy` or hierarchy file.

        Raises
        ------
        ParameterError
            For an invalid ``k`` (including ``k`` above the number of records) or
            ``small_class``.
        UnknownNameError
            For an unknown ``cost``.
        DataError
            If codes lie outside their hierarchies or the table is empty.
        """
        t0 = time.perf_counter()
        self._validate()
        columns, hs, codes = _as_codes(data, hierarchies)
        n = int(codes.shape[1])
        if n == 0:
            raise EmptyDataError()
        if not hs:
            raise ParameterError(
                "hierarchies", "GreedyMerge.fit", "at least one quasi-identifier", 0
            )
        if self.k > n:
            raise ParameterError("k", "GreedyMerge", f"at most the number of records ({n})", self.k)
        return _fit(codes, hs, columns, int(self.k), self.cost, self.small_class, t0, self.progress)


def greedy_merge(
    data: Any,
    hierarchies: Sequence[Hierarchy] | Mapping[str, Hierarchy | str | Path] | None = None,
    *,
    k: int,
    cost: str = "nllm",
    small_class: str = "first",
    progress: Progress | None = None,
) -> GreedyMergeResult:
    """Function form of :class:`GreedyMerge`: ``GreedyMerge(...).fit(data, hierarchies)``."""
    return GreedyMerge(k=k, cost=cost, small_class=small_class, progress=progress).fit(
        data, hierarchies
    )


# ---------------------------------------------------------------- input
def _as_codes(
    data: Any,
    hierarchies: Sequence[Hierarchy] | Mapping[str, Hierarchy | str | Path] | None,
) -> tuple[tuple[str, ...], tuple[Hierarchy, ...], IntArray]:
    if isinstance(data, EncodedTable):
        if data.record_codes is None:
            raise DataError("the encoded table holds counts only; greedy_merge needs records.")
        return data.columns, data.hierarchies, np.asarray(data.record_codes, dtype=np.int64)
    if isinstance(data, np.ndarray):
        if hierarchies is None or isinstance(hierarchies, Mapping):
            raise ParameterError(
                "hierarchies",
                "GreedyMerge.fit",
                "a sequence of Hierarchy for code arrays",
                type(hierarchies).__name__,
            )
        hs = tuple(hierarchies)
        if data.ndim != 2 or data.shape[0] != len(hs) or data.dtype.kind not in "iu":
            raise ParameterError(
                "data",
                "GreedyMerge.fit",
                f"an int array of shape (n_qi={len(hs)}, n_records)",
                f"{data.dtype}{data.shape}",
            )
        codes = data.astype(np.int64)
        for i, h in enumerate(hs):
            if codes.shape[1] and (codes[i].min() < 0 or codes[i].max() >= len(h.leaves)):
                raise DataError(
                    f"codes of quasi-identifier {i} must lie in 0..{len(h.leaves) - 1}."
                )
        names = tuple(h.name or f"q{i}" for i, h in enumerate(hs))
        return names, hs, codes
    if not isinstance(hierarchies, Mapping):
        raise ParameterError(
            "hierarchies",
            "GreedyMerge.fit",
            "a mapping from quasi-identifier to hierarchy for a data frame",
            type(hierarchies).__name__,
        )
    from anonkit.engines.base import get_engine
    from anonkit.io.frames import to_polars

    frame, _ = to_polars(data)
    if frame.height == 0:
        raise EmptyDataError()
    cols = list(hierarchies)
    hs_list = [
        (spec if spec.name == c else spec.with_name(c))
        if isinstance(spec, Hierarchy)
        else Hierarchy.from_csv(spec, name=c)
        for c, spec in hierarchies.items()
    ]
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        from anonkit.exceptions import UnknownColumnError

        raise UnknownColumnError(missing, frame.columns)
    table = get_engine("polars").encode(frame, cols, hs_list)
    assert table.record_codes is not None
    return table.columns, table.hierarchies, np.asarray(table.record_codes, dtype=np.int64)


# ---------------------------------------------------------------- the algorithm
#: Attributes are packed into groups whose joint node space stays below this size, so the
#: merge cost against every candidate takes one lookup per group instead of per attribute.
JOINT_SPACE = 4096
#: Floats of memoized joint rows kept per group (32 MiB).
JOINT_CACHE = 1 << 22


class _Rows:
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


def _pick(costs: FloatArray, order: IntArray, shift: float = 0.0) -> int:
    """Index of the minimal ``costs - shift``; ties go to the smallest ``order``.

    Two costs tie when they differ by at most ``TIE_TOLERANCE`` relative to the larger of
    1 and the magnitudes involved.
    """
    best = int(costs.argmin())
    low = float(costs[best])
    scale = max(1.0, abs(low), abs(shift))
    tied = (costs <= low + TIE_TOLERANCE * scale).nonzero()[0]
    if tied.shape[0] == 1:
        return best
    return int(tied[order[tied].argmin()])


def _merge_loop(
    start: IntArray,
    sizes: IntArray,
    rows: _Rows,
    k: int,
    small_class: str,
    progress: Progress | None = None,
) -> tuple[IntArray, IntArray, IntArray, int, int]:
    """Algorithm 1 on the distinct combinations ``start`` (global node ids, ``(m, n0)``).

    ``progress`` hears how many of the initial small classes are no longer small.
    Returns the parent of every initial class (a union-find forest whose roots are the
    final classes), the final node vector and size of every slot, and the merge and fusion
    counts.
    """
    m, n0 = start.shape
    n_groups = len(rows.groups)
    nodes = start.copy()  # current node vector of every slot (valid while alive)
    size = sizes.astype(np.float64)
    order = np.arange(n0, dtype=np.int64)  # position in C(T)
    parent = np.arange(n0, dtype=np.int64)
    alive = np.ones(n0, dtype=bool)
    by_label: dict[tuple[int, ...], int] = {tuple(col): i for i, col in enumerate(start.T.tolist())}
    phi = rows.phi

    # The small classes, kept compact (swap-remove) for the vectorized cost step.
    small = np.flatnonzero(size < k)
    c = int(small.shape[0])
    ticker = Ticker(progress, c)
    ticker(0)
    pos = np.full(n0, -1, dtype=np.int64)
    pos[small] = np.arange(c)
    y_slot = small.copy()
    y_joint = np.ascontiguousarray(rows.joint(nodes[:, small]))
    y_size = size[small].copy()
    y_cost = y_size * phi[nodes[:, small]].sum(axis=0)
    y_order = order[small].copy()
    # y_merged[i]: sum_a phi_a(LCA(x_a, y_a)) for candidate i and the current C_small x;
    # valid while x keeps its values (merges into x often leave them unchanged).
    y_merged = np.empty(c)
    merged_valid = False
    buf = np.empty(c)
    buf2 = np.empty(c)

    def remove(p: int) -> None:
        nonlocal c
        last = c - 1
        pos[y_slot[p]] = -1
        if p != last:
            moved = int(y_slot[last])
            y_slot[p] = moved
            y_joint[:, p] = y_joint[:, last]
            y_size[p] = y_size[last]
            y_cost[p] = y_cost[last]
            y_order[p] = y_order[last]
            y_merged[p] = y_merged[last]
            pos[moved] = p
        c = last

    def add(slot: int, v: IntArray, s: float) -> None:
        nonlocal c
        y_slot[c] = slot
        y_joint[:, c] = rows.joint(v[:, None])[:, 0]
        y_size[c] = s
        y_cost[c] = s * float(phi[v].sum())
        y_order[c] = order[slot]
        pos[slot] = c
        c += 1

    n_merges = n_fused = 0
    cur = -1  # C_small's slot, or -1 when one must be chosen
    x = np.zeros(m, dtype=np.int64)
    x_rows: list[FloatArray] = []
    x_lca = np.zeros(0, dtype=np.int64)
    while True:
        if cur < 0:
            if c == 0:
                break
            if small_class == "first":
                p = int(y_order[:c].argmin())
            else:
                p = _pick(y_size[:c], y_order[:c])
            cur = int(y_slot[p])
            remove(p)
            x = nodes[:, cur].copy()
            x_rows = rows.joint_row(x)
            x_lca = rows.lca_row(x)
            merged_valid = False
        s_x = float(size[cur])
        cost_x = s_x * float(phi[x].sum())
        if c > 0:
            tmp = buf2[:c]
            if not merged_valid:
                # (mode="clip" lets take write straight into ``out``; ids are in range)
                x_rows[0].take(y_joint[0, :c], out=y_merged[:c], mode="clip")
                for gi in range(1, n_groups):
                    x_rows[gi].take(y_joint[gi, :c], out=tmp, mode="clip")
                    y_merged[:c] += tmp
                merged_valid = True
            # MC = (|C_small| + |C|) phi(merged) - |C| phi(C) - |C_small| phi(C_small)
            costs = buf[:c]
            np.add(y_size[:c], s_x, out=costs)
            costs *= y_merged[:c]
            costs -= y_cost[:c]
            p = _pick(costs, y_order[:c], cost_x)
            other = int(y_slot[p])
            remove(p)
        else:  # C_small is the last small class: any class may absorb it
            big = np.flatnonzero(alive)
            big = big[big != cur]
            joint = rows.joint(nodes[:, big])
            merged = sum((x_rows[gi][joint[gi]] for gi in range(n_groups)), np.zeros(big.size))
            costs = merged * (size[big] + s_x) - size[big] * phi[nodes[:, big]].sum(axis=0)
            other = int(big[_pick(costs, order[big], cost_x)])
        n_merges += 1
        if not n_merges & 63:  # small classes left: the candidates and C_small
            ticker(ticker.total - c - 1)
        v = x_lca[nodes[:, other]]
        del by_label[tuple(x.tolist())]
        del by_label[tuple(nodes[:, other].tolist())]
        parent[other] = cur
        alive[other] = False
        size[cur] += size[other]
        order[cur] = min(order[cur], order[other])
        key = tuple(v.tolist())
        twin = by_label.get(key)
        if twin is not None:  # the merged values are another class's: one class now
            n_fused += 1
            if pos[twin] >= 0:
                remove(int(pos[twin]))
            parent[twin] = cur
            alive[twin] = False
            size[cur] += size[twin]
            order[cur] = min(order[cur], order[twin])
        by_label[key] = cur
        nodes[:, cur] = v
        if size[cur] >= k:
            cur = -1
        elif small_class == "smallest":
            add(cur, v, float(size[cur]))
            cur = -1
        elif v.tolist() != x.tolist():
            x = v
            x_rows = rows.joint_row(x)
            x_lca = rows.lca_row(x)
            merged_valid = False
    ticker.finish()
    return parent, nodes, size.astype(np.int64), n_merges, n_fused


def _fit(
    codes: IntArray,
    hierarchies: tuple[Hierarchy, ...],
    columns: tuple[str, ...],
    k: int,
    cost: str,
    small_class: str,
    t0: float,
    progress: Progress | None = None,
) -> GreedyMergeResult:
    all_nodes = [hierarchy_nodes(h) for h in hierarchies]
    rows = _Rows(all_nodes, node_costs(hierarchies, cost))
    uniq, counts, inverse = group_codes(
        list(codes), [len(h.leaves) for h in hierarchies], with_inverse=True
    )
    assert inverse is not None
    start = uniq + rows.offsets[:, None]  # leaves are nodes 0..n_leaves-1 of each hierarchy
    t1 = time.perf_counter()

    parent, final_nodes, final_size, n_merges, n_fused = _merge_loop(
        start, counts, rows, k, small_class, progress
    )
    t2 = time.perf_counter()

    while True:  # path compression: every initial class to its final class
        up = parent[parent]
        if np.array_equal(up, parent):
            break
        parent = up
    finals = np.flatnonzero(parent == np.arange(parent.shape[0]))  # in C(T) order
    class_id = np.full(parent.shape[0], -1, dtype=np.int64)
    class_id[finals] = np.arange(finals.shape[0])
    class_of_initial = class_id[parent]
    class_of_record = class_of_initial[inverse]
    local = final_nodes[:, finals] - rows.offsets[:, None]
    class_levels = np.stack([nd.level[local[a]] for a, nd in enumerate(all_nodes)])
    class_codes = np.stack([nd.code[local[a]] for a, nd in enumerate(all_nodes)])
    class_sizes = final_size[finals]

    # Measures on the initial classes (weights = their counts): each is one cell pattern.
    init_levels = class_levels[:, class_of_initial]
    w = counts.astype(np.float64)
    losses = {
        name: cost_loss(uniq, init_levels, hierarchies, cost=name, weights=w)
        for name in COST_FUNCTIONS
    }
    alteration = {
        name: alteration_percentage(uniq, init_levels, hierarchies, cost=name, weights=w)
        for name in COST_FUNCTIONS
    }
    levels = class_levels[:, class_of_record].astype(np.int8)
    for arr in (class_of_record, class_sizes, class_levels, class_codes, levels):
        arr.setflags(write=False)
    modified = modified_percentage(uniq, init_levels, hierarchies, weights=w)
    deleted = deleted_percentage(init_levels, hierarchies, weights=w)
    deleted_mod = deleted_of_modified_percentage(uniq, init_levels, hierarchies, weights=w)
    eff = effective_k(uniq, init_levels, hierarchies, weights=w)
    t3 = time.perf_counter()
    return GreedyMergeResult(
        k=k,
        cost=cost,
        small_class=small_class,
        columns=tuple(columns),
        hierarchies=tuple(hierarchies),
        class_of_record=class_of_record,
        class_sizes=class_sizes,
        class_levels=class_levels,
        class_codes=class_codes,
        levels=levels,
        losses=MappingProxyType(losses),
        alteration=MappingProxyType(alteration),
        modified_percentage=modified,
        deleted_percentage=deleted,
        deleted_of_modified_percentage=deleted_mod,
        effective_k=eff,
        n_initial_classes=int(counts.shape[0]),
        n_merges=n_merges,
        n_fused=n_fused,
        timing=MappingProxyType(
            {"group": t1 - t0, "merge": t2 - t1, "metrics": t3 - t2, "total": t3 - t0}
        ),
    )
