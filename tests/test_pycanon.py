"""Adult releases checked by an independent implementation: pycanon."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import polars as pl
import pytest

from anonkit import anonymize
from anonkit.datasets import ADULT_COLUMNS

pycanon_anonymity = pytest.importorskip("pycanon.anonymity")

QI = list(ADULT_COLUMNS)


def _check(frame: pl.DataFrame, hierarchies: dict[str, Path], k: int, limit: float) -> None:
    res = anonymize(
        frame,
        quasi_identifiers=QI,
        hierarchies=hierarchies,
        k=k,
        suppression_limit=limit,
        algorithm="flash",
        metric="loss",
    )
    assert res.suppressed <= limit * frame.height
    release = res.release
    assert release.height == frame.height
    suppressed = pl.all_horizontal([pl.col(c) == "*" for c in QI])
    kept = release.filter(~suppressed)
    assert kept.height >= frame.height - res.suppressed
    # a plain pandas frame with a fresh 0..n-1 index, built without pyarrow
    df = pd.DataFrame({c: kept[c].to_list() for c in kept.columns})
    assert list(df.index) == list(range(len(df)))
    achieved = pycanon_anonymity.k_anonymity(df, QI)
    assert achieved >= k
    assert achieved == res.classes.min_size


@pytest.mark.parametrize("limit", [0.0, 0.04])
@pytest.mark.parametrize("k", [2, 5, 10, 50, 100])
def test_adult_release_is_k_anonymous_for_pycanon(adult_frame, adult_hierarchies, k, limit) -> None:
    _check(adult_frame, adult_hierarchies, k, limit)
