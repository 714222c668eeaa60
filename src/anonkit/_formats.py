"""What a table file holds, by its name and first bytes, before anything reads it.

anonkit reads delimited text (CSV, TSV) and Parquet. A data steward's file is as often a
spreadsheet, a statistics package's file or a compressed CSV; read as text, those fail
with a message about something else (an Excel workbook "has a header but no records", a
``.csv.gz`` "is not valid UTF-8: declare encoding = latin-1"). :func:`table_format`
refuses them with what the file is and how to hand its table to anonkit.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from anonkit.exceptions import InputFileError, InputFormatError

if TYPE_CHECKING:
    from _csv import Reader

__all__ = ["csv_rows", "other_format", "refuse_nul", "require_file", "table_format"]

#: Parquet's first and last four bytes.
_PARQUET_MAGIC: Final = b"PAR1"
_PARQUET_SUFFIXES: Final = (".parquet", ".pq")

_EXPORT: Final = "export it as CSV (UTF-8) or Parquet, or"
#: What a file is and how to read it in Python, by family.
_FAMILIES: Final = {
    "spreadsheet": (
        "a spreadsheet workbook",
        "save the sheet as CSV (UTF-8), or in Python read it with pandas.read_excel and "
        "pass the frame",
    ),
    "zip": (
        "a ZIP archive (an Excel or OpenDocument workbook is one)",
        "save the sheet as CSV (UTF-8), or unzip the archive and read the file inside",
    ),
    "compressed": (
        "compressed",
        "decompress it first and read the file inside, or convert it to Parquet",
    ),
    "spss": ("an SPSS data file", f"{_EXPORT} in Python read it with pandas.read_spss"),
    "stata": ("a Stata data file", f"{_EXPORT} in Python read it with pandas.read_stata"),
    "sas": ("a SAS data file", f"{_EXPORT} in Python read it with pandas.read_sas"),
    "r": ("an R data file", "export it with write.csv or arrow::write_parquet"),
    "json": ("JSON", f"{_EXPORT} in Python read it with polars.read_json and pass the frame"),
    "arrow": ("an Arrow (Feather) file", f"{_EXPORT} in Python read it with polars.read_ipc"),
    "sqlite": ("an SQLite database", "export the table as CSV (UTF-8) or Parquet"),
    "image": ("an image", "give the table itself, as CSV (UTF-8) or Parquet"),
    "pdf": ("a PDF document", "export the table it shows as CSV (UTF-8) or Parquet"),
}
#: Families by file name ending (checked before the bytes: an .xlsx is a ZIP archive).
_SUFFIXES: Final = {
    ".xlsx": "spreadsheet",
    ".xlsm": "spreadsheet",
    ".xlsb": "spreadsheet",
    ".xls": "spreadsheet",
    ".ods": "spreadsheet",
    ".sav": "spss",
    ".zsav": "spss",
    ".por": "spss",
    ".dta": "stata",
    ".sas7bdat": "sas",
    ".xpt": "sas",
    ".rds": "r",
    ".rdata": "r",
    ".rda": "r",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
    ".feather": "arrow",
    ".arrow": "arrow",
    ".ipc": "arrow",
    ".gz": "compressed",
    ".bz2": "compressed",
    ".xz": "compressed",
    ".zst": "compressed",
    ".zip": "compressed",
    ".sqlite": "sqlite",
    ".db": "sqlite",
}
#: Families by first bytes, for files whose name does not say (none of these starts text).
_MAGIC: Final = (
    (re.compile(rb"PK\x03\x04"), "zip"),  # .xlsx and .ods are ZIP archives too
    (re.compile(rb"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), "spreadsheet"),  # OLE2: .xls
    (re.compile(rb"\x1f\x8b"), "compressed"),  # gzip
    (re.compile(rb"BZh[1-9]1AY&SY"), "compressed"),  # bzip2
    (re.compile(rb"\xfd7zXZ\x00"), "compressed"),  # xz
    (re.compile(rb"\x28\xb5\x2f\xfd"), "compressed"),  # zstd
    (re.compile(rb"\$FL[23]@\(#\)"), "spss"),
    (re.compile(rb"<stata_dta>"), "stata"),
    (re.compile(rb"ARROW1"), "arrow"),
    (re.compile(rb"SQLite format 3\x00"), "sqlite"),
    (re.compile(rb"\x89PNG\r\n\x1a\n|\xff\xd8\xff|GIF8[79]a"), "image"),  # PNG, JPEG, GIF
    (re.compile(rb"%PDF-"), "pdf"),
)


def table_format(path: Path) -> Literal["parquet", "text"]:
    """``"parquet"`` for a Parquet file (named ``.parquet`` / ``.pq``, or by its first and
    last bytes), ``"text"`` for anything to read as delimited text.

    Raises
    ------
    InputFileError
        If the file cannot be opened.
    InputFormatError
        If it is a spreadsheet, a compressed file, an SPSS, Stata, SAS or R data file,
        JSON, Arrow or SQLite (:func:`other_format`).
    """
    if path.suffix.lower() in _PARQUET_SUFFIXES:
        return "parquet"
    try:
        with path.open("rb") as fh:
            head = fh.read(32)
            tail = b""
            if len(head) >= 8:
                fh.seek(-4, 2)
                tail = fh.read(4)
    except OSError as exc:
        raise InputFileError(path, exc.strerror or str(exc)) from None
    if head.startswith(_PARQUET_MAGIC) and tail == _PARQUET_MAGIC:
        return "parquet"
    reason = other_format(path, head)
    if reason is not None:
        raise InputFormatError(path, reason)
    return "text"


def other_format(path: Path, head: bytes) -> str | None:
    """Why ``path`` is not delimited text, by its name or its first bytes ``head`` (a
    spreadsheet, a compressed file, an SPSS, Stata, SAS or R data file, JSON, Arrow or
    SQLite): what it is and how to hand its table over; ``None`` for anything else.

    Examples
    --------
    >>> other_format(Path("ages.xlsx"), b"PK\\x03\\x04")[:46]
    'it is a spreadsheet workbook, not delimited te'
    >>> other_format(Path("ages.csv"), b"age,band\\n") is None
    True
    """
    family = _SUFFIXES.get(path.suffix.lower())
    if family is None:
        family = next((f for magic, f in _MAGIC if magic.match(head)), None)
    if family is None:
        return None
    what, todo = _FAMILIES[family]
    return f"it is {what}, not delimited text; anonkit reads CSV, TSV and Parquet: {todo}."


def refuse_nul(path: Path, data: bytes, start: int) -> None:
    """Refuse text holding a NUL byte: UTF-16 without a byte-order mark (every other
    byte of Latin text is NUL) or a file that is not text, which UTF-8 would take."""
    if start == 0 and data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return  # marked UTF-16: the UTF-8 decoding error says to declare it
    at = data.find(b"\x00")
    if at >= 0:
        line = data.count(b"\n", 0, at) + 1
        where = (
            f"line {line} holds a NUL byte (byte offset {start + at}): the file is not UTF-8 text"
        )
        # Latin text in UTF-16: every other byte is NUL, the high byte, first (big-endian)
        # or second; a NUL here and there is no encoding, but damage or another format
        window = data[at - at % 2 : at - at % 2 + 256]
        if 3 * window.count(b"\x00") < len(window):
            raise InputFormatError(path, f"{where}; is it damaged, or not a table?", line=line)
        utf16 = "utf-16-be" if (start + at) % 2 == 0 else "utf-16-le"
        raise InputFormatError(
            path,
            f'{where}; if it is UTF-16 ("Unicode text"), declare encoding = "{utf16}" or '
            "save it as UTF-8.",
            line=line,
        )


#: The longest field the csv module reads (its default, 131,072 characters, stops a
#: long free-text cell); raised once, process-wide: it is only a ceiling.
_FIELD_LIMIT: Final = 2**31 - 1


def csv_rows(text: str, delimiter: str, *, strict: bool = False) -> Reader:
    """A :func:`csv.reader` over ``text``: fields of any length, and line ends ``\\n``,
    ``\\r\\n`` or ``\\r`` alike (its ``line_num`` counts them); ``strict``: a quote
    left open or followed by more of its field is an error (:class:`csv.Error`).

    Examples
    --------
    >>> list(csv_rows("a;b\\rc;d\\r", ";"))
    [['a', 'b'], ['c', 'd']]
    """
    if csv.field_size_limit() < _FIELD_LIMIT:
        csv.field_size_limit(_FIELD_LIMIT)
    return csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=strict)


def require_file(path: Path) -> None:
    """Refuse a ``path`` that is not a file: missing, or a folder (named as such).

    Raises
    ------
    InputFileError
        Saying which.
    """
    if not path.is_file():
        raise InputFileError(
            path, "it is a folder; name a file" if path.is_dir() else "no such file"
        )
