"""numba kernels of :class:`~anonkit.safety.codes.TallyCodes`: a count's columns read in
one pass each.

This module imports numba, so :mod:`.codes` imports it on first use only, once the
process runs compiled kernels (:func:`~anonkit.core.grouping.compiled_ready`). The kernels
are compiled on their first call and cached on disk.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonkit._jit import njit

_jit = njit(nogil=True)


@_jit
def held_values(codes: Any, card: int, counts: Any) -> Any:
    """Which of the codes ``0 .. card - 1`` some row holding records (``counts > 0``)
    carries."""
    held = np.zeros(card, dtype=np.bool_)
    for r in range(codes.shape[0]):
        if counts[r] > 0:
            held[codes[r]] = True
    return held


@_jit
def dependency_counts(x: Any, dx: int, y: Any, dy: int, counts: Any) -> tuple[int, int, int]:
    """What :func:`~anonkit.safety.codes.dependency_strength` reads of the table of
    ``x`` (codes below ``dx``) against ``y`` (below ``dy``), each row standing for
    ``counts`` records: the records of the ``x`` values held by two records or more (the
    evidence), those of them carrying their value's majority ``y`` (agreeing), and the
    records of the most frequent ``y`` among the evidence (the base)."""
    table = np.zeros(dx * dy, dtype=np.int64)
    for r in range(x.shape[0]):
        table[x[r] * dy + y[r]] += counts[r]
    per_y = np.zeros(dy, dtype=np.int64)
    evidence = 0
    agreeing = 0
    for a in range(dx):
        row = table[a * dy : (a + 1) * dy]
        size = 0
        top = 0
        for b in range(dy):
            size += row[b]
            top = max(top, row[b])
        if size >= 2:
            evidence += size
            agreeing += top
            per_y += row
    base = 0
    for b in range(dy):
        base = max(base, per_y[b])
    return evidence, agreeing, base
