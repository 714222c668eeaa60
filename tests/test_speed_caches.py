"""Caches of the per-call fixed cost: they must never serve stale or wrong results."""

from __future__ import annotations

import polars as pl

from anonkit.core.resolve import resolve_hierarchy
from anonkit.engines.polars_engine import PolarsEngine


def test_hierarchy_files_are_shared_until_they_change(tmp_path) -> None:
    path = tmp_path / "h.csv"
    path.write_text("a;*\nb;*\n")
    values = pl.Series(["a"])
    first = resolve_hierarchy("x", path, values)
    assert resolve_hierarchy("x", path, values) is first
    assert resolve_hierarchy("y", path, values).name == "y"
    path.write_text("c;*\nd;*\n")  # same size, possibly the same modification time
    changed = resolve_hierarchy("x", path, values)
    assert changed.leaves == ("c", "d")


def test_engine_codes_all_columns_in_one_query_and_releases_the_same() -> None:
    import numpy as np

    from anonkit.core.hierarchy import Hierarchy
    from anonkit.core.transform import ReleasePlan

    a = Hierarchy([["1", "1-2", "*"], ["2", "1-2", "*"], ["3", "3", "*"]], name="a")
    b = Hierarchy([["x", "*"], ["y", "*"]], name="b")
    frame = pl.DataFrame({"a": ["1", "2", "3", "3"], "b": ["x", "y", "x", "x"], "p": [1, 2, 3, 4]})
    engine = PolarsEngine()
    table = engine.count(frame, ["a", "b"], [a, b])
    assert int(table.snapshot.counts.sum()) == 4
    bad = np.array([[0], [1]], dtype=np.int64)  # class (1-2, y) at levels (1, 0)
    plan = ReleasePlan(("a", "b"), (a, b), (1, 0), bad)
    out = engine.apply(frame, plan)
    assert out["a"].to_list() == ["1-2", "*", "3", "3"]
    assert out["b"].to_list() == ["x", "*", "x", "x"]
    assert out["p"].to_list() == [1, 2, 3, 4]


def test_string_codes_match_the_expression() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    from anonkit.core.hierarchy import Hierarchy
    from anonkit.core.values import code_expr, string_codes

    h = Hierarchy([["a", "*"], ["b", "*"], [" c", "*"]], name="x")  # leaves are stripped

    @given(st.lists(st.sampled_from(["a", " a", "b ", "c", " c", "zz", "", None]), max_size=30))
    def check(values: list) -> None:
        s = pl.Series("x", values, dtype=pl.String)
        expected = pl.DataFrame([s]).select(code_expr("x", pl.String, h)).to_series()
        assert string_codes(s, h).to_list() == expected.to_list()

    check()
