"""The fit through an engine that does not hold the records (estimators/scaled.py):
what happens when the input changes between its two passes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

import anonkit
from anonkit.engines.streaming_engine import StreamingEngine
from anonkit.exceptions import InputChangedError

QI = ["age", "sex", "race"]


def test_a_file_changed_after_the_count_leaves_no_output(
    adult: tuple[pl.DataFrame, dict[str, Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, paths = adult
    data = tmp_path / "data" / "adult.parquet"
    data.parent.mkdir()
    frame.select(QI).head(3000).write_parquet(data)
    count = StreamingEngine.count

    def count_then_change(self: StreamingEngine, source: Any, *args: Any) -> Any:
        table = count(self, source, *args)
        # a value outside the age hierarchy appears once the records are counted
        pl.read_parquet(data).with_columns(
            pl.when(pl.int_range(pl.len()) == 11).then(pl.lit("200")).otherwise("age").alias("age")
        ).write_parquet(data)
        return table

    monkeypatch.setattr(StreamingEngine, "count", count_then_change)
    out = tmp_path / "out" / "release.parquet"
    with pytest.raises(InputChangedError) as caught:
        anonkit.anonymize(
            data,
            engine="streaming",
            output=out,
            quasi_identifiers=QI,
            hierarchies={c: paths[c] for c in QI},
            k=5,
            suppression_limit=0.02,
        )
    assert caught.value.column == "age"
    assert not out.parent.exists() or list(out.parent.iterdir()) == []
