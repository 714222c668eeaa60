"""A snapshot's codes joined over small groups of columns, for roll-ups by counting.

A roll-up by counting (:func:`anonkit.core.snapshot.roll_up_keys` on a dense target)
places each row in a table of the target's label combinations: its slot is the sum over
the columns of the row's code at the target level times the column's stride. Done column
by column, that is a gather, a product and a sum over all the rows for every column.
Joined over a group of columns whose leaf combinations are few, the codes index one small
table per group (the sum of the group's terms for every combination, built from the level
maps), so a roll-up gathers once per group: on Adult's bottom snapshot with 8
quasi-identifiers and a sensitive column (19,502 rows), 3 gathers instead of 9 passes of
three operations. The table is numbered group by group, so a group's table of terms
depends on its own columns' target levels only and serves every later target that
shares them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from anonkit._arrays import IntArray
from anonkit.core import grouping

if TYPE_CHECKING:
    from anonkit.core.snapshot import KeyRadix

__all__ = ["JointDigits"]


#: The most leaf combinations a group of columns may have: its table of slot terms stays
#: in the first-level cache (4,096 int64 entries, 32 KB).
JOINT_CELLS = 1 << 12
#: Groups' tables of slot terms kept for later targets (at most 32 KB each).
_KEPT_TABLES = 256
_NO_POPULATION = np.zeros(0, dtype=np.int64)


class JointDigits:
    """The codes of a snapshot at ``levels``, joined over groups of columns.

    Parameters
    ----------
    digits
        Column ``j``'s codes, one per row of the snapshot.
    cards
        How many codes column ``j`` can hold (each code is below it).
    levels
        The snapshot's level of each column.

    Examples
    --------
    >>> codes = [np.array([0, 1, 1]), np.array([2, 0, 1])]
    >>> up = [  # per column: level 0 to levels 0 and 1, level 1 to itself
    ...     [[np.array([0, 1]), np.array([0, 0])], [None, np.array([0])]],
    ...     [[np.array([0, 1, 2]), np.array([0, 0, 1])], [None, np.array([0, 1])]],
    ... ]
    >>> joint = JointDigits(codes.__getitem__, [2, 3], (0, 0))
    >>> joint.groups
    [[0, 1]]
    >>> terms, offsets, outer, strides, labels, space = joint.plan((1, 1), up)
    >>> labels.tolist(), space  # column 0 to one label, column 1 to two
    ([1, 2], 2)
    >>> joint.slots(terms, offsets, outer).tolist()
    [1, 0, 0]
    """

    def __init__(
        self, digits: Callable[[int], IntArray], cards: Sequence[int], levels: Sequence[int]
    ) -> None:
        self.levels = tuple(int(v) for v in levels)
        self.cards = [max(int(c), 1) for c in cards]
        #: Groups of columns (first-fit, largest first) and each one's joined codes.
        self.groups: list[list[int]] = []
        sizes: list[int] = []
        for j in sorted(range(len(self.cards)), key=lambda c: -self.cards[c]):
            for g, size in enumerate(sizes):
                if size * self.cards[j] <= JOINT_CELLS:
                    self.groups[g].append(j)
                    sizes[g] *= self.cards[j]
                    break
            else:
                self.groups.append([j])
                sizes.append(self.cards[j])
        self.groups = [sorted(g) for g in self.groups]
        #: Per group, each row's joined code (int64: numpy gathers by int32 indices at
        #: half the speed; the compiled kernel reads them as int32, see :attr:`stacked`).
        self.codes: list[IntArray] = []
        for group in self.groups:
            joined = digits(group[0]).astype(np.int64, copy=True)
            for j in group[1:]:
                joined *= self.cards[j]
                joined += digits(j)
            self.codes.append(joined)
        self._stacked: npt.NDArray[np.int32] | None = None
        self._tables: dict[tuple[int, tuple[int, ...]], IntArray] = {}
        # the groups' tables of terms one after another, at fixed places, and the levels
        # of the group's columns each place holds (None: not filled yet)
        sizes = [math.prod(self.cards[j] for j in group) for group in self.groups]
        self._offsets = np.zeros(len(sizes), dtype=np.int64)
        self._offsets[1:] = np.cumsum(sizes)[:-1]
        self._terms = np.zeros(sum(sizes), dtype=np.int64)
        self._held: list[tuple[int, ...] | None] = [None] * len(sizes)

    def plan(
        self, target: Sequence[int], level_maps: Sequence[Sequence[Sequence[IntArray]]]
    ) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray, int]:
        """How to count the rows at ``target`` in a dense table numbered group by group
        (the first group most significant, within a group its columns in order).

        Returns ``(terms, offsets, outer, strides, labels, space)``: the groups' tables
        of slot terms within the group one after another, where each starts and each
        group's stride (row ``i``'s slot is ``sum_g terms[offsets[g] + codes[g][i]] *
        outer[g]``), each column's stride in the numbering (its label at a slot is ``slot
        // strides[j] % labels[j]``) and labels at the target, and the table's size.
        ``terms`` is this object's buffer: the next plan rewrites it.

        ``level_maps[j][a][b]`` maps column ``j``'s codes at level ``a`` to level ``b``
        (columns past the maps are never generalized)."""
        labels = [
            max(len(level_maps[j][t][t]), 1) if j < len(level_maps) else self.cards[j]
            for j, t in enumerate(target)
        ]
        groups = self.groups
        sizes = [math.prod(labels[j] for j in group) for group in groups]
        outer = [1] * len(sizes)  # each group's stride
        for g in range(len(sizes) - 2, -1, -1):
            outer[g] = outer[g + 1] * sizes[g + 1]
        strides = [0] * len(labels)
        for g, group in enumerate(groups):
            step = outer[g]
            for j in reversed(group):
                strides[j] = step
                step *= labels[j]
            levels = tuple(int(target[j]) for j in group)
            if self._held[g] != levels:
                table = self._table(g, levels, level_maps, labels)
                start = int(self._offsets[g])
                self._terms[start : start + table.shape[0]] = table
                self._held[g] = levels
        return (
            self._terms,
            self._offsets,
            np.asarray(outer, dtype=np.int64),
            np.asarray(strides, dtype=np.int64),
            np.asarray(labels, dtype=np.int64),
            math.prod(sizes),
        )

    def count(
        self,
        target: Sequence[int],
        level_maps: Sequence[Sequence[Sequence[IntArray]]],
        counts: IntArray,
        population: IntArray | None,
        radix: KeyRadix,
    ) -> tuple[IntArray, IntArray, IntArray | None]:
        """The snapshot's rows (``counts`` records, and ``population`` records, each)
        rolled up to ``target`` by counting them in the dense table of :meth:`plan`: the
        occupied slots' keys under ``radix``, in order, with their records. Compiled when
        the kernels are loaded: one pass, no per-row arrays but the slots (on a
        t-closeness search's 18 roll-ups of Adult's detail bottom, about half the time of
        the numpy passes)."""
        terms, offsets, outer, strides, labels, space = self.plan(target, level_maps)
        if grouping.compiled_ready():
            from anonkit.core._group_kernel import count_joint

            keys, out, pop = count_joint(
                self.stacked,
                terms,
                offsets,
                outer,
                counts.astype(np.int64, copy=False),
                _NO_POPULATION if population is None else population.astype(np.int64),
                space,
                strides,
                labels,
                radix.shift_array,
            )
            return keys, out, None if population is None else pop
        present, out, pop = grouping.slot_totals(
            self.slots(terms, offsets, outer), counts, population, space
        )
        keys = np.zeros(present.shape[0], dtype=np.int64)
        for j, shift in enumerate(radix.shifts):
            keys |= (present // strides[j] % labels[j]) << shift
        if keys.shape[0] > 1 and not bool((keys[1:] > keys[:-1]).all()):
            order = np.argsort(keys)
            keys, out = keys[order], out[order]
            pop = None if pop is None else pop[order]
        return keys, out, pop

    def slots(self, terms: IntArray, offsets: IntArray, outer: IntArray) -> IntArray:
        """Each row's slot in the dense table of a :meth:`plan`: the sum of its groups'
        terms, each times its group's stride."""
        ends = [*offsets[1:], terms.shape[0]]
        scaled = [terms[a:b] * step for a, b, step in zip(offsets, ends, outer, strict=True)]
        slot: IntArray = scaled[0][self.codes[0]]  # a table scaled, not every row
        for table, codes in zip(scaled[1:], self.codes[1:], strict=True):
            slot += table[codes]
        return slot

    def _table(
        self,
        g: int,
        levels: tuple[int, ...],
        level_maps: Sequence[Sequence[Sequence[IntArray]]],
        labels: Sequence[int],
    ) -> IntArray:
        """Group ``g``'s slot terms within the group with its columns at ``levels``
        (``labels``: each column's labels at the target), for every combination of its
        codes (indexed by its joined code); kept for later targets."""
        known = self._tables.get((g, levels))
        if known is not None:
            return known
        group = self.groups[g]
        table = np.zeros([self.cards[j] for j in group], dtype=np.int64)
        stride = 1
        for axis in range(len(group) - 1, -1, -1):
            j = group[axis]
            a, b = self.levels[j], levels[axis]
            if a == b:
                up = np.arange(self.cards[j], dtype=np.int64)
            else:
                mapped = level_maps[j][a][b]
                up = np.zeros(self.cards[j], dtype=np.int64)
                up[: mapped.shape[0]] = mapped
            shape = [1] * len(group)
            shape[axis] = self.cards[j]
            table += (up * stride).reshape(shape)
            stride *= labels[j]
        known = table.reshape(-1)
        if len(self._tables) >= _KEPT_TABLES:
            self._tables.clear()
        self._tables[(g, levels)] = known
        return known

    @property
    def stacked(self) -> npt.NDArray[np.int32]:
        """The groups' joined codes as the rows of one int32 array, for the compiled
        kernel (a group holds at most :data:`JOINT_CELLS` combinations, or one column:
        half the bytes of int64 to stream)."""
        if self._stacked is None:
            self._stacked = np.ascontiguousarray(np.stack(self.codes).astype(np.int32))
        return self._stacked
