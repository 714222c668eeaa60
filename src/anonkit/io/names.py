"""Column names a table read by anonkit may carry.

polars reads some names in ``pl.col`` as more than a name: ``*`` as every column and
``^...$`` as a regular expression, with no way to quote them. A file whose column bears
such a name would be misread (or stop polars) mid-run, so every reader refuses it up front,
as it refuses empty and duplicated names, naming the column by position.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from anonkit.exceptions import InputFormatError

__all__ = ["check_names", "polars_pattern"]


def check_names(p: Path, names: Sequence[str], separator: str | None = None) -> None:
    """Refuse column names no table can be worked with under: empty, duplicated, or read
    by polars as more than a name (``*``, ``^...$``). ``separator`` is a text file's
    (its header is line 1); ``None`` for Parquet, whose names have no line."""
    line = 1 if separator is not None else None
    where = "the header" if separator is not None else "the file"
    for position, name in enumerate(names, start=1):
        if name == "" and position == len(names) > 1 and separator is not None:
            raise InputFormatError(
                p,
                f"the header ends with the separator {separator!r}, so its last column has "
                "no name; if every line ends with one (some exports write it), remove them.",
                line=line,
                column=position,
            )
        if name == "":
            advice = " (or check the separator)" if separator is not None else ""
            raise InputFormatError(
                p,
                f"column {position} has no name; give every column of {where} a name{advice}.",
                line=line,
                column=position,
            )
        if name == "*":  # polars reads the name '*' as every column
            advice = " (or, if the first line is not a header, add one)" if line else ""
            raise InputFormatError(
                p,
                f"column {position} is named '*', the mark of a suppressed value; give it "
                f"another name{advice}.",
                line=line,
                column=position,
            )
        if polars_pattern(name):
            raise InputFormatError(
                p,
                f"column {position} is named {name!r}, which polars reads as a pattern "
                "(a regular expression: a name that starts with '^' and ends with '$'), "
                "not as a column name; rename the column.",
                line=line,
                column=position,
            )
    dupes = [name for name, count in Counter(names).items() if count > 1]
    if dupes:
        shown = ", ".join(repr(n) for n in dupes)
        raise InputFormatError(
            p,
            f"{where} names column(s) {shown} more than once; give every column a distinct name.",
            line=line,
        )


def polars_pattern(name: str) -> bool:
    """Whether polars reads the column name ``name`` in ``pl.col`` as a regular expression
    (it starts with ``^`` and ends with ``$``); polars has no way to quote such a name.

    Examples
    --------
    >>> polars_pattern("^id$"), polars_pattern("^$"), polars_pattern("^a"), polars_pattern("$")
    (True, True, False, False)
    """
    return len(name) > 1 and name.startswith("^") and name.endswith("$")
