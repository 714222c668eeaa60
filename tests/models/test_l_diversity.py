"""ℓ-diversity: golden cases on the seed tables, parameters, definitions at the edges."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from model_helpers import HOSPITAL_QI, hospital_frame, single_column_summary, summary_from_frame

from anonkit.exceptions import ParameterError, UnknownColumnError
from anonkit.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
    achieved_distinct_l,
    achieved_entropy_l,
    achieved_recursive_c,
)
from anonkit.models.l_diversity import class_entropy, distinct_values, top_and_tail


@pytest.fixture
def hospital():
    """Seed 001's 4-anonymous release. Classes sorted by key: <30, [30,40), >40.

    Disease labels (sorted): Cancer, Heart, Viral.
    """
    summary, keys = summary_from_frame(hospital_frame(), HOSPITAL_QI, ["Disease"])
    assert [k.split("\x1f")[1] for k in keys] == ["<30", "[30,40)", ">40"]
    assert summary.sensitive["Disease"].histogram.tolist() == [[0, 2, 2], [5, 0, 0], [1, 1, 2]]
    return summary


def test_hospital_distinct(hospital) -> None:
    # Heart/Heart/Viral/Viral has 2 values, Cancer x5 has 1, Cancer/Heart/Viral/Viral has 3:
    # the homogeneity attack of seed 001 ("Bob has cancer") is the [30,40) class.
    assert DistinctLDiversity("Disease", l=2).violations(hospital).tolist() == [False, True, False]
    assert DistinctLDiversity("Disease", l=3).violations(hospital).tolist() == [True, True, False]
    assert achieved_distinct_l(hospital, "Disease") == 1


def test_hospital_entropy(hospital) -> None:
    # H = ln 2, 0, and -(1/4 ln 1/4 + 1/4 ln 1/4 + 1/2 ln 1/2) = 1.5 ln 2
    entropies = class_entropy(hospital.sensitive["Disease"].histogram)
    assert entropies == pytest.approx([math.log(2), 0.0, 1.5 * math.log(2)])
    assert EntropyLDiversity("Disease", l=2).violations(hospital).tolist() == [False, True, False]
    assert EntropyLDiversity("Disease", l=2.8).violations(hospital).tolist() == [True, True, False]
    assert EntropyLDiversity("Disease", l=2.9).violations(hospital).tolist() == [True, True, True]
    assert achieved_entropy_l(hospital, "Disease") == 1.0


def test_hospital_recursive(hospital) -> None:
    # r = (2, 2), (5), (2, 1, 1); l = 2: 2 < c*2, 5 < c*0, 2 < c*2
    model = RecursiveCLDiversity("Disease", c=2, l=2)
    assert model.violations(hospital).tolist() == [False, True, False]
    # c = 1 is the boundary of both diverse classes: r1 < c * tail is strict
    assert RecursiveCLDiversity("Disease", c=1, l=2).violations(hospital).tolist() == [
        True,
        True,
        True,
    ]
    assert RecursiveCLDiversity("Disease", c=1.01, l=2).violations(hospital).tolist() == [
        False,
        True,
        False,
    ]
    assert achieved_recursive_c(hospital, "Disease", 2) == math.inf


def test_li_table4_is_3_diverse(toy_dir) -> None:
    # Li et al. 2007 Table 4: the 3-diverse release of the Table 3 patients (test2.csv).
    frame = pd.read_csv(toy_dir / "test2.csv", sep=";", dtype=str)
    age = frame["Age"].astype(int)
    frame["group"] = np.where(
        age >= 40, "4790*|>=40", frame["ZIPCode"].str[:3] + "**|" + (age // 10).astype(str) + "*"
    )
    summary, keys = summary_from_frame(frame, ["group"], ["Disease"])
    assert keys == ["476**|2*", "476**|3*", "4790*|>=40"]
    assert DistinctLDiversity("Disease", l=3).violations(summary).tolist() == [False] * 3
    assert achieved_distinct_l(summary, "Disease") == 3
    assert achieved_entropy_l(summary, "Disease") == 3.0  # uniform over 3 values, exactly
    assert not EntropyLDiversity("Disease", l=3).violations(summary).any()
    assert EntropyLDiversity("Disease", l=3.0001).violations(summary).all()
    # each class has r = (1, 1, 1): r1 / (r_2 + r_3) = 1/2, r1 / r_3 = 1
    assert achieved_recursive_c(summary, "Disease", 2) == 0.5
    assert achieved_recursive_c(summary, "Disease", 3) == 1.0
    assert achieved_recursive_c(summary, "Disease", 4) == math.inf


def test_fewer_than_l_values_violates_recursive() -> None:
    # a class with 2 distinct values has an empty tail for l = 3, whatever c
    summary = single_column_summary(np.array([[5, 5, 0], [1, 1, 1]]))
    assert RecursiveCLDiversity("s", c=1000, l=3).violations(summary).tolist() == [True, False]


@given(
    hist=st.lists(st.lists(st.integers(0, 6), min_size=6, max_size=6), min_size=1, max_size=6),
    l=st.integers(1, 8),
)
def test_top_and_tail_against_sorting(hist, l) -> None:  # noqa: E741
    top, tail = top_and_tail(np.array(hist), l)
    for row, r1, rest in zip(hist, top.tolist(), tail.tolist(), strict=True):
        ordered = sorted(row, reverse=True)
        assert r1 == ordered[0] and rest == sum(ordered[l - 1 :])


def test_entropy_of_huge_classes(monkeypatch) -> None:
    import anonkit.models.l_diversity as module

    hist = np.array([[3, 1, 0], [2, 2, 2]])
    expected = class_entropy(hist)
    monkeypatch.setattr(module, "XLOGX_TABLE", 2)  # force the per-cell logarithm path
    assert class_entropy(hist) == pytest.approx(expected)
    assert class_entropy(np.array([[10**7, 10**7]])) == pytest.approx([math.log(2)])


def test_statistics_helpers() -> None:
    hist = np.array([[1, 5, 2, 2], [3, 3, 0, 0], [0, 0, 0, 7]])
    assert distinct_values(hist).tolist() == [4, 2, 1]
    top, tail = top_and_tail(hist, 2)
    assert top.tolist() == [5, 3, 7] and tail.tolist() == [5, 3, 0]
    top, tail = top_and_tail(hist, 1)
    assert tail.tolist() == [10, 6, 7]


@pytest.mark.parametrize(
    ("factory", "parameter"),
    [
        (lambda: DistinctLDiversity("s", l=0), "l"),
        (lambda: DistinctLDiversity("s", l=2.0), "l"),
        (lambda: DistinctLDiversity("s", l=True), "l"),
        (lambda: DistinctLDiversity("", l=2), "attribute"),
        (lambda: DistinctLDiversity(3, l=2), "attribute"),
        (lambda: EntropyLDiversity("s", l=0.5), "l"),
        (lambda: EntropyLDiversity("s", l=float("nan")), "l"),
        (lambda: EntropyLDiversity("s", l="3"), "l"),
        (lambda: RecursiveCLDiversity("s", c=0, l=2), "c"),
        (lambda: RecursiveCLDiversity("s", c=-1.0, l=2), "c"),
        (lambda: RecursiveCLDiversity("s", c=3, l=0), "l"),
    ],
)
def test_bad_parameters(factory, parameter) -> None:
    with pytest.raises(ParameterError) as info:
        factory()
    assert info.value.parameter == parameter
    assert f"'{parameter}' parameter of" in str(info.value)


def test_error_message_shape() -> None:
    with pytest.raises(
        ParameterError,
        match=r"^The 'l' parameter of DistinctLDiversity must be "
        r"an int >= 1\. Got 0 instead\.$",
    ):
        DistinctLDiversity("occupation", l=0)


def test_missing_sensitive_attribute_is_named(hospital) -> None:
    with pytest.raises(UnknownColumnError, match="'occupation'"):
        DistinctLDiversity("occupation", l=2).violations(hospital)


def test_describe_and_value_semantics() -> None:
    assert (
        DistinctLDiversity("occupation", l=3).describe() == "distinct 3-diversity of 'occupation'"
    )
    assert EntropyLDiversity("occupation", l=2.5).describe() == (
        "entropy 2.5-diversity of 'occupation'"
    )
    assert RecursiveCLDiversity("occupation", c=4, l=3).describe() == (
        "recursive (4, 3)-diversity of 'occupation'"
    )
    assert DistinctLDiversity("a", l=3) == DistinctLDiversity("a", l=3)
    assert len({DistinctLDiversity("a", l=3), DistinctLDiversity("a", l=3)}) == 1
    with pytest.raises(AttributeError):
        DistinctLDiversity("a", l=3).l = 4  # type: ignore[misc]
