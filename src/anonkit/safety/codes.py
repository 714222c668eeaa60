"""Integer codes of a table's columns for the leak check (:mod:`anonkit.safety.leaks`),
and the dependency measure read from them.

:class:`ColumnCodes` codes the records (each column hashed once, in parallel, and coded
by the rank of each hash among its distinct hashes); :class:`TallyCodes` reads a table
already counted (the detail count of a full-domain fit), each row standing for its
records. :func:`dependency_strength` measures how well one column determines another.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit.core.grouping import compiled_ready

__all__ = ["NEAR_UNIQUE", "Codes", "ColumnCodes", "TallyCodes", "dependency_strength"]

#: A column with at least this many distinct values per record is near-unique: it
#: "determines" every other column trivially, so it is reported as unique, not dependent.
NEAR_UNIQUE: Final = 0.5
# Above this many cells the (determinant, dependent) contingency table is counted sparsely.
_DENSE_CELLS: Final = 4_000_000
# The widest slot table of _hash_ranks (2**16 entries: columns of up to 255 values).
_SLOT_BITS: Final = 16


class Codes:
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

    def _trivial(self, determinant: str, dependent: str) -> bool:
        """Whether it is no question that ``determinant`` determines ``dependent``: the
        same column, a near-unique one, or a dependent holding one value."""
        return (
            determinant == dependent
            or self.near_unique(determinant)
            or self.near_unique(dependent)
            or self.distinct[dependent] <= 1
        )

    def near_unique(self, column: str) -> bool:
        """Whether ``column`` has at least :data:`NEAR_UNIQUE` distinct values per record."""
        return _near_unique(self.distinct[column], self.records)

    def singles(self, column: str) -> int:
        """How many records hold a value that no other record holds."""
        counts = np.bincount(self.codes(column), self.weights, minlength=self.distinct[column])
        return int(np.count_nonzero(counts == 1))

    def nulls(self, column: str) -> npt.NDArray[np.bool_] | None:
        """Which rows of ``column`` are missing (``None``: none, or not known)."""
        return None

    def dependency(self, determinant: str, dependent: str) -> tuple[float, float] | None:
        """:func:`dependency_strength` of the two columns (None when trivial). A missing
        determinant is a value of its own (being missing may give the dependent away),
        and the records where it is missing are also left out, the stronger of the two
        counting: as one more value, a few missing cells would hide what the others give
        away."""
        if self._trivial(determinant, dependent):
            return None
        args = (
            self.codes(determinant),
            self.distinct[determinant],
            self.codes(dependent),
            self.distinct[dependent],
        )
        found = dependency_strength(*args, self.weights)
        missing = self.nulls(determinant)
        if missing is None:
            return found
        base = np.ones(missing.shape[0]) if self.weights is None else self.weights
        present = dependency_strength(*args, np.where(missing, 0.0, base))
        if found is None or (present is not None and present > found):
            return present
        return found


class ColumnCodes(Codes):
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
        # columns by position: polars reads a name like '^b$' in pl.col as a pattern
        at = [frame.get_column_index(c) for c in names]
        self._hashes = frame.select([pl.nth(i).hash(seed=0) for i in at])
        uniques = (
            self._hashes.select(pl.nth(i).unique().implode() for i in range(len(names))).row(0)
            if names
            else ()
        )
        #: Each column's distinct hashes, sorted.
        self._keys = {
            c: np.sort(np.asarray(u, dtype=np.uint64)) for c, u in zip(names, uniques, strict=True)
        }
        self.distinct = {c: int(self._keys[c].size) if self.records else 0 for c in names}
        self._codes: dict[str, npt.NDArray[np.int64]] = {}
        self._frame = frame

    def nulls(self, column: str) -> npt.NDArray[np.bool_] | None:
        series = self._frame.get_column(column)
        return series.is_null().to_numpy() if series.null_count() else None

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


class TallyCodes(Codes):
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
        self._counts = counts.astype(np.int64, copy=False)
        self._raw = dict(codes)
        self._cards = {c: int(cardinalities[c]) for c in codes}
        self._held: dict[str, npt.NDArray[np.bool_]] = {}
        self.distinct = {}
        self._codes: dict[str, npt.NDArray[np.int64]] = {}
        #: Whether the compiled kernels read the columns (see :mod:`._tally_kernel`).
        self._compiled = compiled_ready()
        live = None if bool((counts > 0).all()) else counts > 0
        for column, raw in codes.items():
            if self._compiled:
                held = _kernels().held_values(raw, self._cards[column], self._counts)
            else:
                held = np.zeros(self._cards[column], dtype=bool)
                held[raw if live is None else raw[live]] = True
            self._held[column] = held
            self.distinct[column] = int(np.count_nonzero(held))

    def codes(self, column: str) -> npt.NDArray[np.int64]:
        """The dense codes of ``column``, one per row (renumbered on first use when some
        codes of its range are not held; rows of no records take any code)."""
        known = self._codes.get(column)
        if known is None:
            raw, held = self._raw[column], self._held[column]
            if self.distinct[column] < held.size:
                raw = np.maximum(np.cumsum(held) - 1, 0)[raw]
            known = self._codes[column] = raw
        return known

    def dependency(self, determinant: str, dependent: str) -> tuple[float, float] | None:
        """:func:`dependency_strength` of the two columns (None when trivial); compiled,
        one pass over the rows in their own code ranges, when the kernels are loaded."""
        if self._trivial(determinant, dependent):
            return None
        dx, dy = self._cards[determinant], self._cards[dependent]
        if not self._compiled or dx * dy > _DENSE_CELLS:
            return super().dependency(determinant, dependent)
        x, y = self._raw[determinant], self._raw[dependent]
        evidence, agreeing, base = _kernels().dependency_counts(x, dx, y, dy, self._counts)
        return _measure(int(evidence), int(agreeing), int(base))


def _kernels() -> Any:
    """The compiled kernels (:mod:`._tally_kernel`, imported on first use: it loads numba)."""
    from anonkit.safety import _tally_kernel

    return _tally_kernel


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
    return _measure(evidence, agree, base)


def _measure(evidence: int, agreeing: int, base: int) -> tuple[float, float] | None:
    """``(agreement, strength)`` of :func:`dependency_strength` from the records of the
    evidence, those agreeing with their value's majority and those of the most frequent
    dependent value among the evidence; None without evidence."""
    if evidence == 0:
        return None
    strength = (agreeing - base) / (evidence - base) if base < evidence else 0.0
    return agreeing / evidence, strength
