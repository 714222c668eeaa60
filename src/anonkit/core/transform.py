"""Apply a full-domain transformation to the records: the release."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit.core.encoding import EncodedTable
from anonkit.core.snapshot import FrequencySnapshot, group_codes

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]

#: The value written in every quasi-identifier of a suppressed record.
SUPPRESSED = "*"


@dataclass(frozen=True, eq=False)
class Recoding:
    """Per-record outcome of a transformation.

    Attributes
    ----------
    codes
        ``(n_qi, n_records)`` codes at the transformation's levels.
    class_of
        Equivalence class of each record (index into ``sizes``).
    sizes
        Records per class, before suppression.
    suppressed
        Which records are suppressed.
    """

    codes: IntArray
    class_of: IntArray
    sizes: IntArray
    suppressed: BoolArray


def recode(
    table: EncodedTable,
    levels: Sequence[int],
    violating: Callable[[FrequencySnapshot], BoolArray],
) -> Recoding:
    """Generalize every record to ``levels`` and mark records of violating classes."""
    if table.record_codes is None:
        raise ValueError("the table was counted without its records; cannot build a release")
    cols = [table.level_maps[j][0][lv][table.record_codes[j]] for j, lv in enumerate(levels)]
    cards = [table.cardinalities[j][lv] for j, lv in enumerate(levels)]
    uniq, sizes, inverse = group_codes(cols, cards, with_inverse=True)
    assert inverse is not None
    bad = violating(FrequencySnapshot(tuple(levels), uniq, sizes))
    return Recoding(np.stack(cols) if cols else uniq, inverse, sizes, bad[inverse])


def build_release(
    frame: pl.DataFrame,
    table: EncodedTable,
    levels: Sequence[int],
    recoding: Recoding,
    *,
    drop: Sequence[str] = (),
    suppressed: str = "mask",
) -> pl.DataFrame:
    """The released table.

    Quasi-identifiers are replaced by their labels at ``levels``; identifying columns in
    ``drop`` are removed; suppressed records get ``*`` in every quasi-identifier
    (``suppressed="mask"``, row count preserved) or are left out (``"drop"``). Other columns
    are kept unchanged, in their original order.
    """
    replacements = {}
    mask = pl.Series(recoding.suppressed)
    for j, (name, lv) in enumerate(zip(table.columns, levels, strict=True)):
        labels = pl.Series(name, list(table.hierarchies[j].labels(lv)), dtype=pl.String)
        values = labels.gather(recoding.codes[j])
        if suppressed == "mask" and recoding.suppressed.any():
            values = (
                pl.select(pl.when(pl.lit(mask)).then(pl.lit(SUPPRESSED)).otherwise(pl.lit(values)))
                .to_series()
                .alias(name)
            )
        replacements[name] = values
    out = frame.with_columns(list(replacements.values())).drop(list(drop))
    if suppressed == "drop" and recoding.suppressed.any():
        out = out.filter(~mask)
    return out
