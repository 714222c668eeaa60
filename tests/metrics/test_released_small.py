"""Small releases (and tallies) are coded in Python, large ones by polars queries: the
classes are the same either way (issue 19)."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.core import values
from anonkit.core.hierarchy import Hierarchy
from anonkit.metrics import released
from anonkit.metrics.released import released_classes

CELLS = ["a", "B", "é", "Zürich", "*", "10-20", "<null>", " x ", ""]
DISEASE = Hierarchy([["flu", "resp", "*"], ["cold", "resp", "*"], ["ulcer", "gut", "*"]])


def _facts(classes: Any) -> tuple[Any, ...]:
    s = classes.summary
    return (
        classes.key_labels,
        classes.key_codes.tolist(),
        s.sizes.tolist(),
        classes.n_suppressed,
        [(c.labels, c.histogram.tolist(), c.totals.tolist()) for c in s.sensitive.values()],
    )


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from([*CELLS, None]),
            st.sampled_from([*CELLS, None]),
            st.sampled_from(["flu", "cold", "ulcer"]),
            st.sampled_from(["3", "10", "2.5"]),
        ),
        min_size=1,
        max_size=30,
    ),
    normalize=st.booleans(),
    starred=st.booleans(),
)
def test_python_and_polars_codes_agree(
    rows: list[tuple[Any, ...]], normalize: bool, starred: bool
) -> None:
    frame = pl.DataFrame(
        rows, schema=["q1", "q2", "disease", "income"], orient="row", schema_overrides={}
    )
    kwargs: dict[str, Any] = {
        "hierarchies": {"disease": DISEASE},
        "normalize": normalize,
        "starred_suppressed": starred,
    }
    small = released_classes(frame, ["q1", "q2"], ["disease", "income"], **kwargs)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(released, "PYTHON_ROWS", 0)
        patch.setattr(values, "PYTHON_ROWS", 0)
        large = released_classes(frame, ["q1", "q2"], ["disease", "income"], **kwargs)
    assert _facts(small) == _facts(large)


def test_both_paths_refuse_the_same_sensitive_values() -> None:
    frame = pl.DataFrame({"q": ["a", "b"], "disease": ["flu", "gout"]})
    for rows in (1000, 0):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(values, "PYTHON_ROWS", rows)
            with pytest.raises(Exception, match="gout"):
                released_classes(frame, ["q"], ["disease"], hierarchies={"disease": DISEASE})
    assert np.array_equal(
        values.encode_sensitive(pl.Series(["cold", "flu", "cold"]), "d", DISEASE)[1],
        np.array([1, 0, 1]),
    )
