"""The exponential mechanism over a finite set of candidates.

McSherry and Talwar (2007): given scores ``u(D, r)`` whose sensitivity (the largest change
when one record is added or removed) is ``Δ``, choosing ``r`` with probability proportional
to ``exp(ε u(D, r) / (2 Δ))`` is ε-differentially private. SafePub's score functions are
already divided by their sensitivity (Bild et al. 2018, Section 5), so they are used here
with ``Δ = 1``.

The probabilities are computed with the largest exponent subtracted first (the same
log-sum-exp shift as ARX's implementation), so large scores do not overflow; the floating
point error this leaves is far below any ε in use (see ARX's ``ExponentialMechanism``).

References
----------
McSherry, F., Talwar, K. (2007). Mechanism design via differential privacy. FOCS, 94-103.

Examples
--------
>>> import numpy as np
>>> p = exponential_probabilities(np.array([0.0, 1.0]), epsilon=2.0)
>>> bool(np.isclose(p[1] / p[0], np.e))
True
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray
from anonkit._validation import check_real
from anonkit.exceptions import ParameterError

__all__ = ["exponential_choice", "exponential_probabilities"]


def exponential_probabilities(
    scores: npt.ArrayLike, *, epsilon: float, sensitivity: float = 1.0
) -> FloatArray:
    """The probability of each candidate under the exponential mechanism.

    Parameters
    ----------
    scores
        One score per candidate (higher is better).
    epsilon
        The privacy budget of this one choice, ``> 0``.
    sensitivity
        The scores' sensitivity ``Δ`` (1 for SafePub's normalized scores).
    """
    eps = check_real(epsilon, "epsilon", "exponential_probabilities", low=0, closed="neither")
    delta = check_real(
        sensitivity, "sensitivity", "exponential_probabilities", low=0, closed="neither"
    )
    u = np.asarray(scores, dtype=np.float64)
    if u.ndim != 1 or u.size == 0 or not np.isfinite(u).all():
        raise ParameterError(
            "scores",
            "exponential_probabilities",
            "a non-empty 1-D array of finite numbers",
            u.shape,
        )
    exponents = eps * u / (2.0 * delta)
    weights = np.exp(exponents - exponents.max())
    out: FloatArray = weights / weights.sum()
    return out


def exponential_choice(
    scores: npt.ArrayLike,
    *,
    epsilon: float,
    rng: np.random.Generator,
    sensitivity: float = 1.0,
) -> int:
    """Draw the index of one candidate with the exponential mechanism's probabilities."""
    p = exponential_probabilities(scores, epsilon=epsilon, sensitivity=sensitivity)
    return int(rng.choice(p.size, p=p))
