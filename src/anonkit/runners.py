"""Local-recoding algorithms behind :func:`anonkit.anonymize`.

Full-domain searches generalize whole columns; the algorithms here generalize or
aggregate groups of records: Mondrian, greedy class merging and microaggregation. Each
runner turns the :class:`~anonkit.api.Anonymizer` settings into a call of its algorithm
and wraps the outcome in the same :class:`~anonkit.result.AnonymizationResult` as the
full-domain searches: the release in the caller's frame type, the class profile measured
on the release itself, the metrics and the timing. ``transformation`` is empty (there is
no single level per column) and ``details`` holds the algorithm's own figures.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import polars as pl

from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import resolve_hierarchy
from anonkit.core.schema import AttributeRole, Schema
from anonkit.exceptions import DataError, MissingValuesError, ParameterError, UnknownColumnError
from anonkit.io.frames import FrameKind, from_polars
from anonkit.metrics.classes import class_profile
from anonkit.models import PrivacyModel, split_k_anonymity
from anonkit.progress import start_stage
from anonkit.result import AnonymizationResult

if TYPE_CHECKING:
    from anonkit.api import Anonymizer


def _k_only(models: Sequence[PrivacyModel], algorithm: str) -> int:
    """The k of a k-anonymity-only model list (greedy merging, microaggregation)."""
    k, others = split_k_anonymity(models)
    if others or k is None:
        raise ParameterError(
            "privacy",
            algorithm,
            "k-anonymity only (use flash or mondrian for other privacy models)",
            ", ".join(m.describe() for m in others),
        )
    return k


def _parse_numbers(data: pl.DataFrame, columns: Sequence[str]) -> pl.DataFrame:
    """``data`` with the text columns among ``columns`` parsed as numbers (microaggregation).

    Tables read from CSV hold text. Whole numbers become Int64 (so a median or mode
    stays whole), others Float64. Empty cells and ``NaN`` raise
    :class:`~anonkit.exceptions.MissingValuesError`, other text a
    :class:`~anonkit.exceptions.DataError` naming the column and the count.
    """
    parsed = []
    for c in columns:
        text = data[c]
        if text.dtype != pl.String:
            continue
        stripped = text.str.strip_chars()
        number = stripped.cast(pl.Float64, strict=False)
        empty = int((stripped == "").sum())
        missing = text.null_count() + empty + int(number.is_nan().sum())
        if missing:
            raise MissingValuesError(c, missing)
        words = number.null_count() - text.null_count() - empty
        if words:
            raise DataError(
                f"Column {c!r} must hold numbers to be microaggregated, but {words} of its "
                "values are not numbers; fix those cells or code the column as integers."
            )
        whole = stripped.cast(pl.Int64, strict=False)
        parsed.append(whole if whole.null_count() == text.null_count() else number)
    return data.with_columns(parsed) if parsed else data


def _loss_metrics(
    data: pl.DataFrame,
    released: pl.DataFrame,
    qi: Sequence[str],
    hierarchies: dict[str, Hierarchy],
    numeric: Sequence[str],
    k: int | None,
) -> dict[str, float]:
    """The loss metrics of :func:`anonkit.evaluate.evaluate` for a local recoding."""
    from anonkit.evaluate import evaluate

    ev = evaluate(
        data.select(list(qi)),
        released.select(list(qi)),
        quasi_identifiers=list(qi),
        hierarchies={c: h for c, h in hierarchies.items() if c not in numeric},
        numeric=list(numeric),
        k=k,
    )
    out: dict[str, float] = {}
    for entry in ev.to_dict()["loss"]:
        value = entry.get("value")
        if isinstance(value, (int, float)):
            out[str(entry["name"])] = float(value)
    return out


def run_local_recoding(
    settings: Anonymizer,
    data: pl.DataFrame,
    kind: FrameKind,
    qi: list[str],
    hierarchies: list[Hierarchy],
    models: list[PrivacyModel],
    schema: Schema,
    population: pl.DataFrame | None,
    t0: float,
) -> AnonymizationResult:
    """Run ``settings.algorithm`` (a local-recoding algorithm) and wrap its result."""
    numeric = list(settings.numeric)
    unknown = [c for c in numeric if c not in qi]
    if unknown:
        raise UnknownColumnError(unknown, qi)
    by_name = dict(zip(qi, hierarchies, strict=True))
    drop = schema.columns(AttributeRole.IDENTIFYING)
    progress = settings.progress
    t1 = time.perf_counter()
    k: int | None
    details: dict[str, Any]
    loss_numeric: list[str] | None = None  # measure the loss with evaluate (None: not)
    if settings.algorithm == "greedy_merge":
        from anonkit.algorithms.greedy_merge import GreedyMerge

        k = _k_only(models, "greedy_merge")
        start_stage(progress, "Greedy merging", "small classes")
        merged = GreedyMerge(k=k, cost=settings.cost, progress=progress).fit(
            data.select(qi), by_name
        )
        t2 = time.perf_counter()
        start_stage(progress, "Releasing")
        released = data.with_columns(
            [pl.Series(c, v, dtype=pl.String) for c, v in merged.released_values().items()]
        )
        metrics: dict[str, float] = {f"cost_{n}": v for n, v in merged.losses.items()}
        metrics.update({f"alteration_{n}": v for n, v in merged.alteration.items()})
        metrics["modified_percentage"] = merged.modified_percentage
        metrics["deleted_percentage"] = merged.deleted_percentage
        loss_numeric = []
        details = {"greedy_merge": merged.to_dict()}
        metric = settings.cost
    elif settings.algorithm == "mondrian":
        from anonkit.algorithms.mondrian.frame import fit_frame, release_frame

        wanted = [a for m in models for a in m.sensitive_attributes]
        specs = dict(settings.hierarchies or {})
        sens_h = {c: by_name[c] for c in wanted if c in by_name}

        sens_h.update({c: resolve_hierarchy(c, specs[c], data[c]) for c in wanted if c in specs})
        start_stage(progress, "Mondrian", "rounds")
        part = fit_frame(
            data,
            models,
            quasi_identifiers=qi,
            hierarchies={c: h for c, h in by_name.items() if c not in numeric},
            numeric=numeric,
            sensitive=list(dict.fromkeys(wanted)),
            sensitive_hierarchies=sens_h or None,
            population=population,
            mode=settings.mode,
            split=settings.split,
            numeric_release=settings.numeric_release,
            progress=progress,
        )
        t2 = time.perf_counter()
        start_stage(progress, "Releasing")
        released = release_frame(data, part)
        k = split_k_anonymity(models)[0]
        metrics = {}
        loss_numeric = numeric
        details = {
            "mondrian": {
                "mode": part.mode,
                "split": part.split,
                "numeric_release": part.numeric_release,
                "partitions": part.n_partitions,
                "cuts": part.n_cuts,
                "rounds": part.rounds,
            }
        }
        metric = f"mondrian-{settings.mode}"
    else:  # microaggregation
        from anonkit.algorithms.microaggregation import Microaggregation

        k = _k_only(models, "microaggregation")
        left_out = [c for c in qi if c not in numeric]
        if numeric and left_out:
            raise ParameterError(
                "numeric",
                "microaggregation",
                "every quasi-identifier (microaggregation replaces them all by group "
                "aggregates; leave 'numeric' empty to mean all)",
                left_out,
            )
        numbers = _parse_numbers(data, qi)
        start_stage(progress, "Microaggregation", "groups")
        aggregated = Microaggregation(
            k=k, method=settings.method, aggregate=settings.aggregate, progress=progress
        ).fit(numbers, qi)
        t2 = time.perf_counter()
        start_stage(progress, "Releasing")
        released = aggregated.release(numbers)
        metrics = {"sse": aggregated.sse, "il": aggregated.il}
        details = {"microaggregation": aggregated.to_dict()}
        metric = settings.method
    released = released.drop(drop)
    classes = class_profile(released, qi, k=k if k is not None else 1)
    if loss_numeric is not None:
        start_stage(progress, "Measuring loss")
        metrics.update(_loss_metrics(data, released, qi, by_name, loss_numeric, k))
    t3 = time.perf_counter()
    return AnonymizationResult(
        release=from_polars(released, kind),
        transformation=MappingProxyType({}),
        algorithm=settings.algorithm,
        metric=metric,
        privacy=tuple(m.describe() for m in models),
        n_records=data.height,
        suppressed=0,
        suppression_limit=float(settings.suppression_limit),
        classes=classes,
        metrics=MappingProxyType(metrics),
        nodes_evaluated=0,
        lattice_size=0,
        timing=MappingProxyType(
            {"encode": t1 - t0, "search": t2 - t1, "release": t3 - t2, "total": t3 - t0}
        ),
        details=MappingProxyType(details),
    )
