"""The input of a fit through an engine, watched between the passes that read it.

A fit whose records stay where they live (:mod:`anonkit.estimators.scaled`) reads its
input more than once: a count, then the release. If the input changes in between, the
release is not the one the search chose, and nothing may be published. The streaming
engine's release stops on a value the count did not see, but a change whose values all
stay leaves of the hierarchies (records appended, removed, reordered, a value swapped for
another leaf) passes that check. Two cheap checks catch it, and both raise
:class:`~anonkit.exceptions.InputChangedError` naming the file:

* the file's :class:`~anonkit.io.stamps.FileStamp` (size, modification time, inode),
  taken before the first pass, is compared after the count and again once the release is
  written, before it is published (a ``stat`` per file);
* the release pass's records per released class, which the verification tallies anyway,
  must equal the count's rolled up to the chosen transformation
  (:func:`released_sizes`): records added, removed or moved to another class show there
  even when the input carries no file to stamp (a query built by the caller).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from anonkit.core.encoding import EncodedTable
from anonkit.core.transform import SUPPRESSED, ReleasePlan
from anonkit.engines.counting import COUNT
from anonkit.exceptions import InputChangedError
from anonkit.io.stamps import FileStamp, source_stamp
from anonkit.io.write import unescape_formulas

__all__ = ["InputWatch", "released_sizes"]

_FLAG = "__anonkit_suppressed__"
_SEEN = "__anonkit_seen__"


def released_sizes(table: EncodedTable, plan: ReleasePlan) -> pl.DataFrame:
    """The records of ``table``'s count in each class of its release under ``plan``: one
    row per combination of released labels (``*`` in every column for the suppressed
    records, left out when ``plan`` drops them), with the records in ``COUNT``."""
    snapshot = table.snapshot
    present = snapshot.counts > 0  # rows of a population table alone hold no record
    codes = snapshot.codes[:, present]
    columns = list(plan.columns)
    levels = {
        c: np.asarray(plan.level_codes(j), dtype=np.int64)[codes[j]] for j, c in enumerate(columns)
    }
    classes = (
        pl.DataFrame({**levels, COUNT: snapshot.counts[present]})
        .group_by(columns)
        .agg(pl.col(COUNT).sum())
    )
    hit: pl.Expr = pl.lit(False)
    if plan.suppresses:
        classes = classes.join(plan.suppressed_frame(columns, _FLAG), on=columns, how="left")
        hit = pl.col(_FLAG).fill_null(False)
        if plan.suppressed == "drop":
            classes = classes.filter(~hit)
    labels = [
        pl.when(hit)
        .then(pl.lit(SUPPRESSED))
        .otherwise(pl.lit(pl.Series(h.labels(level), dtype=pl.String)).gather(pl.col(c)))
        .alias(c)
        for c, h, level in zip(columns, plan.hierarchies, plan.levels, strict=True)
    ]
    released = classes.select(*labels, pl.col(COUNT))
    return released.group_by(columns).agg(pl.col(COUNT).sum())


def _by_position(frame: pl.DataFrame, columns: Sequence[str]) -> pl.DataFrame:
    """``frame``'s ``columns`` as text with formula escapes undone (a CSV release writes
    ``'=x`` for ``=x``), renamed by position, and ``COUNT``, summed per combination."""
    named = {c: f"c{j}" for j, c in enumerate(columns)}
    grouped = (
        frame.select(*[pl.col(c).cast(pl.String).alias(n) for c, n in named.items()], COUNT)
        .group_by(list(named.values()))
        .agg(pl.col(COUNT).sum())
    )
    return unescape_formulas(grouped)


@dataclass(frozen=True)
class InputWatch:
    """What a fit knows of its input between the passes: the stamp of the file it reads
    (``None`` when it reads none this process can stamp); see the module docstring."""

    stamp: FileStamp | None

    @classmethod
    def start(cls, source: Any) -> InputWatch:
        """Watch ``source`` (a path, or a query :func:`~anonkit.io.stamps.note_source`
        noted) from now on, or from when its scan was noted."""
        return cls(source_stamp(source))

    @property
    def source(self) -> str | None:
        """The file watched, as given (``None``: none)."""
        return None if self.stamp is None else self.stamp.path

    def check(self) -> None:
        """Raise :class:`~anonkit.exceptions.InputChangedError` if the file changed."""
        if self.stamp is not None and self.stamp.changed():
            raise InputChangedError(
                None,
                0,
                self.source,
                reason="its size, modification time or inode is not what it was when the "
                "run started",
            )

    def guarded(self, release: Any) -> Any:
        """``release``, a polars query over the watched file, checking the file as it reads
        each batch: collected after the file changed, it raises
        :class:`~anonkit.exceptions.InputChangedError` instead of releasing records the fit
        never verified. Anything else is returned as it is."""
        if self.stamp is None or not isinstance(release, pl.LazyFrame):
            return release

        def check(batch: pl.DataFrame) -> pl.DataFrame:
            self.check()
            return batch

        # the check passes every batch on as it is: projections, filters and slices may
        # go through it to the scan (a count reads no column)
        return release.map_batches(
            check,
            streamable=True,
            projection_pushdown=True,
            predicate_pushdown=True,
            slice_pushdown=True,
        )

    @contextlib.contextmanager
    def passes(self) -> Iterator[None]:
        """Read the input inside: an engine's :class:`~anonkit.exceptions.InputChangedError`
        comes out naming the file watched, and any other failure is first checked against
        the file (a pass that failed on a file that changed says so)."""
        try:
            yield
        except InputChangedError as err:  # the engine's own names no file
            raise self.named(err) from None
        except Exception:
            self.check()
            raise

    def named(self, err: InputChangedError) -> InputChangedError:
        """``err`` naming the file watched (an engine's error names no file)."""
        if err.source is not None or self.source is None:
            return err
        return InputChangedError(err.column, err.count, self.source, reason=err.reason)

    def check_classes(
        self, expected: pl.DataFrame, tallied: pl.DataFrame, columns: Sequence[str]
    ) -> None:
        """Raise :class:`~anonkit.exceptions.InputChangedError` unless the release
        ``tallied`` (its released values with their records in ``COUNT``) holds as many
        records in each class of ``columns`` as ``expected`` (:func:`released_sizes`)."""
        want, seen = _by_position(expected, columns), _by_position(tallied, columns)
        total, read = int(want[COUNT].sum()), int(seen[COUNT].sum())
        if total != read:
            raise InputChangedError(None, abs(total - read), self.source)
        keys = [c for c in want.columns if c != COUNT]
        joined = want.join(seen.rename({COUNT: _SEEN}), on=keys, how="full", coalesce=True)
        surplus = (pl.col(COUNT).fill_null(0) - pl.col(_SEEN).fill_null(0)).clip(lower_bound=0)
        moved = int(joined.select(surplus.sum()).item())
        if moved:
            raise InputChangedError(
                None,
                moved,
                self.source,
                reason=f"{moved} record(s) fall in other released classes than the first "
                "pass counted them in",
            )
