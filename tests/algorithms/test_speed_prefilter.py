"""The dense pair screen gives the same figures as the projected classes it replaces."""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from anonkit.algorithms.lattice import Evaluator
from anonkit.algorithms.lattice.prefilter import _pair_suppressed, _projected_classes
from anonkit.core.lattice import Lattice
from anonkit.engines.base import get_engine
from anonkit.models import KAnonymity
from strategies import random_hierarchy


@given(data=st.data())
def test_dense_pair_screen_matches_projected_classes(data) -> None:
    q = data.draw(st.integers(2, 4))
    hs = [data.draw(random_hierarchy(f"q{j}", max_leaves=6)) for j in range(q)]
    n = data.draw(st.integers(1, 50))
    frame = pl.DataFrame(
        {h.name: data.draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in hs}
    )
    k = data.draw(st.integers(1, 6))
    limit = data.draw(st.sampled_from([0.0, 0.2]))
    table = get_engine("polars").count(frame, [h.name for h in hs], hs)
    ev = Evaluator(table, Lattice(table.heights), [KAnonymity(k)], limit, "height")
    for a, b in itertools.combinations(range(q), 2):
        dense = _pair_suppressed(ev, a, b)
        assert dense is not None
        expected = _projected_classes(ev, a, b).supp_records
        assert np.array_equal(dense, expected)
