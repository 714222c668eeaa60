"""A text cell holding a NUL byte cannot go into a CSV release (anonkit's own reader, and
most others, refuse such a file): writing refuses it, naming the column, before anything
is written. Parquet keeps it."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import anonkit
from anonkit.exceptions import DataError
from anonkit.io.tables import read_table
from anonkit.io.write import write_table


def _frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "age": [str(20 + i % 5) for i in range(50)],
            "note": ["a\x00b" if i == 7 else "plain" for i in range(50)],
            "s": ["x"] * 50,
        }
    )


@pytest.mark.parametrize("suffix", ["csv", "tsv"])
@pytest.mark.parametrize("dtype", [pl.String, pl.Categorical])
def test_write_table_refuses_nul_in_text_naming_column(
    tmp_path: Path, suffix: str, dtype: pl.DataType
) -> None:
    out = tmp_path / f"out.{suffix}"
    frame = _frame().with_columns(pl.col("note").cast(dtype))
    with pytest.raises(DataError) as info:
        write_table(frame, out)
    message = str(info.value)
    assert "'note'" in message and "NUL" in message
    assert "'age'" not in message and "'s'" not in message
    assert "a\x00b" not in message  # the value itself is not quoted
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []  # no temporary file left either


def test_write_table_refuses_nul_whatever_csv_formulas(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    with pytest.raises(DataError, match="'note'"):
        write_table(_frame(), out, csv_formulas="keep")
    assert not out.exists()


def test_write_table_parquet_keeps_nul(tmp_path: Path) -> None:
    out = tmp_path / "out.parquet"
    write_table(_frame(), out)
    assert pl.read_parquet(out).get_column("note")[7] == "a\x00b"


def test_write_table_csv_without_nul_still_writes(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    write_table(_frame().with_columns(pl.col("note").str.replace_all("\x00", "-")), out)
    assert b"\x00" not in out.read_bytes()
    assert read_table(out).get_column("note")[7] == "a-b"


def _anonymize_to(data: object, out: Path, **options: object) -> None:
    """Release ``data`` to ``out`` with its NUL-holding 'note' column kept."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        anonkit.anonymize(
            data,
            quasi_identifiers=["age"],
            k=5,
            sensitive=["s"],
            insensitive=["note"],
            hierarchies={"age": {"type": "suppression"}},
            output=out,
            **options,  # type: ignore[arg-type]
        )


@pytest.mark.parametrize("kind", ["polars", "pandas", "parquet"])
def test_anonymize_to_csv_refuses_nul_in_kept_column(tmp_path: Path, kind: str) -> None:
    data: object = _frame()
    if kind == "pandas":
        data = pd.DataFrame({c: _frame().get_column(c).to_list() for c in _frame().columns})
    elif kind == "parquet":
        data = tmp_path / "in.parquet"
        _frame().write_parquet(data)
    out = tmp_path / "release.csv"
    with pytest.raises(DataError, match="'note'"):
        _anonymize_to(data, out)
    assert not out.exists()


def test_a_streamed_csv_release_refuses_nul_in_kept_column(tmp_path: Path) -> None:
    """The streaming engine writes its release by sink_csv, past write_table's check."""
    data = tmp_path / "in.parquet"
    _frame().write_parquet(data)
    out = tmp_path / "release.csv"
    with pytest.raises(DataError, match=r"^Column 'note' holds text with a NUL byte"):
        _anonymize_to(data, out, engine="streaming")
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [data]
