"""Cheap necessary conditions for privacy, from two-column projections.

Projecting the table onto a subset of its quasi-identifiers merges equivalence classes,
so with a monotone privacy model a record that violates it in the projection also
violates it in the full table (the subset property behind Incognito). Hence a node whose
projection onto some pair of columns already needs more suppression than allowed cannot
be private. Each pair table holds only the value pairs that occur, so every node of the lattice is
screened at the cost of a few hundred small array reductions.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from anonkit._arrays import BoolArray, FloatArray, IntArray
from anonkit.algorithms.lattice.compiled_screens import (
    DENSE_PAIRS,
    CompiledScreens,
    compiled_screens,
    share_screens,
)
from anonkit.algorithms.lattice.convex import staged_forced
from anonkit.algorithms.lattice.cost import CostModel
from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.pair_projection import (
    PAIR_KEYS,
    PairSources,
    distinct_keys,
    float_counts,
    pair_rejections,
    records_per_combination,
)
from anonkit.core.snapshot import FrequencySnapshot
from anonkit.models.judge import summarize_classes


@dataclass(frozen=True)
class PairScreen:
    """What the two-column projections tell about every node.

    Attributes
    ----------
    passes
        Nodes that pass every projection test; the others are certainly not private.
    suppression_floor
        Per node, a lower bound on what suppression adds to an additive cost there: the
        records violating in a projection are suppressed at the node too, and each adds at
        least its extra on the projected columns plus the least extra on the others.
    """

    passes: BoolArray
    suppression_floor: FloatArray


def pair_screen(evaluator: Evaluator) -> PairScreen:
    """Screen every lattice node with its single- and two-column projections.

    Uses only ``evaluator.screen_models``, the class-local, size-only, monotone models
    (k-anonymity), and ``evaluator.implied_min_size``, the least class size every
    class-local model needs (l-diversity: l), and ``evaluator.implied_distinct``, the least
    number of distinct sensitive values (l-diversity: l): a record they reject in a
    projection is rejected at the node too, whatever the other models say, so the screen
    is valid for any mix of models. For ``evaluator.share_models`` (entropy and recursive
    l-diversity, t-closeness) the convexity bounds of convex.py say how many records of
    each projected class violate at every node inside it.
    """
    table, lat = evaluator.table, evaluator.lattice
    cost = evaluator.cost_model
    # with no suppression allowed a passing node suppresses nothing: no floor to learn
    priced = cost.suppression_priced and evaluator.max_suppressed > 0
    q = lat.width
    shape = tuple(int(h) for h in lat.heights)

    def grid(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """A per-node array as a view on the level grid."""
        return values.reshape(shape)

    def on_grid(values: npt.NDArray[Any], *axes: int) -> npt.NDArray[Any]:
        """Values per level combination of ``axes`` (flat, C order), shaped to broadcast
        over the level grid."""
        dims = [1] * q
        for ax in axes:
            dims[ax] = shape[ax]
        return values.reshape(dims)

    passes = np.ones(lat.size, dtype=bool)
    floor = np.zeros(lat.size)
    min_extra = cost.min_extra(lat) if priced else floor
    shares = bool(evaluator.share_models)
    detail = table.detail if evaluator.implied_distinct or shares else None
    pairs = list(itertools.combinations(range(q), 2))
    sized = bool(evaluator.screen_models) or evaluator.implied_min_size > 1
    if detail is not None and not priced:
        # without suppression a compiled judge settles the class sizes and the share
        # models on every pair in one call (the size screens' verdicts included: a
        # class below k fails it), and the histograms have nothing left to add
        judged = share_screens(evaluator, pairs, passes)
        if judged is not None:
            return PairScreen(judged, floor)
    weights = float_counts(evaluator)
    counts = _PairCounts(evaluator, weights)
    sources = PairSources(evaluator, weights)
    # each column's leaves-to-labels matrices, built once for all its pairs (on first use:
    # a column with many leaves only takes part in pairs too large to build densely)
    ups: dict[int, tuple[FloatArray, IntArray]] = {}
    # without a floor to learn, the size screens of every pair in one compiled call
    compiled = compiled_screens(evaluator, pairs) if sized and not priced else CompiledScreens()
    if detail is not None and not priced and sized:
        # Without a floor to learn, the histograms only rule nodes out. When the size-only
        # screens already leave few nodes open, the search settles them faster than numpy
        # builds the histograms (Adult without suppression, hierarchical t-closeness: 26
        # nodes evaluated in about 7 ms, against 20 ms for the histograms, which leave 2;
        # the compiled share screen above judges the same projections in about 2 ms). The
        # pairs' classes are not kept for the second pass: on wide tables they would not
        # fit.
        open_nodes = compiled.passing(lat, pairs, evaluator.max_suppressed)
        if open_nodes is None:
            open_nodes = np.ones(lat.size, dtype=bool)
            for a, b in pairs:
                supp = compiled.get((a, b))
                if supp is None:
                    supp = _pair_suppressed(evaluator, a, b, ups, counts=counts)
                if supp is None:
                    if (pr := pair_rejections(evaluator, a, b, sources=sources)) is None:
                        continue
                    supp = pr.records
                grid(open_nodes)[...] &= on_grid(supp <= evaluator.max_suppressed, a, b)
        if int(open_nodes.sum()) * _FEW_OPEN <= lat.size:
            return PairScreen(open_nodes, floor)
    names = [sc.name for sc in table.sensitive]
    attributes = sorted(
        set(evaluator.implied_distinct)
        | {
            names.index(n)
            for m in evaluator.share_models
            for n in m.sensitive_attributes
            if n in names
        }
    )
    # class sizes alone, nothing to learn about suppression cost: dense products suffice
    sizes_only = not priced and detail is None
    screened = compiled.passing(lat, pairs, evaluator.max_suppressed) if sizes_only else None
    if screened is not None:
        passes &= screened
    for a, b in pairs if screened is None else ():
        rejected = None
        if sizes_only:
            rejected = compiled.get((a, b))
            if rejected is None:
                rejected = _pair_suppressed(evaluator, a, b, ups, counts=counts)
        if rejected is not None:
            grid(passes)[...] &= on_grid(rejected <= evaluator.max_suppressed, a, b)
            continue
        partial = None
        if detail is None:
            # no histograms to judge: the level-by-level tables are enough, and cheaper
            pr = pair_rejections(evaluator, a, b, cost.extra if priced else None, sources)
            if pr is None:
                continue
            supp_records, supp_extra = pr.records, pr.extra
            forced = supp_records
        else:
            if (pc := _projected_classes(evaluator, a, b, weights)) is None:
                continue
            ha, hb = lat.heights[a], lat.heights[b]
            bad, combo, sizes = pc.bad, pc.combo, pc.sizes
            hists = _pair_histograms(
                evaluator, detail, attributes, a, b, pc.offset, pc.spans, pc.present
            )
            supp_records = pc.supp_records
            if evaluator.implied_distinct:
                bad = bad | _too_few_values(evaluator, hists)
                supp_records = records_per_combination(combo, sizes, bad, ha * hb)
            forced = supp_records
            if shares:
                # records that must go from the other classes (convexity bounds, convex.py)
                plain, capped = _forced_by_shares(evaluator, hists, sizes)
                plain[bad] = 0.0
                partial_flat = np.bincount(combo, weights=plain, minlength=ha * hb)
                if capped is not None:
                    # the capped bounds only where the plain ones leave the combination open
                    still_open = (supp_records + partial_flat <= evaluator.max_suppressed)[combo]
                    some = capped(still_open & ~bad)
                    some[bad] = 0.0
                    partial_flat = np.bincount(combo, weights=some, minlength=ha * hb)
                partial = partial_flat.reshape(ha, hb)
                forced = supp_records + partial_flat
            supp_extra = _suppression_extra(pc, cost.extra, a, b, bad) if priced else None
        # per node, through its levels of a and b: broadcast on the lattice's level grid
        # (nodes are numbered in C order over it), no per-node gather
        grid(passes)[...] &= on_grid(forced <= evaluator.max_suppressed, a, b)
        if supp_extra is not None:
            others = (
                grid(min_extra)
                - on_grid(_column_floor(cost, a), a)
                - on_grid(_column_floor(cost, b), b)
            )
            learned = on_grid(supp_extra, a, b) + on_grid(supp_records, a, b) * others
            if partial is not None:
                learned = learned + on_grid(partial, a, b) * grid(min_extra)
            np.maximum(grid(floor), learned, out=grid(floor))
    return PairScreen(passes, floor)


#: The histogram screen is skipped when nothing is priced and the size-only screens leave
#: at most one node in this many open.
_FEW_OPEN = 8


class _PairClasses(NamedTuple):
    """The classes of every level combination of columns ``a`` and ``b`` (projected
    classes), with what the size-only screens say about them."""

    keys: IntArray  # per (combination, value pair): its projected class key
    ca: IntArray  # codes of a's values per level
    cb: IntArray  # codes of b's values per level
    weights: FloatArray  # records per (combination, value pair)
    n_keys: int  # size of the key space over all combinations
    offset: IntArray  # first key of each combination
    spans: IntArray  # keys per combination
    present: IntArray  # keys of the projected classes that hold records
    sizes: IntArray  # records per projected class
    bad: BoolArray  # projected classes the size-only screens reject
    combo: IntArray  # combination of each projected class (la * hb + lb)
    supp_records: FloatArray  # per combination, records in rejected classes


def _suppression_extra(
    pc: _PairClasses,
    extra: Sequence[Sequence[FloatArray]],
    a: int,
    b: int,
    bad: BoolArray,
) -> FloatArray:
    """Per level combination of columns ``a`` and ``b`` (flat, ``la * hb + lb``), what
    suppressing the records of the projected classes ``bad`` adds to the cost on these two
    columns (``extra[column][level][code]``: :attr:`CostModel.extra`)."""
    ha, hb = pc.ca.shape[0], pc.cb.shape[0]
    own = (
        np.stack([extra[a][la][pc.ca[la]] for la in range(ha)])[:, None, :]
        + np.stack([extra[b][lb][pc.cb[lb]] for lb in range(hb)])[None, :, :]
    ).reshape(-1)
    per_class = np.bincount(pc.keys, weights=pc.weights * own, minlength=pc.n_keys)
    per_class = per_class[pc.present]
    return np.bincount(pc.combo[bad], weights=per_class[bad], minlength=ha * hb).astype(
        np.float64, copy=False
    )


def _projected_classes(
    evaluator: Evaluator, a: int, b: int, weights: FloatArray | None = None
) -> _PairClasses | None:
    """:class:`_PairClasses` of columns ``a`` and ``b`` from the table's snapshot, or
    ``None`` when their table would exceed :data:`PAIR_KEYS` entries. ``weights`` is the
    snapshot's counts as floats (:func:`float_counts`), when the caller has them."""
    table, lat = evaluator.table, evaluator.lattice
    snap, cards = table.snapshot, table.cardinalities
    if weights is None:
        weights = float_counts(evaluator)
    # distinct (a, b) value pairs with their record counts: at most the snapshot size
    cb0 = cards[b][0]
    raw = snap.codes[a] * cb0 + snap.codes[b]
    pair_keys, pair_counts = distinct_keys(raw, weights, cards[a][0] * cb0)
    ha, hb = lat.heights[a], lat.heights[b]
    if ha * hb * pair_keys.size > PAIR_KEYS:
        return None
    # All level combinations at once: combination c = la * hb + lb owns the key range
    # [offset[c], offset[c] + |labels_a(la)| * |labels_b(lb)|).
    card_b = np.asarray(cards[b][:hb], dtype=np.int64)
    spans = np.outer(np.asarray(cards[a][:ha], dtype=np.int64), card_b).reshape(-1)
    offset = np.concatenate(([0], np.cumsum(spans)[:-1]))
    keys, ca, cb = _combination_keys(evaluator, a, b, offset, pair_keys)
    per_key = np.broadcast_to(pair_counts, (ha * hb, pair_counts.size)).reshape(-1)
    n_keys = int(spans.sum())
    counts = np.bincount(keys, weights=per_key, minlength=n_keys)
    present = np.flatnonzero(counts > 0)
    sizes = np.rint(counts[present]).astype(np.int64)
    # class-local models judge each class alone, so one call covers every combination
    bad = evaluator.screen_violations(sizes)
    combo = np.searchsorted(offset, present, side="right") - 1
    supp_records = records_per_combination(combo, sizes, bad, ha * hb)
    return _PairClasses(
        keys,
        ca,
        cb,
        per_key,
        n_keys,
        offset,
        spans,
        present,
        sizes,
        bad,
        combo,
        supp_records,
    )


#: Largest three-column table :class:`_PairCounts` counts to get three pair tables at once
#: (a smaller bound applies on snapshots of fewer rows).
_DENSE_TRIPLES = 1 << 18


class _PairCounts:
    """The records per level-0 value pair of each column pair, counted three pairs at a
    time where the three columns' value triples fit :data:`_DENSE_TRIPLES`: one pass over
    the bottom snapshot counts the triple table of columns ``a``, ``b`` and ``c``, and
    summing out each column gives the pair tables of ``(a, b)``, ``(a, c)`` and
    ``(b, c)`` (record counts stay exact in float64). The passes over the snapshot, not
    the small tables, are what the screen's counting costs (Adult's 9 columns: 18 passes
    instead of 36)."""

    def __init__(self, evaluator: Evaluator, weights: FloatArray, *, triples: bool = True) -> None:
        self._snapshot = evaluator.table.snapshot
        self._cards = [int(c[0]) for c in evaluator.table.cardinalities]
        self._weights = weights
        self._tables: dict[tuple[int, int], FloatArray] = {}
        #: Passes over the snapshot so far.
        self.passes = 0
        # a triple table costs about its cells on top of the pass it takes: worth it while
        # they are no more than the rows (Adult: 1.0 ms of a 5.7 ms screen saved at this
        # bound, 0.9 at a quarter or four times the rows)
        self._limit = min(_DENSE_TRIPLES, self._snapshot.n_classes) if triples else 0

    def table(self, a: int, b: int) -> FloatArray:
        """``(cards[a], cards[b])`` records per value pair of columns ``a < b``."""
        known = self._tables.pop((a, b), None)  # each pair is asked for once
        if known is not None:
            return known
        cards, codes = self._cards, self._snapshot.codes
        self.passes += 1
        third = [
            c
            for c in range(b + 1, len(cards))
            if (a, c) not in self._tables
            and (b, c) not in self._tables
            and cards[a] * cards[b] * cards[c] <= self._limit
        ]
        if not third:
            keys = codes[a] * cards[b] + codes[b]
            counted = np.bincount(keys, weights=self._weights, minlength=cards[a] * cards[b])
            return counted.astype(np.float64, copy=False).reshape(cards[a], cards[b])
        c = third[0]
        keys = (codes[a] * cards[b] + codes[b]) * cards[c] + codes[c]
        size = cards[a] * cards[b] * cards[c]
        counted = np.bincount(keys, weights=self._weights, minlength=size)
        triple = counted.astype(np.float64, copy=False).reshape(cards[a], cards[b], cards[c])
        self._tables[(a, c)] = triple.sum(axis=1)
        self._tables[(b, c)] = triple.sum(axis=0)
        pair: FloatArray = triple.sum(axis=2)
        return pair


def _pair_suppressed(
    evaluator: Evaluator,
    a: int,
    b: int,
    ups: dict[int, tuple[FloatArray, IntArray]] | None = None,
    counts: _PairCounts | None = None,
) -> FloatArray | None:
    """Per level combination of columns ``a`` and ``b`` (``la * hb + lb``), the records
    in projected classes the size-only screens reject, or ``None`` when the value-pair
    table is too large to build densely.

    The same figure as ``_projected_classes(...).supp_records``, computed as one product
    of dense matrices: the records per level-0 value pair ``M``, then ``A^T M B`` with
    the 0/1 matrices mapping leaves to the labels of every level of each column stacked
    side by side (:func:`_stacked_one_hot`, kept per column in ``ups``), which holds every
    level combination's class sizes as one block (record counts stay exact in float64
    below 2**53). The blocks' rejected records are summed by two segment reductions.
    """
    table, lat = evaluator.table, evaluator.lattice
    cards, maps = table.cardinalities, table.level_maps
    ca0, cb0 = cards[a][0], cards[b][0]
    if ca0 * cb0 > DENSE_PAIRS:
        return None
    if ups is None:
        ups = {}
    for j in (a, b):
        if j not in ups:
            ups[j] = _stacked_one_hot(maps[j][0], cards[j], lat.heights[j])
    if counts is None:  # one pair alone: its own pass
        counts = _PairCounts(evaluator, float_counts(evaluator), triples=False)
    pairs = counts.table(a, b)
    (up_a, starts_a), (up_b, starts_b) = ups[a], ups[b]
    sizes = up_a.T @ pairs @ up_b
    present = sizes > 0
    flat = np.rint(sizes[present]).astype(np.int64)
    rejected = np.zeros_like(sizes)
    rejected[present] = np.where(evaluator.screen_violations(flat), flat, 0)
    per_row = np.add.reduceat(rejected, starts_a, axis=0)
    out: FloatArray = np.add.reduceat(per_row, starts_b, axis=1).reshape(-1)
    return out


def _stacked_one_hot(
    up: Sequence[IntArray], cards: Sequence[int], height: int
) -> tuple[FloatArray, IntArray]:
    """The 0/1 matrices mapping leaves to each level's labels (``up[level]`` holds the
    leaves' codes there), side by side, and where each level's columns start."""
    widths = [int(cards[level]) for level in range(height)]
    starts = np.concatenate(([0], np.cumsum(widths)[:-1])).astype(np.int64)
    out = np.zeros((up[0].size, sum(widths)))
    rows = np.arange(up[0].size)
    for level in range(height):
        out[rows, starts[level] + up[level]] = 1.0
    return out, starts


def _combination_keys(
    evaluator: Evaluator, a: int, b: int, offset: IntArray, pair_keys: IntArray
) -> tuple[IntArray, IntArray, IntArray]:
    """For (value of ``a``, value of ``b``) pairs encoded as ``va * |b| + vb``: their
    projected class at every level combination, combination after combination (keys in
    ``offset``'s ranges), and their codes per level of ``a`` and of ``b``."""
    table, lat = evaluator.table, evaluator.lattice
    maps, cards = table.level_maps, table.cardinalities
    cb0 = cards[b][0]
    ha, hb = lat.heights[a], lat.heights[b]
    va, vb = pair_keys // cb0, pair_keys % cb0
    ca = np.stack([maps[a][0][la][va] for la in range(ha)])  # (ha, P)
    cb = np.stack([maps[b][0][lb][vb] for lb in range(hb)])  # (hb, P)
    card_b = np.asarray(cards[b][:hb], dtype=np.int64)
    keys = (
        offset.reshape(ha, hb, 1) + ca[:, None, :] * card_b[None, :, None] + cb[None, :, :]
    ).reshape(-1)
    return keys, ca, cb


def _pair_histograms(
    evaluator: Evaluator,
    detail: FrequencySnapshot,
    attributes: list[int],
    a: int,
    b: int,
    offset: IntArray,
    spans: IntArray,
    present: IntArray,
) -> dict[int, IntArray]:
    """Per sensitive attribute (index into ``table.sensitive``), the ``(len(present),
    n_values)`` histogram of the projected classes ``present`` of every level combination
    of columns ``a``, ``b``."""
    table, lat = evaluator.table, evaluator.lattice
    cards = table.cardinalities
    q, cb0 = lat.width, cards[b][0]
    n_combos = lat.heights[a] * lat.heights[b]
    codes = detail.codes
    n = int(present.shape[0])
    total = int(spans.sum())
    lookup: IntArray | None = None
    out: dict[int, IntArray] = {}
    for i in attributes:
        nv = max(len(table.sensitive[i].labels), 1)
        if total * nv <= _DENSE_CELLS:
            out[i] = _dense_pair_histograms(evaluator, detail, i, a, b, present)
            continue
        if lookup is None and total <= max(8 * n, 1 << 20):
            # dense lookup (built once per pair): class number of each key
            lookup = np.zeros(total, dtype=np.int64)
            lookup[present] = np.arange(n, dtype=np.int64)
        # (value of a, value of b, sensitive value) triples with their record counts
        raw = (codes[a] * cb0 + codes[b]) * nv + codes[q + i]
        triples, weight = distinct_keys(raw, detail.counts, cards[a][0] * cb0 * nv)
        keys, _, _ = _combination_keys(evaluator, a, b, offset, triples // nv)
        cls = lookup[keys] if lookup is not None else np.searchsorted(present, keys)
        hist = np.bincount(
            cls * nv + np.tile(triples % nv, n_combos),
            weights=np.tile(weight, n_combos),
            minlength=n * nv,
        )
        out[i] = np.rint(hist).astype(np.int64).reshape(n, nv)
    return out


#: Largest dense histogram (cells over every level combination of a pair) built by
#: matrix products instead of key sorting.
_DENSE_CELLS = 1 << 22


def _dense_pair_histograms(
    evaluator: Evaluator, detail: FrequencySnapshot, i: int, a: int, b: int, present: IntArray
) -> IntArray:
    """:func:`_pair_histograms` for one sensitive attribute by dense arrays: the
    ``(|a| x |b| x values)`` counts at the finest levels, generalized one column at a
    time by products with 0/1 level matrices. Every combination's block, flattened, is
    laid out as the keys of :func:`_combination_keys` (``ca * |b at lb| + cb``)."""
    table, lat = evaluator.table, evaluator.lattice
    cards, maps = table.cardinalities, table.level_maps
    q = lat.width
    ca0, cb0 = cards[a][0], cards[b][0]
    nv = max(len(table.sensitive[i].labels), 1)
    codes = detail.codes
    raw = (codes[a] * cb0 + codes[b]) * nv + codes[q + i]
    finest = np.bincount(raw, weights=detail.counts, minlength=ca0 * cb0 * nv)
    finest = finest.reshape(ca0, cb0 * nv)
    blocks = []
    for la in range(lat.heights[a]):
        rows = finest if la == 0 else _level_matrix(maps[a][0][la], cards[a][la]) @ finest
        by_b = rows.reshape(-1, cb0, nv).transpose(0, 2, 1)  # (|a|, values, |b|)
        for lb in range(lat.heights[b]):
            if lb == 0:
                block = by_b
            else:
                block = by_b @ _level_matrix(maps[b][0][lb], cards[b][lb]).T
            blocks.append(block.transpose(0, 2, 1).reshape(-1, nv))
    dense = np.concatenate(blocks)
    out: IntArray = np.rint(dense[present]).astype(np.int64)
    return out


def _level_matrix(level_map: IntArray, n_labels: int) -> FloatArray:
    """The 0/1 ``(n_labels, len(level_map))`` matrix summing finest codes into a level."""
    out = np.zeros((n_labels, level_map.shape[0]))
    out[level_map, np.arange(level_map.shape[0])] = 1.0
    return out


def _too_few_values(evaluator: Evaluator, hists: dict[int, IntArray]) -> BoolArray:
    """Which projected classes hold fewer distinct values of a sensitive attribute than
    its l-diversity needs: every class of a node inside such a projected class has fewer
    too."""
    bad = np.zeros(next(iter(hists.values())).shape[0], dtype=bool)
    for i, need in evaluator.implied_distinct.items():
        bad |= (hists[i] > 0).sum(axis=1) < need
    return bad


def _forced_by_shares(
    evaluator: Evaluator, hists: dict[int, IntArray], sizes: IntArray
) -> tuple[FloatArray, Callable[[BoolArray | None], FloatArray] | None]:
    """Per projected class, the least number of its records that violate
    ``evaluator.share_models`` at every node inside it (the convexity bounds of
    convex.py, on the projected classes' sensitive histograms), in the two stages of
    :func:`~anonkit.algorithms.lattice.convex.staged_forced`."""
    present = sorted(hists)
    summary = summarize_classes(
        sizes,
        evaluator.table.n_records,
        [evaluator.sources[i] for i in present],
        [hists[i] for i in present],
    )
    models = [
        m
        for m in evaluator.share_models
        if all(n in summary.sensitive for n in m.sensitive_attributes)
    ]
    return staged_forced(models, summary)


def _column_floor(cost: CostModel, column: int) -> FloatArray:
    """Per level of ``column``, the least a suppressed record adds there."""
    return np.array([float(e.min()) if e.size else 0.0 for e in cost.extra[column]])
