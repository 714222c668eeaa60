"""k-OPTIMIZE: optimal k-anonymization by set enumeration (Bayardo & Agrawal, ICDE 2005).

Each quasi-identifier has an ordered domain ``v_0 < v_1 < ... < v_{m-1}`` (the values
present in the data). A generalization of the column is a partition of its domain into
intervals, given by the values that *start* an interval; ``v_0`` always does, so the
other starts are free. Numbering the free values of every column in one total order
(column by column, value by value) makes an anonymization a *set* of such items, and the
search space is every subset: the empty set generalizes every column to one interval,
the full set leaves every column as is. Records of classes smaller than ``k`` are
suppressed.

The search walks the set-enumeration tree (OPUS style): a node is a head set ``H`` with a
tail ``T`` of items that may still be added; its descendants are ``H ∪ S`` for the
subsets ``S`` of ``T``. Specializing never merges classes, so for every descendant ``A``:

* a record suppressed under ``H`` (class smaller than ``k``) is suppressed under ``A``;
* every other record's class under ``A`` holds at least ``max(k, |E_{H∪T}(r)|)`` records
  if kept, and a suppressed record costs at least that too.

That gives the paper's lower bounds (``COMPUTE-LOWER-BOUND``) for the discernibility
metric (kept record: the size of its class; suppressed record: ``|D|``) and for the
classification metric (kept record: 1 if its class label is not its class's majority;
suppressed record: 1; a class's minority count is at least the sum of its parts'):

``LB_DM(H, T) = sum_{r suppressed by H} |D| + sum_{other r} max(k, |E_{H∪T}(r)|)``

``LB_CM(H, T) = |suppressed by H| + sum_{E in H∪T, not suppressed by H} minority(E)``

The search (the paper's Figure 4) at each node: drops *useless* tail items (those that
split no class of records kept under ``H``: adding one never changes the cost), prices
``H``, prunes the node when ``LB(H, T)`` reaches the best cost found, drops every tail
item ``v`` whose ``LB(H ∪ {v}, T - {v})`` does (repeating while the tail shrinks), orders
the tail, and recurses into ``H ∪ {v}`` for each remaining ``v`` with the items after it
as its tail, pruning the tail again after each child.

A suppression limit (``max_suppressed``) is enforced on top of the paper's costs: records
suppressed under ``H`` stay suppressed below it, so a node over the limit is pruned with
its whole subtree, and a tail item whose addition goes over the limit is dropped.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from anonkit._arrays import BoolArray, FloatArray, IntArray
from anonkit._validation import check_choice, check_int, check_real
from anonkit.exceptions import ParameterError, PrivacyUnattainableError
from anonkit.progress import Progress, tick

#: The metrics k-OPTIMIZE minimizes.
METRICS = ("discernibility", "classification")

__all__ = ["METRICS", "KOptimizeResult", "class_ids", "k_optimize", "node_cost"]


#: Largest folded key space compacted with a dense table instead of a sort.
_DENSE_KEYS = 1 << 22


def _compact(key: IntArray, span: int) -> tuple[IntArray, int]:
    """Number the distinct values of ``key`` (all below ``span``) ``0 .. m - 1``."""
    if span <= max(_DENSE_KEYS, 4 * key.size):
        present = np.zeros(span, dtype=np.int64)
        present[key] = 1
        remap = np.cumsum(present) - 1
        return remap[key], int(remap[-1]) + 1 if span else 0
    _, inverse = np.unique(key, return_inverse=True)
    ids = inverse.reshape(-1).astype(np.int64)
    return ids, int(ids.max()) + 1 if key.size else 0


def class_ids(intervals: IntArray, radices: Sequence[int]) -> tuple[IntArray, int]:
    """Class of each row (``0 .. n_classes - 1``) from its interval per column.

    The columns are folded into one int64 key in mixed radix, compacted whenever the
    next column would make the key space too large.

    Examples
    --------
    >>> ids, n = class_ids(np.array([[0, 1], [1, 0], [0, 1]]), [2, 2])
    >>> ids.tolist(), n
    ([0, 1, 0], 2)
    """
    rows = intervals.shape[0]
    key = np.zeros(rows, dtype=np.int64)
    span = 1
    for j, radix in enumerate(radices):
        r = max(int(radix), 1)
        if span * r >= 1 << 40:
            key, span = _compact(key, span)
        key = key * r + intervals[:, j]
        span *= r
    return _compact(key, span)


@dataclass(frozen=True, eq=False)
class KOptimizeResult:
    """The optimal anonymization found.

    Attributes
    ----------
    starts
        Per column, the domain positions that start an interval (always including 0).
    cost
        Its cost (discernibility or classification metric, suppressed records included).
    suppressed
        Records suppressed (classes smaller than ``k``).
    nodes
        Nodes of the set-enumeration tree visited.
    optimal
        Whether the search finished (``False`` when the time limit stopped it: the result
        is then the best found, not proven optimal).
    seconds
        Time spent searching.
    """

    starts: tuple[IntArray, ...]
    cost: float
    suppressed: int
    nodes: int
    optimal: bool
    seconds: float
    metric: str = field(default="discernibility")


class _Problem:
    """The distinct rows, their weights and the per-node computations."""

    def __init__(
        self,
        codes: IntArray,
        weights: IntArray,
        sizes: Sequence[int],
        labels: IntArray | None,
        k: int,
        metric: str,
        max_suppressed: int,
    ) -> None:
        self.codes = codes
        self.w = weights.astype(np.float64)
        self.n = float(weights.sum())
        self.sizes = [int(s) for s in sizes]
        self.k = k
        self.metric = metric
        self.max_suppressed = max_suppressed
        self.labels = labels
        self.n_labels = int(labels.max()) + 1 if labels is not None and labels.size else 1
        # items: (column, domain position), in column order then value order
        self.item_col = np.concatenate(
            [np.full(max(s - 1, 0), j, dtype=np.int64) for j, s in enumerate(self.sizes)]
            or [np.zeros(0, dtype=np.int64)]
        )
        self.item_val = np.concatenate(
            [np.arange(1, s, dtype=np.int64) for s in self.sizes] or [np.zeros(0, dtype=np.int64)]
        )
        # flat layout of every (column, value): where each column starts and ends, the
        # flag array with each column's first value set, and each item's and row's slot
        sizes_arr = np.asarray([max(s, 1) for s in self.sizes], dtype=np.int64)
        self._offsets = np.concatenate([[0], np.cumsum(sizes_arr)[:-1]]).astype(np.int64)
        self._lasts = self._offsets + sizes_arr - 1
        self._first = np.zeros(int(sizes_arr.sum()), dtype=np.int64)
        self._first[self._offsets] = 1
        self._flat_item = self._offsets[self.item_col] + self.item_val
        self._flat_codes = codes + self._offsets[None, :]

    @property
    def n_items(self) -> int:
        return int(self.item_col.size)

    def classes(self, items: Sequence[int] | IntArray) -> tuple[IntArray, int]:
        """Class of each distinct row under the anonymization ``items``.

        All columns at once: one start flag per (column, value) in a flat array, one
        cumulative sum, and each row's interval per column read from it.
        """
        start = self._first.copy()
        start[self._flat_item[np.asarray(items, dtype=np.int64)]] = 1
        running = np.cumsum(start)
        base = running[self._offsets]
        intervals = running[self._flat_codes] - base[None, :]
        radices = (running[self._lasts] - base + 1).tolist()
        span = 1
        for r in radices:
            span *= int(r)
        if span < 1 << 62:
            mult = np.ones(len(radices), dtype=np.int64)
            for j in range(len(radices) - 2, -1, -1):
                mult[j] = mult[j + 1] * int(radices[j + 1])
            return _compact(intervals @ mult, span)
        return class_ids(intervals, radices)

    def minority(self, cls: IntArray, n_cls: int) -> FloatArray:
        """Per class: records whose label is not the class's majority label."""
        assert self.labels is not None
        table = np.bincount(
            cls * self.n_labels + self.labels, weights=self.w, minlength=n_cls * self.n_labels
        ).reshape(n_cls, self.n_labels)
        out: FloatArray = table.sum(axis=1) - table.max(axis=1)
        return out

    def cost(self, cls: IntArray, n_cls: int) -> tuple[float, int]:
        """The cost of an anonymization with classes ``cls``, and its suppressed records."""
        size = np.bincount(cls, weights=self.w, minlength=n_cls)
        small = size < self.k
        suppressed = int(round(size[small].sum()))
        if self.metric == "discernibility":
            return float(suppressed * self.n + (size[~small] ** 2).sum()), suppressed
        return float(suppressed + self.minority(cls, n_cls)[~small].sum()), suppressed

    def penalties(self, cls_ht: IntArray, n_ht: int) -> tuple[FloatArray, FloatArray]:
        """Per row, its least cost when suppressed and when kept, from the classes of
        ``H ∪ T`` (each ``H ∪ T`` class's minority is charged to one of its rows)."""
        if self.metric == "discernibility":
            size = np.bincount(cls_ht, weights=self.w, minlength=n_ht)
            return self.w * self.n, self.w * np.maximum(float(self.k), size[cls_ht])
        minority = self.minority(cls_ht, n_ht)
        _, first = np.unique(cls_ht, return_index=True)
        keep = np.zeros(cls_ht.size)
        keep[first] = minority
        return self.w.copy(), keep


def node_cost(
    codes: npt.ArrayLike,
    weights: npt.ArrayLike,
    domain_sizes: Sequence[int],
    starts: Sequence[npt.ArrayLike],
    k: int,
    metric: str = "discernibility",
    labels: npt.ArrayLike | None = None,
) -> tuple[float, int]:
    """The cost and suppressed records of one anonymization (interval starts per column).

    A plain evaluation of the cost k-OPTIMIZE minimizes (the brute-force oracle of the
    tests uses it).

    Examples
    --------
    >>> node_cost([[0], [1], [2], [2]], [1, 1, 1, 1], [3], [[0, 2]], 2)
    (8.0, 0)
    """
    c = np.asarray(codes, dtype=np.int64)
    w = np.asarray(weights, dtype=np.int64)
    y = None if labels is None else np.asarray(labels, dtype=np.int64)
    problem = _Problem(c, w, domain_sizes, y, k, metric, int(w.sum()))
    wanted = [set(np.asarray(st, dtype=np.int64).tolist()) for st in starts]
    items = [
        i
        for i in range(problem.n_items)
        if int(problem.item_val[i]) in wanted[int(problem.item_col[i])]
    ]
    return problem.cost(*problem.classes(items))


def k_optimize(
    codes: npt.ArrayLike,
    weights: npt.ArrayLike,
    domain_sizes: Sequence[int],
    k: int,
    *,
    metric: str = "discernibility",
    labels: npt.ArrayLike | None = None,
    max_suppressed: int | None = None,
    time_limit: float | None = None,
    progress: Progress | None = None,
) -> KOptimizeResult:
    """Find the optimal interval anonymization of distinct rows (Bayardo & Agrawal 2005).

    Parameters
    ----------
    codes
        ``(rows, d)`` domain position of each distinct row's value per column (``0`` is
        the smallest value).
    weights
        Records per row.
    domain_sizes
        Values in each column's ordered domain.
    k
        The least class size; smaller classes are suppressed.
    metric
        ``"discernibility"`` (kept record: its class size; suppressed: ``|D|``) or
        ``"classification"`` (1 per record suppressed or not of its class's majority
        label; needs ``labels``).
    labels
        Class label code per row (classification metric; rows must be distinct on the
        label too).
    max_suppressed
        Largest number of records that may be suppressed (``None``: any, as in the paper).
    time_limit
        Seconds after which the search stops with the best anonymization found so far
        (``optimal=False``); ``None`` searches to the end.
    progress
        ``progress(done, total)``: nodes visited, and that plus the open tail items.

    Raises
    ------
    PrivacyUnattainableError
        If every anonymization suppresses more than ``max_suppressed`` records.
    """
    owner = "k_optimize"
    check_int(k, "k", owner, low=1)
    check_choice(metric, "metric", owner, METRICS)
    if time_limit is not None:
        check_real(time_limit, "time_limit", owner, low=0)
    c = np.asarray(codes, dtype=np.int64)
    w = np.asarray(weights, dtype=np.int64)
    if c.ndim != 2 or c.shape[0] != w.shape[0]:
        raise ParameterError(
            "codes", owner, "a (rows, columns) array with one weight per row", c.shape
        )
    y = None if labels is None else np.asarray(labels, dtype=np.int64)
    if metric == "classification" and y is None:
        raise ParameterError(
            "labels", owner, "a class label per row for the classification metric", None
        )
    total = int(w.sum())
    limit = total if max_suppressed is None else int(max_suppressed)
    problem = _Problem(c, w, domain_sizes, y, k, metric, limit)
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + float(time_limit)
    state = _Search(problem, deadline, progress)
    state.run()
    if state.best_items is None:
        raise PrivacyUnattainableError(
            f"Every interval generalization suppresses more than {limit} record(s) for "
            f"{k}-anonymity; raise the suppression limit or lower k.",
            requirement=f"{k}-anonymity",
        )
    starts = []
    chosen = np.asarray(state.best_items, dtype=np.int64)
    for j in range(len(problem.sizes)):
        vals = problem.item_val[chosen[problem.item_col[chosen] == j]]
        starts.append(np.unique(np.concatenate([[0], vals])).astype(np.int64))
    return KOptimizeResult(
        starts=tuple(starts),
        cost=state.best_cost,
        suppressed=state.best_suppressed,
        nodes=state.nodes,
        optimal=not state.stopped,
        seconds=time.perf_counter() - t0,
        metric=metric,
    )


class _Search:
    """The recursive K-OPTIMIZE procedure and its incumbent."""

    def __init__(self, problem: _Problem, deadline: float | None, progress: Progress | None):
        self.p = problem
        self.deadline = deadline
        self.progress = progress
        self.best_cost = np.inf
        self.best_items: list[int] | None = None
        self.best_suppressed = 0
        self.nodes = 0
        self.stopped = False

    def run(self) -> None:
        self._seed()
        self._visit([], np.arange(self.p.n_items, dtype=np.int64))

    def _seed(self) -> None:
        """A first incumbent, so the bounds prune from the start: greedy specialization
        from the root, adding the item that lowers the cost most while one does (a
        heuristic of ours; the search below still proves optimality)."""
        p = self.p
        head: list[int] = []
        cls_h, n_h = p.classes(head)
        cost, suppressed = p.cost(cls_h, n_h)
        if suppressed <= p.max_suppressed:
            self.best_cost, self.best_items, self.best_suppressed = cost, [], suppressed
        rest = np.arange(p.n_items, dtype=np.int64)
        while rest.size and not self._out_of_time():
            costs, supp = self._child_costs(cls_h, n_h, rest)
            costs[supp > p.max_suppressed] = np.inf
            i = int(np.argmin(costs))
            if not costs[i] < min(cost, self.best_cost) and not (
                self.best_items is None and np.isfinite(costs[i])
            ):
                break
            head.append(int(rest[i]))
            rest = np.delete(rest, i)
            cls_h, n_h = p.classes(head)
            cost, suppressed = p.cost(cls_h, n_h)
            if suppressed <= p.max_suppressed and cost < self.best_cost:
                self.best_cost, self.best_items, self.best_suppressed = cost, list(head), suppressed

    def _child_costs(
        self, cls_h: IntArray, n_h: int, items: IntArray
    ) -> tuple[FloatArray, FloatArray]:
        """Cost and suppressed records of ``H ∪ {v}`` for each item ``v``."""
        p = self.p
        side = p.codes[:, p.item_col[items]] >= p.item_val[items][None, :]
        m = items.size
        keys = cls_h[:, None] * 2 + side + (np.arange(m, dtype=np.int64) * 2 * n_h)[None, :]
        sizes = np.bincount(keys.ravel(), weights=np.repeat(p.w, m), minlength=2 * n_h * m)
        small = sizes < p.k
        supp = np.where(small, sizes, 0.0).reshape(m, -1).sum(axis=1)
        if p.metric == "discernibility":
            kept = np.where(small, 0.0, sizes * sizes).reshape(m, -1).sum(axis=1)
            return supp * p.n + kept, supp
        assert p.labels is not None
        lab = np.bincount(
            (keys * p.n_labels + p.labels[:, None]).ravel(),
            weights=np.repeat(p.w, m),
            minlength=2 * n_h * m * p.n_labels,
        ).reshape(-1, p.n_labels)
        minority = np.where(small, 0.0, lab.sum(axis=1) - lab.max(axis=1))
        return supp + minority.reshape(m, -1).sum(axis=1), supp

    # ------------------------------------------------------------------ helpers
    def _tail_effects(
        self, head: list[int], cls_h: IntArray, n_h: int, tail: IntArray
    ) -> tuple[BoolArray, BoolArray]:
        """Per tail item ``v``: which rows ``H ∪ {v}`` suppresses, and whether ``v`` splits
        a class kept under ``H`` (rows x items, items)."""
        p = self.p
        side = p.codes[:, p.item_col[tail]] >= p.item_val[tail][None, :]  # rows x items
        m = tail.size
        keys = cls_h[:, None] * 2 + side + (np.arange(m, dtype=np.int64) * 2 * n_h)[None, :]
        sizes = np.bincount(keys.ravel(), weights=np.repeat(p.w, m), minlength=2 * n_h * m)
        suppressed = sizes[keys] < p.k
        halves = sizes.reshape(m, n_h, 2)
        kept_h = np.bincount(cls_h, weights=p.w, minlength=n_h) >= p.k
        splits = ((halves[:, :, 0] > 0) & (halves[:, :, 1] > 0) & kept_h[None, :]).any(axis=1)
        return suppressed, splits

    def _out_of_time(self) -> bool:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            self.stopped = True
        return self.stopped

    # ------------------------------------------------------------------- search
    def _visit(self, head: list[int], tail: IntArray) -> None:
        p = self.p
        self.nodes += 1
        tick(self.progress, self.nodes, self.nodes + int(tail.size))
        if self._out_of_time():
            return
        cls_h, n_h = p.classes(head)
        cost, suppressed = p.cost(cls_h, n_h)
        if suppressed > p.max_suppressed:
            return  # and every specialization suppresses at least as many
        if cost < self.best_cost:
            self.best_cost, self.best_items, self.best_suppressed = cost, list(head), suppressed
        if tail.size == 0:
            return
        # useless values: split no class kept under H, so never change a cost
        supp_v, splits = self._tail_effects(head, cls_h, n_h, tail)
        tail, supp_v = tail[splits], supp_v[:, splits]
        supp_h = np.bincount(cls_h, weights=p.w, minlength=n_h)[cls_h] < p.k
        tail, supp_v, bounds = self._prune(head, supp_h, tail, supp_v)
        if tail.size == 0:
            return
        # order: the items with the lowest child bounds first (the most promising
        # subtrees are searched first and give the incumbent that prunes the rest)
        order = np.argsort(bounds, kind="stable")
        tail, supp_v = tail[order], supp_v[:, order]
        while tail.size:
            v = int(tail[0])
            tail, supp_v = tail[1:], supp_v[:, 1:]
            self._visit([*head, v], tail)
            if self.stopped or tail.size == 0:
                return
            tail, supp_v, _ = self._prune(head, supp_h, tail, supp_v)

    def _prune(
        self, head: list[int], supp_h: BoolArray, tail: IntArray, supp_v: BoolArray
    ) -> tuple[IntArray, BoolArray, FloatArray]:
        """The paper's PRUNE: empty the tail if ``LB(H, T)`` reaches the best cost, drop
        the items whose ``LB(H ∪ {v}, T - {v})`` does (the classes of ``H ∪ T`` are the
        same for every ``v``; ``H ∪ {v}`` over the suppression limit is dropped too), and
        repeat while the tail shrinks. Also returns the kept items' child bounds."""
        p = self.p
        child: FloatArray = np.zeros(0)
        while tail.size:
            cls_ht, n_ht = p.classes([*head, *tail.tolist()])
            pen_supp, pen_keep = p.penalties(cls_ht, n_ht)
            bound = float(np.where(supp_h, pen_supp, pen_keep).sum())
            if bound >= self.best_cost:
                return tail[:0], supp_v[:, :0], child[:0]
            child = np.where(supp_v, pen_supp[:, None], pen_keep[:, None]).sum(axis=0)
            over = (supp_v * p.w[:, None]).sum(axis=0) > p.max_suppressed + 0.5
            keep = (child < self.best_cost) & ~over
            if keep.all():
                break
            tail, supp_v, child = tail[keep], supp_v[:, keep], child[keep]
        return tail, supp_v, child
