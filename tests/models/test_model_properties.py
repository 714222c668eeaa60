"""Every model's violations() agree with an independent pandas groupby computation on
random small tables (plain-Python formulas per class; scipy's 1-D Wasserstein distance for
the ordered EMD; the edge-sum form of the tree EMD for the hierarchical one)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from model_helpers import SEP, summary_from_frame

from anonkit.core.hierarchy import Hierarchy
from anonkit.models import (
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

try:  # scipy's 1-D Wasserstein distance when available (it comes with scikit-learn)
    from scipy.stats import wasserstein_distance
except ImportError:  # pragma: no cover - a plain-Python transport along the line instead
    wasserstein_distance = None

VALUES = ["1", "2", "3", "10", "20"]  # numeric labels: "10" < "2" alphabetically, not here
#: a fixed 3-level hierarchy over VALUES
TREE = Hierarchy(
    [
        ["1", "low", "small", "*"],
        ["2", "low", "small", "*"],
        ["3", "mid", "small", "*"],
        ["10", "high", "large", "*"],
        ["20", "high", "large", "*"],
    ]
)
NEAR = 1e-7  # classes this close to the bound are not compared (rounding decides them)


@st.composite
def tables(draw):
    n = draw(st.integers(4, 40))
    rows = draw(
        st.lists(
            st.tuples(st.sampled_from("ab"), st.sampled_from("xyz"), st.sampled_from(VALUES)),
            min_size=n,
            max_size=n,
        )
    )
    return pd.DataFrame(rows, columns=["q1", "q2", "s"])


QI = ["q1", "q2"]


def _groups(frame: pd.DataFrame):
    shares = frame["s"].value_counts(normalize=True).to_dict()
    for key, group in frame.groupby(QI):
        counts = group["s"].value_counts().to_dict()
        yield SEP.join(key), counts, len(group), shares


def _entropy(counts, n):
    return -sum(c / n * math.log(c / n) for c in counts.values())


def _equal(counts, n, shares):
    return 0.5 * sum(abs(counts.get(v, 0) / n - p) for v, p in shares.items())


def _ordered(counts, n, shares):
    domain = sorted(shares, key=float)
    pos = np.arange(len(domain), dtype=float)
    if len(domain) == 1:
        return 0.0
    p = [counts.get(v, 0) / n for v in domain]
    q = [shares[v] for v in domain]
    if wasserstein_distance is not None:
        return wasserstein_distance(pos, pos, p, q) / (len(domain) - 1)
    carried, work = 0.0, 0.0  # mass carried from each value to the next one
    for pi, qi in zip(p, q, strict=True):
        carried += pi - qi
        work += abs(carried)
    return work / (len(domain) - 1)


def _tree_edges(counts, n, shares):
    """EMD on a tree metric = sum over edges of weight * |mass below the edge|."""
    height = TREE.max_level
    total = 0.0
    for level in range(height):  # edges from level to level + 1, each of weight 1/(2H)
        extra: dict[str, float] = {}
        for v, p in shares.items():
            node = TREE.generalize(v, level)
            extra[node] = extra.get(node, 0.0) + counts.get(v, 0) / n - p
        total += sum(abs(x) for x in extra.values()) / (2 * height)
    return total


def _reference(model, counts, n, shares):
    """(value, bound, strict): the class violates iff value > bound (>= when strict)."""
    if isinstance(model, DistinctLDiversity):
        return -len(counts), -model.l, False
    if isinstance(model, EntropyLDiversity):
        return -_entropy(counts, n), -math.log(model.l), False
    if isinstance(model, RecursiveCLDiversity):
        r = sorted(counts.values(), reverse=True)
        return r[0], model.c * sum(r[model.l - 1 :]), True
    if isinstance(model, EqualDistanceTCloseness):
        return _equal(counts, n, shares), model.t, False
    if isinstance(model, OrderedDistanceTCloseness):
        return _ordered(counts, n, shares), model.t, False
    if isinstance(model, HierarchicalTCloseness):
        return _tree_edges(counts, n, shares), model.t, False
    if isinstance(model, DeltaDisclosure):
        return max(abs(math.log(c / n / shares[v])) for v, c in counts.items()), model.delta, True
    gains = {v: (c / n - shares[v]) / shares[v] for v, c in counts.items() if c / n > shares[v]}
    if isinstance(model, BasicBetaLikeness):
        return max(gains.values(), default=0.0), model.beta, False
    if isinstance(model, EnhancedBetaLikeness):
        worst = max(
            (g - min(model.beta, -math.log(shares[v])) for v, g in gains.items()), default=-1.0
        )
        return worst, 0.0, False
    raise AssertionError(model)


T_VALUES = st.sampled_from([0.05, 0.1, 0.2, 0.3, 0.5])
MODEL_STRATEGIES = {
    "distinct": st.builds(DistinctLDiversity, st.just("s"), st.integers(1, 4)),
    "entropy": st.builds(EntropyLDiversity, st.just("s"), st.sampled_from([1, 1.5, 2, 2.5, 3])),
    "recursive": st.builds(
        RecursiveCLDiversity, st.just("s"), st.sampled_from([0.5, 1, 1.5, 2, 3]), st.integers(1, 3)
    ),
    "equal_t": st.builds(EqualDistanceTCloseness, st.just("s"), T_VALUES),
    "ordered_t": st.builds(OrderedDistanceTCloseness, st.just("s"), T_VALUES),
    "hierarchical_t": st.builds(HierarchicalTCloseness, st.just("s"), T_VALUES, st.just(TREE)),
    "delta": st.builds(DeltaDisclosure, st.just("s"), st.sampled_from([0.2, 0.5, 1, 2])),
    "basic_beta": st.builds(BasicBetaLikeness, st.just("s"), st.sampled_from([0.2, 0.5, 1, 2, 4])),
    "enhanced_beta": st.builds(
        EnhancedBetaLikeness, st.just("s"), st.sampled_from([0.2, 0.5, 1, 2, 4])
    ),
}


@pytest.mark.parametrize("name", list(MODEL_STRATEGIES))
@given(data=st.data())
def test_sensitive_models_agree_with_pandas(name, data) -> None:
    frame = data.draw(tables())
    model = data.draw(MODEL_STRATEGIES[name])
    summary, keys = summary_from_frame(frame, QI, ["s"])
    got = dict(zip(keys, model.violations(summary).tolist(), strict=True))
    assert len(got) == frame.groupby(QI).ngroups
    for key, counts, n, shares in _groups(frame):
        value, bound, strict = _reference(model, counts, n, shares)
        if abs(value - bound) < NEAR * max(1.0, abs(bound)):
            continue
        assert got[key] == (value >= bound if strict else value > bound), (model, key, counts)


@given(frame=tables(), k=st.integers(1, 6))
def test_k_anonymity_agrees_with_pandas(frame, k) -> None:
    summary, keys = summary_from_frame(frame, QI)
    sizes = frame.groupby(QI).size()
    expected = {SEP.join(key): size < k for key, size in sizes.items()}
    assert dict(zip(keys, KAnonymity(k).violations(summary).tolist(), strict=True)) == expected


@given(
    frame=tables(),
    extra=st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("xyz")), max_size=60),
    k=st.integers(1, 12),
    bounds=st.sampled_from([(0.0, 1.0), (0.1, 0.5), (0.25, 0.75), (0.5, 1.0), (0.0, 0.3)]),
)
def test_population_models_agree_with_pandas(frame, extra, k, bounds) -> None:
    population = pd.concat(
        [frame[QI], pd.DataFrame(extra, columns=QI)], ignore_index=True
    )  # the sample is part of the population
    summary, keys = summary_from_frame(frame, QI, population=population)
    pop = population.groupby(QI).size()
    smp = frame.groupby(QI).size()
    got_map = dict(zip(keys, KMap(k).violations(summary).tolist(), strict=True))
    got_presence = dict(zip(keys, DeltaPresence(*bounds).violations(summary).tolist(), strict=True))
    for key, size in smp.items():
        name = SEP.join(key)
        assert got_map[name] == (pop[key] < k)
        share = size / pop[key]
        assert got_presence[name] == (not bounds[0] <= share <= bounds[1])
