"""The encoded table's derived figures (issue 19): the compiled value counts are numpy's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.core import grouping
from anonkit.engines.base import get_engine
from strategies import random_table


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_compiled_value_counts_equal_numpy(data: st.DataObject) -> None:
    pytest.importorskip("numba")
    hs, frame = data.draw(random_table(columns=(1, 4), max_leaves=9, rows=60))
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
