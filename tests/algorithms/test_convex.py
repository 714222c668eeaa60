"""The convexity bounds of ``lattice/convex.py`` hold for every way of splitting a class.

A coarse class is a union of finer classes. For each model the bound says that at least
``share * size`` of the coarse class's records lie in finer classes that violate the
model; the tests split random classes at random and count.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.algorithms.lattice.convex import (
    judge_classes,
    records_suppressed_below,
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
