"""Every privacy model through the full-domain searches, on random small tables.

Flash must find the exhaustive optimum for each model (monotone or not, with and without
suppression), and its release must satisfy the model by an independent plain-Python check
of the released table.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit import anonymize
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import PrivacyUnattainableError
from anonkit.metrics.generalization import METRICS
from anonkit.models import (
    AverageRisk,
    BasicBetaLikeness,
    DeltaDisclosure,
    DeltaPresence,
    DistinctLDiversity,
    EnhancedBetaLikeness,
    EntropyLDiversity,
    EqualDistanceTCloseness,
    HierarchicalTCloseness,
    KAnonymity,
    KMap,
    OrderedDistanceTCloseness,
    RecursiveCLDiversity,
)
from strategies import random_hierarchy

SENSITIVE = ["1", "2", "3", "5", "8"]  # numeric, so ordered distance applies
#: a two-level tree over the sensitive values, for hierarchical-distance t-closeness
GROUP = {"1": "low", "2": "low", "3": "low", "5": "high", "8": "high"}
SENSITIVE_TREE = Hierarchy([[v, GROUP[v], "*"] for v in SENSITIVE], name="s")


def _model(draw) -> object:
    kind = draw(
        st.sampled_from(
            [
                "distinct",
                "entropy",
                "recursive",
                "equal_t",
                "ordered_t",
                "hierarchical_t",
                "delta",
                "beta",
                "beta+",
            ]
        )
    )
    if kind == "distinct":
        return DistinctLDiversity("s", draw(st.integers(1, 3)))
    if kind == "entropy":
        return EntropyLDiversity("s", draw(st.sampled_from([1.5, 2, 2.5])))
    if kind == "recursive":
        return RecursiveCLDiversity("s", draw(st.sampled_from([1, 2, 3])), draw(st.integers(2, 3)))
    if kind == "equal_t":
        return EqualDistanceTCloseness("s", draw(st.sampled_from([0.2, 0.4, 0.6])))
    if kind == "ordered_t":
        return OrderedDistanceTCloseness("s", draw(st.sampled_from([0.15, 0.3, 0.5])))
    if kind == "hierarchical_t":
        t = draw(st.sampled_from([0.1, 0.2, 0.4]))
        return HierarchicalTCloseness("s", t, hierarchy=SENSITIVE_TREE)
    if kind == "delta":
        return DeltaDisclosure("s", draw(st.sampled_from([0.7, 1.2, 2.0])))
    if kind == "beta":
        return BasicBetaLikeness("s", draw(st.sampled_from([0.5, 1.0, 2.0])))
    return EnhancedBetaLikeness("s", draw(st.sampled_from([0.5, 1.0, 2.0])))


@st.composite
def problems(draw):
    q = draw(st.integers(2, 3))
    hs = [draw(random_hierarchy(f"q{j}", max_leaves=5)) for j in range(q)]
    n = draw(st.integers(2, 40))
    columns = {
        h.name: draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in hs
    }
    columns["s"] = draw(st.lists(st.sampled_from(SENSITIVE), min_size=n, max_size=n))
    frame = pl.DataFrame(columns)
    models = [_model(draw)]
    if draw(st.booleans()):
        models.append(KAnonymity(draw(st.integers(2, min(3, n)))))
    limit = draw(st.sampled_from([0.0, 0.1, 0.3]))
    metric = draw(st.sampled_from(sorted(METRICS)))
    return frame, hs, models, limit, metric


def _holds(model: object, hist: Counter, table: Counter, n: int) -> bool:
    """Whether one released class (its sensitive-value counter) satisfies ``model``,
    computed from the definitions, independently of anonkit.models."""
    size = sum(hist.values())
    p = {v: hist.get(v, 0) / size for v in SENSITIVE}
    q = {v: table.get(v, 0) / n for v in SENSITIVE}
    eps = 1e-9
    if isinstance(model, KAnonymity):
        return size >= model.k
    if isinstance(model, DistinctLDiversity):
        return len(hist) >= model.l
    if isinstance(model, EntropyLDiversity):
        h = -sum(c / size * math.log(c / size) for c in hist.values())
        return h >= math.log(model.l) - eps
    if isinstance(model, RecursiveCLDiversity):
        r = sorted(hist.values(), reverse=True)
        if len(r) < model.l:
            return False
        return r[0] < model.c * sum(r[model.l - 1 :]) + eps
    if isinstance(model, EqualDistanceTCloseness):
        return 0.5 * sum(abs(p[v] - q[v]) for v in SENSITIVE) <= model.t + eps
    if isinstance(model, OrderedDistanceTCloseness):
        present = [v for v in SENSITIVE if table.get(v, 0)]  # values the table holds
        acc, total = 0.0, 0.0
        for v in present:
            acc += p[v] - q[v]
            total += abs(acc)
        return (total / (len(present) - 1) if len(present) > 1 else 0.0) <= model.t + eps
    if isinstance(model, HierarchicalTCloseness):
        # Li et al. 2007: at each inner node of height h (tree height 2), the mass moved
        # between its children is min(positive, negative extra) at cost h / 2
        extra = {v: p[v] - q[v] for v in SENSITIVE}
        group = {g: sum(extra[v] for v in SENSITIVE if GROUP[v] == g) for g in ("low", "high")}
        emd = 0.0
        for g in ("low", "high"):
            kids = [extra[v] for v in SENSITIVE if GROUP[v] == g]
            emd += 0.5 * min(sum(x for x in kids if x > 0), -sum(x for x in kids if x < 0))
        kids = list(group.values())
        emd += 1.0 * min(sum(x for x in kids if x > 0), -sum(x for x in kids if x < 0))
        return emd <= model.t + eps
    if isinstance(model, DeltaDisclosure):
        return all(abs(math.log(p[v] / q[v])) < model.delta + eps for v in hist)
    if isinstance(model, (BasicBetaLikeness, EnhancedBetaLikeness)):
        for v in SENSITIVE:
            if q[v] == 0 or p[v] <= q[v]:
                continue
            cap = model.beta
            if isinstance(model, EnhancedBetaLikeness):
                cap = min(model.beta, -math.log(q[v]))
            if (p[v] - q[v]) / q[v] > cap + eps:
                return False
        return True
    raise AssertionError(model)


def _run(frame, hs, models, limit, metric, algorithm):
    # The property is the search's. A random sensitive column on a few records often
    # determines a quasi-identifier, which the leak check refuses (a LeakError before
    # either search is judged; tests/safety covers it).
    return anonymize(
        frame,
        quasi_identifiers=[h.name for h in hs],
        hierarchies={h.name: h for h in hs},
        privacy=models,
        suppression_limit=limit,
        metric=metric,
        algorithm=algorithm,
        leak_check=False,
    )


@given(problem=problems())
def test_flash_matches_exhaustive_and_release_satisfies_models(problem) -> None:
    frame, hs, models, limit, metric = problem
    try:
        oracle = _run(frame, hs, models, limit, metric, "exhaustive")
    except PrivacyUnattainableError:
        with pytest.raises(PrivacyUnattainableError):
            _run(frame, hs, models, limit, metric, "flash")
        return
    res = _run(frame, hs, models, limit, metric, "flash")
    assert math.isclose(res.metrics[metric], oracle.metrics[metric], rel_tol=1e-9, abs_tol=1e-12)
    assert dict(res.transformation) == dict(oracle.transformation)
    # the release satisfies every model, judged on the released table alone
    qi = [h.name for h in hs]
    rel = res.release
    table = Counter(frame["s"].to_list())
    classes: dict[tuple, Counter] = {}
    for row in rel.iter_rows(named=True):
        key = tuple(row[c] for c in qi)
        if all(v == "*" for v in key) and res.suppressed:
            continue
        classes.setdefault(key, Counter())[row["s"]] += 1
    for hist in classes.values():
        for model in models:
            assert _holds(model, hist, table, frame.height), (model, hist)
    assert res.suppressed <= math.floor(limit * frame.height + 1e-9)


@st.composite
def sample_problems(draw):
    q = draw(st.integers(2, 3))
    hs = [draw(random_hierarchy(f"q{j}", max_leaves=4)) for j in range(q)]
    m = draw(st.integers(2, 40))
    population = pl.DataFrame(
        {h.name: draw(st.lists(st.sampled_from(h.leaves), min_size=m, max_size=m)) for h in hs}
    )
    picks = draw(st.lists(st.booleans(), min_size=m, max_size=m))
    if not any(picks):
        picks[0] = True
    sample = population.filter(pl.Series(picks))
    kind = draw(st.sampled_from(["k_map", "presence", "risk"]))
    if kind == "k_map":
        model = KMap(draw(st.integers(1, 4)))
    elif kind == "presence":
        model = DeltaPresence(0.0, draw(st.sampled_from([0.5, 0.7, 1.0])))
    else:
        model = AverageRisk(draw(st.sampled_from([0.2, 0.5, 1.0])))
    limit = draw(st.sampled_from([0.0, 0.2]))
    metric = draw(st.sampled_from(sorted(METRICS)))
    return population, sample, hs, model, limit, metric


@given(problem=sample_problems())
def test_population_and_risk_models(problem) -> None:
    population, sample, hs, model, limit, metric = problem
    qi = [h.name for h in hs]

    def run(algorithm: str):
        return anonymize(
            sample,
            quasi_identifiers=qi,
            hierarchies={h.name: h for h in hs},
            privacy=[model],
            population=population,
            suppression_limit=limit,
            metric=metric,
            algorithm=algorithm,
        )

    try:
        oracle = run("exhaustive")
    except PrivacyUnattainableError:
        with pytest.raises(PrivacyUnattainableError):
            run("flash")
        return
    res = run("flash")
    assert math.isclose(res.metrics[metric], oracle.metrics[metric], rel_tol=1e-9, abs_tol=1e-12)
    levels = [res.transformation[c] for c in qi]

    def generalize(row) -> tuple:
        return tuple(h.rows[h.leaf_index(v)][lv] for h, v, lv in zip(hs, row, levels, strict=True))

    pop_counts = Counter(generalize(r) for r in population.select(qi).iter_rows())
    released = Counter(
        key
        for key in res.release.select(qi).iter_rows()
        if not (res.suppressed and all(v == "*" for v in key))
    )
    if isinstance(model, KMap):
        assert all(pop_counts[key] >= model.k for key in released)
    elif isinstance(model, DeltaPresence):
        assert all(
            size / pop_counts[key] <= model.delta_max + 1e-9 for key, size in released.items()
        )
    else:
        kept = sum(released.values())
        assert kept == 0 or len(released) / kept <= model.threshold + 1e-9


def _detailed_evaluator(frame, hs, models, limit, metric):
    from anonkit.algorithms.lattice import Evaluator
    from anonkit.core.lattice import Lattice
    from anonkit.engines.base import SensitiveSpec, get_engine

    spec = SensitiveSpec("s", SENSITIVE_TREE)
    table = get_engine("polars").count_detail(frame, [h.name for h in hs], hs, [spec])
    return Evaluator(table, Lattice(table.heights), models, limit, metric)


@given(problem=problems())
def test_size_screened_nodes_are_really_not_private(problem) -> None:
    # With ``track_forced`` (Flash on models not monotone under suppression) the evaluator
    # stops judging a node once the size-only screens force more suppression than the
    # limit; compare every node with a plain evaluator that judges everything.
    from anonkit.algorithms.lattice import Evaluator

    frame, hs, models, limit, metric = problem
    fast = _detailed_evaluator(frame, hs, models, limit, metric)
    fast.track_forced = True
    plain = Evaluator(fast.table, fast.lattice, models, limit, metric)
    for node in range(fast.lattice.size):
        quick, full = fast.evaluate(node), plain.evaluate(node)
        assert quick.anonymous == full.anonymous
        assert quick.forced_below <= full.suppressed
        assert quick.suppressed <= full.suppressed
        if quick.anonymous:
            assert quick.suppressed == full.suppressed and quick.cost == full.cost
        assert quick.bound == full.bound and quick.n_classes == full.n_classes


def test_probe_from_above_takes_the_coarsest_open_node_over_the_cheapest() -> None:
    # Not-monotone Flash, once a private node bounds the search: the open candidate with
    # the cheapest bound is settled from above, through the coarsest open node over it.
    from anonkit.algorithms.lattice.flash import _probe_from_above
    from anonkit.algorithms.lattice.search import NOT_ANONYMOUS, UNKNOWN

    def tree(name: str) -> Hierarchy:
        leaves = [f"{name}{i}" for i in range(8)]
        return Hierarchy(
            [[v, f"{name}-{i // 2}", f"{name}-{i // 4}x", "*"] for i, v in enumerate(leaves)],
            name=name,
        )

    hs = [tree("a"), tree("b")]
    frame = pl.DataFrame(
        {
            "a": [f"a{i % 8}" for i in range(64)],
            "b": [f"b{i // 8}" for i in range(64)],
            "s": [SENSITIVE[i % 2] for i in range(64)],
        }
    )
    ev = _detailed_evaluator(frame, hs, [EntropyLDiversity("s", 2)], 0.1, "loss")
    lattice = ev.lattice
    assert not ev.privacy_monotone
    status = np.full(lattice.size, UNKNOWN, dtype=np.int8)
    lower = ev.cost_model.node_bounds(lattice).copy()
    top = lattice.index([3, 3])

    # all open: the cheapest is the bottom and the coarsest node over it the top; the
    # top would roll up from the bottom, so the meet of the open nodes near it, (1, 1),
    # is rolled up first and becomes its source
    assert _probe_from_above(ev, status, lower, math.inf) == top
    assert not ev.rolls_up_from_bottom(top)
    assert ev.rolls_up_from_bottom(lattice.index([0, 3]))

    # the top ruled out: the coarsest open nodes are (2, 3) and (3, 2); the cheaper wins
    status[top] = NOT_ANONYMOUS
    pick = _probe_from_above(ev, status, lower, math.inf)
    pair = [lattice.index([2, 3]), lattice.index([3, 2])]
    assert pick == min(pair, key=lambda i: (lower[i], i))

    # a threshold leaves only nodes whose bound does not exceed it
    threshold = float(np.sort(lower)[3])
    pick = _probe_from_above(ev, status, lower, threshold)
    assert pick is not None and lower[pick] <= threshold
    cheapest = int(np.flatnonzero((status == UNKNOWN) & (lower <= threshold))[0])
    assert all(np.asarray(lattice.node(pick)) >= np.asarray(lattice.node(cheapest)))

    # nothing open
    assert _probe_from_above(ev, status, lower, -1.0) is None


@given(problem=problems())
def test_pair_screen_rules_out_only_nodes_that_are_not_private(problem) -> None:
    # The pair screen (prefilter.py) must never rule out a private node, and its
    # suppression floor must never exceed what suppression really adds to the cost.
    from anonkit.algorithms.lattice import Evaluator
    from anonkit.algorithms.lattice.prefilter import pair_screen

    frame, hs, models, limit, metric = problem
    screened = _detailed_evaluator(frame, hs, models, limit, metric)
    screened.track_forced = True
    screen = pair_screen(screened)
    plain = Evaluator(screened.table, screened.lattice, models, limit, metric)
    bounds = plain.cost_model.node_bounds(plain.lattice)
    for node in range(plain.lattice.size):
        res = plain.evaluate(node)
        if not res.anonymous:
            continue
        assert screen.passes[node], plain.lattice.node(node)
        if bounds is not None:
            gap = res.cost - bounds[node]
            assert screen.suppression_floor[node] <= gap + 1e-9 * max(1.0, abs(res.cost))


def test_pair_screen_skips_histograms_when_sizes_leave_few_nodes(monkeypatch) -> None:
    # No suppression and a k that leaves few nodes open: the size-only screen answers
    # alone, without sensitive histograms, and still rules out no private node.
    from anonkit.algorithms.lattice import Evaluator, prefilter

    hs = [Hierarchy([[f"{n}{i}", f"{n}{i // 2}x", "*"] for i in range(4)], name=n) for n in "abc"]
    frame = pl.DataFrame(
        {
            "a": [f"a{i % 4}" for i in range(48)],
            "b": [f"b{(i // 4) % 4}" for i in range(48)],
            "c": [f"c{(i // 16) % 3}" for i in range(48)],
            "s": [SENSITIVE[i % 3] for i in range(48)],
        }
    )
    models = [KAnonymity(20), DistinctLDiversity("s", 2)]
    ev = _detailed_evaluator(frame, hs, models, 0.0, "loss")

    def no_histograms(*args, **kwargs):
        raise AssertionError("histograms built")

    monkeypatch.setattr(prefilter, "_pair_histograms", no_histograms)
    screen = prefilter.pair_screen(ev)
    assert 0 < screen.passes.sum() * prefilter._FEW_OPEN <= ev.lattice.size
    for node in range(ev.lattice.size):
        if ev.evaluate(node).anonymous:
            assert screen.passes[node]
    # with suppression allowed, the floor is learned: the histograms are built
    priced = Evaluator(ev.table, ev.lattice, models, 0.1, "loss")
    with pytest.raises(AssertionError, match="histograms built"):
        prefilter.pair_screen(priced)


def test_average_risk_is_judged_on_the_classes_the_other_models_keep() -> None:
    """The search judged average risk on every class and OR-ed its choice with the other
    models': at (0, 0) beta-likeness gives up (a0, b1) and the three records left meet
    the risk, but the search also gave up (a0, b0), went over the limit, and returned a
    costlier node as the optimum."""
    frame = pl.DataFrame(
        {
            "a": ["a1", "a1", "a1", "a0", "a0"],
            "b": ["b1", "b1", "b1", "b0", "b1"],
            "s": ["v2", "v0", "v2", "v2", "v0"],
        }
    )
    hierarchies = {"a": [["a0", "*"], ["a1", "*"]], "b": [["b0", "*"], ["b1", "*"]]}
    models = [BasicBetaLikeness("s", 1.0), AverageRisk(0.5)]
    for algorithm in ("exhaustive", "flash"):
        res = anonymize(
            frame,
            quasi_identifiers=["a", "b"],
            hierarchies=hierarchies,
            sensitive=["s"],
            privacy=models,
            suppression_limit=0.3,
            algorithm=algorithm,
            leak_check=False,
        )
        assert dict(res.transformation) == {"a": 0, "b": 0}, algorithm
        assert res.suppressed == 1 and res.verified


def test_average_risk_with_beta_likeness_picks_a_node_its_verification_accepts() -> None:
    """Every full-domain search chose a node whose release failed anonkit's own
    verification ('Internal error ... report this as a bug')."""
    frame = pl.DataFrame({"a": ["a0", "a0", "a0", "a2", "a1"], "s": ["v1", "v0", "v0", "v0", "v0"]})
    for algorithm in ("flash", "exhaustive", "allmin", "datafly"):
        res = anonymize(
            frame,
            quasi_identifiers=["a"],
            hierarchies={"a": [["a0", "*"], ["a1", "*"], ["a2", "*"]]},
            sensitive=["s"],
            privacy=[AverageRisk(0.5), BasicBetaLikeness("s", beta=0.5)],
            suppression_limit=1.0,
            algorithm=algorithm,
            leak_check=False,
        )
        assert res.verified, algorithm


def test_samarati_finds_the_lowest_private_height_with_models_that_are_not_monotone() -> None:
    """Its bisection on height assumes monotone models: with recursive (c, l)-diversity
    and suppression it said no generalization exists (exhaustive finds one at height 0)."""
    frame = pl.DataFrame(
        {
            "a": ["a0", "a0", "a0", "a0"],
            "b": ["b1", "b0", "b1", "b1"],
            "s": ["v0", "v1", "v1", "v2"],
        }
    )
    keywords: dict[str, Any] = {
        "quasi_identifiers": ["a", "b"],
        "hierarchies": {"a": [["a0", "A0", "*"]], "b": [["b0", "*"], ["b1", "*"]]},
        "sensitive": ["s"],
        "leak_check": False,
        "privacy": [KAnonymity(2), RecursiveCLDiversity("s", c=1.0, l=2)],
        "suppression_limit": 0.5,
        "metric": "height",
    }
    exact = anonymize(frame, algorithm="exhaustive", **keywords)
    found = anonymize(frame, algorithm="samarati", **keywords)
    assert found.metrics["height"] == exact.metrics["height"] == 0
    assert found.verified


@pytest.mark.parametrize("algorithm", ["datafly", "topdown"])
def test_a_heuristic_that_finds_nothing_does_not_say_nothing_exists(algorithm: str) -> None:
    """Datafly and TopDown said 'No generalization satisfies ...' where exhaustive finds
    one: a heuristic's path proves nothing when the models are not monotone."""
    frame = pl.DataFrame(
        {
            "a": ["a1", "a2", "a1", "a1"],
            "b": ["b2", "b0", "b0", "b2"],
            "s": ["v0", "v0", "v2", "v1"],
        }
    )
    keywords: dict[str, Any] = {
        "quasi_identifiers": ["a", "b"],
        "hierarchies": {
            "a": [["a0", "A0", "*"], ["a1", "A1", "*"], ["a2", "A0", "*"]],
            "b": [["b0", "*"], ["b1", "*"], ["b2", "*"]],
        },
        "sensitive": ["s"],
        "leak_check": False,
        "privacy": [KAnonymity(1), RecursiveCLDiversity("s", c=1.0, l=2)],
        "suppression_limit": 0.5,
    }
    assert anonymize(frame, algorithm="exhaustive", **keywords).verified
    with pytest.raises(PrivacyUnattainableError) as err:
        anonymize(frame, algorithm=algorithm, **keywords)
    assert "No generalization satisfies" not in str(err.value)
    assert "found no generalization" in str(err.value) and "flash" in str(err.value)
