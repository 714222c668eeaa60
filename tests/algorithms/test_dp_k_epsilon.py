"""The Laplace noise of (k, ε)-anonymity: the scale is the class range over ε."""

from __future__ import annotations

import math

import numpy as np
import pytest

from anonkit.algorithms.dp.k_epsilon import class_ranges, laplace_within_classes
from anonkit.exceptions import ParameterError


def test_class_ranges_are_per_class_min_and_max() -> None:
    lo, hi = class_ranges(np.array([5.0, 1.0, 9.0, 2.0]), np.array([0, 0, 1, 1]))
    assert lo.tolist() == [1.0, 1.0, 2.0, 2.0] and hi.tolist() == [5.0, 5.0, 9.0, 9.0]


@pytest.mark.parametrize("eps", [0.5, 1.0, 4.0])
def test_noise_scale_is_the_class_range_over_epsilon(eps: float) -> None:
    """Without clipping the noise is Laplace(0, width / ε): its mean absolute value is the
    scale (the sensitivity of a value within the class is the class's width)."""
    rng = np.random.default_rng(42)
    n = 40_000
    values = np.where(np.arange(n) % 2 == 0, 10.0, 30.0)  # two classes of widths 20 and 0
    values[1::2] = np.linspace(0.0, 5.0, n // 2)  # class 1: width 5
    class_of = (np.arange(n) % 2).astype(np.int64)
    out = laplace_within_classes(values, class_of, epsilon=eps, rng=rng, clip=False)
    noise = out - values
    for c, width in ((0, 0.0), (1, 5.0)):
        scale = width / eps
        observed = float(np.abs(noise[class_of == c]).mean())
        assert math.isclose(observed, scale, rel_tol=0.05, abs_tol=1e-12)


def test_clipped_values_stay_in_their_class_range() -> None:
    rng = np.random.default_rng(1)
    values = rng.uniform(0, 100, 1000)
    class_of = (np.arange(1000) // 10).astype(np.int64)
    out = laplace_within_classes(values, class_of, epsilon=0.2, rng=rng)
    lo, hi = class_ranges(values, class_of)
    assert ((out >= lo) & (out <= hi)).all()


def test_density_ratio_within_a_class_is_bounded_by_e_to_the_epsilon() -> None:
    """For two values of the same class the Laplace densities at any output differ by at
    most exp(ε) (the definition, for the mechanism before clipping)."""
    eps, width = 0.7, 12.0
    b = width / eps
    x, y = 0.0, width  # the two extremes of the class
    z = np.linspace(-50, 60, 1001)
    ratio = np.exp(-np.abs(z - x) / b) / np.exp(-np.abs(z - y) / b)
    assert np.all(np.abs(np.log(ratio)) <= eps + 1e-12)


def test_bad_inputs() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ParameterError, match="epsilon"):
        laplace_within_classes([1.0], [0], epsilon=0, rng=rng)
    with pytest.raises(ParameterError, match="values"):
        laplace_within_classes([1.0, np.nan], [0, 0], epsilon=1, rng=rng)
