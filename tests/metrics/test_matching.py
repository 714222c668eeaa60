"""Tests of anonkit.metrics.matching: rows matched to the release classes containing them."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import anonkit.metrics.matching as matching_module
from anonkit.core.hierarchy import Hierarchy
from anonkit.metrics.matching import distinct_rows, match_classes
from anonkit.metrics.release import interpret_release


# ------------------------------------------------------------ matching vs brute force
@st.composite
def local_release(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame, dict[str, Hierarchy]]:
    """A random table with random hierarchies and a random (truthful) local recoding."""
    q = draw(st.integers(1, 3))
    hs: dict[str, Hierarchy] = {}
    for j in range(q):
        n_leaves = draw(st.integers(1, 5))
        rows = []
        for i in range(n_leaves):
            g = draw(st.integers(0, 1))
            rows.append([f"q{j}v{i}", f"q{j}g{g}" if n_leaves > 1 else f"q{j}v{i}", "*"])
        hs[f"q{j}"] = Hierarchy(rows, name=f"q{j}")
    n = draw(st.integers(1, 25))
    data = {
        name: draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n))
        for name, h in hs.items()
    }
    orig = pl.DataFrame(data)
    rel = {}
    for name, h in hs.items():
        lv = draw(st.lists(st.integers(0, h.max_level), min_size=n, max_size=n))
        rel[name] = [h.generalize(v, level) for v, level in zip(data[name], lv, strict=True)]
    return orig, pl.DataFrame(rel), hs


@given(local_release(), st.data(), st.booleans())
def test_match_classes_equals_brute_force(case, data, bitsets) -> None:
    # both strategies (trie walk, per-column class bitsets) must give the same pairs
    with mock.patch.object(matching_module, "_bitsets_pay", return_value=bitsets):
        _check_match_classes(case, data)


def _check_match_classes(case, data) -> None:
    orig, rel, hs = case
    r = interpret_release(orig, rel, quasi_identifiers=list(hs), hierarchies=hs)
    # probe rows: every leaf combination of a random subset
    n_probe = data.draw(st.integers(1, 10))
    probe = {
        name: data.draw(st.lists(st.sampled_from(h.leaves), min_size=n_probe, max_size=n_probe))
        for name, h in hs.items()
    }
    pts = [col.points(pl.Series(probe[col.name])) for col in r.columns]
    rows, classes = match_classes(r, pts)
    got = sorted(zip(rows.tolist(), classes.tolist(), strict=True))
    want = []
    for i in range(n_probe):
        for g in range(r.class_sizes.shape[0]):
            ok = True
            for j, col in enumerate(r.columns):
                lab = col.labels[r.class_labels[g, j]]
                h = hs[col.name]
                leaf = probe[col.name][i]
                if lab != "*" and lab not in {h.generalize(leaf, lv) for lv in range(h.height)}:
                    ok = False
            if ok:
                want.append((i, g))
    assert got == sorted(want)
    # every record lies in its own class
    own = match_classes(r, [c.own_points() for c in r.columns])
    pairs = set(zip(own[0].tolist(), own[1].tolist(), strict=True))
    assert all((i, int(r.class_of[i])) in pairs for i in range(orig.height))


@pytest.mark.parametrize("bitsets", [False, True])
def test_match_numeric_bounds(bitsets: bool) -> None:
    orig = pl.DataFrame({"v": [1, 2, 3, 4]})
    rel = pl.DataFrame({"v": ["[1-2[", "[2-4]", "[2-4]", "[2-4]"]})
    r = interpret_release(orig, rel, quasi_identifiers=["v"], hierarchies={}, numeric=["v"])
    with mock.patch.object(matching_module, "_bitsets_pay", return_value=bitsets):
        rows, classes = match_classes(r, [np.array([1.0, 2.0, 4.0, 5.0])])
    labels = [r.columns[0].labels[r.class_labels[g, 0]] for g in classes]
    assert sorted(zip(rows.tolist(), labels, strict=True)) == [
        (0, "[1-2["),
        (1, "[2-4]"),
        (2, "[2-4]"),
    ]


def test_distinct_rows_and_pandas_frames() -> None:
    first, counts = distinct_rows([np.array([1, 1, 2, 1]), np.array([0.5, 0.5, 0.5, 0.7])])
    assert sorted(zip(first.tolist(), counts.tolist(), strict=True)) == [(0, 2), (2, 1), (3, 1)]
    from anonkit.io.frames import to_polars

    orig, _ = to_polars(pd.DataFrame({"v": [1.0, 2.0, 3.0]}))
    rel, _ = to_polars(pd.DataFrame({"v": ["[1-2]", "[1-2]", None]}))
    r = interpret_release(orig, rel, quasi_identifiers=["v"], hierarchies={}, numeric=["v"])
    assert r.suppressed.tolist() == [False, False, True]
