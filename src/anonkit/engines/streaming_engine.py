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

Built hierarchies read their column's distinct values first (one pass over that column
each, which Parquet reads alone).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import polars as pl

from anonkit.core.hierarchy import Hierarchy
from anonkit.core.transform import ReleasePlan
from anonkit.core.values import (
    MISSING_CODE,
    UNKNOWN_CODE,
    missing_expr,
    sensitive_text_expr,
    text_expr,
)
from anonkit.engines.counting import COUNT, KEY_SHIFT, key_digits, unpack_keys
from anonkit.engines.polars_engine import PolarsEngine, _lazy, _suppress, release_query

__all__ = ["StreamingEngine", "streaming_release_query"]

_KEY = "__anonkit_class_key__"


def _leaf_codes(column: str, dtype: pl.DataType, hierarchy: Hierarchy) -> pl.Expr:
    """Each value's row among ``hierarchy``'s leaves (UInt32), null when it is none."""
    leaves = pl.Enum(list(hierarchy.leaves))
    return text_expr(column, dtype).cast(leaves, strict=False).to_physical()


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

    def group_counts(
        self,
        source: Any,
        columns: Sequence[str],
        hierarchies: Sequence[Hierarchy],
        sensitive: Sequence[str] = (),
    ) -> pl.DataFrame:
        digits = key_digits(hierarchies)
        if digits is None:
            return super().group_counts(source, columns, hierarchies, sensitive)
        lf = _lazy(source)
        schema = lf.collect_schema()
        parts = []
        for c, h, step in zip(columns, hierarchies, digits[1], strict=True):
            leaf = _leaf_codes(c, schema[c], h).cast(pl.Int64)
            code = (
                pl.when(missing_expr(c, schema[c]))
                .then(MISSING_CODE)
                .when(leaf.is_null())
                .then(UNKNOWN_CODE)
                .otherwise(leaf)
            )
            parts.append((code + KEY_SHIFT) * step)
        texts = [sensitive_text_expr(s, schema[s]) for s in sensitive]
        grouped = (
            lf.select(pl.sum_horizontal(parts).alias(_KEY), *texts)
            .group_by([_KEY, *sensitive])
            .agg(pl.len().alias(COUNT))
            .collect(engine=self._collect)
        )
        coded = unpack_keys(grouped[_KEY].to_numpy(), columns, digits)
        return pl.DataFrame(coded, schema=dict.fromkeys(columns, pl.Int64)).hstack(
            [*grouped.select(sensitive), grouped[COUNT].cast(pl.Int64)]
        )

    def apply(self, source: Any, plan: ReleasePlan) -> pl.LazyFrame:
        return streaming_release_query(_lazy(source), plan)
