"""scan_table (the streaming engine's reader) refuses what read_table refuses, with the
same messages, instead of polars' errors or records quoted in an unknown-column error."""

from __future__ import annotations

from pathlib import Path

import pytest

from anonkit.exceptions import EmptyDataError, InputFormatError
from anonkit.io.tables import read_table, scan_table

ROWS = "age,sex\n31,f\n45,m\n39,f\n"


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "t.csv"
    p.write_bytes(text.encode("utf-8"))
    return p


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        # the whole file was one header line: the unknown-column error listed the records
        (ROWS.replace("\n", "\r"), InputFormatError, "carriage return only"),
        ("", EmptyDataError, "is empty"),  # was polars' NoDataError
        ("age,sex\n", EmptyDataError, "a header but no records"),  # was intervals()' error
    ],
)
def test_files_with_no_records_are_refused_alike(
    tmp_path: Path, text: str, error: type[Exception], message: str
) -> None:
    p = _write(tmp_path, text)
    for read in (read_table, scan_table):
        with pytest.raises(error, match=message):
            read(p)


def test_a_blank_line_is_named_when_streamed(tmp_path: Path) -> None:
    """polars reads it as a record of nulls: "Column 'age' has 1 missing value(s)", no
    line named. In memory it is passed over."""
    p = _write(tmp_path, "age,sex\n31,f\n\n45,m\n")
    assert read_table(p).height == 2
    with pytest.raises(InputFormatError, match="line 3 is blank"):
        scan_table(p)
    with pytest.raises(InputFormatError, match="line 4 is blank"):
        scan_table(_write(tmp_path, "age,sex\n31,f\n45,m\n\n"))  # read as a fourth record
    assert scan_table(_write(tmp_path, "age,sex\n31,f\n45,m\n")).collect().height == 2


def test_strip_applies_to_column_names_when_streamed(tmp_path: Path) -> None:
    p = _write(tmp_path, "age, sex\n31, f\n45, m\n")
    assert read_table(p, strip=True).columns == ["age", "sex"]
    scanned = scan_table(p, strip=True).collect()
    assert scanned.columns == ["age", "sex"] and scanned["sex"].to_list() == ["f", "m"]


@pytest.mark.parametrize("missing", [("?",), ("", "?"), ()])
def test_empty_cells_are_values_or_missing_as_read_table_reads_them(
    tmp_path: Path, missing: tuple[str, ...]
) -> None:
    # missing = ["?"] keeps an empty cell as the value "": scan_table read it as null, so
    # the streaming engine stopped on missing values (or released nulls) where the
    # polars engine and Spark kept "".
    p = _write(tmp_path, 'sex;dis;note\nM;flu;\nM;;\nM;cold;x\nF;"";y\nF;?;\n')
    read = read_table(p, missing=missing)
    scanned = scan_table(p, missing=missing).collect()
    assert scanned.equals(read), (scanned, read)
