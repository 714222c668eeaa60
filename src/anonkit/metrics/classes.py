"""Equivalence-class profiles of a table: achieved k, class sizes, sample uniques."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import polars as pl

from anonkit._arrays import IntArray
from anonkit._frozen import FrozenDict
from anonkit.core.transform import all_starred
from anonkit.exceptions import EmptyDataError, UnknownColumnError

#: The count column of the class sizes' group-by (a reserved name, core.schema.RESERVED_PREFIX).
_SIZE = "__anonkit_size__"
_BUCKETS = ((1, 1), (2, 2), (3, 4), (5, 9), (10, 19), (20, 49), (50, 99), (100, None))


def size_histogram(sizes: IntArray) -> Mapping[str, int]:
    """Number of classes per size bucket (``1``, ``2``, ``3-4``, ... ``100+``)."""
    out: dict[str, int] = {}
    for lo, hi in _BUCKETS:
        sel = sizes >= lo if hi is None else (sizes >= lo) & (sizes <= hi)
        label = f"{lo}+" if hi is None else (str(lo) if lo == hi else f"{lo}-{hi}")
        out[label] = int(sel.sum())
    return FrozenDict(out)


@dataclass(frozen=True)
class ClassProfile:
    """Equivalence classes of a table over its quasi-identifiers.

    Attributes
    ----------
    n_records
        Records considered (suppressed records, all quasi-identifiers ``*``, excluded).
    suppressed
        Records whose quasi-identifiers are all ``*``; they match every individual and
        are not counted as a class.
    n_classes, min_size, max_size, mean_size
        Number of classes and their sizes; ``min_size`` is the achieved k.
    sample_uniques
        Records that are alone in their class.
    below_k, classes_below_k
        Records (and classes) in classes smaller than the requested k.
    histogram
        Classes per size bucket.
    """

    n_records: int
    suppressed: int
    n_classes: int
    min_size: int
    max_size: int
    mean_size: float
    sample_uniques: int
    k: int
    below_k: int
    classes_below_k: int
    histogram: Mapping[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {
            f.name: dict(self.histogram) if f.name == "histogram" else getattr(self, f.name)
            for f in fields(self)
        }


def profile_sizes(sizes: IntArray, *, k: int = 1, suppressed: int = 0) -> ClassProfile:
    """Profile from class sizes (released classes only)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    n = int(sizes.sum())
    small = sizes < k
    return ClassProfile(
        n_records=n,
        suppressed=suppressed,
        n_classes=int(sizes.size),
        min_size=int(sizes.min()) if sizes.size else 0,
        max_size=int(sizes.max()) if sizes.size else 0,
        mean_size=float(n / sizes.size) if sizes.size else 0.0,
        sample_uniques=int((sizes == 1).sum()),
        k=k,
        below_k=int(sizes[small].sum()),
        classes_below_k=int(small.sum()),
        histogram=size_histogram(sizes),
    )


def tally_sizes(
    tally: pl.DataFrame, quasi_identifiers: Sequence[str], weight: str, *, starred: bool = True
) -> tuple[IntArray, int]:
    """The class sizes of a release's tally (a row per released combination, the records
    it stands for in ``weight``), and the records suppressed (``*`` in every
    quasi-identifier), which form no class; with ``starred=False`` (an algorithm that
    suppresses no record) those form a class."""
    star = all_starred(quasi_identifiers)
    if not starred:
        star = pl.lit(False)
    sizes = tally.filter(~star).group_by(quasi_identifiers).agg(pl.col(weight).sum())[weight]
    return sizes.to_numpy().astype(np.int64), int(tally.filter(star)[weight].sum())


def class_profile(
    frame: pl.DataFrame, quasi_identifiers: Sequence[str], *, k: int = 1, starred: bool = True
) -> ClassProfile:
    """Group ``frame`` by its quasi-identifiers and profile the classes.

    Records whose quasi-identifiers are all ``*`` are counted as suppressed, not as a
    class, unless ``starred`` is false (the release of an algorithm that suppresses no
    record: they are a class generalized to the top). Null is a value of its own.

    Raises
    ------
    UnknownColumnError
        If a quasi-identifier is not a column.
    EmptyDataError
        If the table has no records.
    """
    missing = [c for c in quasi_identifiers if c not in frame.columns]
    if missing:
        raise UnknownColumnError(missing, frame.columns)
    if frame.height == 0:
        raise EmptyDataError()
    qi = list(quasi_identifiers)
    text = frame.select([pl.col(c).cast(pl.String) for c in qi])
    all_star = all_starred(qi)
    if not starred:
        all_star = pl.lit(False)
    suppressed = int(text.select(all_star.sum()).item())
    kept = text.filter(~all_star)
    sizes = (
        kept.group_by(qi).len(_SIZE)[_SIZE].to_numpy().astype(np.int64)
        if kept.height
        else np.zeros(0, dtype=np.int64)
    )
    return profile_sizes(sizes, k=k, suppressed=suppressed)


def starred_suppressed(n_starred: int, n_records: int, suppression_limit: float | None) -> bool:
    """Whether a release's ``n_starred`` records at ``*`` in every quasi-identifier are
    suppressed ones rather than a class generalized to the top: not when they are more
    than ``suppression_limit`` (a share) allows; with no limit known, they are.
    (Verification knows what the algorithm suppressed; a measure of a release alone
    knows only this.)

    Examples
    --------
    >>> starred_suppressed(3, 100, 0.05), starred_suppressed(13, 13, 0.0)
    (True, False)
    >>> starred_suppressed(13, 13, None)
    True
    """
    if n_starred == 0 or suppression_limit is None:
        return True
    return n_starred <= math.floor(suppression_limit * n_records + 1e-9)


def starred_rows(frame: pl.DataFrame, quasi_identifiers: Sequence[str]) -> int:
    """How many rows of ``frame`` show ``*`` in every quasi-identifier (0 when one of
    them is missing: the measure that follows names it)."""
    if any(c not in frame.columns for c in quasi_identifiers):
        return 0
    return int(frame.select(all_starred(quasi_identifiers).sum()).item())
