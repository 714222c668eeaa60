"""Dataframe conversion: pandas or polars in, the same type out."""

from __future__ import annotations

from typing import Any, Literal

import polars as pl

from anonkit.exceptions import ParameterError

FrameKind = Literal["polars", "pandas"]


def to_polars(frame: Any) -> tuple[pl.DataFrame, FrameKind]:
    """Convert a caller's frame to polars and remember what it was.

    pandas frames are converted column by column through numpy, so pyarrow is not needed;
    the pandas index is dropped (a release carries no row index).
    """
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if isinstance(frame, pl.DataFrame):
        return frame, "polars"
    module = type(frame).__module__.split(".")[0]
    if module == "pandas" and hasattr(frame, "columns"):
        columns = {}
        for name in frame.columns:
            series = frame[name]
            values = series.to_numpy()
            if values.dtype.kind == "O":
                # object columns: keep None for missing values, strings as strings
                values = [None if v is None or v != v else v for v in values.tolist()]
            columns[str(name)] = pl.Series(str(name), values, strict=False)
        return pl.DataFrame(columns), "pandas"
    raise ParameterError("frame", "anonymize", "a polars or pandas DataFrame", type(frame).__name__)


def from_polars(frame: pl.DataFrame, kind: FrameKind) -> Any:
    """Return ``frame`` as the caller's frame type, with a fresh default index for pandas."""
    if kind == "polars":
        return frame
    import pandas as pd

    data = {}
    for name in frame.columns:
        series = frame[name]
        if series.dtype == pl.String:
            data[name] = pd.Series(series.to_list(), dtype=object)
        else:
            data[name] = series.to_numpy()
    return pd.DataFrame(data)
