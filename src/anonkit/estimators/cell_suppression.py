"""Local suppression after a full-domain search (``FullDomain(local_suppression=...)``):
the option, its check, and the step that blanks single cells of the records the found
transformation would suppress whole."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from anonkit.core.encoding import EncodedTable
from anonkit.core.transform import ReleasePlan, all_starred
from anonkit.engines.base import Engine
from anonkit.estimators.base import Fitting
from anonkit.exceptions import ParameterError
from anonkit.metrics.classes import ClassProfile, class_profile
from anonkit.metrics.node_metrics import aggregation
from anonkit.models import KAnonymity, PrivacyModel

__all__ = [
    "LocalSuppressionOption",
    "check_importance",
    "measured_metrics",
    "suppress_cells_found",
]


class LocalSuppressionOption:
    """``False``, ``True`` or a mapping of attribute importance weights."""

    def accepts(self, value: object) -> bool:
        return isinstance(value, (bool, Mapping))

    def __str__(self) -> str:
        return "True, False or a mapping of attribute importance weights"


def check_importance(weights: Mapping[Any, Any], qi: Sequence[str], owner: str) -> None:
    """Refuse importance weights for local suppression that are not finite numbers > 0 of
    quasi-identifiers, before the search (which may leave no cell to suppress)."""
    unknown = [c for c in weights if c not in qi]
    if unknown:
        raise ParameterError(
            "local_suppression", owner, "importance weights of quasi-identifiers only", unknown
        )
    bad = [
        c
        for c, v in weights.items()
        if isinstance(v, bool)
        or not isinstance(v, (int, float, np.integer, np.floating))
        or not np.isfinite(v)
        or v <= 0
    ]
    if bad:
        raise ParameterError(
            "local_suppression",
            owner,
            "importance weights that are finite numbers > 0",
            {c: weights[c] for c in bad},
        )


def suppress_cells_found(
    fitting: Fitting,
    engine: Engine,
    plan: ReleasePlan,
    table: EncodedTable,
    option: bool | Mapping[str, float],
) -> tuple[pl.DataFrame, int, ClassProfile, dict[str, Any]]:
    """Blank single cells of the violating records instead of whole records: the release
    of ``plan`` without its suppression, then cells blanked until the models hold.

    Returns the release, the records left fully suppressed, its class profile and the
    result's ``local_suppression`` details."""
    from anonkit.algorithms.local_suppression import suppress_cells

    qi, models = fitting.quasi_identifiers, fitting.models
    keep_all = ReleasePlan(
        plan.columns,
        plan.hierarchies,
        plan.levels,
        np.zeros((len(plan.columns), 0), dtype=np.int64),
        plan.drop,
    )
    generalized = engine.apply(fitting.data, keep_all)
    k = max((m.k for m in models if isinstance(m, KAnonymity)), default=1)
    others: list[PrivacyModel] = [m for m in models if not isinstance(m, KAnonymity)]
    importance = option if isinstance(option, Mapping) else None
    # the sensitive hierarchies were resolved once, when the table was counted
    sens_h = {sc.name: sc.hierarchy for sc in table.sensitive if sc.hierarchy is not None}
    released, outcome = suppress_cells(
        generalized,
        qi,
        k=k,
        models=others,
        importance=importance,
        sensitive_hierarchies=sens_h or None,
    )
    n_all_star = int(released.select(all_starred(qi).sum()).item())
    details = {
        "local_suppression": {
            "cells": outcome.cells,
            "cells_per_attribute": dict(outcome.cells_per_attribute),
            "records_touched": outcome.records_touched,
            "records_fully_suppressed": n_all_star,
        }
    }
    return released, n_all_star, class_profile(released, list(qi), k=k), details


def measured_metrics(
    fitting: Fitting,
    released: pl.DataFrame,
    names: Sequence[str],
    metric: str,
    metric_options: Mapping[str, Any] | None,
) -> dict[str, float]:
    """The loss metrics ``names`` of the search's node, measured again on ``released``,
    the release with its cells blanked: the node's figures charge every record it
    suppresses whole, the release blanks single cells of them.

    :func:`anonkit.evaluate.evaluate` measures them (records at ``*`` everywhere count as
    suppressed, as in the search); ``loss`` is aggregated over the attributes as
    ``metric_options`` ask, and ``precision_score`` is 1 - ``precision``.
    """
    from anonkit.evaluate import evaluate  # noqa: PLC0415 (evaluate imports the estimators)

    qi = fitting.quasi_identifiers
    k = max((m.k for m in fitting.models if isinstance(m, KAnonymity)), default=None)
    measured = evaluate(
        fitting.data.select(qi),
        released.select(qi),
        quasi_identifiers=qi,
        hierarchies=fitting.by_name,
        k=k,
        suppression_limit=fitting.suppression_limit,
    )
    values = {name: float(value) for name, value in measured.loss.items()}
    combine = aggregation(metric, metric_options, qi)
    if combine is not None and not combine.plain:
        per_column = [measured.attributes[c]["generalized_loss"] for c in qi]
        values["loss"] = float(combine.combine(np.array([per_column], dtype=np.float64))[0])
    if "precision" in values:
        values["precision_score"] = 1.0 - values["precision"]
    return {name: values[name] for name in names if name in values}
