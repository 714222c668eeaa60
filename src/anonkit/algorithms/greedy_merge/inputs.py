"""The inputs greedy class merging accepts, read into level-0 codes per quasi-identifier."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from anonkit._arrays import IntArray
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.values import CodedRecords, encode_records
from anonkit.exceptions import DataError, EmptyDataError, ParameterError, UnknownColumnError
from anonkit.io.frames import to_polars


def as_codes(
    data: Any,
    hierarchies: Sequence[Hierarchy] | Mapping[str, Hierarchy | str | Path] | None,
) -> tuple[tuple[str, ...], tuple[Hierarchy, ...], IntArray]:
    if isinstance(data, CodedRecords):
        return data.columns, data.hierarchies, np.asarray(data.codes, dtype=np.int64)
    if isinstance(data, np.ndarray):
        if hierarchies is None or isinstance(hierarchies, Mapping):
            raise ParameterError(
                "hierarchies",
                "GreedyMerge.fit",
                "a sequence of Hierarchy for code arrays",
                type(hierarchies).__name__,
            )
        hs = tuple(hierarchies)
        if data.ndim != 2 or data.shape[0] != len(hs) or data.dtype.kind not in "iu":
            raise ParameterError(
                "data",
                "GreedyMerge.fit",
                f"an int array of shape (n_qi={len(hs)}, n_records)",
                f"{data.dtype}{data.shape}",
            )
        codes = data.astype(np.int64)
        for i, h in enumerate(hs):
            if codes.shape[1] and (codes[i].min() < 0 or codes[i].max() >= len(h.leaves)):
                raise DataError(
                    f"codes of quasi-identifier {i} must lie in 0..{len(h.leaves) - 1}."
                )
        names = tuple(h.name or f"q{i}" for i, h in enumerate(hs))
        return names, hs, codes
    if not isinstance(hierarchies, Mapping):
        raise ParameterError(
            "hierarchies",
            "GreedyMerge.fit",
            "a mapping from quasi-identifier to hierarchy for a data frame",
            type(hierarchies).__name__,
        )
    frame, _ = to_polars(data)
    if frame.height == 0:
        raise EmptyDataError()
    cols = list(hierarchies)
    hs_list = [
        (spec if spec.name == c else spec.with_name(c))
        if isinstance(spec, Hierarchy)
        else Hierarchy.from_csv(spec, name=c)
        for c, spec in hierarchies.items()
    ]
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise UnknownColumnError(missing, frame.columns)
    records = encode_records(frame, cols, hs_list)
    return records.columns, records.hierarchies, records.codes
