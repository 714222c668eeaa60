"""From one grouped count of the records to the encoded table the search reads.

An engine counts the records once, grouped by the quasi-identifiers' level-0 codes and
the sensitive attributes' normalized values (:meth:`GroupingEngine.group_counts`); the
result has one row per distinct combination, so it is small even when the table is not.
Everything after that (the checks that name bad values, the sensitive labels and their
totals, the detail snapshot with population counts) happens here, once for every engine.
"""

from __future__ import annotations

import dataclasses
import math
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit._arrays import IntArray
from anonkit.core.encoding import EncodedTable, SensitiveCodes
from anonkit.core.grouping import compiled_ready
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.snapshot import FrequencySnapshot, group_codes
from anonkit.core.values import MISSING_CODE, UNKNOWN_CODE, sensitive_labels
from anonkit.exceptions import EmptyDataError, MissingValuesError, ValuesNotInHierarchyError

__all__ = [
    "COUNT",
    "KEY_SHIFT",
    "POPULATION",
    "Hierarchies",
    "Names",
    "SensitiveSpec",
    "Specs",
    "check_counts",
    "detail_table",
    "key_digits",
    "packed_digits",
    "sensitive_coded",
    "table_from_counts",
    "unpack_block",
    "unpack_keys",
]


#: The column of a grouped count holding the number of records.
COUNT = "__anonkit_count__"
#: The column holding population records, when a population table is counted too.
POPULATION = "__anonkit_population__"


@dataclass(frozen=True)
class SensitiveSpec:
    """A sensitive attribute to count: its name, and its hierarchy when it has one
    (hierarchical t-closeness; every value must then be a leaf)."""

    name: str
    hierarchy: Hierarchy | None = None


#: The type aliases of the engines' signatures: column names, one hierarchy per
#: quasi-identifier, the sensitive attributes to count.
Names = Sequence[str]
Hierarchies = Sequence[Hierarchy]
Specs = Sequence[SensitiveSpec]


#: A packed key holds each level-0 code (from ``MISSING_CODE`` = -2 up) shifted by this.
KEY_SHIFT = -MISSING_CODE
#: Keys are packed only below this bound (an int64 with room to spare).
_KEY_LIMIT = 1 << 62


def key_digits(
    hierarchies: Sequence[Hierarchy], limit: int = _KEY_LIMIT
) -> tuple[list[int], list[int]] | None:
    """The radix and the place value of each quasi-identifier's digit in a packed key
    (one integer per combination of level-0 codes, the first column most significant),
    or ``None`` when the keys would not all lie below ``limit`` (default: an int64 with
    room to spare). Engines group one key column instead of many, which is much faster
    (see :func:`unpack_keys`). Each radix is rounded up to a power of two while the keys
    still fit, so that unpacking them takes shifts instead of divisions."""
    return packed_digits([len(h.leaves) + KEY_SHIFT for h in hierarchies], limit)


def packed_digits(
    radices: Sequence[int], limit: int = _KEY_LIMIT
) -> tuple[list[int], list[int]] | None:
    """:func:`key_digits` of digits with the given ``radices``: each rounded up to a power
    of two while the keys still fit below ``limit``; ``None`` when they do not fit even
    as they are."""
    out = list(radices)
    if math.prod(out) >= limit:
        return None
    whole = [1 << (r - 1).bit_length() for r in out]
    if math.prod(whole) < limit:
        out = whole
    return out, [math.prod(out[j + 1 :]) for j in range(len(out))]


#: The blocks :func:`unpack_keys` made and that are still alive, by address. (Only a live
#: block can own its address, so arrays found there are its rows; adjacent arrays that an
#: allocator happened to place one after the other are not one block.)
_BLOCKS: weakref.WeakValueDictionary[int, IntArray] = weakref.WeakValueDictionary()


def unpack_keys(
    keys: npt.NDArray[np.int64], columns: Sequence[str], digits: tuple[list[int], list[int]]
) -> dict[str, npt.NDArray[np.int64]]:
    """Each column's level-0 codes from packed ``keys`` (:func:`key_digits`).

    The codes are the rows of one ``(len(columns), len(keys))`` block
    (:func:`unpack_block`), which :func:`table_from_counts` takes as the snapshot's codes
    without a copy (on a 10M-row table the distinct combinations' codes are some 170 MB,
    and touching that much new memory twice cost 0.4 s)."""
    return _blocked(unpack_block(keys, digits), columns)


def unpack_block(keys: npt.NDArray[np.int64], digits: tuple[list[int], list[int]]) -> IntArray:
    """The codes packed in ``keys`` (:func:`key_digits`), one row per digit (compiled, one
    pass over the keys, when the kernels are loaded and the digits are whole bit fields:
    on Adult's 19,502 detail keys about half numpy's time)."""
    radices, places = digits
    whole = all(r & (r - 1) == 0 for r in radices)
    if whole and keys.shape[0] and compiled_ready():
        from anonkit.engines._key_kernel import unpack_fields

        shifts = np.array([p.bit_length() - 1 for p in places], dtype=np.int64)
        masks = np.array([r - 1 for r in radices], dtype=np.int64)
        block: IntArray = unpack_fields(keys, shifts, masks, KEY_SHIFT)
        return block
    block = np.empty((len(radices), keys.shape[0]), dtype=np.int64)
    if whole:
        # whole-bit digits: a shift and a mask per column (the streaming count of a
        # 10M-row table, 2.6M combinations: under 0.1 s, against 0.35 s for the divisions
        # below)
        for j, (size, place) in enumerate(zip(radices, places, strict=True)):
            np.right_shift(keys, place.bit_length() - 1, out=block[j])
            np.bitwise_and(block[j], size - 1, out=block[j])
            block[j] -= KEY_SHIFT
        return block
    # keys are non-negative: unsigned division is 2-3x faster than numpy's floored one
    rest = keys.astype(np.uint64)
    quotient = np.empty_like(rest)
    # from the least significant digit up: one division per column
    for j in range(len(radices) - 1, -1, -1):
        radix = np.uint64(radices[j])
        np.floor_divide(rest, radix, out=quotient)
        digit = block[j].view(np.uint64)
        np.multiply(quotient, radix, out=digit)
        np.subtract(rest, digit, out=digit)
        block[j] -= KEY_SHIFT
        rest, quotient = quotient, rest
    return block


def _blocked(block: IntArray, columns: Sequence[str]) -> dict[str, npt.NDArray[np.int64]]:
    """``block``'s rows by column, the block registered in :data:`_BLOCKS`."""
    if block.size:
        _BLOCKS[block.__array_interface__["data"][0]] = block
    return {c: block[j] for j, c in enumerate(columns)}


def check_counts(
    counts: pl.DataFrame,
    columns: Sequence[str],
    sensitive: Sequence[str],
    unknown: Callable[[int], tuple[list[str], int]],
    hierarchies: Sequence[Hierarchy] = (),
    *,
    table: str = "",
) -> None:
    """Refuse a grouped count with no record, missing values or values outside a
    hierarchy; ``unknown(j)`` names the values quasi-identifier ``j``'s hierarchy lacks
    (the error suggests leaves of ``hierarchies[j]`` that look like them, when given).
    The errors name ``table`` (:data:`~anonkit.exceptions.POPULATION_TABLE`) when it is
    not the data.

    Raises
    ------
    EmptyDataError, MissingValuesError, ValuesNotInHierarchyError
    """
    if counts.height == 0 or int(counts[COUNT].sum()) == 0:
        raise EmptyDataError(f"The {table}") if table else EmptyDataError()
    # on the small grouped table, in numpy: no polars query per column
    weights = counts[COUNT].to_numpy()
    for j, c in enumerate(columns):
        codes = counts[c].to_numpy()
        if not (codes < 0).any():
            continue
        missing = int(weights[codes == MISSING_CODE].sum())
        if missing:
            raise MissingValuesError(c, missing, table=table)
        if (codes == UNKNOWN_CODE).any():
            values, total = unknown(j)
            leaves = hierarchies[j].leaves if hierarchies else ()
            raise ValuesNotInHierarchyError(c, values, total, leaves, table)
    for s in sensitive:
        missing = int(counts.filter(pl.col(s).is_null())[COUNT].sum())
        if missing:
            raise MissingValuesError(s, missing, table=table)


def _snapshot(frame: pl.DataFrame, columns: Sequence[str], population: bool) -> FrequencySnapshot:
    codes = _stacked([frame[c].to_numpy() for c in columns])
    counts = frame[COUNT].to_numpy().astype(np.int64, copy=False)
    pop = frame[POPULATION].to_numpy().astype(np.int64, copy=False) if population else None
    return FrequencySnapshot(tuple(0 for _ in columns), codes, counts, population=pop)


def _summed_over(
    counts: pl.DataFrame, columns: Sequence[str], hierarchies: Sequence[Hierarchy]
) -> FrequencySnapshot:
    """The snapshot over ``columns`` alone of a count that groups more columns (the
    sensitive ones): rows that share their codes summed, in numpy by
    :func:`~anonkit.core.snapshot.group_codes` (on Adult with one sensitive column
    table_from_counts took 2.3 ms against 3.2-4.0 with polars' group-by)."""
    codes = [counts[c].to_numpy() for c in columns]
    weights = counts[COUNT].to_numpy().astype(np.int64, copy=False)
    unique, summed, _ = group_codes(codes, [len(h.leaves) for h in hierarchies], weights)
    return FrequencySnapshot(tuple(0 for _ in columns), unique, summed)


def _stacked(arrays: Sequence[npt.NDArray[np.integer[Any]]]) -> IntArray:
    """``np.stack(arrays)`` as int64, without a copy when the arrays are the rows of a
    block :func:`unpack_keys` made (polars keeps the memory it is given)."""
    first = arrays[0]
    block = _BLOCKS.get(first.__array_interface__["data"][0]) if first.size else None
    if block is not None and block.shape == (len(arrays), first.shape[0]):
        rows = [block[j].__array_interface__["data"][0] for j in range(len(arrays))]
        if all(
            a.dtype == np.int64 and a.__array_interface__["data"][0] == row
            for a, row in zip(arrays, rows, strict=True)
        ):
            return block
    stacked: IntArray = np.stack(arrays).astype(np.int64, copy=False)
    return stacked


def sensitive_coded(
    spec: SensitiveSpec,
    values: Sequence[str],
    codes: IntArray,
    weights: IntArray,
    *,
    verbatim: bool = False,
) -> tuple[SensitiveCodes, IntArray]:
    """A sensitive attribute's labels and totals, from ``codes`` that index its distinct
    normalized ``values`` (in any order): the :class:`SensitiveCodes` and the codes
    rewritten to index its labels (:func:`~anonkit.core.values.sensitive_labels`).
    ``verbatim``: the values are the data's as they stand (see
    :attr:`SensitiveCodes.verbatim <anonkit.core.encoding.SensitiveCodes.verbatim>`).

    Raises
    ------
    ValuesNotInHierarchyError
        If a value is not a leaf of the attribute's hierarchy.
    """
    labels = sensitive_labels(values, spec.name, spec.hierarchy)
    position = {label: k for k, label in enumerate(labels)}
    relabel = np.array([position[v] for v in values], dtype=np.int64)
    coded = relabel[codes]
    totals = np.bincount(coded, weights=weights, minlength=len(labels)).astype(np.int64)
    return SensitiveCodes(spec.name, labels, totals, spec.hierarchy, verbatim), coded


def detail_table(
    block: IntArray,
    counts: IntArray,
    columns: Sequence[str],
    hierarchies: Sequence[Hierarchy],
    sensitive: Sequence[SensitiveSpec],
    values: Sequence[Sequence[str]],
    *,
    verbatim: Sequence[bool] = (),
    runs: npt.NDArray[np.bool_] | None = None,
) -> EncodedTable:
    """The encoded table of a grouped count held as arrays, without population.

    ``block`` has one row per quasi-identifier (level-0 codes, none negative) and then one
    per sensitive attribute (codes indexing its distinct normalized ``values``), one column
    per distinct combination, which ``counts`` counts. The sensitive rows are rewritten in
    place to index the attributes' labels; the block becomes the detail snapshot's codes.
    ``verbatim`` flags the attributes whose ``values`` are the data's as they stand
    (default: none). ``runs``, for a block whose columns are in the order of their
    quasi-identifiers' codes (the first most significant), flags the first column of each
    combination of them: the bottom snapshot is read off these runs instead of being
    grouped again.

    Raises
    ------
    ValuesNotInHierarchyError
        If a sensitive value is not a leaf of its attribute's hierarchy.
    """
    q = len(columns)
    coded: list[SensitiveCodes] = []
    for i, (spec, distinct) in enumerate(zip(sensitive, values, strict=True)):
        exact = i < len(verbatim) and verbatim[i]
        attribute, block[q + i] = sensitive_coded(
            spec, distinct, block[q + i], counts, verbatim=exact
        )
        coded.append(attribute)
    if runs is None:
        cards = [len(h.leaves) for h in hierarchies]
        unique, summed, _ = group_codes(list(block[:q]), cards, counts)
    else:
        starts = np.flatnonzero(runs)
        unique, summed = block[:q, starts], np.add.reduceat(counts, starts)
    return EncodedTable(
        tuple(columns),
        tuple(hierarchies),
        FrequencySnapshot(tuple(0 for _ in columns), unique, summed),
        sensitive=tuple(coded),
        detail=FrequencySnapshot(tuple(0 for _ in range(block.shape[0])), block, counts),
    )


def table_from_counts(
    counts: pl.DataFrame,
    columns: Sequence[str],
    hierarchies: Sequence[Hierarchy],
    sensitive: Sequence[SensitiveSpec] = (),
    population: pl.DataFrame | None = None,
    *,
    detailed: bool = True,
) -> EncodedTable:
    """The encoded table of a checked grouped count (see :func:`check_counts`).

    Parameters
    ----------
    counts
        The sample's grouped count, with the sensitive columns' text.
    columns, hierarchies
        The quasi-identifiers and their hierarchies.
    sensitive
        The sensitive attributes counted in ``counts``.
    population
        The population's grouped count over the quasi-identifiers, or ``None``.
    detailed
        Whether to build the detail snapshot (models that read more than class sizes).
        Population records enter it with zero sample count; their sensitive columns are
        coded 0 (they never reach a histogram, whose weights are sample counts).

    Raises
    ------
    ValuesNotInHierarchyError
        If a sensitive value is not a leaf of its attribute's hierarchy.
    """
    qi = list(columns)
    if not detailed:
        if sensitive:
            bottom = _summed_over(counts, qi, hierarchies)
        else:
            bottom = _snapshot(counts, qi, False)
        return EncodedTable(tuple(qi), tuple(hierarchies), bottom)
    weights = counts[COUNT].to_numpy().astype(np.int64, copy=False)
    values = [counts[spec.name].unique().to_list() for spec in sensitive]
    # each text by its index among the distinct values, in one query
    indexed = counts.select(
        pl.col(spec.name).replace_strict(v, list(range(len(v))), return_dtype=pl.Int64)
        for spec, v in zip(sensitive, values, strict=True)
    )
    block = np.stack(
        [counts[c].to_numpy() for c in qi] + [indexed[s.name].to_numpy() for s in sensitive]
    ).astype(np.int64, copy=False)
    if sensitive:
        table = detail_table(block, weights, qi, hierarchies, sensitive, values)
    else:  # the quasi-identifiers' own detail (which population counts join below)
        bottom, own = _snapshot(counts, qi, False), _snapshot(counts, qi, False)
        table = EncodedTable(tuple(qi), tuple(hierarchies), bottom, detail=own)
    if population is None:
        return table
    keys = qi + [s.name for s in sensitive]
    zeros = np.zeros(weights.shape[0], dtype=np.int64)
    rows = dict(zip(keys, block, strict=True))
    detail = pl.DataFrame({**rows, COUNT: weights, POPULATION: zeros})
    pop = population.select(
        [*qi, pl.lit(0, dtype=pl.Int64).alias(COUNT), pl.col(COUNT).alias(POPULATION)]
    ).with_columns([pl.lit(0, dtype=pl.Int64).alias(s.name) for s in sensitive])
    detail = (
        pl.concat([detail, pop.select(detail.columns)], how="vertical_relaxed")
        .group_by(keys)
        .agg(pl.col(COUNT).sum(), pl.col(POPULATION).sum())
    )
    return dataclasses.replace(
        table,
        detail=_snapshot(detail, keys, True),
        population_size=int(population[COUNT].sum()),
    )
