"""Read the cells of a release and of its original table, one distinct value at a time.

Each released quasi-identifier cell is read as one of

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

This module reads single labels (:func:`parse_interval`, :func:`is_star`,
:func:`parse_leaf_range`) and whole columns into codes (:func:`label_codes` for released
cells, :func:`leaf_codes` and :func:`read_numbers` for original values), with specific
errors for missing and unknown values; :mod:`anonkit.metrics.columns` turns them into
covered sets.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import polars as pl

from anonkit._arrays import FloatArray, IntArray
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.values import as_text
from anonkit.exceptions import DataError, MissingValuesError, ValuesNotInHierarchyError

__all__ = [
    "STAR",
    "Interval",
    "is_star",
    "label_codes",
    "leaf_codes",
    "leaf_numbers",
    "parse_interval",
    "parse_leaf_range",
    "read_numbers",
]


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


def read_numbers(values: pl.Series, column: str) -> FloatArray:
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
    if series.dtype.is_numeric() and not series.dtype.is_decimal():  # decimals: as text
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


def leaf_codes(series: pl.Series, h: Hierarchy, column: str) -> IntArray:
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


def label_codes(series: pl.Series) -> tuple[IntArray, list[str]]:
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


def leaf_numbers(h: Hierarchy) -> FloatArray | None:
    """The leaves as numbers, or ``None`` if some leaf is not a number."""
    out = np.empty(len(h.leaves))
    for i, leaf in enumerate(h.leaves):
        if not _EXACT.match(leaf):
            return None
        out[i] = float(leaf)
    return out


def parse_leaf_range(label: str, leaf_index: Mapping[str, int]) -> tuple[int, int] | None:
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
