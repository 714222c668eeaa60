"""The compiled judge of nodes without suppression answers as the general path does
(issue 19)."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any
from unittest import mock

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.algorithms.lattice import (
    Evaluator,
    Exhaustive,
    Flash,
    compiled_judge,
    compiled_screens,
)
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.lattice import Lattice
from anonkit.engines.base import SensitiveSpec, get_engine
from anonkit.exceptions import PrivacyUnattainableError
from anonkit.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    EqualDistanceTCloseness,
    HierarchicalTCloseness,
    KAnonymity,
    OrderedDistanceTCloseness,
    RecursiveCLDiversity,
)
from strategies import random_hierarchy

pytest.importorskip("numba")

VALUES = ["a", "b", "c", "d", "e"]
TREE = Hierarchy([[v, "ab" if v in "ab" else "cde", "*"] for v in VALUES], name="s")


@st.composite
def problems(draw: st.DrawFn, widths: tuple[int, int] = (1, 3)) -> tuple[Any, list[Any]]:
    """A counted table with a sensitive column and the models to judge it by."""
    q = draw(st.integers(*widths))
    trees = [draw(random_hierarchy(f"q{j}", max_leaves=5)) for j in range(q)]
    n = draw(st.integers(1, 60))
    frame = pl.DataFrame(
        {h.name: draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in trees}
        | {"s": draw(st.lists(st.sampled_from(VALUES), min_size=n, max_size=n))}
    )
    if draw(st.booleans()):
        # every class holds every value: the distinct-value screens pass, the kernel judges
        quasi = frame.drop("s").unique()
        frame = pl.concat([frame, quasi.join(pl.DataFrame({"s": VALUES}), how="cross")])
    kind = draw(st.sampled_from(["equal", "hierarchical", "distinct", "entropy", "recursive"]))
    t = draw(st.sampled_from([0.0, 0.1, 0.2, 0.35, 0.5, 1.0]))
    l = draw(st.integers(1, 4))  # noqa: E741
    model = {
        "equal": lambda: EqualDistanceTCloseness("s", t),
        "hierarchical": lambda: HierarchicalTCloseness("s", t, TREE),
        "distinct": lambda: DistinctLDiversity("s", l),
        "entropy": lambda: EntropyLDiversity("s", draw(st.sampled_from([1, 1.5, 2, 2.5, 3]))),
        "recursive": lambda: RecursiveCLDiversity("s", draw(st.sampled_from([0.5, 1, 2, 3])), l),
    }[kind]()
    hierarchical = kind == "hierarchical"
    models: list[Any] = [model]
    if draw(st.booleans()):
        models.insert(0, KAnonymity(draw(st.integers(1, 4))))
    spec = SensitiveSpec("s", TREE if hierarchical else None)
    names = [h.name for h in trees]
    table = get_engine("polars").count_detail(frame, names, trees, [spec])
    return table, models


def _evaluator(table: Any, models: list[Any], *, compiled: bool) -> Evaluator:
    ev = Evaluator(table, Lattice(table.heights), models, 0.0, "loss")
    if not compiled:
        ev._compiled = None
    return ev


@settings(max_examples=60, deadline=None)
@given(problem=problems(), forced=st.booleans())
def test_every_node_judged_alike(problem: tuple[Any, list[Any]], forced: bool) -> None:
    """Node by node, the compiled judge and the general path give the same result:
    verdict, suppressed records, classes, cost, bound and the records forced below."""
    table, models = problem
    with mock.patch.object(compiled_judge, "compiled_ready", lambda: True):
        fast = _evaluator(table, models, compiled=True)
        assert fast._compiled is not None
        plain = _evaluator(table, models, compiled=False)
        for ev in (fast, plain):
            ev.track_forced = forced
        for index in range(fast.lattice.size):
            got, want = fast.evaluate(index), plain.evaluate(index)
            assert dataclasses.astuple(got) == dataclasses.astuple(want)


@settings(max_examples=40, deadline=None)
@given(problem=problems())
def test_flash_with_the_compiled_judge_finds_the_exhaustive_optimum(
    problem: tuple[Any, list[Any]],
) -> None:
    table, models = problem

    def search(algorithm: Any, compiled: bool) -> Any:
        try:
            return algorithm.search(_evaluator(table, models, compiled=compiled))
        except PrivacyUnattainableError:
            return None

    with mock.patch.object(compiled_judge, "compiled_ready", lambda: True):
        found = search(Flash(), True)
    oracle = search(Exhaustive(), False)
    assert (found is None) == (oracle is None)
    if oracle is not None:
        assert found.levels == oracle.levels and found.cost == oracle.cost


def test_only_k_anonymity_and_one_known_model_without_suppression() -> None:
    """A second sensitive model, a model the kernel does not know or a suppression limit
    keep the general path."""
    frame = pl.DataFrame({"q": ["x", "y", "x", "y"], "s": ["a", "b", "a", "c"]})
    tree = Hierarchy([["x", "*"], ["y", "*"]], name="q")
    table = get_engine("polars").count_detail(frame, ["q"], [tree], [SensitiveSpec("s")])
    t = EqualDistanceTCloseness("s", 0.3)

    def judge(models: list[Any], limit: float = 0.0) -> Any:
        return Evaluator(table, Lattice(table.heights), models, limit, "loss")._compiled

    assert judge([KAnonymity(2), t]) is not None
    assert judge([t]) is not None
    assert judge([KAnonymity(2), EntropyLDiversity("s", 2)]) is not None
    assert judge([KAnonymity(2), t], limit=0.25) is None
    assert judge([DistinctLDiversity("s", 2), t]) is None
    assert judge([t, EqualDistanceTCloseness("s", 0.4)]) is None
    assert judge([KAnonymity(2)]) is None
    assert judge([KAnonymity(2), OrderedDistanceTCloseness("s", 0.3)]) is None


def test_no_compiled_answer_without_the_kernels() -> None:
    frame = pl.DataFrame({"q": ["x", "y", "x", "y"], "s": ["a", "b", "a", "b"]})
    tree = Hierarchy([["x", "*"], ["y", "*"]], name="q")
    table = get_engine("polars").count_detail(frame, ["q"], [tree], [SensitiveSpec("s")])
    ev = Evaluator(table, Lattice(table.heights), [EqualDistanceTCloseness("s", 0.3)], 0.0, "loss")
    assert ev._compiled is not None
    with mock.patch.object(compiled_judge, "compiled_ready", lambda: False):
        assert ev._compiled(ev.snapshot(0)) is None
    with mock.patch.object(compiled_judge, "compiled_ready", lambda: True):
        judged = ev._compiled(ev.snapshot(0))
    assert judged is not None and np.array_equal(judged.classes.counts, [2, 2])


@settings(max_examples=60, deadline=None)
@given(problem=problems(widths=(2, 5)), data=st.data())
def test_share_screen_closes_exactly_the_nodes_below_a_failing_projection(
    problem: tuple[Any, list[Any]], data: st.DataObject
) -> None:
    """The compiled pair screen closes a node when, and only when, one of its
    projections onto two columns (the others at the top) is not private, as the general
    path judges that projection: so it never closes a private node (the models are
    monotone without suppression), and it misses none it could close."""
    table, models = problem
    if table.width < 2:
        return
    plain = _evaluator(table, models, compiled=False)
    ev = _evaluator(table, models, compiled=True)
    lat = ev.lattice
    open_nodes = np.asarray(
        data.draw(st.lists(st.booleans(), min_size=lat.size, max_size=lat.size))
    )
    pairs = list(itertools.combinations(range(lat.width), 2))
    got = compiled_screens.share_screens(ev, pairs, open_nodes)
    if any(isinstance(m, DistinctLDiversity) for m in models):
        assert got is None  # projections rarely fail it: not worth judging them
        return
    assert got is not None
    top = [h - 1 for h in lat.heights]
    for index in range(lat.size):
        levels = lat.node(index)
        failing = False
        for a, b in pairs:
            projection = list(top)
            projection[a], projection[b] = levels[a], levels[b]
            failing |= not plain.evaluate(lat.index(projection)).anonymous
        assert got[index] == (open_nodes[index] and not failing)
        if failing:
            assert not plain.evaluate(index).anonymous


def test_share_screen_needs_the_compiled_judge() -> None:
    frame = pl.DataFrame(
        {"q": ["x", "y"] * 4, "r": ["u", "u", "v", "v"] * 2, "s": list("abcd") * 2}
    )
    trees = [Hierarchy([[v, "*"] for v in vs], name=n) for n, vs in (("q", "xy"), ("r", "uv"))]
    table = get_engine("polars").count_detail(frame, ["q", "r"], trees, [SensitiveSpec("s")])
    models = [KAnonymity(2), EqualDistanceTCloseness("s", 0.3)]
    everything = np.ones(4, dtype=bool)
    limited = Evaluator(table, Lattice(table.heights), models, 0.25, "loss")
    assert compiled_screens.share_screens(limited, [(0, 1)], everything) is None
    ev = Evaluator(table, Lattice(table.heights), models, 0.0, "loss")
    with mock.patch.object(compiled_screens, "compiled_ready", lambda: False):
        assert compiled_screens.share_screens(ev, [(0, 1)], everything) is None
    assert compiled_screens.share_screens(ev, [(0, 1)], everything) is not None
    # a pair of many values each is left to the general screens
    with mock.patch.object(compiled_screens, "DENSE_TRIPLES", 15):
        assert compiled_screens.share_screens(ev, [(0, 1)], everything) is None
