"""The embedded engine: polars encodes and counts, numpy holds the codes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit.core.encoding import EncodedTable
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.snapshot import FrequencySnapshot
from anonkit.exceptions import EmptyDataError, MissingValuesError, ValuesNotInHierarchyError

IntArray = npt.NDArray[np.int64]


def as_text(series: pl.Series) -> pl.Series:
    """Render a column as the strings a hierarchy file (or builder) would use.

    Value by value, as the hierarchy builders render them: whole numbers print without
    decimals (``2.0`` -> ``"2"``, pandas turns integer columns with gaps into floats),
    other floats as Python prints them, booleans as ``True``/``False``, strings stripped.
    """
    dtype = series.dtype
    if dtype == pl.String:
        return series.str.strip_chars()
    if dtype == pl.Boolean:
        return (
            pl.select(pl.when(pl.lit(series)).then(pl.lit("True")).otherwise(pl.lit("False")))
            .to_series()
            .alias(series.name)
        )
    if dtype.is_float():
        whole = series == series.round(0)
        return (
            pl.select(
                pl.when(pl.lit(whole))
                .then(pl.lit(series).cast(pl.Int64, strict=False).cast(pl.String))
                .otherwise(pl.lit(series).cast(pl.String))
            )
            .to_series()
            .alias(series.name)
        )
    return series.cast(pl.String)


def encode_column(series: pl.Series, hierarchy: Hierarchy, column: str) -> pl.Series:
    """Level-0 codes of a column (Int64), with specific errors for nulls and unknown values."""
    nulls = series.null_count()
    if series.dtype.is_float():
        nulls += int(series.is_nan().sum())
    if nulls:
        raise MissingValuesError(column, nulls)
    text = as_text(series)
    leaves = list(hierarchy.leaves)
    codes = text.replace_strict(leaves, list(range(len(leaves))), default=-1, return_dtype=pl.Int64)
    if (codes < 0).any():
        missing = text.filter(codes < 0).unique(maintain_order=True)
        raise ValuesNotInHierarchyError(column, missing.head(10).to_list(), missing.len())
    return codes.alias(column)


class PolarsEngine:
    """Count with polars (files and polars/pandas frames converted to polars)."""

    name = "polars"

    def encode(
        self, frame: pl.DataFrame, columns: Sequence[str], hierarchies: Sequence[Hierarchy]
    ) -> EncodedTable:
        if frame.height == 0:
            raise EmptyDataError()
        coded = pl.DataFrame(
            [encode_column(frame[c], h, c) for c, h in zip(columns, hierarchies, strict=True)]
        )
        grouped = coded.group_by(list(columns)).len(name="__count__")
        snap = FrequencySnapshot(
            levels=tuple(0 for _ in columns),
            codes=np.stack([grouped[c].to_numpy().astype(np.int64) for c in columns]),
            counts=grouped["__count__"].to_numpy().astype(np.int64),
        )
        records = np.stack([coded[c].to_numpy().astype(np.int64) for c in columns])
        return EncodedTable(tuple(columns), tuple(hierarchies), snap, records)


def encode_sensitive(
    series: pl.Series, column: str, hierarchy: Hierarchy | None = None
) -> tuple[tuple[str, ...], IntArray]:
    """Dictionary-encode a sensitive attribute: ``(labels, codes)``.

    With a hierarchy the labels are its leaves that occur, in the hierarchy's order (every
    value must be a leaf); without one they are the distinct values, in numeric order when
    every value is a number and in text order otherwise.
    """
    nulls = series.null_count()
    if series.dtype.is_float():
        nulls += int(series.is_nan().sum())
    if nulls:
        raise MissingValuesError(column, nulls)
    text = as_text(series)
    if hierarchy is not None:
        labels = list(hierarchy.leaves)
    else:
        uniq = text.unique()
        distinct = uniq.to_list()
        numeric = uniq.cast(pl.Float64, strict=False)
        if numeric.null_count() == 0:
            labels = [t for _, t in sorted(zip(numeric.to_list(), distinct, strict=True))]
        else:
            labels = sorted(distinct)
    codes = text.replace_strict(labels, list(range(len(labels))), default=-1, return_dtype=pl.Int64)
    if (codes < 0).any():
        missing = text.filter(codes < 0).unique(maintain_order=True)
        raise ValuesNotInHierarchyError(column, missing.head(10).to_list(), missing.len())
    out = codes.to_numpy().astype(np.int64)
    # keep only the values the table holds (ordered distance divides by their number)
    present = np.flatnonzero(np.bincount(out, minlength=len(labels)))
    if present.size < len(labels):
        remap = np.full(len(labels), -1, dtype=np.int64)
        remap[present] = np.arange(present.size)
        labels = [labels[i] for i in present]
        out = remap[out]
    return tuple(labels), out
