"""numba kernels of the compiled Mondrian implementation (see :mod:`.compiled`).

This module imports numba, so :mod:`.compiled` imports it on first use only. Every
function is compiled on its first call and cached on disk.

Rows are bit-packed (:func:`.compiled.pack_rows`): ``words`` ``(n_words, rows)`` uint64
holds each row's id (``words[0] & id_mask``) and its rank on axis ``d``,
``(words[meta[d, WORD]] >> shift[d]) & mask[d]``. Per axis, ``meta[d]`` holds:

* ``HIER``: 1 for a hierarchical axis;
* ``WORD``: the word holding its field;
* ``HEIGHT``, ``SIZE``: the hierarchy's levels, the number of ranks;
* ``COORD``: offset in ``coord`` of the coordinate of rank 0 (numeric value or rank);
* ``NODES``: offset in ``node_of_rank``, where ``node_of_rank[o + l * size + r]`` is the
  node of rank ``r`` at level ``l`` (numbered per axis);
* ``WIDTHS``: offset in ``node_width`` (normalized width of each node);
* ``SIBLINGS``: offset in ``sibling``, where ``sibling[o + l * size + r]`` is the
  position of the level-``l`` ancestor of rank ``r`` among its parent's children.

Loops run over slices from 0 rather than ``range(s, e)``: an index known to be
non-negative lets LLVM vectorize them (ten times faster for the extents).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonkit._jit import njit

HIER, WORD, HEIGHT, SIZE, COORD, NODES, WIDTHS, SIBLINGS = range(8)
N_META = 8

_jit = njit(nogil=True)


@_jit
def extents(
    words: Any, meta: Any, shift: Any, mask: Any, s: int, e: int, low: Any, high: Any
) -> None:
    """Smallest and largest rank of every axis over rows ``s .. e-1``."""
    for d in range(meta.shape[0]):
        word = words[meta[d, WORD]][s:e]
        sh = shift[d]
        mk = mask[d]
        lo = mk
        hi = np.uint64(0)
        for i in range(word.shape[0]):
            v = (word[i] >> sh) & mk
            lo = min(lo, v)
            hi = max(hi, v)
        low[d] = np.int64(lo)
        high[d] = np.int64(hi)


@_jit
def field(words: Any, meta: Any, shift: Any, mask: Any, d: int, s: int, e: int, out: Any) -> None:
    """Ranks on axis ``d`` of rows ``s .. e-1``, into ``out[: e - s]``."""
    word = words[meta[d, WORD]][s:e]
    sh = shift[d]
    mk = mask[d]
    for i in range(word.shape[0]):
        out[i] = np.int32((word[i] >> sh) & mk)


@_jit
def lca_level(meta: Any, node_of_rank: Any, d: int, lo: int, hi: int) -> int:
    """Level of the lowest common ancestor of ranks ``lo`` and ``hi`` on axis ``d``."""
    level = 0
    size = meta[d, SIZE]
    for lv in range(meta[d, HEIGHT] - 1):
        o = meta[d, NODES] + lv * size
        if node_of_rank[o + lo] != node_of_rank[o + hi]:
            level += 1
    return level


@_jit
def n_distinct(vals: Any, m: int, mark: Any, stamp: int) -> int:
    """Distinct values among ``vals[:m]``; ``mark`` holds no ``stamp`` yet."""
    count = 0
    for i in range(m):
        v = vals[i]
        if mark[v] != stamp:
            mark[v] = stamp
            count += 1
    return count


@_jit
def cut_subtrees(
    vals: Any, m: int, sibling: Any, offset: int, k: int, key: Any, fan_rows: Any
) -> bool:
    """Hierarchical cut: ``key[i]`` is the child (``sibling[offset + vals[i]]``) holding
    row ``i``; allowable when every present child holds ``k`` rows or more."""
    fan_rows[:] = 0
    for i in range(m):
        c = sibling[offset + vals[i]]
        key[i] = c
        fan_rows[c] += 1
    for f in range(fan_rows.shape[0]):
        if 0 < fan_rows[f] < k:
            return False
    return True


@_jit
def select(vals: Any, m: int, at: int, scratch: Any) -> int:
    """The value at sorted position ``at`` of ``vals[:m]`` (quickselect on a copy in
    ``scratch``, middle-of-range pivot)."""
    for i in range(m):
        scratch[i] = vals[i]
    lo, hi = 0, m - 1
    while lo < hi:
        pivot = scratch[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while scratch[i] < pivot:
                i += 1
            while scratch[j] > pivot:
                j -= 1
            if i <= j:
                scratch[i], scratch[j] = scratch[j], scratch[i]
                i += 1
                j -= 1
        if at <= j:
            hi = j
        elif at >= i:
            lo = i
        else:
            break
    return int(scratch[at])


@_jit
def cut_median(
    vals: Any,
    m: int,
    lo: int,
    hi: int,
    relaxed: bool,
    k: int,
    hist: Any,
    key: Any,
    fan_rows: Any,
) -> bool:
    """Numeric or ordered cut of ``m`` rows with ranks ``vals[:m]`` in ``lo .. hi``.

    Strict: the lower median (sorted position ``(m - 1) // 2``) and every row up to it
    go left (key 0); when it is the maximum, the rows below the maximum. Relaxed: the
    first ``m // 2`` rows by value, then row order, go left. Allowable when both sides
    hold ``k`` rows or more.
    """
    at = (m - 1) // 2 if not relaxed else m // 2 - 1
    if hi - lo < 4 * m:  # count the value range
        for v in range(lo, hi + 1):
            hist[v] = 0
        for i in range(m):
            hist[vals[i]] += 1
        below = 0
        median = hi
        for v in range(lo, hi + 1):
            if below + hist[v] > at:
                median = v
                break
            below += hist[v]
        equal = hist[median]
    else:  # a wide range and few rows: select the median, then count around it
        median = select(vals, m, at, hist)  # hist holds > hi >= 4 m ranks
        below = 0
        equal = 0
        for i in range(m):
            v = vals[i]
            below += v < median
            equal += v == median
    if relaxed:
        n_left = m // 2
    else:
        n_left = below + equal if median < hi else below
    if n_left < k or m - n_left < k:
        return False
    fan_rows[0] = n_left
    fan_rows[1] = m - n_left
    if not relaxed:
        threshold = median if median < hi else hi - 1
        for i in range(m):
            key[i] = 1 if vals[i] > threshold else 0
        return True
    need = n_left - below  # rows equal to the median that go left, first ones first
    for i in range(m):
        v = vals[i]
        if v < median:
            key[i] = 0
        elif v == median and need > 0:
            key[i] = 0
            need -= 1
        else:
            key[i] = 1
    return True


@_jit
def reorder(
    words: Any, s: int, e: int, key: Any, n_keys: int, fan_rows: Any, fan_pos: Any, buf: Any
) -> None:
    """Stable reorder of rows ``s .. e-1`` by ``key`` (part ``f`` holds ``fan_rows[f]``
    rows); afterwards part ``f`` spans ``s + fan_pos[f] .. s + fan_rows[f] - 1``."""
    m = e - s
    pos = 0
    for f in range(n_keys):
        fan_pos[f] = pos
        pos += fan_rows[f]
    for w in range(words.shape[0]):
        row = words[w][s:e]
        for f in range(n_keys):
            fan_rows[f] = fan_pos[f]
        for i in range(m):
            c = key[i]
            buf[fan_rows[c]] = row[i]
            fan_rows[c] += 1
        for i in range(m):
            row[i] = buf[i]


@_jit
def partition(  # noqa: PLR0913, PLR0915 (the recursion's loop)
    words: Any,
    meta: Any,
    shift: Any,
    mask: Any,
    id_mask: Any,
    norm: Any,
    coord: Any,
    node_of_rank: Any,
    node_width: Any,
    sibling: Any,
    max_fan: int,
    relaxed: bool,
    split: int,
    k: int,
    min_cut: int,
) -> Any:
    """Depth-first Mondrian over the packed rows (reordered in place).

    ``split``: 0 widest, 1 most distinct values, 2 round robin. Partitions of fewer than
    ``min_cut`` rows are not cut; every part of a cut needs ``k`` rows. Returns the
    partition of each row id (numbered depth-first), the partitions' smallest and
    largest ranks and sizes, the number of accepted cuts and the depth plus one.
    """
    n_rows = words.shape[1]
    n_qi = meta.shape[0]
    cap = n_rows // max(k, 1) + 1
    partition_of = np.empty(n_rows, dtype=np.int64)
    out_low = np.empty((cap, n_qi), dtype=np.int64)
    out_high = np.empty((cap, n_qi), dtype=np.int64)
    out_size = np.empty(cap, dtype=np.int64)
    buf = np.empty(n_rows, dtype=np.uint64)
    # per-row scratch in int32 (ranks and child indices are small): 10M rows take 80 MB
    key = np.empty(n_rows, dtype=np.int32)
    vals = np.empty(n_rows, dtype=np.int32)
    widest = 1
    for d in range(n_qi):
        widest = max(widest, meta[d, SIZE])
    hist = np.zeros(widest + 1, dtype=np.int64)
    mark = np.zeros(widest, dtype=np.int64)
    fan_cap = max(max_fan, 2)
    fan_rows = np.zeros(fan_cap, dtype=np.int64)
    fan_pos = np.zeros(fan_cap, dtype=np.int64)
    low = np.empty(n_qi, dtype=np.int64)
    high = np.empty(n_qi, dtype=np.int64)
    level = np.zeros(n_qi, dtype=np.int64)
    score = np.empty(n_qi, dtype=np.float64)
    order = np.empty(n_qi, dtype=np.int64)
    # stack of segments [start, end) with their depth and round-robin axis; pushed
    # segments are disjoint parts of accepted cuts, each of at least k rows, so
    # n_rows // k + 1 entries suffice (not one per row: 320 MB on 10M rows)
    stack = np.empty((n_rows // max(k, 1) + 2, 4), dtype=np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0, n_rows, 0, 0
    top = 1
    n_final = n_cuts = max_depth = stamp = 0
    while top > 0:
        top -= 1
        s, e, depth, rr = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        m = e - s
        max_depth = max(max_depth, depth)
        extents(words, meta, shift, mask, s, e, low, high)
        cut = -1
        if m >= min_cut:
            # preference of each axis; -inf where all values are equal
            n_viable = 0
            for d in range(n_qi):
                if high[d] == low[d]:
                    score[d] = -np.inf
                    continue
                n_viable += 1
                if meta[d, HIER]:
                    level[d] = lca_level(meta, node_of_rank, d, low[d], high[d])
                if split == 0 and meta[d, HIER]:
                    o = meta[d, NODES] + level[d] * meta[d, SIZE] + low[d]
                    score[d] = node_width[meta[d, WIDTHS] + node_of_rank[o]]
                elif split == 0:
                    c0 = meta[d, COORD]
                    span = coord[c0 + high[d]] - coord[c0 + low[d]]
                    score[d] = span / (norm[d] if norm[d] != 0.0 else 1.0)
                elif split == 1:
                    field(words, meta, shift, mask, d, s, e, vals)
                    stamp += 1
                    score[d] = float(n_distinct(vals, m, mark, stamp))
                else:
                    score[d] = float(n_qi - (d - rr) % n_qi)
            # axes by decreasing score, ties to the earlier axis (stable insertion sort)
            for d in range(n_qi):
                j = d
                while j > 0 and score[order[j - 1]] < score[d]:
                    order[j] = order[j - 1]
                    j -= 1
                order[j] = d
            for t in range(n_viable):
                d = order[t]
                field(words, meta, shift, mask, d, s, e, vals)
                if meta[d, HIER]:
                    o = meta[d, SIBLINGS] + (level[d] - 1) * meta[d, SIZE]
                    ok = cut_subtrees(vals, m, sibling, o, k, key, fan_rows)
                    n_keys = fan_cap
                else:
                    ok = cut_median(vals, m, low[d], high[d], relaxed, k, hist, key, fan_rows)
                    n_keys = 2
                if ok:
                    reorder(words, s, e, key, n_keys, fan_rows, fan_pos, buf)
                    # push the parts so that the first one is handled next
                    for f in range(n_keys - 1, -1, -1):
                        if fan_rows[f] > fan_pos[f]:
                            stack[top, 0] = s + fan_pos[f]
                            stack[top, 1] = s + fan_rows[f]
                            stack[top, 2] = depth + 1
                            stack[top, 3] = (d + 1) % n_qi
                            top += 1
                    cut = d
                    break
        if cut >= 0:
            n_cuts += 1
            continue
        ids = words[0][s:e]
        for i in range(m):
            partition_of[np.int64(ids[i] & id_mask)] = n_final
        for d in range(n_qi):
            out_low[n_final, d] = low[d]
            out_high[n_final, d] = high[d]
        out_size[n_final] = m
        n_final += 1
    return (
        partition_of,
        out_low[:n_final],
        out_high[:n_final],
        out_size[:n_final],
        n_cuts,
        max_depth + 1,
    )
