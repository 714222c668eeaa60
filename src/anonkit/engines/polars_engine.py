"""The polars engine (``polars``): in memory; the streaming engine builds on it.

Both run the same lazy queries. Counting is one ``select`` of code expressions
(:func:`~anonkit.core.values.code_expr`) followed by a ``group_by(...).len()``; the release
replaces each quasi-identifier's values by their labels (a lookup in a table with one
row per leaf) and marks the records of suppressed classes with a join on the small table
of those classes. Neither step needs the records as Python objects. The in-memory engine
collects with polars' default engine and returns frames; on a frame in memory it codes
each column once and writes the release from those codes (the suppressed records found
by packed keys, and the release's tally counted beside it: :mod:`.written`). The
streaming engine collects counts with polars' streaming engine and returns the release
as a lazy query, for the caller to sink to a file.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit._atomic import atomic_path
from anonkit._formats import table_format
from anonkit.core.encoding import EncodedTable
from anonkit.core.grouping import compiled_ready, first_of_runs
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.transform import SUPPRESSED, ReleasePlan
from anonkit.core.values import (
    code_expr,
    missing_expr,
    sensitive_text_expr,
    string_codes,
    text_expr,
)
from anonkit.engines.base import GroupingEngine, sample_step
from anonkit.engines.counting import (
    COUNT,
    KEY_SHIFT,
    Hierarchies,
    Names,
    Specs,
    detail_table,
    key_digits,
    packed_digits,
    unpack_block,
    unpack_keys,
)
from anonkit.engines.written import CodedColumn, release_tally, suppressed_rows
from anonkit.io.write import (
    escape_formulas_lazy,
    field_separator,
    output_format,
    refusing_nul_cells,
)

__all__ = ["PolarsEngine", "release_query"]

_FLAG = "__anonkit_suppressed__"
_Frame = TypeVar("_Frame", pl.DataFrame, pl.LazyFrame)


def _lazy(source: Any) -> pl.LazyFrame:
    if isinstance(source, pl.LazyFrame):
        return source
    if isinstance(source, pl.DataFrame):
        return source.lazy()
    if isinstance(source, (str, Path)):
        # a Parquet input, or a file an engine wrote (a release, its staging copy): CSV,
        # TSV or Parquet; CSV inputs reach the engines scanned already (streamed_source)
        path = Path(source)
        if table_format(path) == "parquet":
            return pl.scan_parquet(path)
        separator = "\t" if path.suffix.lower() == ".tsv" else ","
        return pl.scan_csv(path, separator=separator, infer_schema=False)
    kind = type(source).__name__
    raise TypeError(f"the polars engines read polars frames, lazy frames or paths, not {kind}")


def _first_seen(lf: pl.LazyFrame, column: str) -> pl.LazyFrame:
    """The distinct values of ``lf``'s one column, in order of first appearance, by each
    value's first row: ``unique(maintain_order=True)`` after the when/then of a boolean's
    or a float's text (:func:`~anonkit.core.values.text_expr`) gave another order in about
    1 call of 100 (polars 2.1), and a builder's leaves with it."""
    first = f"{column}__first"  # never the column's own name
    return (
        lf.with_row_index(first)
        .group_by(column)
        .agg(pl.col(first).min())
        .sort(first)
        .select(column)
    )


def release_query(source: pl.LazyFrame, plan: ReleasePlan) -> pl.LazyFrame:
    """The release of ``source`` under ``plan``, as a lazy query.

    Every value of a quasi-identifier must be a leaf of its hierarchy (the count that
    led to the plan checked it).
    """
    schema = source.collect_schema()
    labels = []
    for j, (c, h) in enumerate(zip(plan.columns, plan.hierarchies, strict=True)):
        labels.append(
            text_expr(c, schema[c])
            .replace_strict(list(h.leaves), plan.leaf_labels(j), return_dtype=pl.String)
            .alias(c)
        )
    out = source.with_columns(labels)
    if plan.suppresses:
        cols = list(plan.columns)
        bad = pl.LazyFrame(
            {c: list(v) for c, v in zip(cols, plan.suppressed_labels, strict=True)},
            schema=dict.fromkeys(cols, pl.String),
        ).with_columns(pl.lit(True).alias(_FLAG))
        out = out.join(bad, on=cols, how="left", maintain_order="left")
        out = _suppress(out, pl.col(_FLAG).fill_null(False), plan).drop(_FLAG)
    return out.drop(list(plan.drop))


def _suppress(out: _Frame, hit: pl.Expr, plan: ReleasePlan) -> _Frame:
    """``out`` with the records ``hit`` marks masked (``*``) or left out, as ``plan`` says."""
    if plan.suppressed == "drop":
        return out.filter(~hit)
    star = pl.lit(SUPPRESSED, dtype=pl.String)
    return out.with_columns(
        pl.when(hit).then(star).otherwise(pl.col(c)).alias(c) for c in plan.columns
    )


def _packed_counts(
    coded: Sequence[pl.Series], columns: Sequence[str], hierarchies: Sequence[Hierarchy]
) -> pl.DataFrame | None:
    """The grouped count of level-0 codes through one packed int64 key per record
    (:func:`~anonkit.engines.counting.key_digits`): grouping one integer column is much
    faster than grouping many (measured on 1,000,000 Adult rows). ``None`` when the key
    would not fit."""
    digits = key_digits(hierarchies)
    if digits is None:
        return None
    return _group_packed(coded, columns, digits)


#: From this many records on, :func:`_group_packed` packs and groups in one polars query
#: (in parallel, without copying the codes into numpy); below it, numpy's fixed cost is
#: lower.
_POLARS_ROWS = 1 << 16


def _packed_key_counts(
    coded: Sequence[pl.Series], digits: tuple[list[int], list[int]]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The distinct packed keys of the code columns ``coded`` (each code from
    ``MISSING_CODE`` up, below its radix in ``digits`` less ``KEY_SHIFT``), sorted, and
    the records of each."""
    n = coded[0].len() if coded else 0
    if n >= _POLARS_ROWS:
        names = [f"c{j}" for j in range(len(coded))]
        frame = pl.DataFrame(dict(zip(names, coded, strict=True)))
        key = pl.sum_horizontal(
            (pl.col(c).cast(pl.Int64) + KEY_SHIFT) * step
            for c, step in zip(names, digits[1], strict=True)
        )
        grouped = (
            frame.lazy()
            .select(key.alias("k"))
            .group_by("k")
            .agg(pl.len().cast(pl.Int64).alias(COUNT))
            .sort("k")
            .collect()
        )
        return grouped["k"].to_numpy(), grouped[COUNT].to_numpy()
    if n and compiled_ready():  # a pass per column, one to count (Adult: 0.6 of numpy's time)
        from anonkit.engines._key_kernel import add_digit, count_runs

        packed = np.zeros(n, dtype=np.int64)
        for series, step in zip(coded, digits[1], strict=True):
            codes = np.ascontiguousarray(series.to_numpy(), dtype=np.int64)
            add_digit(packed, codes, step, KEY_SHIFT)
        packed.sort()
        distinct: npt.NDArray[np.int64]
        runs: npt.NDArray[np.int64]
        distinct, runs = count_runs(packed)
        return distinct, runs
    packed = np.zeros(n, dtype=np.int64)
    for series, step in zip(coded, digits[1], strict=True):
        packed += (series.to_numpy() + KEY_SHIFT) * step
    # every record counts once: the runs of the sorted keys are the groups (half the time
    # of a general grouping, which sorts row numbers along to sum arbitrary counts)
    packed.sort()
    starts = np.flatnonzero(first_of_runs(packed))
    return packed[starts], np.diff(starts, append=n)


def _group_packed(
    coded: Sequence[pl.Series],
    columns: Sequence[str],
    digits: tuple[list[int], list[int]],
) -> pl.DataFrame:
    """The grouped count of the code columns ``coded`` by one packed key each
    (:func:`_packed_key_counts`), as a frame of codes and counts."""
    keys, counts = _packed_key_counts(coded, digits)
    return pl.DataFrame({**unpack_keys(keys, columns, digits), COUNT: counts})


def _sensitive_codes(
    frame: pl.DataFrame, sensitive: Sequence[str]
) -> tuple[list[list[str]], list[pl.Series], list[bool]]:
    """Each sensitive column's distinct normalized texts (sorted), per record the index
    of its text among them (``len(values)`` where it is missing), and whether those texts
    are the values as they stand (a text column without blanks to strip: see
    :attr:`SensitiveCodes.verbatim <anonkit.core.encoding.SensitiveCodes.verbatim>`). Two
    queries for all the columns, a third for a text column with blanks to strip."""
    if not sensitive:
        return [], [], []
    schema = frame.schema
    # A String column whose distinct values carry no blanks to strip is its own text:
    # its values are read once (about a third of the time of normalizing every cell, on
    # Adult's occupation), and coded as they stand.
    raw = [schema[s] == pl.String for s in sensitive]
    texts = [
        pl.col(s) if as_is else sensitive_text_expr(s, schema[s])
        for s, as_is in zip(sensitive, raw, strict=True)
    ]
    distinct = frame.select(t.drop_nulls().unique().sort().implode() for t in texts).row(0)
    values = [list(v) for v in distinct]
    for i, s in enumerate(sensitive):
        found = pl.Series(values[i], dtype=pl.String) if raw[i] else None
        if found is not None and (found != found.str.strip_chars()).any():
            raw[i] = False
            texts[i] = sensitive_text_expr(s, schema[s])  # padded: normalize every cell
            values[i] = frame.select(texts[i].drop_nulls().unique().sort()).to_series().to_list()
    codes = frame.select(
        t.cast(pl.Enum(v)).to_physical().cast(pl.Int64).fill_null(len(v))
        for t, v in zip(texts, values, strict=True)
    )
    return values, codes.get_columns(), raw


def _detail_digits(
    hierarchies: Sequence[Hierarchy], values: Sequence[Sequence[str]]
) -> tuple[list[int], list[int]] | None:
    """The packed key's digits for the quasi-identifiers' codes and then the sensitive
    columns' (:func:`_sensitive_codes`, the last code for missing), or ``None`` when the
    key would not fit."""
    radices = [len(h.leaves) + KEY_SHIFT for h in hierarchies]
    return packed_digits([*radices, *(len(v) + 1 + KEY_SHIFT for v in values)])


def _packed_detail_counts(
    frame: pl.DataFrame,
    coded: Sequence[pl.Series],
    columns: Sequence[str],
    hierarchies: Sequence[Hierarchy],
    sensitive: Sequence[str],
) -> pl.DataFrame | None:
    """:func:`_packed_counts` with the sensitive columns' normalized text (null where
    missing) grouped too: each text is coded by its distinct values
    (:func:`_sensitive_codes`) and packed into the key, then written back from the codes.
    ``None`` when the key would not fit."""
    values, sens, _ = _sensitive_codes(frame, sensitive)
    digits = _detail_digits(hierarchies, values)
    if digits is None:
        return None
    grouped = _group_packed([*coded, *sens], [*columns, *sensitive], digits)
    return grouped.with_columns(
        pl.Series(s, [*v, None], dtype=pl.String).gather(grouped[s]).alias(s)
        for s, v in zip(sensitive, values, strict=True)
    )


def _present(
    codes: npt.NDArray[np.int64], leaves: list[str]
) -> tuple[npt.NDArray[np.int64], list[str]]:
    """Leaf ``codes`` renumbered to index the leaves that occur among them, and those
    leaves (in the hierarchy's order)."""
    present = np.flatnonzero(np.bincount(codes, minlength=len(leaves)))
    index = np.zeros(len(leaves), dtype=np.int64)
    index[present] = np.arange(present.size, dtype=np.int64)
    return index[codes], [leaves[j] for j in present]


@functools.lru_cache(maxsize=256)
def _leaf_enum(leaves: tuple[str, ...]) -> pl.Enum:
    """The ``Enum`` of a hierarchy's leaves (building one costs about 0.3 ms for Adult's
    74 ages; the same hierarchies come back call after call)."""
    return pl.Enum(list(leaves))


def _leaf_codes(
    frame: pl.DataFrame, columns: Sequence[tuple[str, Hierarchy]]
) -> list[pl.Series | None]:
    """Level-0 codes of String columns whose every value is a leaf, as they stand, in one
    query (an ``Enum`` cast per column, run in parallel); ``None`` for a column with a
    missing value or a value that is not exactly a leaf, which
    :func:`~anonkit.core.values.string_codes` then codes (normalizing, and marking what
    it cannot code). Leaves are stripped text (:class:`~anonkit.core.hierarchy.Hierarchy`),
    so a value that is exactly a leaf gets the same code on either path."""
    if not columns:
        return []
    casts = [
        pl.col(c).cast(_leaf_enum(h.leaves), strict=False).to_physical().cast(pl.Int64)
        for c, h in columns
    ]
    coded = frame.select(casts)
    out: list[pl.Series | None] = []
    for series in coded.get_columns():
        out.append(series if series.null_count() == 0 else None)
    return out


class PolarsEngine(GroupingEngine):
    """Count and release with polars, in memory (polars frames; pandas frames are
    converted before they reach an engine).

    A frame in memory is encoded column by column once: the level-0 codes the count
    groups are kept (as polars columns, for the engine's lifetime, which is one fit) and
    the release gathers each column's labels from them instead of reading the text again.
    Lazy queries and files run the same queries as the streaming engine.
    """

    name = "polars"
    in_memory = True
    _fit_caches: tuple[str, ...] = ("_codes", "_sensitive")
    #: The polars engine that runs the queries.
    _collect: Literal["auto", "streaming"] = "auto"

    def __init__(self) -> None:
        # per frame, column and hierarchy: the codes, and whether they were read off the
        # values as they stand (every value exactly a leaf) rather than normalized first
        self._codes: dict[
            tuple[int, str, int],
            tuple[weakref.ref[pl.DataFrame], weakref.ref[Hierarchy], pl.Series, bool],
        ] = {}
        # per frame and sensitive column the detail count coded one to one (verbatim)
        self._sensitive: dict[tuple[int, str], tuple[weakref.ref[pl.DataFrame], CodedColumn]] = {}

    def _column_codes(self, frame: pl.DataFrame, column: str, hierarchy: Hierarchy) -> pl.Series:
        """Level-0 codes of ``column`` (``UNKNOWN_CODE`` / ``MISSING_CODE`` for values
        outside the hierarchy / missing), computed once per frame, column and hierarchy."""
        return self._frame_codes(frame, [column], [hierarchy])[0]

    def _frame_codes(
        self, frame: pl.DataFrame, columns: Sequence[str], hierarchies: Sequence[Hierarchy]
    ) -> list[pl.Series]:
        """:meth:`_column_codes` of several columns, the missing ones in one query (polars
        runs the columns in parallel, and each query has a fixed cost)."""
        keys = [(id(frame), c, id(h)) for c, h in zip(columns, hierarchies, strict=True)]
        todo = []
        for j, key in enumerate(keys):
            known = self._codes.get(key)
            # ids are reused once an object is gone: the entry must name these objects
            if known is None or known[0]() is not frame or known[1]() is not hierarchies[j]:
                todo.append(j)
        if todo:
            schema = frame.schema
            # text columns through their distinct values; the others in one query
            texts = [j for j in todo if schema[columns[j]] == pl.String]
            rest = [j for j in todo if schema[columns[j]] != pl.String]
            fast = _leaf_codes(frame, [(columns[j], hierarchies[j]) for j in texts])
            found: dict[int, tuple[pl.Series, bool]] = {}
            for j, codes in zip(texts, fast, strict=True):
                # missing values, padding or values outside the hierarchy: the general path
                found[j] = (
                    (codes, True)
                    if codes is not None
                    else (string_codes(frame[columns[j]], hierarchies[j]), False)
                )
            if rest:
                exprs = [code_expr(columns[j], schema[columns[j]], hierarchies[j]) for j in rest]
                coded = frame.select(exprs).get_columns()
                found.update((j, (codes, False)) for j, codes in zip(rest, coded, strict=True))
            for j in todo:
                frame_ref, tree_ref = weakref.ref(frame), weakref.ref(hierarchies[j])
                self._codes[keys[j]] = (frame_ref, tree_ref, *found[j])
        return [self._codes[key][2] for key in keys]

    def _verbatim(self, frame: pl.DataFrame, column: str, hierarchy: Hierarchy) -> bool:
        """Whether :meth:`_column_codes` read ``column``'s codes off its values as they
        stand (each exactly a leaf), not normalized first; false when not coded yet."""
        known = self._codes.get((id(frame), column, id(hierarchy)))
        return known is not None and known[0]() is frame and known[3]

    def group_counts(
        self, source: Any, columns: Names, hierarchies: Hierarchies, sensitive: Names = ()
    ) -> pl.DataFrame:
        if isinstance(source, pl.DataFrame):
            coded = self._frame_codes(source, columns, hierarchies)
            if sensitive:
                packed = _packed_detail_counts(source, coded, columns, hierarchies, sensitive)
            else:
                packed = _packed_counts(coded, columns, hierarchies)
            if packed is not None:
                return packed
            table = pl.DataFrame(coded)
            if sensitive:
                texts = source.select(sensitive_text_expr(s, source.schema[s]) for s in sensitive)
                table = table.hstack(texts)
            count = pl.len().cast(pl.Int64).alias(COUNT)
            return table.group_by([*columns, *sensitive]).agg(count)
        lf = _lazy(source)
        schema = lf.collect_schema()
        exprs = [code_expr(c, schema[c], h) for c, h in zip(columns, hierarchies, strict=True)]
        exprs += [sensitive_text_expr(s, schema[s]) for s in sensitive]
        query = lf.select(exprs).group_by([*columns, *sensitive]).agg(pl.len().alias(COUNT))
        return query.collect(engine=self._collect).cast({COUNT: pl.Int64})

    def _direct_detail(
        self, source: Any, columns: Names, hierarchies: Hierarchies, sensitive: Specs
    ) -> EncodedTable | None:
        """The detail count of a frame in memory, from the packed keys' digits straight to
        the encoded table (Adult, 8 quasi-identifiers and one sensitive column: about 3 ms
        of 13.5). A sensitive text column with a hierarchy is coded by its leaves in the
        query that codes the quasi-identifiers; the others by their distinct values
        (:func:`_sensitive_codes`). ``None`` for other sources, when the key would not
        fit, or when a value is missing or outside its hierarchy: the general path then
        counts again and says which."""
        if not isinstance(source, pl.DataFrame) or source.height == 0:
            return None
        frame, q = source, len(columns)
        schema = frame.schema
        leafy = {
            s.name: s.hierarchy
            for s in sensitive
            if s.hierarchy is not None and schema[s.name] == pl.String
        }
        coded = self._frame_codes(frame, [*columns, *leafy], [*hierarchies, *leafy.values()])
        by_leaf = dict(zip(leafy, coded[q:], strict=True))
        texts = [s.name for s in sensitive if s.name not in leafy]
        by_text = dict(zip(texts, zip(*_sensitive_codes(frame, texts), strict=True), strict=True))
        values = [
            list(leafy[s.name].leaves) if s.name in leafy else by_text[s.name][0] for s in sensitive
        ]
        sens = [by_leaf[s.name] if s.name in leafy else by_text[s.name][1] for s in sensitive]
        verbatim = [
            self._verbatim(frame, s.name, leafy[s.name]) if s.name in leafy else by_text[s.name][2]
            for s in sensitive
        ]
        digits = _detail_digits(hierarchies, values)
        if digits is None:
            return None
        keys, counts = _packed_key_counts([*coded[:q], *sens], digits)
        block = unpack_block(keys, digits)
        # a negative code is a value missing or outside its hierarchy; len(values) a
        # missing sensitive text
        if (block < 0).any() or any(
            (block[q + i] == len(values[i])).any()
            for i, s in enumerate(sensitive)
            if s.name not in leafy
        ):
            return None
        for i, s in enumerate(sensitive):
            if verbatim[i]:  # for the release's tally (apply_tallied)
                coded_column = CodedColumn(s.name, (*values[i], None), sens[i].to_numpy())
                self._sensitive[(id(frame), s.name)] = (weakref.ref(frame), coded_column)
            if s.name in leafy:  # the leaves that occur, as the distinct values of the others
                block[q + i], values[i] = _present(block[q + i], values[i])
        # the keys are sorted and the quasi-identifiers' digits lead: each combination of
        # them is a run, read off without grouping the block again
        runs = first_of_runs(keys // digits[1][q - 1]) if q else None
        return detail_table(
            block, counts, columns, hierarchies, sensitive, values, verbatim=verbatim, runs=runs
        )

    def unknown_values(
        self, source: Any, column: str, hierarchy: Hierarchy
    ) -> tuple[list[str], int]:
        lf = _lazy(source)
        dtype = lf.collect_schema()[column]
        text = text_expr(column, dtype)
        outside = (
            lf.filter(~missing_expr(column, dtype))
            .select(text)
            .filter(~pl.col(column).is_in(list(hierarchy.leaves)))
        )
        unknown = _first_seen(outside, column).collect(engine=self._collect)[column]
        return unknown.head(10).to_list(), unknown.len()

    def distinct(self, source: Any, column: str) -> list[str]:
        lf = _lazy(source)
        dtype = lf.collect_schema()[column]
        present = lf.filter(~missing_expr(column, dtype)).select(text_expr(column, dtype))
        values = _first_seen(present, column).collect(engine=self._collect)[column]
        return [str(v) for v in values.to_list()]

    def apply(self, source: Any, plan: ReleasePlan) -> Any:
        if isinstance(source, pl.DataFrame):
            return self._apply_frame(source, plan)[0]
        return release_query(_lazy(source), plan)

    def apply_tallied(
        self, source: Any, plan: ReleasePlan, sensitive: Names, count: str
    ) -> tuple[Any, pl.DataFrame | None]:
        if not (self.in_memory and isinstance(source, pl.DataFrame)):
            return super().apply_tallied(source, plan, sensitive, count)
        return self._apply_frame(source, plan, sensitive, count)

    def _apply_frame(
        self,
        frame: pl.DataFrame,
        plan: ReleasePlan,
        sensitive: Names = (),
        count: str | None = None,
    ) -> tuple[pl.DataFrame, pl.DataFrame | None]:
        """:func:`release_query` on a frame in memory, from the codes the count kept; with
        ``count``, also the release's tally over the quasi-identifiers and ``sensitive``
        from those codes (:func:`~anonkit.engines.written.release_tally`), when the count
        coded the sensitive columns one to one."""
        codes = self._frame_codes(frame, plan.columns, plan.hierarchies)
        # codes read off values that are all leaves are all >= 0; others may mark new
        # values, which the query names
        pairs = zip(plan.columns, plan.hierarchies, codes, strict=True)
        if any(not self._verbatim(frame, c, h) and bool((col < 0).any()) for c, h, col in pairs):
            return release_query(frame.lazy(), plan).collect(), None
        arrays = [col.to_numpy() for col in codes]
        hit = suppressed_rows(arrays, plan) if plan.suppresses else None
        if plan.suppresses and hit is None:  # too many label combinations to pack
            return release_query(frame.lazy(), plan).collect(), None
        # masked, the suppressed records gather '*', one past each column's labels
        starred = hit if plan.suppressed == "mask" else None
        star = [] if starred is None else [SUPPRESSED]
        labels = [
            pl.Series([*plan.leaf_labels(j), *star], dtype=pl.String) for j in range(len(codes))
        ]
        if starred is None:
            coded = pl.DataFrame(codes)
        else:
            coded = pl.DataFrame(
                {
                    c: np.where(starred, len(lab) - 1, col)
                    for c, lab, col in zip(plan.columns, labels, arrays, strict=True)
                }
            )
        # every column's labels gathered in one query
        written = coded.select(
            pl.lit(lab).gather(pl.col(c)).alias(c)
            for c, lab in zip(plan.columns, labels, strict=True)
        )
        out = frame.with_columns(written.get_columns())
        if hit is not None and plan.suppressed != "mask":
            out = out.filter(pl.Series(~hit))
        out = out.drop(list(plan.drop))
        if count is None or plan.suppressed != "mask":
            return out, None
        coded_sensitive = []
        for s in sensitive:
            known = self._sensitive.get((id(frame), s))
            if known is None or known[0]() is not frame:
                return out, None
            coded_sensitive.append(known[1])
        return out, release_tally(arrays, plan, hit, coded_sensitive, count)

    def columns(self, source: Any) -> list[str]:
        return _lazy(source).collect_schema().names()

    def head(self, source: Any, n: int) -> pl.DataFrame:
        return _lazy(source).head(n).collect(engine=self._collect)

    def sample(self, source: Any, n: int) -> pl.DataFrame:
        lazy = _lazy(source)
        total = lazy.select(pl.len()).collect(engine=self._collect).item()
        return lazy.gather_every(sample_step(total, n)).collect(engine=self._collect)

    def tally(self, frame: Any, columns: Sequence[str]) -> pl.DataFrame:
        grouped = _lazy(frame).group_by(list(columns)).agg(pl.len().alias(COUNT))
        return grouped.collect(engine=self._collect).cast({COUNT: pl.Int64})

    def read(self, path: Path, *, separator: str | None = None) -> pl.LazyFrame:
        if separator is None or table_format(Path(path)) == "parquet":
            return _lazy(path)
        return pl.scan_csv(path, separator=separator, infer_schema=False)

    def write(self, release: Any, path: Path, *, separator: str | None = None) -> None:
        lazy = _lazy(release)
        fmt = output_format(path)
        with atomic_path(Path(path)) as tmp:
            if fmt == "parquet":
                lazy.sink_parquet(tmp, engine=self._collect)
            else:
                sep = field_separator(fmt, separator)
                with refusing_nul_cells(escape_formulas_lazy(lazy), fmt) as checked:
                    checked.sink_csv(tmp, separator=sep, engine=self._collect)
