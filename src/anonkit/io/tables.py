"""Reading and writing tables (CSV, Parquet) with polars; writes are atomic."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from anonkit.core.hierarchy import detect_separator
from anonkit.exceptions import EmptyDataError, InputFileError
from anonkit.io.atomic import atomic_write


def read_table(path: str | Path, *, separator: str | None = None) -> pl.DataFrame:
    """Read a CSV (separator detected: ``;``, tab or ``,``) or Parquet file.

    CSV cells are read as text, so values match hierarchy labels exactly (``007`` stays
    ``007``). Empty cells become nulls.

    Raises
    ------
    InputFileError
        If the file is missing, unreadable or not a table.
    EmptyDataError
        If it holds a header but no records.
    """
    p = Path(path)
    if not p.is_file():
        raise InputFileError(p, "no such file")
    try:
        if p.suffix.lower() in (".parquet", ".pq"):
            frame = pl.read_parquet(p)
        else:
            with p.open("r", encoding="utf-8-sig", errors="replace") as fh:
                first = fh.readline()
            if not first.strip():
                raise EmptyDataError(f"The file {p}")
            sep = separator or detect_separator(first)
            frame = pl.read_csv(
                p,
                separator=sep,
                infer_schema=False,
                encoding="utf8-lossy",
            )
    except (EmptyDataError, InputFileError):
        raise
    except (pl.exceptions.PolarsError, OSError, ValueError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputFileError(p, reason) from None
    if frame.height == 0:
        raise EmptyDataError(f"The file {p}")
    return frame


def write_table(frame: pl.DataFrame, path: str | Path, *, separator: str = ",") -> None:
    """Write ``frame`` to CSV or Parquet (by suffix) atomically, without any row index."""
    p = Path(path)
    if p.suffix.lower() in (".parquet", ".pq"):
        atomic_write(p, lambda tmp: frame.write_parquet(tmp))
    else:
        atomic_write(p, lambda tmp: frame.write_csv(tmp, separator=separator))
