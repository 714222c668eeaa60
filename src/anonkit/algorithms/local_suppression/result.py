"""What local suppression is given and returns: sensitive codes and the result."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy.typing as npt

from anonkit._arrays import BoolArray, IntArray

if TYPE_CHECKING:
    from anonkit.core.hierarchy import Hierarchy


@dataclass(frozen=True, eq=False)
class SensitiveArray:
    """A sensitive attribute given to :func:`suppress_codes` as an array of integer codes.

    (The encoded table of the lattice search holds its sensitive attributes as
    :class:`anonkit.core.encoding.SensitiveCodes`, with a name and fixed labels.)

    Attributes
    ----------
    codes
        ``(n_records,)`` non-negative int codes, one per input row.
    labels
        The values the codes stand for (``labels[i]`` for code ``i``); by default the codes
        as text, one per code up to the largest.
    hierarchy
        The attribute's hierarchy, for models that need one (hierarchical distance).
    """

    codes: npt.ArrayLike
    labels: Sequence[str] | None = None
    hierarchy: Hierarchy | None = None


@dataclass(frozen=True, eq=False)
class LocalSuppressionResult:
    """What local suppression did.

    Cell and record counts are weighted by the input counts when the input was a frequency
    snapshot (``weights``), so they always count records.

    Attributes
    ----------
    quasi_identifiers
        Names of the columns, in input order.
    codes
        ``(n_rows, n_qi)`` the released codes: the input with suppressed cells set to the
        column's ``*`` code.
    suppressed
        ``(n_rows, n_qi)`` mask of the cells this run suppressed (cells that were ``*``
        already are not included).
    cells_per_attribute
        Cells suppressed in each quasi-identifier.
    cells
        Cells suppressed in total.
    cost
        Cells weighted by the importance of their attribute.
    records_touched
        Records with at least one suppressed cell.
    records_suppressed
        Records whose quasi-identifiers became all ``*`` in this run.
    rounds
        Greedy rounds run.
    privacy
        The privacy models the release satisfies, described.
    """

    quasi_identifiers: tuple[str, ...]
    codes: IntArray
    suppressed: BoolArray
    cells_per_attribute: Mapping[str, int]
    cells: int
    cost: float
    records_touched: int
    records_suppressed: int
    rounds: int
    privacy: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """The counts as plain JSON-ready values (the arrays are left out)."""
        return {
            "quasi_identifiers": list(self.quasi_identifiers),
            "cells_per_attribute": dict(self.cells_per_attribute),
            "cells": self.cells,
            "cost": self.cost,
            "records_touched": self.records_touched,
            "records_suppressed": self.records_suppressed,
            "rounds": self.rounds,
            "privacy": list(self.privacy),
        }
