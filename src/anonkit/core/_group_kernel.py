"""numba kernel of :func:`anonkit.core.grouping.group_sorted`: merge equal keys by a
least-significant-digit radix sort.

This module imports numba, so :mod:`anonkit.core.snapshot` imports it on first use only.
The kernel is compiled on its first call and cached on disk.

A roll-up rewrites some bit fields of a snapshot's keys and merges the rows whose keys
became equal. ``numpy.sort`` does that in ``O(n log n)`` comparisons; keys of at most 40
bits sort in at most four counting passes of 11 bits each, which on Adult's bottom
snapshot (19,502 rows) is about seven times faster.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonkit._jit import njit

_jit = njit(nogil=True)

#: Bits sorted per counting pass (2,048 buckets: the histogram stays in L1).
_DIGIT = 11


@njit(nogil=True, inline="always")
def _rewritten(key: Any, rewrite: Any) -> Any:
    """``key`` with its bit fields rewritten: field ``c`` (``(key >> shifts[c]) &
    masks[c]``) adds ``deltas[offsets[c] + field]``, where ``rewrite`` is ``(shifts,
    masks, deltas, offsets)``."""
    shifts, masks, deltas, offsets = rewrite
    out = key
    for c in range(shifts.shape[0]):
        out += deltas[offsets[c] + ((key >> shifts[c]) & masks[c])]
    return out


@_jit
def remap_group(keys: Any, counts: Any, population: Any, rewrite: Any, bits: int) -> Any:
    """:func:`radix_group` of ``keys`` after rewriting their bit fields
    (:func:`_rewritten`), so a roll-up's new keys are made in the same pass that starts
    the sort."""
    n = keys.shape[0]
    new = np.empty(n, dtype=np.int64)
    ordered = True
    for i in range(n):
        out = _rewritten(keys[i], rewrite)
        new[i] = out
        if i > 0 and out < new[i - 1]:
            ordered = False
    if ordered:  # level maps that keep the codes' order: no sort needed
        return _sort_merge(new, counts, population, 0)
    return _sort_merge(new, counts, population, bits)


@_jit
def remap_count(
    keys: Any,
    counts: Any,
    population: Any,
    rewrite: Any,
    all_shifts: Any,
    all_masks: Any,
    strides: Any,
    space: int,
) -> Any:
    """:func:`remap_group` by counting instead of sorting, for targets whose label
    combinations are few: each new key's fields (``all_shifts``, ``all_masks``) give its
    place ``sum_j field_j * strides[j]`` in a dense table of ``space`` slots. With the
    first column the most significant in both numberings, the slots hold the new keys in
    sorted order."""
    n = keys.shape[0]
    q = all_shifts.shape[0]
    seen = np.zeros(space, dtype=np.bool_)
    slot_key = np.empty(space, dtype=np.int64)
    slot_count = np.zeros(space, dtype=np.int64)
    weighted = population.shape[0] > 0
    slot_pop = np.zeros(space if weighted else 0, dtype=np.int64)
    m = 0
    for i in range(n):
        out = _rewritten(keys[i], rewrite)
        slot = 0
        for j in range(q):
            slot += ((out >> all_shifts[j]) & all_masks[j]) * strides[j]
        if not seen[slot]:
            seen[slot] = True
            slot_key[slot] = out
            m += 1
        slot_count[slot] += counts[i]
        if weighted:
            slot_pop[slot] += population[i]
    out_keys = np.empty(m, dtype=np.int64)
    out_counts = np.empty(m, dtype=np.int64)
    out_pop = np.empty(m if weighted else 0, dtype=np.int64)
    r = 0
    for slot in range(space):
        if seen[slot]:
            out_keys[r] = slot_key[slot]
            out_counts[r] = slot_count[slot]
            if weighted:
                out_pop[r] = slot_pop[slot]
            r += 1
    return out_keys, out_counts, out_pop


@_jit
def radix_group(keys: Any, counts: Any, population: Any, bits: int) -> Any:
    """Sorted distinct ``keys`` (non-negative, below ``2**bits``) with the summed
    ``counts`` and ``population`` (an empty array when there is none) of each."""
    return _sort_merge(keys.copy(), counts, population, bits)


@_jit
def _sort_merge(a: Any, counts: Any, population: Any, bits: int) -> Any:
    """:func:`radix_group` of ``a``, which it sorts in place."""
    n = a.shape[0]
    order = np.arange(n)
    spare = np.empty(n, dtype=np.int64)
    b = np.empty(n, dtype=np.int64)
    mask = (1 << _DIGIT) - 1
    hist = np.empty(mask + 2, dtype=np.int64)
    shift = 0
    while shift < bits:
        hist[:] = 0
        for i in range(n):
            hist[((a[i] >> shift) & mask) + 1] += 1
        if hist.max() < n:  # a pass where every key has the same digit changes nothing
            for d in range(mask + 1):
                hist[d + 1] += hist[d]
            for i in range(n):
                d = (a[i] >> shift) & mask
                p = hist[d]
                hist[d] = p + 1
                b[p] = a[i]
                spare[p] = order[i]
            a, b = b, a
            order, spare = spare, order
        shift += _DIGIT
    out_keys = np.empty(n, dtype=np.int64)
    out_counts = np.zeros(n, dtype=np.int64)
    weighted = population.shape[0] > 0
    out_pop = np.zeros(n if weighted else 0, dtype=np.int64)
    m = -1
    for i in range(n):
        if m < 0 or a[i] != out_keys[m]:
            m += 1
            out_keys[m] = a[i]
        out_counts[m] += counts[order[i]]
        if weighted:
            out_pop[m] += population[order[i]]
    m += 1
    return out_keys[:m], out_counts[:m], out_pop[:m] if weighted else out_pop


@_jit
def count_joint(
    codes: Any,
    terms: Any,
    offsets: Any,
    outer: Any,
    counts: Any,
    population: Any,
    space: int,
    strides: Any,
    cards: Any,
    shifts: Any,
) -> Any:
    """:func:`~anonkit.core.snapshot.roll_up_keys` by counting through joined codes
    (:meth:`anonkit.core.joint.JointDigits.plan`): row ``i`` falls in slot ``sum_g
    terms[offsets[g] + codes[g, i]] * outer[g]`` of a dense table of ``space`` slots, where column
    ``j``'s label is ``slot // strides[j] % cards[j]``. Returns the occupied slots' keys
    (label ``j`` shifted by ``shifts[j]``) in increasing order, with their records and
    population records (``population`` empty: none)."""
    n = codes.shape[1]
    # group by group over all rows (a loop over the groups inside the loop over the rows
    # runs at half the speed); indices as unsigned numbers, which numba need not test for
    # a negative value to count from the end (the passes take three quarters of the time)
    slots = np.empty(n, dtype=np.int64)
    start, row, step = offsets[0], codes[0], outer[0]
    for i in range(n):
        slots[i] = terms[np.uint64(start + row[i])] * step
    for g in range(1, codes.shape[0]):
        start, row, step = offsets[g], codes[g], outer[g]
        for i in range(n):
            slots[i] += terms[np.uint64(start + row[i])] * step
    seen = np.zeros(space, dtype=np.bool_)
    slot_count = np.zeros(space, dtype=np.int64)
    weighted = population.shape[0] > 0
    slot_pop = np.zeros(space if weighted else 0, dtype=np.int64)
    for i in range(n):
        at = np.uint64(slots[i])
        seen[at] = True
        slot_count[at] += counts[i]
    if weighted:
        for i in range(n):
            slot_pop[np.uint64(slots[i])] += population[i]
    m = 0
    for slot in range(space):
        m += seen[slot]
    keys = np.empty(m, dtype=np.int64)
    out_counts = np.empty(m, dtype=np.int64)
    out_pop = np.empty(m if weighted else 0, dtype=np.int64)
    q = cards.shape[0]
    ordered = True
    r = 0
    for slot in range(space):
        if seen[slot]:
            key = 0
            for j in range(q):
                key |= (slot // strides[j] % cards[j]) << shifts[j]
            keys[r] = key
            if r > 0 and key < keys[r - 1]:
                ordered = False
            out_counts[r] = slot_count[slot]
            if weighted:
                out_pop[r] = slot_pop[slot]
            r += 1
    if ordered:
        return keys, out_counts, out_pop
    order = np.argsort(keys)
    return keys[order], out_counts[order], out_pop[order] if weighted else out_pop


@_jit
def value_totals(codes: Any, counts: Any, width: int) -> Any:
    """Per column ``j`` of ``codes`` (one row per column), the records holding each code:
    ``out[j, c]`` sums ``counts`` over the rows whose code is ``c`` (``width`` columns, at
    least the largest code plus one), in int64."""
    out = np.zeros((codes.shape[0], width), dtype=np.int64)
    for j in range(codes.shape[0]):
        for r in range(codes.shape[1]):
            out[j, codes[j, r]] += counts[r]
    return out
