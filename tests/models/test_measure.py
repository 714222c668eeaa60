"""Achieved levels measured on a summary: golden values, consistency with the models."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from model_helpers import HOSPITAL_QI, hospital_frame, single_column_summary, summary_from_frame

from anonkit.exceptions import EmptyDataError, ParameterError, UnknownColumnError
from anonkit.models import (
    BasicBetaLikeness,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    EqualDistanceTCloseness,
    KAnonymity,
    OrderedDistanceTCloseness,
    RecursiveCLDiversity,
    achieved_average_risk,
    achieved_beta,
    achieved_delta,
    achieved_distinct_l,
    achieved_entropy_l,
    achieved_k,
    achieved_recursive_c,
    achieved_t,
    failing_classes,
)
from anonkit.models.base import ClassSummary


@pytest.fixture
def hospital():
    return summary_from_frame(hospital_frame(), HOSPITAL_QI, ["Disease"])[0]


def test_hospital_levels(hospital) -> None:
    assert achieved_k(hospital) == 4
    assert achieved_distinct_l(hospital, "Disease") == 1
    assert achieved_entropy_l(hospital, "Disease") == 1.0
    assert achieved_recursive_c(hospital, "Disease", 1) == pytest.approx(1.0)  # 5 / 5
    assert achieved_t(hospital, "Disease") == pytest.approx(7 / 13)
    assert achieved_delta(hospital, "Disease") == pytest.approx(math.log(13 / 6))
    assert achieved_beta(hospital, "Disease") == pytest.approx(7 / 6)
    assert achieved_average_risk(hospital) == pytest.approx(3 / 13)
    # the failing classes of a requested level, by index (<30, [30,40), >40)
    assert failing_classes(hospital, DistinctLDiversity("Disease", 2)).tolist() == [1]
    assert failing_classes(hospital, KAnonymity(5)).tolist() == [0, 2]
    assert failing_classes(hospital, KAnonymity(4)).dtype == np.int64


def test_diverse_part_of_hospital() -> None:
    # the two diverse classes: Heart/Heart/Viral/Viral and Cancer/Heart/Viral/Viral
    s = single_column_summary(np.array([[0, 2, 2], [1, 1, 2]]))
    assert achieved_distinct_l(s, "s") == 2
    assert achieved_entropy_l(s, "s") == 2.0  # exp(ln 2), exactly
    assert achieved_recursive_c(s, "s", 2) == 1.0  # max(2/2, 2/2)
    assert achieved_recursive_c(s, "s", 3) == math.inf  # the first class has 2 values


@st.composite
def histograms(draw):
    m = draw(st.integers(1, 5))
    n = draw(st.integers(1, 6))
    rows = draw(
        st.lists(
            st.lists(st.integers(0, 5), min_size=m, max_size=m).filter(lambda r: sum(r) > 0),
            min_size=n,
            max_size=n,
        )
    )
    return np.array(rows)


@given(hist=histograms(), data=st.data())
def test_achieved_levels_are_the_boundary_of_the_models(hist, data) -> None:
    """A model holds at the achieved level (or just beyond it, for strict ones) and fails
    a little further; so measures and models share their definition."""
    s = single_column_summary(hist)
    eps = 1e-6
    k = achieved_k(s)
    assert not KAnonymity(k).violations(s).any() and KAnonymity(k + 1).violations(s).any()
    dl = achieved_distinct_l(s, "s")
    assert not DistinctLDiversity("s", dl).violations(s).any()
    assert DistinctLDiversity("s", dl + 1).violations(s).any()
    el = achieved_entropy_l(s, "s")
    assert not EntropyLDiversity("s", el).violations(s).any()
    assert EntropyLDiversity("s", el * (1 + eps)).violations(s).any()
    l = data.draw(st.integers(1, 3))  # noqa: E741
    c = achieved_recursive_c(s, "s", l)
    if math.isfinite(c):
        assert not RecursiveCLDiversity("s", c * (1 + eps), l).violations(s).any()
        assert RecursiveCLDiversity("s", c, l).violations(s).any()
    else:
        assert RecursiveCLDiversity("s", 1e9, l).violations(s).any()
    for distance, cls in (
        ("equal", EqualDistanceTCloseness),
        ("ordered", OrderedDistanceTCloseness),
    ):
        t = achieved_t(s, "s", distance)
        assert not cls("s", t).violations(s).any()
        if t > eps:
            assert cls("s", t - eps).violations(s).any()
    d = achieved_delta(s, "s")
    if d > 0:
        assert not DeltaDisclosure("s", d + eps).violations(s).any()
        assert DeltaDisclosure("s", d).violations(s).any()
    b = achieved_beta(s, "s")
    if b > 0:
        assert not BasicBetaLikeness("s", b).violations(s).any()
        assert BasicBetaLikeness("s", b * (1 - eps)).violations(s).any()


def test_errors(hospital) -> None:
    empty = ClassSummary(np.zeros(0, np.int64), 0)
    for measure in (achieved_k, achieved_average_risk):
        with pytest.raises(EmptyDataError):
            measure(empty)
    with pytest.raises(UnknownColumnError, match="'occupation'"):
        achieved_t(hospital, "occupation")
    with pytest.raises(ParameterError, match="'distance' parameter of achieved_t"):
        achieved_t(hospital, "Disease", "manhattan")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="'l' parameter"):
        achieved_recursive_c(hospital, "Disease", 0)
    with pytest.raises(ParameterError, match="'hierarchy' parameter"):
        achieved_t(hospital, "Disease", "hierarchical")
