"""Files that read without an error but not as what they hold: UTF-16 without a mark,
Windows text read as Latin-1, a table without its line of column names. Each is an error
naming the line, never the records."""

from __future__ import annotations

from pathlib import Path

import pytest

from anonkit.exceptions import InputEncodingError, InputFormatError
from anonkit.io.tables import read_table, scan_table

ROWS = "age,sex,city\n31,f,Paris\n45,m,Lyon\n39,f,Paris\n52,m,Nice\n"


def _write(tmp_path: Path, data: bytes, name: str = "t.csv") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_mark_is_refused_with_its_byte_order(tmp_path: Path, encoding: str) -> None:
    """Read as UTF-8, every other byte was NUL: column names like '\\x00a\\x00g\\x00e'
    and a release full of NUL bytes, with exit code 0."""
    p = _write(tmp_path, ROWS.encode(encoding))
    for read in (read_table, scan_table):
        with pytest.raises(InputFormatError, match=f'NUL byte.*encoding = "{encoding}"'):
            read(p)
    assert read_table(p, encoding=encoding).height == 4


def test_windows_text_read_as_latin1_is_told_to_use_cp1252(tmp_path: Path) -> None:
    """Byte 0x80 is the euro sign in cp1252 and a control in Latin-1: the hint said
    latin-1, and following it published U+0080 where the file had a euro sign."""
    p = _write(tmp_path, "item,price\ncake,3\u20ac\ntea,2\u20ac\n".encode("cp1252"))
    with pytest.raises(InputEncodingError, match='encoding = "cp1252"'):
        read_table(p)
    with pytest.raises(InputFormatError, match='line 2 holds byte 0x80.*"cp1252"'):
        read_table(p, encoding="latin-1")
    assert read_table(p, encoding="cp1252")["price"].to_list() == ["3\u20ac", "2\u20ac"]


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
def test_utf8_text_declared_latin1_or_cp1252_is_refused(tmp_path: Path, encoding: str) -> None:
    """A UTF-8 file read as Latin-1 published 'grÃ¼n' for 'grün', with exit code 0: its
    bytes are valid UTF-8 holding letters beyond ASCII, which one-byte text almost never
    is. The error names the line and the letter, not the record."""
    p = _write(tmp_path, "word,n\nrot,1\ngrün,2\nblau,3\n".encode())
    with pytest.raises(InputFormatError, match='line 3 .*UTF-8.*encoding = "utf-8"') as exc:
        read_table(p, encoding=encoding)  # (scan_table reads UTF-8 only)
    assert "grün" not in str(exc.value)
    assert read_table(p)["word"].to_list() == ["rot", "grün", "blau"]
    plain = _write(tmp_path, "word,n\nrot,1\ngr\xfcn,2\n".encode("latin-1"), "l.csv")
    assert read_table(plain, encoding=encoding)["word"].to_list() == ["rot", "grün"]


def test_a_table_without_its_header_line_is_refused_without_quoting_it(
    tmp_path: Path,
) -> None:
    """UCI's adult.data has no header: its first record became the column names, and
    was published as the release's header."""
    record = "39,State-gov,77516,Bachelors,13,Male\n"
    body = "50,Self-emp,83311,Bachelors,13,Male\n38,Private,215646,HS-grad,9,Female\n"
    p = _write(tmp_path, (record + body * 3).encode())
    for read in (read_table, scan_table):
        with pytest.raises(InputFormatError, match="first line looks like a record") as exc:
            read(p)
        assert "State-gov" not in str(exc.value) and "77516" not in str(exc.value)


@pytest.mark.parametrize(
    ("record", "rows"),
    [
        # a date written like the dates below, beside a name and a diagnosis seen once
        ("Jane Doe,1975-03-04,80331,HIV", "Name{i},19{i}-0{j}-1{j},8166{j},flu"),
        # an e-mail address among addresses
        ("Jane Doe,jane.doe@example.org,Stuttgart,Pilot", "N{i},n{i}@mail.example,Ulm,Cook"),
        ("Jane Doe,04.03.1975,Pilot", "N{i},1{j}.0{j}.19{i},Cook"),
    ],
)
def test_a_first_record_with_a_date_or_address_is_refused(
    tmp_path: Path, record: str, rows: str
) -> None:
    """A rare first record (a name, a date, an e-mail address seen once) was read as the
    header: its birth date, zip code and diagnosis became the release's column names."""
    body = "".join(rows.format(i=10 + i, j=i % 9 + 1) + "\n" for i in range(40))
    p = _write(tmp_path, (record + "\n" + body).encode())
    for read in (read_table, scan_table):
        with pytest.raises(InputFormatError, match="first line looks like a record") as exc:
            read(p)
        assert not any(cell in str(exc.value) for cell in record.split(","))


@pytest.mark.parametrize(
    "text",
    [
        ROWS,
        "name,born,email\nAnn,1975-03-04,a@b.org\nBob,1980-12-01,b@c.org\nCy,1990-01-02,c@d.org\n",
        "id,2020-01-01,2020-01-02\n1,120,340\n2,75,1200\n3,9,15\n",  # dates over counts
        "code,Q1\nA1,3\nB2,4\nC3,5\n",
        "id,2019,2020\n1,120,340\n2,75,1200\n3,9,15\n",  # years over counts
        "sex,partner_sex\nf,m\nm,f\nf,f\n",  # values that are not the names
        "a\n1\n2\n3\n",  # one column
    ],
)
def test_real_headers_are_read(tmp_path: Path, text: str) -> None:
    assert read_table(_write(tmp_path, text.encode())).height == text.count("\n") - 1


def test_a_column_named_star_is_refused(tmp_path: Path) -> None:
    """polars reads the name '*' as every column: reading raised a raw ValueError."""
    with pytest.raises(InputFormatError, match="column 2 is named '\\*'"):
        read_table(_write(tmp_path, b"male;*\nfemale;*\n"))
