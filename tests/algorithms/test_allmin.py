"""allMin (Samarati 2001) against an exhaustive oracle on random small tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit._validation import Options
from anonkit.algorithms.lattice import LATTICE_ALGORITHMS, Evaluator, Exhaustive
from anonkit.algorithms.lattice.allmin import AllMin
from anonkit.algorithms.lattice.search import rank
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.lattice import Lattice
from anonkit.engines.base import SensitiveSpec, get_engine
from anonkit.estimators import FullDomain, Privacy
from anonkit.exceptions import PrivacyUnattainableError
from anonkit.metrics.generalization import METRICS
from anonkit.models import (
    DistinctLDiversity,
    EqualDistanceTCloseness,
    KAnonymity,
)
from strategies import random_hierarchy

SENSITIVE = ["1", "2", "3", "5"]


@st.composite
def problems(draw):
    q = draw(st.integers(2, 3))
    hs = [draw(random_hierarchy(f"q{j}")) for j in range(q)]
    n = draw(st.integers(1, 30))
    columns = {
        h.name: draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in hs
    }
    columns["s"] = draw(st.lists(st.sampled_from(SENSITIVE), min_size=n, max_size=n))
    frame = pl.DataFrame(columns)
    kind = draw(st.sampled_from(["k", "k", "l", "t"]))
    models: list[object] = [KAnonymity(draw(st.integers(1, min(4, n))))]
    if kind == "l":
        models.append(DistinctLDiversity("s", draw(st.integers(1, 2))))
    elif kind == "t":
        models.append(EqualDistanceTCloseness("s", draw(st.sampled_from([0.3, 0.5, 0.7]))))
    limit = draw(st.sampled_from([0.0, 0.1, 0.3]))
    metric = draw(st.sampled_from(sorted(METRICS)))
    return frame, hs, models, limit, metric


def encode(frame: pl.DataFrame, hs):
    """The bottom snapshot of ``frame``."""
    return get_engine("polars").count(frame, [h.name for h in hs], hs)


def encode_detail(frame: pl.DataFrame, hs):
    """The bottom snapshot with the detail the sensitive models read (column ``s``)."""
    spec = [SensitiveSpec("s")]
    return get_engine("polars").count_detail(frame, [h.name for h in hs], hs, spec)


def _evaluator(frame, hs, models, limit, metric) -> Evaluator:
    table = encode_detail(frame, hs) if len(models) > 1 else encode(frame, hs)
    return Evaluator(table, Lattice(table.heights), models, limit, metric)


@given(problem=problems())
def test_allmin_finds_exactly_the_minimal_private_nodes(problem) -> None:
    frame, hs, models, limit, metric = problem
    oracle_ev = _evaluator(frame, hs, models, limit, metric)
    lat = oracle_ev.lattice
    try:
        Exhaustive().search(oracle_ev)
    except PrivacyUnattainableError:
        private: set[int] = set()
    else:
        private = {i for i, r in oracle_ev.results.items() if r.anonymous}
    # minimal: private, and nothing it generalizes (its down-set) is private
    expected = sorted(
        lat.node(i)
        for i in private
        if not any(j in private for j in np.flatnonzero(lat.downset(i)).tolist() if j != i)
    )
    ev = _evaluator(frame, hs, models, limit, metric)
    if not expected:
        try:
            AllMin().search(ev)
        except PrivacyUnattainableError:
            return
        raise AssertionError("allmin found a node the oracle did not")
    found = AllMin().search(ev)
    assert list(found.minimal) == expected
    best = min((oracle_ev.results[lat.index(m)] for m in expected), key=rank)
    assert found.node == best.index and found.levels == best.levels
    assert found.cost == best.cost and found.suppressed == best.suppressed
    assert found.algorithm == "allmin"
    assert found.nodes_evaluated <= lat.size


def test_allmin_skips_nodes_it_can_predict() -> None:
    # the bottom is already 2-anonymous: the nodes above it are never evaluated
    x = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name="x")
    y = Hierarchy([["m", "p", "*"], ["f", "p", "*"]], name="y")
    frame = pl.DataFrame({"x": ["a", "a", "b", "b", "c", "c"], "y": ["m"] * 6})
    ev = _evaluator(frame, [x, y], [KAnonymity(2)], 0.0, "discernibility")
    found = AllMin().search(ev)
    assert found.minimal == ((0, 0),)
    assert found.nodes_evaluated < ev.lattice.size


def test_allmin_lists_minimal_nodes_at_several_heights() -> None:
    x = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name="x")
    y = Hierarchy([["m", "*"], ["f", "*"]], name="y")
    frame = pl.DataFrame({"x": ["a", "b", "c", "c"], "y": ["m", "m", "f", "f"]})
    ev = _evaluator(frame, [x, y], [KAnonymity(2)], 0.0, "discernibility")
    found = AllMin().search(ev)
    assert found.minimal == ((1, 0),)


def test_allmin_release_through_the_full_domain_estimator(
    monkeypatch, adult_frame, adult_hierarchies
) -> None:
    # until the registry lists it: register for this test only
    pycanon = pytest.importorskip("pycanon.anonymity")
    monkeypatch.setitem(LATTICE_ALGORITHMS, "allmin", AllMin)

    class WithAllMin(FullDomain):
        _parameter_constraints = {
            **FullDomain._parameter_constraints,
            "search": Options(tuple(LATTICE_ALGORITHMS)),
        }

    qi = ["age", "sex", "race", "education"]
    frame = adult_frame.head(2000).select(qi)
    hs = {c: adult_hierarchies[c] for c in qi}
    privacy = Privacy(KAnonymity(5), suppression_limit=0.02)
    est = WithAllMin("allmin", "loss", privacy=privacy).fit(
        frame, quasi_identifiers=qi, hierarchies=hs
    )
    res = est.result_
    assert res.verified and res.algorithm == "allmin"
    minimal = [tuple(m[c] for c in qi) for m in res.minimal_transformations]
    assert tuple(res.transformation[c] for c in qi) in minimal
    kept = res.release.filter(~pl.all_horizontal([pl.col(c) == "*" for c in qi]))
    df = pd.DataFrame({c: kept[c].to_list() for c in qi})
    assert pycanon.k_anonymity(df, qi) >= 5
    # every minimal node is private and none generalizes another
    for a in minimal:
        for b in minimal:
            assert a == b or not all(x <= y for x, y in zip(a, b, strict=True))
