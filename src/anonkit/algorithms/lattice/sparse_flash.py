"""The exact full-domain search on lattices too large to hold: node state kept sparsely.

Flash (:mod:`.flash`) keeps a status and a lower bound for every node of the lattice, so
it needs the explicit lattice (at most :data:`~anonkit.core.lattice.MAX_NODES` nodes).
:class:`SparseFlash` finds the same optimum while keeping state only for what it learns:

* the nodes it evaluated (the evaluator's results),
* the *maximal* failing nodes found (every node below one fails: predictive tagging),
* the *minimal* private nodes that suppress nothing (every node above one is private and
  suppresses nothing, when the models are monotone under generalization).

The lattice is swept in *slabs*: the leading quasi-identifiers' levels are fixed (a
prefix) and the remaining ones span a block of at most ``slab_nodes`` nodes, handled as
numpy arrays and dropped after. In a slab, nodes whose lower bound exceeds the incumbent's
cost are skipped, then nodes ruled out by the two-column projections (k-anonymity's size
screen of :mod:`.prefilter`, with its suppression floor tightening the bound), then nodes
below a known failing node. The rest are taken cheapest bound first: a node above a
private node suppressing nothing costs its bound; any other node is evaluated, and when it
fails, a greedy path climbs from it through nodes not yet known and is binary-searched for
its lowest private node, as Flash does (Kohlmayer et al. 2012), so that one failing node
high on the path rules out the nodes below it.

Exactness: every node is either skipped because its lower bound exceeds the incumbent's
cost (with the float slack of :func:`~.search.slack`), or ruled out as not private, or
priced; the incumbent is the best by :func:`~.search.rank` (cost, then height, then node
number), the tie-break Flash uses. So the result is Flash's node, and the property test
compares the two (and the exhaustive search) on small lattices with tiny slabs.

Where the implementation had to choose:

* the lower bound of a node is the metric's cost without suppression, so the metric must
  price levels alone: the additive metrics (``loss``, ``precision``, ``height``,
  ``relative_distance``, ``nonuniform_entropy``) and ``loss`` with the geometric
  aggregate. The class-based metrics (``discernibility``, ``average_class_size``) learn
  their bounds from evaluated nodes and pass them to every node above, which needs dense
  state: on explicit lattices this class runs :class:`~.flash.Flash` for them, on larger
  ones it refuses;
* a first incumbent comes from one greedy path from the bottom, binary-searched (the first
  step of Lightning), so that the sweep skips nodes from the start;
* memory is estimated before the sweep (:func:`state_bytes`): the nodes whose bound does
  not exceed the first incumbent's cost are counted exactly (a histogram convolution of
  the per-column level costs, rounded down, so the count is an upper bound) and each may
  cost :data:`BYTES_PER_NODE` of state; the search refuses when that exceeds the memory
  available (``memory_limit``).

References
----------
F. Kohlmayer, F. Prasser, C. Eckert, A. Kemper, K. A. Kuhn. Flash: efficient, stable and
optimal k-anonymity. PASSAT/SocialCom 2012.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from anonkit._arrays import BoolArray, FloatArray, IntArray
from anonkit._validation import check_int
from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.flash import Flash
from anonkit.algorithms.lattice.node_result import NodeResult
from anonkit.algorithms.lattice.pair_projection import PairSources, pair_rejections
from anonkit.algorithms.lattice.search import SearchResult, no_solution, rank, slack, to_result
from anonkit.exceptions import ParameterError

LevelArray = npt.NDArray[np.int16]

#: Nodes per slab (numpy arrays of this many rows live while a slab is swept).
SLAB_NODES = 1 << 18
#: Bytes of state one node may cost: its evaluator result (a ``NodeResult`` with its level
#: tuple, in a dict) and its place among the tagged nodes. Measured on adult_full with 14
#: quasi-identifiers (about 450 bytes per evaluated node), rounded up.
BYTES_PER_NODE = 600
#: Bins of the histogram that counts the nodes below a cost (:func:`nodes_within`).
_BINS = 4096


def available_memory() -> int:
    """Bytes the system reports available (``MemAvailable``), else 4 GB."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 4 << 30


def _log_costs(evaluator: Evaluator) -> tuple[list[FloatArray], float] | None:
    """Per column, level costs whose sum orders nodes as their bound does, and the
    transform of a cost into that scale (``None`` unless the metric prices levels)."""
    model = evaluator.cost_model
    if model.additive:
        return [np.asarray(c, dtype=np.float64) for c in model.table_cost], 1.0
    if model.geometric and model.aggregation is not None:
        weights = model.aggregation.weights
        return [weights[j] * np.log1p(np.asarray(c)) for j, c in enumerate(model.table_cost)], -1.0
    return None


def nodes_within(evaluator: Evaluator, threshold: float) -> float:
    """An upper bound on the nodes whose lower bound does not exceed ``threshold``.

    Per-column level costs are rounded down to bins of ``threshold / 4096`` and the
    columns' histograms convolved, so no node is missed (some above the threshold may be
    counted). ``inf`` threshold: the lattice size.
    """
    lat = evaluator.lattice
    scaled = _log_costs(evaluator)
    if scaled is None or not math.isfinite(threshold):
        return float(lat.size)
    costs, mode = scaled
    limit = threshold if mode > 0 else math.log1p(threshold)
    if limit <= 0:
        limit = 1e-12
    width = limit / _BINS
    dist = np.zeros(_BINS + 1)
    dist[0] = 1.0
    for c in costs:
        nxt = np.zeros_like(dist)
        for b in np.floor(np.maximum(c, 0.0) / width).astype(np.int64):
            if b <= _BINS:
                nxt[b:] += dist[: _BINS + 1 - b]
        dist = nxt
    return float(min(dist.sum(), float(lat.size)))


def state_bytes(evaluator: Evaluator, threshold: float, slab_nodes: int = SLAB_NODES) -> float:
    """Upper bound on the memory :class:`SparseFlash` needs when its first incumbent costs
    ``threshold``: :data:`BYTES_PER_NODE` per node within the threshold, plus a slab's
    arrays."""
    per_slab = slab_nodes * (2 * evaluator.lattice.width + 64)
    return nodes_within(evaluator, threshold) * BYTES_PER_NODE + per_slab


class _Tags:
    """Level vectors held as rows of a growable array, for dominance tests."""

    def __init__(self, width: int) -> None:
        self.rows = np.zeros((16, width), dtype=np.int16)
        self.n = 0

    def add(self, levels: Sequence[int]) -> None:
        if self.n == self.rows.shape[0]:
            self.rows = np.concatenate([self.rows, np.zeros_like(self.rows)])
        self.rows[self.n] = levels
        self.n += 1

    def covers_from_above(self, levels: Sequence[int], start: int = 0) -> bool:
        """Whether some row (from ``start``) is at or above ``levels`` (it fails there)."""
        if self.n <= start:
            return False
        return bool((self.rows[start : self.n] >= np.asarray(levels)).all(axis=1).any())

    def covers_from_below(self, levels: Sequence[int]) -> bool:
        """Whether some row is at or below ``levels``."""
        if not self.n:
            return False
        return bool((self.rows[: self.n] <= np.asarray(levels)).all(axis=1).any())

    def below_any(
        self, shape: Sequence[int], rows: IntArray, prefix: Sequence[int], start: int = 0
    ) -> BoolArray:
        """Which of the block's ``rows`` (flat C-order positions in a block of ``shape``,
        under ``prefix``) lie below some tag (from ``start``).

        The tags whose prefix is at or above ``prefix`` are marked on the block's grid,
        and a suffix-OR along every axis turns the marks into the union of their
        down-sets: O(block size) whatever the number of tags.
        """
        p = len(prefix)
        tags = self.rows[start : self.n]
        if p:
            tags = tags[(tags[:, :p] >= np.asarray(prefix)).all(axis=1)]
        if not tags.shape[0]:
            return np.zeros(rows.shape[0], dtype=bool)
        grid = np.zeros(tuple(shape), dtype=bool)
        grid[tuple(tags[:, p:].T.astype(np.intp))] = True
        for axis in range(grid.ndim):
            flipped = np.flip(grid, axis)
            grid = np.flip(np.logical_or.accumulate(flipped, axis=axis), axis)
        out: BoolArray = grid.reshape(-1)[rows]
        return out


class SparseFlash:
    """Flash's optimum on lattices of any size that fits the memory, state kept sparsely.

    Parameters
    ----------
    slab_nodes
        Nodes swept at once (numpy arrays of this many rows).
    memory_limit
        Bytes the search may use for its state (default: what the system reports
        available); the search refuses up front when its estimate exceeds it.
    """

    name = "sparse_flash"

    def __init__(self, *, slab_nodes: int = SLAB_NODES, memory_limit: int | None = None) -> None:
        check_int(slab_nodes, "slab_nodes", "SparseFlash", low=1)
        if memory_limit is not None:
            check_int(memory_limit, "memory_limit", "SparseFlash", low=1)
        self.slab_nodes = slab_nodes
        self.memory_limit = memory_limit

    @staticmethod
    def applies(evaluator: Evaluator) -> bool:
        """Whether the evaluator's metric prices levels alone (the sparse path runs)."""
        return _log_costs(evaluator) is not None

    def search(self, evaluator: Evaluator) -> SearchResult:
        lat = evaluator.lattice
        if not self.applies(evaluator):
            if lat.explicit:  # Flash's dense bounds; the result keeps this search's name
                return replace(Flash().search(evaluator), algorithm=self.name)
            raise ParameterError(
                "metric",
                "the exact search beyond 5,000,000 nodes",
                "a metric that prices levels alone (loss, precision, height, "
                "relative_distance or nonuniform_entropy), or use algorithm='lightning'",
                evaluator.cost_model.metric,
            )
        return _Sweep(evaluator, self.slab_nodes, self.memory_limit).run(self.name)


class _Sweep:
    """One run of :class:`SparseFlash` (the state it keeps)."""

    def __init__(self, evaluator: Evaluator, slab_nodes: int, memory_limit: int | None) -> None:
        self.ev = evaluator
        self.lat = evaluator.lattice
        self.model = evaluator.cost_model
        self.memory_limit = memory_limit
        self.heights = self.lat.heights
        self.width = self.lat.width
        self.strides = [int(s) for s in self.lat.strides]
        self.monotone = evaluator.privacy_monotone
        if not self.monotone:
            evaluator.track_forced = True
        # nodes above a private node that suppresses nothing suppress nothing either (and
        # are private) when every model is monotone under generalization
        self.spread = all(
            bool(getattr(m, "monotone_generalization", False)) for m in evaluator.models
        )
        self.failing = _Tags(self.width)
        self.clean = _Tags(self.width)  # private nodes suppressing nothing
        self.private = _Tags(self.width)  # private nodes (monotone models: all above too)
        self.best: NodeResult | None = None
        self.threshold = math.inf
        # slabs: the leading p columns fixed, the others a block of at most slab_nodes
        p = self.width
        block = 1
        # (the last column always belongs to the block)
        while p > 0 and (p == self.width or block * self.heights[p - 1] <= slab_nodes):
            p -= 1
            block *= self.heights[p]
        self.p = p
        grid = np.indices(self.heights[p:], dtype=np.int16).reshape(self.width - p, -1)
        self.block: LevelArray = np.ascontiguousarray(grid.T)
        self.block_index = self.block.astype(np.int64) @ np.asarray(
            self.strides[p:], dtype=np.int64
        )
        self.block_height = self.block.sum(axis=1, dtype=np.int64)
        self._pairs = self._pair_tables()

    # ---------------------------------------------------------------- bounds
    def bounds(self, levels: LevelArray) -> FloatArray:
        """Lower bound (the cost without suppression) of each row of full level vectors,
        summed in column order as :meth:`CostModel.node_bounds` does (same floats)."""
        model = self.model
        if model.geometric:
            assert model.aggregation is not None
            per = np.stack(
                [c[levels[:, j]] for j, c in enumerate(model.table_cost)], axis=-1
            ).astype(np.float64)
            out: FloatArray = np.asarray(model.aggregation.combine(per), dtype=np.float64)
            return out
        total = np.zeros(levels.shape[0])
        for j, c in enumerate(model.table_cost):
            total += c[levels[:, j]]
        return total

    def bound(self, levels: Sequence[int]) -> float:
        return float(self.bounds(np.asarray([levels], dtype=np.int16))[0])

    def _pair_tables(self) -> list[tuple[int, int, BoolArray, FloatArray | None]]:
        """Per pair of columns: which level pairs the projection lets pass, and (when
        suppression is priced) a floor on the suppression cost as a function of the
        node's least per-record extra (see :func:`.prefilter.pair_screen`)."""
        ev = self.ev
        if not (ev.screen_models or ev.implied_min_size > 1):
            return []
        model = self.model
        priced = model.suppression_priced and ev.max_suppressed > 0
        self.min_extra = [
            np.array([float(e.min()) if e.size else 0.0 for e in extras]) for extras in model.extra
        ]
        out: list[tuple[int, int, BoolArray, FloatArray | None]] = []
        sources = PairSources(ev)
        for a, b in itertools.combinations(range(self.width), 2):
            pr = pair_rejections(ev, a, b, model.extra if priced else None, sources)
            if pr is None:
                continue  # too large to build: one bound less (pair_projection.PAIR_KEYS)
            ha, hb = self.heights[a], self.heights[b]
            ok = (pr.records <= ev.max_suppressed).reshape(ha, hb)
            floor = None
            if pr.extra is not None:
                supp_extra = pr.extra.reshape(ha, hb)
                records = pr.records.reshape(ha, hb)
                # floor = extra on the pair + records * (least extra elsewhere); keep both
                floor = np.stack([supp_extra, records])
            out.append((a, b, ok, floor))
        return out

    def screen(self, levels: LevelArray, lower: FloatArray) -> BoolArray:
        """Rows the projections let pass; raises ``lower`` by the suppression floor."""
        passes = np.ones(levels.shape[0], dtype=bool)
        if not self._pairs:
            return passes
        least = None
        if any(f is not None for *_, f in self._pairs):
            least = np.zeros(levels.shape[0])
            for j, m in enumerate(self.min_extra):
                least += m[levels[:, j]]
        floor = np.zeros(levels.shape[0])
        for a, b, ok, pair_floor in self._pairs:
            la, lb = levels[:, a], levels[:, b]
            passes &= ok[la, lb]
            if pair_floor is not None and least is not None:
                others = least - self.min_extra[a][la] - self.min_extra[b][lb]
                np.maximum(floor, pair_floor[0][la, lb] + pair_floor[1][la, lb] * others, out=floor)
        lower += floor
        return passes

    # ---------------------------------------------------------------- evaluation
    def keep(self, res: NodeResult) -> None:
        if res.anonymous and (self.best is None or rank(res) < rank(self.best)):
            self.best = res
            self.threshold = res.cost + slack(res)

    def judge(self, node: int) -> NodeResult:
        """Evaluate ``node`` and record what it tags."""
        res = self.ev.evaluate(node)
        if res.anonymous and res.suppressed == 0 and self.spread:
            self.clean.add(res.levels)
        if res.anonymous and self.monotone:
            self.private.add(res.levels)
        if not res.anonymous and (self.monotone or res.forced_below > self.ev.max_suppressed):
            self.failing.add(res.levels)
        self.keep(res)
        return res

    def known_failing(self, levels: Sequence[int]) -> bool:
        return self.failing.covers_from_above(levels)

    def climb(self, levels: tuple[int, ...]) -> None:
        """From a failing node, a greedy path through nodes not known yet (cheapest bound
        first), binary-searched for its lowest private node (monotone models; once an
        incumbent bounds the path, its top is judged first)."""
        path: list[tuple[int, ...]] = []
        cur = list(levels)
        while True:
            options = []
            for j in range(self.width):
                if cur[j] + 1 < self.heights[j]:
                    nxt = list(cur)
                    nxt[j] += 1
                    b = self.bound(nxt)
                    if b <= self.threshold:
                        options.append((b, j, nxt))
            step = None
            for _, _, nxt in sorted(options, key=lambda o: (o[0], o[1])):
                if not self.known_failing(nxt) and not self.private.covers_from_below(nxt):
                    step = nxt
                    break
            if step is None:
                break
            path.append(tuple(step))
            cur = step
        lo, hi = 0, len(path) - 1
        if self.best is not None and hi > 0:
            # the top first: a path bounded by the incumbent seldom holds a private node
            # (see Flash.search)
            node = self.lat.index(path[hi])
            res = self.ev.results.get(node) or self.judge(node)
            if res.anonymous:
                hi -= 1
            else:
                lo = hi + 1
        while lo <= hi:
            mid = (lo + hi) // 2
            node = self.lat.index(path[mid])
            res = self.ev.results.get(node) or self.judge(node)
            if res.anonymous:
                hi = mid - 1
            else:
                lo = mid + 1

    def first_incumbent(self) -> None:
        """The lowest private node of the greedy path from the bottom (monotone models),
        or the top node's evaluation."""
        if not self.monotone:
            self.judge(self.lat.top)
            return
        bottom = (0,) * self.width
        res = self.judge(self.lat.bottom)
        if not res.anonymous:
            self.climb(bottom)

    # ---------------------------------------------------------------- the sweep
    def run(self, name: str) -> SearchResult:
        self.first_incumbent()
        need = state_bytes(self.ev, self.threshold, self.block.shape[0])
        limit = self.memory_limit if self.memory_limit is not None else available_memory()
        if need > limit:
            raise ParameterError(
                "quasi_identifiers",
                "the exact search",
                f"a set whose exact search fits in memory (up to {need / 2**30:.1f} GiB "
                f"of state for {self.lat.size:,} nodes, {limit / 2**30:.1f} GiB "
                "available); use fewer or shallower hierarchies or algorithm='lightning'",
                f"{self.width} columns",
            )
        for prefix in itertools.product(*(range(h) for h in self.heights[: self.p])):
            self.slab(prefix)
        if self.best is None:
            raise no_solution(self.ev)
        return to_result(name, self.best, self.ev.evaluations, optimal=True)

    def slab(self, prefix: tuple[int, ...]) -> None:
        p = self.p
        corner = np.asarray([(*prefix, *([0] * (self.width - p)))], dtype=np.int16)
        if float(self.bounds(corner)[0]) > self.threshold:
            return  # the slab's lowest node already costs more than the incumbent
        full = np.empty((self.block.shape[0], self.width), dtype=np.int16)
        full[:, :p] = prefix
        full[:, p:] = self.block
        lower = self.bounds(full)
        rows = np.flatnonzero(lower <= self.threshold)
        if not rows.size:
            return
        sub_lower = lower[rows]
        passes = self.screen(full[rows], sub_lower)
        keep = passes & (sub_lower <= self.threshold)
        rows, sub_lower = rows[keep], sub_lower[keep]
        if not rows.size:
            return
        seen = self.failing.n
        below = self.failing.below_any(self.heights[p:], rows, prefix)
        rows, sub_lower = rows[~below], sub_lower[~below]
        base = sum(lv * s for lv, s in zip(prefix, self.strides, strict=False))
        order = np.lexsort((rows, self.block_height[rows], sub_lower))
        for i in order.tolist():
            if sub_lower[i] > self.threshold:
                break
            r = int(rows[i])
            node = base + int(self.block_index[r])
            if node in self.ev.results:
                self.keep(self.ev.results[node])
                continue
            levels = tuple(int(x) for x in full[r])
            if self.failing.covers_from_above(levels, seen):
                continue
            if self.clean.covers_from_below(levels):
                cost = self.bound(levels)
                self.keep(NodeResult(node, levels, True, 0, -1, cost, cost))
                continue
            res = self.judge(node)
            if not res.anonymous and self.monotone:
                self.climb(levels)


__all__ = [
    "BYTES_PER_NODE",
    "SLAB_NODES",
    "SparseFlash",
    "available_memory",
    "nodes_within",
    "state_bytes",
]
