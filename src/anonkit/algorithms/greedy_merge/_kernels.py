"""numba kernel of greedy class merging: the partner of ``C_small`` in one pass.

This module imports numba, so :mod:`.merge` imports it on first use only (through
:func:`.merge.compiled_choose`). The kernel is compiled on its first call and cached on
disk.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from anonkit._jit import njit

_jit = njit(nogil=True)


@_jit
def choose(
    merged: Any,
    size: Any,
    cost: Any,
    order: Any,
    c: int,
    s_x: float,
    shift: float,
    tolerance: float,
    out: Any,
) -> tuple[int, int]:
    """Index and tie count of the cheapest of the first ``c`` candidates.

    The merge cost of candidate ``i`` is ``(size[i] + s_x) * merged[i] - cost[i]``
    (written to ``out[i]``, in the order of operations of the numpy path, so the values
    are the same floats); ties within ``tolerance`` relative to
    ``max(1, |min|, |shift|)`` go to the smallest ``order``.
    """
    best = 0
    low = np.inf
    for i in range(c):
        v = (size[i] + s_x) * merged[i]
        v = v - cost[i]
        out[i] = v
        if v < low:
            low = v
            best = i
    scale = max(1.0, abs(low), abs(shift))
    threshold = low + tolerance * scale
    n = 0
    chosen = best
    first = order[best]
    for i in range(c):
        if out[i] <= threshold:
            n += 1
            if order[i] < first:
                first = order[i]
                chosen = i
    return chosen, n


@_jit
def _sum_like_numpy(values: Any) -> float:
    """``values.sum()`` for a short float64 vector, in numpy's order of additions
    (sequential below 8 values, else eight running sums combined pairwise, then the
    rest), so that the compiled loop gives the same floats as the numpy one."""
    n = values.shape[0]
    if n < 8:
        s = 0.0
        for i in range(n):
            s += values[i]
        # numpy starts from the first value, not from 0.0: identical for finite sums
        return s
    r = values[:8].copy()
    i = 8
    while i + 8 <= n:
        for j in range(8):
            r[j] += values[i + j]
        i += 8
    s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        s += values[i]
        i += 1
    return float(s)


@_jit
def _joint_rows(
    x: Any,
    phi: Any,
    lca: Any,
    base: Any,
    width: Any,
    offsets: Any,
    attr_order: Any,
    group_end: Any,
    goff: Any,
    jrow: Any,
    last_x: Any,
) -> None:
    """Fill ``jrow``: per group ``g`` and joint id ``j`` (at ``goff[g] + j``), the sum of
    ``phi(LCA(x_a, y_a))`` over the group's attributes, added in the group's order (the
    joint id is mixed-radix, the group's last attribute fastest). Groups whose part of
    ``x`` equals ``last_x`` (the previous call's) are kept."""
    t0 = 0
    for g in range(group_end.shape[0]):
        same = True
        for t in range(t0, group_end[g]):
            if x[attr_order[t]] != last_x[attr_order[t]]:
                same = False
        if not same:
            o = goff[g]
            a = attr_order[t0]
            xl = x[a] - offsets[a]
            for y in range(width[a]):
                jrow[o + y] = phi[lca[base[a] + xl * width[a] + y]]
            size = width[a]
            for t in range(t0 + 1, group_end[g]):
                a = attr_order[t]
                xl = x[a] - offsets[a]
                w = width[a]
                start = base[a] + xl * w
                for p in range(size - 1, -1, -1):  # in place, from the back
                    head = jrow[o + p]
                    for y in range(w):
                        jrow[o + p * w + y] = head + phi[lca[start + y]]
                size *= w
            for t in range(t0, group_end[g]):
                last_x[attr_order[t]] = x[attr_order[t]]
        t0 = group_end[g]


@_jit
def _merged(jrow: Any, goff: Any, joint: Any, slot: int) -> float:
    """``sum_a phi(LCA(x_a, y_a))`` for the class in ``slot``, summed group by group."""
    total = 0.0
    for g in range(joint.shape[0]):
        total += jrow[goff[g] + joint[g, slot]]
    return total


@_jit
def _remove(
    p: int, c: int, pos: Any, y_slot: Any, y_size: Any, y_cost: Any, y_order: Any, y_merged: Any
) -> int:
    """Drop candidate ``p`` of the first ``c`` (the last one takes its place); returns the
    new count."""
    last = c - 1
    pos[y_slot[p]] = -1
    if p != last:
        moved = y_slot[last]
        y_slot[p] = moved
        y_size[p] = y_size[last]
        y_cost[p] = y_cost[last]
        y_order[p] = y_order[last]
        y_merged[p] = y_merged[last]
        pos[moved] = p
    return last


@_jit
def _key(vec: Any, offsets: Any, strides: Any) -> int:
    """A node vector packed into one int64 (the fusion index's key)."""
    key = 0
    for a in range(vec.shape[0]):
        key += (vec[a] - offsets[a]) * strides[a]
    return key


@_jit
def _set_joint(
    joint: Any, slot: int, vec: Any, offsets: Any, attr_order: Any, group_end: Any, jstride: Any
) -> None:
    """Per group, the joint id of node vector ``vec`` into ``joint[:, slot]``."""
    t0 = 0
    for g in range(group_end.shape[0]):
        joint[g, slot] = 0
        for t in range(t0, group_end[g]):
            a = attr_order[t]
            joint[g, slot] += (vec[a] - offsets[a]) * jstride[a]
        t0 = group_end[g]


@_jit
def merge_all(
    start: Any,
    sizes: Any,
    positions: Any,
    k: int,
    mode: int,
    fuse: bool,
    phi: Any,
    lca: Any,
    base: Any,
    width: Any,
    offsets: Any,
    attr_order: Any,
    group_end: Any,
    jstride: Any,
    goff: Any,
    strides: Any,
    tolerance: float,
) -> tuple[Any, Any, Any, int, int, Any]:
    """Algorithm 1, the whole loop, as :func:`.merge.merge_loop` runs it in Python.

    ``mode`` chooses ``C_small``: 0 the first small class (kept while small), 1 a
    smallest one, 2 the first one, sent to the end of ``C(T)`` after each merge.

    ``start``: ``(m, n0)`` global node ids; ``lca[base[a] + x * width[a] + y]`` is the
    global id of the LCA of local nodes ``x`` and ``y`` of attribute ``a``; ``attr_order``
    lists the attributes group by group (:class:`.rows.CostRows` groups), group ``g``
    ending before ``group_end[g]``, its joint ids (local node times ``jstride``) at
    ``goff[g]`` of the joint rows: costs are summed within a group, then over the groups,
    as the numpy path adds them; ``strides`` packs a node vector into one int64 key (the
    fusion index).
    """
    m, n0 = start.shape
    n_groups = group_end.shape[0]
    jrow = np.empty(goff[n_groups])
    last_x = np.full(m, -1, dtype=np.int64)
    joint = np.zeros((n_groups, n0), dtype=np.int64)
    for i in range(n0):
        _set_joint(joint, i, start[:, i], offsets, attr_order, group_end, jstride)
    nodes = start.copy()
    size = sizes.astype(np.float64)
    order = positions.copy()
    parent = np.arange(n0)
    alive = np.ones(n0, dtype=np.bool_)
    ties = np.zeros(n0, dtype=np.int64)
    labels = numba.typed.Dict.empty(key_type=numba.types.int64, value_type=numba.types.int64)
    if fuse:
        for i in range(n0):
            labels[_key(nodes[:, i], offsets, strides)] = i
    c = 0
    pos = np.full(n0, -1, dtype=np.int64)
    y_slot = np.empty(n0, dtype=np.int64)
    y_size = np.empty(n0)
    y_cost = np.empty(n0)
    y_order = np.empty(n0, dtype=np.int64)
    y_merged = np.empty(n0)
    buf = np.empty(n0)
    for i in range(n0):
        if size[i] < k:
            y_slot[c] = i
            s = 0.0
            for a in range(m):
                s += phi[nodes[a, i]]
            y_size[c] = size[i]
            y_cost[c] = size[i] * s
            y_order[c] = order[i]
            pos[i] = c
            c += 1
    vec = np.empty(m)
    x = np.zeros(m, dtype=np.int64)
    v = np.zeros(m, dtype=np.int64)
    cur = -1
    next_pos = n0 + 0
    for i in range(n0):
        next_pos = max(next_pos, order[i] + 1)
    merged_valid = False
    n_merges = 0
    n_fused = 0
    while True:
        if cur < 0:
            if c == 0:
                break
            p = 0
            if mode != 1:  # first, queue: the first small class of C(T)
                for i in range(1, c):
                    if y_order[i] < y_order[p]:
                        p = i
            else:
                low = np.inf
                for i in range(c):
                    if y_size[i] < low:
                        low = y_size[i]
                        p = i
                threshold = low + tolerance * max(1.0, abs(low))
                first = y_order[p]
                for i in range(c):
                    if y_size[i] <= threshold and y_order[i] < first:
                        first = y_order[i]
                        p = i
            cur = y_slot[p]
            c = _remove(p, c, pos, y_slot, y_size, y_cost, y_order, y_merged)
            for a in range(m):
                x[a] = nodes[a, cur]
            merged_valid = False
            _joint_rows(x, phi, lca, base, width, offsets, attr_order, group_end, goff, jrow,
                        last_x)  # fmt: skip
        s_x = size[cur]
        for a in range(m):
            vec[a] = phi[x[a]]
        cost_x = s_x * _sum_like_numpy(vec)
        if c > 0:
            if not merged_valid:
                for i in range(c):
                    slot = y_slot[i]
                    y_merged[i] = _merged(jrow, goff, joint, slot)
                merged_valid = True
            p, n_tied = choose(y_merged, y_size, y_cost, y_order, c, s_x, cost_x, tolerance, buf)
            other = y_slot[p]
            c = _remove(p, c, pos, y_slot, y_size, y_cost, y_order, y_merged)
        else:  # the last small class: every other class is a candidate
            best = -1
            low = np.inf
            for slot in range(n0):
                if not alive[slot] or slot == cur:
                    continue
                merged = _merged(jrow, goff, joint, slot)
                own = 0.0
                for a in range(m):
                    own += phi[nodes[a, slot]]
                val = merged * (size[slot] + s_x) - size[slot] * own
                buf[slot] = val
                if val < low:
                    low = val
                    best = slot
            threshold = low + tolerance * max(1.0, abs(low), abs(cost_x))
            n_tied = 0
            other = best
            first = order[best]
            for slot in range(n0):
                if not alive[slot] or slot == cur:
                    continue
                if buf[slot] <= threshold:
                    n_tied += 1
                    if order[slot] < first:
                        first = order[slot]
                        other = slot
        ties[n_merges] = n_tied
        n_merges += 1
        for a in range(m):
            xl = x[a] - offsets[a]
            yl = nodes[a, other] - offsets[a]
            v[a] = lca[base[a] + xl * width[a] + yl]
        parent[other] = cur
        alive[other] = False
        size[cur] += size[other]
        order[cur] = min(order[cur], order[other])
        if fuse:
            vkey = _key(v, offsets, strides)
            del labels[_key(x, offsets, strides)]
            del labels[_key(nodes[:, other], offsets, strides)]
            twin = labels[vkey] if vkey in labels else -1
            if twin >= 0:
                n_fused += 1
                if pos[twin] >= 0:
                    c = _remove(pos[twin], c, pos, y_slot, y_size, y_cost, y_order, y_merged)
                parent[twin] = cur
                alive[twin] = False
                size[cur] += size[twin]
                order[cur] = min(order[cur], order[twin])
            labels[vkey] = cur
        changed = False
        for a in range(m):
            nodes[a, cur] = v[a]
            if v[a] != x[a]:
                changed = True
        if changed:
            _set_joint(joint, cur, v, offsets, attr_order, group_end, jstride)
        if size[cur] >= k:
            cur = -1
        elif mode >= 1:  # smallest, queue: back among the candidates
            if mode == 2:  # queue: to the end of C(T)
                order[cur] = next_pos
                next_pos += 1
            y_slot[c] = cur
            for a in range(m):
                vec[a] = phi[v[a]]
            y_size[c] = size[cur]
            y_cost[c] = size[cur] * _sum_like_numpy(vec)
            y_order[c] = order[cur]
            pos[cur] = c
            c += 1
            cur = -1
        elif changed:
            for a in range(m):
                x[a] = v[a]
            merged_valid = False
            _joint_rows(x, phi, lca, base, width, offsets, attr_order, group_end, goff, jrow,
                        last_x)  # fmt: skip
    return parent, nodes, size, n_merges, n_fused, ties[:n_merges]
