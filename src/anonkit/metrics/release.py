"""Read a release, made by anonkit or by any other tool, against its original table.

A release is matched to the original table row by row (same number of rows, same order).
Each released quasi-identifier cell is read, once per distinct label, as a hierarchy
label, ``*``, a numeric range or an exact value (:mod:`anonkit.metrics.labels`), and
every column becomes a :class:`~anonkit.metrics.columns.QIColumn` of covered sets. A
:class:`Release` holds the columns, the equivalence classes of the release (records with
equal released values) and the suppressed records (every quasi-identifier ``*``).

:func:`anonkit.metrics.matching.match_classes` finds the release classes containing given
rows of original values; the KL divergence and journalist risk use it.

Reading does not judge whether each label covers its row's value: the same reading serves
rows that do not correspond one to one (a population matched against a stand-in
original). :func:`check_covered` judges it, where the rows do correspond.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from anonkit._arrays import BoolArray, IntArray
from anonkit._validation import Interval, Keyed, check, check_int
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.snapshot import group_codes
from anonkit.exceptions import (
    DataError,
    EmptyDataError,
    MissingValuesError,
    ParameterError,
    UncoveredValueError,
    UnknownColumnError,
)
from anonkit.metrics.classes import starred_suppressed
from anonkit.metrics.columns import QIColumn, hierarchy_column, numeric_column

__all__ = [
    "Release",
    "achieved_l_diversity",
    "check_covered",
    "check_value_ranges",
    "interpret_release",
]


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
    suppression_limit: float | None = None,
    owner: str = "interpret_release",
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
    suppression_limit
        The share of records the release could suppress: records at ``*`` in every
        quasi-identifier beyond it are a class (:func:`~anonkit.metrics.classes.
        starred_suppressed`); with none, they are suppressed records.
    owner
        The function the caller called, named in parameter errors.

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
        raise ParameterError("quasi_identifiers", owner, "non-empty", qi)
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
        raise ParameterError("numeric", owner, "columns without a hierarchy", both[0])
    ranges = check_value_ranges(value_ranges, qi, numeric, owner)
    hints = dict(levels or {})
    for c, lv in hints.items():
        if c not in qi or c in numeric_set:
            raise ParameterError("levels", owner, "keyed by hierarchy quasi-identifiers", c)
        top = hierarchies[c].max_level if c in hierarchies else None
        check_int(lv, f"levels[{c!r}]", owner, low=0, high=top)
    cols: list[QIColumn] = []
    for c in qi:
        if c in numeric_set:
            cols.append(numeric_column(c, original[c], release[c], ranges.get(c)))
        else:
            h = hierarchies.get(c)
            if h is None:
                raise ParameterError(
                    "hierarchies", owner, f"given for {c!r} (or list it in 'numeric')", None
                )
            cols.append(hierarchy_column(c, original[c], release[c], h, hints.get(c)))
    uniq, sizes, inverse = group_codes(
        [c.cell for c in cols], [len(c.labels) for c in cols], with_inverse=True
    )
    assert inverse is not None
    class_suppressed = np.ones(sizes.shape[0], dtype=bool)
    for j, col in enumerate(cols):
        class_suppressed &= col.star[uniq[j]]
    n_starred = int(sizes[class_suppressed].sum())
    if not starred_suppressed(n_starred, original.height, suppression_limit):
        class_suppressed[:] = False
    return Release(
        columns=tuple(cols),
        n_records=original.height,
        suppressed=class_suppressed[inverse],
        class_of=inverse,
        class_sizes=sizes,
        class_labels=np.ascontiguousarray(uniq.T),
        class_suppressed=class_suppressed,
    )


_BOUND = Interval(float)
_PAIR = "a (min, max) pair of finite numbers with min <= max"


def check_value_ranges(
    value_ranges: object,
    quasi_identifiers: Sequence[str],
    numeric: Sequence[str],
    owner: str = "check_value_ranges",
) -> dict[str, tuple[float, float]]:
    """``value_ranges`` as ``{column: (min, max)}`` floats, if it maps numeric
    quasi-identifiers to pairs of finite numbers with ``min <= max`` (``None``: none).

    Raises
    ------
    ParameterError
        Naming ``owner`` (the function the caller called) and, for a bad pair,
        ``value_ranges[column]``.

    Examples
    --------
    >>> check_value_ranges({"age": (0, 120)}, ["age", "sex"], ["age"])
    {'age': (0.0, 120.0)}
    >>> try:
    ...     check_value_ranges({"age": (120, 0)}, ["age"], ["age"], "evaluate")
    ... except ParameterError as exc:
    ...     print(exc.parameter, exc.owner, exc.got)
    value_ranges['age'] evaluate (120, 0)
    """
    if value_ranges is None:
        return {}
    check(value_ranges, Keyed("a mapping such as {'age': (0, 120)}"), "value_ranges", owner)
    assert isinstance(value_ranges, Mapping)
    ranges: dict[str, tuple[float, float]] = {}
    for c, vr in value_ranges.items():
        if c not in quasi_identifiers or c not in numeric:
            raise ParameterError("value_ranges", owner, "keyed by numeric quasi-identifiers", c)
        pair = isinstance(vr, (Sequence, np.ndarray)) and not isinstance(vr, (str, bytes))
        if not (pair and len(vr) == 2 and all(_BOUND.accepts(v) for v in vr)) or vr[0] > vr[1]:
            raise ParameterError(f"value_ranges[{c!r}]", owner, _PAIR, vr)
        ranges[c] = (float(vr[0]), float(vr[1]))
    return ranges


def check_covered(release: Release) -> None:
    """Refuse a release in which a row's label does not cover that row's original value.

    Call it only on a release read against its own original, row for row (as
    :func:`anonkit.evaluate.evaluate` reads one); a reading against a stand-in original
    (population matching) covers nothing by design. A hierarchy label covers the leaves
    below it, a range the numbers inside it (its open bounds excluded), ``*`` every value.
    Exact numbers in a numeric column are not judged: they are read as aggregates (the
    means or medians of microaggregation, Mondrian's means), which need not equal the
    record's value (:attr:`QIColumn.truthful` still counts them).

    The test is one comparison of integer domain positions per record and column.

    Raises
    ------
    UncoveredValueError
        Naming the first row with such a cell (the first such column on it), its label,
        and how many rows of each column miss their value; never an original value.

    Examples
    --------
    >>> h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name="x")
    >>> orig = pl.DataFrame({"x": ["a", "b", "c"]})
    >>> check_covered(interpret_release(orig, pl.DataFrame({"x": ["ab", "*", "c"]}),
    ...                                 quasi_identifiers=["x"], hierarchies={"x": h}))
    >>> shifted = interpret_release(orig, pl.DataFrame({"x": ["ab", "c", "ab"]}),
    ...                             quasi_identifiers=["x"], hierarchies={"x": h})
    >>> try:
    ...     check_covered(shifted)
    ... except UncoveredValueError as err:
    ...     print(err.column, err.row, err.label, err.counts)
    x 2 c {'x': 2}
    """
    counts: dict[str, int] = {}
    first: tuple[int, int] | None = None  # (row, column index)
    for j, col in enumerate(release.columns):
        missed = ~col.truthful
        if col.kind == "numeric":  # an exact number is an aggregate, not a range
            missed &= np.isnan(col.value)[col.cell]
        n_missed = int(np.count_nonzero(missed))
        if not n_missed:
            continue
        counts[col.name] = n_missed
        row = int(np.argmax(missed))
        if first is None or row < first[0]:
            first = (row, j)
    if first is not None:
        row, j = first
        col = release.columns[j]
        raise UncoveredValueError(col.name, row + 1, col.labels[int(col.cell[row])], counts)


def achieved_l_diversity(release: Release, values: pl.Series) -> dict[str, float]:
    """Smallest distinct and entropy l of ``values`` over the released classes of
    ``release`` (Machanavajjhala 2007); its suppressed records count in none."""
    kept = ~release.suppressed  # their values, stripped as every released cell is read
    text = values.cast(pl.String).str.strip_chars().filter(pl.Series(kept))
    if nulls := text.null_count():  # not a value
        raise MissingValuesError(values.name, nulls)
    if not kept.any():
        return {"distinct_l": 0.0, "entropy_l": 0.0}
    uniq = text.unique(maintain_order=True)
    codes = text.cast(pl.Enum(uniq)).to_physical().to_numpy().astype(np.int64)
    n_classes = int(release.class_sizes.shape[0])
    pairs, counts, _ = group_codes([release.class_of[kept], codes], [n_classes, uniq.len()])
    cls = pairs[0]
    distinct = np.bincount(cls, minlength=n_classes)
    sizes = np.bincount(cls, weights=counts, minlength=n_classes)
    p = counts / sizes[cls]
    entropy = np.bincount(cls, weights=-p * np.log2(p), minlength=n_classes)
    present = sizes > 0
    return {
        "distinct_l": float(distinct[present].min()),
        "entropy_l": float(np.exp2(entropy[present].min())),
    }
