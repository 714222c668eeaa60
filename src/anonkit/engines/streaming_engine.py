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
* **One release pass** (``apply``): the release query of the in-memory engine, which
  maps each value to its label with a lookup table and marks the records of suppressed
  classes with a join on the small table of those classes.

A source that was not prepared (a population table, say) is counted by streaming its
records, as before; the results are the same either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import polars as pl

from anonkit.core.hierarchy import Hierarchy
from anonkit.core.values import code_expr, missing_expr, text_expr
from anonkit.engines.counting import COUNT
from anonkit.engines.polars_engine import PolarsEngine, _lazy, release_query

__all__ = ["StreamingEngine"]


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
        exprs = [code_expr(c, schema[c], h) for c, h in zip(columns, hierarchies, strict=True)]
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

    def apply(self, source: Any, plan: Any) -> pl.LazyFrame:
        return release_query(_lazy(source), plan)
