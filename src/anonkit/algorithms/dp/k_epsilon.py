"""The noise of (k, ε)-anonymity: Laplace noise on numeric values within each class.

Holohan, Antonatos, Braghin and Mac Aonghusa (2017) combine k-anonymity and ε-differential
privacy: the quasi-identifiers are generalized to classes of at least ``k`` records, and
the numeric attributes released beside them are perturbed with an ε-differentially
private mechanism *within each class*, so that every record's value is indistinguishable
from the values of the other records of its class. Our reading: the domain a value must be
hidden in is its class's range ``[lo_E, hi_E]`` of the attribute, the sensitivity is that
range's width ``hi_E - lo_E``, and each value is released as
``x + Laplace((hi_E - lo_E) / ε)``, clipped to ``[lo_E, hi_E]`` (clipping is
post-processing and keeps the guarantee; the paper's bounded mechanisms keep outputs in the
domain too). A class whose values are all equal is released unchanged (width 0: nothing
to hide among its members).

Where the implementation had to choose: the paper's text was not available to us beyond
its abstract; the class-range sensitivity, per-record noise and clipping above are the
closest defensible reading of "k-anonymity with ε-differential privacy on the released
values of numeric attributes". The range itself is read from the data, as the paper's
class-level domains are; it is not protected by ε.

References
----------
Holohan, N., Antonatos, S., Braghin, S., Mac Aonghusa, P. (2017). (k, ε)-Anonymity:
k-Anonymity with ε-Differential Privacy. arXiv:1710.01615.

Examples
--------
>>> import numpy as np
>>> out = laplace_within_classes(np.array([1.0, 3.0, 7.0, 7.0]), np.array([0, 0, 1, 1]),
...                              epsilon=1.0, rng=np.random.default_rng(0))
>>> bool((out[:2] >= 1).all() and (out[:2] <= 3).all()), out[2:].tolist()
(True, [7.0, 7.0])
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray, IntArray
from anonkit._validation import check_real
from anonkit.exceptions import ParameterError

__all__ = ["class_ranges", "laplace_within_classes"]


def class_ranges(values: FloatArray, class_of: IntArray) -> tuple[FloatArray, FloatArray]:
    """Per record, the lowest and highest value of its class (vectorized)."""
    n_classes = int(class_of.max()) + 1 if class_of.size else 0
    lo = np.full(n_classes, np.inf)
    hi = np.full(n_classes, -np.inf)
    np.minimum.at(lo, class_of, values)
    np.maximum.at(hi, class_of, values)
    return lo[class_of], hi[class_of]


def laplace_within_classes(
    values: npt.ArrayLike,
    class_of: npt.ArrayLike,
    *,
    epsilon: float,
    rng: np.random.Generator,
    clip: bool = True,
) -> FloatArray:
    """Each value plus Laplace noise of scale ``(class range) / ε``, clipped to the range.

    Parameters
    ----------
    values
        The numeric values, one per record (no missing values).
    class_of
        Each record's class number (``0..n_classes-1``).
    epsilon
        The ε of the mechanism, ``> 0``.
    rng
        The random generator.
    clip
        Clip the noisy values to their class's range (default; post-processing).
    """
    eps = check_real(epsilon, "epsilon", "laplace_within_classes", low=0, closed="neither")
    x = np.asarray(values, dtype=np.float64)
    cls = np.asarray(class_of, dtype=np.int64)
    if x.shape != cls.shape or not np.isfinite(x).all():
        raise ParameterError(
            "values", "laplace_within_classes", "finite numbers, one per class number", x.shape
        )
    lo, hi = class_ranges(x, cls)
    scale = (hi - lo) / eps
    noisy = x + rng.laplace(0.0, 1.0, size=x.shape) * scale
    if clip:
        noisy = np.clip(noisy, lo, hi)
    out: FloatArray = noisy
    return out
