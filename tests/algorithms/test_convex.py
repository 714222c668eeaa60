"""The convexity bounds of ``lattice/convex.py`` hold for every way of splitting a class.

A coarse class is a union of finer classes. For each model the bound says that at least
``share * size`` of the coarse class's records lie in finer classes that violate the
model; the tests split random classes at random and count, and compare the bound with the
exact optimum: the largest part of a class (any sub-multiset of its records) that
satisfies the model, found by enumerating every part.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.algorithms.lattice.convex import (
    emd_capped_share,
    entropy_capped_share,
    judge_classes,
    records_suppressed_below,
    recursive_capped_share,
    violating_shares,
)
from anonkit.core.hierarchy import Hierarchy
from anonkit.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    EqualDistanceTCloseness,
    KAnonymity,
    OrderedDistanceTCloseness,
    RecursiveCLDiversity,
)
from anonkit.models.base import ClassSummary, SensitiveColumn
from anonkit.models.l_diversity import class_entropy
from anonkit.models.t_closeness import HierarchicalTCloseness

LABELS = ("a", "b", "c", "d")
TREE = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]], name="s")


def _summary(hist: np.ndarray, totals: np.ndarray) -> ClassSummary:
    column = SensitiveColumn("s", LABELS, hist, totals, TREE)
    return ClassSummary(hist.sum(axis=1), int(totals.sum()), {"s": column})


MODELS = st.one_of(
    st.builds(KAnonymity, st.integers(2, 6)),
    st.builds(DistinctLDiversity, st.just("s"), st.integers(2, 4)),
    st.builds(EntropyLDiversity, st.just("s"), st.sampled_from([1.5, 2, 3])),
    st.builds(
        RecursiveCLDiversity, st.just("s"), st.sampled_from([0.5, 1, 2, 3]), st.integers(2, 4)
    ),
    st.builds(EqualDistanceTCloseness, st.just("s"), st.sampled_from([0.1, 0.25, 0.5])),
    st.builds(OrderedDistanceTCloseness, st.just("s"), st.sampled_from([0.1, 0.25, 0.5])),
    st.builds(
        HierarchicalTCloseness,
        st.just("s"),
        st.sampled_from([0.1, 0.25, 0.5]),
        hierarchy=st.just(TREE),
    ),
)


@settings(max_examples=300)
@given(
    st.lists(
        st.lists(st.integers(0, 6), min_size=4, max_size=4).filter(lambda h: sum(h) > 0),
        min_size=1,
        max_size=12,
    ),
    st.data(),
    MODELS,
)
def test_violating_share_is_a_lower_bound(fine, data, model) -> None:
    fine_hist = np.array(fine, dtype=np.int64)
    n_fine = fine_hist.shape[0]
    coarse_of = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n_fine, max_size=n_fine)))
    _, coarse_of = np.unique(coarse_of, return_inverse=True)
    n_coarse = int(coarse_of.max()) + 1
    coarse_hist = np.zeros((n_coarse, 4), dtype=np.int64)
    np.add.at(coarse_hist, coarse_of, fine_hist)
    totals = fine_hist.sum(axis=0)
    share = violating_shares(model, _summary(coarse_hist, totals))
    assert share is not None
    fine_summary = _summary(fine_hist, totals)
    violating = np.asarray(model.violations(fine_summary), dtype=bool)
    in_violating = np.bincount(
        coarse_of, weights=fine_summary.sizes * violating, minlength=n_coarse
    )
    sizes = coarse_hist.sum(axis=1)
    assert np.all(in_violating >= share * sizes - 1e-9), (share, in_violating, sizes)
    forced = records_suppressed_below([model], _summary(coarse_hist, totals))
    assert forced <= in_violating.sum() + 1e-9
    # one pass per model gives the model's own verdicts and the same bound
    for summary in (fine_summary, _summary(coarse_hist, totals)):
        mask, bound = judge_classes([model, KAnonymity(2)], summary)
        expected = model.violations(summary) | KAnonymity(2).violations(summary)
        assert np.array_equal(mask, expected)
        assert bound == records_suppressed_below([model, KAnonymity(2)], summary)


def test_recursive_share_by_hand() -> None:
    # counts 6, 2, 1, 1 with (c, l) = (2, 3): tail 2, 6 >= 2 * 2 violates, f = (6 - 4) / 10
    hist = np.array([[6, 2, 1, 1]])
    share = violating_shares(RecursiveCLDiversity("s", 2, 3), _summary(hist, hist[0]))
    assert share is not None and np.allclose(share, [0.2])


SHARE_MODELS = MODELS.filter(lambda m: not isinstance(m, (KAnonymity, DistinctLDiversity)))


@settings(max_examples=300)
@given(
    st.lists(st.integers(0, 5), min_size=4, max_size=4).filter(lambda c: sum(c) > 0),
    st.lists(st.integers(0, 12), min_size=4, max_size=4),
    SHARE_MODELS,
)
def test_share_never_exceeds_the_exact_optimum(counts, extra, model) -> None:
    # Every part of the class is a possible union of satisfying finer classes.
    hist = np.array([counts], dtype=np.int64)
    totals = hist[0] + np.array(extra, dtype=np.int64)
    share = violating_shares(model, _summary(hist, totals))
    assert share is not None
    parts = np.array(list(itertools.product(*(range(c + 1) for c in counts))), dtype=np.int64)
    parts = parts[parts.sum(axis=1) > 0]
    satisfying = ~np.asarray(model.violations(_summary(parts, totals)), dtype=bool)
    largest = int(parts[satisfying].sum(axis=1).max()) if satisfying.any() else 0
    size = int(hist.sum())
    assert share[0] * size <= size - largest + 1e-9, (share, largest, size)


def test_capped_bounds_by_hand() -> None:
    # counts 9, 1 and entropy l = 2: at most 1 + 1 records can be 2-diverse (the bisection
    # stops near 0.8 on the safe side, which still counts 8 whole records)
    share = entropy_capped_share(np.array([[9, 1]]), math.log(2))[0]
    assert 0.79 < share <= 0.8 and math.ceil(share * 10 - 1e-9) == 8
    # too few distinct values: nothing can satisfy
    assert entropy_capped_share(np.array([[5, 5, 0]]), math.log(3)).tolist() == [1.0]
    # (c, l) = (2, 3), counts 6, 2, 1, 1: capping 6 at 2 * (1 + 1) keeps 8 of 10
    assert recursive_capped_share(np.array([[6, 2, 1, 1]]), 2.0, 3) == pytest.approx([0.2])
    # equal distance, table (0.3, 0.7), t = 0.2: a t-close part needs >= 50 % of value 2,
    # so a 60/40 class keeps at most 0.4 / 0.5 of its records
    table, ones = np.array([0.3, 0.7]), np.ones(2)
    assert emd_capped_share(np.array([[0.6, 0.4]]), table, ones, 0.2) == pytest.approx([0.2])
    assert emd_capped_share(np.array([[1.0, 0.0]]), table, ones, 0.2).tolist() == [1.0]
    assert emd_capped_share(np.zeros((0, 2)), table, ones, 0.2).shape == (0,)


def test_capped_bounds_beat_the_plain_convexity_bounds() -> None:
    # A class with counts 9, 1 (table 50/50) under entropy l = 2: the plain bound
    # 1 - H / ln 2 = 0.53 gives 6 records, the capped one 8.
    hist = np.array([[9, 1]])
    model = EntropyLDiversity("s", 2)
    summary = ClassSummary(
        hist.sum(axis=1), 20, {"s": SensitiveColumn("s", ("a", "b"), hist, np.array([10, 10]))}
    )
    share = violating_shares(model, summary)
    assert share is not None
    assert math.ceil(share[0] * 10 - 1e-9) == 8
    plain = 1 - float(class_entropy(hist)[0]) / math.log(2)
    assert math.ceil(plain * 10 - 1e-9) == 6
