"""An estimator given to :func:`anonkit.anonymize` as ``algorithm``: the flat keywords it
holds itself are refused, and the privacy, progress and output keywords go to a copy
that holds none of its own."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from anonkit.estimators.base import Estimator
from anonkit.estimators.privacy import Privacy
from anonkit.exceptions import ParameterError
from anonkit.progress import Progress

__all__ = ["ESTIMATOR_OWN", "refuse_ignored", "with_keywords", "with_output"]

#: Keywords of :func:`anonkit.anonymize` that an estimator given as ``algorithm`` holds
#: itself: given another value than their default, they would be ignored.
ESTIMATOR_OWN = (
    "metric", "metric_options", "leak_check", "suppressed", "engine", "memory_share",
    "time_limit", "max_nodes", "seed", "options", "mode", "split", "numeric_release",
    "cost", "method", "aggregate", "local_suppression",
)  # fmt: skip


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
