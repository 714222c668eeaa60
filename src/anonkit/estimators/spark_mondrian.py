"""The Mondrian estimator on Apache Spark: ``anonymize(df, engine="spark", algorithm="mondrian")``.

:class:`~anonkit.estimators.local.Mondrian` hands a Spark DataFrame (or, with
``engine="spark"``, a path Spark reads) to :func:`fit_mondrian_spark`, which runs the
steps every estimator runs, through the Spark engine instead of a table in memory:

1. the column names give every column its role (:class:`~anonkit.core.schema.Schema`:
   undeclared columns are an error unless ``others`` says otherwise; identifying and
   dropped columns never reach the release);
2. :data:`~anonkit.estimators.steps.LEAK_SAMPLE` records spread over the table are
   checked for leaks;
3. hierarchies built from the data read the column's distinct values through the
   engine;
4. :func:`~anonkit.algorithms.mondrian.spark.mondrian_spark` counts, cuts the snapshot
   into blocks on the driver, partitions each block in a Spark task and verifies the
   release on its tally (with ``output``: on what was written, before it is renamed
   into place);
5. the class profile, the risk measures (from the verification) and the loss metrics
   (:mod:`anonkit.evaluate_spark`'s group-bys) are measured without collecting the
   records.

A local input file is watched between the passes (:mod:`anonkit.estimators.input_watch`):
one that changed after the fit began, or a release with more or fewer records than the
count, is an ``InputChangedError`` naming it, and nothing is published.

The result's ``release`` is a Spark DataFrame (reading ``output`` when given).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import polars as pl

from anonkit.core.hierarchy import Hierarchy
from anonkit.core.schema import AttributeRole
from anonkit.engines.base import resolve_hierarchies
from anonkit.engines.counting import COUNT
from anonkit.estimators.bare import DETAIL as BARE
from anonkit.estimators.bare import starred_everywhere
from anonkit.estimators.base import Columns, stage_timing, verified_fields
from anonkit.estimators.input_watch import InputWatch
from anonkit.estimators.steps import engine_roles, head_leak_check, local_result, refuse_numeric
from anonkit.metrics.classes import profile_sizes, tally_sizes
from anonkit.metrics.tallied import hierarchy_losses
from anonkit.models import split_k_anonymity
from anonkit.progress import start_stage
from anonkit.result import AnonymizationResult

if TYPE_CHECKING:
    from anonkit.estimators.local import Mondrian

__all__ = ["fit_mondrian_spark"]


def fit_mondrian_spark(
    estimator: Mondrian, frame: Any, columns: Columns, *, reason: str
) -> tuple[AnonymizationResult, dict[str, Hierarchy]]:
    """Fit ``estimator`` (Mondrian) on a Spark DataFrame; see the module docstring.

    Returns
    -------
    (result, hierarchies)
        The result and each quasi-identifier's hierarchy.

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
    from anonkit.engines.spark_frames import named

    t0 = time.perf_counter()
    privacy = estimator.privacy
    assert privacy is not None
    progress = estimator.progress
    refuse_numeric(columns.numeric, "spark", "on Spark, ")
    qi, specs = columns.quasi_identifiers, columns.specs
    engine = SparkEngine()
    watch = InputWatch.start(frame)  # a path, or a DataFrame read_csv noted
    df = engine.frame(frame)
    names = list(df.columns)
    models = privacy.checked(2**62)  # k against the records: mondrian_spark, once counted
    schema, wanted = engine_roles(engine, df, columns, models)
    safety = head_leak_check(estimator, engine, df, qi, schema, estimator.output)
    start_stage(progress, "Building hierarchies")
    hierarchies = dict(zip(qi, resolve_hierarchies(engine, df, qi, specs), strict=True))
    given = [c for c in wanted if c in specs]
    sens_h = dict(zip(given, resolve_hierarchies(engine, df, given, specs), strict=True))
    dropped = set(schema.columns(AttributeRole.IDENTIFYING)) | set(schema.dropped)
    kept = df.select(*[named(c) for c in names if c not in dropped])
    t1 = time.perf_counter()

    with watch.passes():
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
            separator=estimator.output_separator,
            check_input=watch.check,
        )
    t2 = time.perf_counter()

    sizes, suppressed = tally_sizes(out.tally, qi, COUNT)
    k, _ = split_k_anonymity(models)
    classes = profile_sizes(sizes, k=k or 1, suppressed=suppressed)
    start_stage(progress, "Measuring loss")
    originals = [out.counts.group_by(c).agg(pl.col(COUNT).sum()) for c in qi]
    metrics = hierarchy_losses(
        [(orig[c], orig[COUNT].to_numpy()) for c, orig in zip(qi, originals, strict=True)],
        out.tally,
        COUNT,
        {c: hierarchies[c] for c in qi},
        sizes,
        n_suppressed=suppressed,
        k=k,
    )
    t3 = time.perf_counter()

    details: dict[str, Any] = {
        "engine": {"name": "spark", "reason": reason},
        "mondrian": {**out.details, "numeric_release": estimator.numeric_release},
    }
    bare = starred_everywhere(out.tally, columns)
    if bare:
        details[BARE] = bare
    result = local_result(
        out.release,
        algorithm="mondrian",
        metric="none",
        models=models,
        n_records=out.n_records,
        suppression_limit=float(privacy.suppression_limit),
        classes=classes,
        metrics=metrics,
        timing=stage_timing(t0, t1, t2, t3),
        details=details,
        **verified_fields(out.verification, safety),
    )
    return result, hierarchies
