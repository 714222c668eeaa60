"""The grid phase of BangA: a BANG-file-like partition of the quasi-identifier space.

The BANG file (balanced and nested grid, Freeston 1987) is a point access method that
splits the data space into blocks by repeated binary halving of a region's *domain*,
cycling through the dimensions, whenever a block holds more points than its capacity.
Here the space is the rank grid of the quasi-identifiers (Mondrian's axes) and the halving
runs for every block at once, round after round: a block with more than ``capacity``
records is cut at the middle of its region on the next dimension (in turn) whose region
is wider than one rank; a block whose records all share one point stays whole.

Simplification (see ``docs/algorithms/banga.md``): the BANG file's nesting (a dense
sub-region kept as its own block while the rest stays in the enclosing region) is not
reproduced; blocks are the leaves of the halving (a k-d trie with buddy splits).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from anonkit._arrays import IntArray
from anonkit._validation import check_int
from anonkit.algorithms.mondrian.attributes import Axis
from anonkit.progress import Progress, tick

__all__ = ["Blocks", "bang_blocks"]


@dataclass(frozen=True, eq=False)
class Blocks:
    """Non-empty blocks of the grid.

    Attributes
    ----------
    block_of
        ``(n,)`` block of each record (``0 .. n_blocks - 1``).
    region_low, region_high
        ``(n_blocks, d)`` the block's region in rank space (inclusive).
    rounds
        Halving rounds run.
    """

    block_of: IntArray
    region_low: IntArray
    region_high: IntArray
    rounds: int

    @property
    def n_blocks(self) -> int:
        return int(self.region_low.shape[0])


def bang_blocks(axes: Sequence[Axis], capacity: int, *, progress: Progress | None = None) -> Blocks:
    """Halve regions until every block holds at most ``capacity`` records (or one point).

    Examples
    --------
    >>> from anonkit.algorithms.mondrian.attributes import NumericQI
    >>> ax = Axis.of(NumericQI("a", np.array([0.0, 1.0, 2.0, 3.0, 3.0])))
    >>> b = bang_blocks([ax], 2)
    >>> b.block_of.tolist(), b.region_low.ravel().tolist(), b.region_high.ravel().tolist()
    ([0, 0, 1, 2, 2], [0, 2, 3], [1, 2, 3])
    """
    check_int(capacity, "capacity", "BangA", low=1)
    ranks = np.stack([a.ranks.astype(np.int64) for a in axes], axis=1)
    n, d = ranks.shape
    block_of = np.zeros(n, dtype=np.int64)
    low = np.zeros((1, d), dtype=np.int64)
    high = np.asarray([[a.size - 1 for a in axes]], dtype=np.int64)
    turn = np.zeros(1, dtype=np.int64)  # the next dimension to halve, per block
    max_rounds = int(sum(max(a.size, 1).bit_length() for a in axes)) + 1
    rounds = 0
    for rounds in range(1, max_rounds + 1):
        counts = np.bincount(block_of, minlength=low.shape[0])
        # a block of one point cannot be split: the data box has zero width everywhere
        first = np.full((low.shape[0], d), np.iinfo(np.int64).max)
        last = np.full((low.shape[0], d), -1)
        for j in range(d):
            np.minimum.at(first[:, j], block_of, ranks[:, j])
            np.maximum.at(last[:, j], block_of, ranks[:, j])
        spread = (last > first).any(axis=1)
        split = (counts > capacity) & spread
        if not split.any():
            break
        # the next dimension (from ``turn``, cyclically) whose region is wider than one
        wide = high > low
        order = (turn[:, None] + np.arange(d)[None, :]) % d
        ok = np.take_along_axis(wide, order, axis=1)
        dim = np.take_along_axis(order, ok.argmax(axis=1)[:, None], axis=1)[:, 0]
        rows = np.arange(low.shape[0])
        mid = (low[rows, dim] + high[rows, dim]) // 2
        # children: left keeps the block number, right is appended
        movers = split[block_of] & (ranks[np.arange(n), dim[block_of]] > mid[block_of])
        new_id = np.full(low.shape[0], -1, dtype=np.int64)
        n_new = int(split.sum())
        new_id[split] = low.shape[0] + np.arange(n_new)
        right_low, right_high = low[split].copy(), high[split].copy()
        right_low[np.arange(n_new), dim[split]] = mid[split] + 1
        high[rows[split], dim[split]] = mid[split]
        low = np.concatenate([low, right_low])
        high = np.concatenate([high, right_high])
        next_turn = (dim + 1) % d
        turn = np.where(split, next_turn, turn)
        turn = np.concatenate([turn, next_turn[split]])
        block_of = np.where(movers, new_id[block_of], block_of)
        tick(progress, rounds, max_rounds)
    used, block_of = np.unique(block_of, return_inverse=True)
    return Blocks(block_of.reshape(-1).astype(np.int64), low[used], high[used], rounds)
