"""The ``loss`` metric's aggregation over attributes: arithmetic or geometric, weighted.

The oracle prices each attribute alone with the reference function
:func:`anonkit.metrics.generalization.generalized_loss` (a one-column summary) and combines
the values by the formulas written out here; the search's cost model must agree on every
node, and Flash must find the exhaustive optimum under every aggregate.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit import anonymize
from anonkit.algorithms.lattice import Evaluator, Exhaustive, Flash
from anonkit.core.lattice import Lattice
from anonkit.engines.base import SensitiveSpec, get_engine
from anonkit.estimators import FullDomain, Privacy
from anonkit.exceptions import ParameterError
from anonkit.metrics.generalization import NodeSummary, generalized_loss
from anonkit.metrics.node_metrics import aggregation
from anonkit.models import EntropyLDiversity, KAnonymity, RecursiveCLDiversity
from strategies import random_hierarchy

SENSITIVE = ["1", "2", "3", "5"]


@st.composite
def options(draw, q: int) -> dict:
    kind = draw(st.sampled_from(["arithmetic", "geometric"]))
    weights = {
        f"q{j}": draw(st.sampled_from([0.0, 0.5, 1.0, 3.0]))
        for j in range(q)
        if draw(st.booleans())
    }
    if weights and not any(weights.values()) and len(weights) == q:
        weights["q0"] = 1.0
    return {"aggregate": kind, "weights": weights}


@st.composite
def problems(draw, detailed: bool = False):
    q = draw(st.integers(2, 3))
    hs = [draw(random_hierarchy(f"q{j}", max_leaves=5)) for j in range(q)]
    n = draw(st.integers(2, 40))
    columns = {
        h.name: draw(st.lists(st.sampled_from(h.leaves), min_size=n, max_size=n)) for h in hs
    }
    if detailed:
        columns["s"] = draw(st.lists(st.sampled_from(SENSITIVE), min_size=n, max_size=n))
        models: list = [
            draw(
                st.sampled_from(
                    [
                        EntropyLDiversity("s", 1.5),
                        EntropyLDiversity("s", 2),
                        RecursiveCLDiversity("s", 2, 2),
                    ]
                )
            )
        ]
        if draw(st.booleans()):
            models.append(KAnonymity(2))
    else:
        models = [KAnonymity(draw(st.integers(1, min(5, n))))]
    limit = draw(st.sampled_from([0.0, 0.1, 0.3]))
    return pl.DataFrame(columns), hs, models, limit, draw(options(q))


def _evaluator(frame, hs, models, limit, opts) -> Evaluator:
    qi = [h.name for h in hs]
    engine = get_engine("polars")
    if "s" in frame.columns:
        table = engine.count_detail(frame, qi, hs, [SensitiveSpec("s", None)])
    else:
        table = engine.count(frame, qi, hs)
    return Evaluator(table, Lattice(table.heights), models, limit, "loss", metric_options=opts)


def _oracle(summary: NodeSummary, opts: dict) -> float:
    q = len(summary.levels)
    per = []
    for j in range(q):
        one = NodeSummary(
            levels=summary.levels[j : j + 1],
            hierarchies=summary.hierarchies[j : j + 1],
            codes=summary.codes[:, j : j + 1],
            sizes=summary.sizes,
            suppressed=summary.suppressed,
            value_counts=summary.value_counts[j : j + 1],
        )
        per.append(generalized_loss(one))
    raw = [float(opts["weights"].get(f"q{j}", 1.0)) for j in range(q)]
    a = [w / sum(raw) for w in raw]
    if opts["aggregate"] == "geometric":
        return math.prod((1 + v) ** w for v, w in zip(per, a, strict=True)) - 1
    return sum(v * w for v, w in zip(per, a, strict=True))


@given(problem=problems())
def test_cost_model_matches_the_per_attribute_oracle_on_every_node(problem) -> None:
    frame, hs, models, limit, opts = problem
    ev = _evaluator(frame, hs, models, limit, opts)
    bounds = ev.cost_model.node_bounds(ev.lattice)
    assert bounds is not None
    for i in range(ev.lattice.size):
        res = ev.evaluate(i)
        if not res.anonymous:
            continue
        expected = _oracle(ev.summary(i), opts)
        assert math.isclose(res.cost, expected, rel_tol=1e-9, abs_tol=1e-12)
        # the lower bound of the node holds, and is exact without suppression
        assert bounds[i] <= res.cost + 1e-12
        assert math.isclose(res.bound, bounds[i], rel_tol=1e-9, abs_tol=1e-12)
        if res.suppressed == 0:
            assert math.isclose(bounds[i], res.cost, rel_tol=1e-9, abs_tol=1e-12)


@given(problem=problems())
def test_flash_equals_exhaustive_with_k_anonymity(problem) -> None:
    frame, hs, models, limit, opts = problem
    oracle_ev = _evaluator(frame, hs, models, limit, opts)
    oracle = Exhaustive().search(oracle_ev)
    flash = Flash().search(_evaluator(frame, hs, models, limit, opts))
    assert math.isclose(flash.cost, oracle.cost, rel_tol=1e-9, abs_tol=1e-12)
    assert flash.levels == oracle.levels


@settings(max_examples=60)
@given(problem=problems(detailed=True))
def test_flash_equals_exhaustive_with_non_monotone_models(problem) -> None:
    frame, hs, models, limit, opts = problem
    from anonkit.exceptions import PrivacyUnattainableError

    try:
        oracle = Exhaustive().search(_evaluator(frame, hs, models, limit, opts))
    except PrivacyUnattainableError:
        with pytest.raises(PrivacyUnattainableError):
            Flash().search(_evaluator(frame, hs, models, limit, opts))
        return
    flash = Flash().search(_evaluator(frame, hs, models, limit, opts))
    assert math.isclose(flash.cost, oracle.cost, rel_tol=1e-9, abs_tol=1e-12)
    assert flash.levels == oracle.levels


def test_geometric_never_exceeds_arithmetic_and_equal_weights_are_plain() -> None:
    a = aggregation("loss", {"aggregate": "arithmetic"}, ["x", "y"])
    g = aggregation("loss", {"aggregate": "geometric"}, ["x", "y"])
    assert a is not None and a.plain and g is not None and not g.plain
    v = np.array([[0.0, 1.0], [0.2, 0.4], [0.3, 0.3]])
    assert np.all(g.combine(v) <= a.combine(v) + 1e-15)
    # ARX's formula with equal weights: prod(1 + v_i) ** (1 / n) - 1
    assert math.isclose(float(g.combine(v[1])), (1.2 * 1.4) ** 0.5 - 1)
    assert aggregation("loss", None, ["x"]) is None


@pytest.mark.parametrize(
    ("metric", "opts", "match"),
    [
        ("height", {"aggregate": "geometric"}, "only 'loss'"),
        ("loss", {"aggregate": "harmonic"}, "'arithmetic' or 'geometric'"),
        ("loss", {"aggregation": "geometric"}, "keys among aggregate, weights"),
        ("loss", {"weights": {"z": 1.0}}, "keyed by quasi-identifiers"),
        ("loss", {"weights": {"x": -1.0}}, r"weights\['x'\]"),
        ("loss", {"weights": {"x": 0, "y": 0}}, "positive sum"),
        ("loss", {"weights": ["x"]}, "mapping of quasi-identifier"),
    ],
)
def test_bad_options_name_the_parameter(metric: str, opts: dict, match: str) -> None:
    with pytest.raises(ParameterError, match=match):
        aggregation(metric, opts, ["x", "y"], "FullDomain")


ADULTISH = pl.DataFrame(
    {
        "age": ["21", "22", "35", "36", "51", "52", "23", "37"],
        "sex": ["m", "f", "m", "f", "m", "f", "f", "m"],
        "zip": ["101", "102", "101", "102", "201", "202", "101", "201"],
    }
)
SPECS = {
    "age": {"type": "intervals", "widths": [10, 20, 40]},
    "zip": {"type": "masking"},
}


def test_api_and_estimator_take_metric_options_and_report_the_objective() -> None:
    opts = {"aggregate": "geometric", "weights": {"age": 2.0}}
    res = anonymize(
        ADULTISH,
        quasi_identifiers=["age", "sex", "zip"],
        hierarchies=SPECS,
        k=2,
        algorithm="flash",
        metric_options=opts,
    )
    objective = res.details["objective"]
    assert objective["aggregate"] == "geometric"
    assert objective["weights"] == pytest.approx({"age": 0.5, "sex": 0.25, "zip": 0.25})
    assert objective["metric"] == "loss"
    est = FullDomain("flash", privacy=Privacy(KAnonymity(2)), metric_options=opts).fit(
        ADULTISH, quasi_identifiers=["age", "sex", "zip"], hierarchies=SPECS
    )
    assert est.result_.details["objective"]["value"] == pytest.approx(objective["value"])
    # evaluate_levels prices with the same objective
    node = est.evaluate_levels(dict(est.transformation_))
    assert node.cost == pytest.approx(objective["value"])


def test_streaming_engine_minimizes_the_same_objective() -> None:
    """The streamed fit passes ``metric_options`` to the search: same node, same value."""
    opts = {"aggregate": "geometric", "weights": {"age": 2.0}}
    fits = [
        FullDomain("flash", privacy=Privacy(KAnonymity(2)), engine=engine, metric_options=opts).fit(
            frame, quasi_identifiers=["age", "sex", "zip"], hierarchies=SPECS
        )
        for engine, frame in (("polars", ADULTISH), ("streaming", ADULTISH.lazy()))
    ]
    memory, streamed = (f.result_ for f in fits)
    assert streamed.transformation == memory.transformation
    a, b = memory.details["objective"], streamed.details["objective"]
    assert b["value"] == pytest.approx(a["value"])
    assert (b["aggregate"], b["weights"]) == (a["aggregate"], a["weights"])


def test_toml_search_metric_options_reach_anonymize(tmp_path) -> None:
    from anonkit.config import load_config

    ADULTISH.write_csv(tmp_path / "in.csv")
    (tmp_path / "run.toml").write_text(
        'input = "in.csv"\n'
        "[attributes]\n"
        'quasi_identifiers = ["age", "sex", "zip"]\n'
        "[privacy]\nk = 2\n"
        "[search]\n"
        'algorithm = "flash"\n'
        'metric_options = { aggregate = "geometric", weights = { age = 2.0 } }\n'
    )
    config = load_config(tmp_path / "run.toml")
    kwargs = config.anonymize_kwargs()
    assert kwargs["metric_options"] == {"aggregate": "geometric", "weights": {"age": 2.0}}
