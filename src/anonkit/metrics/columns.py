"""One released quasi-identifier read as covered sets over the column's domain.

Every column becomes an integer *covered set* representation, :class:`QIColumn`: the
column's domain (the hierarchy's leaves, or the distinct original numbers) is put in an
order in which every released cell covers a contiguous run ``[start, stop)`` of domain
positions, so counts, entropies and containment are prefix-sum and comparison operations
on arrays. :func:`hierarchy_column` and :func:`numeric_column` build one from the original
and the released cells (labels are read by :mod:`anonkit.metrics.labels`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np
import polars as pl

from anonkit._arrays import BoolArray, FloatArray, IntArray
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import DataError, ValuesNotInHierarchyError
from anonkit.metrics.labels import (
    STAR,
    Interval,
    label_codes,
    leaf_codes,
    leaf_numbers,
    parse_interval,
    parse_leaf_range,
    read_numbers,
)

__all__ = ["QIColumn", "hierarchy_column", "numeric_column"]


@dataclass(frozen=True, eq=False)
class QIColumn:
    """One released quasi-identifier, read as covered sets over the column's domain.

    The *domain* is the hierarchy's leaves (``kind == "hierarchy"``) or the distinct
    original numbers (``kind == "numeric"``), put in an order in which every released label
    covers the contiguous positions ``start .. stop - 1``.

    Attributes
    ----------
    name, kind
        Column name; ``"hierarchy"`` or ``"numeric"``.
    labels
        The distinct released labels (every suppressed spelling is read as ``*``).
    cell
        ``(n,)`` index into ``labels`` of each record's released cell.
    star
        ``(L,)`` whether the label is ``*``.
    start, stop
        ``(L,)`` domain positions covered by each label.
    level
        ``(L,)`` hierarchy level of each label: its own level for a hierarchy label, the
        level of the smallest hierarchy node holding it for a range; ``-1`` for numeric
        columns.
    lo, hi, lo_closed, hi_closed
        ``(L,)`` numeric bounds of each label (numeric columns; ``*`` is ``(-inf, inf)``);
        NaN for hierarchy columns.
    value
        ``(L,)`` the number an exact numeric label states, NaN otherwise.
    position
        ``(n,)`` domain position of each record's original value.
    domain_counts
        Records holding each domain position's value.
    hierarchy
        The hierarchy (hierarchy columns).
    order
        Leaf index at each domain position (hierarchy columns).
    domain_values
        Sorted distinct original numbers (numeric columns).
    original
        ``(n,)`` original numbers (numeric columns).
    value_range
        ``(min, max)`` of a numeric attribute's domain, the denominator of range widths
        (the original data's, unless given).
    """

    name: str
    kind: Literal["hierarchy", "numeric"]
    labels: tuple[str, ...]
    cell: IntArray
    star: BoolArray
    start: IntArray
    stop: IntArray
    level: IntArray
    lo: FloatArray
    hi: FloatArray
    lo_closed: BoolArray
    hi_closed: BoolArray
    value: FloatArray
    position: IntArray
    domain_counts: IntArray
    hierarchy: Hierarchy | None = None
    order: IntArray | None = None
    domain_values: FloatArray | None = None
    original: FloatArray | None = None
    value_range: tuple[float, float] = (0.0, 0.0)

    @property
    def domain_size(self) -> int:
        """Leaves of the hierarchy, or distinct original numbers."""
        return int(self.domain_counts.shape[0])

    @property
    def max_level(self) -> int:
        """Highest level of the hierarchy (0 for numeric columns)."""
        return self.hierarchy.max_level if self.hierarchy is not None else 0

    @cached_property
    def counts(self) -> IntArray:
        """``(L,)`` records released with each label."""
        return np.bincount(self.cell, minlength=len(self.labels)).astype(np.int64)

    @property
    def covered(self) -> IntArray:
        """``(L,)`` domain values each label covers."""
        return self.stop - self.start

    @cached_property
    def truthful(self) -> BoolArray:
        """``(n,)`` whether each record's released cell contains its original value."""
        return (self.start[self.cell] <= self.position) & (self.position < self.stop[self.cell])

    @property
    def relative_width(self) -> FloatArray:
        """``(L,)`` numeric columns: ``(hi - lo) / (max - min)``, bounds clipped to the domain.

        An exact number has width 0 and ``*`` width 1; 0 everywhere when the domain is one
        number. Hierarchy columns: NaN.
        """
        vmin, vmax = self.value_range
        if self.kind != "numeric":
            return np.full(len(self.labels), np.nan)
        span = vmax - vmin
        if span <= 0:
            return np.zeros(len(self.labels))
        lo = np.clip(self.lo, vmin, vmax)
        hi = np.clip(self.hi, vmin, vmax)
        return np.clip((hi - lo) / span, 0.0, 1.0)

    def points(self, values: pl.Series) -> FloatArray:
        """Map original-form values (e.g. a population column) to this column's point space.

        Hierarchy columns: the domain position of each value (raises
        :class:`ValuesNotInHierarchyError` for values outside the hierarchy); numeric
        columns: the number itself.
        """
        if self.kind == "hierarchy":
            assert self.hierarchy is not None
            assert self.order is not None
            leaf = leaf_codes(values, self.hierarchy, self.name)
            pos_of_leaf = np.empty(self.order.shape[0], dtype=np.int64)
            pos_of_leaf[self.order] = np.arange(self.order.shape[0])
            return pos_of_leaf[leaf].astype(np.float64)
        return read_numbers(values, self.name)

    def own_points(self) -> FloatArray:
        """The point of every record's original value (see :meth:`points`)."""
        if self.kind == "hierarchy":
            return self.position.astype(np.float64)
        assert self.original is not None
        return self.original

    def point_ranges(self, sorted_points: FloatArray) -> tuple[IntArray, IntArray]:
        """For each label, the run ``[a, b)`` of ``sorted_points`` (ascending) it contains."""
        if self.kind == "hierarchy":
            a = np.searchsorted(sorted_points, self.start, side="left")
            b = np.searchsorted(sorted_points, self.stop, side="left")
        else:
            a = np.where(
                self.lo_closed,
                np.searchsorted(sorted_points, self.lo, side="left"),
                np.searchsorted(sorted_points, self.lo, side="right"),
            )
            b = np.where(
                self.hi_closed,
                np.searchsorted(sorted_points, self.hi, side="right"),
                np.searchsorted(sorted_points, self.hi, side="left"),
            )
            a = np.where(self.star, 0, a)
            b = np.where(self.star, sorted_points.shape[0], b)
        return a.astype(np.int64), np.maximum(a, b).astype(np.int64)


def _range_reduce(values: IntArray, start: IntArray, stop: IntArray) -> tuple[IntArray, IntArray]:
    """Min and max of ``values[start:stop]`` for each non-empty run, vectorized."""
    if start.size == 0:
        return start.copy(), start.copy()
    padded = np.r_[values, 0]
    idx = np.empty(2 * start.size, dtype=np.int64)
    idx[0::2], idx[1::2] = start, stop
    mins = np.minimum.reduceat(padded, idx)[0::2]
    maxs = np.maximum.reduceat(padded, idx)[0::2]
    return mins.astype(np.int64), maxs.astype(np.int64)


def hierarchy_column(
    name: str,
    original: pl.Series,
    released: pl.Series,
    h: Hierarchy,
    level_hint: int | None,
    *,
    paired: bool = True,
) -> QIColumn:
    """The released column ``name`` read against hierarchy ``h``.

    ``original`` and ``released`` are the column's values record by record (``paired``),
    or the distinct values of each (not paired: a label found at several levels is then
    read at ``level_hint`` or the level the counts prefer, since no record shows which
    candidates cover its original value).
    """
    leaf = leaf_codes(original, h, name)
    cell, labels = label_codes(released)
    n_labels = len(labels)
    n_leaves = len(h.leaves)
    counts = np.bincount(cell, minlength=n_labels)

    index: dict[str, list[tuple[int, int]]] = {}
    for lv in range(h.height):
        for code, lab in enumerate(h.labels(lv)):
            index.setdefault(lab, []).append((lv, code))

    star = np.array([lab == STAR for lab in labels], dtype=bool)
    node_level = np.full(n_labels, -1, dtype=np.int64)
    node_code = np.full(n_labels, -1, dtype=np.int64)
    ambiguous: dict[int, list[tuple[int, int]]] = {}
    intervals: dict[int, Interval] = {}
    leaf_ranges: dict[int, tuple[int, int]] = {}
    unknown: list[int] = []
    numeric_leaves = leaf_numbers(h)
    leaf_index = {leaf_label: i for i, leaf_label in enumerate(h.leaves)}
    for i, lab in enumerate(labels):
        if star[i]:
            node_level[i], node_code[i] = h.max_level, 0
            continue
        cands = index.get(lab)
        if cands:
            if len(cands) == 1:
                node_level[i], node_code[i] = cands[0]
            else:
                ambiguous[i] = cands
            continue
        if numeric_leaves is not None:
            iv = parse_interval(lab)
            if iv is not None:
                intervals[i] = iv
                continue
        else:
            pair = parse_leaf_range(lab, leaf_index)
            if pair is not None:
                leaf_ranges[i] = pair
                continue
        unknown.append(i)
    if unknown:
        missing = sorted(unknown, key=lambda i: -counts[i])
        raise ValuesNotInHierarchyError(name, [labels[i] for i in missing[:10]], len(missing))
    if ambiguous and paired:
        _cover_originals(ambiguous, h, leaf, cell)
    if ambiguous:
        _resolve_ambiguous(ambiguous, node_level, node_code, counts, level_hint)

    # Leaf order: every used label must cover a contiguous run of positions.
    if intervals:
        assert numeric_leaves is not None
        order = np.argsort(numeric_leaves, kind="stable").astype(np.int64)
    elif leaf_ranges:
        order = np.arange(n_leaves, dtype=np.int64)  # the hierarchy's row order
    else:  # depth-first: every node of every level is a run
        order = np.lexsort([h.codes(lv) for lv in range(h.height)]).astype(np.int64)
    pos_of_leaf = np.empty(n_leaves, dtype=np.int64)
    pos_of_leaf[order] = np.arange(n_leaves)

    start = np.zeros(n_labels, dtype=np.int64)
    stop = np.full(n_labels, n_leaves, dtype=np.int64)
    level = node_level.copy()
    is_node = node_level >= 0
    for lv in np.unique(node_level[is_node]).tolist():
        sel = np.flatnonzero(node_level == lv)
        n_codes = len(h.labels(lv))
        first = np.full(n_codes, n_leaves, dtype=np.int64)
        last = np.full(n_codes, -1, dtype=np.int64)
        np.minimum.at(first, h.codes(lv), pos_of_leaf)
        np.maximum.at(last, h.codes(lv), pos_of_leaf)
        codes = node_code[sel]
        start[sel], stop[sel] = first[codes], last[codes] + 1
        broken = (stop[sel] - start[sel]) != h.leaf_counts(lv)[codes]
        if broken.any():
            bad = [labels[i] for i in sel[broken][:5]]
            raise DataError(
                f"Column {name!r}: the release mixes ranges with hierarchy labels that are "
                f"not ranges of the leaves' order ({', '.join(map(repr, bad))}); such a "
                "release cannot be read as covered sets."
            )
    if intervals or leaf_ranges:
        ids = np.array(sorted({**intervals, **leaf_ranges}), dtype=np.int64)
        if intervals:
            assert numeric_leaves is not None
            sorted_values = numeric_leaves[order]
            for i, iv in intervals.items():
                side_lo: Literal["left", "right"] = "left" if iv.lo_closed else "right"
                side_hi: Literal["left", "right"] = "right" if iv.hi_closed else "left"
                start[i] = np.searchsorted(sorted_values, iv.lo, side=side_lo)
                stop[i] = np.searchsorted(sorted_values, iv.hi, side=side_hi)
        for i, (a, b) in leaf_ranges.items():
            start[i], stop[i] = min(a, b), max(a, b) + 1
        empty = ids[stop[ids] <= start[ids]]
        if empty.size:
            raise DataError(
                f"Column {name!r}: released range(s) "
                f"{', '.join(repr(labels[i]) for i in empty[:5])} cover no value of the "
                "hierarchy."
            )
        # level of the smallest hierarchy node holding the range
        level[ids] = h.max_level
        for lv in range(h.max_level - 1, -1, -1):
            mins, maxs = _range_reduce(h.codes(lv)[order], start[ids], stop[ids])
            level[ids] = np.where(mins == maxs, lv, level[ids])
    position = pos_of_leaf[leaf]
    return QIColumn(
        name=name,
        kind="hierarchy",
        labels=tuple(labels),
        cell=cell,
        star=star,
        start=start,
        stop=stop,
        level=level,
        lo=np.full(n_labels, np.nan),
        hi=np.full(n_labels, np.nan),
        lo_closed=np.ones(n_labels, dtype=bool),
        hi_closed=np.ones(n_labels, dtype=bool),
        value=np.full(n_labels, np.nan),
        position=position,
        domain_counts=np.bincount(position, minlength=n_leaves).astype(np.int64),
        hierarchy=h,
        order=order,
    )


def _cover_originals(
    ambiguous: dict[int, list[tuple[int, int]]], h: Hierarchy, leaf: IntArray, cell: IntArray
) -> None:
    """Keep, of each ambiguous label's candidate nodes, those that cover the original
    values of every record released with it (when some do): with A -> A and B -> A, a
    record of B released as 'A' shows the label is the parent, not the leaf A."""
    for i, cands in list(ambiguous.items()):
        leaves = np.unique(leaf[cell == i])
        covering = [(lv, code) for lv, code in cands if (h.codes(lv)[leaves] == code).all()]
        if covering:
            ambiguous[i] = covering


def _resolve_ambiguous(
    ambiguous: dict[int, list[tuple[int, int]]],
    node_level: IntArray,
    node_code: IntArray,
    counts: IntArray,
    level_hint: int | None,
) -> None:
    """Pick the level of labels that appear at several levels of the hierarchy.

    The given level (``levels``) wins; else the level most records of the column's
    unambiguous labels are at (a full-domain release uses one level); else the lowest.
    """
    for i, cands in list(ambiguous.items()):
        if len(cands) == 1:  # one candidate covers the records' values: it counts below
            node_level[i], node_code[i] = cands[0]
            del ambiguous[i]
    known = node_level >= 0
    preferred = level_hint
    if preferred is None and known.any():
        per_level = np.bincount(node_level[known], weights=counts[known])
        preferred = int(np.argmax(per_level))
    for i, cands in ambiguous.items():
        chosen = next((c for c in cands if c[0] == preferred), min(cands))
        node_level[i], node_code[i] = chosen


def numeric_column(
    name: str,
    original: pl.Series,
    released: pl.Series,
    value_range: tuple[float, float] | None,
) -> QIColumn:
    values = read_numbers(original, name)
    domain = np.unique(values)
    position = np.searchsorted(domain, values).astype(np.int64)
    cell, labels = label_codes(released)
    n_labels = len(labels)
    lo = np.full(n_labels, -np.inf)
    hi = np.full(n_labels, np.inf)
    lo_closed = np.zeros(n_labels, dtype=bool)
    hi_closed = np.zeros(n_labels, dtype=bool)
    star = np.zeros(n_labels, dtype=bool)
    bad: list[str] = []
    for i, lab in enumerate(labels):
        if lab == STAR:
            star[i] = True
            continue
        iv = parse_interval(lab)
        if iv is None:
            bad.append(lab)
            continue
        lo[i], hi[i], lo_closed[i], hi_closed[i] = iv
    if bad:
        shown = ", ".join(repr(b) for b in bad[:10])
        raise DataError(
            f"Column {name!r} is numeric but the release holds {len(bad)} label(s) that are "
            f"neither numbers, ranges such as [lo-hi] nor '*': {shown}."
        )
    exact = (lo == hi) & lo_closed & hi_closed
    start = np.where(
        lo_closed,
        np.searchsorted(domain, lo, side="left"),
        np.searchsorted(domain, lo, side="right"),
    ).astype(np.int64)
    stop = np.where(
        hi_closed,
        np.searchsorted(domain, hi, side="right"),
        np.searchsorted(domain, hi, side="left"),
    ).astype(np.int64)
    start = np.where(star, 0, start)
    stop = np.maximum(np.where(star, domain.size, stop), start)
    if value_range is None:
        vr = (float(domain[0]), float(domain[-1]))
    else:
        vr = (float(value_range[0]), float(value_range[1]))
    return QIColumn(
        name=name,
        kind="numeric",
        labels=tuple(labels),
        cell=cell,
        star=star,
        start=start,
        stop=stop,
        level=np.full(n_labels, -1, dtype=np.int64),
        lo=lo,
        hi=hi,
        lo_closed=lo_closed,
        hi_closed=hi_closed,
        value=np.where(exact, lo, np.nan),
        position=position,
        domain_counts=np.bincount(position, minlength=domain.size).astype(np.int64),
        domain_values=domain,
        original=values,
        value_range=vr,
    )
