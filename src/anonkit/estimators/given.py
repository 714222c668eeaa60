"""An estimator given to :func:`anonkit.anonymize` as ``algorithm``: the flat keywords it
holds itself are refused, and the privacy, progress and output keywords go to a copy
that holds none of its own."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from anonkit.algorithms.koptimize import METRICS as KOPTIMIZE_METRICS
from anonkit.estimators.base import Estimator
from anonkit.estimators.privacy import Privacy
from anonkit.exceptions import ParameterError, UnknownNameError
from anonkit.metrics.generalization import METRICS
from anonkit.progress import Progress

__all__ = [
    "ESTIMATOR_OWN",
    "FLAT_KEYWORDS",
    "OWN_METRICS",
    "check_metric",
    "refuse_ignored",
    "refuse_unused",
    "with_keywords",
    "with_output",
]

#: Keywords of :func:`anonkit.anonymize` that an estimator given as ``algorithm`` holds
#: itself: given another value than their default, they would be ignored.
ESTIMATOR_OWN = (
    "metric", "metric_options", "leak_check", "suppressed", "engine", "memory_share",
    "time_limit", "max_nodes", "seed", "options", "mode", "split", "numeric_release",
    "cost", "method", "aggregate", "local_suppression",
)  # fmt: skip


#: Keywords of :func:`anonkit.anonymize` that go to the estimator's parameter of the same
#: name (the full-domain algorithms take them all).
FLAT_KEYWORDS = (
    "metric", "metric_options", "suppressed", "engine", "memory_share", "time_limit",
    "max_nodes", "seed",
)  # fmt: skip
_BUDGET = ("time_limit", "max_nodes", "seed")
#: Algorithms that minimize metrics of their own, not a full-domain search's
#: (:data:`~anonkit.metrics.generalization.METRICS`).
OWN_METRICS: Mapping[str, tuple[str, ...]] = {"k_optimize": KOPTIMIZE_METRICS}


def check_metric(algorithm: str, metric: str) -> None:
    """Refuse a ``metric`` that ``algorithm`` does not minimize; the default, ``"loss"``,
    leaves an algorithm with metrics of its own (:data:`OWN_METRICS`) to its default.

    Raises
    ------
    UnknownNameError
        Naming the metrics the algorithm offers.
    """
    offered = OWN_METRICS.get(algorithm, tuple(METRICS))
    if metric not in {*offered, "loss"}:
        raise UnknownNameError("metric", metric, list(offered))


def refuse_unused(
    algorithm: str, given: Mapping[str, Any], taken: Mapping[str, Any], options: Mapping[str, Any]
) -> None:
    """Refuse a keyword of :data:`FLAT_KEYWORDS` ``given`` (another value than its default)
    that the algorithm's estimator would ignore (it is not among those it ``taken``), or
    that ``options`` gives again; the engine is checked apart, with its own message.

    Raises
    ------
    ParameterError
        Naming the keyword and the algorithm.
    """
    for name, value in given.items():
        if name not in taken and name != "engine":
            kind = "budget" if name in _BUDGET else "full-domain"
            raise ParameterError(
                name,
                "anonymize",
                f"left out with algorithm={algorithm!r}, which would ignore it (a {kind} "
                f"keyword of the algorithms with a parameter {name!r})",
                value,
            )
        if name in options:
            raise ParameterError(name, "anonymize", "given once, as a keyword or in options", value)


def refuse_ignored(
    estimator: Estimator, keywords: Mapping[str, Any], defaults: Mapping[str, Any]
) -> None:
    """Refuse a keyword of :data:`ESTIMATOR_OWN` given another value than its default."""
    for name in ESTIMATOR_OWN:
        if keywords[name] != defaults[name]:
            raise ParameterError(
                name,
                "anonymize",
                f"left out with an estimator as algorithm (set it on the estimator, as "
                f"{type(estimator).__name__}({name}=...), where it has such a parameter)",
                keywords[name],
            )


def with_keywords(
    estimator: Estimator, privacy: Privacy, given: bool, progress: Progress | None
) -> Estimator:
    """``estimator``, or a copy holding the keywords' privacy (and progress) where it has
    none; privacy both in the estimator and in the keywords is an error."""
    params = estimator.get_params(deep=False)
    if estimator.privacy is not None:
        if given:
            raise ParameterError(
                "privacy",
                "anonymize",
                "left out when the estimator holds its privacy (give it in one place)",
                privacy.describe(),
            )
        if progress is None or estimator.progress is not None:
            return estimator
    else:
        params["privacy"] = privacy
    if estimator.progress is None and progress is not None:
        params["progress"] = progress
    return type(estimator)(**params)


def with_output(
    estimator: Estimator, output: str | Path | None, separator: str | None = None
) -> Estimator:
    """``estimator``, or a copy writing ``output`` (the keyword, with ``separator``) when
    it writes its own release (an ``output`` parameter) and holds none; two different
    outputs are an error."""
    params = estimator.get_params(deep=False)
    if output is None or "output" not in params:
        return estimator
    if params["output"] is None:
        params["output"] = output
        if separator is not None and params.get("output_separator") is None:
            params["output_separator"] = separator
        return type(estimator)(**params)
    if str(params["output"]) != str(output):
        raise ParameterError(
            "output",
            "anonymize",
            "left out when the estimator holds its output (give it in one place)",
            str(output),
        )
    return estimator
