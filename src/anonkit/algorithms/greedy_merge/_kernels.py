"""numba kernel of greedy class merging: the partner of ``C_small`` in one pass.

This module imports numba, so :mod:`.merge` imports it on first use only (through
:func:`.merge.compiled_choose`). The kernel is compiled on its first call and cached on
disk.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True)


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
