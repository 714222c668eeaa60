"""The ``streaming`` engine: tables larger than memory, streamed from disk by polars.

The records are read twice, as for any engine (:mod:`anonkit.engines.base`), and what
those passes compute is kept as small as the data allows:

* **One counting pass.** :meth:`StreamingEngine.prepare` tallies the records by the raw
  values of every column the fit will count (quasi-identifiers and sensitive columns)
  in one streamed ``group_by``, the cheapest pass polars can make over the file. The
  tally holds one row per distinct combination, usually far fewer than the records.
  The distinct values hierarchies are built from, and the encoded count the search
  runs on, are then computed from the tally in memory. Without the tally each built
  hierarchy took a pass of its own and the count normalized and coded every record
  before grouping.
* **One release pass** (``apply``, :func:`streaming_release_query`): each value is cast
  to a polars ``Enum`` of its hierarchy's leaves, whose physical code picks the label
  (a gather from the small table of labels) and the class's code at the chosen level;
  the level codes combine into one integer key per record, and a record is suppressed
  when its key is among the suppressed classes' keys. Replacing values with
  ``replace_strict`` or joining on the labels' text, as the in-memory engine's lazy
  query does, held most of the table in memory on the way (3.4 GB peak for 10M rows,
  against 0.3 GB this way; ``benchmarks/RESULTS.md``).

A source that was not prepared (a population table, say) is counted by streaming its
records, as before; the results are the same either way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import polars as pl

from anonkit.core.hierarchy import Hierarchy
from anonkit.core.transform import ReleasePlan
from anonkit.core.values import MISSING_CODE, UNKNOWN_CODE, missing_expr, text_expr
from anonkit.engines.counting import COUNT
from anonkit.engines.polars_engine import PolarsEngine, _lazy, _suppress, release_query

__all__ = ["StreamingEngine", "enum_code_expr", "streaming_release_query"]

_KEY = "__anonkit_class_key__"


def _leaf_codes(column: str, dtype: pl.DataType, hierarchy: Hierarchy) -> pl.Expr:
    """Each value's row among ``hierarchy``'s leaves (UInt32), null when it is none."""
    leaves = pl.Enum(list(hierarchy.leaves))
    return text_expr(column, dtype).cast(leaves, strict=False).to_physical()


def enum_code_expr(column: str, dtype: pl.DataType, hierarchy: Hierarchy) -> pl.Expr:
    """:func:`~anonkit.core.values.code_expr` through a cast to an ``Enum`` of the leaves
    (the same codes; a lookup polars streams without holding the column)."""
    codes = _leaf_codes(column, dtype, hierarchy).cast(pl.Int64)
    return (
        pl.when(missing_expr(column, dtype))
        .then(MISSING_CODE)
        .when(codes.is_null())
        .then(UNKNOWN_CODE)
        .otherwise(codes)
        .alias(column)
    )


def streaming_release_query(source: pl.LazyFrame, plan: ReleasePlan) -> pl.LazyFrame:
    """The release of ``source`` under ``plan`` (as
    :func:`~anonkit.engines.polars_engine.release_query` makes it), in a query polars
    streams in little memory; see the module docstring.

    Every value of a quasi-identifier must be a leaf of its hierarchy (the count that
    led to the plan checked it). Plans whose class keys would not fit 64 bits (very
    wide tables) use the in-memory engine's query.
    """
    sizes = [len(h.labels(level)) for h, level in zip(plan.hierarchies, plan.levels, strict=True)]
    if math.prod(sizes) >= 2**63:
        return release_query(source, plan)
    radix = [math.prod(sizes[:j]) for j in range(len(sizes))]
    schema = source.collect_schema()
    labels, parts = [], []
    for j, (c, h) in enumerate(zip(plan.columns, plan.hierarchies, strict=True)):
        leaf = _leaf_codes(c, schema[c], h)
        released = plan.leaf_labels(j)
        if released == list(h.leaves):
            labels.append(text_expr(c, schema[c]).alias(c))
        else:
            labels.append(pl.lit(pl.Series(released, dtype=pl.String)).gather(leaf).alias(c))
        if plan.suppresses:
            level = pl.lit(pl.Series(plan.level_codes(j), dtype=pl.UInt64)).gather(leaf)
            parts.append(level * pl.lit(radix[j], dtype=pl.UInt64))
    out = source
    if plan.suppresses:
        classes = plan.suppressed_classes.astype(np.uint64)
        keys = (classes * np.asarray(radix, dtype=np.uint64)[:, None]).sum(axis=0)
        hit = pl.sum_horizontal(parts).is_in(pl.Series(keys, dtype=pl.UInt64).implode())
        out = out.with_columns(hit.alias(_KEY))
    out = out.with_columns(labels)
    if plan.suppresses:
        out = _suppress(out, pl.col(_KEY), plan).drop(_KEY)
    return out.drop(list(plan.drop))


class StreamingEngine(PolarsEngine):
    """Count with polars' streaming engine, for tables larger than memory: the source is
    a lazy frame or a file path (Parquet, or CSV read as text); the release is a lazy
    query to sink (``sink_parquet``/``sink_csv``)."""

    name = "streaming"
    in_memory = False
    _collect: Literal["auto", "streaming"] = "streaming"

    def __init__(self) -> None:
        super().__init__()
        #: The prepared tallies: the source they count (kept, so that its id stays its
        #: own), the columns and the tally.
        self._tallies: dict[int, tuple[Any, tuple[str, ...], pl.DataFrame]] = {}

    def prepare(self, source: Any, columns: Sequence[str]) -> None:
        """Tally ``source`` by the raw values of ``columns`` in one streamed pass; later
        ``distinct`` and counts over those columns read the tally instead of the records."""
        tally = self.tally(source, list(dict.fromkeys(columns)))
        self._tallies[id(source)] = (source, tuple(tally.columns[:-1]), tally)

    def _prepared(self, source: Any, columns: Sequence[str]) -> pl.DataFrame | None:
        entry = self._tallies.get(id(source))
        if entry is None or entry[0] is not source or not set(columns) <= set(entry[1]):
            return None
        return entry[2]

    def distinct(self, source: Any, column: str) -> list[str]:
        tally = self._prepared(source, [column])
        if tally is None:
            return super().distinct(source, column)
        dtype = tally.schema[column]
        values = (
            tally.lazy()
            .filter(~missing_expr(column, dtype))
            .select(text_expr(column, dtype))
            .unique()
            .sort(column)
            .collect()
        )
        return [str(v) for v in values.to_series().to_list()]

    def group_counts(
        self,
        source: Any,
        columns: Sequence[str],
        hierarchies: Sequence[Hierarchy],
        sensitive: Sequence[str] = (),
    ) -> pl.DataFrame:
        tally = self._prepared(source, [*columns, *sensitive])
        if tally is None:
            return super().group_counts(source, columns, hierarchies, sensitive)
        schema = tally.schema
        del self._tallies[id(source)]  # counted once per fit; the tally can go
        exprs = [enum_code_expr(c, schema[c], h) for c, h in zip(columns, hierarchies, strict=True)]
        exprs += [
            pl.when(missing_expr(s, schema[s]))
            .then(None)
            .otherwise(text_expr(s, schema[s]))
            .alias(s)
            for s in sensitive
        ]
        return (
            tally.lazy()
            .select([*exprs, pl.col(COUNT)])
            .group_by([*columns, *sensitive])
            .agg(pl.col(COUNT).sum())
            .collect()
            .cast({COUNT: pl.Int64})
        )

    def apply(self, source: Any, plan: ReleasePlan) -> pl.LazyFrame:
        return streaming_release_query(_lazy(source), plan)
