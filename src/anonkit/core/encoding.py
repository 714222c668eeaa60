"""Dictionary encoding of quasi-identifiers against their hierarchies.

Each quasi-identifier is encoded once: a record's code is the row of its value in the
column's hierarchy (level-0 code). A hierarchy becomes one int array per level mapping
level-0 codes to codes at that level, and ``level_maps[j][a][b]`` maps level ``a`` codes to
level ``b`` codes for roll-ups.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import numpy.typing as npt

from anonkit.core.hierarchy import Hierarchy
from anonkit.core.snapshot import FrequencySnapshot

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class SensitiveCodes:
    """A sensitive attribute, dictionary-encoded.

    Attributes
    ----------
    name
        Column name.
    labels
        Distinct values; code ``i`` stands for ``labels[i]``.
    totals
        ``(len(labels),)`` records holding each value, over the whole table.
    hierarchy
        The attribute's hierarchy when one was given (hierarchical t-closeness).
    """

    name: str
    labels: tuple[str, ...]
    totals: IntArray = field(repr=False)
    hierarchy: Hierarchy | None = None


@dataclass(frozen=True, eq=False)
class EncodedTable:
    """Quasi-identifiers of a table, encoded and counted once.

    Attributes
    ----------
    columns
        Quasi-identifier names, in search order.
    hierarchies
        One hierarchy per quasi-identifier.
    snapshot
        The frequency snapshot at the bottom node (all levels 0).
    record_codes
        ``(n_qi, n_records)`` level-0 codes per record, kept to build the release; ``None``
        when the table was only counted (for example by a cluster engine).
    sensitive
        Sensitive attributes the privacy models read (see :func:`with_details`).
    detail
        When models need more than class sizes: the bottom snapshot over the
        quasi-identifiers *and* the sensitive codes (one extra column each, never
        generalized), with population counts when a population table was given.
    population_size
        Records of the population table, if any.
    """

    columns: tuple[str, ...]
    hierarchies: tuple[Hierarchy, ...]
    snapshot: FrequencySnapshot
    record_codes: IntArray | None = field(default=None, repr=False)
    sensitive: tuple[SensitiveCodes, ...] = ()
    detail: FrequencySnapshot | None = field(default=None, repr=False)
    population_size: int | None = None

    @property
    def n_records(self) -> int:
        return self.snapshot.n_records

    @property
    def width(self) -> int:
        return len(self.columns)

    @cached_property
    def heights(self) -> tuple[int, ...]:
        return tuple(h.height for h in self.hierarchies)

    @cached_property
    def cardinalities(self) -> tuple[tuple[int, ...], ...]:
        """``cardinalities[j][level]``: number of labels of column ``j`` at ``level``."""
        return tuple(tuple(len(h.labels(lv)) for lv in range(h.height)) for h in self.hierarchies)

    @cached_property
    def level_maps(self) -> tuple[tuple[tuple[IntArray, ...], ...], ...]:
        """``level_maps[j][a][b]`` maps column ``j`` codes at level ``a`` to level ``b``.

        Entries with ``b < a`` are empty placeholders.
        """
        empty = np.zeros(0, dtype=np.int64)
        out = []
        for h in self.hierarchies:
            per_src = []
            for a in range(h.height):
                per_src.append(
                    tuple(h.level_map(a, b) if b >= a else empty for b in range(h.height))
                )
            out.append(tuple(per_src))
        return tuple(out)

    @cached_property
    def value_counts(self) -> tuple[IntArray, ...]:
        """Per column, the number of records holding each level-0 value."""
        snap = self.snapshot
        return tuple(
            np.bincount(snap.codes[j], weights=snap.counts, minlength=len(h.leaves)).astype(
                np.int64
            )
            for j, h in enumerate(self.hierarchies)
        )


def subset_snapshot(
    table: EncodedTable, columns: Sequence[int], levels: Sequence[int]
) -> FrequencySnapshot:
    """Project the bottom snapshot on ``columns`` and generalize them to ``levels``.

    Used by Incognito, which checks anonymity of quasi-identifier subsets.
    """
    from anonkit.core.snapshot import group_codes

    snap = table.snapshot
    cols = [
        table.level_maps[c][0][lv][snap.codes[c]] for c, lv in zip(columns, levels, strict=True)
    ]
    cards = [table.cardinalities[c][lv] for c, lv in zip(columns, levels, strict=True)]
    codes, counts, _ = group_codes(cols, cards, snap.counts)
    return FrequencySnapshot(tuple(int(x) for x in levels), codes, counts)


def with_details(
    table: EncodedTable,
    sensitive: Sequence[tuple[SensitiveCodes, IntArray]] = (),
    population_codes: IntArray | None = None,
) -> EncodedTable:
    """``table`` with the detail snapshot that sensitive and population models need.

    Parameters
    ----------
    table
        The encoded quasi-identifiers (with ``record_codes``).
    sensitive
        Encoded sensitive attributes with the code of every record (aligned with the
        table's records).
    population_codes
        ``(n_qi, n_population)`` level-0 quasi-identifier codes of a population table
        (encoded against the same hierarchies), or ``None``.

    Population records enter the detail snapshot with zero sample count; their sensitive
    columns are coded 0 (they never reach a histogram, whose weights are sample counts).
    """
    from anonkit.core.snapshot import group_codes

    if table.record_codes is None:
        raise ValueError("the table was counted without its records; cannot add details")
    n = table.record_codes.shape[1]
    cols = [table.record_codes[j] for j in range(table.width)]
    cols += [codes for _, codes in sensitive]
    cards = [c[0] for c in table.cardinalities] + [max(len(s.labels), 1) for s, _ in sensitive]
    weight = np.ones(n, dtype=np.int64)
    pop_weight: IntArray | None = None
    if population_codes is not None:
        m = population_codes.shape[1]
        cols = [
            np.concatenate([c, population_codes[j] if j < table.width else np.zeros(m, np.int64)])
            for j, c in enumerate(cols)
        ]
        weight = np.concatenate([weight, np.zeros(m, dtype=np.int64)])
        pop_weight = np.concatenate([np.zeros(n, dtype=np.int64), np.ones(m, dtype=np.int64)])
    codes, _, inverse = group_codes(cols, cards, with_inverse=True)
    assert inverse is not None
    width = codes.shape[1]
    counts = np.bincount(inverse, weights=weight, minlength=width).astype(np.int64)
    pop = None
    if pop_weight is not None:
        pop = np.bincount(inverse, weights=pop_weight, minlength=width).astype(np.int64)
    levels = tuple(0 for _ in cols)
    detail = FrequencySnapshot(levels, codes, counts, population=pop)
    return replace(
        table,
        sensitive=tuple(s for s, _ in sensitive),
        detail=detail,
        population_size=None if population_codes is None else int(population_codes.shape[1]),
    )
