"""The Mondrian estimator on Apache Spark: ``anonymize(df, engine="spark", algorithm="mondrian")``.

:class:`~anonkit.estimators.local.Mondrian` hands a Spark DataFrame (or, with
``engine="spark"``, a path Spark reads) to :func:`fit_mondrian_spark`, which runs the
steps every estimator runs, through the Spark engine instead of a table in memory:

1. the column names give every column its role (:class:`~anonkit.core.schema.Schema`:
   undeclared columns are an error unless ``others`` says otherwise; identifying and
   dropped columns never reach the release);
2. the first :data:`~anonkit.estimators.scaled.LEAK_SAMPLE` records are checked for
   leaks;
3. hierarchies built from the data read the column's distinct values through the
   engine;
4. :func:`~anonkit.algorithms.mondrian.spark.mondrian_spark` counts, cuts the snapshot
   into blocks on the driver, partitions each block in a Spark task and verifies the
   release on its tally (with ``output``: on what was written, before it is renamed
   into place);
5. the class profile, the risk measures (from the verification) and the loss metrics
   (:mod:`anonkit.evaluate_spark`'s group-bys) are measured without collecting the
   records.

The result's ``release`` is a Spark DataFrame (reading ``output`` when given).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import HierarchySpec, resolve_hierarchy
from anonkit.core.schema import AttributeRole, Schema
from anonkit.core.transform import SUPPRESSED
from anonkit.engines.counting import COUNT
from anonkit.estimators.scaled import LEAK_SAMPLE
from anonkit.exceptions import ParameterError, UnknownColumnError
from anonkit.metrics.classes import profile_sizes
from anonkit.models import split_k_anonymity
from anonkit.progress import start_stage
from anonkit.result import AnonymizationResult

if TYPE_CHECKING:
    from anonkit.engines.spark_engine import SparkEngine
    from anonkit.estimators.local import Mondrian

__all__ = ["fit_mondrian_spark", "fit_routed"]


def _hierarchy(engine: SparkEngine, df: Any, column: str, spec: HierarchySpec | None) -> Hierarchy:
    """The column's hierarchy; one built from the data reads its distinct values."""
    values: list[str] = []
    if spec is None or isinstance(spec, Mapping):
        values = engine.distinct(df, column)
    return resolve_hierarchy(column, spec, pl.Series(column, values, dtype=pl.String))


def _loss(
    counts: pl.DataFrame,
    tally: pl.DataFrame,
    qi: Sequence[str],
    hierarchies: Mapping[str, Hierarchy],
    k: int | None,
) -> dict[str, float]:
    """The loss metrics counts determine (:mod:`anonkit.metrics.tallied`), from the
    snapshot (``counts``: level-0 codes) and the release's tally, both on the driver."""
    from anonkit.metrics.tallied import tallied_column, tallied_losses

    columns = []
    for c in qi:
        orig = counts.group_by(c).agg(pl.col(COUNT).sum())
        leaves = pl.Series(c, hierarchies[c].leaves, dtype=pl.String).gather(orig[c])
        rel = tally.group_by(c).agg(pl.col(COUNT).sum())
        columns.append(
            tallied_column(
                c,
                leaves,
                orig[COUNT].to_numpy(),
                rel[c],
                rel[COUNT].to_numpy(),
                hierarchy=hierarchies[c],
            )
        )
    star = pl.all_horizontal([pl.col(c).cast(pl.String) == SUPPRESSED for c in qi])
    sizes = tally.filter(~star).group_by(qi).agg(pl.col(COUNT).sum())[COUNT].to_numpy()
    suppressed = int(tally.filter(star)[COUNT].sum())
    losses = tallied_losses(columns, sizes, n_suppressed=suppressed, k=k)
    return {n: v for n, v in losses.items() if np.isfinite(v)}


def fit_mondrian_spark(
    estimator: Mondrian,
    frame: Any,
    *,
    quasi_identifiers: Sequence[str],
    specs: Mapping[str, HierarchySpec],
    roles: tuple[Sequence[str], Sequence[str], Sequence[str], str | None],
    numeric: Sequence[str],
    reason: str,
) -> AnonymizationResult:
    """Fit ``estimator`` (Mondrian) on a Spark DataFrame; see the module docstring.

    Raises
    ------
    ParameterError
        For numeric quasi-identifiers (cut along hierarchies only on Spark), or privacy
        models a block cannot judge.
    UndeclaredColumnsError, UnknownColumnError, LeakError
        As the in-memory fit raises them.
    MissingValuesError, ValuesNotInHierarchyError, EmptyDataError
        As the default engine raises them for the same data.
    PrivacyUnattainableError
        If the whole table, as one class, does not satisfy the models.
    """
    from anonkit.algorithms.mondrian.spark import mondrian_spark
    from anonkit.engines.spark_engine import SparkEngine

    t0 = time.perf_counter()
    privacy = estimator.privacy
    assert privacy is not None
    progress = estimator.progress
    if numeric:
        raise ParameterError(
            "numeric",
            "Mondrian",
            "empty with engine='spark' (on Spark, quasi-identifiers are cut along their "
            "hierarchies; give the numeric columns an interval hierarchy)",
            list(numeric),
        )
    identifying, sensitive, insensitive, others = roles
    qi = list(quasi_identifiers)
    engine = SparkEngine()
    df = engine.frame(frame)
    names = list(df.columns)
    models = privacy.checked(2**62)  # k against the records: mondrian_spark, once counted
    wanted = list(dict.fromkeys(a for m in models for a in m.sensitive_attributes))
    schema = Schema.build(
        names,
        quasi_identifiers=qi,
        identifying=identifying,
        sensitive=list(dict.fromkeys([*sensitive, *wanted])),
        insensitive=[c for c in insensitive if c not in wanted],
        others=others,
    )
    unknown = [c for c in specs if c not in names]
    if unknown:
        raise UnknownColumnError(unknown, names)
    sample = engine.head(df, LEAK_SAMPLE) if estimator.leak_check else pl.DataFrame()
    safety = estimator._leak_check(sample, qi, schema)
    if estimator.leak_check:
        safety["leak_check_records"] = sample.height
    start_stage(progress, "Building hierarchies")
    hierarchies = {c: _hierarchy(engine, df, c, specs.get(c)) for c in qi}
    sens_h = {c: _hierarchy(engine, df, c, specs[c]) for c in wanted if c in specs}
    dropped = set(schema.columns(AttributeRole.IDENTIFYING)) | set(schema.dropped)
    kept = df.select(*[f"`{c}`" for c in names if c not in dropped])
    t1 = time.perf_counter()

    out = mondrian_spark(
        kept,
        quasi_identifiers=qi,
        hierarchies=hierarchies,
        models=models,
        sensitive_hierarchies=sens_h,
        mode=estimator.mode,
        split=estimator.split,
        max_block_records=estimator.max_block_records,
        progress=progress,
        output=estimator.output,
    )
    t2 = time.perf_counter()

    tally = out.tally
    star = pl.all_horizontal([pl.col(c).cast(pl.String) == SUPPRESSED for c in qi])
    sizes = tally.filter(~star).group_by(qi).agg(pl.col(COUNT).sum())[COUNT].to_numpy()
    suppressed = int(tally.filter(star)[COUNT].sum())
    k, _ = split_k_anonymity(models)
    classes = profile_sizes(sizes.astype(np.int64), k=k or 1, suppressed=suppressed)
    start_stage(progress, "Measuring loss")
    metrics = _loss(out.counts, tally, qi, hierarchies, k)
    t3 = time.perf_counter()

    details: dict[str, Any] = {
        "engine": {"name": "spark", "reason": reason},
        "mondrian": {**out.details, "numeric_release": estimator.numeric_release},
    }
    return AnonymizationResult(
        release=out.release,
        transformation=MappingProxyType({}),
        algorithm="mondrian",
        metric="none",
        privacy=tuple(m.describe() for m in models),
        n_records=out.n_records,
        suppressed=0,
        suppression_limit=float(privacy.suppression_limit),
        classes=classes,
        metrics=MappingProxyType(metrics),
        nodes_evaluated=0,
        lattice_size=0,
        timing=MappingProxyType(
            {"encode": t1 - t0, "search": t2 - t1, "release": t3 - t2, "total": t3 - t0}
        ),
        details=MappingProxyType(details),
        family="local",
        verified=out.verification.verified,
        risk=MappingProxyType(dict(out.verification.risk)),
        checks=MappingProxyType({**safety, "models": [dict(m) for m in out.verification.models]}),
    )


def fit_routed(
    estimator: Mondrian,
    frame: Any,
    fit_in_memory: Callable[..., Any],
    *,
    quasi_identifiers: str | Sequence[str],
    hierarchies: Mapping[str, HierarchySpec] | None = None,
    identifying: Sequence[str] = (),
    sensitive: Sequence[str] = (),
    insensitive: Sequence[str] = (),
    others: str | None = None,
    numeric: Sequence[str] = (),
) -> None:
    """Fit ``estimator`` where its ``engine`` says: :func:`fit_mondrian_spark`, or the
    in-memory fit ``fit_in_memory`` (a path read first); ``output`` written either way."""
    from anonkit.engines.base import choose_engine
    from anonkit.io.frames import to_polars
    from anonkit.io.tables import read_table
    from anonkit.io.write import write_table

    estimator._validate()
    if estimator.engine == "auto":
        name, reason = choose_engine(frame)
        name = name if name in ("spark", "streaming") else "polars"
    else:
        name, reason = estimator.engine, "chosen by the caller"
    qi = [quasi_identifiers] if isinstance(quasi_identifiers, str) else list(quasi_identifiers)
    if name == "spark":
        estimator.result_ = fit_mondrian_spark(
            estimator,
            frame,
            quasi_identifiers=qi,
            specs=dict(hierarchies or {}),
            roles=(identifying, sensitive, insensitive, others),
            numeric=list(numeric),
            reason=reason,
        )
        estimator.quasi_identifiers_ = tuple(qi)
        estimator.__dict__.pop("_fitting", None)  # transform needs the records in memory
        return
    if name == "streaming":
        from anonkit.estimators.streaming_mondrian import fit_mondrian_streaming

        estimator.result_ = fit_mondrian_streaming(
            estimator,
            frame,
            quasi_identifiers=qi,
            specs=dict(hierarchies or {}),
            roles=(identifying, sensitive, insensitive, others),
            numeric=list(numeric),
            reason=reason,
        )
        estimator.quasi_identifiers_ = tuple(qi)
        estimator.__dict__.pop("_fitting", None)  # transform needs the records in memory
        return
    if isinstance(frame, (str, Path)):
        frame = read_table(frame)
    fit_in_memory(
        frame,
        quasi_identifiers=qi,
        hierarchies=hierarchies,
        identifying=identifying,
        sensitive=sensitive,
        insensitive=insensitive,
        others=others,
        numeric=numeric,
    )
    if estimator.output is not None:
        write_table(to_polars(estimator.result_.release)[0], estimator.output)
    if estimator.engine == "auto":
        details = {**estimator.result_.details, "engine": {"name": name, "reason": reason}}
        estimator.result_ = dataclasses.replace(
            estimator.result_, details=MappingProxyType(details)
        )
