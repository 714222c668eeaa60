"""Quasi-identifiers without a hierarchy that a release shows as ``*`` in every record.

A column without a hierarchy can only be kept as is or suppressed. When the release
suppresses it everywhere, the user is told (a user who forgot the hierarchy of ``age``
would otherwise find ``*`` in every record and no word why): the result's
``details["suppressed_without_hierarchy"]`` names the columns, and a
:class:`~anonkit.exceptions.SuppressedColumnWarning` points at the caller's line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import polars as pl

from anonkit._frozen import FrozenDict
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.transform import SUPPRESSED
from anonkit.exceptions import DataError, HierarchyError, SuppressedColumnWarning, warn_caller

if TYPE_CHECKING:
    from anonkit.estimators.base import Columns, Estimator

__all__ = [
    "DETAIL",
    "note_bare_columns",
    "only_star",
    "refuse_star_labels",
    "starred_everywhere",
    "without_hierarchy",
]

#: The key of ``result.details`` naming the columns.
DETAIL = "suppressed_without_hierarchy"


def without_hierarchy(columns: Columns) -> list[str]:
    """The quasi-identifiers given no hierarchy but ``*``: none, or a suppression builder
    table (which ``anonkit init`` proposes for columns it cannot generalize)."""
    return [c for c in columns.quasi_identifiers if only_star(columns.specs.get(c))]


def only_star(spec: object) -> bool:
    """Whether a hierarchy spec generalizes nothing but to ``*``."""
    return spec is None or (isinstance(spec, Mapping) and spec.get("type") == "suppression")


def starred_everywhere(released: pl.DataFrame, columns: Columns) -> list[str]:
    """The quasi-identifiers without a hierarchy that ``released`` (one row per record,
    suppressed records masked) shows as ``*`` in every record, unless it shows every
    quasi-identifier so (every record suppressed, or generalized to the root: not a
    column lost for want of a hierarchy). Costs nothing when every quasi-identifier has
    a hierarchy."""
    bare = [c for c in without_hierarchy(columns) if c in released.columns]
    if not bare or released.height == 0:
        return []
    qi = [c for c in columns.quasi_identifiers if c in released.columns]
    star = {c: pl.col(c).cast(pl.String) == SUPPRESSED for c in qi}
    row = released.select(
        pl.all_horizontal(star.values()).fill_null(False).all().alias("_all_suppressed"),
        *(star[c].fill_null(False).all().alias(c) for c in bare),
    ).row(0, named=True)
    if row["_all_suppressed"]:
        return []
    return [c for c in bare if row[c]]


def note_bare_columns(estimator: Estimator, bare: Sequence[str]) -> None:
    """Record ``bare`` in ``estimator.result_.details`` and warn, when there are any."""
    if not bare:
        return
    result = estimator.result_
    details = {**result.details, DETAIL: list(bare)}
    estimator.result_ = dataclasses.replace(result, details=FrozenDict(details))
    warn_caller(SuppressedColumnWarning(bare))


def refuse_star_labels(hierarchies: Sequence[Hierarchy], data: pl.DataFrame | None = None) -> None:
    """Refuse a quasi-identifier whose value or hierarchy label below the root is ``*``,
    the mark of a suppressed value: a record at ``*`` in every quasi-identifier would be
    taken for a suppressed one (dropped with ``suppressed="drop"``, left out of the risk
    figures).

    Raises
    ------
    DataError
        If a value is ``*`` (in ``data``, when given).
    HierarchyError
        If a label below the root is ``*``, or a hierarchy lists ``*`` among its values
        while ``data`` holds none.
    """
    for h in hierarchies:
        if SUPPRESSED in h.leaves:
            held = True
            if data is not None and h.name in data.columns:
                text = data[h.name].cast(pl.String).str.strip_chars()
                held = bool((text == SUPPRESSED).any())
            if not held:
                raise HierarchyError(
                    f"it lists {SUPPRESSED!r} among its values (level 0), the mark of a "
                    "suppressed value, which the data does not hold: remove that row.",
                    column=h.name,
                )
            raise DataError(
                f"Column {h.name!r} holds the value {SUPPRESSED!r}, which anonkit writes for "
                "a suppressed value; replace it (for example with 'unknown') in the data "
                "and in its hierarchy."
            )
        for level in range(1, h.height - 1):
            if SUPPRESSED in h.labels(level):
                raise HierarchyError(
                    f"it labels values {SUPPRESSED!r} at level {level}, below its root; only "
                    f"the root may be {SUPPRESSED!r}, the mark of a suppressed value "
                    "(relabel them, for example 'any').",
                    column=h.name,
                )
