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

Writing: :func:`escape_formulas`, cells a spreadsheet would run as formulas escaped;
:func:`unescape_formulas` undoes it for a release read back.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from anonkit._validation import check_bool
from anonkit.exceptions import InputFormatError, ParameterError
from anonkit.io.cells import DECIMAL_COMMA
from anonkit.io.sniff import sample_head, sniff_separator
from anonkit.io.stamps import file_stamp, note_source
from anonkit.io.tables import check_header, check_read_parameters, check_records
from anonkit.io.write import FORMULA_START, NUMBER, escape_name, unescape_name

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["REPLACEMENT", "TEXT_SUFFIXES", "escape_formulas", "read_csv", "unescape_formulas"]

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
    stamp = file_stamp(path)  # before the checks read it: a change from then on is named
    sep = separator if separator is not None else _sniffed(path, encoding)
    if _local_bytes(path, charset) and charset == "utf-8":
        check_header(Path(path), sep)  # Spark renames duplicates and names empty ones
    # FAILFAST: Spark would pad a short record with nulls and drop a surplus field
    df = session.read.csv(
        str(path),
        header=True,
        inferSchema=False,
        sep=sep,
        encoding=charset,
        mode="FAILFAST",
        **CSV_QUOTING,
    )
    if _local_bytes(path, charset):  # counted here, so that the error names the line
        check_records(Path(path), sep, len(df.columns), utf8=charset == "utf-8")
    if strip:
        df = df.toDF(*[c.strip() for c in df.columns])
    columns = list(df.columns)
    cleaned = []
    for c in columns:
        value = F.col(f"`{c}`")
        if strip:  # whitespace, as read_table strips it (F.trim takes spaces only)
            value = F.regexp_replace(value, r"^\s+|\s+$", "")
        if "" not in tokens:  # Spark reads an empty field as null; anonkit keeps it then
            value = F.coalesce(value, F.lit(""))
        if tokens:
            value = F.when(value.isin(*tokens), F.lit(None)).otherwise(value)
        if decimal_comma:  # as anonkit.io.cells.decimal_points
            value = F.regexp_replace(value, DECIMAL_COMMA, "$1.$2")
        cleaned.append(value.alias(c))
    df = df.select(*cleaned)
    _refuse_replacements(df, path, encoding)
    return note_source(df, path, stamp)


def _local_bytes(path: str | Path, charset: str) -> bool:
    """Whether ``path`` is a local file whose separators, quotes and line feeds are the
    ASCII bytes :func:`~anonkit.io.sniff.record_problem` counts (not a compressed one:
    Spark's FAILFAST read checks those)."""
    local = "://" not in str(path) and Path(path).is_file()
    compressed = str(path).lower().endswith(".gz")
    return local and not compressed and charset in ("utf-8", "iso-8859-1", "us-ascii")


def _sniffed(path: str | Path, encoding: str) -> str:
    """The separator of a local file, sniffed from its first records as anonkit reads
    files itself (decoded in ``encoding``); ``,`` for other paths (folders, cluster file
    systems)."""
    p = Path(path)
    if str(path).lower().endswith(".tsv"):
        return "\t"
    if "://" in str(path) or not p.is_file():
        return ","
    return sniff_separator(*sample_head(p, encoding)) or ","


def _refuse_replacements(df: DataFrame, path: str | Path, encoding: str) -> None:
    """Raise if a value of ``df`` holds U+FFFD: a byte ``encoding`` could not decode."""
    from pyspark.sql import functions as F

    flags = [
        F.max(F.col(f"`{c}`").contains(REPLACEMENT).cast("int")).alias(str(i))
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
            "also does it: Spark reads such a record as two (the polars and streaming "
            "engines read it).",
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
        col, name = F.col(field.name), field.name
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
        col, name = F.col(f"`{field.name}`"), field.name
        if isinstance(field.dataType, StringType):
            rest = F.substring(col, 2, 1 << 30)
            flag = col.startswith("'") & rest.rlike(FORMULA_START) & ~rest.rlike(NUMBER)
            col = F.when(flag, rest).otherwise(col)
        out.append(col.alias(unescape_name(name)))
    return df.select(*out)
