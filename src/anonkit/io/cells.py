"""What reading a text table does to its cells: missing tokens, spaces, decimal commas.

:func:`anonkit.io.tables.read_table` and :func:`~anonkit.io.tables.scan_table` read every
cell of a CSV file as text, as it stands; these steps run after the parse, only as the
reading options ask.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from typing import Any, Final, TypeVar

import polars as pl

from anonkit.core.builders.values import DECIMAL_COMMA, NUMBER
from anonkit.exceptions import DataError, ParameterError

__all__ = [
    "DECIMAL_COMMA",
    "READ_OPTIONS",
    "check_read_parameters",
    "clean_cells",
    "decimal_comma_columns",
    "decimal_points",
    "missing_as_null",
    "read_options",
]

#: The reading options of a text table, as a configuration's ``[read]`` section names
#: them and :func:`anonkit.io.tables.read_table` takes them.
READ_OPTIONS = ("separator", "encoding", "missing", "strip", "decimal_comma")


def read_options(settings: object) -> dict[str, Any]:
    """The :data:`READ_OPTIONS` of ``settings`` (an object with one attribute each), as
    keyword arguments of :func:`anonkit.io.tables.read_table`."""
    return {name: getattr(settings, name) for name in READ_OPTIONS}


def check_read_parameters(
    separator: str | None, encoding: str, missing: Sequence[str], *, owner: str = "read_table"
) -> tuple[str, ...]:
    """The missing tokens, each once, after checking the reading options.

    Raises
    ------
    ParameterError
        If ``separator`` is not one ASCII character other than a quote or a line break,
        ``encoding`` is not a codec Python knows, or ``missing`` is not a list of strings.
    """
    if separator is not None and (
        not isinstance(separator, str)
        or len(separator) != 1
        or not separator.isascii()
        or separator in '"\r\n'
    ):
        raise ParameterError(
            "separator", owner, "one ASCII character other than a quote or line break", separator
        )
    try:
        codecs.lookup(encoding)
    except (LookupError, TypeError):
        raise ParameterError(
            "encoding", owner, "an encoding Python knows, such as 'utf-8' or 'latin-1'", encoding
        ) from None
    if isinstance(missing, str) or not all(isinstance(t, str) for t in missing):
        raise ParameterError("missing", owner, "a list of strings", missing)
    return tuple(dict.fromkeys(missing))


def clean_cells(
    frame: pl.DataFrame, tokens: tuple[str, ...], strip: bool
) -> tuple[pl.DataFrame, int]:
    """Strip values and turn missing tokens into nulls; count the null cells.

    Without ``strip`` polars already turned the tokens into nulls, except quoted empty
    cells (``""``), which it keeps as empty strings: those are replaced here.
    """
    if strip:
        frame = missing_as_null(frame.lazy(), tokens, strip=True).collect()
    elif "" in tokens:
        empty = frame.select((pl.all() == "").any()).row(0)
        names = [name for name, has in zip(frame.columns, empty, strict=True) if has]
        if names:
            frame = frame.with_columns(
                pl.when(pl.col(names) == "").then(None).otherwise(pl.col(names)).name.keep()
            )
    return frame, int(sum(frame.null_count().row(0)))


def missing_as_null(query: pl.LazyFrame, tokens: tuple[str, ...], *, strip: bool) -> pl.LazyFrame:
    """``query`` with its values stripped (with ``strip``) and cells equal to one of the
    missing ``tokens`` turned into nulls."""
    if strip:
        query = query.with_columns(pl.all().str.strip_chars())
    if tokens:
        query = query.with_columns(
            pl.when(pl.all().is_in(list(tokens))).then(None).otherwise(pl.all()).name.keep()
        )
    return query


_Query = TypeVar("_Query", pl.DataFrame, pl.LazyFrame)

# The ways a cell of a decimal-comma file writes a number (``DECIMAL_COMMA`` too).
_WHOLE: Final = r"^[+-]?[0-9]+$"
#: ``1.234,5``: a decimal comma after '.' thousands separators in groups of three.
_GROUPED_COMMA: Final = r"^[+-]?[1-9][0-9]{0,2}(\.[0-9]{3})+,[0-9]+$"
#: ``1.234``: one '.' before three digits, a thousands separator or a decimal point.
_ONE_GROUP: Final = r"^[+-]?[1-9][0-9]{0,2}\.[0-9]{3}$"
#: ``1.234.567``: '.' thousands separators only, as no decimal point writes a number.
_GROUPS: Final = r"^[+-]?[1-9][0-9]{0,2}(\.[0-9]{3}){2,}$"
#: A number with a '.' decimal point or an exponent (``2.5``, ``1e3``; ``1.234`` too).
_POINT: Final = f"^{NUMBER}$"


def _cells(name: str) -> dict[str, pl.Expr]:
    """Per way of writing a number, whether each cell of column ``name`` writes one so;
    ``point`` holds the cells whose '.' can only be a decimal point."""
    col = pl.col(name)
    whole, one = col.str.contains(_WHOLE), col.str.contains(_ONE_GROUP)
    return {
        "comma": col.str.contains(DECIMAL_COMMA) | col.str.contains(_GROUPED_COMMA),
        "grouped": col.str.contains(_GROUPED_COMMA) | col.str.contains(_GROUPS),
        "one": one,
        "point": col.str.contains(_POINT) & ~whole & ~one,
        "whole": whole,
    }


def _collect(query: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """``query`` run, by the streaming engine when lazy (a scan of a large file)."""
    return query.collect(engine="streaming") if isinstance(query, pl.LazyFrame) else query


def _summary(query: pl.DataFrame | pl.LazyFrame, names: list[str]) -> dict[str, dict[str, bool]]:
    """Per text column of ``names``: whether all its cells write numbers (``numbers``),
    and whether some cell writes one in each way of :func:`_cells`."""
    keys: list[tuple[str, str]] = []
    exprs: list[pl.Expr] = []
    for name in names:
        cells = _cells(name)
        known = cells["comma"] | cells["grouped"] | cells["one"] | cells["point"] | cells["whole"]
        keys.append((name, "numbers"))
        exprs.append(known.fill_null(True).all())
        for way, cell in cells.items():
            keys.append((name, way))
            exprs.append(cell.any())
    row = _collect(query.select(e.alias(str(i)) for i, e in enumerate(exprs))).row(0)
    summary: dict[str, dict[str, bool]] = {name: {} for name in names}
    for (name, way), value in zip(keys, row, strict=True):
        summary[name][way] = bool(value)
    return summary


def _refuse(query: pl.DataFrame | pl.LazyFrame, name: str, where: pl.Expr, unclear: bool) -> None:
    """Raise :class:`~anonkit.exceptions.DataError` naming column ``name``, the first of
    its cells ``where`` marks, and that cell's data row (1-based, after the header)."""
    found = query.select(pl.col(name).alias("value"), where.alias("where")).with_row_index("row")
    index, value, _ = _collect(found.filter(pl.col("where")).head(1)).row(0)
    row = int(index) + 1
    if unclear:
        reason = (
            f"with decimal_comma = true its '.' may be a thousands separator "
            f"({value.replace('.', '')}) or a decimal point ({value}), and the column's "
            f"other cells do not tell which: write it {value.replace('.', '')} or "
            f"{value.replace('.', ',')}"
        )
    else:
        reason = (
            "a number with a '.' decimal point in a column whose other numbers write a "
            "decimal comma or '.' thousands separators (decimal_comma = true): write every "
            "number of the column with a decimal comma"
        )
    err = DataError(f"Column {name!r} holds {value!r} in data row {row}: {reason}.")
    err.column, err.value, err.row = name, value, row  # type: ignore[attr-defined]
    raise err


def decimal_points(query: _Query) -> _Query:
    """``query`` with each column of numbers written with a decimal comma read with a
    decimal point (``49,4`` as ``49.4``, ``1.234,5`` as ``1234.5``); every other column
    as it stands.

    A text column is judged only when every cell that is not missing writes a number:
    a whole one, one with a decimal comma, one with '.' thousands separators in groups
    of three after a first group of one to three digits (``1.234,5``, ``1.234``,
    ``1.234.567``), or one with a '.' decimal point or an exponent (``2.5``, ``1e3``).
    A column holding any other text (``floors`` of ``1,2`` and ``ground``) is text and
    keeps its cells, as does a column of whole numbers alone. A column with a '.'
    decimal point and neither a comma nor two '.' groups in any cell is read as it
    stands, its ``1.234`` too: its ``2.5`` shows the '.' is a decimal point. Any other
    column of numbers is read with decimal commas, its '.' thousands separators dropped.

    Guessing would change data without a word, so two cells are refused there, naming
    the column, the value and its data row: a number with a '.' decimal point (``72.5``
    among ``72,5``), and a single group such as ``1.234`` (1234 with a thousands
    separator, or 1.234 with a decimal point) unless another cell of the column writes
    '.' thousands separators beyond doubt (``1.234,5`` or ``1.234.567``). A column of
    ``1.234`` and ``640`` alone is refused so, where reading it as 1.234 would make
    rents a thousandfold too small. A lazy ``query`` is read once here, to its end, by
    the streaming engine, to judge its columns.

    Raises
    ------
    DataError
        If a column of numbers holds one of the two cells above.

    Examples
    --------
    >>> frame = pl.DataFrame({"kg": ["49,4", "-0,5", "72"], "eur": ["1.234,5", "2.000", "7"],
    ...                       "floor": ["1,2", "ground", "3"]})
    >>> decimal_points(frame).rows()
    [('49.4', '1234.5', '1,2'), ('-0.5', '2000', 'ground'), ('72', '7', '3')]
    """
    converted = [
        pl.col(name).str.replace_all(".", "", literal=True).str.replace(",", ".", literal=True)
        for name in decimal_comma_columns(query)
    ]
    return query.with_columns(converted) if converted else query


def decimal_comma_columns(query: _Query) -> list[str]:
    """The columns of ``query`` that :func:`decimal_points` reads with decimal commas
    (for a reader that converts them itself: Spark).

    Raises
    ------
    DataError
        As :func:`decimal_points`.
    """
    names = [name for name, dtype in query.collect_schema().items() if dtype == pl.String]
    if not names:
        return []
    converted = []
    for name, has in _summary(query, names).items():
        commas = has["comma"] or has["grouped"]
        if not has["numbers"] or not (commas or has["one"]) or (has["point"] and not commas):
            continue  # text; whole numbers; numbers with a '.' decimal point
        cells = _cells(name)
        if has["point"]:
            _refuse(query, name, cells["point"], unclear=False)
        if has["one"] and not has["grouped"]:
            _refuse(query, name, cells["one"], unclear=True)
        converted.append(name)
    return converted
