"""numba kernel of :mod:`.compiled_judge`: a detail snapshot's classes judged in one pass.

This module imports numba, so :mod:`.compiled_judge` imports it on first use only. The
kernel is compiled on its first call and cached on disk.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True)

#: ``distance`` of :func:`judge_t`: half the L1 distance of the value shares.
EQUAL = 0
#: ``distance`` of :func:`judge_t`: the weighted deficits of groups of values.
GROUPED = 1


@_jit
def judge_t(
    keys: Any,
    counts: Any,
    qi_shift: int,
    value_shift: int,
    value_mask: int,
    k: int,
    doom_below: int,
    distance: int,
    value_share: Any,
    first_group: Any,
    groups: Any,
    group_share: Any,
    weights: Any,
    t: float,
    slack: float,
    largest: float,
    class_keys: Any,
    sizes: Any,
    bad: Any,
) -> Any:
    """Judge the classes of a keyed detail snapshot under k-anonymity (``k``; 0: none)
    and one t-closeness model.

    ``keys`` (sorted, each standing for ``counts`` records) hold the quasi-identifiers
    above ``qi_shift`` and the sensitive value at ``(key >> value_shift) & value_mask``;
    a class is a run of keys with the same quasi-identifiers. Its EMD is ``1/2 sum_v
    |p_v - value_share[v]|`` (``distance`` :data:`EQUAL`) or ``sum_g weights[g] *
    max(0, group_share[g] - p(g))`` with ``p(g)`` the class's share of the values in
    group ``g`` (:data:`GROUPED`; value ``v`` is in the groups
    ``groups[first_group[v]:first_group[v + 1]]``), in the order of operations of
    :mod:`anonkit.models.t_closeness`. A class fails when it is smaller than ``k`` or its
    EMD exceeds ``t + slack``.

    Writes each class's quasi-identifier key, size and verdict to ``class_keys``,
    ``sizes`` and ``bad`` (one place per row at least), and returns ``(classes, doomed,
    suppressed, forced, unsure)``: the records in classes below ``doom_below``, the
    records in failing classes, the records the plain convexity bounds force below the
    node (:func:`.convex.judge_classes`; the EMD share ``(emd - t) / (largest - t)``
    clipped to [0, 1] when ``largest > t``, 1 below ``k``) and how many failing classes
    that bound leaves without a record (where the capped bound could add some).
    """
    n = keys.shape[0]
    n_values = value_share.shape[0]
    n_groups = weights.shape[0]
    hist = np.zeros(n_values, dtype=np.int64)
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
        divisor = max(size, 1)
        emd = 0.0
        if distance == EQUAL:
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
        for v in range(n_values):
            hist[v] = 0
        small = size < k
        far = emd > t + slack
        share = 1.0 if small else 0.0
        if far and largest > t:
            share = max(share, min(max((emd - t) / (largest - t), 0.0), 1.0))
        whole = math.ceil(share * size - 1e-9)
        if size < doom_below:
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
