"""δ-disclosure privacy and β-likeness: golden cases on the seed-001 release, edges."""

from __future__ import annotations

import math

import numpy as np
import pytest
from model_helpers import HOSPITAL_QI, hospital_frame, single_column_summary, summary_from_frame

from anonkit.exceptions import ParameterError
from anonkit.models import (
    BasicBetaLikeness,
    DeltaDisclosure,
    EnhancedBetaLikeness,
    achieved_beta,
    achieved_delta,
)
from anonkit.models.disclosure import disclosure_levels, enhanced_caps, relative_gains


@pytest.fixture
def hospital():
    # classes <30 [0,2,2], [30,40) [5,0,0], >40 [1,1,2] over (Cancer, Heart, Viral);
    # table shares p = (6, 3, 4) / 13
    return summary_from_frame(hospital_frame(), HOSPITAL_QI, ["Disease"])[0]


def test_hospital_delta_disclosure(hospital) -> None:
    levels = disclosure_levels(hospital.sensitive["Disease"])
    # <30: Heart 1/2 / (3/13) = 13/6; [30,40): Cancer 1 / (6/13) = 13/6;
    # >40: Cancer 1/4 / (6/13) = 13/24
    assert levels == pytest.approx([math.log(13 / 6), math.log(13 / 6), -math.log(13 / 24)])
    assert achieved_delta(hospital, "Disease") == pytest.approx(math.log(13 / 6))
    assert DeltaDisclosure("Disease", delta=0.7).violations(hospital).tolist() == [
        True,
        True,
        False,
    ]
    # strict inequality: delta equal to the level violates
    at = DeltaDisclosure("Disease", delta=math.log(13 / 6)).violations(hospital)
    assert at.tolist() == [True, True, False]
    assert not DeltaDisclosure("Disease", delta=0.78).violations(hospital).any()


def test_hospital_beta_likeness(hospital) -> None:
    gains = relative_gains(hospital.sensitive["Disease"])
    assert gains == pytest.approx(np.array([[0, 7 / 6, 5 / 8], [7 / 6, 0, 0], [0, 1 / 12, 5 / 8]]))
    assert achieved_beta(hospital, "Disease") == pytest.approx(7 / 6)
    assert BasicBetaLikeness("Disease", beta=1.0).violations(hospital).tolist() == [
        True,
        True,
        False,
    ]
    assert not BasicBetaLikeness("Disease", beta=7 / 6).violations(hospital).any()  # <= beta
    # enhanced caps -ln p: Cancer ln(13/6) = 0.773 < 7/6, the gain of the [30,40) class
    assert enhanced_caps(hospital.sensitive["Disease"]) == pytest.approx(
        [math.log(13 / 6), math.log(13 / 3), math.log(13 / 4)]
    )
    assert EnhancedBetaLikeness("Disease", beta=2.0).violations(hospital).tolist() == [
        False,
        True,
        False,
    ]
    assert EnhancedBetaLikeness("Disease", beta=1.0).violations(hospital).tolist() == [
        True,
        True,
        False,
    ]
    # no beta can satisfy enhanced beta-likeness here
    assert achieved_beta(hospital, "Disease", enhanced=True) == math.inf
    without = single_column_summary(
        hospital.sensitive["Disease"].histogram[[0, 2]], hospital.sensitive["Disease"].totals
    )
    assert achieved_beta(without, "s", enhanced=True) == pytest.approx(7 / 6)


def test_values_absent_from_a_class_are_not_judged() -> None:
    # p = (1/3, 1/3, 1/3); the class holds a and b only: ln(1.5) = 0.405 < 0.5
    s = single_column_summary(np.array([[2, 2, 0]]), np.array([1, 1, 1]))
    assert not DeltaDisclosure("s", delta=0.5).violations(s).any()
    assert achieved_delta(s, "s") == pytest.approx(math.log(1.5))


def test_delta_disclosure_is_not_monotone() -> None:
    # the docstring's counterexample: p(a) = p(b) = 1/2, delta = 1
    s = single_column_summary(np.array([[1, 1], [10, 0], [11, 1]]), np.array([12, 12]))
    assert DeltaDisclosure("s", delta=1.0).violations(s).tolist() == [False, False, True]
    assert DeltaDisclosure.monotone_generalization is False


def test_value_missing_from_totals_is_infinite() -> None:
    s = single_column_summary(np.array([[1, 1]]), np.array([2, 0]))
    assert achieved_delta(s, "s") == math.inf
    assert achieved_beta(s, "s") == math.inf


@pytest.mark.parametrize("cls", [DeltaDisclosure, BasicBetaLikeness, EnhancedBetaLikeness])
@pytest.mark.parametrize("value", [0, -1.0, float("nan"), "1", True])
def test_bad_parameters(cls, value) -> None:
    with pytest.raises(ParameterError, match="must be a real number > 0"):
        cls("s", value)


def test_describe() -> None:
    assert DeltaDisclosure("d", 1.5).describe() == "1.5-disclosure privacy of 'd'"
    assert BasicBetaLikeness("d", 2).describe() == "basic 2-likeness of 'd'"
    assert EnhancedBetaLikeness("d", 2).describe() == "enhanced 2-likeness of 'd'"
