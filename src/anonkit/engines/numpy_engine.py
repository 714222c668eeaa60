"""A plain-Python engine: dictionaries encode, ``np.unique`` counts.

Slower than polars on large tables; kept as an independent second path (it shares no
expression with the polars engines) for tests and for callers that hand over a mapping
of column name to values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from anonkit.core.hierarchy import Hierarchy
from anonkit.core.transform import SUPPRESSED, ReleasePlan
from anonkit.core.values import MISSING_CODE, UNKNOWN_CODE
from anonkit.engines.base import GroupingEngine, sample_step
from anonkit.engines.counting import COUNT, Hierarchies, Names
from anonkit.io.tables import read_table
from anonkit.io.write import write_table

__all__ = ["NumpyEngine"]


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, float):
        if value != value:  # NaN
            return None
        if value.is_integer():
            return str(int(value))
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value).strip()


def _frame(source: Any) -> pl.DataFrame:
    return source if isinstance(source, pl.DataFrame) else pl.DataFrame(dict(source))


def _texts(source: Any, column: str) -> list[str | None]:
    return [_text(v) for v in list(source[column])]


class NumpyEngine(GroupingEngine):
    """Count with numpy; accepts any mapping of column name to a sequence of values."""

    name = "numpy"
    in_memory = True

    def group_counts(
        self, source: Any, columns: Names, hierarchies: Hierarchies, sensitive: Names = ()
    ) -> pl.DataFrame:
        cols: list[np.ndarray[Any, Any]] = []
        for c, h in zip(columns, hierarchies, strict=True):
            index = {leaf: i for i, leaf in enumerate(h.leaves)}
            codes = [
                MISSING_CODE if v is None else index.get(v, UNKNOWN_CODE) for v in _texts(source, c)
            ]
            cols.append(np.asarray(codes, dtype=np.int64))
        texts = [_texts(source, s) for s in sensitive]
        labels = [sorted({v for v in t if v is not None}) for t in texts]
        for t, lab in zip(texts, labels, strict=True):
            index = {v: i for i, v in enumerate(lab)}
            cols.append(np.asarray([-1 if v is None else index[v] for v in t], dtype=np.int64))
        n = len(cols[0]) if cols else 0
        if n == 0:
            return pl.DataFrame(
                {**{c: [] for c in [*columns, *sensitive]}, COUNT: []},
                schema={
                    **dict.fromkeys(columns, pl.Int64),
                    **dict.fromkeys(sensitive, pl.String),
                    COUNT: pl.Int64,
                },
            )
        rows, counts = np.unique(np.stack(cols), axis=1, return_counts=True)
        data: dict[str, Any] = {c: rows[j] for j, c in enumerate(columns)}
        for i, (s, lab) in enumerate(zip(sensitive, labels, strict=True)):
            codes = rows[len(columns) + i]
            data[s] = pl.Series(s, [None if x < 0 else lab[x] for x in codes], dtype=pl.String)
        data[COUNT] = counts.astype(np.int64)
        return pl.DataFrame(data)

    def unknown_values(
        self, source: Any, column: str, hierarchy: Hierarchy
    ) -> tuple[list[str], int]:
        leaves = set(hierarchy.leaves)
        unknown = list(
            dict.fromkeys(v for v in _texts(source, column) if v is not None and v not in leaves)
        )
        return unknown[:10], len(unknown)

    def distinct(self, source: Any, column: str) -> list[str]:
        return list(dict.fromkeys(v for v in _texts(source, column) if v is not None))

    def columns(self, source: Any) -> list[str]:
        return list(source.columns if isinstance(source, pl.DataFrame) else source)

    def head(self, source: Any, n: int) -> pl.DataFrame:
        return _frame(source).head(n)

    def sample(self, source: Any, n: int) -> pl.DataFrame:
        frame = _frame(source)
        return frame.gather_every(sample_step(frame.height, n))

    def tally(self, frame: Any, columns: Sequence[str]) -> pl.DataFrame:
        rows = Counter(zip(*(list(frame[c]) for c in columns), strict=True))
        keys = list(rows)
        data = {c: [k[j] for k in keys] for j, c in enumerate(columns)}
        return pl.DataFrame({**data, COUNT: [rows[k] for k in keys]}).cast({COUNT: pl.Int64})

    def read(self, path: Path, *, separator: str | None = None) -> pl.DataFrame:
        return read_table(path, separator=separator)

    def write(self, release: Any, path: Path, *, separator: str | None = None) -> None:
        write_table(_frame(release), path, separator=separator)

    def apply(self, source: Any, plan: ReleasePlan) -> pl.DataFrame:
        frame = _frame(source)
        released: dict[str, list[str]] = {}
        for j, c in enumerate(plan.columns):
            to_label = dict(zip(plan.hierarchies[j].leaves, plan.leaf_labels(j), strict=True))
            released[c] = [to_label[v] for v in _texts(frame, c)]  # type: ignore[index]
        bad = set(zip(*plan.suppressed_labels, strict=True)) if plan.suppresses else set()
        hit = [row in bad for row in zip(*released.values(), strict=True)]
        if plan.suppressed == "mask":
            for c in plan.columns:
                released[c] = [
                    SUPPRESSED if h else v for v, h in zip(released[c], hit, strict=True)
                ]
        out = frame.with_columns([pl.Series(c, v, dtype=pl.String) for c, v in released.items()])
        if plan.suppressed == "drop" and any(hit):
            out = out.filter(~pl.Series(hit))
        return out.drop(list(plan.drop))
