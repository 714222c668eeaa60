"""Column names polars reads as more than a name ('*', '^...$') are refused by every reader
with one sentence naming the column, never a traceback or a polars error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

from anonkit.cli.main import app
from anonkit.exceptions import InputFormatError
from anonkit.io.tables import read_table, read_table_info, scan_table
from anonkit.safety.codes import ColumnCodes

READERS: list[Callable[[Path], Any]] = [read_table, read_table_info, scan_table]


def _csv(tmp_path: Path, header: str) -> Path:
    p = tmp_path / "rx.csv"
    p.write_text(f"{header}\n1,2,3\n4,5,6\n", encoding="utf-8")
    return p


def _parquet(tmp_path: Path, name: str) -> Path:
    p = tmp_path / "rx.parquet"
    pl.DataFrame({"a": ["1", "2"], name: ["x", "y"], "b": ["u", "v"]}).write_parquet(p)
    return p


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("name", ["^b$", "^$", "^[a-z]+$"])
def test_csv_pattern_name_refused_naming_column(
    tmp_path: Path, reader: Callable[[Path], Any], name: str
) -> None:
    p = _csv(tmp_path, f"a,{name},c")
    with pytest.raises(InputFormatError) as info:
        reader(p)
    message = str(info.value)
    assert "column 2" in message and repr(name) in message
    assert "pattern" in message
    assert info.value.column == 2
    assert info.value.line == 1


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("name", ["^id$", "*"])
def test_parquet_pattern_name_refused_naming_column(
    tmp_path: Path, reader: Callable[[Path], Any], name: str
) -> None:
    p = _parquet(tmp_path, name)
    with pytest.raises(InputFormatError) as info:
        reader(p)
    message = str(info.value)
    assert "column 2" in message and repr(name) in message
    assert info.value.column == 2
    assert info.value.line is None  # a Parquet file has no header line
    assert "separator" not in message


@pytest.mark.parametrize("reader", READERS)
def test_names_that_only_look_like_patterns_are_read(
    tmp_path: Path, reader: Callable[[Path], Any]
) -> None:
    p = _csv(tmp_path, "^a,b$,c*")
    result = reader(p)
    frame = result[0] if isinstance(result, tuple) else result
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    assert frame.columns == ["^a", "b$", "c*"]


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
@pytest.mark.parametrize("command", ["init", "check"])
def test_cli_gives_one_line_not_a_traceback(tmp_path: Path, suffix: str, command: str) -> None:
    p = _csv(tmp_path, "a,^b$,c") if suffix == "csv" else _parquet(tmp_path, "^b$")
    args = [command, str(p)]
    args += ["-o", str(tmp_path / "out.toml")] if command == "init" else ["--qi", "a"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, ValueError | TypeError)
    assert "Traceback" not in result.output
    assert "'^b$'" in result.output and "column 2" in result.output
    assert "DuplicateError" not in result.output


def test_parquet_star_column_is_refused_by_init_not_polars(tmp_path: Path) -> None:
    p = _parquet(tmp_path, "*")
    result = CliRunner().invoke(app, ["init", str(p), "-o", str(tmp_path / "out.toml")])
    assert result.exit_code == 1
    assert "column 2 is named '*'" in result.output
    assert "DuplicateError" not in result.output


def test_column_codes_use_exact_names() -> None:
    frame = pl.DataFrame({"a": ["x", "y", "x"], "^b$": ["u", "u", "u"], "*": [1, 2, 3]})
    coded = ColumnCodes(frame)
    assert coded.distinct == {"a": 2, "^b$": 1, "*": 3}
    assert coded.codes("^b$").tolist() == [0, 0, 0]
    assert coded.singles("*") == 3
