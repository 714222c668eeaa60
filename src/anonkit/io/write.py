"""Writing tables (CSV, TSV, Parquet) with polars, safely.

Writing is atomic, refuses extensions it cannot honour and neutralizes spreadsheet formulas
in text output (CSV injection, OWASP).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from anonkit._atomic import atomic_write, write_target
from anonkit.exceptions import (
    ConfigError,
    DataError,
    OutputFormatError,
    OutputIsInputError,
    OutputLocationError,
    ParameterError,
)

__all__ = [
    "FORMULA_PREFIXES",
    "OUTPUT_FORMATS",
    "WriteInfo",
    "check_not_input",
    "check_output",
    "check_outputs",
    "check_writable",
    "escape_formulas",
    "escape_formulas_lazy",
    "escape_name",
    "output_format",
    "refuse_nul_cells",
    "refusing_nul_cells",
    "refuse_unwritable",
    "unescape_formulas",
    "unescape_name",
    "write_table",
]

#: Output extensions and the format each one writes.
OUTPUT_FORMATS: dict[str, str] = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
}
#: Characters that make a spreadsheet treat a cell as a formula (OWASP CSV injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
#: A cell that starts like a spreadsheet formula (regular expression), after any ``'``s:
#: ``'=x`` gets a ``'`` too, so that it stays apart from ``=x`` escaped (``''=x`` and
#: ``'=x``) and reads back as it was.
FORMULA_START = r"^'*[=+\-@\t\r]"
#: A number written as text (never escaped).
NUMBER = r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$"
_CSV_FORMULAS = ("escape", "keep")
#: Flat types polars' CSV writer refuses (besides nested ones: lists, arrays, structs).
_NOT_IN_TEXT = (pl.Binary, pl.Object, pl.Duration)


@dataclass(frozen=True)
class WriteInfo:
    """What :func:`write_table` wrote: the ``format`` (``csv``, ``tsv`` or ``parquet``)
    and how many cells (column names included) got a ``'`` to neutralize a formula."""

    format: str
    escaped_cells: int


def output_format(path: str | Path) -> str:
    """The format ``path``'s extension asks for: ``csv``, ``tsv`` or ``parquet``.

    Call it before long work to reject an output path early.

    Raises
    ------
    OutputFormatError
        For any other extension (``.xlsx``, ``.json``, none), naming the supported ones.

    Examples
    --------
    >>> output_format("release.TSV")
    'tsv'
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in OUTPUT_FORMATS:
        raise OutputFormatError(p, p.suffix, list(OUTPUT_FORMATS))
    return OUTPUT_FORMATS[suffix]


def local_path(path: str | os.PathLike[str]) -> str | os.PathLike[str]:
    """``path``, a ``file://`` URL (Spark's spelling of a local path) as the local path.

    Examples
    --------
    >>> local_path("file:///data/release.csv"), local_path("s3a://bucket/r.csv")
    (PosixPath('/data/release.csv'), 's3a://bucket/r.csv')
    """
    text = str(path)
    if text.startswith("file://"):
        return Path(text.removeprefix("file://"))
    return path


def check_not_input(output: str | os.PathLike[str], sources: Iterable[Any]) -> None:
    """Refuse an ``output`` path that names one of the files in ``sources`` (objects
    that are not paths, such as frames, are passed over; a hierarchy table of type
    ``"file"`` counts by its ``path``).

    The same file under another spelling counts: a relative path, ``..``, a symbolic or
    a hard link. Call it before long work, as :func:`output_format`.

    Raises
    ------
    OutputIsInputError
        If ``output`` is one of the files read.

    Examples
    --------
    >>> check_not_input("release.csv", ["data.csv", None])
    """
    target = Path(local_path(output))
    resolved = os.path.realpath(target)  # not Path.resolve: it raises on a link loop
    for source in sources:
        if isinstance(source, Mapping) and source.get("type") == "file":
            source = source.get("path")  # a hierarchy file table counts by its file
        if not isinstance(source, (str, os.PathLike)):
            continue
        path = Path(local_path(source))
        if os.path.realpath(path) == resolved or _same_file(path, target):
            raise OutputIsInputError(output, source)


def check_output(output: str | Path, sources: Iterable[Any]) -> None:
    """Refuse, before long work, an ``output`` that names an input
    (:func:`check_not_input`) or that cannot be written: its nearest existing folder must
    take a new file named like the write's temporary file, which an empty one created
    and removed there proves (folders still missing are not created). A symbolic link is
    judged by its target, which the write replaces; an existing FIFO, device or socket is
    refused, since the write would replace it rather than write to it
    (:func:`anonkit._atomic.write_target`). A URL (``s3://...``, Spark's output) is not
    probed.

    Raises
    ------
    OutputIsInputError
        If ``output`` is one of the files read.
    OutputLocationError
        If an existing part of its path is not a folder, the folder refuses a new file,
        its name is too long, or it is not a regular file (a FIFO, device or socket).

    Examples
    --------
    >>> import tempfile
    >>> check_output(Path(tempfile.mkdtemp()) / "new" / "release.csv", ["data.csv"])
    """
    local = local_path(output)
    check_not_input(local, sources)
    if "://" in str(local):  # a cluster's storage (s3://, hdfs://): Spark writes there
        return
    try:  # the file the write replaces: a link's target, never a FIFO or device
        target, _ = write_target(local)
    except OutputLocationError as err:
        raise OutputLocationError(output, err.reason) from None
    folder = target.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise OutputLocationError(output, f"{folder} is not a folder")
    try:  # named as the write's own temporary file is, so a name too long fails here
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as err:
        why = f"its folder {folder} takes no new file ({err.strerror or err})"
        if err.errno == errno.ENAMETOOLONG:
            why = "its name is too long for the file system"
        raise OutputLocationError(output, why) from None
    try:
        os.close(fd)
    finally:  # a Ctrl-C here leaves no probe behind
        with contextlib.suppress(OSError):
            os.unlink(probe)


def check_outputs(
    outputs: Mapping[str, str | Path | None],
    sources: Iterable[Any],
    *,
    folders: Iterable[str] = (),
    owner: str = "anonkit",
) -> None:
    """:func:`check_output` for each of a command's ``outputs`` (by the option that names
    it; ``None``: not asked for), and refuse two that name the same file, or one that is
    an existing folder (unless its option is among ``folders``: Spark writes a folder),
    so that no output is written over another or fails after the work.

    Raises
    ------
    ParameterError
        If an output is not a path (text or :class:`~pathlib.Path`; ``owner``: the
        function or command it was given to).
    OutputIsInputError, OutputLocationError
        As :func:`check_output`; an existing folder is an ``OutputLocationError``.
    ConfigError
        If two outputs name the same file.

    Examples
    --------
    >>> try:
    ...     check_outputs({"--output": "r.csv", "--summary": "r.csv"}, ["data.csv"])
    ... except ConfigError as err:
    ...     print(err)
    --summary names the same file as --output (r.csv); give each output its own file.
    """
    seen: dict[str, str] = {}
    may_be_folder = set(folders)
    for option, given in outputs.items():
        if given is None:
            continue
        if not isinstance(given, (str, os.PathLike)):
            raise ParameterError(option, owner, "a file path (text or pathlib.Path)", given)
        local = local_path(given)
        remote = "://" in str(local)  # a cluster's storage: compared as written
        key = str(local) if remote else os.path.realpath(local)
        if key in seen:
            raise ConfigError(
                f"{option} names the same file as {seen[key]} ({given}); give each output "
                "its own file."
            )
        seen[key] = option
        # os.path.isdir, not Path.is_dir: a name too long is check_output's to report
        if not remote and os.path.isdir(local) and option not in may_be_folder:
            raise OutputLocationError(given, "it is a folder; name a file")
        check_output(given, sources)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


def write_table(
    frame: pl.DataFrame,
    path: str | Path,
    *,
    separator: str | None = None,
    csv_formulas: str = "escape",
) -> WriteInfo:
    """Write ``frame`` atomically, without any row index, in the format of ``path``'s extension.

    ``.csv`` (separator ``,`` unless given), ``.tsv`` (tab unless given), ``.parquet``/``.pq``.

    In CSV/TSV output, by default a text cell or column name starting with ``=``, ``+``,
    ``-``, ``@``, tab or carriage return gets a leading ``'`` so spreadsheets do not run it
    as a formula (OWASP CSV injection); numbers written as text (``-3``, ``+1.5``) are left
    alone. ``csv_formulas="keep"`` writes cells unchanged. Parquet output is never escaped:
    its columns are typed and spreadsheets do not evaluate them as formulas.

    Raises
    ------
    OutputFormatError
        If the extension is not one of the above.
    ParameterError
        If ``csv_formulas`` is not ``"escape"`` or ``"keep"``.
    DataError
        If CSV or TSV output would hold a list, struct, binary, duration or object
        column, or a text value with a NUL byte (:func:`refuse_nul_cells`).

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "out.csv"
    >>> write_table(pl.DataFrame({"f": ["=1+1", "-3"]}), p)
    WriteInfo(format='csv', escaped_cells=1)
    >>> p.read_text()
    "f\\n'=1+1\\n-3\\n"
    """
    fmt = output_format(path)
    if csv_formulas not in _CSV_FORMULAS:
        raise ParameterError("csv_formulas", "write_table", "'escape' or 'keep'", csv_formulas)
    p = Path(path)
    if fmt == "parquet":
        atomic_write(p, lambda tmp: frame.write_parquet(tmp))
        return WriteInfo(fmt, 0)
    refuse_unwritable(frame.schema, fmt)
    refuse_nul_cells(frame, fmt)
    sep = field_separator(fmt, separator)
    escaped = 0
    if csv_formulas == "escape":
        frame, escaped = escape_formulas(frame)
    atomic_write(p, lambda tmp: frame.write_csv(tmp, separator=sep))
    return WriteInfo(fmt, escaped)


def refuse_unwritable(schema: Mapping[str, pl.DataType], fmt: str) -> None:
    """Refuse columns a ``fmt`` file (``csv``, ``tsv`` or ``parquet``) cannot hold: lists,
    arrays, structs, binary, durations and Python objects in text files (the types polars'
    CSV writer refuses; times, decimals, categoricals, enums and nulls it writes).

    Raises
    ------
    DataError
        Naming the columns and their types.
    """
    if fmt == "parquet":
        return
    nested = [
        f"{name!r} holds {dtype.base_type()}"
        for name, dtype in schema.items()
        if dtype.is_nested() or dtype.base_type() in _NOT_IN_TEXT
    ]
    if nested:
        raise DataError(
            f"Column {', '.join(nested)} values, which a {fmt.upper()} file cannot hold: "
            "write Parquet (.parquet), or leave such columns out of the release."
        )


def check_writable(
    schema: Mapping[str, pl.DataType], released: Iterable[str], output: str | Path | None
) -> None:
    """:func:`refuse_unwritable` for the ``released`` columns of ``schema`` (those a
    release publishes as they are) when ``output`` (``None``: nothing written) names a
    file of their format: called before the search, so that the write after it cannot
    fail on them."""
    if output is not None:
        kept = {name: schema[name] for name in released if name in schema}
        refuse_unwritable(kept, output_format(output))


def refuse_nul_cells(frame: pl.DataFrame, fmt: str) -> None:
    """Refuse text values holding a NUL byte (``\\x00``) in a ``csv`` or ``tsv`` output:
    a text file with one is taken for a damaged or binary one (anonkit's own reader refuses
    it), so the release could not be read back. Parquet holds them.

    Raises
    ------
    DataError
        Naming the columns (never the values).

    Examples
    --------
    >>> refuse_nul_cells(pl.DataFrame({"a": ["x\\x00y"]}), "parquet")
    >>> refuse_nul_cells(pl.DataFrame({"a": ["x\\x00y"]}), "csv")
    Traceback (most recent call last):
    ...
    anonkit.exceptions.DataError: Column 'a' holds text with a NUL byte (\\x00), ...
    """
    if fmt == "parquet":
        return
    texts = [
        name
        for name, dtype in frame.schema.items()
        if dtype == pl.String or isinstance(dtype, pl.Categorical | pl.Enum)
    ]
    if not texts:
        return
    # by position: polars reads a name like '^b$' in pl.col as a pattern
    at = [frame.get_column_index(name) for name in texts]
    found = frame.select(
        pl.nth(i).cast(pl.String).str.contains("\x00", literal=True).any() for i in at
    ).row(0)
    bad = [repr(name) for name, nul in zip(texts, found, strict=True) if nul]
    if bad:
        raise DataError(
            f"Column {', '.join(bad)} holds text with a NUL byte (\\x00), which a "
            f"{fmt.upper()} file cannot hold (it would be read as damaged): remove the NUL "
            "bytes, write Parquet (.parquet), or leave such columns out of the release."
        )


@contextlib.contextmanager
def refusing_nul_cells(lazy: pl.LazyFrame, fmt: str) -> Iterator[pl.LazyFrame]:
    """``lazy``, checked batch by batch by :func:`refuse_nul_cells` as it streams into a
    ``fmt`` file (``sink_csv`` writes past :func:`write_table`'s check): a batch with a
    NUL byte stops the write, and its :class:`~anonkit.exceptions.DataError` leaves the
    block as raised, not as polars wraps it."""
    found: list[DataError] = []

    def check(batch: pl.DataFrame) -> pl.DataFrame:
        try:
            refuse_nul_cells(batch, fmt)
        except DataError as err:
            found.append(err)
            raise
        return batch

    try:
        yield lazy if fmt == "parquet" else lazy.map_batches(check, streamable=True)
    except Exception:
        if found:
            raise found[0] from None
        raise


def field_separator(fmt: str, separator: str | None = None) -> str:
    """The field separator of a ``csv`` or ``tsv`` output (:func:`output_format`):
    ``separator`` when given, else a tab for ``tsv`` and a comma for ``csv``.

    Examples
    --------
    >>> field_separator("tsv"), field_separator("csv"), field_separator("csv", ";")
    ('\\t', ',', ';')
    """
    return separator if separator is not None else ("\t" if fmt == "tsv" else ",")


def escape_formulas(frame: pl.DataFrame) -> tuple[pl.DataFrame, int]:
    """``frame`` with formula-like text cells and names prefixed by ``'``, and their count.

    Text, categorical and enum columns are checked (vectorized); numeric columns hold no
    formulas. Numbers written as text (``-3``, ``+1.5``, ``-2e3``) are not escaped.

    Examples
    --------
    >>> out, n = escape_formulas(pl.DataFrame({"@a": ["+x", "+1.5", None]}))
    >>> out.columns, out["'@a"].to_list(), n
    (["'@a"], ["'+x", '+1.5', None], 2)
    """
    names = [escape_name(name) for name in frame.columns]
    escaped = sum(name != old for name, old in zip(names, frame.columns, strict=True))
    texts = [
        name
        for name, dtype in frame.schema.items()
        if dtype == pl.String or isinstance(dtype, pl.Categorical | pl.Enum)
    ]
    text = {name: pl.col(name).cast(pl.String) for name in texts}
    starts = frame.select(text[n].str.contains(FORMULA_START).any().alias(n) for n in texts)
    suspects = [n for n, hit in zip(texts, starts.row(0) if texts else (), strict=True) if hit]
    if suspects:  # only these columns pay for the number test
        flags = {
            n: text[n].str.contains(FORMULA_START) & ~text[n].str.contains(NUMBER) for n in suspects
        }
        counts = frame.select(f.sum().alias(n) for n, f in flags.items()).row(0)
        escaped += int(sum(counts))
        frame = frame.with_columns(
            pl.when(flags[n]).then("'" + text[n]).otherwise(pl.col(n)).alias(n)
            for n, c in zip(suspects, counts, strict=True)
            if c
        )
    if escaped:
        frame = frame.rename(dict(zip(frame.columns, names, strict=True)))
    return frame, escaped


def escape_formulas_lazy(frame: pl.LazyFrame) -> pl.LazyFrame:
    """:func:`escape_formulas` as a lazy query, for releases streamed to CSV (the cells
    escaped are not counted: that would take another pass over the data)."""
    schema = frame.collect_schema()
    names = {name: escape_name(name) for name in schema.names()}
    texts = [
        name
        for name, dtype in schema.items()
        if dtype == pl.String or isinstance(dtype, pl.Categorical | pl.Enum)
    ]
    escaped = []
    for n in texts:
        text = pl.col(n).cast(pl.String)
        flag = text.str.contains(FORMULA_START) & ~text.str.contains(NUMBER)
        escaped.append(pl.when(flag).then("'" + text).otherwise(text).alias(n))
    out = frame.with_columns(escaped) if escaped else frame
    return out.rename(names) if any(k != v for k, v in names.items()) else out


def unescape_formulas(frame: pl.DataFrame) -> pl.DataFrame:
    """Undo :func:`escape_formulas`: a text cell or column name that is ``'`` followed by
    what that function escapes loses the ``'`` (for reading back a release anonkit wrote:
    ``'@home`` was ``@home``). Other cells, a ``'`` before anything else included, stay.

    Examples
    --------
    >>> unescape_formulas(pl.DataFrame({"'=x": ["'@a", "'-3", "'b"]})).rows(named=True)
    [{'=x': '@a'}, {'=x': "'-3"}, {'=x': "'b"}]
    """
    names = {n: unescape_name(n) for n in frame.columns}
    undone = []
    for name, dtype in frame.schema.items():
        if dtype != pl.String:
            continue
        rest = pl.col(name).str.slice(1)
        flag = (
            pl.col(name).str.starts_with("'")
            & rest.str.contains(FORMULA_START)
            & ~rest.str.contains(NUMBER)
        )
        undone.append(pl.when(flag).then(rest).otherwise(pl.col(name)).alias(name))
    out = frame.with_columns(undone) if undone else frame
    return out.rename(names) if any(k != v for k, v in names.items()) else out


def unescape_name(name: str) -> str:
    """A column name as it was before :func:`escape_name`."""
    return name[1:] if name.startswith("'") and escape_name(name[1:]) != name[1:] else name


def escape_name(name: str) -> str:
    """A column name a spreadsheet would run as a formula (or one that is ``'`` before
    such a name), with a leading ``'``."""
    if name.lstrip("'").startswith(FORMULA_PREFIXES) and not _is_number(name):
        return "'" + name
    return name


def _is_number(text: str) -> bool:
    return re.fullmatch(NUMBER, text) is not None
