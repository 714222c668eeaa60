"""A pure-numpy engine: encodes with dictionaries and counts with ``np.unique``.

Slower than polars on large tables; kept as an independent second path for tests and
for callers that hand over plain arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from anonkit.core.encoding import EncodedTable
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.snapshot import FrequencySnapshot, group_codes
from anonkit.exceptions import EmptyDataError, MissingValuesError, ValuesNotInHierarchyError


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, float):
        if value != value:  # NaN
            return None
        if value.is_integer():
            return str(int(value))
    return str(value).strip()


class NumpyEngine:
    """Count with numpy; accepts any mapping of column name to a sequence of values."""

    name = "numpy"

    def encode(
        self, frame: Any, columns: Sequence[str], hierarchies: Sequence[Hierarchy]
    ) -> EncodedTable:
        cols = []
        for c, h in zip(columns, hierarchies, strict=True):
            values = [_text(v) for v in list(frame[c])]
            if not values:
                raise EmptyDataError()
            nulls = sum(v is None for v in values)
            if nulls:
                raise MissingValuesError(c, nulls)
            index = {leaf: i for i, leaf in enumerate(h.leaves)}
            missing = list(dict.fromkeys(v for v in values if v not in index))
            if missing:
                raise ValuesNotInHierarchyError(c, [str(m) for m in missing[:10]], len(missing))
            cols.append(np.fromiter((index[v] for v in values), dtype=np.int64, count=len(values)))  # type: ignore[index]
        records = np.stack(cols)
        codes, counts, _ = group_codes(cols, [len(h.leaves) for h in hierarchies])
        snap = FrequencySnapshot(tuple(0 for _ in columns), codes, counts)
        return EncodedTable(tuple(columns), tuple(hierarchies), snap, records)
