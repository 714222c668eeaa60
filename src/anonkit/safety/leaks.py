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

The work runs on integer codes (:class:`ColumnCodes`): each column is hashed once (polars,
in parallel) and coded by the rank of each hash among its distinct hashes, then each (column,
quasi-identifier) pair is one ``numpy.bincount`` over the records, so the check takes a
second or two on a table of a million records (a 64-bit hash collision between two
distinct values of one column, odds about n**2 / 2**65, would merge them; that cannot
hide a dependency, only, vanishingly rarely, suggest one). A table already counted (the
detail count of a full-domain fit) is read as it is (:class:`TallyCodes`): each pair is one
``numpy.bincount`` over the count's rows, weighted by their records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit.exceptions import LeakError, ParameterError, UnknownColumnError
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
#: A column with at least this many distinct values per record is near-unique: it
#: "determines" every other column trivially, so it is reported as unique, not dependent.
NEAR_UNIQUE: Final = 0.5
# Above this many cells the (determinant, dependent) contingency table is counted sparsely.
_DENSE_CELLS: Final = 4_000_000
# The widest slot table of _hash_ranks (2**16 entries: columns of up to 255 values).
_SLOT_BITS: Final = 16


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


# ----------------------------------------------------------------------------- codes
class _Codes:
    """Dense integer codes ``0..d-1`` of a table's columns (equal values, equal codes),
    one per record or, in a tally, one per row standing for ``weights`` records."""

    #: Records of the table.
    records: int
    #: Each column's distinct values.
    distinct: dict[str, int]
    #: Records per row (a tally, as floats), or ``None`` (a row per record).
    weights: npt.NDArray[np.float64] | None = None

    def codes(self, column: str) -> npt.NDArray[np.int64]:
        raise NotImplementedError

    def near_unique(self, column: str) -> bool:
        """Whether ``column`` has at least :data:`NEAR_UNIQUE` distinct values per record."""
        return _near_unique(self.distinct[column], self.records)

    def singles(self, column: str) -> int:
        """How many records hold a value that no other record holds."""
        counts = np.bincount(self.codes(column), self.weights, minlength=self.distinct[column])
        return int(np.count_nonzero(counts == 1))

    def dependency(self, determinant: str, dependent: str) -> tuple[float, float] | None:
        """:func:`dependency_strength` of the two columns (None when trivial)."""
        if (
            determinant == dependent
            or self.near_unique(determinant)
            or self.near_unique(dependent)
            or self.distinct[dependent] <= 1
        ):
            return None
        return dependency_strength(
            self.codes(determinant),
            self.distinct[determinant],
            self.codes(dependent),
            self.distinct[dependent],
            self.weights,
        )


class ColumnCodes(_Codes):
    """Distinct counts and dense integer codes of a table's columns (null is a value too).

    Two parallel polars passes hash every column and find its distinct hashes; the codes
    ``0..d-1`` of a column (equal values, equal codes) are made on first use: the rank of
    each hash among the ``d`` sorted distinct hashes (:func:`_hash_ranks`).

    Examples
    --------
    >>> coded = ColumnCodes(pl.DataFrame({"a": ["x", None, "y", "x"]}))
    >>> coded.distinct["a"], coded.singles("a"), len(set(coded.codes("a").tolist()))
    (3, 2, 3)
    """

    def __init__(self, frame: pl.DataFrame, columns: Iterable[str] | None = None) -> None:
        names = list(dict.fromkeys(frame.columns if columns is None else columns))
        self.records = frame.height
        self._hashes = frame.select([pl.col(c).hash(seed=0) for c in names])
        uniques = (
            self._hashes.select(pl.col(c).unique().implode() for c in names).row(0) if names else ()
        )
        #: Each column's distinct hashes, sorted.
        self._keys = {
            c: np.sort(np.asarray(u, dtype=np.uint64)) for c, u in zip(names, uniques, strict=True)
        }
        self.distinct = {c: int(self._keys[c].size) if self.records else 0 for c in names}
        self._codes: dict[str, npt.NDArray[np.int64]] = {}

    def codes(self, column: str) -> npt.NDArray[np.int64]:
        """The dense codes of ``column``, one per record (made on first use: the dense
        rank of its hashes)."""
        if column not in self._codes:
            hashes = self._hashes.get_column(column).to_numpy()
            self._codes[column] = _hash_ranks(self._keys[column], hashes)
        return self._codes[column]

    def singles(self, column: str) -> int:
        if column in self._codes:
            return super().singles(column)
        return int(self._hashes.get_column(column).is_unique().sum())


class TallyCodes(_Codes):
    """:class:`ColumnCodes` of a table already counted: one row per distinct combination
    of the columns' values, with the records holding it (the grouped count a full-domain
    fit makes for its privacy models). The checks then cost a pass over the tally's rows,
    and nothing is hashed.

    Parameters
    ----------
    codes
        Each column's codes, one per row, in ``0 .. cardinalities[column] - 1`` (equal
        values, equal codes).
    cardinalities
        Each column's code range.
    counts
        Records per row; rows of none (a population's combinations) count nowhere.

    Examples
    --------
    >>> coded = TallyCodes({"a": np.array([0, 3, 2, 0])}, {"a": 4}, np.array([2, 1, 0, 1]))
    >>> coded.records, coded.distinct["a"], coded.singles("a"), coded.codes("a")[[0, 1, 3]]
    (4, 2, 1, array([0, 1, 0]))
    """

    def __init__(
        self,
        codes: Mapping[str, npt.NDArray[np.int64]],
        cardinalities: Mapping[str, int],
        counts: npt.NDArray[np.int64],
    ) -> None:
        self.records = int(counts.sum())
        # as floats once: every bincount would convert them
        self.weights = counts.astype(np.float64)
        self.distinct = {}
        self._codes = {}
        live = None if bool((counts > 0).all()) else counts > 0
        for column, raw in codes.items():
            held = np.zeros(int(cardinalities[column]), dtype=bool)
            held[raw if live is None else raw[live]] = True
            distinct = int(np.count_nonzero(held))
            if distinct < held.size:
                # renumber the values held 0..d-1; rows of none take any code (they weigh 0)
                raw = np.maximum(np.cumsum(held) - 1, 0)[raw]
            self._codes[column] = raw
            self.distinct[column] = distinct

    def codes(self, column: str) -> npt.NDArray[np.int64]:
        """The dense codes of ``column``, one per row."""
        return self._codes[column]


def _hash_ranks(
    keys: npt.NDArray[np.uint64], hashes: npt.NDArray[np.uint64]
) -> npt.NDArray[np.int64]:
    """The rank of each of ``hashes`` among the sorted distinct ``keys`` (each hash is one
    of them).

    A binary search takes about 0.9 ms per 30,000 records (a mispredicted branch a step).
    When some bit field of the keys, about twice as wide as their count, tells them apart
    (hashes are uniform, so one of the first few fields tried does unless the keys are
    many), the ranks are one gather from a small table indexed by that field instead."""
    size = int(keys.size)
    bits = max(8, 2 * size.bit_length())
    if 0 < size and bits <= _SLOT_BITS:
        mask = np.uint64((1 << bits) - 1)
        for shift in range(0, 64 - bits + 1, bits):
            slots = ((keys >> np.uint64(shift)) & mask).astype(np.intp)
            if np.unique(slots).size == size:
                table = np.empty(1 << bits, dtype=np.int64)  # only the keys' slots are read
                table[slots] = np.arange(size, dtype=np.int64)
                return table[((hashes >> np.uint64(shift)) & mask).astype(np.intp)]
    return np.searchsorted(keys, hashes).astype(np.int64, copy=False)


def _near_unique(distinct: int, records: int) -> bool:
    return records > 0 and distinct >= NEAR_UNIQUE * records


def dependency_strength(
    x: npt.NDArray[np.int64],
    dx: int,
    y: npt.NDArray[np.int64],
    dy: int,
    weights: npt.NDArray[np.float64] | npt.NDArray[np.int64] | None = None,
) -> tuple[float, float] | None:
    """How well the codes ``x`` determine the codes ``y``: ``(agreement, strength)``; with
    ``weights``, each (``x``, ``y``) row stands for that many records (a tally).

    Records whose ``x`` value occurs once carry no evidence (any value "determines"
    anything once) and are left out. Among the rest, ``agreement`` is the share of records
    whose ``y`` equals the majority ``y`` of their ``x`` value, and ``strength`` is
    Goodman and Kruskal's lambda, ``(agreement - base) / (1 - base)`` where ``base`` is the
    share of the most frequent ``y``. ``x`` determines ``y`` when ``agreement >=``
    :data:`DEPENDENCY_AGREEMENT` and ``strength >=`` :data:`DEPENDENCY_STRENGTH`.

    Returns
    -------
    tuple of float, or None
        None when the question is trivial: ``x`` is near-unique (:data:`NEAR_UNIQUE`),
        ``y`` holds a single value, or no ``x`` value occurs twice.

    Examples
    --------
    >>> import numpy as np
    >>> zip_ = np.array([0, 0, 1, 1, 1, 2, 2, 2])
    >>> state = np.array([0, 0, 0, 0, 0, 1, 1, 1])
    >>> dependency_strength(zip_, 3, state, 2)
    (1.0, 1.0)
    >>> dependency_strength(state, 2, zip_, 3)
    (0.75, 0.6)
    """
    n = int(x.size) if weights is None else int(weights.sum())
    if n == 0 or dy <= 1 or _near_unique(dx, n):
        return None
    if dx * dy <= _DENSE_CELLS:
        cells = np.bincount(x * dy + y, weights, minlength=dx * dy)
        table = cells.astype(np.int64, copy=False).reshape(dx, dy)
        sizes = table.sum(axis=1)
        keep = sizes >= 2
        evidence = int(sizes[keep].sum())
        if evidence == 0:
            return None
        agree = int(table.max(axis=1)[keep].sum())
        base = int(table[keep].sum(axis=0).max())
    else:
        rows = pl.DataFrame({"x": x, "y": y, "w": np.ones_like(x) if weights is None else weights})
        pairs = rows.group_by("x", "y").agg(pl.col("w").sum().alias("len"))
        groups = pairs.group_by("x").agg(
            pl.col("len").sum().alias("size"), pl.col("len").max().alias("top")
        )
        kept = groups.filter(pl.col("size") >= 2)
        evidence = int(kept.get_column("size").sum())
        if evidence == 0:
            return None
        agree = int(kept.get_column("top").sum())
        per_y = pairs.join(kept.select("x"), on="x").group_by("y").agg(pl.col("len").sum())
        base = int(per_y.get_column("len").max())  # type: ignore[arg-type]
    agreement = agree / evidence
    strength = (agree - base) / (evidence - base) if base < evidence else 0.0
    return agreement, strength


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
    coded: _Codes,
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
