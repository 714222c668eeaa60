"""Fixtures of the safety tests: the raw UCI Adult file and the 9-column ARX extract."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from anonkit.io.tables import read_table


def raw_adult(path: Path) -> pl.DataFrame:
    """The raw 15-column UCI Adult file as text, stripped, with '?' read as missing."""
    frame = read_table(path)
    return frame.with_columns(pl.all().str.strip_chars()).with_columns(
        pl.when(pl.all() == "?").then(None).otherwise(pl.all()).name.keep()
    )


@pytest.fixture(scope="session")
def adult_full_path(shared_data: Path) -> Path:
    path = shared_data / "adult" / "adult_full.csv"
    if not path.is_file():
        pytest.skip(f"raw Adult file not found at {path}")
    return path


@pytest.fixture(scope="session")
def adult_full(adult_full_path: Path) -> pl.DataFrame:
    return raw_adult(adult_full_path)


@pytest.fixture(scope="session")
def adult9(shared_data: Path) -> pl.DataFrame:
    path = shared_data / "adult" / "adult.csv"
    if not path.is_file():
        pytest.skip(f"Adult extract not found at {path}")
    return read_table(path)
