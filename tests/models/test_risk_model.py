"""Average re-identification risk: golden case, the greedy is the fewest records, and its
monotonicity claims."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit.exceptions import EmptyDataError, ParameterError
from anonkit.models import AverageRisk, achieved_average_risk
from anonkit.models.base import ClassSummary


def summary(sizes) -> ClassSummary:
    arr = np.asarray(sizes, dtype=np.int64)
    return ClassSummary(arr, int(arr.sum()))


def suppressed(model: AverageRisk, sizes) -> int:
    s = summary(sizes)
    return int(s.sizes[model.violations(s)].sum())


def fewest_records(sizes, threshold: float) -> int:
    """Brute force over every set of classes to suppress."""
    best = sum(sizes)
    for r in range(len(sizes) + 1):
        for drop in itertools.combinations(range(len(sizes)), r):
            kept = [s for i, s in enumerate(sizes) if i not in drop]
            if not kept or len(kept) <= threshold * sum(kept) + 1e-9:
                best = min(best, sum(sizes) - sum(kept))
    return best


def test_hospital_average_risk() -> None:
    # seed 001's 4-anonymous release: 3 classes over 13 records
    s = summary([4, 4, 5])
    assert achieved_average_risk(s) == pytest.approx(3 / 13)
    assert not AverageRisk(0.25).violations(s).any()
    assert not AverageRisk(3 / 13).violations(s).any()  # at the threshold
    # 0.2: drop a class of 4 -> 2/9 > 0.2; drop both 4s -> 1/5 = 0.2
    assert AverageRisk(0.2).violations(s).tolist() == [True, True, False]


def test_smallest_first_and_ties_by_index() -> None:
    # 4/8 > 0.45; dropping one singleton (the first) leaves 3/7
    assert AverageRisk(0.45).violations(summary([3, 1, 1, 3])).tolist() == [
        False,
        True,
        False,
        False,
    ]


def test_everything_suppressed_when_nothing_else_helps() -> None:
    # every class a singleton: any kept record has risk 1
    assert AverageRisk(0.5).violations(summary([1, 1, 1])).tolist() == [True, True, True]
    assert not AverageRisk(1.0).violations(summary([1, 1, 1])).any()


@given(
    sizes=st.lists(st.integers(1, 9), min_size=1, max_size=7),
    threshold=st.sampled_from([0.1, 0.2, 0.25, 1 / 3, 0.4, 0.5, 0.75, 1.0]),
)
def test_greedy_suppresses_the_fewest_records(sizes, threshold) -> None:
    model = AverageRisk(threshold)
    s = summary(sizes)
    mask = model.violations(s)
    kept = s.sizes[~mask]
    assert kept.size == 0 or kept.size <= threshold * kept.sum() + 1e-9
    assert int(s.sizes[mask].sum()) == fewest_records(sizes, threshold)


@given(
    sizes=st.lists(st.integers(1, 9), min_size=2, max_size=9),
    threshold=st.sampled_from([0.1, 0.2, 0.25, 1 / 3, 0.5]),
    data=st.data(),
)
def test_generalizing_never_needs_more_suppression(sizes, threshold, data) -> None:
    # merge the classes into random groups (a generalization), as the flags claim
    groups = data.draw(
        st.lists(st.integers(0, len(sizes) - 1), min_size=len(sizes), max_size=len(sizes))
    )
    merged = np.bincount(groups, weights=sizes).astype(np.int64)
    merged = merged[merged > 0]
    model = AverageRisk(threshold)
    assert suppressed(model, merged) <= suppressed(model, sizes)  # monotone_suppression
    if suppressed(model, sizes) == 0:
        assert suppressed(model, merged) == 0  # monotone_generalization
    assert AverageRisk.monotone_suppression and AverageRisk.monotone_generalization


@pytest.mark.parametrize("threshold", [0, -0.5, 1.5, "0.2", float("nan")])
def test_bad_threshold(threshold) -> None:
    with pytest.raises(ParameterError, match="'threshold' parameter of AverageRisk"):
        AverageRisk(threshold)


def test_describe_and_empty() -> None:
    assert AverageRisk(0.05).describe() == "average re-identification risk <= 0.05"
    assert AverageRisk(0.05).violations(summary([])).tolist() == []
    with pytest.raises(EmptyDataError):
        achieved_average_risk(summary([]))
