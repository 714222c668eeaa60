"""What reading a text table does to its cells: missing tokens, spaces, decimal commas.

:func:`anonkit.io.tables.read_table` and :func:`~anonkit.io.tables.scan_table` read every
cell of a CSV file as text, as it stands; these steps run after the parse, only as the
reading options ask.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from typing import Any, TypeVar

import polars as pl

from anonkit.core.builders.values import DECIMAL_COMMA
from anonkit.exceptions import ParameterError

__all__ = [
    "DECIMAL_COMMA",
    "READ_OPTIONS",
    "check_read_parameters",
    "clean_cells",
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


def decimal_points(query: _Query) -> _Query:
    """``query`` with every text cell that is a number written with a decimal comma read
    with a decimal point (``49,4`` as ``49.4``); every other cell as it stands (``1.234,5``
    and ``1,234,567`` too: thousands separators are not read).

    Examples
    --------
    >>> frame = pl.DataFrame({"kg": ["49,4", "-0,5", "72", "1.234,5", "a,b"]})
    >>> decimal_points(frame)["kg"].to_list()
    ['49.4', '-0.5', '72', '1.234,5', 'a,b']
    """
    return query.with_columns(pl.col(pl.String).str.replace(DECIMAL_COMMA, "${1}.${2}"))
