"""The privacy parameters of "sampling, then k-anonymization" (SafePub's first stage).

Li, Qardaji and Su (2012) proved that drawing every record independently with probability
``β`` and then suppressing every class of fewer than ``k`` records (whatever the
generalization, as long as it does not look at the data) satisfies ``(ε, δ)``-differential
privacy when ``β = 1 - e^{-ε}`` and ``δ >= d(k, β, ε)``, with

.. math::

    γ = \\frac{e^ε - 1 + β}{e^ε},\\qquad
    n_m = \\lceil k / γ - 1 \\rceil,\\qquad
    d(k, β, ε) = \\max_{n \\ge n_m} \\sum_{j > γ n}^{n} f(j; n, β)

where ``f(j; n, β)`` is the binomial probability mass. SafePub (Bild, Kuhn, Prasser 2018,
Section 4) takes ``β`` from the share of ``ε`` spent on anonymization and the *smallest*
``k`` whose ``d(k, β, ε)`` is at most the requested ``δ``.

The maximum over the infinitely many ``n`` is computed exactly as the paper's reference
implementation does: the tail ``a_n`` is bounded from above by the Chernoff bound
``c_n = exp(-n (γ ln(γ/β) - (γ - β)))``, which decreases in ``n``, so once the running
maximum of ``a_n`` reaches ``c_n`` no later ``n`` can exceed it.

References
----------
Li, N., Qardaji, W., Su, D. (2012). On sampling, anonymization, and differential privacy or,
k-anonymization meets differential privacy. ASIACCS, 32-33.

Bild, R., Kuhn, K. A., Prasser, F. (2018). SafePub: A truthful data anonymization algorithm
with strong privacy guarantees. Proceedings on Privacy Enhancing Technologies 2018(1), 67-87.

Examples
--------
>>> round(sampling_probability(1.0), 4)
0.6321
>>> k_for(1.0, 1e-6)
74
"""

from __future__ import annotations

import math

import numpy as np

from anonkit._validation import check_real
from anonkit.exceptions import ParameterError

__all__ = ["delta_for", "gamma_for", "k_for", "sampling_probability"]

#: Tails evaluated per vectorized block while looking for the maximum over ``n``.
_BLOCK = 4096
#: Largest ``k`` searched for; beyond it the requested ``δ`` is not reachable in practice.
_K_MAX = 1 << 20


def sampling_probability(epsilon: float) -> float:
    """``β = 1 - e^{-ε}``: the largest sampling probability that ``ε`` allows.

    Parameters
    ----------
    epsilon
        The share of ε spent on sampling and anonymization, ``> 0``.
    """
    eps = check_real(epsilon, "epsilon", "sampling_probability", low=0, closed="neither")
    return -math.expm1(-eps)


def gamma_for(epsilon: float, beta: float) -> float:
    """``γ = (e^ε - 1 + β) / e^ε`` of Li, Qardaji and Su."""
    return (math.expm1(epsilon) + beta) / math.exp(epsilon)


def delta_for(k: int, epsilon: float, beta: float | None = None) -> float:
    """``d(k, β, ε)``: the δ that sampling with ``β`` and k-anonymization with ``k`` give.

    Parameters
    ----------
    k
        Smallest class kept.
    epsilon
        The ε of the sampling and anonymization stage.
    beta
        The sampling probability (default ``1 - e^{-ε}``).
    """
    if beta is None:
        beta = sampling_probability(epsilon)
    gamma = gamma_for(epsilon, beta)
    n_m = max(int(math.ceil(k / gamma - 1.0)), 1)
    rate = gamma * math.log(gamma / beta) - (gamma - beta)
    from scipy.stats import binom  # scipy loads slowly: only SafePub pays for it

    best = -math.inf
    start = n_m
    while True:
        n = np.arange(start, start + _BLOCK, dtype=np.int64)
        # sum_{j > γn}^{n} f(j; n, β) = P(X > floor(γ n)) = sf(floor(γ n))
        tails = binom.sf(np.floor(gamma * n), n, beta)
        running = np.maximum.accumulate(np.maximum(tails, best))
        bound = np.exp(-n * rate)
        done = np.flatnonzero(running >= bound)
        if done.size:
            return float(running[done[0]])
        best = float(running[-1])
        start += _BLOCK


def k_for(epsilon: float, delta: float) -> int:
    """The smallest ``k`` with ``d(k, 1 - e^{-ε}, ε) <= δ`` (SafePub, Section 4).

    Parameters
    ----------
    epsilon
        The ε of the sampling and anonymization stage, ``> 0``.
    delta
        The δ of the guarantee, in ``(0, 1)``.
    """
    eps = check_real(epsilon, "epsilon", "k_for", low=0, closed="neither")
    dlt = check_real(delta, "delta", "k_for", low=0, high=1, closed="neither")
    beta = sampling_probability(eps)
    if delta_for(1, eps, beta) <= dlt:
        return 1
    low, high = 1, 2  # d(low) > δ >= d(high) once found; d is non-increasing in k
    while delta_for(high, eps, beta) > dlt:
        low, high = high, high * 2
        if high > _K_MAX:
            raise ParameterError(
                "delta", "k_for", f"large enough for epsilon={eps} (k exceeds {_K_MAX})", dlt
            )
    while high - low > 1:
        mid = (low + high) // 2
        if delta_for(mid, eps, beta) > dlt:
            low = mid
        else:
            high = mid
    return high
