"""Apply a full-domain transformation to the records: the release."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit.core.encoding import EncodedTable
from anonkit.core.snapshot import group_codes

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
    class_codes: IntArray,
    class_suppressed: BoolArray,
) -> Recoding:
    """Generalize every record to ``levels`` and mark the records of suppressed classes.

    ``class_codes`` (``(n_qi, n_classes)``) and ``class_suppressed`` describe the node's
    classes as the search judged them; each record is matched to its class by its codes.
    """
    if table.record_codes is None:
        raise ValueError("the table was counted without its records; cannot build a release")
    cols = [table.level_maps[j][0][lv][table.record_codes[j]] for j, lv in enumerate(levels)]
    cards = [table.cardinalities[j][lv] for j, lv in enumerate(levels)]
    n_classes = class_codes.shape[1]
    # group classes and records together: a record lands in the group of its class
    joint = [np.concatenate([class_codes[j], col]) for j, col in enumerate(cols)]
    _, _, inverse = group_codes(joint, cards, with_inverse=True)
    assert inverse is not None
    class_of_group = np.full(int(inverse.max()) + 1, -1, dtype=np.int64)
    class_of_group[inverse[:n_classes]] = np.arange(n_classes)
    class_of = class_of_group[inverse[n_classes:]]
    if (class_of < 0).any():
        raise RuntimeError("internal error: a record matches no class of the chosen node")
    sizes = np.bincount(class_of, minlength=n_classes).astype(np.int64)
    return Recoding(np.stack(cols), class_of, sizes, class_suppressed[class_of])


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
