"""A full-domain transformation as a plan any engine can apply to the records.

The search decides on frequency snapshots; the records are touched once more, to write
the release. :class:`ReleasePlan` holds all that pass needs, and it is small: per
quasi-identifier the label each leaf is released as, and the classes to suppress (their
codes at the chosen levels). An engine (:mod:`anonkit.engines`) turns it into a frame of
its own type, a lazy query or a file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import polars as pl

from anonkit._arrays import IntArray
from anonkit.core.hierarchy import Hierarchy

__all__ = ["SUPPRESSED", "SUPPRESSED_MODES", "ReleasePlan", "all_starred"]


#: The value written in every quasi-identifier of a suppressed record.
SUPPRESSED = "*"
#: How suppressed records are released: ``*`` in every quasi-identifier, or left out.
SUPPRESSED_MODES = ("mask", "drop")


def all_starred(columns: Sequence[str]) -> pl.Expr:
    """Whether a row shows :data:`SUPPRESSED` in every one of ``columns`` (the mark of a
    suppressed record), compared as text: a column released as numbers (Mondrian's
    means, microaggregation) holds no ``*``, and a missing value is not one. False for
    no columns.

    Examples
    --------
    >>> frame = pl.DataFrame({"age": ["*", "*", None], "zip": ["*", "1*", "*"]})
    >>> frame.select(all_starred(["age", "zip"]))["age"].to_list()
    [True, False, False]
    """
    if not columns:
        return pl.lit(False)
    # one expression over the columns (building one per column costs more than the
    # query on a small tally)
    return pl.all_horizontal(pl.col(list(columns)).cast(pl.String) == SUPPRESSED).fill_null(False)


@dataclass(frozen=True, eq=False)
class ReleasePlan:
    """How to write the release of a full-domain transformation.

    Attributes
    ----------
    columns
        Quasi-identifier names.
    hierarchies
        One hierarchy per quasi-identifier.
    levels
        The chosen level of each quasi-identifier.
    suppressed_classes
        ``(n_qi, n_suppressed)`` codes, at ``levels``, of the classes whose records are
        suppressed.
    drop
        Columns left out of the release (identifying ones, and undeclared ones the caller
        chose to drop).
    suppressed
        ``"mask"`` (``*`` in every quasi-identifier, row count kept) or ``"drop"``.
    """

    columns: tuple[str, ...]
    hierarchies: tuple[Hierarchy, ...]
    levels: tuple[int, ...]
    suppressed_classes: IntArray = field(repr=False)
    drop: tuple[str, ...] = ()
    suppressed: str = "mask"

    def __post_init__(self) -> None:
        for j, h in enumerate(self.hierarchies):
            n = len(h.labels(self.levels[j]))
            codes = self.suppressed_classes[j]
            if codes.size and (int(codes.min()) < 0 or int(codes.max()) >= n):
                raise ValueError(
                    f"suppressed class codes of {self.columns[j]!r} must lie in 0..{n - 1} "
                    f"(level {self.levels[j]})"
                )

    @property
    def suppresses(self) -> bool:
        """Whether any class is suppressed."""
        return bool(self.suppressed_classes.shape[1])

    def suppressed_frame(self, keys: Sequence[str], flag: str) -> pl.DataFrame:
        """The suppressed classes as a frame to join on: their codes at ``levels`` in the
        columns ``keys`` (one per quasi-identifier), and ``flag`` true on every row."""
        return pl.DataFrame(
            {k: self.suppressed_classes[j] for j, k in enumerate(keys)},
            schema=dict.fromkeys(keys, pl.Int64),
        ).with_columns(pl.lit(True).alias(flag))

    def level_codes(self, j: int) -> list[int]:
        """Per leaf of quasi-identifier ``j`` (in hierarchy order), its code at the level."""
        return [int(c) for c in self.hierarchies[j].level_map(0, self.levels[j])]

    def leaf_labels(self, j: int) -> list[str]:
        """Per leaf of quasi-identifier ``j`` (in hierarchy order), its released label."""
        return list(self._leaf_labels[j])

    @cached_property
    def _leaf_labels(self) -> tuple[tuple[str, ...], ...]:
        """:meth:`leaf_labels` of every quasi-identifier, worked out once (writing the
        release and counting its tally both read them)."""
        out = []
        for j, h in enumerate(self.hierarchies):
            labels = h.labels(self.levels[j])
            out.append(tuple(labels[c] for c in self.level_codes(j)))
        return tuple(out)

    @cached_property
    def suppressed_labels(self) -> tuple[tuple[str, ...], ...]:
        """Per quasi-identifier, the labels of the suppressed classes (column-wise)."""
        out = []
        for j, h in enumerate(self.hierarchies):
            labels = h.labels(self.levels[j])
            out.append(tuple(labels[int(c)] for c in self.suppressed_classes[j]))
        return tuple(out)

    def with_options(
        self, *, drop: Sequence[str] | None = None, suppressed: str | None = None
    ) -> ReleasePlan:
        """The same transformation, with other release options."""
        return ReleasePlan(
            self.columns,
            self.hierarchies,
            self.levels,
            self.suppressed_classes,
            tuple(self.drop if drop is None else drop),
            self.suppressed if suppressed is None else suppressed,
        )
