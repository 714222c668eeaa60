"""numba kernel of :mod:`.compiled_judge`: a detail snapshot's classes judged in one pass.

This module imports numba, so :mod:`.compiled_judge` imports it on first use only. The
kernel is compiled on its first call and cached on disk.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from anonkit._jit import njit

_jit = njit(nogil=True)

#: ``kind`` of :func:`judge`: t-closeness, half the L1 distance of the value shares.
EQUAL_T = 0
#: ``kind`` of :func:`judge`: t-closeness, the weighted deficits of groups of values.
GROUPED_T = 1
#: ``kind`` of :func:`judge`: at least ``l`` distinct values.
DISTINCT = 2
#: ``kind`` of :func:`judge`: entropy at least ``target`` (``ln l``).
ENTROPY = 3
#: ``kind`` of :func:`judge`: recursive (c, l): ``r_1 < c (r_l + ... + r_m)``.
RECURSIVE = 4
#: The fields of the ``model`` tuple the kernels take, in order (see :func:`judge`).
MODEL = (
    "kind",
    "value_share",
    "first_group",
    "groups",
    "group_share",
    "weights",
    "bound",
    "largest",
    "c",
    "l",
    "xlogx",
    "logs",
    "tolerance",
)


@_jit
def verdict(
    hist: Any,
    size: int,
    distinct: int,
    model: Any,
    summed: Any,
    ranked: Any,
) -> tuple[bool, float]:
    """Whether a class of ``size`` records with the sensitive histogram ``hist`` (of
    ``distinct`` values) fails the ``model`` (:data:`MODEL`), and the share of its records
    forced below the node (see :func:`judge`; ``summed`` and ``ranked`` are scratch
    arrays of the groups' and the values' length)."""
    (
        kind,
        value_share,
        first_group,
        groups,
        group_share,
        weights,
        bound,
        largest,
        c,
        l,  # noqa: E741
        xlogx,
        logs,
        tolerance,
    ) = model
    n_values = value_share.shape[0]
    n_groups = weights.shape[0]
    divisor = max(size, 1)
    far = False
    share = 0.0
    if kind == EQUAL_T or kind == GROUPED_T:
        emd = 0.0
        if kind == EQUAL_T:
            total = 0.0
            for v in range(n_values):
                total += abs(hist[v] / divisor - value_share[v])
            emd = 0.5 * total
        else:
            for g in range(n_groups):
                summed[g] = 0.0
            for v in range(n_values):
                if hist[v]:
                    for i in range(first_group[v], first_group[v + 1]):
                        summed[groups[i]] += hist[v]
            for g in range(n_groups):
                emd += max(group_share[g] - summed[g] / divisor, 0.0) * weights[g]
        far = emd > bound + tolerance * max(1.0, abs(bound))
        if far and largest > bound:
            share = min(max((emd - bound) / (largest - bound), 0.0), 1.0)
    elif kind == DISTINCT:
        far = distinct < l
        share = 1.0 if far else 0.0
    elif kind == ENTROPY:
        weighted = 0.0
        for v in range(n_values):
            weighted += xlogx[hist[v]]
        entropy = max(logs[divisor] - weighted / divisor, 0.0)
        far = bound > entropy + tolerance * max(1.0, abs(entropy))
        if far and bound > 0:
            share = min(max(1.0 - entropy / bound, 0.0), 1.0)
    else:  # RECURSIVE
        top = 0
        for v in range(n_values):
            ranked[v] = hist[v]
            top = max(top, hist[v])
        tail = 0
        if l <= n_values:
            ranked.sort()
            head = 0
            for j in range(l - 1):
                head += ranked[n_values - 1 - j]
            tail = size - head
        scaled = c * tail
        far = top >= scaled - tolerance * max(1.0, abs(scaled))
        if far:
            share = min(max((top - scaled) / divisor, 0.0), 1.0)
    return far, share


@_jit
def judge(
    keys: Any,
    counts: Any,
    qi_shift: int,
    value_shift: int,
    value_mask: int,
    k: int,
    doom_below: int,
    doom_distinct: int,
    model: Any,
    class_keys: Any,
    sizes: Any,
    bad: Any,
) -> Any:
    """Judge the classes of a keyed detail snapshot under k-anonymity (``k``; 0: none)
    and one model of the sensitive attribute (``model``, :data:`MODEL`).

    ``keys`` (sorted, each standing for ``counts`` records) hold the quasi-identifiers
    above ``qi_shift`` and the sensitive value at ``(key >> value_shift) & value_mask``;
    a class is a run of keys with the same quasi-identifiers, and its rows are its
    distinct values. Each model's statistic follows its definition in
    :mod:`anonkit.models` in the same order of floating-point operations, and its share
    of the class forced below the node the plain bound of :mod:`.convex`:

    * t-closeness (``bound`` = t, ``largest`` the largest EMD): the EMD ``1/2 sum_v |p_v
      - value_share[v]|`` (:data:`EQUAL_T`) or ``sum_g weights[g] * max(0, group_share[g]
      - p(g))`` with value ``v`` in the groups ``groups[first_group[v]:first_group[v +
      1]]`` (:data:`GROUPED_T`; summed in order, where numpy's product may pair the terms
      otherwise); it fails beyond ``t``, forcing ``(emd - t) / (largest - t)``;
    * :data:`DISTINCT`: fewer than ``l`` values fail, all of the class forced;
    * :data:`ENTROPY` (``bound`` = ln l): ``ln n - sum_v xlogx[c_v] / n`` with the
      tables ``xlogx[c] = c ln c`` and ``logs[n] = ln n``; below ``bound`` it fails,
      forcing ``1 - entropy / bound``;
    * :data:`RECURSIVE`: ``r_1 >= c (r_l + ... + r_m)`` fails, forcing the excess
      ``(r_1 - c tail) / n``.

    Comparisons allow the models' relative rounding error ``tolerance``
    (``models._common.TOLERANCE``). A class smaller than ``k`` fails with all its
    records. Writes each class's quasi-identifier key, size and verdict to
    ``class_keys``, ``sizes`` and ``bad`` and returns ``(classes, doomed, suppressed,
    forced, unsure)``: the records in classes smaller than ``doom_below`` or with fewer
    than ``doom_distinct`` values, the records in failing classes, the records forced
    below the node (each class's largest share times its size, rounded up) and how many
    failing classes that leaves without a record.
    """
    n = keys.shape[0]
    n_values = model[1].shape[0]
    n_groups = model[5].shape[0]
    hist = np.zeros(n_values, dtype=np.int64)
    ranked = np.zeros(n_values, dtype=np.int64)
    summed = np.zeros(n_groups, dtype=np.float64)
    classes = 0
    doomed = 0
    suppressed = 0
    forced = 0.0
    unsure = 0
    start = 0
    while start < n:
        qi = keys[start] >> qi_shift
        end = start
        size = 0
        while end < n and (keys[end] >> qi_shift) == qi:
            hist[(keys[end] >> value_shift) & value_mask] += counts[end]
            size += counts[end]
            end += 1
        distinct = end - start
        far, share = verdict(hist, size, distinct, model, summed, ranked)
        for v in range(n_values):
            hist[v] = 0
        small = size < k
        if small:
            share = 1.0
        whole = math.ceil(share * size - 1e-9)
        if size < doom_below or distinct < doom_distinct:
            doomed += size
        if small or far:
            suppressed += size
            if whole <= 0:
                unsure += 1
        forced += whole
        class_keys[classes] = qi
        sizes[classes] = size
        bad[classes] = small or far
        classes += 1
        start = end
    return classes, doomed, suppressed, forced, unsure


@_jit
def pairs_failing(
    codes: Any,
    counts: Any,
    ups: Any,
    cards: Any,
    heights: Any,
    pairs: Any,
    nodes: Any,
    open_nodes: Any,
    k: int,
    model: Any,
) -> Any:
    """The open nodes none of whose projections onto the column pairs ``pairs`` (the
    other columns at the top) has a class failing k-anonymity (``k``) or the ``model``
    (:data:`MODEL`).

    ``codes`` holds the level-0 codes of the detail snapshot's rows, the quasi-identifiers
    first and the sensitive values in the last row; each row stands for ``counts``
    records. ``ups[j, level, code]`` is a code's label at ``level``, ``cards[j, level]``
    the labels there. ``nodes`` holds each lattice node's levels, ``open_nodes`` whether
    it is open; the answer is the indices of the nodes left open. Per pair, only the
    level combinations onto which a node still open projects are judged, coarsest first:
    a failing combination makes every finer one fail too (the models are monotone under
    generalization, and a finer combination's classes split the coarser ones'), without
    judging it.
    """
    values = codes[codes.shape[0] - 1]
    n_values = model[1].shape[0]
    ranked = np.zeros(n_values, dtype=np.int64)
    summed = np.zeros(model[5].shape[0], dtype=np.float64)
    still = np.flatnonzero(open_nodes)
    # tables of the largest pair, reused pair after pair (each left zeroed)
    largest_pair = 1
    for p in range(pairs.shape[0]):
        largest_pair = max(largest_pair, cards[pairs[p, 0], 0] * cards[pairs[p, 1], 0])
    base = np.zeros(largest_pair * n_values, dtype=np.int64)
    hists = np.zeros(largest_pair * n_values, dtype=np.int64)
    sizes = np.zeros(largest_pair, dtype=np.int64)
    met = np.zeros(largest_pair, dtype=np.int64)
    for p in range(pairs.shape[0]):
        a, b = pairs[p, 0], pairs[p, 1]
        ha, hb = heights[a], heights[b]
        # the projections of the open nodes onto a and b
        wanted = np.zeros(ha * hb, dtype=np.bool_)
        for n in still:
            wanted[nodes[n, a] * hb + nodes[n, b]] = True
        if not wanted.any():
            continue
        # the records of each (value of a, value of b, sensitive value) that occurs
        ca0, cb0 = cards[a, 0], cards[b, 0]
        ra, rb = codes[a], codes[b]
        for r in range(ra.shape[0]):
            base[np.uint64((ra[r] * cb0 + rb[r]) * n_values + values[r])] += counts[r]
        occupied = np.flatnonzero(base[: ca0 * cb0 * n_values])
        weight = base[occupied]
        base[occupied] = 0
        va = occupied // (cb0 * n_values)
        vb = occupied // n_values % cb0
        vv = occupied % n_values
        # per class of a combination, its histogram and records (``hists``, ``sizes``,
        # zeroed after each combination); ``met``: the classes that hold records, in
        # the order they were met
        failed = np.zeros(ha * hb, dtype=np.bool_)
        for la in range(ha - 1, -1, -1):
            for lb in range(hb - 1, -1, -1):
                if failed[la * hb + lb] or not wanted[la * hb + lb]:
                    continue
                width_b = cards[b, lb]
                up_a, up_b = ups[a, la], ups[b, lb]
                classes = 0
                for e in range(occupied.shape[0]):
                    cls = up_a[np.uint64(va[e])] * width_b + up_b[np.uint64(vb[e])]
                    if sizes[np.uint64(cls)] == 0:
                        met[classes] = cls
                        classes += 1
                    sizes[np.uint64(cls)] += weight[e]
                    hists[np.uint64(cls * n_values + vv[e])] += weight[e]
                fails = False
                for i in range(classes):
                    cls = met[i]
                    size = sizes[cls]
                    hist = hists[cls * n_values : (cls + 1) * n_values]
                    if not fails:
                        distinct = 0
                        for v in range(n_values):
                            distinct += hist[v] > 0
                        far, _ = verdict(hist, size, distinct, model, summed, ranked)
                        fails = size < k or far
                    sizes[cls] = 0
                    hist[:] = 0
                if fails:
                    for fa in range(la + 1):
                        for fb in range(lb + 1):
                            failed[fa * hb + fb] = True
        # the nodes this pair closes are not open for the next pairs
        kept = 0
        for n in still:
            if not failed[nodes[n, a] * hb + nodes[n, b]]:
                still[kept] = n
                kept += 1
        still = still[:kept]
    return still
