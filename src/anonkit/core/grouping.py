"""Merging equal integer keys: the grouping step under every roll-up and count.

:func:`group_sorted` returns the distinct keys, sorted, with their summed counts; it picks
one pass over keys already in order, a numpy sort, numba's radix sort or polars' hash
aggregation by the input (all give the same arrays). :func:`compiled_ready` says when the
numba kernels are worth loading, from the rows this process has grouped so far (``WORK``).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import numpy.typing as npt

from anonkit._arrays import IntArray


def first_of_runs(values: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    """Flags of the first element of every run of equal values (of sorted ``values``).

    Examples
    --------
    >>> first_of_runs(np.array([3, 3, 5, 7, 7])).tolist()
    [True, False, True, True, False]
    """
    flags = np.empty(values.shape[0], dtype=bool)
    flags[:1] = True
    np.not_equal(values[1:], values[:-1], out=flags[1:])
    return flags


def sort_keys(keys: IntArray, space: int) -> tuple[IntArray, IntArray]:
    """``(order, sorted_keys)`` of ``keys``, all below ``space``.

    When the key and the row number fit in 63 bits together, they are packed into one
    int64 and sorted by value, which is about three times faster than ``argsort``.
    """
    n = keys.shape[0]
    bits = max(n - 1, 1).bit_length()
    if space <= (1 << (62 - bits)):
        packed = np.sort((keys << bits) | np.arange(n, dtype=np.int64))
        return packed & ((1 << bits) - 1), packed >> bits
    order = np.argsort(keys)
    return order, keys[order]


#: From this many rows on, :func:`group_sorted` and
#: :func:`~anonkit.core.snapshot.roll_up_keys` may run the compiled kernels (below it,
#: calling numba costs more than it saves).
COMPILED_ROWS = 1024

#: Rows rolled up or grouped by this process so far, where the compiled kernels would
#: help (see :func:`compiled_ready`; not the rows :func:`group_sorted` hashes).
WORK = [0]

#: After this many rows of roll-ups, loading numba repays itself: importing it and loading
#: the cached kernels costs about 0.7 s of CPU once per process, and the kernels save about
#: 30 ns per row (Adult's bottom snapshot: 19,502 rows, 0.6 ms by numpy, 0.15 compiled).
_LOAD_AFTER_ROWS = 25_000_000


def slot_totals(
    slot: IntArray, counts: IntArray, population: IntArray | None, space: int
) -> tuple[IntArray, IntArray, IntArray | None]:
    """The occupied slots (sorted) of a dense table of ``space`` slots that rows fall into
    by ``slot``, and the records (``counts`` per row) and population records in each.

    Examples
    --------
    >>> present, counts, _ = slot_totals(np.array([3, 0, 3]), np.array([1, 2, 4]), None, 5)
    >>> present.tolist(), counts.tolist()
    ([0, 3], [2, 5])
    """
    totals = np.bincount(slot, weights=counts, minlength=space)
    if population is None and counts.shape[0] and int(counts.min()) > 0:
        present = np.flatnonzero(totals)  # every row holds records
    else:  # rows of population records alone hold none
        present = np.flatnonzero(np.bincount(slot, minlength=space))
    pop = None
    if population is not None:
        pop = np.bincount(slot, weights=population, minlength=space)[present].astype(np.int64)
    return present, totals[present].astype(np.int64), pop


def compiled_ready() -> bool:
    """Whether to run the compiled kernels (:mod:`anonkit.core._group_kernel`): when numba
    is loaded already (Mondrian, greedy merging and the heuristics load it), or once this
    process has done enough roll-ups to repay loading it (a long study, the app, a
    benchmark). A one-shot run of Flash on an Adult-sized table never loads it: that would
    cost it about 0.7 s to save about 10 ms."""
    return "numba" in sys.modules or WORK[0] >= _LOAD_AFTER_ROWS


def group_sorted(
    keys: IntArray,
    counts: IntArray,
    population: IntArray | None,
    space: int,
    *,
    mostly_distinct: bool = False,
) -> tuple[IntArray, IntArray, IntArray | None]:
    """The distinct ``keys`` (all below ``space``), sorted, with the summed ``counts``
    (and ``population``) of each.

    Keys that are sorted already (a roll-up whose level maps keep the order of the codes,
    as interval, masking and date hierarchies do) are merged in one pass; otherwise small
    inputs take a numpy sort (:func:`_group_numpy`), larger ones a compiled radix sort
    (:func:`_group_compiled`), the largest polars' hash aggregation
    (:func:`_group_hashed`), or its sort (:func:`_group_sorting`) when the caller expects
    ``mostly_distinct`` keys, e.g. a roll-up of a fine snapshot: sorting wins when few
    keys merge (2.6M keys into 1M: 0.135 s against 0.178), hashing when many do (1M into
    20,000: 0.015 s against 0.038). All give the same arrays.
    """
    n = keys.shape[0]
    if n > _HASHED_ROWS:
        # not counted in WORK: the compiled kernels would not group these rows faster
        # (a 10M-record table's 2.6M-class roll-ups: 0.15 to 0.3 s either way)
        if bool(np.all(keys[1:] >= keys[:-1])):
            return _merge_sorted(keys, counts, population)
        if mostly_distinct:
            return _group_sorting(keys, counts, population)
        return _group_hashed(keys, counts, population)
    WORK[0] += n
    if n > 1 and bool(np.all(keys[1:] >= keys[:-1])):
        return _merge_sorted(keys, counts, population)
    if n >= COMPILED_ROWS and space <= (1 << 62) and compiled_ready():
        return _group_compiled(keys, counts, population, space)
    return _group_numpy(keys, counts, population, space)


#: Above this many rows :func:`group_sorted` groups with polars' parallel hash
#: aggregation (1,000,000 keys: about 22 ms of CPU, against 59 for the radix sort, which
#: moves every row four times).
_HASHED_ROWS = 1 << 16


def _group_hashed(
    keys: IntArray, counts: IntArray, population: IntArray | None
) -> tuple[IntArray, IntArray, IntArray | None]:
    """:func:`group_sorted` by a polars ``group_by``, then a sort of the distinct keys."""
    import polars as pl

    data = {"k": keys, "c": counts}
    aggs = [pl.col("c").sum()]
    if population is not None:
        data["p"] = population
        aggs.append(pl.col("p").sum())
    out = pl.DataFrame(data).group_by("k").agg(aggs).sort("k")
    pop = None if population is None else out["p"].to_numpy().astype(np.int64, copy=False)
    return (
        out["k"].to_numpy().astype(np.int64, copy=False),
        out["c"].to_numpy().astype(np.int64, copy=False),
        pop,
    )


def _group_sorting(
    keys: IntArray, counts: IntArray, population: IntArray | None
) -> tuple[IntArray, IntArray, IntArray | None]:
    """:func:`group_sorted` by a polars sort of the rows by key (parallel, and fast on
    keys that come in long sorted runs), then one merging pass."""
    import polars as pl

    data = {"k": keys, "c": counts}
    if population is not None:
        data["p"] = population
    out = pl.DataFrame(data).sort("k")
    pop = None if population is None else out["p"].to_numpy()
    return _merge_sorted(out["k"].to_numpy(), out["c"].to_numpy(), pop)


def _group_compiled(
    keys: IntArray, counts: IntArray, population: IntArray | None, space: int
) -> tuple[IntArray, IntArray, IntArray | None]:
    """:func:`group_sorted` by the radix sort of :mod:`anonkit.core._group_kernel` (numba,
    imported on first use; keys below ``2**62``)."""
    from anonkit.core._group_kernel import radix_group

    empty = np.zeros(0, dtype=np.int64)
    pop_in = empty if population is None else population.astype(np.int64, copy=False)
    out_keys, out_counts, out_pop = radix_group(
        keys.astype(np.int64, copy=False),
        counts.astype(np.int64, copy=False),
        pop_in,
        max(space - 1, 1).bit_length(),
    )
    return out_keys, out_counts, None if population is None else out_pop


def _merge_sorted(
    keys: IntArray, counts: IntArray, population: IntArray | None
) -> tuple[IntArray, IntArray, IntArray | None]:
    """:func:`group_sorted` of keys in non-decreasing order: sum each run."""
    starts = np.flatnonzero(first_of_runs(keys))
    summed = np.add.reduceat(counts, starts).astype(np.int64, copy=False)
    pop = None
    if population is not None:
        pop = np.add.reduceat(population, starts).astype(np.int64, copy=False)
    return keys[starts].astype(np.int64, copy=False), summed, pop


def _group_numpy(
    keys: IntArray, counts: IntArray, population: IntArray | None, space: int
) -> tuple[IntArray, IntArray, IntArray | None]:
    """:func:`group_sorted` by a numpy sort."""
    if keys.shape[0] == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty.copy(), None if population is None else empty.copy()
    order, sorted_keys = sort_keys(keys, space)
    return _merge_sorted(
        sorted_keys, counts[order], None if population is None else population[order]
    )
