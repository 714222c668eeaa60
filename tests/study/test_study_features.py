"""Feature encoding of releases: every release form, hand-checked on tiny tables."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import UnknownColumnError, ValuesNotInHierarchyError
from anonkit.study.features import FeatureEncoder, setup_hierarchies
from anonkit.study.ml import UtilitySetup

NAN = math.nan
H = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]], name="x")


def _setup(**kw: object) -> UtilitySetup:
    base: dict[str, object] = {
        "target": "y",
        "quasi_identifiers": ("x",),
        "hierarchies": {"x": H},
    }
    base.update(kw)
    return UtilitySetup(**base)  # type: ignore[arg-type]


def _same(actual: np.ndarray, expected: list[list[float]]) -> None:
    np.testing.assert_array_equal(actual, np.array(expected, dtype=np.float32))


def test_hierarchy_labels_at_every_level() -> None:
    train = pl.DataFrame({"x": ["a", "b", "c", "d", "a"]})
    release = pl.DataFrame({"x": ["a", "ab", "*", "cd", "ab"]})
    enc, f = FeatureEncoder.fit(_setup(), train, release)
    # level 0: only 'a' is released at level 0; level 1: ab and cd; '*' sets nothing
    assert enc.feature_names == ("x@0=a", "x@1=ab", "x@1=cd")
    _same(f.onehot, [[1, 1, 0], [0, 1, 0], [0, 0, 0], [0, 0, 1], [0, 1, 0]])
    assert enc.code_names == ("x@0", "x@1")
    assert enc.code_categorical == (True, True)
    _same(f.codes, [[0, 0], [NAN, 0], [NAN, NAN], [NAN, 1], [NAN, 0]])
    # original values set every level; 'b' at level 0 was never released: dropped
    test = pl.DataFrame({"x": ["b", "c", "a"]})
    g = enc.transform(test)
    _same(g.onehot, [[0, 1, 0], [0, 0, 1], [1, 1, 0]])
    _same(g.codes, [[NAN, 0], [NAN, 1], [0, 0]])
    # released-form test values read against their originals
    h = enc.transform(pl.DataFrame({"x": ["ab", "*", "a"]}), test)
    _same(h.onehot, [[0, 1, 0], [0, 0, 0], [1, 1, 0]])


def test_leaf_ranges_count_as_their_smallest_node() -> None:
    train = pl.DataFrame({"x": ["a", "b", "c", "d"]})
    release = pl.DataFrame({"x": ["[a-b]", "[a-b]", "[c-d]", "[c-d]"]})
    enc, f = FeatureEncoder.fit(_setup(), train, release)
    assert enc.feature_names == ("x@1=ab", "x@1=cd")
    _same(f.onehot, [[1, 0], [1, 0], [0, 1], [0, 1]])


def test_numeric_leaf_hierarchy_ranges() -> None:
    h = Hierarchy(
        [["1", "1-2", "*"], ["2", "1-2", "*"], ["3", "3-4", "*"], ["4", "3-4", "*"]], name="n"
    )
    setup = UtilitySetup(target="y", quasi_identifiers=("n",), hierarchies={"n": h})
    train = pl.DataFrame({"n": ["1", "2", "3", "4"]})
    release = pl.DataFrame({"n": ["[1-2]", "1-2", "[3-4[", "*"]})  # '[3-4[' is leaf 3
    enc, f = FeatureEncoder.fit(setup, train, release)
    assert enc.feature_names == ("n@0=3", "n@1=1-2", "n@1=3-4")
    _same(f.onehot, [[0, 1, 0], [0, 1, 0], [1, 0, 1], [0, 0, 0]])


def test_numeric_columns_midpoint_and_width() -> None:
    setup = UtilitySetup(target="y", quasi_identifiers=("n",), hierarchies={}, numeric=("n",))
    train = pl.DataFrame({"n": [20, 30, 40, 50, 60]})
    release = pl.DataFrame({"n": ["[20-30]", "[20-30]", "*", "<45", "60"]})
    enc, f = FeatureEncoder.fit(setup, train, release)
    assert enc.feature_names == ("n:mid", "n:width")
    assert enc.code_categorical == (False, False)
    # in units of the train domain [20, 60]: '*' is all of it, '<45' is clipped to
    # [20, 45], an exact value has width 0
    _same(f.onehot * 40, [[5, 10], [5, 10], [20, 40], [12.5, 25], [40, 0]])
    np.testing.assert_array_equal(f.codes, f.onehot)
    _same(enc.transform(pl.DataFrame({"n": [30, 80]})).onehot, [[0.25, 0], [1.5, 0]])


def test_microaggregated_means() -> None:
    setup = UtilitySetup(target="y", quasi_identifiers=("n",), hierarchies={}, numeric=("n",))
    train = pl.DataFrame({"n": [20, 30, 40, 50]})
    release = pl.DataFrame({"n": [25.0, 25.0, 45.0, 45.0]})
    enc, f = FeatureEncoder.fit(setup, train, release)
    # the width is 0 for every released record: a constant column, dropped
    assert enc.feature_names == ("n:mid",) and enc.raw_names == ("n:mid", "n:width")
    _same(f.onehot * 30, [[5], [5], [25], [25]])
    _same(enc.transform(pl.DataFrame({"n": [35]})).onehot * 30, [[15]])


def test_constant_columns_are_dropped() -> None:
    setup = _setup(quasi_identifiers=("x", "n"), numeric=("n",))
    train = pl.DataFrame({"x": ["a", "b", "c"], "n": [1, 2, 3]})
    release = pl.DataFrame({"x": ["ab", "ab", "ab"], "n": ["*", "*", "*"]})
    enc, f = FeatureEncoder.fit(setup, train, release)
    assert enc.raw_names == ("x@1=ab", "n:mid", "n:width")
    assert enc.feature_names == () and enc.code_names == ()
    assert f.onehot.shape == f.codes.shape == (3, 0)
    assert enc.transform(pl.DataFrame({"x": ["d"], "n": [9]})).onehot.shape == (1, 0)


def test_extra_features_numeric_and_text() -> None:
    setup = _setup(features=("z", "w"))
    train = pl.DataFrame(
        {"x": ["a", "b", "c"], "z": [1.0, None, 3.0], "w": ["v", "u", "v"], "y": [0, 1, 0]}
    )
    release = train.with_columns(pl.lit("*").alias("x"))
    enc, f = FeatureEncoder.fit(setup, train, release)
    assert enc.feature_names == ("z", "w=u", "w=v")
    assert enc.code_names == ("z", "w")
    # z: missing -> the train mean 2, then min-max scaled on [1, 3]
    _same(f.onehot, [[0, 0, 1], [0.5, 1, 0], [1, 0, 1]])
    _same(f.codes, [[0, 1], [0.5, 0], [1, 1]])
    test = pl.DataFrame({"x": ["d"], "z": [5.0], "w": ["new"], "y": [1]})
    _same(enc.transform(test).onehot, [[2, 0, 0]])  # unseen category sets nothing
    with pytest.raises(UnknownColumnError):
        enc.transform(test.drop("w"))


def test_level_hint_resolves_labels_present_at_two_levels() -> None:
    h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name="x")
    setup = UtilitySetup(target="y", quasi_identifiers=("x",), hierarchies={"x": h})
    train = pl.DataFrame({"x": ["a", "b", "c"]})
    release = pl.DataFrame({"x": ["ab", "ab", "c"]})
    enc, f = FeatureEncoder.fit(setup, train, release, levels={"x": 1})
    assert enc.feature_names == ("x@1=ab", "x@1=c")
    enc0, _ = FeatureEncoder.fit(setup, train, train)  # the identity release: level 0
    assert enc0.feature_names == ("x@0=a", "x@0=b", "x@0=c", "x@1=ab", "x@1=c")


def test_quasi_identifier_without_hierarchy_is_suppression_only() -> None:
    setup = UtilitySetup(target="y", quasi_identifiers=("s",), hierarchies={})
    train = pl.DataFrame({"s": ["m", "f", "m"]})
    test = pl.DataFrame({"s": ["x"]})
    assert setup_hierarchies(setup, train, test)["s"].leaves == ("m", "f", "x")
    enc, f = FeatureEncoder.fit(setup, train, train.with_columns(s=pl.lit("*")), extra=(test,))
    assert enc.feature_names == () and f.onehot.shape == (3, 0)
    enc, f = FeatureEncoder.fit(setup, train, train, extra=(test,))
    assert enc.feature_names == ("s@0=m", "s@0=f")
    _same(enc.transform(test).onehot, [[0, 0]])
    enc, _ = FeatureEncoder.fit(setup, train, train)
    with pytest.raises(ValuesNotInHierarchyError):
        enc.transform(test)  # 'x' is in no hierarchy the encoder knows


def test_output_is_dense_float32() -> None:
    train = pl.DataFrame({"x": ["a", "b", "c", "d"]})
    _, f = FeatureEncoder.fit(_setup(), train, train)
    for m in f:
        assert m.dtype == np.float32 and m.flags.c_contiguous


# A bigger hierarchy: 8 leaves, 3 levels below the root.
BIG = Hierarchy(
    [[str(i), f"p{i // 2}", f"q{i // 4}", "*"] for i in range(8)],
    name="x",
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 3)), min_size=1, max_size=40))
def test_matches_a_row_by_row_encoding(rows: list[tuple[int, int]]) -> None:
    """Vectorized encoding == the definition applied record by record."""
    setup = UtilitySetup(target="y", quasi_identifiers=("x",), hierarchies={"x": BIG})
    leaves = [str(v) for v, _ in rows]
    released = [BIG.generalize(str(v), lv) for v, lv in rows]
    enc, f = FeatureEncoder.fit(
        setup, pl.DataFrame({"x": leaves}), pl.DataFrame({"x": released}), levels=None
    )
    expected = [
        {f"x@{m}={BIG.generalize(str(v), m)}" for m in range(lv, BIG.max_level)} for v, lv in rows
    ]
    candidates = set().union(*expected)
    varying = {c for c in candidates if not all(c in e for e in expected)}
    names = enc.feature_names
    assert set(names) == varying  # set by some records, not by all
    for i, e in enumerate(expected):
        assert {names[j] for j in np.flatnonzero(f.onehot[i])} == e & varying
    # the codes layout holds the same information: a level is set iff its block is
    levels = {c.split("=")[0] for c in candidates}
    for i, e in enumerate(expected):
        set_levels = {c.split("=")[0] for c in e}
        got = {enc.code_names[j] for j in np.flatnonzero(~np.isnan(f.codes[i]))}
        assert got == set_levels & set(enc.code_names) and set(enc.code_names) <= levels
