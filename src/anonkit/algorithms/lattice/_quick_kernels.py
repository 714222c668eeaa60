"""numba kernel of :mod:`.quick_eval`: one hashed roll-up in a single pass.

This module imports numba, so :mod:`.quick_eval` imports it on first use only. The kernel
is compiled on its first call and cached on disk.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonkit._jit import njit

_jit = njit(nogil=True)


@_jit
def roll_up(
    hashes: Any,
    counts: Any,
    reps: Any,
    contrib: Any,
    old_rows: Any,
    new_rows: Any,
    out_hashes: Any,
    out_counts: Any,
    out_reps: Any,
    row_hashes: Any,
) -> int:
    """Roll the classes ``(hashes, counts, reps)`` up and merge equal keys.

    Each class's key changes by ``contrib[new_rows[d], rep] - contrib[old_rows[d], rep]``
    for every changed column ``d`` (wrapping uint64 arithmetic); classes with equal new
    keys merge, in an open-addressing table of at least twice as many slots as classes.
    The merged classes are written to the ``out_*`` arrays in order of first appearance;
    returns how many there are. When ``row_hashes`` has a place per class, each class's
    new key is written there too (before merging).
    """
    n = hashes.shape[0]
    size = 1
    while size < 2 * n:
        size *= 2
    mask = np.uint64(size - 1)
    table = np.full(size, -1, dtype=np.int64)
    m = 0
    changed = old_rows.shape[0]
    keep_rows = row_hashes.shape[0] == n
    for i in range(n):
        r = reps[i]
        h = hashes[i]
        for d in range(changed):
            h = h + contrib[new_rows[d], r] - contrib[old_rows[d], r]
        if keep_rows:
            row_hashes[i] = h
        slot = np.int64(h & mask)
        while True:
            g = table[slot]
            if g < 0:
                table[slot] = m
                out_hashes[m] = h
                out_counts[m] = counts[i]
                out_reps[m] = r
                m += 1
                break
            if out_hashes[g] == h:
                out_counts[g] += counts[i]
                break
            slot = (slot + 1) & np.int64(size - 1)
    return m
