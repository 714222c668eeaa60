"""Read a release, made by anonkit or by any other tool, against its original table.

A release is matched to the original table row by row (same number of rows, same order).
Each released quasi-identifier cell is read, once per distinct label, as one of

* a label of the column's hierarchy, at any level (it covers the leaves under it);
* ``*``, or a missing cell (null, empty; sdcMicro's local suppression writes NA): the
  root, covering every value;
* a numeric range: ``[lo-hi]``, ``[lo-hi[``, ``[lo,hi)``, ``]lo,hi]``, ``lo-hi`` (closed),
  ``<hi``, ``<=hi``, ``>lo``, ``>=lo``, ``lo+``, or a masked number such as ``130**``
  (``[13000, 13100[``); for a hierarchy attribute only when its leaves are numbers;
* a range of two leaves ``[first-last]`` of a hierarchy attribute whose leaves are not
  numbers (Mondrian's ordered categories): the leaves from ``first`` to ``last`` in the
  hierarchy's row order;
* an exact value: a leaf of the hierarchy, or a number for a numeric attribute (which may
  differ from the original value, e.g. a microaggregated mean).

Every column becomes an integer *covered set* representation, :class:`QIColumn`: the
column's domain (the hierarchy's leaves, or the distinct original numbers) is put in an
order in which every released cell covers a contiguous run ``[start, stop)`` of domain
positions, so counts, entropies and containment are prefix-sum and comparison operations
on arrays. A :class:`Release` holds the columns, the equivalence classes of the release
(records with equal released values) and the suppressed records (every quasi-identifier
``*``).

:func:`match_classes` finds, for rows of original values (the original table itself or a
population table), every release class whose cells all contain them; the KL divergence
and journalist risk use it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal, NamedTuple

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit.core.hierarchy import Hierarchy
from anonkit.core.snapshot import group_codes
from anonkit.engines.polars_engine import as_text
from anonkit.exceptions import (
    DataError,
    EmptyDataError,
    MissingValuesError,
    ParameterError,
    UnknownColumnError,
    ValuesNotInHierarchyError,
)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: How a suppressed cell is written.
STAR = "*"

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_SEP = r"\s*(?:-|–|,|;|\.\.)\s*"
_BRACKETED = re.compile(rf"^([\[\(\]])\s*({_NUM}){_SEP}({_NUM})\s*([\]\)\[])$")
_PLAIN = re.compile(rf"^({_NUM})\s*(?:-|–|\.\.)\s*({_NUM})$")
_COMPARE = re.compile(rf"^(<=|>=|<|>|≤|≥)\s*({_NUM})$")
_PLUS = re.compile(rf"^({_NUM})\s*\+$")
_MASKED = re.compile(r"^(\d+)(\*+)$")
_EXACT = re.compile(rf"^{_NUM}$")
_LEAF_RANGE = re.compile(r"^\[(.+)\]$")


class Interval(NamedTuple):
    """A numeric interval read from a label; ``lo == hi`` with both ends closed is a number."""

    lo: float
    hi: float
    lo_closed: bool
    hi_closed: bool

    @property
    def exact(self) -> bool:
        return self.lo == self.hi and self.lo_closed and self.hi_closed


def is_star(label: str | None) -> bool:
    """Whether a released cell is suppressed: ``*`` (any number of them), null or empty."""
    return label is None or label == "" or set(label) == {"*"}


def parse_interval(label: str) -> Interval | None:
    """Read a numeric label as an interval; ``None`` if it is not one.

    Examples
    --------
    >>> parse_interval("[20-30[")
    Interval(lo=20.0, hi=30.0, lo_closed=True, hi_closed=False)
    >>> parse_interval("130**")[:2], parse_interval("<30")[:2], parse_interval("42").exact
    ((13000.0, 13100.0), (-inf, 30.0), True)
    >>> parse_interval("young") is None
    True
    """
    text = label.strip()
    if _EXACT.match(text):
        v = float(text)
        return Interval(v, v, True, True)
    m = _BRACKETED.match(text)
    if m:
        lo, hi = float(m.group(2)), float(m.group(3))
        out = Interval(lo, hi, m.group(1) == "[", m.group(4) == "]")
    elif m := _PLAIN.match(text):
        out = Interval(float(m.group(1)), float(m.group(2)), True, True)
    elif m := _COMPARE.match(text):
        op, v = m.group(1), float(m.group(2))
        if op in ("<", "<=", "≤"):
            out = Interval(-math.inf, v, False, op != "<")
        else:
            out = Interval(v, math.inf, op != ">", False)
    elif m := _PLUS.match(text):
        out = Interval(float(m.group(1)), math.inf, True, False)
    elif m := _MASKED.match(text):
        scale = 10.0 ** len(m.group(2))
        lo = float(m.group(1)) * scale
        out = Interval(lo, lo + scale, True, False)
    else:
        return None
    if math.isnan(out.lo) or math.isnan(out.hi) or out.lo > out.hi:
        return None
    if out.lo == out.hi and not out.exact:
        return None
    return out


# ------------------------------------------------------------------------------ columns
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
            leaf = _leaf_codes(values, self.hierarchy, self.name)
            pos_of_leaf = np.empty(self.order.shape[0], dtype=np.int64)
            pos_of_leaf[self.order] = np.arange(self.order.shape[0])
            return pos_of_leaf[leaf].astype(np.float64)
        return _numbers(values, self.name)

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


def _numbers(values: pl.Series, column: str) -> FloatArray:
    """A column as float64, with specific errors for missing and non-numeric values."""
    series = values
    if series.dtype == pl.String:
        series = series.str.strip_chars()
    nulls = series.null_count()
    if nulls:
        raise MissingValuesError(column, nulls)
    if series.dtype == pl.Boolean or not (series.dtype.is_numeric() or series.dtype == pl.String):
        raise DataError(f"Column {column!r} is declared numeric but holds {series.dtype} values.")
    cast = series.cast(pl.Float64, strict=False)
    bad = cast.is_null()
    if bad.any():
        shown = ", ".join(repr(v) for v in series.filter(bad).unique().head(5).to_list())
        raise DataError(
            f"Column {column!r} is declared numeric but holds {int(bad.sum())} value(s) "
            f"that are not numbers: {shown}."
        )
    out = cast.to_numpy().astype(np.float64)
    nans = int(np.isnan(out).sum())
    if nans:
        raise MissingValuesError(column, nans)
    return out


def _factorize(series: pl.Series) -> tuple[IntArray, pl.Series]:
    """Codes of a column into its distinct non-null values (first-appearance order for text);
    null is ``-1``. The work per row is one hash or sort pass; callers then read the
    distinct values only."""
    if series.dtype == pl.String or series.dtype == pl.Categorical or series.dtype == pl.Enum:
        text = series.cast(pl.String)
        uniq = text.drop_nulls().unique(maintain_order=True)
        phys = text.cast(pl.Enum(uniq.to_list())).to_physical()
        return phys.fill_null(-1).to_numpy().astype(np.int64), uniq
    if series.dtype.is_numeric():
        missing = series.is_null().to_numpy()
        values = series.fill_null(0).to_numpy()
        if values.dtype.kind == "f":
            missing = missing | np.isnan(values)
        uniq_v = np.unique(values[~missing])
        codes = np.searchsorted(uniq_v, values).astype(np.int64)
        codes[missing] = -1
        return codes, pl.Series(series.name, uniq_v, dtype=series.dtype)
    nulls = series.is_null().to_numpy()
    codes, uniq = _factorize(as_text(series))  # booleans, dates, ...: their text
    codes[nulls] = -1
    return codes, uniq


def _leaf_codes(series: pl.Series, h: Hierarchy, column: str) -> IntArray:
    """Leaf index of each value, with specific errors for missing and unknown values."""
    nulls = series.null_count()
    if series.dtype.is_float():
        nulls += int(series.is_nan().sum())
    if nulls:
        raise MissingValuesError(column, nulls)
    codes, uniq = _factorize(series)
    text = as_text(uniq).to_list()
    index = {leaf: i for i, leaf in enumerate(h.leaves)}
    mapped = np.array([index.get(t, -1) for t in text], dtype=np.int64)
    if (mapped < 0).any():
        counts = np.bincount(codes, minlength=len(text))
        unknown = sorted(np.flatnonzero(mapped < 0).tolist(), key=lambda i: -counts[i])
        raise ValuesNotInHierarchyError(column, [text[i] for i in unknown[:10]], len(unknown))
    out: IntArray = mapped[codes]
    return out


def _dictionary(series: pl.Series) -> tuple[IntArray, list[str]]:
    """Codes of the released cells and their distinct labels; suppressed spellings -> ``*``.

    Only the distinct values are rendered and normalized (stripped, ``**``/empty/null read
    as ``*``).
    """
    codes, uniq = _factorize(series)
    rendered = [STAR if is_star(t) else t for t in as_text(uniq).to_list()]
    labels = list(dict.fromkeys(rendered))
    position = {lab: i for i, lab in enumerate(labels)}
    remap = np.array([position[t] for t in rendered] + [0], dtype=np.int64)
    if (codes < 0).any():
        if STAR not in position:
            position[STAR] = len(labels)
            labels.append(STAR)
        remap[-1] = position[STAR]
    out: IntArray = remap[codes]  # code -1 picks the last entry: the star
    return out, labels


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


def _leaf_numbers(h: Hierarchy) -> FloatArray | None:
    """The leaves as numbers, or ``None`` if some leaf is not a number."""
    out = np.empty(len(h.leaves))
    for i, leaf in enumerate(h.leaves):
        if not _EXACT.match(leaf):
            return None
        out[i] = float(leaf)
    return out


def _leaf_range(label: str, leaf_index: Mapping[str, int]) -> tuple[int, int] | None:
    """``[first-last]`` over non-numeric leaves: the two leaf indices, or ``None``."""
    m = _LEAF_RANGE.match(label)
    if not m:
        return None
    body = m.group(1)
    for sep in ("-", ",", ";", ".."):
        pos = body.find(sep)
        while pos >= 0:
            a, b = body[:pos].strip(), body[pos + len(sep) :].strip()
            if a in leaf_index and b in leaf_index:
                return leaf_index[a], leaf_index[b]
            pos = body.find(sep, pos + 1)
    return None


def _hierarchy_column(
    name: str,
    original: pl.Series,
    released: pl.Series,
    h: Hierarchy,
    level_hint: int | None,
) -> QIColumn:
    leaf = _leaf_codes(original, h, name)
    cell, labels = _dictionary(released)
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
    numeric_leaves = _leaf_numbers(h)
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
            pair = _leaf_range(lab, leaf_index)
            if pair is not None:
                leaf_ranges[i] = pair
                continue
        unknown.append(i)
    if unknown:
        missing = sorted(unknown, key=lambda i: -counts[i])
        raise ValuesNotInHierarchyError(name, [labels[i] for i in missing[:10]], len(missing))
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


def _resolve_ambiguous(
    ambiguous: Mapping[int, list[tuple[int, int]]],
    node_level: IntArray,
    node_code: IntArray,
    counts: IntArray,
    level_hint: int | None,
) -> None:
    """Pick the level of labels that appear at several levels of the hierarchy.

    The given level (``levels``) wins; else the level most records of the column's
    unambiguous labels are at (a full-domain release uses one level); else the lowest.
    """
    known = node_level >= 0
    preferred = level_hint
    if preferred is None and known.any():
        per_level = np.bincount(node_level[known], weights=counts[known])
        preferred = int(np.argmax(per_level))
    for i, cands in ambiguous.items():
        chosen = next((c for c in cands if c[0] == preferred), min(cands))
        node_level[i], node_code[i] = chosen


def _numeric_column(
    name: str,
    original: pl.Series,
    released: pl.Series,
    value_range: tuple[float, float] | None,
) -> QIColumn:
    values = _numbers(original, name)
    domain = np.unique(values)
    position = np.searchsorted(domain, values).astype(np.int64)
    cell, labels = _dictionary(released)
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


# ------------------------------------------------------------------------------ release
@dataclass(frozen=True, eq=False)
class Release:
    """A release read against its original table.

    Attributes
    ----------
    columns
        One :class:`QIColumn` per quasi-identifier.
    n_records
        Records (rows of both tables).
    suppressed
        ``(n,)`` records whose every quasi-identifier is ``*``.
    class_of
        ``(n,)`` equivalence class of each record: records with equal released
        quasi-identifiers. Suppressed records share one class.
    class_sizes
        ``(G,)`` records per class.
    class_labels
        ``(G, q)`` label index (into ``columns[j].labels``) of each class.
    class_suppressed
        ``(G,)`` whether the class is the suppressed records.
    """

    columns: tuple[QIColumn, ...]
    n_records: int
    suppressed: BoolArray
    class_of: IntArray
    class_sizes: IntArray
    class_labels: IntArray
    class_suppressed: BoolArray

    @property
    def quasi_identifiers(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    @property
    def n_suppressed(self) -> int:
        return int(self.suppressed.sum())

    @property
    def n_released(self) -> int:
        """Records not suppressed."""
        return self.n_records - self.n_suppressed

    @property
    def kept_sizes(self) -> IntArray:
        """Sizes of the classes of records that are not suppressed."""
        return self.class_sizes[~self.class_suppressed]

    def column(self, name: str) -> QIColumn:
        for c in self.columns:
            if c.name == name:
                return c
        raise UnknownColumnError([name], list(self.quasi_identifiers))


def interpret_release(
    original: pl.DataFrame,
    release: pl.DataFrame,
    *,
    quasi_identifiers: Sequence[str],
    hierarchies: Mapping[str, Hierarchy],
    numeric: Sequence[str] = (),
    value_ranges: Mapping[str, tuple[float, float]] | None = None,
    levels: Mapping[str, int] | None = None,
) -> Release:
    """Read ``release`` against ``original``, row by row.

    Parameters
    ----------
    original, release
        The original table and the release, with the same number of rows in the same order.
    quasi_identifiers
        Columns read as covered sets; each is a hierarchy column (named in
        ``hierarchies``) or a numeric column (named in ``numeric``).
    hierarchies
        Hierarchy of each non-numeric quasi-identifier.
    numeric
        Quasi-identifiers read as numbers (no hierarchy).
    value_ranges
        Per numeric attribute, ``(min, max)`` of its domain, the denominator of range
        widths (default: the original data's range).
    levels
        Per hierarchy attribute, the level to prefer when a released label exists at
        several levels (e.g. ``AnonymizationResult.transformation``).

    Raises
    ------
    UnknownColumnError
        If a quasi-identifier is missing from either table.
    DataError
        If the tables differ in length or a cell cannot be read.
    ValuesNotInHierarchyError
        If an original value, or a released label, is not in the column's hierarchy.

    Examples
    --------
    >>> h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name="x")
    >>> orig = pl.DataFrame({"x": ["a", "b", "c"], "y": [1, 5, 9]})
    >>> rel = pl.DataFrame({"x": ["ab", "ab", "*"], "y": ["[0-5]", "[0-5]", "*"]})
    >>> r = interpret_release(orig, rel, quasi_identifiers=["x", "y"],
    ...                       hierarchies={"x": h}, numeric=["y"])
    >>> r.class_sizes.tolist(), r.suppressed.tolist()
    ([2, 1], [False, False, True])
    >>> r.column("x").covered.tolist(), r.column("y").relative_width.tolist()
    ([2, 3], [0.5, 1.0])
    """
    qi = list(quasi_identifiers)
    if not qi:
        raise ParameterError("quasi_identifiers", "interpret_release", "non-empty", qi)
    for frame in (original, release):
        missing = [c for c in qi if c not in frame.columns]
        if missing:
            raise UnknownColumnError(missing, frame.columns)
    if original.height == 0:
        raise EmptyDataError("The original table")
    if release.height != original.height:
        raise DataError(
            f"The release has {release.height} rows but the original table {original.height}; "
            "rows are matched by position, so the release must keep every row (write "
            "suppressed records as '*' instead of dropping them)."
        )
    numeric_set = set(numeric)
    both = [c for c in qi if c in numeric_set and c in hierarchies]
    if both:
        raise ParameterError("numeric", "interpret_release", "columns without a hierarchy", both[0])
    ranges = dict(value_ranges or {})
    hints = dict(levels or {})
    stray = [c for c in ranges if c not in numeric_set or c not in qi]
    if stray:
        raise ParameterError(
            "value_ranges", "interpret_release", "keyed by numeric quasi-identifiers", stray[0]
        )
    for c, lv in hints.items():
        if c not in qi or c in numeric_set:
            raise ParameterError(
                "levels", "interpret_release", "keyed by hierarchy quasi-identifiers", c
            )
        if isinstance(lv, bool) or not isinstance(lv, (int, np.integer)) or lv < 0:
            raise ParameterError("levels", "interpret_release", "ints >= 0", lv)
    cols: list[QIColumn] = []
    for c in qi:
        if c in numeric_set:
            vr = ranges.get(c)
            if vr is not None and not (len(vr) == 2 and float(vr[0]) <= float(vr[1])):
                raise ParameterError(
                    "value_ranges", "interpret_release", "(min, max) pairs with min <= max", vr
                )
            cols.append(_numeric_column(c, original[c], release[c], vr))
        else:
            h = hierarchies.get(c)
            if h is None:
                raise ParameterError(
                    "hierarchies",
                    "interpret_release",
                    f"given for {c!r} (or list it in 'numeric')",
                    None,
                )
            cols.append(_hierarchy_column(c, original[c], release[c], h, hints.get(c)))
    uniq, sizes, inverse = group_codes(
        [c.cell for c in cols], [len(c.labels) for c in cols], with_inverse=True
    )
    assert inverse is not None
    class_suppressed = np.ones(sizes.shape[0], dtype=bool)
    for j, col in enumerate(cols):
        class_suppressed &= col.star[uniq[j]]
    return Release(
        columns=tuple(cols),
        n_records=original.height,
        suppressed=class_suppressed[inverse],
        class_of=inverse,
        class_sizes=sizes,
        class_labels=np.ascontiguousarray(uniq.T),
        class_suppressed=class_suppressed,
    )


# ----------------------------------------------------------------------------- matching
def match_classes(release: Release, points: Sequence[FloatArray]) -> tuple[IntArray, IntArray]:
    """Every (row, class) pair whose class contains the row's values in every column.

    Parameters
    ----------
    release
        The release.
    points
        One array per quasi-identifier, all of the same length: rows of values in each
        column's point space (:meth:`QIColumn.points`, :meth:`QIColumn.own_points`).

    Returns
    -------
    rows, classes
        Matching pairs. Classes are walked as a trie of their labels, column by column (the
        column reaching the fewest classes from the rows first), so the work grows with the
        partial matches, not with rows x classes.

    Examples
    --------
    >>> h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name="x")
    >>> orig = pl.DataFrame({"x": ["a", "b", "c"]})
    >>> r = interpret_release(orig, pl.DataFrame({"x": ["ab", "a", "*"]}),
    ...                       quasi_identifiers=["x"], hierarchies={"x": h})
    >>> rows, classes = match_classes(r, [r.column("x").own_points()])
    >>> sorted(zip(rows.tolist(), [r.columns[0].labels[r.class_labels[g, 0]] for g in classes]))
    [(0, '*'), (0, 'a'), (0, 'ab'), (1, '*'), (1, 'ab'), (2, '*')]
    """
    cols = release.columns
    if len(points) != len(cols):
        raise ParameterError("points", "match_classes", f"{len(cols)} arrays", len(points))
    n_rows = int(points[0].shape[0]) if cols else 0
    n_classes = int(release.class_sizes.shape[0])
    # Per column: for each distinct point, the labels (used by some class) containing it,
    # as CSR; and the pairs a walk starting with this column would create.
    csr: list[tuple[IntArray, IntArray, IntArray]] = []
    runs_of: list[tuple[IntArray, IntArray]] = []
    cost: list[float] = []
    for j, col in enumerate(cols):
        upts, inv = np.unique(points[j], return_inverse=True)
        inv = inv.reshape(-1).astype(np.int64)
        a, b = col.point_ranges(upts)
        classes_with = np.bincount(release.class_labels[:, j], minlength=len(col.labels))
        lab_ids = np.flatnonzero((classes_with > 0) & (b > a))
        runs = (b - a)[lab_ids]
        pair_pt = _ramp(a[lab_ids], runs)
        pair_lab = np.repeat(lab_ids, runs)[np.argsort(pair_pt, kind="stable")]
        ptr = np.zeros(upts.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(pair_pt, minlength=upts.shape[0]), out=ptr[1:])
        csr.append((inv, ptr, pair_lab))
        runs_of.append((a, b))
        # classes reachable from each point: a difference array over the label runs
        diff = np.zeros(upts.shape[0] + 1)
        np.add.at(diff, a[lab_ids], classes_with[lab_ids])
        np.add.at(diff, b[lab_ids], -classes_with[lab_ids])
        cost.append(float(np.cumsum(diff)[:-1][inv].sum()))
    if cols and n_rows and n_classes and _bitsets_pay(csr, cost, n_classes):
        return _match_bitsets(release, [c[0] for c in csr], runs_of)
    rows = np.arange(n_rows, dtype=np.int64)
    nodes = np.zeros(n_rows, dtype=np.int64)
    class_node = np.zeros(n_classes, dtype=np.int64)
    for j in sorted(range(len(cols)), key=lambda j: cost[j]):  # most selective first
        inv, ptr, pair_lab = csr[j]
        n_lab = len(cols[j].labels)
        # trie level: (parent node, label) -> child node
        keys = class_node * n_lab + release.class_labels[:, j]
        child_keys, class_node = np.unique(keys, return_inverse=True)
        class_node = class_node.reshape(-1).astype(np.int64)
        # expand (row, node) by the labels containing the row's point, keep trie edges
        pt = inv[rows]
        deg = ptr[pt + 1] - ptr[pt]
        rows = np.repeat(rows, deg)
        labs = pair_lab[_ramp(ptr[pt], deg)]
        want = np.repeat(nodes, deg) * n_lab + labs
        space = (int(child_keys[-1]) + 1) if child_keys.size else 0
        if space <= max(4 * want.shape[0], 1 << 16):  # dense lookup table
            table = np.full(space + 1, -1, dtype=np.int64)
            table[child_keys] = np.arange(child_keys.shape[0])
            pos = table[np.minimum(want, space)]
            hit = pos >= 0
        else:
            pos = np.searchsorted(child_keys, want)
            pos_c = np.minimum(pos, max(child_keys.shape[0] - 1, 0))
            hit = (pos < child_keys.shape[0]) & (child_keys[pos_c] == want)
        rows, nodes = rows[hit], pos[hit]
    # after the last column every node is one distinct class
    class_at_node = np.empty(n_classes, dtype=np.int64)
    class_at_node[class_node] = np.arange(n_classes)
    return rows, class_at_node[nodes]


#: Largest (distinct points x classes) matrix a column's bitsets are built from.
_BITSET_CELLS = 1 << 25


def _bitsets_pay(
    csr: Sequence[tuple[IntArray, IntArray, IntArray]], cost: Sequence[float], n_classes: int
) -> bool:
    """Whether per-column class bitsets beat the trie walk.

    The walk creates at least ``min(cost)`` (row, class) pairs, a few array operations
    each; the bitsets cost one AND of ``n_classes / 8`` bytes per row and column. When
    every column matches many classes (Mondrian boxes, overlapping ranges) the walk's
    partial matches explode while the bitsets stay small.
    """
    n_bytes = (n_classes + 63) // 64 * 8
    n_rows = int(csr[0][0].shape[0])
    if any((int(ptr.shape[0]) - 1) * n_classes > _BITSET_CELLS for _, ptr, _ in csr):
        return False
    return n_rows * n_bytes * len(csr) / 8 < 4 * min(cost)


def _match_bitsets(
    release: Release, inverse: Sequence[IntArray], runs: Sequence[tuple[IntArray, IntArray]]
) -> tuple[IntArray, IntArray]:
    """:func:`match_classes` by AND-ing, per row, one bitset of classes per column.

    For column ``j`` and each distinct point, the bitset of classes whose label contains
    it (a label covers the run ``[a, b)`` of sorted points: a difference array over the
    points, one column per class); a row's matches are the bits set in the AND over its
    columns. Rows are processed in blocks so memory stays bounded.
    """
    n_classes = int(release.class_sizes.shape[0])
    n_words = (n_classes + 63) // 64
    every = np.arange(n_classes)
    tables: list[npt.NDArray[np.uint64]] = []
    for j, (a, b) in enumerate(runs):
        lab = release.class_labels[:, j]
        diff = np.zeros((int(inverse[j].max(initial=-1)) + 2, n_words * 64), dtype=np.int8)
        diff[a[lab], every] = 1
        diff[b[lab], every] -= 1
        dense = np.cumsum(diff[:-1], axis=0, dtype=np.int8).astype(bool)
        packed = np.packbits(dense, axis=1, bitorder="little")
        tables.append(np.ascontiguousarray(packed).view(np.uint64))
    n_rows = int(inverse[0].shape[0])
    block = max(1, (1 << 22) // n_words)
    out_rows: list[IntArray] = []
    out_classes: list[IntArray] = []
    for start in range(0, n_rows, block):
        stop = min(n_rows, start + block)
        acc = tables[0][inverse[0][start:stop]]
        for j in range(1, len(tables)):
            acc &= tables[j][inverse[j][start:stop]]
        as_bytes = acc.view(np.uint8)
        r, byte = np.nonzero(as_bytes)
        bits = np.unpackbits(as_bytes[r, byte][:, None], axis=1, bitorder="little")
        hit_r, hit_bit = np.nonzero(bits)
        out_rows.append(r[hit_r].astype(np.int64) + start)
        out_classes.append(byte[hit_r].astype(np.int64) * 8 + hit_bit)
    return np.concatenate(out_rows), np.concatenate(out_classes)


def _ramp(starts: IntArray, lengths: IntArray) -> IntArray:
    """Concatenated ``arange(s, s + l)`` for each pair, vectorized."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets: IntArray = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    out: IntArray = (offsets + np.arange(total)).astype(np.int64)
    return out


def distinct_rows(columns: Sequence[IntArray | FloatArray]) -> tuple[IntArray, IntArray]:
    """Distinct rows of equal-length arrays: the first row holding each, and its count.

    Values are compared exactly (floats too); arrays of small non-negative whole numbers
    (domain positions) are used as codes directly.
    """
    codes: list[IntArray] = []
    cards: list[int] = []
    for arr in columns:
        if arr.size and arr.min() >= 0 and arr.max() < 1 << 31 and (arr == np.floor(arr)).all():
            inv = arr.astype(np.int64)
        else:
            _, inv = np.unique(arr, return_inverse=True)
            inv = inv.reshape(-1).astype(np.int64)
        codes.append(inv)
        cards.append(int(inv.max()) + 1 if inv.size else 1)
    _, counts, inverse = group_codes(codes, cards, with_inverse=True)
    assert inverse is not None
    first = np.full(counts.shape[0], -1, dtype=np.int64)
    n = inverse.shape[0]
    first[inverse[::-1]] = np.arange(n - 1, -1, -1)
    return first, counts
