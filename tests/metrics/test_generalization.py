"""Tests of anonkit.metrics.generalization: golden values, CostModel agreement, sanity."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit.algorithms.lattice import Evaluator
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.lattice import Lattice
from anonkit.engines.base import get_engine
from anonkit.exceptions import UnknownNameError
from anonkit.metrics.generalization import (
    METRICS,
    NodeSummary,
    all_metrics,
    average_class_size_loss,
    discernibility_loss,
    generalized_loss,
    get_metric,
    height_loss,
    nonuniform_entropy_loss,
    precision_loss,
    relative_distance_loss,
)
from anonkit.models import KAnonymity
from strategies import random_hierarchy

# ------------------------------------------------------------------ golden: seed 001
# The 13-record hospital table of seed document 001 (Disease is the sensitive attribute).
HOSPITAL = [
    ("13053", "28", "Russian", "Heart Disease"),
    ("13068", "29", "American", "Heart Disease"),
    ("13068", "21", "Japanese", "Viral Infection"),
    ("13053", "23", "American", "Viral Infection"),
    ("14853", "50", "Indian", "Cancer"),
    ("14853", "55", "Russian", "Heart Disease"),
    ("14850", "47", "American", "Viral Infection"),
    ("14850", "59", "American", "Viral Infection"),
    ("13053", "31", "American", "Cancer"),
    ("13053", "37", "Indian", "Cancer"),
    ("13068", "36", "Japanese", "Cancer"),
    ("13068", "32", "American", "Cancer"),
    ("13068", "33", "Chinese", "Cancer"),
]


def _age_group(age: str) -> str:
    a = int(age)
    return "<30" if a < 30 else ("[30,40)" if a < 40 else "40+")


def hospital_hierarchies() -> tuple[Hierarchy, Hierarchy, Hierarchy]:
    # The published release writes 130** for 1305x/1306x but 1485* for 1485x. A full-domain
    # transformation applies one level per column, so the zip hierarchy's level 1 is that
    # mixed masking (two digits for 130xx, one for 1485x), then the root.
    zips = sorted({r[0] for r in HOSPITAL})
    zip_h = Hierarchy(
        [[z, "130**" if z.startswith("130") else "1485*", "*"] for z in zips], name="Zip"
    )
    ages = sorted({r[1] for r in HOSPITAL}, key=int)
    age_h = Hierarchy([[a, _age_group(a), "*"] for a in ages], name="Age")
    nats = sorted({r[2] for r in HOSPITAL})
    nat_h = Hierarchy([[n, "*"] for n in nats], name="Nationality")
    return zip_h, age_h, nat_h


def hospital_frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            name: [r[i] for r in HOSPITAL]
            for i, name in enumerate(["Zip", "Age", "Nationality", "Disease"])
        }
    )


def _release_summary(k: int = 4) -> NodeSummary:
    """The NodeSummary of the 4-anonymous release, built by hand from the records."""
    hs = hospital_hierarchies()
    levels = (1, 1, 1)
    classes: dict[tuple[int, ...], int] = {}
    for r in HOSPITAL:
        key = tuple(
            h.labels(lv).index(h.generalize(v, lv))
            for h, lv, v in zip(hs, levels, r[:3], strict=True)
        )
        classes[key] = classes.get(key, 0) + 1
    codes = np.array(list(classes), dtype=np.int64)
    sizes = np.array(list(classes.values()), dtype=np.int64)
    value_counts = tuple(
        np.array([sum(r[j] == leaf for r in HOSPITAL) for leaf in h.leaves], dtype=np.int64)
        for j, h in enumerate(hs)
    )
    return NodeSummary(
        levels=levels,
        hierarchies=hs,
        codes=codes,
        sizes=sizes,
        suppressed=np.zeros(sizes.size, dtype=bool),
        value_counts=value_counts,
        k=k,
    )


def test_hospital_release_classes() -> None:
    s = _release_summary()
    assert sorted(s.sizes.tolist()) == [4, 4, 5]
    assert s.n_records == 13 and s.n_suppressed == 0


def test_golden_average_class_size_and_discernibility() -> None:
    s = _release_summary(k=4)
    # C_avg = N / (classes * k) = 13 / (3 * 4) = 1.0833 ("1.08" in the seed document)
    assert average_class_size_loss(s) == pytest.approx(13 / 12)
    assert round(average_class_size_loss(s), 2) == 1.08
    # C_DM = 4^2 + 4^2 + 5^2 = 57
    assert discernibility_loss(s) == 57


def test_golden_other_metrics() -> None:
    s = _release_summary(k=4)
    assert height_loss(s) == 3
    # Zip and Age at level 1 of 2, Nationality at 1 of 1
    assert relative_distance_loss(s) == pytest.approx(0.5 + 0.5 + 1.0)
    # 1 - Prec = (1/2 + 1/2 + 1) / 3
    assert precision_loss(s) == pytest.approx(2 / 3)
    # LM: Zip: every record in a 2-of-4-leaf node -> 1/3. Age (13 distinct leaves):
    # <30 and 40+ hold 4 leaves (3/12 each, 4 records each), [30,40) 5 leaves (4/12, 5
    # records) -> (12 + 12 + 20) / (12 * 13) = 11/39. Nationality -> * : 1.
    assert generalized_loss(s) == pytest.approx((1 / 3 + 11 / 39 + 1) / 3)
    assert generalized_loss(s) == pytest.approx(7 / 13)


def test_golden_through_the_evaluator_and_api() -> None:
    from anonkit import anonymize

    hs = hospital_hierarchies()
    frame = hospital_frame()
    table = get_engine("polars").count(frame, ["Zip", "Age", "Nationality"], list(hs))
    lat = Lattice(table.heights)
    node = lat.index((1, 1, 1))
    for metric in METRICS:
        ev = Evaluator(table, lat, [KAnonymity(4)], 0.0, metric)
        res = ev.evaluate(node)
        assert res.anonymous and res.suppressed == 0
        expected = METRICS[metric](_release_summary(k=4))
        assert math.isclose(res.cost, expected, rel_tol=1e-9, abs_tol=1e-12), metric
        assert math.isclose(all_metrics(ev.summary(node))[metric], expected, rel_tol=1e-9)
    res = anonymize(
        frame,
        quasi_identifiers=["Zip", "Age", "Nationality"],
        sensitive=["Disease"],
        hierarchies=dict(zip(["Zip", "Age", "Nationality"], hs, strict=True)),
        k=4,
        metric="discernibility",
        algorithm="exhaustive",
    )
    # The best 4-anonymous release for C_DM: the published one
    assert dict(res.transformation) == {"Zip": 1, "Age": 1, "Nationality": 1}
    assert res.metrics["discernibility"] == 57
    assert res.metrics["average_class_size"] == pytest.approx(13 / 12)
    assert res.metrics["precision_score"] == pytest.approx(1 / 3)
    assert res.metrics["precision"] == pytest.approx(2 / 3)  # the loss, as documented
    assert sorted(res.release["Age"].unique().to_list()) == ["40+", "<30", "[30,40)"]


def test_get_metric() -> None:
    assert get_metric("loss") is generalized_loss
    with pytest.raises(UnknownNameError, match="discernibility") as exc:
        get_metric("nope")
    assert exc.value.available == sorted(METRICS)


def test_nonuniform_entropy_hand_example() -> None:
    # one column, values a,a,b,c; level 1 groups {a,b} and {c}
    h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name="x")
    frame = pl.DataFrame({"x": ["a", "a", "b", "c"]})
    table = get_engine("polars").count(frame, ["x"], [h])
    lat = Lattice(table.heights)
    ev = Evaluator(table, lat, [KAnonymity(1)], 0.0, "nonuniform_entropy")
    s1 = ev.summary(lat.index((1,)))
    # a: -log2(2/3) twice, b: -log2(1/3), c: -log2(1) = 0
    assert nonuniform_entropy_loss(s1) == pytest.approx(2 * math.log2(3 / 2) + math.log2(3))
    s2 = ev.summary(lat.index((2,)))
    assert nonuniform_entropy_loss(s2) == pytest.approx(2 * 1 + 2 + 2)  # -log2(2/4), ...
    assert nonuniform_entropy_loss(ev.summary(0)) == 0


# ------------------------------------------------------------ random tables, hierarchies
@st.composite
def random_problem(draw, min_rows: int = 1, max_rows: int = 30):
    q = draw(st.integers(2, 3))
    names = [f"q{j}" for j in range(q)]
    hs = [draw(random_hierarchy(n)) for n in names]
    n = draw(st.integers(min_rows, max_rows))
    frame = pl.DataFrame(
        {h.name: draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in hs}
    )
    k = draw(st.integers(1, min(5, n)))
    limit = draw(st.sampled_from([0.0, 0.1, 0.3]))
    return frame, hs, k, limit


@given(random_problem(), st.data())
def test_cost_model_equals_pure_metrics(problem, data) -> None:
    frame, hs, k, limit = problem
    table = get_engine("polars").count(frame, [h.name for h in hs], hs)
    lat = Lattice(table.heights)
    nodes = data.draw(st.lists(st.integers(0, lat.size - 1), min_size=1, max_size=8, unique=True))
    for metric in METRICS:
        ev = Evaluator(table, lat, [KAnonymity(k)], limit, metric)
        for i in nodes:
            res = ev.evaluate(i)
            if not res.anonymous:
                assert res.cost == math.inf
                continue
            s = ev.summary(i)
            assert s.n_suppressed == res.suppressed
            expected = all_metrics(s)[metric]
            assert math.isclose(res.cost, expected, rel_tol=1e-9, abs_tol=1e-9), (
                metric,
                lat.node(i),
                res.cost,
                expected,
            )
            # the bound never exceeds the cost
            assert res.bound <= res.cost + 1e-9


@given(random_problem(min_rows=2), st.data())
def test_cost_model_with_forced_suppression(problem, data) -> None:
    """k = 2 on a table with unique rows and a generous limit: nodes suppress records."""
    frame, hs, _, _ = problem
    table = get_engine("polars").count(frame, [h.name for h in hs], hs)
    lat = Lattice(table.heights)
    for metric in METRICS:
        ev = Evaluator(table, lat, [KAnonymity(2)], 1.0, metric)
        for i in range(lat.size):
            res = ev.evaluate(i)
            assert res.anonymous  # limit 1.0: everything may be suppressed
            expected = all_metrics(ev.summary(i))[metric]
            assert math.isclose(res.cost, expected, rel_tol=1e-9, abs_tol=1e-9), metric


@given(random_problem())
def test_metric_ranges(problem) -> None:
    frame, hs, k, limit = problem
    table = get_engine("polars").count(frame, [h.name for h in hs], hs)
    lat = Lattice(table.heights)
    ev = Evaluator(table, lat, [KAnonymity(k)], limit, "loss")
    n = frame.height
    for i in range(lat.size):
        if not ev.evaluate(i).anonymous:
            continue
        m = all_metrics(ev.summary(i))
        assert 0.0 <= m["precision"] <= 1.0 + 1e-12
        assert 0.0 <= m["loss"] <= 1.0 + 1e-12
        assert 0.0 <= m["relative_distance"] <= lat.width
        assert m["height"] == sum(lat.node(i))
        assert n <= m["discernibility"] <= n * n
        assert m["nonuniform_entropy"] >= 0.0
        assert m["average_class_size"] > 0.0


@given(random_problem())
def test_metrics_minimal_at_bottom_of_anonymous_table(problem) -> None:
    frame, hs, _, _ = problem
    # Make the table k-anonymous by repeating it: every class then has >= 2 records.
    k = 2
    frame = pl.concat([frame, frame])
    table = get_engine("polars").count(frame, [h.name for h in hs], hs)
    lat = Lattice(table.heights)
    for metric in METRICS:
        ev = Evaluator(table, lat, [KAnonymity(k)], 0.0, metric)
        costs = [ev.evaluate(i).cost for i in range(lat.size)]
        assert all(ev.results[i].anonymous for i in range(lat.size))
        bottom = costs[lat.bottom]
        if metric in ("height", "relative_distance", "precision", "loss", "nonuniform_entropy"):
            assert bottom == pytest.approx(0.0, abs=1e-12), metric
        assert bottom <= min(costs) + 1e-9, metric
        pure = all_metrics(ev.summary(lat.bottom))[metric]
        assert math.isclose(pure, bottom, rel_tol=1e-9, abs_tol=1e-12)
        # no suppression: every metric is monotone along generalization
        for i in range(lat.size):
            for s in lat.successors(i):
                assert costs[s] >= costs[i] - 1e-9, (metric, lat.node(i), lat.node(s))
