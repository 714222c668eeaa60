"""Compiled Mondrian for k-anonymity alone: the recursion of the paper, run by numba.

When every privacy model is k-anonymity (an allowable cut only needs every part to hold
k records) and no population table is given, the partitioning needs nothing but each
record's ranks. :func:`partition_k` then runs the recursion of LeFevre, DeWitt &
Ramakrishnan (2006, Algorithm 1) depth-first in compiled code
(:mod:`anonkit.algorithms.mondrian._kernels`): records are bit-packed rows
(:func:`pack_rows`), each partition is a segment of them, its extents, split scores and
cuts are plain loops over the segment, and an accepted cut reorders the segment in place
(stably, so records keep their order). The cut rules are those of
:mod:`anonkit.algorithms.mondrian.partition` (lower median, ties to the earlier attribute,
children of the lowest common ancestor, relaxed halves by value then record order); the
tests compare both implementations and the plain recursion.

numba is imported, and the kernels compiled, on first use only; compiled code is cached
on disk (``cache=True``), so later processes load it instead of compiling again. Where
numba cannot be imported, its JIT is disabled (``NUMBA_DISABLE_JIT=1``) or it cannot set
up its cache (a warning says why), :func:`available` is false and the vectorized implementation
runs.

References
----------
LeFevre, K., DeWitt, D. J. & Ramakrishnan, R. (2006). Mondrian multidimensional
k-anonymity. ICDE 2006.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from anonkit._arrays import IntArray
from anonkit.algorithms._numba import load_kernel
from anonkit.algorithms.mondrian.attributes import Axis

#: Split heuristics, numbered as the kernel expects them.
SPLIT_CODES = {"widest": 0, "distinct": 1, "round_robin": 2}


@functools.cache
def _compiled() -> Callable[..., Any] | None:
    """The compiled kernel, or ``None`` where numba cannot be imported, its JIT is
    disabled (which would run the kernel as slow Python) or it cannot set up its cache
    (:func:`anonkit.algorithms._numba.load_kernel`)."""
    return load_kernel(
        "anonkit.algorithms.mondrian._kernels",
        "partition",
        "Mondrian's compiled implementation",
        "the numpy implementation",
    )


def available() -> bool:
    """Whether the compiled implementation can run (numba importable)."""
    return _compiled() is not None


def _flat(tables: Sequence[npt.NDArray[Any] | None], dtype: type) -> tuple[Any, IntArray]:
    """Concatenate per-axis tables (``None`` as empty) and return their offsets."""
    parts: list[npt.NDArray[Any]] = [
        np.zeros(0, dtype=dtype) if t is None else np.ascontiguousarray(t, dtype).ravel()
        for t in tables
    ]
    lengths = np.array([p.size for p in parts], dtype=np.int64)
    flat = np.concatenate([*parts, np.zeros(1, dtype=dtype)])
    return flat, np.cumsum(lengths) - lengths


def _bits(n: int) -> int:
    """Bits that hold the values ``0 .. n - 1`` (at least one)."""
    return max(int(n - 1).bit_length(), 1)


def pack_rows(
    columns: Sequence[npt.NDArray[np.integer[Any]]], sizes: Sequence[int]
) -> tuple[npt.NDArray[np.uint64], IntArray, npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """Bit-pack each row's id and ranks into 64-bit words, so that reordering a row
    moves one or a few words instead of one value per axis.

    ``columns[d]`` holds the ranks ``0 .. sizes[d] - 1`` of axis ``d``. Word 0 starts
    with the row id (the lowest bits); each axis's field follows, in a new word when it
    does not fit in the current one. Returns the words ``(n_words, rows)`` and, per
    axis, its word, shift and mask.

    Examples
    --------
    >>> words, word, shift, mask = pack_rows([np.array([2, 1]), np.array([0, 3])], [3, 4])
    >>> words.tolist(), word.tolist(), shift.tolist(), mask.tolist()
    ([[4, 27]], [0, 0], [1, 3], [3, 3])
    """
    n_rows = int(columns[0].shape[0]) if columns else 0
    n_qi = len(columns)
    word = np.zeros(n_qi, dtype=np.int64)
    shift = np.zeros(n_qi, dtype=np.uint64)
    mask = np.zeros(n_qi, dtype=np.uint64)
    w, used = 0, _bits(n_rows)
    for d, size in enumerate(sizes):
        bits = _bits(size)
        if used + bits > 64:
            w, used = w + 1, 0
        word[d], shift[d], mask[d] = w, used, (1 << bits) - 1
        used += bits
    words = np.zeros((w + 1, n_rows), dtype=np.uint64)
    words[0] = np.arange(n_rows, dtype=np.uint64)
    for d in range(n_qi):
        words[word[d]] |= columns[d].astype(np.uint64) << shift[d]
    return words, word, shift, mask


def partition_k(
    axes: Sequence[Axis],
    *,
    k: int,
    min_cut: int,
    relaxed: bool,
    split: str,
) -> tuple[IntArray, IntArray, IntArray, IntArray, int, int]:
    """Partition the records of ``axes`` so that every part of an accepted cut holds at
    least ``k`` records; partitions of fewer than ``min_cut`` records are not cut.

    Returns ``(partition_of, low, high, sizes, n_cuts, rounds)`` with partitions
    numbered depth-first; ``rounds`` is the depth of the recursion plus one (the rounds
    of the breadth-first implementation).
    """
    kernel = _compiled()
    assert kernel is not None
    n_qi = len(axes)
    coords = [
        None
        if a.kind == "hierarchical"
        else (a.values if a.kind == "numeric" else np.arange(a.size, dtype=np.float64))
        for a in axes
    ]
    coord, coord_off = _flat(coords, np.float64)
    nor, nor_off = _flat([a.node_of_rank for a in axes], np.int64)
    width, width_off = _flat([a.node_width for a in axes], np.float64)
    sib, sib_off = _flat([a.sibling_of_rank for a in axes], np.int64)
    words, field_word, field_shift, field_mask = pack_rows(
        [a.ranks for a in axes], [a.size for a in axes]
    )
    meta = np.zeros((n_qi, 8), dtype=np.int64)  # columns as _kernels.HIER .. SIBLINGS
    meta[:, 0] = [a.kind == "hierarchical" for a in axes]
    meta[:, 1] = field_word
    meta[:, 2] = [a.hierarchy.height if a.hierarchy is not None else 0 for a in axes]
    meta[:, 3] = [a.size for a in axes]
    meta[:, 4], meta[:, 5], meta[:, 6], meta[:, 7] = coord_off, nor_off, width_off, sib_off
    n_rows = int(axes[0].ranks.shape[0])
    part, low, high, sizes, n_cuts, rounds = kernel(
        words,
        meta,
        field_shift,
        field_mask,
        np.uint64((1 << _bits(n_rows)) - 1),
        np.array([a.norm for a in axes], dtype=np.float64),
        coord,
        nor,
        width,
        sib,
        max(a.max_fan for a in axes),
        relaxed,
        SPLIT_CODES[split],
        int(k),
        int(min_cut),
    )
    return part, low, high, sizes, int(n_cuts), int(rounds)
