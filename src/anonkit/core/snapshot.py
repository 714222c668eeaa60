"""Frequency snapshots: distinct quasi-identifier combinations with their counts.

Every search works on snapshots, never on raw rows. A snapshot at a lattice node holds one
row per equivalence class: the class's code at the node's level for every quasi-identifier
and the number of records in it. A snapshot of a coarser node is *rolled up* from any finer
one by mapping each column's codes upwards and merging equal rows.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from anonkit._arrays import IntArray
from anonkit.core import grouping
from anonkit.core.grouping import first_of_runs, group_sorted, sort_keys
from anonkit.core.joint import JointDigits

# Dense counting (bincount over the whole key space) beats sorting while the key space is
# at most this many times the number of rows.
_DENSE_FACTOR = 8


#: The widest key a keyed snapshot uses; wider tables roll up their codes unkeyed.
KEY_BITS = 62


@dataclass(frozen=True)
class KeyRadix:
    """Fixed bit-field numbering of code rows: ``key = sum_j code_j << shifts[j]``.

    Every level of a column uses the field width of its finest level (a coarser level
    never has more labels), so a key stays valid as columns are generalized and a roll-up
    only rewrites the fields of the columns that change. Fields are whole bits so that
    reading one is a shift and a mask rather than an int64 division.
    """

    bits: tuple[int, ...]
    shifts: tuple[int, ...]
    space: int

    @classmethod
    def for_cardinalities(cls, radices: Sequence[int]) -> KeyRadix | None:
        """The bit fields for these column sizes, or ``None`` when keys would exceed
        :data:`KEY_BITS` bits. (Keys of up to 62 bits sort by a counting pass per 11 bits
        or, in numpy, by packing the row number beside the key while both fit in 62 bits
        and by ``argsort`` beyond.)"""
        bits = tuple(max(int(r) - 1, 1).bit_length() for r in radices)
        total = sum(bits)
        if total > KEY_BITS:
            return None
        shifts = []
        acc = total
        for b in bits:
            acc -= b
            shifts.append(acc)
        return cls(bits, tuple(shifts), 1 << total)

    def encode(self, codes: IntArray) -> IntArray:
        keys = np.zeros(codes.shape[1], dtype=np.int64)
        for j, shift in enumerate(self.shifts):
            keys |= codes[j] << shift
        return keys

    def digit(self, keys: IntArray, j: int) -> IntArray:
        """Column ``j``'s codes of ``keys``."""
        return (keys >> self.shifts[j]) & ((1 << self.bits[j]) - 1)

    @functools.cached_property
    def shift_array(self) -> IntArray:
        """:attr:`shifts` as an array (for the compiled kernels)."""
        return np.asarray(self.shifts, dtype=np.int64)


class FrequencySnapshot:
    """Equivalence classes at one level vector.

    Attributes
    ----------
    levels
        The level of every quasi-identifier that ``codes`` refer to.
    codes
        ``(n_qi, n_classes)`` int64, one contiguous row per quasi-identifier: per class,
        the code of the value at its level (an index into ``Hierarchy.labels(level)``).
        Snapshots made by :func:`roll_up_keys` hold sorted ``keys`` instead and decode
        ``codes`` on first use.
    counts
        ``(n_classes,)`` int64: number of records in each class.
    keys
        Optional ``(n_classes,)`` int64 keys of the rows under ``radix``.
    population
        Optional ``(n_classes,)`` int64: records of a population table in each row
        (k-map, δ-presence). Rows may then have ``counts == 0`` (population only).
    """

    __slots__ = ("_codes", "counts", "keys", "levels", "population", "radix")

    def __init__(
        self,
        levels: tuple[int, ...],
        codes: IntArray | None,
        counts: IntArray,
        *,
        keys: IntArray | None = None,
        radix: KeyRadix | None = None,
        population: IntArray | None = None,
    ) -> None:
        if codes is None and (keys is None or radix is None):
            raise ValueError("a snapshot needs codes, or keys with their radix")
        self.levels = levels
        self._codes = codes
        self.counts = counts
        self.keys = keys
        self.radix = radix
        self.population = population

    @property
    def codes(self) -> IntArray:
        if self._codes is None:
            assert self.keys is not None and self.radix is not None
            codes = np.empty((len(self.radix.bits), self.keys.shape[0]), dtype=np.int64)
            for j in range(codes.shape[0]):
                codes[j] = self.radix.digit(self.keys, j)
            self._codes = codes
        return self._codes

    @property
    def has_codes(self) -> bool:
        """Whether the codes are at hand (not to be decoded from the keys)."""
        return self._codes is not None

    def codes_of(self, rows: IntArray) -> IntArray:
        """``codes[:, rows]``, decoding only those rows when the snapshot is keyed."""
        if self._codes is not None or self.keys is None or self.radix is None:
            return self.codes[:, rows]
        keys = self.keys[rows]
        return np.stack([self.radix.digit(keys, j) for j in range(len(self.radix.bits))])

    def in_key_order(self) -> FrequencySnapshot:
        """The same classes, keyed, with the rows in key order and codes decoded on first
        use. The keys of a roll-up from it then come mostly in order (runs that only the
        generalized columns interleave), which sorts faster: on a 10M-record table's
        2.6M classes, 0.07 to 0.08 s a roll-up instead of 0.12 to 0.18 s."""
        if self.keys is None or self.radix is None:
            raise ValueError("in_key_order needs a keyed snapshot; see with_keys")
        if bool(np.all(self.keys[1:] > self.keys[:-1])):
            return self  # in order already (an engine's sorted count): its codes kept
        keys, counts, population = group_sorted(
            self.keys, self.counts, self.population, self.radix.space, mostly_distinct=True
        )
        return FrequencySnapshot(
            self.levels, None, counts, keys=keys, radix=self.radix, population=population
        )

    def with_keys(self, radix: KeyRadix) -> FrequencySnapshot:
        """The same classes, keyed under ``radix`` (for :func:`roll_up_keys`)."""
        return FrequencySnapshot(
            self.levels,
            self._codes,
            self.counts,
            keys=radix.encode(self.codes),
            radix=radix,
            population=self.population,
        )

    @property
    def n_classes(self) -> int:
        return int(self.counts.shape[0])

    @property
    def n_records(self) -> int:
        return int(self.counts.sum())


def _strides(cardinalities: Sequence[int]) -> list[int]:
    strides = [1] * len(cardinalities)
    for j in range(len(cardinalities) - 2, -1, -1):
        strides[j] = strides[j + 1] * max(int(cardinalities[j + 1]), 1)
    return strides


def _dense_keys(
    columns: Sequence[npt.NDArray[np.integer[Any]]], cardinalities: Sequence[int]
) -> tuple[IntArray, int]:
    """Keys of the rows in the order of the rows' codes (first column first) for a code
    space too large for one int64 key: columns are packed left to right, and before a
    column would overflow the key, the key so far is replaced by its rank among the
    distinct keys (which keeps their order and is below the number of rows). A sort of
    one int64 array per overflow instead of ``np.unique(axis=0)``'s sort of whole rows
    (14 columns of 814,025 records: 0.2 s against 3 s)."""
    n = int(columns[0].shape[0])
    keys = np.zeros(n, dtype=np.int64)
    space = 1
    for col, card in zip(columns, cardinalities, strict=True):
        card = max(int(card), 1)
        if space * card >= 2**62:
            distinct, keys = np.unique(keys, return_inverse=True)
            keys = keys.reshape(-1).astype(np.int64, copy=False)
            space = max(int(distinct.size), 1)
        keys = keys * card + col
        space *= card
    return keys, space


def group_codes(
    columns: Sequence[npt.NDArray[np.integer[Any]]],
    cardinalities: Sequence[int],
    weights: IntArray | None = None,
    *,
    with_inverse: bool = False,
) -> tuple[IntArray, IntArray, IntArray | None]:
    """Merge equal rows of a table given column by column.

    Parameters
    ----------
    columns
        One array of non-negative int codes per column, all of the same length; column
        ``j`` is below ``cardinalities[j]``.
    cardinalities
        Size of each column's code space.
    weights
        Count of each row (default 1); must be positive.
    with_inverse
        Also return, for each input row, the index of its distinct row.

    Returns
    -------
    unique_codes, counts, inverse
        ``(q, n_unique)`` distinct rows, the summed weight of each, and the inverse (or
        ``None`` unless asked for).
    """
    q = len(columns)
    n = int(columns[0].shape[0]) if q else 0
    w = np.ones(n, dtype=np.int64) if weights is None else weights
    space = 1
    for c in cardinalities:
        space *= max(int(c), 1)
    if space >= 2**62:  # keys would overflow: pack the columns in dense steps
        keys, space = _dense_keys(columns, cardinalities)
    else:
        strides = _strides(cardinalities)
        keys = np.zeros(n, dtype=np.int64)
        for col, stride in zip(columns, strides, strict=True):
            if stride == 1:
                keys += col
            else:  # in int64: a narrower column times a large stride would overflow
                keys += col.astype(np.int64, copy=False) * stride
    inverse: IntArray | None = None
    if space <= max(_DENSE_FACTOR * n, 1 << 12):
        totals = np.bincount(keys, weights=w, minlength=space)
        uniq_keys = np.flatnonzero(totals)
        counts = totals[uniq_keys].astype(np.int64)
        # Rows with equal keys have equal codes, so any row of a key represents it.
        rep_of_key = np.empty(space, dtype=np.int64)
        rep_of_key[keys] = np.arange(n)
        reps = rep_of_key[uniq_keys]
        if with_inverse:
            dense = np.empty(space, dtype=np.int64)
            dense[uniq_keys] = np.arange(uniq_keys.size)
            inverse = dense[keys]
    else:
        if bool(np.all(keys[1:] >= keys[:-1])):  # rows in key order already: no sort
            order, sorted_keys = np.arange(n), keys
        else:
            order, sorted_keys = sort_keys(keys, space)
        first = first_of_runs(sorted_keys)  # first row of each distinct key, sorted
        starts = np.flatnonzero(first)
        reps = order[starts]
        if weights is None:  # rows per key: the gaps between starts
            counts = np.diff(starts, append=n).astype(np.int64)
        else:
            counts = np.add.reduceat(w[order], starts).astype(np.int64)
        if with_inverse:
            inverse = np.empty(n, dtype=np.int64)
            inverse[order] = np.cumsum(first) - 1
    unique_codes = np.empty((q, reps.size), dtype=np.int64)
    for j, col in enumerate(columns):
        unique_codes[j] = col[reps]  # any int dtype (take's out= needs the same one)
    return unique_codes, counts, inverse


def _representatives(keys: IntArray, space: int, weights: IntArray) -> tuple[IntArray, IntArray]:
    """For distinct ``keys``: one row index holding each and the summed weights."""
    n = keys.shape[0]
    if space <= max(_DENSE_FACTOR * n, 1 << 12):
        totals = np.bincount(keys, weights=weights, minlength=space)
        uniq_keys = np.flatnonzero(totals)
        rep_of_key = np.empty(space, dtype=np.int64)
        rep_of_key[keys] = np.arange(n)
        return rep_of_key[uniq_keys], totals[uniq_keys].astype(np.int64)
    order, sorted_keys = sort_keys(keys, space)
    starts = np.flatnonzero(first_of_runs(sorted_keys))
    return order[starts], np.add.reduceat(weights[order], starts).astype(np.int64)


def roll_up(
    snapshot: FrequencySnapshot,
    target: Sequence[int],
    level_maps: Sequence[Sequence[Sequence[IntArray]]],
    cardinalities: Sequence[Sequence[int]],
) -> FrequencySnapshot:
    """Generalize ``snapshot`` to the coarser level vector ``target``.

    ``level_maps[j][a][b]`` maps codes of column ``j`` at level ``a`` to level ``b``;
    ``cardinalities[j][b]`` is the number of labels of column ``j`` at level ``b``.
    """
    cards = [max(int(cardinalities[j][b]), 1) for j, b in enumerate(target)]
    space = 1
    for c in cards:
        space *= c
    changed = [j for j, (a, b) in enumerate(zip(snapshot.levels, target, strict=True)) if a != b]
    if space >= 2**62:
        cols = [
            level_maps[j][a][b][snapshot.codes[j]] if a != b else snapshot.codes[j]
            for j, (a, b) in enumerate(zip(snapshot.levels, target, strict=True))
        ]
        codes, _, inverse = group_codes(cols, cards, with_inverse=True)
        assert inverse is not None
        counts = np.bincount(inverse, weights=snapshot.counts, minlength=codes.shape[1])
        pop = None
        if snapshot.population is not None:
            pop = np.bincount(inverse, weights=snapshot.population, minlength=codes.shape[1])
            pop = pop.astype(np.int64)
        return FrequencySnapshot(
            tuple(int(t) for t in target), codes, counts.astype(np.int64), population=pop
        )
    strides = _strides(cards)
    mapped = {j: level_maps[j][snapshot.levels[j]][target[j]][snapshot.codes[j]] for j in changed}
    keys = np.zeros(snapshot.n_classes, dtype=np.int64)
    for j, stride in enumerate(strides):
        col = mapped.get(j)
        if col is None:
            col = snapshot.codes[j]
        if stride == 1:
            keys += col
        else:
            keys += col * stride
    if snapshot.population is not None:  # two weights: group once, sum both
        order, sorted_keys = sort_keys(keys, space)
        starts = np.flatnonzero(first_of_runs(sorted_keys))
        reps = order[starts]
        counts = np.add.reduceat(snapshot.counts[order], starts).astype(np.int64)
        pop = np.add.reduceat(snapshot.population[order], starts).astype(np.int64)
    else:
        reps, counts = _representatives(keys, space, snapshot.counts)
        pop = None
    codes = snapshot.codes.take(reps, axis=1)
    for j in changed:
        codes[j] = level_maps[j][snapshot.levels[j]][target[j]][codes[j]]
    return FrequencySnapshot(tuple(int(t) for t in target), codes, counts, population=pop)


def roll_up_wide(
    source: FrequencySnapshot,
    levels: tuple[int, ...],
    level_maps: Sequence[Sequence[Sequence[IntArray]]],
    cardinalities: Sequence[Sequence[int]],
) -> FrequencySnapshot:
    """:func:`roll_up` of a snapshot without keys; wide tables, whose code space exceeds
    62 bits, fold their columns into a key densified whenever it would overflow (a sort
    of one int64 per row instead of ``np.unique`` over rows)."""
    maps, cards = level_maps, cardinalities
    space = 1
    for j, b in enumerate(levels):
        space *= max(int(cards[j][b]), 1)
    if space < 2**62:
        return roll_up(source, levels, maps, cards)
    cols = [
        maps[j][a][b][source.codes[j]] if a != b else source.codes[j]
        for j, (a, b) in enumerate(zip(source.levels, levels, strict=True))
    ]
    key = np.zeros(source.n_classes, dtype=np.int64)
    space = 1
    for j, col in enumerate(cols):
        card = max(int(cards[j][levels[j]]), 1)
        if space * card >= 2**62:
            uniq, inverse = np.unique(key, return_inverse=True)
            key, space = inverse.reshape(-1).astype(np.int64), int(uniq.size)
        key = key * card + col
        space *= card
    order = np.argsort(key, kind="stable")
    starts = np.flatnonzero(first_of_runs(key[order]))
    reps = order[starts]
    counts = np.add.reduceat(source.counts[order], starts).astype(np.int64)
    pop = None
    if source.population is not None:
        pop = np.add.reduceat(source.population[order], starts).astype(np.int64)
    codes = np.empty((len(cols), reps.size), dtype=np.int64)
    for j, col in enumerate(cols):
        codes[j] = col[reps]
    return FrequencySnapshot(levels, codes, counts, population=pop)


def roll_up_keys(
    snapshot: FrequencySnapshot,
    target: Sequence[int],
    level_maps: Sequence[Sequence[Sequence[IntArray]]],
    *,
    digits: Callable[[int], IntArray] | None = None,
    deltas: dict[tuple[int, int, int], IntArray] | None = None,
    joint: JointDigits | None = None,
) -> FrequencySnapshot:
    """:func:`roll_up` for a keyed snapshot: rewrite the changed digits, sort, merge.

    Only the generalized columns are decoded, and the result keeps its keys sorted, so a
    roll-up costs one sort of the source keys plus a pass per changed column.

    ``digits`` (column ``j``'s codes of the snapshot, decoded once and kept) saves
    decoding a snapshot rolled up often; ``deltas``, a cache the caller keeps, holds per
    column and level pair how each code's key changes, so a changed column costs one
    lookup. ``joint``, the snapshot's codes joined over groups of columns
    (:class:`~anonkit.core.joint.JointDigits`), saves most of the passes of counting.
    """
    keys, radix = snapshot.keys, snapshot.radix
    if keys is None or radix is None:
        raise ValueError("roll_up_keys needs a keyed snapshot; see FrequencySnapshot.with_keys")
    if deltas is None:
        deltas = {}
    changed: list[tuple[int, IntArray]] = []
    for j, (a, b) in enumerate(zip(snapshot.levels, target, strict=True)):
        if a == b:
            continue
        delta = deltas.get((j, a, b))
        if delta is None:
            mapping = level_maps[j][a][b]
            delta = (mapping - np.arange(mapping.shape[0], dtype=np.int64)) << radix.shifts[j]
            deltas[(j, a, b)] = delta
        changed.append((j, delta))
    n = keys.shape[0]
    cards = _target_cards(target, level_maps, radix)
    space = math.prod(cards)
    compiled = n >= grouping.COMPILED_ROWS and changed and grouping.compiled_ready()
    # counting through joined codes beats the compiled rewrite too (Adult's bottom,
    # 19,502 rows: 0.18 ms against 0.35)
    if digits is not None and _dense(n, space) and (joint is not None or not compiled):
        grouping.WORK[0] += n
        merged, counts, pop = _count_digits(
            snapshot, target, level_maps, digits, cards, space, joint
        )
    elif compiled:
        grouping.WORK[0] += n
        merged, counts, pop = _remap_compiled(snapshot, cards, space, changed)
    else:
        new = keys
        for j, delta in changed:
            old = digits(j) if digits is not None else radix.digit(keys, j)
            if new is keys:
                new = keys + delta[old]
            else:
                new += delta[old]
        if _dense(n, space):
            grouping.WORK[0] += n
            merged, counts, pop = _count_numpy(new, snapshot, cards, space)
        else:  # group_sorted adds its rows to grouping.WORK itself
            # the target's label combinations outnumber the rows: most keys stay apart
            merged, counts, pop = group_sorted(
                new, snapshot.counts, snapshot.population, radix.space, mostly_distinct=True
            )
    return FrequencySnapshot(
        tuple(int(t) for t in target),
        None,
        counts,
        keys=merged,
        radix=radix,
        population=pop,
    )


def _target_cards(
    target: Sequence[int], level_maps: Sequence[Sequence[Sequence[IntArray]]], radix: KeyRadix
) -> list[int]:
    """Labels per column at ``target`` (columns never generalized: their field's range)."""
    return [
        max(len(level_maps[j][b][b]), 1) if j < len(level_maps) else 1 << radix.bits[j]
        for j, b in enumerate(target)
    ]


def _dense(rows: int, space: int) -> bool:
    """Whether a roll-up of ``rows`` rows into ``space`` label combinations counts them
    into a dense table (:func:`_count_numpy`, :func:`_count_digits`) rather than sorting."""
    return rows >= grouping.COMPILED_ROWS and space <= _DENSE_FACTOR * rows


def _count_digits(
    snapshot: FrequencySnapshot,
    target: Sequence[int],
    level_maps: Sequence[Sequence[Sequence[IntArray]]],
    digits: Callable[[int], IntArray],
    cards: Sequence[int],
    space: int,
    joint: JointDigits | None = None,
) -> tuple[IntArray, IntArray, IntArray | None]:
    """:func:`_count_numpy` from the source's decoded codes (``digits``, or joined over
    groups of columns in ``joint``): each row's slot in the target's dense table is
    summed from its columns' codes at the target levels (one lookup per generalized
    column, or per group), without rewriting its key first, and only the occupied slots
    are turned back into keys. (On Adult's bottom, 19,502 rows: Flash at k = 100 without
    suppression 10.5 against 12.3 ms, same nodes.)"""
    radix = snapshot.radix
    assert radix is not None
    if joint is not None and joint.levels == snapshot.levels:
        return joint.count(target, level_maps, snapshot.counts, snapshot.population, radix)
    slot = np.zeros(snapshot.counts.shape[0], dtype=np.int64)
    for j, (stride, a, b) in enumerate(zip(_strides(cards), snapshot.levels, target, strict=True)):
        codes = level_maps[j][a][b][digits(j)] if a != b else digits(j)
        slot += codes * stride if stride != 1 else codes
    present, counts, pop = grouping.slot_totals(slot, snapshot.counts, snapshot.population, space)
    keys = np.zeros(present.shape[0], dtype=np.int64)
    rest = present
    for j in range(len(cards) - 1, -1, -1):  # the last column varies fastest
        keys |= (rest % cards[j]) << radix.shifts[j]
        rest = rest // cards[j]
    return keys, counts, pop


def _count_numpy(
    new: IntArray, snapshot: FrequencySnapshot, cards: Sequence[int], space: int
) -> tuple[IntArray, IntArray, IntArray | None]:
    """Merge the rolled-up keys ``new`` by counting them into a dense table of the target's
    ``space`` label combinations (first column most significant, like the keys, so the
    occupied slots come out in key order)."""
    radix = snapshot.radix
    assert radix is not None
    slot = np.zeros(new.shape[0], dtype=np.int64)
    for shift, bits, stride in zip(radix.shifts, radix.bits, _strides(cards), strict=True):
        field = (new >> shift) & ((1 << bits) - 1)
        slot += field * stride if stride != 1 else field
    present, counts, pop = grouping.slot_totals(slot, snapshot.counts, snapshot.population, space)
    rep = np.empty(space, dtype=np.int64)
    rep[slot] = np.arange(slot.shape[0])
    return new[rep[present]], counts, pop


def _remap_compiled(
    snapshot: FrequencySnapshot,
    cards: Sequence[int],
    space: int,
    changed: Sequence[tuple[int, IntArray]],
) -> tuple[IntArray, IntArray, IntArray | None]:
    """:func:`roll_up_keys`'s rewrite of the ``changed`` columns' fields (column, and per
    code how its key changes) fused with the merge: by counting into a dense table when
    the target's label combinations are at most :data:`_DENSE_FACTOR` times the rows
    (a coarse node rolled up from a fine one, most of a search's large roll-ups), else by
    :func:`_group_compiled`'s radix sort."""
    from anonkit.core._group_kernel import remap_count, remap_group

    keys, radix = snapshot.keys, snapshot.radix
    assert keys is not None and radix is not None
    sizes = [d.shape[0] for _, d in changed]
    rewrite = (  # per changed column: its field's shift and mask, its deltas' offset
        np.array([radix.shifts[j] for j, _ in changed], dtype=np.int64),
        np.array([(1 << radix.bits[j]) - 1 for j, _ in changed], dtype=np.int64),
        np.ascontiguousarray(np.concatenate([d for _, d in changed]), dtype=np.int64),
        np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64),
    )
    population = snapshot.population
    pop_in = np.zeros(0, dtype=np.int64) if population is None else population
    counts = snapshot.counts.astype(np.int64, copy=False)
    pop_in = pop_in.astype(np.int64, copy=False)
    if space <= _DENSE_FACTOR * keys.shape[0]:
        out_keys, out_counts, out_pop = remap_count(
            keys,
            counts,
            pop_in,
            rewrite,
            np.asarray(radix.shifts, dtype=np.int64),
            np.asarray([(1 << b) - 1 for b in radix.bits], dtype=np.int64),
            np.asarray(_strides(cards), dtype=np.int64),
            space,
        )
    else:
        out_keys, out_counts, out_pop = remap_group(
            keys, counts, pop_in, rewrite, max(radix.space - 1, 1).bit_length()
        )
    return out_keys, out_counts, None if population is None else out_pop
