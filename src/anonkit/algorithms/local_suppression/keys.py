"""Row keys and candidate moves of local suppression: mixed-radix keys, attribute sets,
lookups and per-group minima, all vectorized."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from anonkit._arrays import BoolArray, IntArray
from anonkit.core.grouping import first_of_runs

#: Attribute sets tried per class at most (all sets of up to D attributes).
_COMBO_BUDGET = 256
_KEY_LIMIT = 2**62


def strides(bases: Sequence[int]) -> IntArray | None:
    """Mixed-radix strides for ``bases``, or ``None`` when keys would overflow int64."""
    strides = np.ones(len(bases), dtype=np.int64)
    space = 1
    for j in range(len(bases) - 1, -1, -1):
        strides[j] = space
        space *= max(int(bases[j]), 1)
        if space >= _KEY_LIMIT:
            return None
    return strides


def group_rows(matrix: IntArray, strides: IntArray | None) -> tuple[IntArray, IntArray, IntArray]:
    """Distinct rows of ``matrix``: ``(keys, first_index, inverse)``; keys sorted."""
    if strides is not None:
        keys, first, inverse = np.unique(matrix @ strides, return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(matrix, axis=0, return_index=True, return_inverse=True)
        keys = np.arange(first.size, dtype=np.int64)
    return keys.astype(np.int64), first.astype(np.int64), inverse.reshape(-1).astype(np.int64)


@lru_cache(maxsize=32)
def combos(q: int, depth: int) -> tuple[BoolArray, IntArray]:
    """Every set of 1..depth of ``q`` attributes as a mask row, and its size."""
    rows = [c for d in range(1, depth + 1) for c in itertools.combinations(range(q), d)]
    mask = np.zeros((len(rows), q), dtype=bool)
    for i, c in enumerate(rows):
        mask[i, list(c)] = True
    mask.setflags(write=False)
    sizes = mask.sum(axis=1).astype(np.int64)
    sizes.setflags(write=False)
    return mask, sizes


def depth(q: int, n_classes: int, budget: int) -> int:
    depth, total = 1, q
    while depth < q:
        more = total + math.comb(q, depth + 1)
        if more > _COMBO_BUDGET or more * n_classes > budget:
            break
        depth, total = depth + 1, more
    return depth


def first_per_group(group: IntArray, order_keys: Sequence[npt.NDArray[Any]]) -> IntArray:
    """Index of the best item per group: smallest by ``order_keys`` (first key first)."""
    order: IntArray = np.asarray(
        np.lexsort(tuple(reversed([*order_keys])) + (group,)), dtype=np.int64
    )
    g = group[order]
    first = first_of_runs(g)
    picked: IntArray = order[first]
    return picked


def targets(
    class_rows: IntArray,
    class_keys: IntArray,
    strides: IntArray | None,
    star: IntArray,
    movers: IntArray,
    mask: BoolArray,
    cu: IntArray,
    cm: IntArray,
) -> tuple[IntArray, IntArray, int]:
    """Keys of the candidates' targets, keys of the classes, and the all-``*`` key.

    With mixed-radix keys the target key is the class key plus the change of the starred
    digits; otherwise the rows are built and numbered together with the classes.
    """
    if strides is not None:
        delta = (star[None, :] - class_rows[movers]) * strides[None, :]
        per_combo = (delta @ mask.T.astype(np.int64)) if mask.size else np.zeros((movers.size, 0))
        tkeys = class_keys[movers][cu] + per_combo[cu, cm].astype(np.int64)
        return tkeys.astype(np.int64), class_keys, int(star @ strides)
    target_rows = np.where(mask[cm], star[None, :], class_rows[movers][cu])
    stacked = np.vstack([class_rows, target_rows, star[None, :]])
    _, inverse = np.unique(stacked, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1).astype(np.int64)
    n = class_rows.shape[0]
    return inverse[n:-1], inverse[:n], int(inverse[-1])


def min_per_run(run: IntArray, score: IntArray) -> tuple[IntArray, IntArray]:
    """For each run of equal, sorted ``run`` values: index of its first smallest score."""
    new_run = first_of_runs(run)
    starts = np.flatnonzero(new_run)
    mins = np.minimum.reduceat(score, starts) if run.size else score[:0]
    group = np.cumsum(new_run) - 1
    at_min = np.flatnonzero(score == mins[group])
    first = first_of_runs(group[at_min])
    return at_min[first].astype(np.int64), mins.astype(np.int64)


def lookup(sorted_keys: IntArray, keys: IntArray) -> IntArray:
    """Position of each key in ``sorted_keys`` or -1."""
    if not sorted_keys.size:
        return np.full(keys.shape, -1, dtype=np.int64)
    pos = np.searchsorted(sorted_keys, keys)
    pos_c = np.minimum(pos, sorted_keys.size - 1)
    return np.where(sorted_keys[pos_c] == keys, pos_c, -1).astype(np.int64)
