"""Algorithm 1 of Mauger et al. (2020): the merge loop over the distinct combinations."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from anonkit._arrays import FloatArray, IntArray
from anonkit.algorithms._numba import load_kernels
from anonkit.algorithms._ticker import Ticker
from anonkit.algorithms.greedy_merge.rows import CostRows
from anonkit.progress import Progress

#: Relative tolerance under which two merge costs are a tie.
TIE_TOLERANCE = 1e-9
#: The module of the numba kernels, imported on first use.
KERNELS = "anonkit.algorithms.greedy_merge._kernels"


def pick(costs: FloatArray, order: IntArray, shift: float = 0.0) -> tuple[int, int]:
    """Index of the minimal ``costs - shift`` and how many candidates tie for it.

    Ties go to the smallest ``order``. Two costs tie when they differ by at most
    ``TIE_TOLERANCE`` relative to the larger of 1 and the magnitudes involved.
    """
    best = int(costs.argmin())
    low = float(costs[best])
    scale = max(1.0, abs(low), abs(shift))
    tied = (costs <= low + TIE_TOLERANCE * scale).nonzero()[0]
    if tied.shape[0] == 1:
        return best, 1
    return int(tied[order[tied].argmin()]), int(tied.shape[0])


@functools.cache
def compiled_choose() -> Callable[..., tuple[int, int]] | None:
    """The numba kernel that prices every candidate and picks one in a single pass, or
    ``None`` where numba cannot be imported, its JIT is disabled or its cache cannot be
    set up (the numpy path then runs; both give the same floats and choices)."""
    kernels = load_kernels(KERNELS, "greedy merging's compiled step", "numpy")
    if kernels is None:
        return None
    kernel: Callable[..., Any] = kernels.choose
    return kernel


@functools.cache
def compiled_loop() -> Callable[..., Any] | None:
    """The numba kernel running the whole of Algorithm 1, or ``None`` (see
    :func:`compiled_choose`)."""
    if compiled_choose() is None:
        return None
    kernel: Callable[..., Any] = importlib.import_module(KERNELS).merge_all
    return kernel


def _loop_tables(rows: CostRows) -> tuple[IntArray, ...] | None:
    """The flat LCA tables, attribute order, group ends and key strides of the compiled
    loop, or ``None`` when a node vector does not fit one int64 key."""
    widths = [nd.n_nodes for nd in rows.nodes]
    strides = []
    stride = 1
    for w in widths:
        strides.append(stride)
        stride *= w
        if stride >= 2**62:
            return None
    tables = []
    for a, w in enumerate(widths):
        tables.append(np.stack([rows.row(a, x)[1] for x in range(w)]).ravel())
    base = np.concatenate([[0], np.cumsum([t.shape[0] for t in tables])[:-1]]).astype(np.int64)
    attr_order = np.array([a for g in rows.groups for a in g], dtype=np.int64)
    group_end = np.cumsum([len(g) for g in rows.groups]).astype(np.int64)
    spaces = [int(np.prod([widths[a] for a in g])) for g in rows.groups]
    goff = np.concatenate([[0], np.cumsum(spaces)]).astype(np.int64)
    return (
        np.concatenate(tables).astype(np.int64),
        base,
        np.array(widths, dtype=np.int64),
        attr_order,
        group_end,
        rows.strides.astype(np.int64),
        goff,
        np.array(strides, dtype=np.int64),
    )


def merge_loop(
    start: IntArray,
    sizes: IntArray,
    rows: CostRows,
    k: int,
    small_class: str,
    progress: Progress | None = None,
    positions: IntArray | None = None,
    fuse: bool = True,
    compiled: bool = True,
) -> tuple[IntArray, IntArray, IntArray, int, int, IntArray]:
    """Algorithm 1 on the distinct combinations ``start`` (global node ids, ``(m, n0)``).

    ``progress`` hears how many of the initial small classes are no longer small.
    ``positions`` is each combination's position in ``C(T)`` (default: its index);
    ``fuse=False`` keeps classes that come to share their values apart; ``compiled``
    runs the whole loop in the numba kernel when it is available and nobody listens to
    ``progress`` (else it prices the candidates there, the rest in Python).
    Returns the parent of every initial class (a union-find forest whose roots are the
    final classes), the final node vector and size of every slot, the merge and fusion
    counts, and per merge the number of candidates that tied for the minimal cost.
    """
    m, n0 = start.shape
    loop = compiled_loop() if compiled and progress is None else None
    tables = _loop_tables(rows) if loop is not None else None
    if loop is not None and tables is not None:
        lca, base, width, attr_order, group_end, jstride, goff, strides = tables
        pos0 = np.arange(n0, dtype=np.int64) if positions is None else positions.astype(np.int64)
        parent, nodes, size, n_merges, n_fused, tie_counts = loop(
            np.ascontiguousarray(start, dtype=np.int64),
            np.asarray(sizes, dtype=np.int64),
            pos0,
            k,
            {"first": 0, "smallest": 1, "queue": 2}[small_class],
            fuse,
            rows.phi.astype(np.float64),
            lca,
            base,
            width,
            rows.offsets.astype(np.int64),
            attr_order,
            group_end,
            jstride,
            goff,
            strides,
            TIE_TOLERANCE,
        )
        return parent, nodes, size.astype(np.int64), int(n_merges), int(n_fused), tie_counts
    n_groups = len(rows.groups)
    nodes = start.copy()  # current node vector of every slot (valid while alive)
    size = sizes.astype(np.float64)
    # position in C(T)
    order = np.arange(n0, dtype=np.int64) if positions is None else positions.astype(np.int64)
    ties: list[int] = []
    next_pos = int(order.max()) + 1 if n0 else 0  # the end of C(T)
    parent = np.arange(n0, dtype=np.int64)
    alive = np.ones(n0, dtype=bool)
    by_label: dict[tuple[int, ...], int] = (
        {tuple(col): i for i, col in enumerate(start.T.tolist())} if fuse else {}
    )
    phi = rows.phi
    kernel = compiled_choose() if compiled else None

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
            if small_class != "smallest":  # first, queue: the first of C(T)
                p = int(y_order[:c].argmin())
            else:
                p = pick(y_size[:c], y_order[:c])[0]
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
            if kernel is not None:
                p, n_tied = kernel(
                    y_merged, y_size, y_cost, y_order, c, s_x, cost_x, TIE_TOLERANCE, buf
                )
            else:
                costs = buf[:c]
                np.add(y_size[:c], s_x, out=costs)
                costs *= y_merged[:c]
                costs -= y_cost[:c]
                p, n_tied = pick(costs, y_order[:c], cost_x)
            other = int(y_slot[p])
            remove(p)
        else:  # C_small is the last small class: any class may absorb it
            big = np.flatnonzero(alive)
            big = big[big != cur]
            joint = rows.joint(nodes[:, big])
            merged = sum((x_rows[gi][joint[gi]] for gi in range(n_groups)), np.zeros(big.size))
            costs = merged * (size[big] + s_x) - size[big] * phi[nodes[:, big]].sum(axis=0)
            p, n_tied = pick(costs, order[big], cost_x)
            other = int(big[p])
        ties.append(n_tied)
        n_merges += 1
        if not n_merges & 63:  # small classes left: the candidates and C_small
            ticker(ticker.total - c - 1)
        v = x_lca[nodes[:, other]]
        parent[other] = cur
        alive[other] = False
        size[cur] += size[other]
        order[cur] = min(order[cur], order[other])
        key = tuple(v.tolist())
        twin = None
        if fuse:
            del by_label[tuple(x.tolist())]
            del by_label[tuple(nodes[:, other].tolist())]
            twin = by_label.get(key)
        if twin is not None:  # the merged values are another class's: one class now
            n_fused += 1
            if pos[twin] >= 0:
                remove(int(pos[twin]))
            parent[twin] = cur
            alive[twin] = False
            size[cur] += size[twin]
            order[cur] = min(order[cur], order[twin])
        if fuse:
            by_label[key] = cur
        nodes[:, cur] = v
        if size[cur] >= k:
            cur = -1
        elif small_class == "smallest":
            add(cur, v, float(size[cur]))
            cur = -1
        elif small_class == "queue":  # to the end of C(T)
            order[cur] = next_pos
            next_pos += 1
            add(cur, v, float(size[cur]))
            cur = -1
        elif v.tolist() != x.tolist():
            x = v
            x_rows = rows.joint_row(x)
            x_lca = rows.lca_row(x)
            merged_valid = False
    ticker.finish()
    tie_counts = np.asarray(ties, dtype=np.int64)
    return parent, nodes, size.astype(np.int64), n_merges, n_fused, tie_counts
