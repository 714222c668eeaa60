"""numba kernel of :mod:`.prefilter`: the size screen of every column pair in one call.

This module imports numba, so :mod:`.prefilter` imports it on first use only, once the
process runs compiled kernels (:func:`~anonkit.core.grouping.compiled_ready`). The kernel
is compiled on its first call and cached on disk.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonkit._jit import njit

_jit = njit(nogil=True)

#: Tables each pair's value pairs are counted into, row ``r`` into table ``r % _LANES``.
_LANES = 4


@_jit
def pairs_below(
    codes: Any,
    counts: Any,
    ups: Any,
    cards: Any,
    heights: Any,
    pairs: Any,
    starts: Any,
    below: int,
    out: Any,
) -> None:
    """Per column pair and level combination, the records in projected classes of fewer
    than ``below`` records (and more than none).

    ``codes[j]`` holds column ``j``'s level-0 code of each snapshot row, which stands for
    ``counts`` records; ``ups[j, level, code]`` is that code's label at ``level`` and
    ``cards[j, level]`` the labels there; ``heights[j]`` the levels. For pair ``p``,
    ``pairs[p] = (a, b)``, the records of level combination ``la * heights[b] + lb`` are
    written to ``out[starts[p] + la * heights[b] + lb]``.

    The value pairs that occur are counted once per pair (a dense table of the leaves'
    pairs), then every level combination sums them into its labels' table.
    """
    n = codes.shape[1]
    whole = n - n % _LANES
    for p in range(pairs.shape[0]):
        a, b = pairs[p, 0], pairs[p, 1]
        ca0, cb0 = cards[a, 0], cards[b, 0]
        size = ca0 * cb0
        # rows in key order often repeat a value pair: spread them over a table per lane
        # so that consecutive additions do not wait on each other (twice as fast on Adult)
        lanes = np.zeros(_LANES * size, dtype=np.int64)
        ra, rb = codes[a], codes[b]
        # (unsigned indices: numba then need not test each for a negative value)
        for i in range(0, whole, _LANES):
            for lane in range(_LANES):
                r = i + lane
                lanes[np.uint64(lane * size + ra[r] * cb0 + rb[r])] += counts[r]
        for r in range(whole, n):
            lanes[np.uint64(ra[r] * cb0 + rb[r])] += counts[r]
        table = lanes[:size].copy()
        for lane in range(1, _LANES):
            table += lanes[lane * size : (lane + 1) * size]
        occupied = np.flatnonzero(table)
        va = occupied // cb0
        vb = occupied % cb0
        weight = table[occupied]
        ha, hb = heights[a], heights[b]
        for la in range(ha):
            width_a = cards[a, la]
            for lb in range(hb):
                width_b = cards[b, lb]
                sizes = np.zeros(width_a * width_b, dtype=np.int64)
                up_a, up_b = ups[a, la], ups[b, lb]
                for e in range(occupied.shape[0]):
                    at = up_a[np.uint64(va[e])] * width_b + up_b[np.uint64(vb[e])]
                    sizes[np.uint64(at)] += weight[e]
                rejected = 0
                for s in range(sizes.shape[0]):
                    if 0 < sizes[s] < below:
                        rejected += sizes[s]
                out[starts[p] + la * hb + lb] = rejected


@_jit
def open_nodes(nodes: Any, out: Any, starts: Any, pairs: Any, heights: Any, limit: int) -> Any:
    """Per lattice node (row of ``nodes``, its levels), whether every pair's screen of
    :func:`pairs_below` (``out``, at ``starts``) counts at most ``limit`` records."""
    passes = np.ones(nodes.shape[0], dtype=np.bool_)
    for i in range(nodes.shape[0]):
        for p in range(pairs.shape[0]):
            a, b = pairs[p, 0], pairs[p, 1]
            if out[starts[p] + nodes[i, a] * heights[b] + nodes[i, b]] > limit:
                passes[i] = False
                break
    return passes
