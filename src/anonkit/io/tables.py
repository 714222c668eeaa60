"""Reading tables (CSV, TSV, Parquet) with polars, safely.

Reading is strict: undecodable bytes, ragged rows and bad headers are errors naming the file
and line, never silently repaired. Writing lives in :mod:`anonkit.io.write`
(:func:`write_table` and :func:`output_format` are importable from here as well).
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from anonkit._arrays import IntArray
from anonkit._formats import require_file, table_format
from anonkit._validation import check_bool
from anonkit.exceptions import (
    AnonkitError,
    ConfigError,
    EmptyDataError,
    InputEncodingError,
    InputFileError,
    InputFormatError,
    ParameterError,
)
from anonkit.io.cells import check_read_parameters, clean_cells, decimal_points, missing_as_null
from anonkit.io.names import check_names
from anonkit.io.sniff import (
    RecordProblem,
    field_counts,
    header_fields,
    one_column_separator,
    python_field_counts,
    quote_problem,
    quote_reason,
    record_problem,
    refuse_header_only,
    refuse_odd_start,
    refuse_record_header,
    refuse_title_lines,
    sample_head,
    sample_text,
    sniff_separator,
)
from anonkit.io.source import TextSource
from anonkit.io.toml import type_name
from anonkit.io.write import (
    OUTPUT_FORMATS,
    WriteInfo,
    escape_formulas,
    output_format,
    unescape_formulas,
    write_table,
)

# writing is re-exported: the CLI, the README and users import it from here
__all__ = [
    "OUTPUT_FORMATS",
    "ReadInfo",
    "WriteInfo",
    "check_read_parameters",
    "escape_formulas",
    "output_format",
    "read_settings",
    "read_table",
    "scan_table",
    "read_table_info",
    "unknown_column_hint",
    "write_table",
]


@dataclass(frozen=True)
class ReadInfo:
    """How :func:`read_table_info` read a file.

    Attributes
    ----------
    separator
        The field separator used; ``None`` for Parquet.
    sniffed
        True when the separator was guessed from the file's first records.
    encoding
        The encoding the file was decoded with.
    missing_cells
        Cells turned into nulls because they equal one of the ``missing`` tokens.
    stripped
        True when spaces around names and values were removed.
    columns
        The column names, as returned.
    blank_lines
        Empty lines skipped (a blank line holds no record in a file of several columns).
    single_column_hint
        When the file was read into a single column whose name another candidate separator
        splits, that separator (the file was probably read with the wrong one).
    """

    separator: str | None
    sniffed: bool
    encoding: str
    missing_cells: int
    stripped: bool
    columns: tuple[str, ...] = ()
    blank_lines: int = 0
    single_column_hint: str | None = None


# ----------------------------------------------------------------------------- reading
def read_table(
    path: str | Path,
    *,
    separator: str | None = None,
    encoding: str = "utf-8",
    missing: Sequence[str] = ("",),
    strip: bool = False,
    csv_formulas: str = "keep",
    decimal_comma: bool = False,
) -> pl.DataFrame:
    """Read a CSV/TSV or Parquet file; see :func:`read_table_info` for the rules.

    ``csv_formulas="unescape"`` reads back a release anonkit wrote: cells it escaped
    with a leading ``'`` (``'@home``) lose it (:func:`~anonkit.io.write.unescape_formulas`);
    the default keeps every cell as it stands, as input data must be.

    Raises
    ------
    ParameterError
        If ``csv_formulas`` is not ``"keep"`` or ``"unescape"``; see
        :func:`read_table_info` for the others.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("zip;age\\n007;31\\n")
    >>> read_table(p).row(0)
    ('007', '31')
    """
    if csv_formulas not in ("keep", "unescape"):
        raise ParameterError("csv_formulas", "read_table", "'keep' or 'unescape'", csv_formulas)
    frame, info = read_table_info(
        path,
        separator=separator,
        encoding=encoding,
        missing=missing,
        strip=strip,
        decimal_comma=decimal_comma,
    )
    parquet = info.separator is None  # Parquet is written unescaped
    return unescape_formulas(frame) if csv_formulas == "unescape" and not parquet else frame


def scan_table(
    path: str | Path,
    *,
    separator: str | None = None,
    encoding: str = "utf-8",
    missing: Sequence[str] = ("",),
    strip: bool = False,
    decimal_comma: bool = False,
) -> pl.LazyFrame:
    """A CSV/TSV or Parquet file as a lazy query, for tables too large to read.

    The same options as :func:`read_table`; the separator is tab for ``.tsv`` files and
    sniffed from the first records of others when not given, every CSV column is text,
    missing tokens become nulls.
    Like :func:`read_table` it refuses, naming the line, a record with more or fewer
    fields than the header, a misread quote and bytes that are not UTF-8
    (:func:`check_records`: one pass over the file, in pieces, before the scan), so that
    polars, which parses as it goes, meets none of them mid-run. Only UTF-8 is read.

    Raises
    ------
    ParameterError
        If an option is invalid, or ``encoding`` is not UTF-8 for a CSV file.
    InputEncodingError
        If the file holds bytes that are not UTF-8.
    InputFormatError
        If a record has more or fewer fields than the header, or a quote is misread.
    """
    tokens = check_read_parameters(separator, encoding, missing)
    check_bool(decimal_comma, "decimal_comma", "scan_table")
    p = Path(path)
    require_file(p)
    if table_format(p) == "parquet":
        lazy = pl.scan_parquet(p)
        names = lazy.collect_schema().names()
        check_names(p, names)
        return lazy
    if codecs.lookup(encoding).name != "utf-8":
        raise ParameterError(
            "encoding",
            "the streaming engine",
            "'utf-8' when a CSV file is streamed (convert the file to UTF-8 or to Parquet, "
            'or read it in memory: engine = "polars")',
            encoding,
        )
    try:
        return _scan_csv(p, separator, tokens, strip, decimal_comma)
    except InputEncodingError as err:  # advice the streaming engine can follow
        raise err.streamed() from None


def _scan_csv(
    p: Path, separator: str | None, tokens: tuple[str, ...], strip: bool, decimal_comma: bool
) -> pl.LazyFrame:
    """:func:`scan_table` of a CSV or TSV file, its records checked first."""
    text, whole = sample_head(p)
    _refuse_no_lines(p, text.encode("utf-8"))
    tabs = separator is None and p.suffix.lower() == ".tsv"
    if separator is None:
        refuse_odd_start(p, text, tabs=tabs)
    sep = separator or ("\t" if tabs else sniff_separator(text, whole))
    if sep is None:
        refuse_title_lines(p, text, whole)
        sep = ","
    raw = header_fields(text, sep)
    names = [name.strip() for name in raw] if strip else raw
    check_names(p, names, sep)
    refuse_record_header(p, text, sep, whole)
    refuse_header_only(p, text, whole)
    # polars parses a scan as it goes: a record with a surplus field passes when only some
    # columns are read, a short one is padded with nulls, a blank line read as a record of
    # nulls; read_table refuses the first two and passes blank lines over
    check_records(p, sep, len(names), blanks=True)
    lazy = pl.scan_csv(
        p,
        separator=sep,
        infer_schema=False,
        null_values=[t for t in tokens if t] or None,
        empty_string_is_null="" in tokens,  # else "", as read_table reads an empty cell
    )
    if names != raw:
        lazy = lazy.rename(dict(zip(raw, names, strict=True)))
    lazy = missing_as_null(lazy, tokens, strip=strip)
    return decimal_points(lazy) if decimal_comma else lazy


def read_settings(read: Mapping[str, Any], path: Path, where: str) -> dict[str, Any]:
    """The ``[read]`` table of a run configuration (the file ``where``) whose input is
    ``path``, checked as :func:`read_table` checks its keywords, which it returns
    (``separator``, ``encoding``, ``missing``, ``strip``, ``decimal_comma``). A separator
    ``"\\t"`` (a backslash and a ``t``, as a TOML literal string keeps them) is a tab.
    ``missing``, ``strip`` and ``decimal_comma`` read text: given for a Parquet input,
    whose typed columns :func:`read_table` reads as they are, they are refused rather
    than ignored (``encoding`` reads the hierarchy files too, ``separator`` writes a CSV
    release).

    Raises
    ------
    ConfigError
        Naming the key (``read.encoding``) and ``where``.
    """
    out = {"separator": None, "encoding": "utf-8", "missing": ("",), **read}
    out |= {key: read.get(key, False) for key in ("strip", "decimal_comma")}
    if out["separator"] == "\\t":
        out["separator"] = "\t"
    try:
        out["missing"] = check_read_parameters(out["separator"], out["encoding"], out["missing"])
        for key in ("strip", "decimal_comma"):
            check_bool(out[key], key, "read")
    except ParameterError as err:
        flag = err.parameter in ("strip", "decimal_comma")
        expected = "true or false" if flag else err.expected
        raise ConfigError(
            f"The key 'read.{err.parameter}' in {where} must be {expected}, not "
            f"{type_name(err.got)} ({err.got!r})."
        ) from None
    text_only = {"missing": set(out["missing"]) - {""}, "strip": out["strip"]}
    given = [
        key for key, value in {**text_only, "decimal_comma": out["decimal_comma"]}.items() if value
    ]
    if given and _parquet(path):
        raise ConfigError(
            f"The key 'read.{given[0]}' in {where} applies to CSV and TSV input only, and "
            f"{path.name} is Parquet, whose typed columns are read as they are: remove it "
            "(or turn such cells into nulls in the Parquet file)."
        )
    return out


def _parquet(path: Path) -> bool:
    """Whether ``path`` is a Parquet file (as far as can be told: it may not exist yet)."""
    try:
        return table_format(path) == "parquet"
    except AnonkitError:
        return False


def read_table_info(
    path: str | Path,
    *,
    separator: str | None = None,
    encoding: str = "utf-8",
    missing: Sequence[str] = ("",),
    strip: bool = False,
    decimal_comma: bool = False,
) -> tuple[pl.DataFrame, ReadInfo]:
    """Read a table and report how it was read.

    Files ending in ``.parquet`` or ``.pq`` are read as Parquet, unchanged (typed columns;
    ``missing`` and ``strip`` apply to text files only). Anything else is read as delimited
    text whose cells all stay text, so values match hierarchy labels (``007`` stays ``007``).

    Parameters
    ----------
    path
        The file.
    separator
        One character; by default tab for ``.tsv`` files, otherwise sniffed among ``,``
        ``;`` tab ``|`` from the first records (CSV quoting respected).
    encoding
        Any codec Python knows; ``utf-8`` (the default) also accepts a byte-order mark.
        Bytes the encoding cannot decode are an error, never replaced.
    missing
        Cells equal to one of these tokens (after stripping, if ``strip``) become nulls.
        The default turns empty cells into nulls; ``()`` keeps them as empty strings.
    strip
        Remove leading and trailing whitespace from column names and values (files written
        with ``", "`` between fields).
    decimal_comma
        Read numbers written with a decimal comma (``49,4``, as files from countries that
        write so often hold) with a decimal point (``49.4``), so that they are generalized
        as numbers; see :func:`~anonkit.io.cells.decimal_points`. Parquet files are typed
        and left as they are.

    Returns
    -------
    (frame, info)
        The table and a :class:`ReadInfo`. Blank lines are skipped in files of several
        columns; in a one-column file a blank line is an empty value.

    Raises
    ------
    InputFileError
        If the file is missing or unreadable.
    InputEncodingError
        If it holds bytes ``encoding`` cannot decode (names line and byte offset).
    InputFormatError
        If a record has more or fewer fields than the header, or the file has a
        duplicated or empty column name, or one polars reads as a pattern (``*``, ``^...$``:
        :func:`~anonkit.io.names.check_names`).
    EmptyDataError
        If the file is empty or has a header but no records.
    ParameterError
        If ``separator``, ``encoding``, ``missing`` or ``decimal_comma`` is invalid.
    """
    p = Path(path)
    tokens = check_read_parameters(separator, encoding, missing)
    check_bool(decimal_comma, "decimal_comma", "read_table")
    require_file(p)
    if table_format(p) == "parquet":
        frame = _read_parquet(p)
        check_names(p, frame.columns)
        return frame, ReadInfo(None, False, encoding, 0, False, tuple(frame.columns))
    source = TextSource(p, encoding)
    head, complete = source.head()
    _refuse_no_lines(p, head)
    sample, whole = sample_text(p, head, start=source.skipped, complete=complete)
    sniffed = separator is None and p.suffix.lower() != ".tsv"
    if separator is None:
        refuse_odd_start(p, sample, tabs=not sniffed)
        separator = "\t" if not sniffed else sniff_separator(sample, whole)
        if separator is None:
            refuse_title_lines(p, sample, whole)
            separator = one_column_separator(sample, whole)
    names = header_fields(sample, separator)
    if strip:
        names = [name.strip() for name in names]
    check_names(p, names, separator)
    refuse_record_header(p, sample, separator, whole)
    _check_quotes(source, separator)
    frame = _parse(source, separator, len(names), tokens=tokens, strip=strip)
    frame, blank = _check_records(source, frame, separator)
    if frame.height == 0:
        raise EmptyDataError(str(p), message=f"The file {p} has a header but no records.")
    if len(names) == frame.width:
        frame.columns = names
    elif strip:
        frame.columns = [name.strip() for name in frame.columns]
    frame, missing_cells = clean_cells(frame, tokens, strip)
    if decimal_comma:
        frame = decimal_points(frame)
    hint = sniff_separator(sample, whole) if frame.width == 1 else None
    info = ReadInfo(
        separator=separator,
        sniffed=sniffed,
        encoding=encoding,
        missing_cells=missing_cells,
        stripped=strip,
        columns=tuple(frame.columns),
        blank_lines=blank,
        single_column_hint=hint,
    )
    return frame, info


def _refuse_no_lines(p: Path, head: bytes) -> None:
    """Refuse a file whose first bytes ``head`` hold no line: empty, or lines ended by
    carriage returns alone (which would read as one record, the whole file)."""
    if not head.strip(b"\r\n"):
        raise EmptyDataError(str(p), message=f"The file {p} is empty; it has no records.")
    if b"\n" not in head and b"\r" in head.strip(b"\r"):
        raise InputFormatError(
            p, "its lines end with a carriage return only; convert them to line feeds (\\n)."
        )


def unknown_column_hint(info: ReadInfo, missing_columns: Sequence[str]) -> str:
    r"""A sentence explaining why ``missing_columns`` are absent, or ``""``.

    Meant to follow an unknown-column message: the file may have been read with the wrong
    separator (into one column), or its names may carry spaces that ``strip`` removes.

    Examples
    --------
    >>> info = ReadInfo(";", False, "utf-8", 0, False, ("age,sex",), single_column_hint=",")
    >>> print(unknown_column_hint(info, ["age"]).replace("; ", "\n"))
    The file was read with separator ';' into one column
    it looks ','-separated: set separator = ','.
    """
    if info.single_column_hint is not None and info.separator is not None:
        return (
            f"The file was read with separator {info.separator!r} into one column; it looks "
            f"{info.single_column_hint!r}-separated: set separator = {info.single_column_hint!r}."
        )
    padded = {name.strip() for name in info.columns if name != name.strip()}
    if not any(c.strip() in padded for c in missing_columns):
        return ""
    if info.separator is None:  # Parquet: its names are as written, strip is for text
        return (
            "The file's column names have spaces around them; strip applies to text files "
            "only: name the columns with their spaces, or rename them in the Parquet file."
        )
    if not info.stripped:
        return (
            "The file's column names have spaces around them; set strip = true "
            "(strip=True in Python) to remove them."
        )
    return ""


def _read_parquet(p: Path) -> pl.DataFrame:
    try:
        frame = pl.read_parquet(p)
    except (pl.exceptions.PolarsError, OSError, ValueError) as exc:
        raise InputFileError(p, _first_line(exc)) from None
    if frame.height == 0:
        raise EmptyDataError(str(p), message=f"The file {p} has no records.")
    return frame


def _parse(
    source: TextSource, separator: str, width: int, *, tokens: tuple[str, ...], strip: bool
) -> pl.DataFrame:
    """Parse with polars; without ``strip``, missing tokens become nulls while parsing."""
    parse_tokens = () if strip else tokens
    try:
        return pl.read_csv(
            source.polars_source(),
            separator=separator,
            infer_schema=False,
            null_values=[t for t in parse_tokens if t] or None,
            empty_string_is_null="" in parse_tokens,
            encoding="utf8",
            raise_if_empty=False,
            glob=False,
        )
    except OSError as exc:
        raise InputFileError(source.path, exc.strerror or str(exc)) from None
    except pl.exceptions.PolarsError as exc:
        reason = _first_line(exc)
    p, data = source.path, source.data()
    try:  # the error path: name the first bad byte, else the first ragged record
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputEncodingError.from_decode_error(
            p, data, exc, "utf-8", start=source.skipped
        ) from None
    _raise_ragged(p, data, separator, width)
    raise InputFormatError(p, f"it is not a valid CSV file ({reason}).")


def _raise_ragged(
    p: Path,
    data: bytes,
    separator: str,
    width: int,
    counts: IntArray | None = None,
    lines: IntArray | None = None,
) -> None:
    """Raise for the first record whose field count differs from ``width`` (blank ones
    excepted); return if there is none."""
    if counts is None or lines is None:
        counts, lines = field_counts(data, separator)
    bad = np.flatnonzero((counts != width) & (counts != 0))
    bad = bad[bad > 0]
    if bad.size:
        i = int(bad[0])
        line = int(lines[i])
        reason = RecordProblem(line, "fields", fields=int(counts[i])).reason(width, separator)
        raise InputFormatError(p, reason, line=line)


def check_header(path: Path, separator: str) -> None:
    """Refuse a UTF-8 file's header as :func:`read_table` does (empty, duplicate, ``*`` or
    ``^...$`` names, a first line that reads as a record), for a reader that does not (Spark).

    Raises
    ------
    InputFormatError
        Naming the column by position, or the name.
    EmptyDataError
        If the file has a header but no records.
    """
    text, whole = sample_head(path)
    check_names(path, header_fields(text, separator), separator)
    refuse_record_header(path, text, separator, whole)
    refuse_header_only(path, text, whole)


def check_records(
    path: Path, separator: str, width: int, *, utf8: bool = True, blanks: bool = False
) -> None:
    """Refuse a CSV file whose records a streamed parse would misread or repair
    (:func:`~anonkit.io.sniff.record_problem`), naming the line: one pass over the file.

    Raises
    ------
    InputFormatError
        A record with more or fewer fields than ``width``, or a misread quote.
    InputEncodingError
        With ``utf8``, bytes that are not UTF-8.
    """
    found = record_problem(path, separator, width, utf8=utf8, blanks=blanks)
    if found is None:
        return
    if found.kind == "bytes":
        with path.open("rb") as fh:
            bom = len(codecs.BOM_UTF8) if fh.read(3) == codecs.BOM_UTF8 else 0
        raise InputEncodingError(
            path, "utf-8", line=found.line, offset=bom + found.offset, byte=found.byte
        )
    raise InputFormatError(path, found.reason(width, separator), line=found.line)


def _check_quotes(source: TextSource, separator: str) -> None:
    """Refuse quoting a parser would misread (:func:`~anonkit.io.sniff.quote_problem`):
    a stray quote inside a field, or a quoted field never closed."""
    data = source.data()
    found = quote_problem(data, separator)
    if found is None:
        return
    offset, kind = found
    line = data.count(b"\n", 0, offset) + 1
    raise InputFormatError(source.path, quote_reason(line, kind), line=line)


def _check_records(
    source: TextSource, frame: pl.DataFrame, separator: str
) -> tuple[pl.DataFrame, int]:
    """``frame`` without blank lines, after proving no record has too few fields.

    polars pads a short record with empty values, so a short record always ends with an
    empty (or null) cell: only when the last column holds one are the file's records
    counted (one vectorized pass over the bytes).
    """
    width = frame.width
    if width < 2 or frame.height == 0:
        return frame, 0
    last = frame.to_series(-1)  # by position: a name can read as a pattern in pl.col
    if not (last.is_null() | (last == "")).any():
        return frame, 0
    p, data = source.path, source.data()
    counts, lines = field_counts(data, separator)
    if counts.size != frame.height + 1:  # polars and the byte scan disagree: ask csv
        py_counts, py_lines = python_field_counts(data.decode("utf-8"), separator)
        counts = np.asarray(py_counts, dtype=np.int64)
        lines = np.asarray(py_lines, dtype=np.int64)
    first = int(np.argmax(counts != 0))  # polars skips blank lines before the header
    counts, lines = counts[first:], lines[first:]
    _raise_ragged(p, data, separator, width, counts, lines)
    if counts.size != frame.height + 1:
        return frame, 0  # cannot align records with rows; nothing ragged was found
    keep = counts[1:] != 0
    blank = int(keep.size - np.count_nonzero(keep))
    if blank:
        frame = frame.filter(pl.Series(keep))
    return frame, blank


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
