"""The leak check: columns released as they are that would undo the anonymization.

A release generalizes its quasi-identifiers, but every other column (sensitive or
insensitive) is published as it is. Three things about such a column defeat the
generalization, and :func:`find_leaks` looks for each:

``dependency`` (an error)
    The column determines a quasi-identifier: each of its values goes with one value of
    the quasi-identifier, so publishing it publishes the quasi-identifier's original values
    (``education-num`` gives ``education`` back, a ``zip`` gives the ``state``). A column
    the quasi-identifier determines one-to-one determines it too, so that case is covered.
    See :func:`dependency_strength` for the rule and its tolerance for dirty data.
``unique`` (a warning)
    The column is near-unique: it holds at least ``unique_share`` distinct values per
    record (a serial number, a survey weight such as Adult's ``fnlwgt`` with 21,648 values
    for 32,561 records, 66 %): such a value singles a person out by itself, or narrows them
    down to one or two, and links the release to any other copy of the data. Distinct
    values per record rather than the share of records whose value occurs once (47 % for
    ``fnlwgt``) is the measure, because a value shared by two records is hardly safer than
    a value of one's own, and because it makes the near-unique columns that the dependency
    check leaves out (:data:`NEAR_UNIQUE`) exactly the ones reported here.
``identifier`` (an error)
    The values look like direct identifiers: e-mail addresses, social security numbers,
    IBANs, payment card numbers, phone or ID numbers written in digit groups (see
    :func:`identifier_kind`): at least :data:`IDENTIFIER_SHARE` of the non-null values
    match one pattern.

Every message names the column, the reason and the fix, never a value of the data.

The work runs on integer codes (:mod:`anonkit.safety.codes`): each column is hashed once (polars,
in parallel) and coded by the rank of each hash among its distinct hashes, then each (column,
quasi-identifier) pair is one ``numpy.bincount`` over the records, so the check takes a
second or two on a table of a million records (a 64-bit hash collision between two
distinct values of one column, odds about n**2 / 2**65, would merge them; that cannot
hide a dependency, only, vanishingly rarely, suggest one). A table already counted (the
detail count of a full-domain fit) is read as it is (:class:`TallyCodes`): each pair is one
``numpy.bincount`` over the count's rows, weighted by their records.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

import polars as pl

from anonkit.exceptions import LeakError, ParameterError, UnknownColumnError
from anonkit.safety.codes import (
    NEAR_UNIQUE,
    Codes,
    ColumnCodes,
    TallyCodes,
    dependency_strength,
)
from anonkit.safety.identifiers import IDENTIFIER_KINDS, IDENTIFIER_SHARE, identifier_kind

__all__ = [
    "DEPENDENCY_AGREEMENT",
    "DEPENDENCY_STRENGTH",
    "IDENTIFIER_KINDS",
    "IDENTIFIER_SHARE",
    "NEAR_UNIQUE",
    "Dependency",
    "Leak",
    "TallyCodes",
    "check_leaks",
    "dependency_strength",
    "ColumnCodes",
    "find_dependencies",
    "find_leaks",
    "identifier_kind",
    "in_order",
    "value_leaks",
]

#: A dependency holds when at least this share of the records (among those whose value of
#: the determining column occurs more than once) carry their value's majority value of the
#: dependent column: 1 % of typing errors or recoding slips do not hide it.
DEPENDENCY_AGREEMENT: Final = 0.99
#: ... and when it explains at least this share of the dependent column's variation
#: (Goodman and Kruskal's lambda), so that a dependent column holding one value for 99.5 %
#: of the records is not "determined" by anything.
DEPENDENCY_STRENGTH: Final = 0.9


@dataclass(frozen=True)
class Leak:
    """A column released as it is that would undo (part of) the anonymization.

    Attributes
    ----------
    column
        The released column.
    kind
        ``"dependency"``, ``"unique"`` or ``"identifier"``.
    severity
        ``"error"`` (the run must stop) or ``"warning"``.
    reason
        One sentence naming the column, the reason and the fix; never a value.
    related
        The quasi-identifier a dependency gives away.
    share
        Distinct values per record (``unique``), share of the values matching the pattern
        (``identifier``) or agreeing with the dependency (``dependency``).
    """

    column: str
    kind: str
    severity: str
    reason: str
    related: str | None = None
    share: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary of the fields."""
        return asdict(self)


@dataclass(frozen=True)
class Dependency:
    """Column ``determinant`` determines column ``dependent`` (see :func:`dependency_strength`).

    Attributes
    ----------
    agreement
        Share of the records (in repeated values of ``determinant``) that carry their
        value's majority value of ``dependent``; 1.0 for an exact dependency.
    strength
        Goodman and Kruskal's lambda: the share of the errors made guessing ``dependent``
        blindly that knowing ``determinant`` removes.
    """

    determinant: str
    dependent: str
    agreement: float
    strength: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary of the fields."""
        return asdict(self)


def _holds(measure: tuple[float, float] | None) -> bool:
    return (
        measure is not None
        and measure[0] >= DEPENDENCY_AGREEMENT
        and measure[1] >= DEPENDENCY_STRENGTH
    )


def find_dependencies(
    frame: pl.DataFrame,
    determinants: Sequence[str] | None = None,
    dependents: Sequence[str] | None = None,
    *,
    codes: ColumnCodes | None = None,
) -> list[Dependency]:
    """Every pair (determinant, dependent) of distinct columns where the first determines
    the second (see :func:`dependency_strength`); all columns by default.

    Examples
    --------
    >>> frame = pl.DataFrame({"zip": ["1", "1", "2", "2", "2", "3", "3", "3"],
    ...                       "state": ["A", "A", "A", "A", "A", "B", "B", "B"]})
    >>> [(d.determinant, d.dependent) for d in find_dependencies(frame)]
    [('zip', 'state')]
    """
    xs = list(frame.columns if determinants is None else determinants)
    ys = list(frame.columns if dependents is None else dependents)
    _check_columns(frame, [*xs, *ys])
    coded = codes if codes is not None else ColumnCodes(frame, [*xs, *ys])
    found: list[Dependency] = []
    for xname in xs:
        for yname in ys:
            measure = coded.dependency(xname, yname)
            if measure is not None and _holds(measure):
                found.append(Dependency(xname, yname, measure[0], measure[1]))
    return found


# ------------------------------------------------------------------------- the check
def _check_columns(frame: pl.DataFrame, columns: Iterable[str]) -> None:
    names = list(dict.fromkeys(columns))
    unknown = [c for c in names if c not in frame.columns]
    if unknown:
        raise UnknownColumnError(unknown, frame.columns)


def _names(columns: Sequence[str]) -> list[str]:
    return list(dict.fromkeys([columns] if isinstance(columns, str) else columns))


def _percent(share: float) -> str:
    return f"{share:.0%}" if share < 0.995 or share == 1 else f"{share:.1%}"


def _dependency_leak(column: str, qi: str, agreement: float) -> Leak:
    each = "one value each" if agreement == 1 else f"one value each for {_percent(agreement)}"
    reason = (
        f"Column {column!r} determines the quasi-identifier {qi!r} ({each}), so releasing "
        f"it undoes the generalization of {qi!r}; declare it a quasi-identifier, mark it "
        "identifying (removed), or drop it."
    )
    return Leak(column, "dependency", "error", reason, related=qi, share=agreement)


def _unique_leak(column: str, share: float, singles: float) -> Leak:
    reason = (
        f"Column {column!r} is near-unique (distinct values for {_percent(share)} of the "
        f"records, a value of its own for {_percent(singles)}), so it can single people "
        "out and link the release to other copies of the data; mark it identifying "
        "(removed) or generalize it as a quasi-identifier."
    )
    return Leak(column, "unique", "warning", reason, share=share)


def _identifier_leak(column: str, kind: str, share: float) -> Leak:
    reason = (
        f"Column {column!r} looks like {kind} ({_percent(share)} of its values), a direct "
        "identifier; mark it identifying (removed) or drop it."
    )
    return Leak(column, "identifier", "error", reason, share=share)


def find_leaks(
    frame: pl.DataFrame,
    *,
    quasi_identifiers: Sequence[str],
    released: Sequence[str],
    unique_share: float = 0.5,
    tallied: Sequence[str] = (),
) -> list[Leak]:
    """Every leak of the columns ``released`` as they are (see the module docstring).

    Parameters
    ----------
    frame
        The original table (before generalization).
    quasi_identifiers
        The columns the release generalizes.
    released
        The columns published as they are (sensitive and insensitive ones).
    unique_share
        Distinct values per record from which a released column is reported as
        ``unique`` (near-unique).
    tallied
        Released columns whose dependencies and uniqueness are read from a count of the
        table instead (:func:`value_leaks` on :class:`TallyCodes`): only their identifier
        patterns are matched here.

    Returns
    -------
    list of Leak
        Per released column in the given order: its identifier, dependency (one per
        quasi-identifier it gives away) and unique leaks (:func:`in_order`).

    Raises
    ------
    UnknownColumnError
        If a named column is not in ``frame``.
    ParameterError
        If ``unique_share`` is not in ``(0, 1]``.

    Examples
    --------
    >>> frame = pl.DataFrame({"edu": ["BA", "BA", "BA", "MA", "MA", "MA", "HS", "HS"],
    ...                       "years": ["13", "13", "13", "14", "14", "14", "9", "9"],
    ...                       "sex": ["F", "M", "F", "M", "M", "F", "F", "M"]})
    >>> [(x.column, x.kind, x.related) for x in find_leaks(
    ...     frame, quasi_identifiers=["edu", "sex"], released=["years"])]
    [('years', 'dependency', 'edu')]
    """
    if isinstance(unique_share, bool) or not 0 < unique_share <= 1:
        raise ParameterError("unique_share", "find_leaks()", "a share in (0, 1]", unique_share)
    qis = _names(quasi_identifiers)
    cols = _names(released)
    _check_columns(frame, [*qis, *cols])
    if frame.height == 0 or not cols:
        return []
    leaks: list[Leak] = []
    for column in cols:
        kind = identifier_kind(frame.get_column(column))
        if kind is not None:
            leaks.append(_identifier_leak(column, *kind))
    later = set(_names(tallied))
    counted = [c for c in cols if c not in later]
    if counted:
        coded = ColumnCodes(frame, [*counted, *qis])
        leaks += value_leaks(
            coded, quasi_identifiers=qis, released=counted, unique_share=unique_share
        )
    return in_order(leaks, cols)


def value_leaks(
    coded: Codes,
    *,
    quasi_identifiers: Sequence[str],
    released: Sequence[str],
    unique_share: float = 0.5,
) -> list[Leak]:
    """The dependency and unique leaks of the columns ``released`` (what
    :func:`find_leaks` finds but the identifiers), read from ``coded``, which holds them
    and the quasi-identifiers: a :class:`ColumnCodes` of the records or a
    :class:`TallyCodes` of their count.

    Examples
    --------
    >>> import numpy as np
    >>> edu, years = np.array([0, 0, 1, 2]), np.array([0, 0, 1, 2])
    >>> coded = TallyCodes({"edu": edu, "years": years}, {"edu": 3, "years": 3},
    ...                    np.array([3, 0, 3, 2]))
    >>> [(x.column, x.kind) for x in value_leaks(
    ...     coded, quasi_identifiers=["edu"], released=["years"])]
    [('years', 'dependency')]
    """
    leaks: list[Leak] = []
    if coded.records == 0:
        return leaks
    qis = _names(quasi_identifiers)
    for column in _names(released):
        for qi in qis:
            measure = coded.dependency(column, qi)
            if measure is not None and _holds(measure):
                leaks.append(_dependency_leak(column, qi, measure[0]))
        share = coded.distinct[column] / coded.records
        if share >= unique_share:
            singles = coded.singles(column) / coded.records
            leaks.append(_unique_leak(column, share, singles))
    return leaks


_KIND_ORDER: Final = {"identifier": 0, "dependency": 1, "unique": 2}


def in_order(leaks: Iterable[Leak], released: Sequence[str]) -> list[Leak]:
    """``leaks`` in :func:`find_leaks`'s order: by column as ``released`` lists them, then
    identifier, dependencies (in the order found), unique."""
    rank = {c: i for i, c in enumerate(_names(released))}
    return sorted(leaks, key=lambda x: (rank.get(x.column, len(rank)), _KIND_ORDER[x.kind]))


def check_leaks(
    frame: pl.DataFrame,
    *,
    quasi_identifiers: Sequence[str],
    released: Sequence[str],
    unique_share: float = 0.5,
) -> list[Leak]:
    """Run :func:`find_leaks`; raise on errors, return the warnings.

    Raises
    ------
    LeakError
        If any leak is an error (a dependency or an identifier); ``.leaks`` holds them.
    """
    leaks = find_leaks(
        frame, quasi_identifiers=quasi_identifiers, released=released, unique_share=unique_share
    )
    errors = [leak for leak in leaks if leak.severity == "error"]
    if errors:
        raise LeakError(errors)
    return leaks
