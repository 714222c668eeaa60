"""CSV read and written by Spark as anonkit reads and writes it.

Reading: the ``[read]`` options, and no silent repair.

Spark's CSV reader splits on ``,`` unless told otherwise, knows one null token, keeps
spaces, and decodes bytes its charset cannot map as U+FFFD without a word. Read that way,
a configuration's ``[read]`` section (separator, encoding, missing tokens, strip) would be
ignored on Spark, and a latin-1 file read as UTF-8 would publish ``f\ufffde`` for
``fée``. :func:`read_csv` applies the options as :func:`anonkit.io.tables.scan_table`
does (the separator sniffed from a local file's first records when not given, every
column text, missing tokens null, values and names stripped on request) and refuses a
file in which Spark met bytes it could not decode, naming the column: one Spark job over
the file, before any other.

A local file is checked on the driver first (:func:`~anonkit.io.tables.check_records`,
which reads quotes as polars does, and its bytes as UTF-8): a record of the wrong length
is named by its line, and a file whose quoted fields hold line breaks is read with
Spark's ``multiLine`` (one record per physical line otherwise: the rest of such a cell
would become a made-up record). Spark's own check of a local UTF-8 file is then not
needed: a U+FFFD in it is a character of the file, not a byte Spark could not decode.
Other paths (``hdfs://``, ``s3a://``, ``.csv.gz``, folders) are read one record per line.

Writing: :func:`escape_formulas`, cells a spreadsheet would run as formulas escaped;
:func:`unescape_formulas` undoes it for a release read back.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from anonkit._validation import check_bool
from anonkit.engines.spark_frames import named
from anonkit.exceptions import InputFileError, InputFormatError, ParameterError
from anonkit.io.cells import decimal_comma_columns
from anonkit.io.sniff import file_separator
from anonkit.io.stamps import file_stamp, note_source
from anonkit.io.tables import check_header, check_read_parameters, check_records, scan_table
from anonkit.io.write import FORMULA_START, NUMBER, escape_name, unescape_name

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "REPLACEMENT",
    "TEXT_SUFFIXES",
    "WHITESPACE",
    "escape_formulas",
    "read_csv",
    "read_written",
    "require_path",
    "unescape_formulas",
]

#: The characters polars' ``strip_chars()`` strips (Unicode ``White_Space``), which
#: ``strip`` removes and values are compared without.
WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)

#: What Spark puts for bytes its charset cannot decode.
REPLACEMENT = "\ufffd"
#: Python's names of the encodings Spark reads CSV in, and Spark's.
_SPARK_CHARSETS = {
    "utf-8": "utf-8",
    "iso8859-1": "iso-8859-1",
    "ascii": "us-ascii",
    "utf-16": "utf-16",
    "utf-16-be": "utf-16be",
    "utf-16-le": "utf-16le",
    "utf-32": "utf-32",
}
#: Paths Spark reads as delimited text (the rest as Parquet).
TEXT_SUFFIXES = (".csv", ".csv.gz", ".tsv")
#: CSV quoting as anonkit (and RFC 4180) writes it: a quote inside a quoted field is
#: doubled, where Spark's default escapes it with a backslash.
CSV_QUOTING = {"quote": '"', "escape": '"'}
#: A path that starts with a scheme (``hdfs:``, ``s3a:``, ``file:``): Spark's to find.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
#: Bytes of a local file read at a time when looking for quoted line breaks.
_CHUNK = 1 << 24


def require_path(path: str | Path) -> None:
    """Refuse a local ``path`` (no scheme, no glob) that does not exist, as the polars
    engine does; Spark's own error names no file.

    Raises
    ------
    InputFileError
        ``Cannot read <path>: no such file.``
    """
    text = str(path)
    if _SCHEME.match(text) or any(ch in text for ch in "*?[{"):
        return
    if not Path(text).exists():
        raise InputFileError(text, "no such file")


def read_csv(
    session: SparkSession,
    path: str | Path,
    *,
    separator: str | None = None,
    encoding: str = "utf-8",
    missing: Sequence[str] = ("",),
    strip: bool = False,
    decimal_comma: bool = False,
) -> DataFrame:
    """``path`` (a CSV file, or a folder of part files; any path Spark reads) as a Spark
    DataFrame of text columns, read with anonkit's reading options (see the module
    docstring and :func:`anonkit.io.tables.read_table`). The DataFrame is noted as
    reading ``path`` (:func:`~anonkit.io.stamps.note_source`), so that a fit finds a
    change to a local file made after this read began.

    Raises
    ------
    ParameterError
        If an option is invalid, or Spark does not read CSV in ``encoding``.
    InputEncodingError
        If a local file's first records are not UTF-8 (when ``encoding`` is UTF-8).
    InputFileError
        If ``path`` is local and does not exist.
    InputFormatError
        If Spark met bytes ``encoding`` cannot decode anywhere in the file.
    """
    from pyspark.sql import functions as F

    tokens = check_read_parameters(separator, encoding, missing, owner="read_csv")
    check_bool(decimal_comma, "decimal_comma", "read_csv")
    charset = _SPARK_CHARSETS.get(codecs.lookup(encoding).name)
    if charset is None:
        raise ParameterError(
            "encoding",
            "read_csv",
            "one Spark reads CSV in: 'utf-8', 'latin-1' (iso-8859-1), 'ascii', 'utf-16', "
            "'utf-32'; convert the file to one of them, or to Parquet",
            encoding,
        )
    require_path(path)
    stamp = file_stamp(path)  # before the checks read it: a change from then on is named
    sep = separator if separator is not None else _sniffed(path, encoding)
    local = _local_bytes(path, charset)
    if local and charset == "utf-8":
        check_header(Path(path), sep)  # Spark renames duplicates and names empty ones
    df = _spark_read(session, path, sep, charset)
    if local:  # counted here, so that the error names the line
        check_records(Path(path), sep, len(df.columns), utf8=charset == "utf-8")
        line_sep = _multiline_separator(Path(path))
        if line_sep is not None:  # one record per line would split a cell in two
            df = _spark_read(session, path, sep, charset, multiLine="true", lineSep=line_sep)
    if strip:
        df = df.toDF(*[c.strip() for c in df.columns])
    columns = list(df.columns)
    commas = _decimal_comma_columns(path, sep, tokens, strip, local, charset, decimal_comma)
    cleaned = []
    for c in columns:
        value = named(c)
        if strip:  # Unicode white space, as read_table strips it (F.trim: spaces only)
            value = F.btrim(value, F.lit(WHITESPACE))
        if "" not in tokens:  # Spark reads an empty field as null; anonkit keeps it then
            value = F.coalesce(value, F.lit(""))
        if tokens:
            value = F.when(value.isin(*tokens), F.lit(None)).otherwise(value)
        if c in commas:  # as anonkit.io.cells.decimal_points converts it
            value = F.regexp_replace(F.regexp_replace(value, r"\.", ""), ",", ".")
        cleaned.append(value.alias(c))
    df = df.select(*cleaned)
    if not (local and charset == "utf-8"):  # the driver read a local file's bytes as UTF-8
        _refuse_replacements(df, path, encoding)
    return note_source(df, path, stamp)


def _decimal_comma_columns(
    path: str | Path,
    sep: str,
    tokens: tuple[str, ...],
    strip: bool,
    local: bool,
    charset: str,
    decimal_comma: bool,
) -> set[str]:
    """The columns read with decimal commas: judged on the driver, by polars' streaming
    engine, as :func:`~anonkit.io.cells.decimal_points` judges them for ``read_table``
    (a column of text keeps its commas, an unclear ``1.234`` is an error), so the file
    must be local and UTF-8 for ``decimal_comma`` here.

    Raises
    ------
    ParameterError
        If ``decimal_comma`` is asked for a file the driver cannot read so.
    DataError
        As :func:`~anonkit.io.cells.decimal_points`.
    """
    if not decimal_comma:
        return set()
    if not (local and charset == "utf-8"):
        raise ParameterError(
            "decimal_comma",
            "read_csv",
            "False for a file that is not local or not UTF-8 (the driver judges which "
            "columns are numbers with decimal commas); convert the file to UTF-8 or "
            "Parquet with decimal points",
            decimal_comma,
        )
    lazy = scan_table(path, separator=sep, missing=tokens, strip=strip)
    return set(decimal_comma_columns(lazy))


def read_written(session: SparkSession, path: str | Path, separator: str) -> DataFrame:
    """A CSV release Spark wrote (:meth:`~anonkit.engines.spark_engine.SparkEngine.write`,
    records ending with ``\\n``), read back as written: text columns, and whole records,
    since a quoted cell may hold a line break (``multiLine``)."""
    return session.read.csv(
        str(path), header=True, inferSchema=False, sep=separator, multiLine="true",
        lineSep="\n", **CSV_QUOTING,
    )  # fmt: skip


def _spark_read(
    session: SparkSession, path: str | Path, sep: str, charset: str, **extra: str
) -> DataFrame:
    """``path`` read by Spark as text columns under its header, quoted as anonkit writes
    CSV; FAILFAST, as Spark would pad a short record with nulls and drop a surplus field."""
    return session.read.csv(
        str(path), header=True, inferSchema=False, sep=sep, encoding=charset, mode="FAILFAST",
        **extra, **CSV_QUOTING,
    )  # fmt: skip


def _local_bytes(path: str | Path, charset: str) -> bool:
    """Whether ``path`` is a local file whose separators, quotes and line feeds are the
    ASCII bytes :func:`~anonkit.io.sniff.record_problem` counts (not a compressed one:
    Spark's FAILFAST read checks those)."""
    local = "://" not in str(path) and Path(path).is_file()
    compressed = str(path).lower().endswith(".gz")
    return local and not compressed and charset in ("utf-8", "iso-8859-1", "us-ascii")


def _multiline_separator(path: Path) -> str | None:
    """The line separator to read the local file ``path`` with in Spark's ``multiLine``
    mode (``"\\n"`` or ``"\\r\\n"``, as its records end), or ``None`` when no quoted field
    holds a line break (Spark then reads one record per line, as polars reads it). The
    file's quoting is sound (:func:`~anonkit.io.tables.check_records` passed): a byte is
    inside quotes after an odd number of quote characters.

    Raises
    ------
    InputFormatError
        If quoted fields hold line breaks and records end both ways: Spark reads such a
        file with one line separator, polars with either (a record would keep a ``\\r``).
    """
    inside = quoted_break = False
    first_crlf: bool | None = None  # whether the first record ends with \r\n
    mixed = lines = 0
    last = 10
    with path.open("rb") as fh:
        while block := fh.read(_CHUNK):
            buf = np.frombuffer(block, dtype=np.uint8)
            feeds = np.flatnonzero(buf == 10)
            if b'"' in block:
                marks = np.flatnonzero((buf == 10) | (buf == 13) | (buf == 34))
                is_quote = buf[marks] == 34
                odd = ((np.cumsum(is_quote, dtype=np.int64) + inside) & 1) == 1
                quoted_break = quoted_break or bool(odd[~is_quote].any())
                inside = bool(odd[-1])
                ends = marks[(buf[marks] == 10) & ~odd]  # line feeds that end a record
            elif inside:  # the whole block is inside one quoted field
                quoted_break = quoted_break or feeds.size > 0 or b"\r" in block
                ends = feeds[:0]
            else:
                ends = feeds
            if ends.size and not mixed:
                before = buf[np.maximum(ends - 1, 0)]
                before[ends == 0] = last
                crlf = before == 13
                first_crlf = bool(crlf[0]) if first_crlf is None else first_crlf
                other = np.flatnonzero(crlf != first_crlf)
                if other.size:
                    mixed = lines + int(np.searchsorted(feeds, ends[other[0]])) + 1
            lines += feeds.size
            last = int(buf[-1])
    if not quoted_break:
        return None
    if mixed:
        ends_with = "\\n" if first_crlf else "\\r\\n"
        raise InputFormatError(
            path,
            f"line {mixed} ends with {ends_with}, unlike line 1, and quoted fields hold line "
            "breaks: Spark reads such a file only when every line ends alike. Convert its "
            "line ends, or read it with the polars engine.",
            line=mixed,
        )
    return "\r\n" if first_crlf else "\n"


def _sniffed(path: str | Path, encoding: str) -> str:
    """The separator of a local file, sniffed from its first records as anonkit reads
    files itself (decoded in ``encoding``); ``,`` for other paths (folders, cluster file
    systems)."""
    p = Path(path)
    if str(path).lower().endswith(".tsv"):
        return "\t"
    if "://" in str(path) or not p.is_file():
        return ","
    return file_separator(p, encoding)


def _refuse_replacements(df: DataFrame, path: str | Path, encoding: str) -> None:
    """Raise if a value of ``df`` holds U+FFFD: a byte ``encoding`` could not decode."""
    from pyspark.sql import functions as F

    flags = [
        F.max(named(c).contains(REPLACEMENT).cast("int")).alias(str(i))
        for i, c in enumerate(df.columns)
    ]
    if not flags:
        return
    try:
        row = df.agg(*flags).collect()[0]  # every field parsed: FAILFAST meets a bad record
    except Exception as err:
        if "MALFORMED_CSV_RECORD" not in str(err):
            raise
        # Spark's message quotes the record: never shown, it holds the values
        raise InputFormatError(
            path,
            "a record has more or fewer fields than the header (Spark names no line); "
            "fix the file or check the separator. A quoted field holding a line break "
            "also does it: Spark reads such a record as two where the driver cannot read "
            "the file first (a local, uncompressed file is read whole; the polars and "
            "streaming engines read it).",
        ) from None
    bad = [c for i, c in enumerate(df.columns) if row[str(i)]]
    if bad:
        names = ", ".join(repr(c) for c in bad)
        raise InputFormatError(
            path,
            f"column(s) {names} hold bytes that are not valid {encoding} (Spark read them as "
            'U+FFFD); declare the file\'s encoding (encoding = "latin-1" in the [read] '
            'section of the configuration, encoding="latin-1" in Python).',
        )


def escape_formulas(df: DataFrame) -> DataFrame:
    """:func:`anonkit.io.write.escape_formulas_lazy` in Spark: text cells and column names
    a spreadsheet would run as formulas get a leading ``'`` (numbers are left alone)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    out = []
    for field in df.schema.fields:
        col, name = named(field.name), field.name
        if isinstance(field.dataType, StringType):
            flag = col.rlike(FORMULA_START) & ~col.rlike(NUMBER)
            col = F.when(flag, F.concat(F.lit("'"), col)).otherwise(col)
        out.append(col.alias(escape_name(name)))
    return df.select(*out)


def unescape_formulas(df: DataFrame) -> DataFrame:
    """:func:`anonkit.io.write.unescape_formulas` in Spark: what :func:`escape_formulas`
    escaped loses its leading ``'`` (a release anonkit wrote, read back as released)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    out = []
    for field in df.schema.fields:
        col, name = named(field.name), field.name
        if isinstance(field.dataType, StringType):
            rest = F.substring(col, 2, 1 << 30)
            flag = col.startswith("'") & rest.rlike(FORMULA_START) & ~rest.rlike(NUMBER)
            col = F.when(flag, rest).otherwise(col)
        out.append(col.alias(unescape_name(name)))
    return df.select(*out)
