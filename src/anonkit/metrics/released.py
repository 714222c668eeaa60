"""The equivalence classes of a released table, read from its released values.

A release is read as it is published: its equivalence classes are the records with equal
released quasi-identifier values (records whose every quasi-identifier is ``*`` are
suppressed and belong to no class), and each sensitive attribute is counted per class.
:func:`released_classes` builds that :class:`~anonkit.models.base.ClassSummary` from the
table, independently of how the release was made; :mod:`anonkit.metrics.levels` measures
and checks privacy models on it, and :mod:`anonkit.verify` re-checks every release with it.

The sensitive distributions a class is compared with (t-closeness, δ-disclosure,
β-likeness) are those of the *whole table*, suppressed records included, exactly as the
anonymization judged them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit._arrays import IntArray
from anonkit._frozen import FrozenDict
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import resolve_hierarchy
from anonkit.core.snapshot import group_codes
from anonkit.core.values import PYTHON_ROWS, as_text, encode_sensitive
from anonkit.exceptions import (
    POPULATION_TABLE,
    EmptyDataError,
    MissingValuesError,
    ParameterError,
    UnknownColumnError,
)
from anonkit.io.frames import to_polars
from anonkit.metrics.release import interpret_release
from anonkit.metrics.risk import population_class_sizes
from anonkit.models.base import ClassSummary, SensitiveColumn

__all__ = ["NULL_LABEL", "STAR", "ReleasedClasses", "read_as_released", "released_classes"]

OWNER = "check"
#: How a suppressed cell is written.
STAR = "*"
#: Label standing for a missing (null) quasi-identifier cell in class keys.
NULL_LABEL = "<null>"


@dataclass(frozen=True, eq=False)
class ReleasedClasses:
    """The equivalence classes of a released table.

    Attributes
    ----------
    quasi_identifiers
        The columns the classes are formed on.
    summary
        Class sizes, sensitive histograms (whole-table totals) and, when a population
        table was given, population counts; classes in :attr:`key_codes` order.
    n_records
        Records of the table.
    n_suppressed
        Records whose every quasi-identifier is ``*`` (in no class).
    key_labels
        Per quasi-identifier, its distinct released values in text order (a missing cell
        is ``<null>``).
    key_codes
        ``(n_classes, q)``: each class's released value of each quasi-identifier, as an
        index into :attr:`key_labels`; classes are in the order of their keys.
    """

    quasi_identifiers: tuple[str, ...]
    summary: ClassSummary
    n_records: int
    n_suppressed: int
    key_labels: tuple[tuple[str, ...], ...]
    key_codes: IntArray

    @property
    def n_classes(self) -> int:
        return self.summary.n_classes

    def key(self, index: int) -> dict[str, str]:
        """The released quasi-identifier values of class ``index`` (generalized values)."""
        row = self.key_codes[index]
        return {c: self.key_labels[j][int(row[j])] for j, c in enumerate(self.quasi_identifiers)}


def _names(value: str | Sequence[str], parameter: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, Sequence) or not all(isinstance(v, str) for v in value):
        raise ParameterError(parameter, OWNER, "a list of column names", value)
    return list(value)


def read_as_released(frame: pl.DataFrame, columns: Sequence[str]) -> pl.DataFrame:
    """``frame`` with ``columns`` read as ``normalize=True`` reads them (stripped; null,
    empty and ``**`` cells as ``*``): count the rows shown ``*`` on this."""
    return frame.with_columns([_normalized_expr(c) for c in columns])


def _normalized_expr(column: str) -> pl.Expr:
    """Released cells as text: stripped; null, empty and ``**`` cells read as ``*``."""
    text = pl.col(column).cast(pl.String).str.strip_chars()
    starish = text.is_null() | (text.str.replace_all(r"\*", "") == "")
    return pl.when(starish).then(pl.lit(STAR)).otherwise(text).alias(column)


def released_classes(
    frame: pl.DataFrame,
    quasi_identifiers: str | Sequence[str],
    sensitive: str | Sequence[str] = (),
    *,
    hierarchies: Mapping[str, Any] | None = None,
    population: Any = None,
    numeric: Sequence[str] = (),
    normalize: bool = False,
    starred_suppressed: bool = True,
    weight: str | None = None,
) -> ReleasedClasses:
    """Group a released table into equivalence classes and count its sensitive values.

    Parameters
    ----------
    frame
        The release (polars), one row per record.
    quasi_identifiers
        Columns whose released values form the classes. A record whose every
        quasi-identifier is exactly ``*`` is suppressed; a missing cell is a value of its
        own (as :func:`anonkit.metrics.classes.class_profile` counts), unless ``normalize``.
    sensitive
        Attributes to count per class. Labels are the attribute's hierarchy leaves when
        ``hierarchies`` has one (as :func:`anonkit.anonymize` encodes them), else its
        distinct values, in numeric order when all are numbers and text order otherwise.
    hierarchies
        Hierarchies (objects, file paths or builder tables) of sensitive attributes, for
        hierarchical t-closeness; with ``population``, also of quasi-identifiers.
    population
        A population table (pandas or polars) holding the quasi-identifiers in original
        form; each class then counts the population records its released values cover
        (k-map, δ-presence). Quasi-identifiers without a hierarchy and not ``numeric`` are
        matched exactly.
    numeric
        Quasi-identifiers released as numbers or ranges (matched against the population as
        numbers).
    normalize
        Read cells as :func:`anonkit.evaluate` does: stripped, with null, empty and ``**``
        cells suppressed (``*``).
    starred_suppressed
        Whether records whose every quasi-identifier is ``*`` are suppressed (the default)
        or form a class of fully generalized records like any other.
    weight
        A column holding how many records each row stands for (a release tallied by
        :meth:`anonkit.engines.base.Engine.tally`); by default each row is one record.

    Raises
    ------
    UnknownColumnError
        If a named column is missing.
    EmptyDataError
        If the table has no records.
    ParameterError
        If a column is both a quasi-identifier and sensitive.
    MissingValuesError, ValuesNotInHierarchyError
        If a sensitive attribute has missing values or values outside its hierarchy.
    """
    qi = _names(quasi_identifiers, "quasi_identifiers")
    sens = list(dict.fromkeys(_names(sensitive, "sensitive")))
    if not qi:
        raise ParameterError("quasi_identifiers", OWNER, "at least one column name", qi)
    missing = [c for c in dict.fromkeys([*qi, *sens]) if c not in frame.columns]
    if missing:
        raise UnknownColumnError(missing, frame.columns)
    both = [c for c in sens if c in qi]
    if both:
        raise ParameterError("sensitive", OWNER, "columns that are not quasi-identifiers", both[0])
    if frame.height == 0:
        raise EmptyDataError()
    specs = dict(hierarchies or {})
    w = (
        np.ones(frame.height, dtype=np.int64)
        if weight is None
        else frame[weight].to_numpy().astype(np.int64)
    )
    n_records = int(w.sum())

    # one code per distinct released value of each quasi-identifier (text order)
    # every column in the same few queries (polars runs the columns in parallel)
    texts = frame.select(
        _normalized_expr(c) if normalize else pl.col(c).cast(pl.String) for c in qi
    )
    text_columns: dict[str, pl.Series] = {c: texts[c] for c in qi}
    # the queries' fixed cost is about 2.5 ms for 8 columns; a release of 30,162 Adult
    # records is read from its tally, 28 to 355 rows in issue 19's cells
    if frame.height <= PYTHON_ROWS:
        star, labels, codes = _small_codes(texts, qi)
    else:
        star, labels, codes = _codes(texts, qi)
    if not starred_suppressed:
        star[:] = False
    kept = np.flatnonzero(~star)
    if kept.size:
        uniq_codes, sizes, inverse = group_codes(
            [col[kept] for col in codes], [len(lab) for lab in labels], with_inverse=True
        )
        assert inverse is not None
        if weight is not None:
            sizes = np.bincount(inverse, weights=w[kept], minlength=sizes.shape[0])
        key_codes = np.ascontiguousarray(uniq_codes.T).astype(np.int64)
    else:
        sizes = np.zeros(0, dtype=np.int64)
        inverse = np.zeros(0, dtype=np.int64)
        key_codes = np.zeros((0, len(qi)), dtype=np.int64)
    n_classes = int(sizes.shape[0])

    columns: dict[str, SensitiveColumn] = {}
    for s in sens:
        if s in specs:  # the hierarchy's leaves, as the anonymization encodes them
            h = resolve_hierarchy(s, specs[s], frame[s])
            value_labels, value_codes = encode_sensitive(frame[s], s, h)
        else:
            h = None
            value_labels, value_codes = _encode_values(frame[s], s)
        m = len(value_labels)
        hist = np.bincount(
            inverse * m + value_codes[kept], weights=w[kept], minlength=n_classes * m
        )
        columns[s] = SensitiveColumn(
            s,
            tuple(value_labels),
            hist.reshape(n_classes, m).astype(np.int64),
            np.bincount(value_codes, weights=w, minlength=m).astype(np.int64),
            h,
        )

    pop_counts = None
    pop_size = None
    if population is not None and n_classes:
        pop_counts, pop_size = _population_counts(
            text_columns, kept, inverse, n_classes, population, qi, specs, list(numeric)
        )
    elif population is not None:  # every record suppressed: no class, none counted
        pop_counts = np.zeros(0, dtype=np.int64)
    return ReleasedClasses(
        quasi_identifiers=tuple(qi),
        summary=ClassSummary(
            sizes.astype(np.int64),
            n_records,
            FrozenDict(columns),
            pop_counts,
            pop_size,
        ),
        n_records=n_records,
        n_suppressed=int(w[star].sum()),
        key_labels=tuple(labels),
        key_codes=key_codes,
    )


def _codes(
    texts: pl.DataFrame, qi: Sequence[str]
) -> tuple[npt.NDArray[np.bool_], list[tuple[str, ...]], list[IntArray]]:
    """Whether each row is suppressed (every quasi-identifier ``*``), and each column's
    labels (its distinct texts, null as :data:`NULL_LABEL`, in text order) and codes."""
    star = (
        texts.select(pl.all_horizontal((pl.col(c) == STAR).fill_null(False) for c in qi))
        .to_series()
        .to_numpy()
    )
    filled = texts.select(pl.col(c).fill_null(NULL_LABEL) for c in qi)
    uniques = filled.select(pl.col(c).unique().sort().implode() for c in qi).row(0)
    labels: list[tuple[str, ...]] = [tuple(u) for u in uniques]
    coded = filled.select(
        pl.col(c).cast(pl.Enum(list(lab))).to_physical().cast(pl.Int64)
        for c, lab in zip(qi, labels, strict=True)
    )
    return star, labels, [col.to_numpy() for col in coded.get_columns()]


def _small_codes(
    texts: pl.DataFrame, qi: Sequence[str]
) -> tuple[npt.NDArray[np.bool_], list[tuple[str, ...]], list[IntArray]]:
    """:func:`_codes` in Python, for a few rows (polars sorts strings by their UTF-8
    bytes, which is the order of their code points, as Python sorts them)."""
    n = texts.height
    star = np.ones(n, dtype=bool)
    labels: list[tuple[str, ...]] = []
    codes: list[IntArray] = []
    for c in qi:
        values = [NULL_LABEL if v is None else v for v in texts[c].to_list()]
        star &= np.fromiter((v == STAR for v in values), dtype=bool, count=n)
        distinct = tuple(sorted(set(values)))
        index = {v: i for i, v in enumerate(distinct)}
        labels.append(distinct)
        codes.append(np.fromiter((index[v] for v in values), dtype=np.int64, count=n))
    return star, labels, codes


def _encode_values(series: pl.Series, column: str) -> tuple[tuple[str, ...], IntArray]:
    """Labels (distinct values, numeric order when all are numbers, else text order) and
    the code of each record."""
    nulls = series.null_count() + (int(series.is_nan().sum()) if series.dtype.is_float() else 0)
    if nulls:
        raise MissingValuesError(column, nulls)
    text = as_text(series)
    uniq = text.unique().to_list()
    numbers = pl.Series(uniq, dtype=pl.String).cast(pl.Float64, strict=False).to_list()
    if all(v is not None and math.isfinite(v) for v in numbers):
        labels = [t for _, t in sorted(zip(numbers, uniq, strict=True))]
    else:
        labels = sorted(uniq)
    codes = text.cast(pl.Enum(labels)).to_physical().to_numpy().astype(np.int64)
    return tuple(labels), codes


def _population_counts(
    released: Mapping[str, pl.Series],
    kept: IntArray,
    inverse: IntArray,
    n_classes: int,
    population: Any,
    qi: Sequence[str],
    specs: Mapping[str, Any],
    numeric: Sequence[str],
) -> tuple[IntArray, int]:
    """Population records covered by each class, and the population's size.

    The release is read against a stand-in original (one leaf, or 0 for numeric columns)
    by :func:`~anonkit.metrics.release.interpret_release`: the classes and the sets of
    values their cells cover depend on the released labels only, and
    :func:`~anonkit.metrics.risk.population_class_sizes` matches the population against
    them (a population record matches a class when every released cell covers its value).
    """
    pop, _ = to_polars(population)
    missing = [c for c in qi if c not in pop.columns]
    if missing:
        raise UnknownColumnError(missing, pop.columns, POPULATION_TABLE)
    if pop.height == 0:
        raise EmptyDataError("The population table")
    n = next(iter(released.values())).len()
    stand_in: dict[str, pl.Series] = {}
    hs: dict[str, Hierarchy] = {}
    for c in qi:
        if c in numeric:
            stand_in[c] = pl.Series(c, np.zeros(n))
            continue
        if c in specs:
            h = resolve_hierarchy(c, specs[c], pop[c])
        else:  # exact values or '*': a one-level hierarchy over every value seen
            seen = released[c].filter(released[c] != STAR).drop_nulls()
            h = resolve_hierarchy(c, None, pl.concat([seen, pop[c].cast(pl.String)]))
        hs[c] = h
        stand_in[c] = pl.Series(c, [h.leaves[0]] * n, dtype=pl.String)
    r = interpret_release(
        pl.DataFrame(stand_in),
        pl.DataFrame(dict(released)),
        quasi_identifiers=list(qi),
        hierarchies=hs,
        numeric=[c for c in qi if c in numeric],
    )
    per_release_class = population_class_sizes(r, pop)
    first = np.full(n_classes, -1, dtype=np.int64)
    first[inverse[::-1]] = kept[::-1]  # a record of each class
    counts: IntArray = per_release_class[r.class_of[first]].astype(np.int64)
    return counts, pop.height
