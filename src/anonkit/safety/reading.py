"""How ``anonkit init`` and the web app read a file nobody has described yet: the
reading options a configuration's ``[read]`` section holds, guessed where not given.

:func:`read_for_starter` reads with :func:`anonkit.io.tables.read_table_info` and
detects what the file itself says: the separator (sniffed by the reader), spaces around
values (``strip``), numbers written with a decimal comma (``decimal_comma``), and cells
that may mean "missing" (reported, never applied: a quasi-identifier cannot hold missing
values).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import polars as pl

from anonkit.core.hierarchy import Hierarchy
from anonkit.core.values import as_text
from anonkit.exceptions import AnonkitError, DataError, InputFileError
from anonkit.io.cells import DECIMAL_COMMA, decimal_points, read_options
from anonkit.io.tables import read_table_info
from anonkit.safety.profile import numbers_written_as

__all__ = ["MISSING_CANDIDATES", "ReadSettings", "hierarchy_files", "read_for_starter"]

#: Cells that often mean "missing", reported when the data holds them.
MISSING_CANDIDATES: Final = ("?", "NA", "N/A", "n/a", "NULL", "null", "NaN", "nan", "None")


@dataclass(frozen=True)
class ReadSettings:
    """How the input was read, as written to the ``[read]`` section."""

    separator: str | None = None
    encoding: str = "utf-8"
    missing: tuple[str, ...] = ("",)
    strip: bool = False
    detected: tuple[str, ...] = ()  # which of separator, strip, decimal_comma were guessed
    #: Missing-value tokens found in the data but kept as values: a quasi-identifier cannot
    #: hold missing values, and as a value ``?`` is generalized like any other.
    found_missing: tuple[str, ...] = ()
    decimal_comma: bool = False
    #: Why decimal commas were found but ``decimal_comma`` was left off, or ``""``.
    decimal_comma_note: str = ""

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :func:`anonkit.io.tables.read_table` for these settings."""
        return read_options(self)


def _padded_share(frame: pl.DataFrame) -> float:
    text = [c for c, t in frame.schema.items() if t == pl.String]
    if not text:
        return 0.0
    shares = frame.select(
        [pl.col(c).str.contains(r"^\s|\s$").mean().fill_null(0.0).alias(c) for c in text]
    ).row(0)
    return max(float(s) for s in shares)


def read_for_starter(
    path: str | Path,
    *,
    separator: str | None = None,
    encoding: str = "utf-8",
    missing: Sequence[str] | None = None,
    strip: bool | None = None,
    decimal_comma: bool | None = None,
    option: str = "separator",
) -> tuple[pl.DataFrame, ReadSettings]:
    """Read ``path`` with :func:`anonkit.io.tables.read_table_info`, guessing what is not given.

    ``strip`` (None: true when at least half the values of some text column, or a column
    name, carry surrounding spaces) is detected when None; with ``missing`` None only empty
    cells are missing, and the cells of :data:`MISSING_CANDIDATES` that occur in the data
    are reported (``found_missing``) but kept as values, since a quasi-identifier cannot
    hold missing values (``?`` is then a value its hierarchy generalizes like any other).
    ``decimal_comma`` (None: true when the separator is not ``,``, some column holds
    only whole numbers and numbers written with a decimal comma, at least one of them,
    and no column would be misread or refused with it: see :func:`_decimal_comma_doubt`,
    whose reason ``decimal_comma_note`` keeps) is detected too. The separator is
    sniffed by the reader when None.

    A file that ``separator`` reads into one column whose name another separator splits
    (as the sniffer would, CSV quoting respected) is refused: the starter would propose
    its whole header line as one column. ``option`` is how the caller's user gives the
    separator (``--separator`` for ``anonkit init``), named in the message.

    Raises
    ------
    InputFileError
        If the file is read into one column that looks separated by another separator;
        the reader's errors otherwise.
    """
    detected: list[str] = [] if separator is not None else ["separator"]
    tokens = ("",) if missing is None else tuple(missing)
    frame, info = read_table_info(
        path,
        separator=separator,
        encoding=encoding,
        missing=tokens,
        strip=bool(strip),
        decimal_comma=bool(decimal_comma),
    )
    looks = info.single_column_hint
    if looks is not None and info.separator is not None:
        raise InputFileError(
            path,
            f"read with separator {info.separator!r} it is one column, whose name holds "
            f"{looks!r}; it looks {looks!r}-separated: use {option} {looks!r}.",
        )
    parquet = info.separator is None
    again = False
    if strip is None and not parquet:
        names_padded = any(c != c.strip() for c in frame.columns)
        if names_padded or _padded_share(frame) >= 0.5:
            strip, again = True, True
            detected.append("strip")
    comma_note = ""
    if decimal_comma is None and not parquet and info.separator != ",":
        if any(_decimal_commas(frame.get_column(c)) for c in frame.columns):
            comma_note = _decimal_comma_doubt(frame, strip=bool(strip))
            if not comma_note:
                decimal_comma, again = True, True
                detected.append("decimal_comma")
    if missing is None and not parquet:
        found: set[str] = set()
        for name, dtype in frame.schema.items():
            if dtype == pl.String:
                cells = frame.get_column(name).str.strip_chars()
                found.update(cells.filter(cells.is_in(MISSING_CANDIDATES)).unique().to_list())
        found_missing = tuple(t for t in MISSING_CANDIDATES if t in found)
    else:
        found_missing = ()
    if again:
        frame, info = read_table_info(
            path,
            separator=info.separator,
            encoding=encoding,
            missing=tokens,
            strip=bool(strip),
            decimal_comma=bool(decimal_comma),
        )
    settings = ReadSettings(
        info.separator,
        info.encoding,
        tokens,
        bool(strip),
        tuple(detected),
        found_missing,
        bool(decimal_comma),
        comma_note,
    )
    return frame, settings


def _decimal_commas(column: pl.Series) -> bool:
    """Whether a text column holds whole numbers and numbers written with a decimal comma
    only (missing cells aside), at least one of the latter, and not all of those with
    three digits after the comma (``18,000``: a thousands separator as likely, which
    read as a decimal comma would shrink the number a thousandfold)."""
    if column.dtype != pl.String:
        return False
    cells = column.drop_nulls().str.strip_chars()
    if not numbers_written_as(cells, DECIMAL_COMMA):
        return False
    decimals = cells.str.extract(DECIMAL_COMMA, 2).drop_nulls()
    return bool((decimals.str.len_chars() != 3).any())


def _decimal_comma_doubt(frame: pl.DataFrame, *, strip: bool) -> str:
    """Why reading ``frame`` (read as text) with decimal_comma on could change a number
    without a word, or ``""``: the option holds for the whole file, so one column of
    decimal commas must not switch it on when :func:`~anonkit.io.cells.decimal_points`
    would refuse another column (``1.234`` and ``640``: 1234 or 1.234?) or read one
    whose every decimal comma has three digits after it (``18,000``, as likely eighteen
    thousand). The reason names the column, never a value. With ``strip`` the values
    are judged stripped, as the file will be read again."""
    if strip:
        frame = frame.with_columns(pl.col(pl.String).str.strip_chars())
    try:
        points = decimal_points(frame)
    except DataError as err:
        column = getattr(err, "column", "?")
        return (
            f"left off: decimal commas found, but column {column!r} holds a number whose "
            "'.' may be a thousands separator or a decimal point (write it without the "
            "separator to read the file with decimal_comma = true)"
        )
    for name in frame.columns:
        column = frame.get_column(name)
        if column.dtype != pl.String or column.equals(points.get_column(name)):
            continue
        decimals = column.str.extract(DECIMAL_COMMA, 2).drop_nulls()
        if decimals.len() and bool((decimals.str.len_chars() == 3).all()):
            return (
                f"left off: decimal commas found, but in column {name!r} three digits "
                "follow every comma, as likely a thousands separator (18,000)"
            )
    return ""


def hierarchy_files(data: Path, frame: pl.DataFrame, encoding: str = "utf-8") -> dict[str, Path]:
    """The hierarchy files kept beside ``data`` as ARX names them
    (``<table>_hierarchy_<column>.csv``, or ``hierarchy_<column>.csv``), per column of
    ``frame`` whose every value they cover; a file that does not read as a hierarchy, or
    lacks a value, is passed over (a run with it would stop)."""
    found: dict[str, Path] = {}
    for column in frame.columns:
        for name in (f"{data.stem}_hierarchy_{column}.csv", f"hierarchy_{column}.csv"):
            path = data.parent / name
            if not path.is_file():
                continue
            try:
                leaves = set(Hierarchy.from_csv(path, name=column, encoding=encoding).leaves)
            except AnonkitError:
                continue
            values = as_text(frame[column].drop_nulls()).unique().to_list()
            if set(values) <= leaves:
                found[column] = path
                break
    return found
