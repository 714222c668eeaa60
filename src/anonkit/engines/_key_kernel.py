"""numba kernels of the packed keys of :mod:`anonkit.engines.counting` and
:mod:`anonkit.engines.written`: packing a frame's code columns into one key per record,
counting the runs of the sorted keys, and unpacking keys into codes, each in one pass.

This module imports numba, so the engines import it on first use only, once the process
runs compiled kernels (:func:`~anonkit.core.grouping.compiled_ready`). The kernels are
compiled on their first call and cached on disk.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonkit._jit import njit

_jit = njit(nogil=True)


@_jit
def add_digit(keys: Any, codes: Any, place: int, shift: int) -> None:
    """Add one code column's digit to the records' keys: ``keys += (codes + shift) *
    place`` in one pass (columns come one call each: polars hands over some arrays read
    only, and numba types a tuple of arrays only when all are alike)."""
    for r in range(keys.shape[0]):
        keys[r] += (codes[r] + shift) * place


@_jit
def add_looked_up(keys: Any, table: Any, codes: Any) -> None:
    """Add each record's entry of ``table`` to its key: ``keys += table[codes]`` in one
    pass, without the gathered column (one call per column, as :func:`add_digit`)."""
    for r in range(keys.shape[0]):
        keys[r] += table[codes[r]]


@_jit
def count_runs(keys: Any) -> tuple[Any, Any]:
    """The distinct values of the sorted ``keys`` and how often each occurs."""
    n = keys.shape[0]
    distinct = np.empty(n, dtype=np.int64)
    counts = np.empty(n, dtype=np.int64)
    m = 0
    for r in range(n):
        if m > 0 and keys[r] == distinct[m - 1]:
            counts[m - 1] += 1
        else:
            distinct[m] = keys[r]
            counts[m] = 1
            m += 1
    return distinct[:m].copy(), counts[:m].copy()


@_jit
def unpack_fields(keys: Any, shifts: Any, masks: Any, shift: int) -> Any:
    """The codes packed in ``keys`` whose digits are whole bit fields: row ``j`` holds
    ``((key >> shifts[j]) & masks[j]) - shift``."""
    block = np.empty((shifts.shape[0], keys.shape[0]), dtype=np.int64)
    for i in range(keys.shape[0]):
        key = keys[i]
        for j in range(shifts.shape[0]):
            block[j, i] = ((key >> shifts[j]) & masks[j]) - shift
    return block
