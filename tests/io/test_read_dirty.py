"""read_table on real-world files: encodings, separators, ragged rows, bad headers."""

from __future__ import annotations

import random
from pathlib import Path

import polars as pl
import pytest

from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import (
    EmptyDataError,
    InputEncodingError,
    InputFileError,
    InputFormatError,
    ParameterError,
)
from anonkit.io.sniff import field_counts, python_field_counts
from anonkit.io.tables import (
    ReadInfo,
    read_table,
    read_table_info,
    scan_table,
    unknown_column_hint,
)


def _write(tmp_path: Path, data: str | bytes, name: str = "t.csv") -> Path:
    p = tmp_path / name
    if isinstance(data, str):
        p.write_bytes(data.encode("utf-8"))
    else:
        p.write_bytes(data)
    return p


# ------------------------------------------------------------------------ encodings
def test_latin1_in_utf8_read_names_line_offset_and_fix(tmp_path: Path) -> None:
    p = _write(tmp_path, "name,city\nann,Paris\nbob,Montr\xe9al\n".encode("latin-1"))
    with pytest.raises(InputEncodingError) as exc:
        read_table(p)
    err = exc.value
    assert isinstance(err, InputFormatError) and isinstance(err, InputFileError)
    assert err.line == 3 and err.offset == 29 and err.byte == 0xE9
    msg = str(err)
    assert str(p) in msg and "line 3" in msg and "byte offset 29" in msg
    assert 'encoding = "latin-1"' in msg and 'encoding="latin-1"' in msg
    assert err.exit_code == 2


def test_bad_byte_after_the_sample_is_located(tmp_path: Path) -> None:
    body = "".join(f"v{i},w{i}\n" for i in range(30_000))
    data = b"a,b\n" + body.encode() + b"x\xff,y\n"
    p = _write(tmp_path, data)
    with pytest.raises(InputEncodingError) as exc:
        read_table(p)
    assert exc.value.line == 30_002 and exc.value.offset == len(data) - 4


def test_offset_counts_the_byte_order_mark(tmp_path: Path) -> None:
    p = _write(tmp_path, b"\xef\xbb\xbfa,b\n1,\xe9\n")
    with pytest.raises(InputEncodingError) as exc:
        read_table(p)
    assert exc.value.line == 2 and exc.value.offset == 9


def test_latin1_declared_reads_exact_values(tmp_path: Path) -> None:
    p = _write(tmp_path, "name,city\nbob,\xe9\n".encode("latin-1"))
    frame, info = read_table_info(p, encoding="latin-1")
    assert frame["city"].to_list() == ["\xe9"]
    assert "\ufffd" not in frame["city"][0]
    assert info.encoding == "latin-1"


@pytest.mark.parametrize("encoding", ["cp1252", "utf-16", "utf-8-sig"])
def test_other_encodings(tmp_path: Path, encoding: str) -> None:
    p = _write(tmp_path, "nom;ville\nZo\xe9;Orl\xe9ans\n".encode(encoding))
    frame = read_table(p, encoding=encoding)
    assert frame.columns == ["nom", "ville"]
    assert frame.row(0) == ("Zo\xe9", "Orl\xe9ans")


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    p = _write(tmp_path, b"\xef\xbb\xbfage,sex\n31,f\n")
    assert read_table(p).columns == ["age", "sex"]


def test_unknown_encoding_is_a_usage_error(tmp_path: Path) -> None:
    p = _write(tmp_path, "a,b\n1,2\n")
    with pytest.raises(ParameterError, match="encoding") as exc:
        read_table(p, encoding="klingon")
    assert exc.value.exit_code == 2


def test_hierarchy_with_bad_bytes(tmp_path: Path) -> None:
    p = _write(tmp_path, "Paris;FR;*\nMontr\xe9al;CA;*\n".encode("latin-1"))
    with pytest.raises(InputEncodingError) as exc:
        Hierarchy.from_csv(p)
    assert exc.value.line == 2 and exc.value.offset == 16
    assert 'encoding="latin-1"' in str(exc.value)
    h = Hierarchy.from_csv(p, encoding="latin-1")
    assert h.leaves == ("Paris", "Montr\xe9al")
    with pytest.raises(ParameterError):
        Hierarchy.from_csv(p, encoding="nope")


# ------------------------------------------------------------------------ separators
@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_sniffing_with_quoted_separators(tmp_path: Path, sep: str) -> None:
    others = "".join(c for c in ",;\t|" if c != sep)
    rows = [["id", "note", "zip"]] + [[str(i), f'"a{others}b{sep}c"', "13053"] for i in range(5)]
    p = _write(tmp_path, "".join(sep.join(r) + "\n" for r in rows))
    frame, info = read_table_info(p)
    assert info.separator == sep and info.sniffed
    assert frame.columns == ["id", "note", "zip"]
    assert frame["note"][0] == f"a{others}b{sep}c"


def test_given_separator_and_tsv_suffix(tmp_path: Path) -> None:
    p = _write(tmp_path, "a;b\n1;2\n")
    frame, info = read_table_info(p, separator=";")
    assert frame.shape == (1, 2) and info.separator == ";" and not info.sniffed
    t = _write(tmp_path, "a\tb,c\n1\t2,3\n", name="t.tsv")
    frame, info = read_table_info(t)
    assert frame.columns == ["a", "b,c"] and info.separator == "\t" and not info.sniffed


def test_one_column_file(tmp_path: Path) -> None:
    p = _write(tmp_path, "age\n31\n45\n")
    frame, info = read_table_info(p)
    assert frame.columns == ["age"] and frame.height == 2
    assert info.single_column_hint is None


def test_wrong_separator_hint(tmp_path: Path) -> None:
    p = _write(tmp_path, "age,sex,zip\n31,f,13053\n")
    frame, info = read_table_info(p, separator=";")
    assert frame.width == 1
    assert info.single_column_hint == ","
    hint = unknown_column_hint(info, ["age"])
    assert "';'" in hint and "one column" in hint and "separator = ','" in hint
    good = read_table_info(p)[1]
    assert good.single_column_hint is None and unknown_column_hint(good, ["x"]) == ""


def test_padded_names_hint(tmp_path: Path) -> None:
    p = _write(tmp_path, "age, sex\n31, f\n")
    _, info = read_table_info(p)
    assert "strip" in unknown_column_hint(info, ["sex"])
    _, stripped = read_table_info(p, strip=True)
    assert unknown_column_hint(stripped, ["sex"]) == ""


def test_padded_parquet_names_are_not_told_to_set_strip(tmp_path: Path) -> None:
    """strip does nothing to Parquet: setting it, as the hint said, gave the same hint."""
    p = tmp_path / "t.parquet"
    pl.DataFrame({"age": ["31"], "sex ": ["f"]}).write_parquet(p)
    _, info = read_table_info(p, strip=True)
    hint = unknown_column_hint(info, ["sex"])
    assert "text files only" in hint and "set strip" not in hint


def test_bad_separator_parameter(tmp_path: Path) -> None:
    p = _write(tmp_path, "a,b\n1,2\n")
    for bad in ("", ";;", '"', "\n"):
        with pytest.raises(ParameterError, match="separator"):
            read_table(p, separator=bad)


# ------------------------------------------------------------------------ cleaning
def test_uci_style_file_with_strip(tmp_path: Path) -> None:
    text = "age, workclass, fnlwgt\n39, State-gov, 77516\n50, Self-emp-not-inc, 83311\n"
    p = _write(tmp_path, text)
    frame, info = read_table_info(p, strip=True)
    assert info.separator == "," and info.stripped
    assert frame.columns == ["age", "workclass", "fnlwgt"]
    assert frame.row(0) == ("39", "State-gov", "77516")
    raw = read_table(p)
    assert raw.columns == ["age", " workclass", " fnlwgt"]


def test_missing_tokens(tmp_path: Path) -> None:
    p = _write(tmp_path, "age,job,sex\n39,?,m\n50,,f\n?, ? ,f\n")
    frame, info = read_table_info(p, missing=["?"])
    assert frame["job"].to_list() == [None, "", " ? "]
    assert frame["age"].to_list() == ["39", "50", None]
    assert info.missing_cells == 2
    frame, info = read_table_info(p, missing=["?", ""], strip=True)
    assert frame["job"].to_list() == [None, None, None]
    assert info.missing_cells == 4
    frame, info = read_table_info(p)  # default: empty cells are nulls
    assert frame["job"].to_list() == ["?", None, " ? "] and info.missing_cells == 1


def test_default_read_matches_plain_polars(tmp_path: Path) -> None:
    p = _write(tmp_path, 'a,b,c\n1,,3\n"x,y",007,\n')
    expected = pl.read_csv(p, infer_schema=False)
    assert read_table(p).equals(expected)


# ------------------------------------------------------------------------ structure
def test_duplicate_names(tmp_path: Path) -> None:
    p = _write(tmp_path, "age,sex,age,zip,sex\n1,2,3,4,5\n")
    with pytest.raises(InputFormatError, match=r"'age', 'sex'") as exc:
        read_table(p)
    assert "more than once" in str(exc.value)
    q = _write(tmp_path, "age, sex,sex\n1,2,3\n", name="q.csv")
    read_table(q)  # distinct until stripped
    with pytest.raises(InputFormatError, match="'sex'"):
        read_table(q, strip=True)


def test_empty_column_name(tmp_path: Path) -> None:
    p = _write(tmp_path, "age,,zip\n1,2,3\n")
    with pytest.raises(InputFormatError, match="column 2 has no name") as exc:
        read_table(p)
    assert exc.value.column == 2


@pytest.mark.parametrize("reader", ["read_table", "scan_table"])
@pytest.mark.parametrize(
    ("text", "line", "fields"),
    [
        ("a,b,c,d\n1,2,3,4\n1,2,3,4,5\n", 3, 5),
        ("a,b,c,d\n1,2,3,4\n1,2,3\n1,2,3,4\n", 3, 3),
        ("a,b,c,d\n1,2,3,4\n1\n", 3, 1),
        ('a,b,c,d\n"1\n2",2,3,4\n1,2,3\n', 4, 3),
        ("a,b,c,d\r\n1,2,3,4\r\n1,2,\r\n", 3, 3),
    ],
)
def test_ragged_rows(tmp_path: Path, reader: str, text: str, line: int, fields: int) -> None:
    """scan_table used to parse as it went: polars drops a surplus field when it reads
    some of the columns only, and pads a short record with nulls, so a streamed run
    published a ragged file without a word where read_table refuses it."""
    from anonkit.io import tables

    p = _write(tmp_path, text)
    with pytest.raises(InputFormatError) as exc:
        getattr(tables, reader)(p, separator=",")
    assert exc.value.line == line
    assert f"line {line} has {fields} field" in str(exc.value)
    assert "the header has 4" in str(exc.value)


@pytest.mark.parametrize(
    ("middle", "error", "says"),
    [
        (b"F,3\xe9secret\n", InputEncodingError, "line 1003"),
        (b'F,"secret unclosed\n', InputFormatError, "never closed"),
        (b'F,se"cret\n', InputFormatError, "line 1003 has a quote character inside a field"),
    ],
    ids=["bad-byte", "open-quote", "stray-quote"],
)
def test_a_streamed_file_s_bad_bytes_and_quotes_are_errors_too(
    tmp_path: Path, middle: bytes, error: type[Exception], says: str
) -> None:
    """Past the sampled head, a scan met them as polars' errors: a traceback, and for an
    open quote one quoting every record after it (300,000 lines on the terminal)."""
    from anonkit.io.tables import scan_table

    head = b"sex,age\n" + b"".join(b"%s,%d\n" % (b"FM"[i % 2 : i % 2 + 1], 30 + i % 5)
                                   for i in range(1001))  # fmt: skip
    path = tmp_path / "people.csv"
    path.write_bytes(head + middle + b"M,31\n" * 5)
    with pytest.raises(error, match=says) as exc:
        scan_table(path, separator=",")
    assert "secret" not in str(exc.value)


def test_streamed_check_reads_records_across_its_chunks() -> None:
    """Chunks end at line feeds outside quotes; each chunk's lines are counted on."""
    from anonkit.io.sniff import record_problem

    rnd = random.Random(3)
    pieces = ["x", "", '"a,b"', '"q""r"', '"l\nm"', "yz"]
    for _ in range(100):
        rows = [",".join(rnd.choice(pieces) for _ in range(3)) for _ in range(rnd.randint(1, 9))]
        bad = rnd.randrange(len(rows) + 1)
        if bad < len(rows):
            rows[bad] += ",extra"
        data = ("a,b,c\n" + "\n".join(rows) + "\n").encode()
        counts, lines = python_field_counts(data.decode(), ",")
        expected = next(
            ((line, n) for n, line in zip(counts[1:], lines[1:], strict=True) if n not in (0, 3)),
            None,
        )
        for chunk in (7, 16, 1 << 20):
            found = record_problem(data, ",", 3, chunk=chunk)
            assert (None if found is None else found[:1] + (found.fields,)) == expected, chunk


def test_quoted_empty_last_field_is_not_ragged(tmp_path: Path) -> None:
    p = _write(tmp_path, 'a,b,c\n1,2,""\n1,2,\n')
    assert read_table(p)["c"].to_list() == [None, None]


def test_blank_lines_are_skipped(tmp_path: Path) -> None:
    p = _write(tmp_path, "a,b\n1,2\n\n3,4\n\n\n")
    frame, info = read_table_info(p)
    assert frame.rows() == [("1", "2"), ("3", "4")]
    assert info.blank_lines == 3
    one = _write(tmp_path, "a\n1\n\n2\n", name="one.csv")
    assert read_table(one)["a"].to_list() == ["1", None, "2"]  # an empty value


def test_blank_lines_before_the_header(tmp_path: Path) -> None:
    p = _write(tmp_path, "\n\nage,,sex\n1,2,3\n")
    with pytest.raises(InputFormatError, match="column 2 has no name"):
        read_table(p)
    q = _write(tmp_path, "\n\na,b\n1,2\n\n3\n", name="q.csv")
    with pytest.raises(InputFormatError, match="line 6 has 1 field,"):
        read_table(q)
    r = _write(tmp_path, "\r\na,b\r\n1,\r\n\r\n", name="r.csv")
    frame, info = read_table_info(r)
    assert frame.rows() == [("1", None)] and info.blank_lines == 1


def test_carriage_return_line_ends(tmp_path: Path) -> None:
    p = _write(tmp_path, "a,b\r1,2\r")
    with pytest.raises(InputFormatError, match="carriage return"):
        read_table(p)


def test_field_counts_match_the_csv_module() -> None:
    rnd = random.Random(7)
    pieces = ["x", "", '"a,b"', '"q""r"', '"l\nm"', "y z", '"\r\n"']
    for _ in range(200):
        lines = []
        for _ in range(rnd.randint(1, 6)):
            lines.append(",".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 4))))
        if rnd.random() < 0.3:
            lines.insert(rnd.randint(0, len(lines)), "")
        text = rnd.choice(["\n", "\r\n"]).join(lines) + rnd.choice(["", "\n"])
        counts, starts = field_counts(text.encode(), ",")
        assert (counts.tolist(), starts.tolist()) == python_field_counts(text, ","), text


# ------------------------------------------------------------------------ empties
def test_empty_file(tmp_path: Path) -> None:
    p = _write(tmp_path, b"")
    with pytest.raises(EmptyDataError, match="is empty") as exc:
        read_table(p)
    assert str(p) in str(exc.value) and "anonymize" not in str(exc.value)


def test_header_only(tmp_path: Path) -> None:
    for text in ("a,b\n", "a,b\n\n\n"):
        p = _write(tmp_path, text)
        with pytest.raises(EmptyDataError, match="has a header but no records") as exc:
            read_table(p)
        assert "anonymize" not in str(exc.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no such file"):
        read_table(tmp_path / "nope.csv")


# ------------------------------------------------------------------------ parquet
def test_parquet_is_read_unchanged(tmp_path: Path) -> None:
    p = tmp_path / "t.parquet"
    pl.DataFrame({"a": ["", "?"], "b": [1, 2]}).write_parquet(p)
    frame, info = read_table_info(p, missing=["?"])
    assert frame["a"].to_list() == ["", "?"]
    assert info == ReadInfo(
        separator=None,
        sniffed=False,
        encoding="utf-8",
        missing_cells=0,
        stripped=False,
        columns=("a", "b"),
    )


def test_streaming_another_encoding_says_how_to_go_on(tmp_path: Path) -> None:
    from anonkit.io.tables import scan_table

    path = tmp_path / "l.csv"
    path.write_bytes("v\ncafé\n".encode("latin-1"))
    with pytest.raises(ParameterError, match="convert the file to UTF-8 or to Parquet"):
        scan_table(path, encoding="latin-1")


def test_streaming_bytes_not_utf8_advise_what_the_streaming_engine_takes(
    tmp_path: Path,
) -> None:
    """The message advised encoding = "latin-1", which the streaming engine then refused
    (naming scan_table, an internal function, to a command-line user)."""
    from anonkit.exceptions import InputEncodingError
    from anonkit.io.tables import scan_table

    path = tmp_path / "l.csv"
    path.write_bytes("v\ncaf\u00e9\n".encode("latin-1"))
    with pytest.raises(InputEncodingError) as err:
        scan_table(path)
    text = str(err.value)
    assert "line 2 is not valid UTF-8" in text
    assert "streaming engine reads UTF-8 only" in text and 'engine = "polars"' in text
    assert err.value.suggested == "latin-1"
    with pytest.raises(ParameterError) as refused:
        scan_table(path, encoding="latin-1")
    assert "scan_table" not in str(refused.value)
    assert "streaming engine" in str(refused.value)


def test_field_counts_without_quotes_match_the_csv_module() -> None:
    """Text without a quote character is counted line by line (the faster path)."""
    rnd = random.Random(11)
    for _ in range(200):
        lines = [",".join("x" * rnd.randint(0, 2) for _ in range(rnd.randint(1, 4)))
                 for _ in range(rnd.randint(1, 6))]  # fmt: skip
        if rnd.random() < 0.3:
            lines.insert(rnd.randint(0, len(lines)), "")
        text = rnd.choice(["\n", "\r\n"]).join(lines) + rnd.choice(["", "\n"])
        counts, starts = field_counts(text.encode(), ",")
        assert (counts.tolist(), starts.tolist()) == python_field_counts(text, ","), text


# ------------------------------------------------------------- files that are not text
@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("people.xlsx", b"PK\x03\x04\x14\x00\x06\x00" + b"\x00" * 40, "spreadsheet"),
        ("people.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 40, "spreadsheet"),
        ("people.csv.gz", b"\x1f\x8b\x08\x00" + b"\x00" * 40, "compressed"),
        ("people.csv", b"BZh91AY&SY" + b"\x00" * 40, "compressed"),
        ("people.sav", b"$FL2@(#) IBM SPSS STATISTICS" + b"\x00" * 40, "SPSS"),
        ("people.dta", b"<stata_dta><header>" + b"\x00" * 40, "Stata"),
        ("people.sas7bdat", b"\x00" * 64, "SAS"),
        ("people.json", b'[{"age": 31}]\n', "JSON"),
        ("people.rds", b"\x1f\x8b\x08\x00" + b"\x00" * 40, "R"),
    ],
)
def test_a_file_that_is_not_delimited_text_is_named_with_what_to_do(
    tmp_path: Path, name: str, data: bytes, says: str
) -> None:
    """A steward's .xlsx was read as CSV ('has a header but no records'), a .csv.gz as
    text in a wrong encoding ('declare encoding = "latin-1"')."""
    p = _write(tmp_path, data, name)
    for read in (read_table, scan_table):
        with pytest.raises(InputFormatError) as exc:
            read(p)
        msg = str(exc.value)
        assert says in msg and name in msg
        assert "latin-1" not in msg and "no records" not in msg


def test_parquet_under_another_name_is_read_as_parquet_and_a_par1_header_as_text(
    tmp_path: Path,
) -> None:
    frame = pl.DataFrame({"age": ["31", "45"], "sex": ["f", "m"]})
    frame.write_parquet(tmp_path / "t.dat")
    assert read_table(tmp_path / "t.dat").equals(frame)
    assert scan_table(tmp_path / "t.dat").collect().equals(frame)
    p = _write(tmp_path, "PAR1,PAR2\n1,2\n3,4\n", "codes.csv")
    assert read_table(p).columns == ["PAR1", "PAR2"]


def test_a_utf16_file_is_told_to_declare_utf16(tmp_path: Path) -> None:
    """Excel's "Unicode text" is UTF-16 with a byte-order mark; the error said latin-1."""
    p = _write(tmp_path, "sex\tage\nf\t31\nm\t45\n".encode("utf-16"), "u16.txt")
    with pytest.raises(InputEncodingError, match='encoding = "utf-16"'):
        read_table(p)
    assert read_table(p, encoding="utf-16").rows() == [("f", "31"), ("m", "45")]


def test_a_hierarchy_saved_as_a_workbook_is_named(tmp_path: Path) -> None:
    p = _write(tmp_path, b"PK\x03\x04\x14\x00\x06\x00" + b"\x00" * 40, "age.xlsx")
    with pytest.raises(InputFormatError, match="age.xlsx: it is a spreadsheet workbook"):
        Hierarchy.from_csv(p)


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("Patients export 2024-01-01\nage,sex,zip\n31,f,10115\n45,m,10117\n", "line 1"),
        ("# exported by X\n# 2024\nage;sex;zip\n31;f;10115\n45;m;10117\n", "lines 1-2"),
    ],
)
def test_a_title_above_the_header_is_named_not_read_as_one_column(
    tmp_path: Path, text: str, lines: str
) -> None:
    """Exports often open with a title or comment lines: the file was read as one column
    named after the title, its records whole values, and init proposed to remove it."""
    p = _write(tmp_path, text)
    for read in (read_table, scan_table):
        with pytest.raises(InputFormatError) as exc:
            read(p)
        msg = str(exc.value)
        assert f"{lines} hold" in msg and "3 fields separated by" in msg
        assert "lines above the header" in msg
        assert "Patients" not in msg and "exported" not in msg  # the file's text is not shown


def test_a_file_of_one_column_is_still_one_column(tmp_path: Path) -> None:
    p = _write(tmp_path, "zip\n10115\n10117\n20095\n")
    assert read_table(p).columns == ["zip"]


def test_a_spreadsheet_separator_line_is_named(tmp_path: Path) -> None:
    """Excel writes 'sep=;' above the header of some exports: the read said 'column 2
    has no name'."""
    p = _write(tmp_path, "sep=;\nage;sex\n31;f\n45;m\n")
    for read in (read_table, scan_table):
        with pytest.raises(InputFormatError, match=r"line 1 is a spreadsheet's separator line"):
            read(p)


def test_a_tsv_file_without_tabs_is_named(tmp_path: Path) -> None:
    p = _write(tmp_path, "age,sex\n31,f\n45,m\n", "people.tsv")
    with pytest.raises(InputFormatError, match=r"no tab.*looks ','-separated"):
        read_table(p)
    assert read_table(p, separator=",").columns == ["age", "sex"]


def test_a_zip_archive_under_a_text_name_is_named(tmp_path: Path) -> None:
    p = _write(tmp_path, b"PK\x03\x04\x14\x00" + b"\x00" * 40, "export.csv")
    with pytest.raises(InputFormatError, match="it is a ZIP archive"):
        read_table(p)


def test_a_header_ending_with_the_separator_is_named(tmp_path: Path) -> None:
    """Some exports end every line with the separator: the error only said column 3 had
    no name."""
    p = _write(tmp_path, "age;sex;\n31;f;\n45;m;\n")
    for read in (read_table, scan_table):
        with pytest.raises(InputFormatError, match=r"header ends with the separator ';'"):
            read(p)
    with pytest.raises(InputFormatError, match=r"column 1 has no name"):
        read_table(_write(tmp_path, ";age;sex\n1;31;f\n", "lead.csv"))


def test_scan_reads_a_tsv_file_with_tabs_as_read_table_does(tmp_path: Path) -> None:
    """A one-column .tsv file whose values hold commas: read_table splits it by tabs
    (one column); the scan sniffed ',' and refused its records as ragged."""
    p = _write(tmp_path, "city\nParis, France\nLyon, France\nNice, France\n", "cities.tsv")
    assert read_table(p).to_dicts() == scan_table(p).collect().to_dicts()
    assert scan_table(p).collect()["city"].to_list()[0] == "Paris, France"
    with pytest.raises(InputFormatError, match=r"no tab.*looks ','-separated"):
        scan_table(_write(tmp_path, "age,sex\n31,f\n45,m\n", "people.tsv"))


def test_decimal_commas_are_read_with_a_decimal_point_when_asked(tmp_path: Path) -> None:
    p = _write(tmp_path, "kg;name;n\n49,4;Smith, J;1\n-0,5;a,b;1,234\n72;;1.234,5\n")
    as_is = read_table(p)
    assert as_is["kg"].to_list() == ["49,4", "-0,5", "72"]
    for read in (
        lambda **kw: read_table(p, **kw),
        lambda **kw: scan_table(p, **kw).collect(),
    ):
        frame = read(decimal_comma=True)
        assert frame["kg"].to_list() == ["49.4", "-0.5", "72"]
        # other text as it stands; dot-thousands in groups of three are read
        assert frame["name"].to_list() == ["Smith, J", "a,b", None]
        assert frame["n"].to_list() == ["1", "1.234", "1234.5"]
    assert read_table(p, decimal_comma=True, strip=True)["kg"].to_list()[0] == "49.4"
    with pytest.raises(ParameterError, match="decimal_comma"):
        read_table(p, decimal_comma="yes")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="decimal_comma"):
        scan_table(p, decimal_comma=1)  # type: ignore[arg-type]


@pytest.mark.parametrize("quoted", [False, True])
def test_a_field_longer_than_pythons_csv_limit_reads(tmp_path: Path, quoted: bool) -> None:
    """A 200,000-character free-text cell in the first MiB stopped every command with a
    traceback: Python's csv module, which samples the file, refuses fields over 131,072
    characters by default."""
    note = "x" * 200_000
    cell = f'"{note}, still"' if quoted else note
    p = tmp_path / "t.csv"
    p.write_text(f"age,note\n31,{cell}\n45,short\n39,short\n", encoding="utf-8")
    for read in (read_table, lambda path: scan_table(path).collect()):
        frame = read(p)
        assert frame.height == 3 and len(frame["note"][0]) == len(cell) - 2 * quoted


def test_hierarchy_text_with_old_mac_line_ends_or_long_labels_reads(tmp_path: Path) -> None:
    """A hierarchy file with carriage-return line ends, or a label over 131,072
    characters, stopped with a traceback from the csv module."""
    rows = [["81667", "8166*", "*"], ["81675", "816**", "*"]]
    for end in ("\r", "\r\n", "\n"):
        text = end.join(";".join(r) for r in rows) + end
        assert Hierarchy.from_text(text, name="zip") == Hierarchy(rows, name="zip")
    long = [["a" * 200_000, "*"], ["b", "*"]]
    assert Hierarchy.from_text("a" * 200_000 + ";*\nb;*\n") == Hierarchy(long)


def test_hierarchy_file_with_a_nul_byte_is_refused(tmp_path: Path) -> None:
    """A data file with a NUL byte is refused; a hierarchy file with one was read, its
    labels holding NUL characters."""
    p = tmp_path / "zip.csv"
    p.write_bytes(b"81667;8166*;*\n81\x0075;816**;*\n")
    with pytest.raises(InputFormatError, match="NUL byte"):
        Hierarchy.from_csv(p)


def test_a_folder_given_as_the_input_is_named_a_folder(tmp_path: Path) -> None:
    """The message said 'no such file' for a path that exists, as a folder."""
    folder = tmp_path / "base.csv"
    folder.mkdir()
    for read in (read_table, scan_table):
        with pytest.raises(InputFileError, match="it is a folder; name a file"):
            read(folder)
    with pytest.raises(InputFileError, match="no such file"):
        read_table(tmp_path / "missing.csv")


@pytest.mark.parametrize(
    ("head", "says"),
    [(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "an image"), (b"%PDF-1.7\n%\xe2\xe3", "a PDF")],
)
def test_an_image_or_a_pdf_named_csv_is_named(tmp_path: Path, head: bytes, says: str) -> None:
    """A PNG or a PDF renamed .csv was told to declare encoding = "utf-16-le"."""
    p = _write(tmp_path, head + b"\x00" * 64)
    with pytest.raises(InputFormatError, match=f"it is {says}") as err:
        read_table(p)
    assert "utf-16" not in str(err.value)


def test_one_nul_byte_in_utf8_text_is_not_taken_for_utf16(tmp_path: Path) -> None:
    """One NUL byte in UTF-8 text was told to declare UTF-16, which it is not."""
    p = _write(tmp_path, b"sex,age\nf,31\nm,4\x005\nf,39\n")
    with pytest.raises(InputFormatError, match="line 3 holds a NUL byte") as err:
        read_table(p)
    assert "utf-16" not in str(err.value)
    # Latin text in UTF-16 without its mark still is
    with pytest.raises(InputFormatError, match='encoding = "utf-16-le"'):
        read_table(_write(tmp_path, "sex,age\nf,31\n".encode("utf-16-le"), "u.csv"))
