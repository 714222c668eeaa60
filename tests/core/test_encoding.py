"""The encoded table's derived figures (issue 19): the compiled value counts are numpy's."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.core import grouping
from anonkit.engines.base import get_engine
from strategies import random_hierarchy


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_compiled_value_counts_equal_numpy(data: st.DataObject) -> None:
    pytest.importorskip("numba")
    q = data.draw(st.integers(1, 4))
    hs = [data.draw(random_hierarchy(f"q{j}", max_leaves=9)) for j in range(q)]
    n = data.draw(st.integers(1, 60))
    frame = pl.DataFrame(
        {h.name: data.draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in hs}
    )
    counts = []
    for compiled in (False, True):
        table = get_engine("polars").count(frame, [h.name for h in hs], hs)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(grouping, "compiled_ready", lambda on=compiled: on)
            counts.append(table.value_counts)
    numpy_counts, compiled_counts = counts
    for j, h in enumerate(hs):
        assert compiled_counts[j].dtype == np.int64
        assert np.array_equal(numpy_counts[j], compiled_counts[j])
        expected = [int((frame[h.name] == leaf).sum()) for leaf in h.leaves]
        assert compiled_counts[j].tolist() == expected
