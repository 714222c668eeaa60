"""Looking at a text table before parsing it: separator sniffing and record field counts.

Everything here works on UTF-8 bytes (other encodings are transcoded first) and follows
the CSV quoting rules polars applies: ``"`` quotes a field, ``""`` inside quotes is a quote,
separators and line breaks inside quotes belong to the field.
"""

from __future__ import annotations

import codecs
import gzip
import itertools
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from anonkit._arrays import IntArray
from anonkit._formats import csv_rows, refuse_nul
from anonkit.exceptions import EmptyDataError, InputEncodingError, InputFormatError

#: Separators tried when none is given, in order of preference on a tie.
CANDIDATES: tuple[str, ...] = (",", ";", "\t", "|")

#: How many records the sniffer looks at.
SAMPLE_RECORDS = 50

_SAMPLE_BYTES = 64 * 1024
#: Bytes :func:`sample_head` reads from the start of a file.
_HEAD_BYTES = 1 << 20


def sample_text(
    path: Path, data: bytes, *, start: int = 0, complete: bool = True, encoding: str = "utf-8"
) -> tuple[str, bool]:
    """The first records of ``data`` (in ``encoding``) as text, and whether that is the
    whole file.

    ``data`` is the file's bytes, or its first bytes when ``complete`` is false; ``start``
    is the offset of ``data`` in the file (a byte-order mark skipped), for errors.

    The sample holds at least the header line and about :data:`SAMPLE_RECORDS` lines; a
    line cut at the end of the sample is left out.

    Raises
    ------
    InputEncodingError
        If the sampled bytes are not valid in ``encoding``.
    """
    size = _SAMPLE_BYTES
    while True:
        chunk = data[:size]
        whole = len(chunk) == len(data) and complete
        if len(chunk) == len(data) or chunk.count(b"\n") > SAMPLE_RECORDS:
            break
        size *= 4
    if not whole:
        cut = chunk.rfind(b"\n")
        chunk = chunk[: cut + 1] if cut >= 0 else chunk
    decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    try:
        text = decoder.decode(chunk, final=whole)
    except UnicodeDecodeError as exc:
        raise InputEncodingError.from_decode_error(
            path, chunk, exc, encoding, start=start
        ) from None
    return text.removeprefix("\ufeff"), whole


def sample_head(path: Path, encoding: str = "utf-8") -> tuple[str, bool]:
    """:func:`sample_text` of a file's first MiB: its first records, and whether that is
    the whole file (for a scan, which does not read the file first). A ``.gz`` file's
    first MiB decompressed (Spark reads them).

    Raises
    ------
    InputEncodingError
        If the sampled bytes are not valid in ``encoding``.
    InputFormatError
        If they hold a NUL byte (UTF-16 read as another encoding, or not a text file).
    """
    with gzip.open(path, "rb") if path.suffix.lower() == ".gz" else path.open("rb") as f:
        head = f.read(_HEAD_BYTES)
    if not codecs.lookup(encoding).name.startswith(("utf-16", "utf-32")):
        refuse_nul(path, head, 0)
    return sample_text(path, head, complete=len(head) < _HEAD_BYTES, encoding=encoding)


def _rows(sample: str, separator: str, whole: bool) -> list[list[str]]:
    rows = list(csv_rows(sample, separator))
    if not whole and len(rows) > 1:
        rows = rows[:-1]  # the last record may be cut (a quoted line break near the end)
    return [row for row in rows[: SAMPLE_RECORDS + 1] if row]


def sniff_separator(sample: str, whole: bool = True) -> str | None:
    """The candidate separator that splits the sample's records consistently.

    A candidate qualifies when it splits the header into more than one field; among those,
    the one whose records all have the header's field count wins, then the one that agrees
    with the header on most records, then the one giving more fields, then the order of
    :data:`CANDIDATES`. ``None`` when no candidate splits the header (a one-column file).

    Examples
    --------
    >>> sniff_separator('a;b\\n"x;y";2\\n')
    ';'
    >>> sniff_separator('name,note\\nann,"a;b;c"\\n')
    ','
    >>> sniff_separator("age\\n31\\n") is None
    True
    """
    best: tuple[float, int, int] | None = None
    chosen: str | None = None
    for rank, sep in enumerate(CANDIDATES):
        rows = _rows(sample, sep, whole)
        if not rows or len(rows[0]) < 2:
            continue
        width = len(rows[0])
        agree = sum(len(row) == width for row in rows) / len(rows)
        score = (agree, width, -rank)
        if best is None or score > best:
            best, chosen = score, sep
    return chosen


def file_separator(path: Path, encoding: str = "utf-8") -> str:
    """The separator a local text file is read with when none is given: tab for a
    ``.tsv`` file, else the one :func:`sniff_separator` finds in its first records,
    else ``,`` (as the Spark reader and the streamed run's summary take it)."""
    if path.suffix.lower() == ".tsv":
        return "\t"
    return sniff_separator(*sample_head(path, encoding)) or ","


def refuse_odd_start(path: Path, sample: str, *, tabs: bool = False) -> None:
    """Raise when a file's first records say it is not read as it should be: a
    spreadsheet's ``sep=;`` line above the header, or a file read with ``tabs`` (a
    ``.tsv`` one) whose header holds no tab but splits by another separator.

    Raises
    ------
    InputFormatError
        Naming the line or the separator the file looks like it uses.
    """
    first = sample.split("\n", 1)[0].rstrip("\r")
    if len(first) == 5 and first.lower().startswith("sep="):
        raise InputFormatError(
            path,
            f"line 1 is a spreadsheet's separator line ({first!r}), not the header: remove "
            "it (anonkit finds the separator itself).",
            line=1,
        )
    if tabs and "\t" not in first:
        looks = sniff_separator(sample)
        if looks is not None:
            raise InputFormatError(
                path,
                f"it is named .tsv, but its header holds no tab; it looks {looks!r}-separated: "
                f"give separator = {looks!r}, or name the file .csv.",
                line=1,
            )


#: Lines above a header that :func:`refuse_title_lines` looks past.
_TITLE_LINES = 5


def refuse_title_lines(path: Path, sample: str, whole: bool) -> None:
    """Raise when a file that reads as one column is a table under a title: its first
    lines (five at most) split into fewer fields than the lines below them, which all
    split into the same two or more fields by one separator. (``sample``: the file's first
    records, as :func:`sniff_separator` reads them.)

    Raises
    ------
    InputFormatError
        Naming the lines above the header, the separator and the fields below (never the
        lines' text).
    """
    lines = sample.split("\n")
    for above in range(1, min(_TITLE_LINES, len(lines) - 1) + 1):
        rest = "\n".join(lines[above:])
        sep = sniff_separator(rest, whole)
        if sep is None:
            continue
        rows = _rows(rest, sep, whole)
        width = len(rows[0])
        top = _rows("\n".join(lines[:above]), sep, True)
        if (
            len(rows) > 1
            and all(len(r) == width for r in rows)
            and all(len(r) < width for r in top)
        ):
            which = "line 1 holds" if above == 1 else f"lines 1-{above} hold"
            raise InputFormatError(
                path,
                f"{which} fewer fields than the lines below, which hold {width} fields "
                f"separated by {sep!r} each: remove the title or comment lines above the "
                "header, or give the separator to read the file as it is.",
                line=above,
            )


def refuse_record_header(path: Path, sample: str, separator: str, whole: bool) -> None:
    """Raise when the first line of a file reads as a record rather than a header (a
    file saved without its line of column names, as UCI's ``adult.data``): in at least
    half of its columns, and two or more, the first line holds a value that the column
    holds below, or a number written like the numbers below it; or in one column it
    holds a date or an e-mail address shaped like most values below (column names
    hardly are). The first line would be published as the release's column names.

    Raises
    ------
    InputFormatError
        Naming how many columns and which (by position, never the line's text).

    Examples
    --------
    >>> refuse_record_header(Path("t.csv"), "age,sex\\n39,m\\n41,f\\n", ",", True)
    >>> try:
    ...     refuse_record_header(Path("t.csv"), "39,m\\n41,f\\n39,m\\n", ",", True)
    ... except InputFormatError as err:
    ...     print(str(err)[:64])
    Cannot read t.csv: its first line looks like a record, not a lin
    """
    rows = _rows(sample, separator, whole)
    if len(rows) < 3 or len(rows[0]) < 2:
        return
    header, body = rows[0], rows[1:]
    like: list[int] = []
    shaped: list[int] = []
    for j, name in enumerate(header):
        values = [row[j].strip() for row in body if len(row) > j and row[j].strip()]
        if _like_values(name.strip(), values):
            like.append(j + 1)
        elif _shaped_like(name.strip(), values):
            shaped.append(j + 1)
    if shaped or (len(like) >= 2 and 2 * len(like) >= len(header)):
        found = sorted(like + shaped)
        shown = ", ".join(str(j) for j in found[:10]) + (", ..." if len(found) > 10 else "")
        raise InputFormatError(
            path,
            f"its first line looks like a record, not a line of column names: in columns "
            f"{shown} of {len(header)} it holds a value that the column holds below, or a "
            "number, date or address written like them. anonkit reads the first line as "
            "the column names and publishes them: add a line of column names at the top "
            "of the file.",
            line=1,
        )


def refuse_header_only(path: Path, text: str, whole: bool) -> None:
    """Refuse a file whose head ``text`` (all of it, if ``whole``) is a header alone.

    Raises
    ------
    EmptyDataError
        Saying so.
    """
    if whole and len(text.strip("\r\n").splitlines()) < 2:
        raise EmptyDataError(str(path), message=f"The file {path} has a header but no records.")


#: A number as a header cell or a value is compared: its digits and sign.
_NUMBER_CELL = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")


def _shape(cell: str) -> str:
    """A cell's outline: each run of digits ``9``, of letters ``a``, other characters as
    they are (``1975-03-04`` and ``2001-12-31``: ``9-9-9``)."""
    marks = ("9" if c.isdigit() else "a" if c.isalpha() else c for c in cell)
    return "".join(m for m, _ in itertools.groupby(marks))


#: Outlines that a column name hardly ever has: a number with other marks than a sign or
#: a decimal point (dates, times, codes such as ``12/03``).
_RECORD_SHAPE = re.compile(r"(?=.*9)(?![+-]?9(\.9)?$).*[^a9 _].*")
#: An e-mail address, as a header cell or a value.
_ADDRESS = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def _shaped_like(name: str, values: Sequence[str]) -> bool:
    """Whether a header cell ``name`` has an outline that column names hardly have (a
    date, an e-mail address) and that most of the column's ``values`` share."""
    if not values:
        return False
    if _ADDRESS.fullmatch(name):
        return 2 * sum(_ADDRESS.fullmatch(v) is not None for v in values) >= len(values)
    outline = _shape(name)
    if _RECORD_SHAPE.fullmatch(outline) is None:
        return False
    return 2 * sum(_shape(v) == outline for v in values) >= len(values)


def _like_values(name: str, values: Sequence[str]) -> bool:
    """Whether a header cell ``name`` reads like the column's ``values``: one of them, or
    a number with as many digits before the point as most of them (which are numbers)."""
    if not name or not values:
        return False
    if name in values:
        return True
    if _NUMBER_CELL.fullmatch(name) is None:
        return False
    if not all(_NUMBER_CELL.fullmatch(v) for v in values):
        return False
    digits = Counter(len(v.lstrip("+-").split(".")[0]) for v in values)
    return digits.most_common(1)[0][0] == len(name.lstrip("+-").split(".")[0])


def one_column_separator(sample: str, whole: bool = True) -> str:
    """A separator under which every sampled record of a one-column file is one field."""
    for sep in CANDIDATES:
        if all(len(row) == 1 for row in _rows(sample, sep, whole)):
            return sep
    return CANDIDATES[0]


def header_fields(sample: str, separator: str) -> list[str]:
    """The header record of ``sample`` split by ``separator`` (CSV quoting applies)."""
    for row in csv_rows(sample, separator):
        if row:  # polars skips blank lines before the header
            return row
    return []


def field_counts(data: bytes, separator: str) -> tuple[IntArray, IntArray]:
    """Fields per record of UTF-8 CSV ``data`` and the 1-based line each record starts on.

    Vectorized over the bytes (numpy): a separator or line feed counts only outside quotes,
    i.e. after an even number of quote characters. A blank record (an empty line, or just
    ``\\r``) has 0 fields, as :mod:`csv` reports it. The header is record 0.

    Examples
    --------
    >>> counts, lines = field_counts(b'a,b\\n"x,\\ny",2\\n\\n1\\n', ",")
    >>> counts.tolist(), lines.tolist()
    ([2, 2, 0, 1], [1, 2, 4, 5])
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    size = buf.size
    if size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    quoted = b'"' in data
    if quoted:
        # separators and line feeds in file order; those inside quotes do not count
        marks = np.flatnonzero((buf == ord(separator)) | (buf == 10) | (buf == ord('"')))
        kinds = buf[marks]
        is_quote = kinds == ord('"')
        outside = (np.cumsum(is_quote, dtype=np.int32) & 1) == 0  # an even number before
        keep = outside & ~is_quote
        marks, kinds = marks[keep], kinds[keep]
        is_end = kinds == 10
        if not marks.size or not is_end[-1] or marks[-1] != size - 1:
            marks = np.append(marks, size)  # the last line has no line feed
            is_end = np.append(is_end, True)
        ends = marks[is_end]
        record = np.cumsum(is_end, dtype=np.int64) - is_end  # record of each mark
        counts = np.bincount(record[~is_end], minlength=ends.size).astype(np.int64) + 1
    else:  # a record is a line: separators counted between line feeds (about 3x faster)
        ends = np.flatnonzero(buf == 10)
        if not ends.size or ends[-1] != size - 1:
            ends = np.append(ends, size)  # the last line has no line feed
        separators = np.flatnonzero(buf == ord(separator))
        counts = np.diff(np.searchsorted(separators, ends), prepend=0).astype(np.int64) + 1
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    lengths = ends - starts
    first = buf[np.minimum(starts, size - 1)]
    counts[(lengths == 0) | ((lengths == 1) & (first == 13))] = 0  # blank records
    if quoted:  # a quoted line break makes records and lines differ
        lines = np.searchsorted(np.flatnonzero(buf == 10), starts) + 1
    else:
        lines = np.arange(1, ends.size + 1, dtype=np.int64)
    return counts, lines.astype(np.int64)


#: Bytes :func:`record_problem` looks at in one piece.
_CHUNK_BYTES = 1 << 26


class RecordProblem(NamedTuple):
    """The first fault :func:`record_problem` found: its 1-based ``line`` and ``kind``,
    ``"fields"`` (a record of ``fields`` fields, not the header's), ``"blank"`` (a blank
    line after the header), ``"stray"`` (a quote
    inside a field), ``"open"`` (a quoted field never closed) or ``"bytes"`` (not UTF-8:
    the first bad ``byte``, at ``offset`` in the file after any byte-order mark)."""

    line: int
    kind: str
    fields: int = 0
    offset: int = 0
    byte: int = 0

    def reason(self, width: int, separator: str) -> str:
        """What is wrong, and what to do (never a value of the file)."""
        if self.kind == "blank":
            return (
                f"line {self.line} is blank; a streamed read takes it for a record whose "
                "every value is missing: remove the blank lines (read in memory, the file "
                "may keep them)."
            )
        if self.kind == "fields":
            s = "s" if self.fields != 1 else ""
            return (
                f"line {self.line} has {self.fields} field{s}, the header has {width}; fix "
                f"that line or check the separator ({separator!r})."
            )
        return quote_reason(self.line, self.kind)


def quote_reason(line: int, kind: str) -> str:
    """What is wrong with a quote :func:`quote_problem` found (``kind``) on ``line``."""
    if kind == "stray":
        return (
            f"line {line} has a quote character inside a field; quote the whole field and "
            'double the quote inside it ("a""b"), or remove it.'
        )
    return (
        f"the quoted field that starts on line {line} is never closed, so every record "
        "after it would be read into that one field; close the quote or remove it."
    )


def record_problem(
    source: Path | bytes,
    separator: str,
    width: int,
    *,
    utf8: bool = True,
    blanks: bool = False,
    chunk: int = _CHUNK_BYTES,
) -> RecordProblem | None:
    """The first fault of a CSV file's records after the header, or ``None``: a record
    whose field count is not ``width`` (blank ones passed over), a misread quote
    (:func:`quote_problem`), with ``utf8`` bytes that are not UTF-8, and with ``blanks``
    a blank line after the header (a streamed parse reads it as a record of missing
    values, where :func:`~anonkit.io.tables.read_table` passes it over).

    Reads ``source`` (a file, a byte-order mark skipped, or its bytes) ``chunk`` bytes at
    a time, so a file larger than memory is checked too: each piece ends at the last line
    feed outside quotes and is counted by :func:`field_counts`. What a streamed parse
    would meet mid-file, and report as a traceback quoting the records, is found here.

    Examples
    --------
    >>> record_problem(b'a,b\\n"x,\\ny",2\\n\\n1,2,3\\n', ",", 2)
    RecordProblem(line=5, kind='fields', fields=3, offset=0, byte=0)
    >>> record_problem(b'a,b\\n1,"2\\n3,4\\n', ",", 2).kind
    'open'
    >>> record_problem(b"a,b\\n1,2\\n", ",", 2) is None
    True
    """
    line_base = offset = 0
    header = True
    carry = b""
    for block in _blocks(source, chunk):
        data = carry + block
        found = quote_problem(data, separator, stray_only=bool(block))
        if found is not None:  # a stray quote would leave every later cut misplaced
            return RecordProblem(line_base + data.count(b"\n", 0, found[0]) + 1, found[1])
        cut = len(data) if not block else _record_end(data)
        part, carry = data[:cut], data[cut:]
        if len(carry) > 4 * chunk:  # a quoted field this long is one never closed
            at = carry.rfind(b'"')
            return RecordProblem(
                line_base + part.count(b"\n") + carry.count(b"\n", 0, at) + 1, "open"
            )
        if not part:
            continue
        if utf8:
            try:
                part.decode("utf-8")
            except UnicodeDecodeError as err:
                line = line_base + part.count(b"\n", 0, err.start) + 1
                return RecordProblem(line, "bytes", offset=offset + err.start, byte=part[err.start])
        counts, lines = field_counts(part, separator)
        present = np.flatnonzero(counts != 0)
        if header and present.size:  # the first record that is not blank
            header = False
            after = int(present[0])
            present = present[1:]
        else:
            after = -1
        bad = present[counts[present] != width]
        if bad.size:
            i = int(bad[0])
            return RecordProblem(line_base + int(lines[i]), "fields", fields=int(counts[i]))
        if blanks and not header:
            empty = np.flatnonzero(counts == 0)
            empty = empty[empty > after]
            if empty.size:
                return RecordProblem(line_base + int(lines[int(empty[0])]), "blank")
        line_base += part.count(b"\n")
        offset += len(part)
    return None


def _blocks(source: Path | bytes, chunk: int) -> Iterator[bytes]:
    """``source``'s bytes in pieces of ``chunk``, without a leading byte-order mark, then
    one empty piece."""
    if isinstance(source, bytes):
        data = source.removeprefix(codecs.BOM_UTF8)
        yield from (data[i : i + chunk] for i in range(0, len(data), chunk))
    else:
        with source.open("rb") as fh:
            first = fh.read(chunk)
            yield first.removeprefix(codecs.BOM_UTF8)
            while block := fh.read(chunk):
                yield block
    yield b""


def _record_end(data: bytes) -> int:
    """The index after the last line feed of ``data`` outside quotes (0 if none)."""
    if b'"' not in data:
        return data.rfind(b"\n") + 1
    buf = np.frombuffer(data, dtype=np.uint8)
    marks = np.flatnonzero((buf == 10) | (buf == ord('"')))
    is_quote = buf[marks] == ord('"')
    outside = (np.cumsum(is_quote, dtype=np.int64) & 1) == 0
    ends = marks[outside & ~is_quote]
    return int(ends[-1]) + 1 if ends.size else 0


def python_field_counts(text: str, separator: str) -> tuple[list[int], list[int]]:
    """:func:`field_counts` computed with :mod:`csv` (the reference, slower)."""
    counts: list[int] = []
    lines: list[int] = []
    reader = csv_rows(text, separator)
    start = 1
    for row in reader:
        counts.append(len(row))
        lines.append(start)
        start = reader.line_num + 1
    return counts, lines


def quote_problem(
    data: bytes, separator: str, *, stray_only: bool = False
) -> tuple[int, str] | None:
    """The byte offset of the first quote character a CSV parser would misread, and why.

    In RFC 4180 text a quote opens a field (after a separator, a line break or the start),
    closes one (before a separator, a line break or the end) or is doubled inside a quoted
    field. A quote between two other characters (``q"t``) is not CSV: parsers disagree on
    it and may merge the following records into one field. An odd number of quotes leaves
    a quoted field open to the end of the file, swallowing every record after it. Both are
    found with a vectorized pass over the bytes; ``None`` when the quoting is sound.

    Examples
    --------
    >>> quote_problem(b'a,b\\n"x,y",2\\n', ",") is None
    True
    >>> quote_problem(b'a,b\\nq"t,1\\n', ",")
    (5, 'stray')
    >>> quote_problem(b'a,b\\n"x,1\\n2,3\\n', ",")
    (4, 'open')
    """
    if b'"' not in data:
        return None
    buf = np.frombuffer(data, dtype=np.uint8)
    quotes = np.flatnonzero(buf == ord('"'))
    edge = np.zeros(256, dtype=bool)
    edge[[ord(separator), 10, 13, ord('"')]] = True
    before = np.where(quotes > 0, buf[np.maximum(quotes - 1, 0)], 10)
    after = np.where(quotes < buf.size - 1, buf[np.minimum(quotes + 1, buf.size - 1)], 10)
    stray = ~edge[before] & ~edge[after]
    if stray.any():
        return int(quotes[np.argmax(stray)]), "stray"
    if quotes.size % 2 and not stray_only:  # (a piece of a file may end inside quotes)
        return int(quotes[-1]), "open"
    return None
