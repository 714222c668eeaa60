"""What :func:`anonkit.releases.publish` checks before it divides the records: the
columns' roles and names, and the history against the table's ids."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from anonkit.core.schema import RESERVED_PREFIX
from anonkit.exceptions import ParameterError, warn_caller
from anonkit.releases.history import ReleaseHistory

__all__ = ["check_history", "check_roles"]

_OWNER = "publish"


def check_roles(
    id_column: str, qi: list[str], sensitive: str, numeric: Sequence[str], written: str
) -> None:
    """Refuse columns given two roles (the id column is never published, so it may not
    be a quasi-identifier or the sensitive attribute: it was published whole), and names
    the release cannot hold: ``written``, the column the release writes itself (the id
    column may take it: it is never released), names starting with
    :data:`~anonkit.core.schema.RESERVED_PREFIX` (working columns) and those polars
    reads as patterns (``*``, ``^...$``)."""
    named = [("id_column", id_column), *(("quasi_identifiers", c) for c in qi)]
    for parameter, name in [*named, ("sensitive", sensitive)]:
        if name.startswith(RESERVED_PREFIX) or _pattern(name):
            raise ParameterError(
                parameter,
                _OWNER,
                f"a column name that does not start with {RESERVED_PREFIX!r} and is not '*' "
                "or '^...$' (anonkit names its working columns so, and polars reads '*' as "
                "every column and '^...$' as a pattern; rename the column)",
                name,
            )
        if name == written and parameter != "id_column":
            raise ParameterError(
                parameter,
                _OWNER,
                f"a column name other than {written!r}, the column of class numbers the "
                "release writes itself (rename the column)",
                name,
            )
    if id_column in qi or id_column == sensitive:
        raise ParameterError(
            "id_column",
            _OWNER,
            "a column that is neither a quasi-identifier nor the sensitive attribute (the "
            "id column is never published)",
            id_column,
        )
    if sensitive in qi:
        raise ParameterError(
            "sensitive", _OWNER, "a column that is not a quasi-identifier", sensitive
        )
    if len(set(qi)) < len(qi):
        raise ParameterError("quasi_identifiers", _OWNER, "a list without duplicates", qi)
    stray = [c for c in numeric if c not in qi]
    if stray:
        raise ParameterError("numeric", _OWNER, "quasi-identifiers", stray)


def _pattern(name: str) -> bool:
    """Whether polars reads the column name ``name`` as more than its own name: ``*``
    (every column) or ``^...$`` (a regular expression)."""
    return name == "*" or (len(name) > 1 and name.startswith("^") and name.endswith("$"))


def check_history(past: ReleaseHistory, ids: pl.Series, id_column: str, m: int) -> None:
    """Refuse an ``m`` above the history's signatures' size (they are kept across
    releases); warn when no record of the table is in it (a complete turnover, or
    another id column or ids written otherwise: every record gets a new signature)."""
    if not past.records:
        return
    if not ids.is_in(list(past.records)).any():
        # every record new: a complete turnover, or ids written otherwise than before
        warn_caller(
            UserWarning(
                f"None of the {ids.len()} ids in column {id_column!r} is in the history, which "
                f"holds {len(past.records)} records: every record gets a new signature. If they "
                "are the same people, check the id column and how its ids are written (as in "
                "the first release): intersected, the releases would narrow their values."
            )
        )
    # a record without entries (never written by save) counts as never published
    held = min((len(sig) for entries in past.records.values() for _, sig in entries), default=m)
    if m > held:
        raise ParameterError(
            "m",
            _OWNER,
            f"at most {held}, the number of values in the history's signatures (a record "
            "keeps its signature across releases, so m cannot grow; start a new history "
            "to release with a larger m)",
            m,
        )
