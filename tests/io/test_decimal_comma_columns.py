"""decimal_comma = true reads numbers written with a decimal comma, column by column: a
text column keeps its cells, and a '.' whose meaning the column does not tell is refused."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl
import pytest

from anonkit.exceptions import DataError
from anonkit.io.cells import decimal_points
from anonkit.io.tables import read_table, scan_table


def _points(**columns: Sequence[str | None]) -> pl.DataFrame:
    """decimal_points of a frame of text columns, in memory and as a lazy query, which
    must agree."""
    frame = pl.DataFrame(columns, schema=dict.fromkeys(columns, pl.String))
    eager = decimal_points(frame)
    lazy = decimal_points(frame.lazy()).collect()
    assert eager.equals(lazy)
    return eager


def _refused(**columns: Sequence[str | None]) -> list[DataError]:
    """The errors of decimal_points on a frame of text columns, in memory and lazily."""
    frame = pl.DataFrame(columns, schema=dict.fromkeys(columns, pl.String))
    with pytest.raises(DataError) as eager:
        decimal_points(frame)
    with pytest.raises(DataError) as lazy:
        decimal_points(frame.lazy()).collect()
    return [eager.value, lazy.value]


def test_a_column_of_decimal_comma_numbers_is_read_with_points() -> None:
    out = _points(kg=["49,4", "-0,5", "72", None, "+3,25"])
    assert out["kg"].to_list() == ["49.4", "-0.5", "72", None, "+3.25"]


def test_a_text_column_holding_comma_numbers_keeps_every_cell() -> None:
    """eu3.csv: floors '1,2', '3,4' and 'ground' were released as '1.2' and '3.4'."""
    out = _points(kg=["69,1", "54,0"], floors=["3,4", "ground"], sex=["Male", "a,b"])
    assert out["kg"].to_list() == ["69.1", "54.0"]
    assert out["floors"].to_list() == ["3,4", "ground"]
    assert out["sex"].to_list() == ["Male", "a,b"]


def test_thousands_groups_are_read_when_the_column_shows_them() -> None:
    out = _points(rent=["1.234,5", "2.000", "999,9", "1.234.567", "12", "-1.000,25"])
    assert out["rent"].to_list() == ["1234.5", "2000", "999.9", "1234567", "12", "-1000.25"]
    # many groups of three after a dot: only a thousands separator writes that
    assert _points(n=["1.234.567", "2.500"])["n"].to_list() == ["1234567", "2500"]


def test_malformed_groups_make_a_text_column() -> None:
    out = _points(v=["1.23,5", "72,5"], w=["1.2345,6", "1,5"], x=["01.234,5", "2,5"])
    assert out.rows() == [("1.23,5", "1.2345,6", "01.234,5"), ("72,5", "1,5", "2,5")]


@pytest.mark.parametrize(
    "cells",
    [
        ["1.234", "2.500", "4.750", "640", "987"],  # eu2.csv's rent: 1234 or 1.234?
        ["72,5", "1.234", "80,1"],  # a '.' among decimal commas
        ["1.234", "1.200"],
    ],
)
def test_a_dot_the_column_does_not_explain_is_refused(cells: list[str]) -> None:
    """eu2.csv: rent 1.234 was read as 1.234 in a file of decimal commas, where it is as
    likely 1234, a thousandfold error without a word."""
    value = next(c for c in cells if "." in c)
    row = cells.index(value) + 1
    for err in _refused(age=["1"] * len(cells), rent=cells):
        text = str(err)
        assert "'rent'" in text and repr(value) in text and f"data row {row}" in text
        assert "decimal_comma" in text
        assert (err.column, err.value, err.row) == ("rent", value, row)  # type: ignore[attr-defined]
        assert all(c not in text for c in cells if c != value)  # one value, no record


def test_a_decimal_point_among_decimal_commas_is_refused() -> None:
    for err in _refused(kg=["72,5", "80", "72.5", "1,5"]):
        text = str(err)
        assert "'kg'" in text and "'72.5'" in text and "data row 3" in text
        assert "'72,5'" not in text


def test_a_column_of_decimal_points_is_read_as_it_stands() -> None:
    """A '.' after other than three digits is a decimal point: the column's '1.234' too."""
    out = _points(kg=["72,5", "80,1", "7", "8"], ratio=["0.5", "1.234", "2", "1e3"])
    assert out["ratio"].to_list() == ["0.5", "1.234", "2", "1e3"]
    assert out["kg"].to_list() == ["72.5", "80.1", "7", "8"]


def test_whole_numbers_and_other_columns_are_untouched() -> None:
    frame = pl.DataFrame({"age": ["43", "007"], "n": [1, 2], "kg": ["1,5", "2,5"]})
    out = decimal_points(frame)
    assert out["age"].to_list() == ["43", "007"] and out["n"].to_list() == [1, 2]
    assert out["kg"].to_list() == ["1.5", "2.5"]
    assert decimal_points(pl.DataFrame({"n": [1]})).equals(pl.DataFrame({"n": [1]}))


# ------------------------------------------------------------ the readers of files
_EU2 = "age;weight;rent;sex\n43;55,1;1.234;Male\n58;88,3;640;Male\n52;90,6;4.750;Female\n"
_EU3 = "age;weight;floors;sex\n45;69,1;3,4;Female\n45;54,0;ground;Female\n21;66,3;1,2;Male\n"


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "eu.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_both_readers_refuse_thousands_read_as_decimals(tmp_path: Path) -> None:
    path = _file(tmp_path, _EU2)
    with pytest.raises(DataError, match=r"'rent'.*'1\.234'.*data row 1"):
        read_table(path, decimal_comma=True)
    with pytest.raises(DataError, match=r"'rent'.*'1\.234'.*data row 1"):
        scan_table(path, decimal_comma=True).collect()
    # without the option nothing is read differently
    assert read_table(path)["rent"].to_list() == ["1.234", "640", "4.750"]


def test_both_readers_keep_a_text_column_of_commas(tmp_path: Path) -> None:
    path = _file(tmp_path, _EU3)
    memory = read_table(path, decimal_comma=True)
    streamed = scan_table(path, decimal_comma=True).collect()
    assert memory.equals(streamed)
    assert memory["floors"].to_list() == ["3,4", "ground", "1,2"]
    assert memory["weight"].to_list() == ["69.1", "54.0", "66.3"]


def test_both_readers_use_the_missing_tokens_first(tmp_path: Path) -> None:
    path = _file(tmp_path, "age;kg\n1;72,5\n2;?\n3; 1.234,5 \n")
    kwargs = {"decimal_comma": True, "missing": ["", "?"], "strip": True}
    memory = read_table(path, **kwargs)  # type: ignore[arg-type]
    assert memory["kg"].to_list() == ["72.5", None, "1234.5"]
    assert scan_table(path, **kwargs).collect().equals(memory)  # type: ignore[arg-type]
