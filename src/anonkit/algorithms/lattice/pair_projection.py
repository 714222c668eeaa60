"""Two-column projections of a table's snapshot, at every level combination of the pair.

Projecting the table onto two of its quasi-identifiers merges its equivalence classes;
with a class-local, monotone model (k-anonymity) a record rejected in a projection is
rejected at every node with the same two levels. :func:`pair_rejections` counts, per
level combination of a pair, the records its projected classes reject and what
suppressing them adds to the cost, for :mod:`.prefilter` and :mod:`.sparse_flash`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from anonkit._arrays import BoolArray, FloatArray, IntArray
from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.core.grouping import group_sorted
from anonkit.core.snapshot import KeyRadix

#: Largest number of projected classes, over every level combination of a pair, that
#: :func:`pair_rejections` keeps (and of (level combination, value pair) entries that
#: :func:`.prefilter._projected_classes` builds): about 8M, some hundreds of MB of
#: temporary arrays. A pair above it is left out of the screen: each pair only adds a
#: necessary condition and a lower bound, so the screen stays valid without it.
PAIR_KEYS = 1 << 23


def float_counts(evaluator: Evaluator) -> FloatArray:
    """The table snapshot's class counts as float64, the weights every pair's ``bincount``
    takes: converted once per screen instead of once per pair (28 pairs of 2.6M classes
    on a 10M-row table); counts are exact in float64 below 2**53."""
    out: FloatArray = evaluator.table.snapshot.counts.astype(np.float64)
    return out


class PairRejections(NamedTuple):
    """Per level combination of two columns (flat, ``la * hb + lb``), what the size-only
    screens reject in their projection."""

    records: FloatArray  # records in rejected projected classes
    extra: FloatArray | None  # what suppressing them adds on the two columns (if priced)


class PairSources:
    """Where to count each pair of columns' value pairs: the table's snapshot projected
    onto its leading columns, up to the pair's later one.

    With the snapshot's rows keyed first column most significant, the projection onto
    the first ``m`` columns is a shift of the keys: one grouping projects out the last
    column, and every shorter projection then merges runs of sorted keys. A pair that
    leaves out the last columns is counted on far fewer rows (a 10M-record table with a
    5-digit zip code last: 2.6M classes, 54,000 without the zip code). Tables whose codes
    do not fit one 62-bit key count every pair on the snapshot.
    """

    def __init__(self, evaluator: Evaluator, weights: FloatArray | None = None) -> None:
        table = evaluator.table
        self._snapshot = table.snapshot
        self._weights = float_counts(evaluator) if weights is None else weights
        #: the snapshot's keys and counts, as the evaluator keeps them if it does
        self._keyed = evaluator.table_keys()
        self._radix = (
            self._keyed[2]
            if self._keyed is not None
            else KeyRadix.for_cardinalities([c[0] for c in table.cardinalities])
        )
        #: per number of leading columns: the projection's keys (shifted so that its
        #: last column is the lowest field), its record counts and the same as floats
        self._prefixes: dict[int, tuple[IntArray, IntArray, FloatArray]] = {}

    def __call__(self, a: int, b: int) -> tuple[IntArray, IntArray, FloatArray]:
        """Codes of columns ``a < b`` in the smallest projection holding both, and its
        records per row (as floats, the weights of ``bincount``)."""
        snap, radix = self._snapshot, self._radix
        if radix is None or b == snap.codes.shape[0] - 1:
            return snap.codes[a], snap.codes[b], self._weights
        keys, _, weights = self._prefix(b + 1, radix)
        return (
            (keys >> (radix.shifts[a] - radix.shifts[b])) & ((1 << radix.bits[a]) - 1),
            keys & ((1 << radix.bits[b]) - 1),
            weights,
        )

    def _prefix(self, m: int, radix: KeyRadix) -> tuple[IntArray, IntArray, FloatArray]:
        """The projection onto the first ``m`` columns (fewer than all)."""
        known = self._prefixes.get(m)
        if known is not None:
            return known
        if m == len(radix.bits) - 1:
            if self._keyed is not None:
                keys, counts = self._keyed[0], self._keyed[1]
            else:
                keys, counts = radix.encode(self._snapshot.codes), self._snapshot.counts
            keys = keys >> radix.shifts[m - 1]
        else:
            longer, counts, _ = self._prefix(m + 1, radix)
            keys = longer >> (radix.shifts[m - 1] - radix.shifts[m])
        space = radix.space >> radix.shifts[m - 1]
        merged, summed, _ = group_sorted(keys, counts, None, space)
        out = (merged, summed, summed.astype(np.float64))
        self._prefixes[m] = out
        return out


def pair_rejections(
    evaluator: Evaluator,
    a: int,
    b: int,
    extra: Sequence[Sequence[FloatArray]] | None = None,
    sources: PairSources | None = None,
) -> PairRejections | None:
    """:class:`PairRejections` of columns ``a < b`` (``extra``: the cost model's
    per-record extras, :attr:`CostModel.extra`, when suppression is priced), or ``None``
    when their projected classes over all level combinations exceed :data:`PAIR_KEYS`.
    ``sources`` (kept across pairs) counts the value pairs on the smallest projection.

    The same figures as :func:`_projected_classes` and :func:`_suppression_extra`, built
    level by level: each combination's classes are merged from those one level finer in
    ``b`` (or in ``a``), so a pair costs about the size of its finest tables, not that
    size times the number of combinations. (A 5-digit zip code against age at 10M
    records: 49 combinations whose tables shrink tenfold per zip level, about 2.5 times
    the finest table instead of 49 times.) A projected class has one label per column, so
    what suppressing it adds is its size times its two labels' extras.
    """
    table, lat = evaluator.table, evaluator.lattice
    cards, maps = table.cardinalities, table.level_maps
    if sources is None:
        sources = PairSources(evaluator)
    codes_a, codes_b, counts = sources(a, b)
    ha, hb = lat.heights[a], lat.heights[b]
    cb0 = cards[b][0]
    column = _merged(codes_a, codes_b, counts, cards[a][0], cb0)  # classes at (la, 0)
    tables: list[tuple[IntArray, IntArray, FloatArray]] = []
    kept = 0
    for la in range(ha):
        card_a = cards[a][la]
        if la > 0:
            column = _merged(maps[a][la - 1][la][column[0]], column[1], column[2], card_a, cb0)
        classes = column
        for lb in range(hb):
            if lb > 0:
                classes = _merged(
                    classes[0], maps[b][lb - 1][lb][classes[1]], classes[2], card_a, cards[b][lb]
                )
            kept += classes[2].size
            if kept > PAIR_KEYS:
                return None
            tables.append(classes)
    sizes = np.rint(np.concatenate([t[2] for t in tables])).astype(np.int64)
    bad = evaluator.screen_violations(sizes)
    combo = np.repeat(np.arange(ha * hb), [t[2].size for t in tables])
    records = records_per_combination(combo, sizes, bad, ha * hb)
    if extra is None:
        return PairRejections(records, None)
    own = np.concatenate(
        [extra[a][c // hb][ca] + extra[b][c % hb][cb] for c, (ca, cb, _) in enumerate(tables)]
    )
    added = np.bincount(combo[bad], weights=sizes[bad] * own[bad], minlength=ha * hb)
    return PairRejections(records, added.astype(np.float64, copy=False))


def _merged(
    ca: IntArray, cb: IntArray, counts: FloatArray, card_a: int, card_b: int
) -> tuple[IntArray, IntArray, FloatArray]:
    """The distinct ``(ca, cb)`` label pairs (below ``card_a`` and ``card_b``) with their
    summed ``counts``, in key order."""
    keys, summed = distinct_keys(ca * card_b + cb, counts, card_a * card_b)
    return keys // card_b, keys % card_b, summed


def records_per_combination(
    combo: IntArray, sizes: IntArray, bad: BoolArray, n_combos: int
) -> FloatArray:
    """Per level combination, the records in its ``bad`` projected classes."""
    out: FloatArray = np.bincount(combo[bad], weights=sizes[bad], minlength=n_combos).astype(
        np.float64, copy=False
    )
    return out


def distinct_keys(
    raw: IntArray, counts: FloatArray | IntArray, span: int
) -> tuple[IntArray, FloatArray]:
    """The distinct values of ``raw`` (ints below ``span``) and their summed ``counts``:
    a dense ``bincount`` while ``span`` is small, a sort otherwise."""
    keys: IntArray
    summed: FloatArray
    if span <= max(8 * raw.size, 1 << 16):
        dense = np.asarray(np.bincount(raw, weights=counts, minlength=span), dtype=np.float64)
        keys = np.flatnonzero(dense)
        summed = dense[keys]
    else:
        keys, inverse = np.unique(raw, return_inverse=True)
        summed = np.asarray(np.bincount(inverse.reshape(-1), weights=counts), dtype=np.float64)
    return keys, summed
