"""The ``streaming`` engine: tables larger than memory, streamed from disk by polars.

The records are read twice, as for any engine (:mod:`anonkit.engines.base`), and what
those passes compute is kept as small as the data allows:

* **One counting pass** (``group_counts``): each quasi-identifier's value is cast to a
  polars ``Enum`` of its hierarchy's leaves; the leaf codes combine into one integer
  key per record (mixed radix), and the records are grouped by that key (and the
  sensitive values' text), which polars streams in far less memory and time than a
  group-by on eight text columns. The key (:func:`~anonkit.engines.counting.key_digits`,
  as the other engines pack theirs) is split back into codes on the grouped result.
  Tables whose keys would not fit 64 bits group by the codes.
* **One release pass** (``apply``, :func:`streaming_release_query`): each value is cast
  to a polars ``Enum`` of its hierarchy's leaves, whose physical code picks the label
  (a gather from the small table of labels) and the class's code at the chosen level;
  the level codes combine into one integer key per record, and a record is suppressed
  when its key is among the suppressed classes' keys. Replacing values with
  ``replace_strict`` or joining on the labels' text, as the in-memory engine's lazy
  query does, held most of the table in memory on the way (3.4 GB peak for 10M rows,
  against 0.3 GB this way; ``benchmarks/RESULTS.md``).

Values are read as they are. Text is normally stripped of surrounding blanks before it
is matched against a hierarchy, but stripping every cell cost more than the rest of the
counting pass together (10M rows, 8 columns: 5.8 s of CPU against 2.2 s without), so the
count strips only the columns where some value is not a leaf as it is (a second pass,
only then), and the release strips the columns its count stripped.

The release pass casts strictly: a value that is missing or not a leaf (the count saw
none, so the input changed between the passes) stops the pass, and the engine names the
column in an :class:`~anonkit.exceptions.InputChangedError`; :meth:`write` leaves no file.

Built hierarchies read their column's distinct values first (one pass over that column
each, which Parquet reads alone).
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit.core.hierarchy import Hierarchy
from anonkit.core.transform import SUPPRESSED, ReleasePlan
from anonkit.core.values import (
    MISSING_CODE,
    UNKNOWN_CODE,
    missing_expr,
    sensitive_labels,
    sensitive_text_expr,
    text_expr,
)
from anonkit.engines.counting import COUNT, KEY_SHIFT, Hierarchies, Names, key_digits, unpack_keys
from anonkit.engines.polars_engine import PolarsEngine, _lazy
from anonkit.exceptions import (
    EmptyDataError,
    InputChangedError,
    MissingValuesError,
    ParameterError,
    ValuesNotInHierarchyError,
)

__all__ = ["RecordRelease", "StreamingEngine", "record_release_query", "streaming_release_query"]

#: What a release query raises when a record is not what the first pass read.
_CHANGED = (pl.exceptions.InvalidOperationError, pl.exceptions.OutOfBoundsError)

_KEY = "__anonkit_class_key__"
_FLAG = "__anonkit_suppressed__"
_ROW = "__anonkit_row__"
_CLASS = "__anonkit_class__"


def _value_text(column: str, dtype: pl.DataType, strip: bool) -> pl.Expr:
    """``column``'s values as text, stripped of surrounding blanks when ``strip`` (as
    :func:`~anonkit.core.values.text_expr` reads them) or as they are."""
    if dtype == pl.String and not strip:
        return pl.col(column)
    return text_expr(column, dtype)


def _leaf_codes(column: str, dtype: pl.DataType, hierarchy: Hierarchy, strip: bool) -> pl.Expr:
    """Each value's row among ``hierarchy``'s leaves (UInt32), null when it is none."""
    leaves = pl.Enum(list(hierarchy.leaves))
    return _value_text(column, dtype, strip).cast(leaves, strict=False).to_physical()


def _marked_leaf_codes(
    column: str, dtype: pl.DataType, hierarchy: Hierarchy, strip: bool, out: pl.DataType
) -> pl.Expr:
    """:func:`_leaf_codes` as ``out`` integers, with ``MISSING_CODE`` for a missing value
    and ``UNKNOWN_CODE`` for one that is not a leaf (the codes a count checks)."""
    leaf = _leaf_codes(column, dtype, hierarchy, strip).cast(out)
    return (
        pl.when(missing_expr(column, dtype))
        .then(pl.lit(MISSING_CODE, dtype=out))
        .when(leaf.is_null())
        .then(pl.lit(UNKNOWN_CODE, dtype=out))
        .otherwise(leaf)
    )


def _strict_leaf_codes(
    column: str, dtype: pl.DataType, hierarchy: Hierarchy, strip: bool
) -> pl.Expr:
    """:func:`_leaf_codes`, but a value that is missing or not a leaf fails the query
    (polars' ``InvalidOperationError``) instead of becoming null."""
    leaves = list(hierarchy.leaves)
    # hierarchy cells are stripped, so a run of NULs longer than any leaf is none of them
    stand_in = "\x00" * (max((len(v) for v in leaves), default=0) + 1)
    text = _value_text(column, dtype, strip).fill_null(stand_in)
    return text.cast(pl.Enum(leaves)).to_physical()


def streaming_release_query(
    source: pl.LazyFrame, plan: ReleasePlan, strip: Collection[str] | None = None
) -> pl.LazyFrame:
    """The release of ``source`` under ``plan`` (as
    :func:`~anonkit.engines.polars_engine.release_query` makes it), in a query polars
    streams in little memory; see the module docstring.

    Parameters
    ----------
    source
        The records.
    plan
        The transformation to apply.
    strip
        The quasi-identifiers whose text is stripped of surrounding blanks before it is
        matched against the hierarchy (default: every one); the others are read as they
        are.

    Every value of a quasi-identifier must be a leaf of its hierarchy (the count that led
    to the plan checked it); running the query fails on one that is not, or is missing.
    """
    schema = source.collect_schema()
    leaf = [f"__anonkit_leaf{j}__" for j in range(len(plan.columns))]
    out = source.with_columns(
        _strict_leaf_codes(c, schema[c], h, strip is None or c in strip).alias(name)
        for c, h, name in zip(plan.columns, plan.hierarchies, leaf, strict=True)
    )
    # every label is gathered through the strict codes, so no value escapes the check;
    # a masked record gathers the label after the leaves' (``*``)
    mask = plan.suppresses and plan.suppressed == "mask"
    labels = []
    for j, (c, h, name) in enumerate(zip(plan.columns, plan.hierarchies, leaf, strict=True)):
        index = pl.col(name)
        table = plan.leaf_labels(j)
        if mask:
            index = pl.when(pl.col(_KEY)).then(pl.lit(len(h.leaves), pl.UInt32)).otherwise(index)
            table = [*table, SUPPRESSED]
        labels.append(pl.lit(pl.Series(table, dtype=pl.String)).gather(index).alias(c))
    temporary = [*leaf]
    if plan.suppresses:
        sizes = [len(h.labels(b)) for h, b in zip(plan.hierarchies, plan.levels, strict=True)]
        if math.prod(sizes) < 2**63:
            hit = _key_hit(plan, leaf, sizes)
        else:  # very wide tables: a join on the level codes
            level = [f"__anonkit_level{j}__" for j in range(len(leaf))]
            out = out.with_columns(
                pl.lit(pl.Series(plan.level_codes(j), dtype=pl.Int64))
                .gather(pl.col(name))
                .alias(level[j])
                for j, name in enumerate(leaf)
            )
            bad = plan.suppressed_frame(level, _FLAG).lazy()
            out = out.join(bad, on=level, how="left", maintain_order="left")
            hit = pl.col(_FLAG).fill_null(False)
            temporary += [*level, _FLAG]
        out = out.with_columns(hit.alias(_KEY))
        if not mask:  # left out
            out = out.filter(~pl.col(_KEY))
        temporary.append(_KEY)
    out = out.with_columns(labels)
    return out.drop([*temporary, *plan.drop])


def _key_hit(plan: ReleasePlan, leaf: Sequence[str], sizes: Sequence[int]) -> pl.Expr:
    """Whether each record's class (its level codes packed into one key) is suppressed."""
    radix = [math.prod(sizes[:j]) for j in range(len(sizes))]
    # per leaf, its level code already in its place in the key: one gather per column
    parts = [
        pl.lit(pl.Series(np.asarray(plan.level_codes(j), np.uint64) * np.uint64(radix[j]))).gather(
            pl.col(name)
        )
        for j, name in enumerate(leaf)
        if sizes[j] > 1  # a column generalized to one label adds nothing to the key
    ]
    classes = plan.suppressed_classes.astype(np.uint64)
    keys = (classes * np.asarray(radix, dtype=np.uint64)[:, None]).sum(axis=0)
    key = pl.sum_horizontal(parts) if parts else pl.lit(0, dtype=pl.UInt64)
    return key.is_in(pl.Series(keys, dtype=pl.UInt64).implode())


@dataclass(frozen=True, eq=False)
class RecordRelease:
    """A release that labels each record by its position (local recoding: Mondrian's
    classes), checked against what its records held when they were first read.

    Attributes
    ----------
    columns, hierarchies
        The quasi-identifiers.
    keys
        Per record, in the source's order, its leaf codes packed into one integer
        (:func:`record_keys`), as :meth:`StreamingEngine.record_codes` read them.
    classes
        Per record, its class (``0 .. n_classes - 1``).
    labels
        Per quasi-identifier, each class's released label.
    drop
        Columns left out of the release.
    """

    columns: tuple[str, ...]
    hierarchies: tuple[Hierarchy, ...]
    keys: npt.NDArray[np.int64]
    classes: npt.NDArray[np.uint32]
    labels: tuple[pl.Series, ...]
    drop: tuple[str, ...] = ()


def _record_digits(hierarchies: Sequence[Hierarchy]) -> tuple[list[int], list[int]]:
    digits = key_digits(hierarchies)
    if digits is None:
        raise ParameterError(
            "quasi_identifiers",
            "Mondrian",
            "columns whose leaf codes pack into one 62-bit key with engine='streaming' "
            "(fewer quasi-identifiers or smaller hierarchies; or engine='polars')",
            [h.name for h in hierarchies],
        )
    return digits


def record_keys(
    codes: Sequence[npt.NDArray[np.integer[Any]]], hierarchies: Sequence[Hierarchy]
) -> npt.NDArray[np.int64]:
    """Each record's leaf codes (one array per quasi-identifier) packed into one integer,
    as :func:`record_release_query` packs them again to check the records it releases."""
    _, steps = _record_digits(hierarchies)
    keys = np.zeros(len(codes[0]) if codes else 0, dtype=np.int64)
    for column, step in zip(codes, steps, strict=True):
        keys += (column.astype(np.int64) + KEY_SHIFT) * step
    return keys


def _packed_leaves(
    schema: pl.Schema, release: RecordRelease, strip: Collection[str], strict: bool
) -> list[pl.Expr]:
    """Per quasi-identifier, its leaf code times its place in the packed key (Int64)."""
    _, steps = _record_digits(release.hierarchies)
    leaf = _strict_leaf_codes if strict else _leaf_codes
    return [
        (leaf(c, schema[c], h, c in strip).cast(pl.Int64) + KEY_SHIFT) * step
        for c, h, step in zip(release.columns, release.hierarchies, steps, strict=True)
    ]


def record_release_query(
    source: pl.LazyFrame, release: RecordRelease, strip: Collection[str] | None = None
) -> pl.LazyFrame:
    """The release of ``source`` that labels the ``i``-th record with the labels of
    ``release.classes[i]``, in a query polars streams in little memory.

    Each record's leaf codes are packed again and compared with what the first pass read
    (``release.keys``); running the query fails on a record that differs, on a value
    that is missing or not a leaf, and on a record beyond the first pass's (a gather out
    of bounds), so no record is released under another record's labels. ``strip`` as
    for :func:`streaming_release_query`.
    """
    schema = source.collect_schema()
    columns = list(release.columns)
    stripped = set(columns if strip is None else strip)
    key = pl.sum_horizontal(_packed_leaves(schema, release, stripped, strict=True))
    row = pl.col(_ROW)
    read = pl.lit(pl.Series(release.keys, dtype=pl.Int64)).gather(row)
    n_classes = len(release.labels[0]) if release.labels else 0
    cls = (
        pl.when(key == read)
        .then(pl.lit(pl.Series(release.classes, dtype=pl.UInt32)).gather(row))
        .otherwise(pl.lit(n_classes, dtype=pl.UInt32))  # out of bounds: the labels fail
    )
    labels = [
        pl.lit(series.cast(pl.String)).gather(pl.col(_CLASS)).alias(c)
        for c, series in zip(columns, release.labels, strict=True)
    ]
    return (
        source.with_row_index(_ROW)
        .with_columns(cls.alias(_CLASS))
        .with_columns(labels)
        .drop([_ROW, _CLASS, *release.drop])
    )


def _same_source(counted: Any, source: Any) -> bool:
    """Whether ``source`` is the source remembered as ``counted`` (:func:`_remember`)."""
    if isinstance(counted, str):
        return isinstance(source, (str, Path)) and str(source) == counted
    return bool(counted() is source)


def _remember(source: Any) -> Any:
    """What identifies a source between the passes: a path by its text, an object by a
    weak reference."""
    return str(source) if isinstance(source, (str, Path)) else weakref.ref(source)


class StreamingEngine(PolarsEngine):
    """Count with polars' streaming engine, for tables larger than memory: the source is
    a lazy frame or a file path (Parquet, or CSV read as text); the release is a lazy
    query to sink (``sink_parquet``/``sink_csv``)."""

    name = "streaming"
    in_memory = False
    _fit_caches = ("_codes", "_sensitive", "_raw", "_releases")
    _collect: Literal["auto", "streaming"] = "streaming"

    def __init__(self) -> None:
        super().__init__()
        #: per source counted (:func:`_remember`), the quasi-identifiers read as they are
        self._raw: list[tuple[Any, frozenset[str]]] = []
        #: the release queries :meth:`apply` made, with what made them (to name the
        #: column when one fails)
        self._releases: dict[
            int, tuple[weakref.ref[pl.LazyFrame], Any, ReleasePlan | RecordRelease, Any]
        ] = {}

    def group_counts(
        self, source: Any, columns: Names, hierarchies: Hierarchies, sensitive: Names = ()
    ) -> pl.DataFrame:
        digits = key_digits(hierarchies)
        if digits is None:
            return super().group_counts(source, columns, hierarchies, sensitive)
        lf = _lazy(source)
        schema = lf.collect_schema()
        strip: set[str] = set()
        while True:
            grouped = self._grouped(lf, schema, columns, hierarchies, sensitive, digits, strip)
            coded = unpack_keys(grouped[_KEY].to_numpy(), columns, digits)
            # values that are not leaves as they are may be leaves once stripped
            again = {
                c
                for c in columns
                if c not in strip and schema[c] == pl.String and (coded[c] == UNKNOWN_CODE).any()
            }
            if not again:
                break
            strip |= again
        self._raw.append((_remember(source), frozenset(c for c in columns if c not in strip)))
        return pl.DataFrame(coded, schema=dict.fromkeys(columns, pl.Int64)).hstack(
            [*grouped.select(sensitive), grouped[COUNT].cast(pl.Int64)]
        )

    def _grouped(
        self,
        lf: pl.LazyFrame,
        schema: pl.Schema,
        columns: Sequence[str],
        hierarchies: Sequence[Hierarchy],
        sensitive: Sequence[str],
        digits: tuple[list[int], list[int]],
        strip: Collection[str],
    ) -> pl.DataFrame:
        """One counting pass: records grouped by their packed key (and sensitive text)."""
        parts = []
        for c, h, step in zip(columns, hierarchies, digits[1], strict=True):
            code = _marked_leaf_codes(c, schema[c], h, c in strip, pl.Int64())
            parts.append((code + KEY_SHIFT) * step)
        texts = [sensitive_text_expr(s, schema[s]) for s in sensitive]
        return (
            lf.select(pl.sum_horizontal(parts).alias(_KEY), *texts)
            .group_by([_KEY, *sensitive])
            .agg(pl.len().alias(COUNT))
            .collect(engine=self._collect)
        )

    def distinct(self, source: Any, column: str) -> list[str]:
        # the raw values' distinct ones first (no cell is stripped), then normalized: the
        # same list in the same order (first appearance) for 0.4 s of CPU instead of 0.9
        # on two columns of 10M rows
        lf = _lazy(source)
        dtype = lf.collect_schema()[column]
        raw = lf.select(pl.col(column).unique(maintain_order=True)).collect(engine=self._collect)
        values = raw.filter(~missing_expr(column, dtype)).select(text_expr(column, dtype))
        return [str(v) for v in values.to_series().unique(maintain_order=True).to_list()]

    def _stripped(self, source: Any, columns: Sequence[str]) -> frozenset[str]:
        """The columns of ``source`` to strip: all but those its count read as they are."""
        for counted, raw in reversed(self._raw):
            if _same_source(counted, source):
                return frozenset(c for c in columns if c not in raw)
        return frozenset(columns)

    def apply(self, source: Any, plan: ReleasePlan) -> pl.LazyFrame:
        strip = self._stripped(source, plan.columns)
        query = streaming_release_query(_lazy(source), plan, strip)
        self._releases[id(query)] = (weakref.ref(query), source, plan, strip)
        return query

    def record_codes(
        self, source: Any, columns: Sequence[str], hierarchies: Sequence[Hierarchy]
    ) -> list[npt.NDArray[np.int32]]:
        """Each record's leaf code of every quasi-identifier, in the source's order (for
        algorithms that work record by record: int32 arrays, 4 bytes a cell; one pass,
        and a second over the columns whose text must be stripped, as :meth:`group_counts`).

        Raises
        ------
        EmptyDataError, MissingValuesError, ValuesNotInHierarchyError
            As :meth:`count` raises them for the same data.
        """
        lf = _lazy(source)
        schema = lf.collect_schema()
        by_name = dict(zip(columns, hierarchies, strict=True))

        def read(names: Sequence[str], strip: bool) -> pl.DataFrame:
            exprs = [
                _marked_leaf_codes(c, schema[c], by_name[c], strip, pl.Int32()).alias(c)
                for c in names
            ]
            return lf.select(exprs).collect(engine=self._collect)

        frame = read(columns, False)
        if frame.height == 0:
            raise EmptyDataError()
        again = [c for c in columns if schema[c] == pl.String and (frame[c] == UNKNOWN_CODE).any()]
        if again:  # values that are not leaves as they are may be leaves once stripped
            frame = frame.with_columns(read(again, True).get_columns())
        self._raw.append((_remember(source), frozenset(c for c in columns if c not in again)))
        out = []
        for c in columns:
            codes = frame[c].to_numpy()
            if (codes < 0).any():
                missing = int((codes == MISSING_CODE).sum())
                if missing:
                    raise MissingValuesError(c, missing)
                values, total = self.unknown_values(source, c, by_name[c])
                raise ValuesNotInHierarchyError(c, values, total, by_name[c].leaves)
            out.append(codes)
        return out

    def sensitive_codes(
        self, source: Any, columns: Sequence[str], hierarchies: Mapping[str, Hierarchy]
    ) -> list[tuple[tuple[str, ...], npt.NDArray[np.int32]]]:
        """Per sensitive column, its labels (:func:`~anonkit.core.values.sensitive_labels`,
        as the counting engines order them) and each record's code among them, in the
        source's order (two passes over the column: its distinct values, its codes).

        Raises
        ------
        MissingValuesError, ValuesNotInHierarchyError
        """
        lf = _lazy(source)
        schema = lf.collect_schema()
        out = []
        for c in columns:
            text = sensitive_text_expr(c, schema[c])
            labels = sensitive_labels(self.distinct(source, c), c, hierarchies.get(c))
            codes = (
                lf.select(text.cast(pl.Enum(list(labels)), strict=False).to_physical())
                .collect(engine=self._collect)
                .to_series()
            )
            if codes.null_count():
                raise MissingValuesError(c, codes.null_count())
            out.append((labels, codes.cast(pl.Int32).to_numpy()))
        return out

    def apply_records(self, source: Any, release: RecordRelease) -> pl.LazyFrame:
        """The release of ``source`` by record (:func:`record_release_query`), reading
        the columns as :meth:`record_codes` read them."""
        strip = self._stripped(source, release.columns)
        query = record_release_query(_lazy(source), release, strip)
        self._releases[id(query)] = (weakref.ref(query), source, release, strip)
        return query

    def tally(self, frame: Any, columns: Sequence[str]) -> pl.DataFrame:
        try:
            return super().tally(frame, columns)
        except _CHANGED:
            changed = self._changed(frame)
            if changed is None:
                raise
        raise changed from None  # polars' message would show the values

    def tally_labels(
        self, frame: Any, columns: Sequence[str], labels: Mapping[str, Sequence[str]]
    ) -> pl.DataFrame:
        """:meth:`tally` of a release whose columns in ``labels`` hold only those labels
        (each its column's distinct released labels), grouped faster: each such value is
        cast to an ``Enum`` of its column's labels (text to code, one to one), the codes
        are packed into one integer and the records grouped by it and by the other
        columns' text, and the key is unpacked to the labels again. The classes are still
        those of the released text. A value outside the labels (or missing) falls back
        to :meth:`tally`, which groups the text as it is.
        """
        coded = [c for c in columns if c in labels]
        tables = [list(dict.fromkeys(labels[c])) for c in coded]
        radices = [len(t) for t in tables]
        if not coded or math.prod(radices) >= 2**62:
            return self.tally(frame, columns)
        steps = [math.prod(radices[j + 1 :]) for j in range(len(radices))]
        stand_in = "\x00" * (max(len(v) for t in tables for v in t) + 1)
        key = pl.sum_horizontal(
            pl.col(c).fill_null(stand_in).cast(pl.Enum(t)).to_physical().cast(pl.Int64) * step
            for c, t, step in zip(coded, tables, steps, strict=True)
        )
        rest = [c for c in columns if c not in labels]
        try:
            grouped = (
                _lazy(frame)
                .group_by(key.alias(_KEY), *rest)
                .agg(pl.len().cast(pl.Int64).alias(COUNT))
                .collect(engine=self._collect)
            )
        except _CHANGED:  # a value outside the labels, or a release query that failed
            return self.tally(frame, columns)
        keys = grouped[_KEY].to_numpy()
        decoded = {
            c: pl.Series(c, t, dtype=pl.String).gather((keys // step) % radix)
            for c, t, radix, step in zip(coded, tables, radices, steps, strict=True)
        }
        return grouped.with_columns(decoded.values()).select([*columns, COUNT])

    def write(self, release: Any, path: Path, *, separator: str | None = None) -> None:
        try:
            super().write(release, path, separator=separator)
        except _CHANGED:
            changed = self._changed(release)
            if changed is None:
                raise
        else:
            return
        raise changed from None

    def _changed(self, release: Any) -> InputChangedError | None:
        """Why the release query ``release`` failed, if its source changed since it was
        read (one more pass over the source, on failure only)."""
        entry = self._releases.get(id(release))
        if entry is None or entry[0]() is not release:
            return None
        _, source, plan, strip = entry
        lf = _lazy(source)
        schema = lf.collect_schema()
        if isinstance(plan, RecordRelease):
            return self._changed_records(lf, schema, plan, strip)
        bad = lf.select(
            _leaf_codes(c, schema[c], h, c in strip).is_null().sum().alias(c)
            for c, h in zip(plan.columns, plan.hierarchies, strict=True)
        ).collect(engine=self._collect)
        for c in plan.columns:
            if int(bad[c][0]):
                return InputChangedError(c, int(bad[c][0]))
        return None

    def _changed_records(
        self, lf: pl.LazyFrame, schema: pl.Schema, release: RecordRelease, strip: Any
    ) -> InputChangedError | None:
        """:meth:`_changed` of a release by record: records added or removed, else the
        first column whose values are missing, not leaves, or not those first read."""
        n = int(release.keys.shape[0])
        total = int(lf.select(pl.len()).collect(engine=self._collect).item())
        if total > n:
            return InputChangedError(None, total - n)
        radices, steps = _record_digits(release.hierarchies)
        read = pl.lit(pl.Series(release.keys, dtype=pl.Int64)).gather(pl.col(_ROW))
        exprs = []
        for c, h, radix, step in zip(
            release.columns, release.hierarchies, radices, steps, strict=True
        ):
            leaf = _leaf_codes(c, schema[c], h, c in strip).cast(pl.Int64)
            changed = leaf.is_null() | (leaf + KEY_SHIFT != (read // step) % radix)
            exprs.append(changed.sum().alias(c))
        bad = lf.with_row_index(_ROW).select(exprs).collect(engine=self._collect)
        for c in release.columns:
            if int(bad[c][0]):
                return InputChangedError(c, int(bad[c][0]))
        return InputChangedError(None, n - total) if total < n else None
