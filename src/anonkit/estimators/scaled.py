"""Full-domain anonymization of data that stays where it lives (issue 17).

When the engine does not hold the records in this process (``engine="streaming"``: a
file or a polars lazy query, streamed; ``engine="spark"``: a Spark DataFrame), the fit
touches the records only through the engine (:mod:`anonkit.engines.base`):

1. the column names give every column its role, as in memory;
2. :data:`~anonkit.estimators.steps.LEAK_SAMPLE` records spread over the table are
   checked for leaks;
3. hierarchies built from the data (``{"type": "intervals", ...}`` or none) read the
   column's distinct values;
4. one grouped count gives the bottom snapshot (with the sensitive values and population
   counts models need); the search runs on it, in memory, as for any table;
5. the release is the engine's lazy query (or Spark plan) of the chosen transformation;
   with ``output`` it is written to a temporary file, verified by reading that file back
   (tallied by released values, so the check is as independent as in memory) and only
   then renamed to ``output``; without, the query itself is tallied and verified.

The input is watched between the passes (:mod:`anonkit.estimators.input_watch`): a file
that changes after the first pass, or a release pass that finds other records per class
than the count, stops the fit with an ``InputChangedError`` naming the file, and nothing
is published.

The release is returned in the engine's type: a ``polars.LazyFrame`` (reading ``output``
when given) or a Spark DataFrame.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from anonkit._frozen import FrozenDict
from anonkit.core.encoding import EncodedTable
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import HierarchySpec
from anonkit.core.schema import AttributeRole
from anonkit.core.transform import ReleasePlan
from anonkit.engines.base import Engine, SensitiveSpec, resolve_hierarchies
from anonkit.engines.counting import COUNT
from anonkit.estimators.base import Columns, stage_timing, verified_fields
from anonkit.estimators.input_watch import InputWatch, released_sizes
from anonkit.estimators.searching import found_details, search
from anonkit.estimators.steps import (
    TallyCheck,
    engine_roles,
    head_leak_check,
    streamed_source,
    write_verified,
)
from anonkit.exceptions import POPULATION_TABLE, PrivacyUnattainableError, UnknownColumnError
from anonkit.io.frames import to_polars
from anonkit.models.base import CLASS_SIZE, POPULATION_COUNT
from anonkit.progress import start_stage
from anonkit.result import AnonymizationResult
from anonkit.verify import Verification

if TYPE_CHECKING:
    from anonkit.estimators.full_domain import FullDomain

__all__ = ["fit_out_of_core"]


def _verify(
    engine: Engine,
    release: Any,
    check: TallyCheck,
    population: Any,
    watch: InputWatch,
    expected: pl.DataFrame,
) -> Verification:
    """The independent re-check, on the release tallied by its released values, after
    checking that the release pass read the records the count read (``expected``: per
    released class) from a file that has not changed since."""
    tallied = engine.tally(release, check.columns)
    watch.check_classes(expected, tallied, check.quasi_identifiers)
    watch.check()
    pop = None
    if population is not None:
        # the population's records, rebuilt from its tally (k-map and delta-presence match
        # them against the released classes)
        qi = check.quasi_identifiers
        counts = engine.tally(population, qi)
        rows = np.repeat(np.arange(counts.height), counts[COUNT].to_numpy())
        pop = counts.select(qi)[rows]
    return check.verify(tallied, pop)


def _count(
    engine: Engine,
    source: Any,
    qi: list[str],
    hierarchies: list[Hierarchy],
    specs: Mapping[str, HierarchySpec],
    wanted: list[str],
    detailed: bool,
    population: Any,
) -> EncodedTable:
    """The count: the bottom snapshot, with the detail the models read when ``detailed``."""
    if not detailed:
        return engine.count(source, qi, hierarchies)
    sens = [
        SensitiveSpec(c, resolve_hierarchies(engine, source, [c], specs)[0])
        if c in specs
        else SensitiveSpec(c)
        for c in wanted
    ]
    return engine.count_detail(source, qi, hierarchies, sens, population=population)


def fit_out_of_core(
    estimator: FullDomain,
    engine: Engine,
    source: Any,
    columns: Columns,
    *,
    output: str | Path | None,
) -> tuple[AnonymizationResult, ReleasePlan]:
    """Fit ``estimator`` on ``source`` through ``engine``; see the module docstring.

    Returns
    -------
    tuple
        The result (its ``release`` in the engine's type) and the release plan.
    """
    t0 = time.perf_counter()
    privacy = estimator.privacy
    assert privacy is not None
    progress = estimator.progress
    qi, specs = columns.quasi_identifiers, columns.specs
    models = privacy.model_list
    watch = InputWatch.start(source)  # before the first pass: scan_table's checks read it
    with watch.passes():  # a read that fails on a file changing under it says so
        source = streamed_source(source, engine)
        schema, wanted = engine_roles(engine, source, columns, models)
    population = privacy.population if any(POPULATION_COUNT in m.requires for m in models) else None
    if type(population).__module__.split(".")[0] == "pandas":  # the engines read polars
        population, _ = to_polars(population)
    if population is not None:
        missing = [c for c in qi if c not in engine.columns(population)]
        if missing:
            raise UnknownColumnError(missing, engine.columns(population), POPULATION_TABLE)
    with watch.passes():
        safety = head_leak_check(estimator, engine, source, qi, schema, output)

    start_stage(progress, "Counting")
    detailed = any(m.requires - {CLASS_SIZE} for m in models)
    with watch.passes():
        hierarchies = resolve_hierarchies(engine, source, qi, specs, population)
        table = _count(engine, source, qi, hierarchies, specs, wanted, detailed, population)
    watch.check()
    n = table.n_records
    models = privacy.checked(n)
    for m in models:
        need = int(m.min_class_size)
        for sc in table.sensitive:
            if m.class_local and need > 1 and sc.name in m.sensitive_attributes:
                if len(sc.labels) < need:
                    raise PrivacyUnattainableError(
                        f"Column {sc.name!r} has only {len(sc.labels)} distinct value(s), so "
                        f"no class can hold the {need} that {m.describe()} needs; lower l to "
                        f"at most {len(sc.labels)} or protect another attribute.",
                        requirement=m.describe(),
                    )
    t1 = time.perf_counter()

    limit = float(privacy.suppression_limit)
    outcome = search(
        table,
        models,
        limit,
        algorithm=estimator.search,
        metric=estimator.metric,
        metric_options=estimator.metric_options,
        options=estimator.search_options(),
        progress=progress,
    )
    t2 = time.perf_counter()

    start_stage(progress, "Releasing")
    dropped = [*schema.columns(AttributeRole.IDENTIFYING), *schema.dropped]
    plan = outcome.plan(table, drop=list(dict.fromkeys(dropped)), suppressed=estimator.suppressed)
    masked = plan.with_options(suppressed="mask")
    by_name = dict(zip(qi, table.hierarchies, strict=True))

    check = TallyCheck(qi, wanted, models, n, limit, specs, by_name)
    expected = released_sizes(table, masked)
    separator = estimator.output_separator  # of a CSV or TSV output

    def verify(release: Any) -> Verification:
        return _verify(engine, release, check, population, watch, expected)

    with watch.passes():
        if output is not None and "://" in str(output):
            # a cluster file system (hdfs://, s3a://): the release plan is verified as a
            # query, then the engine writes it (atomically, on that file system)
            start_stage(progress, "Verifying the release")
            verification = verify(engine.apply(source, masked))
            engine.write(engine.apply(source, plan), output, separator=separator)  # type: ignore[arg-type]
            release: Any = engine.read(output, separator=separator)  # type: ignore[arg-type]
        elif output is not None:
            dropping = estimator.suppressed == "drop" and outcome.suppressed
            verification, release = write_verified(
                engine,
                engine.apply(source, masked),
                output,
                verify,
                progress=progress,
                # dropped from the verified file, not from another pass over the source
                final=(lambda staged: engine.drop_suppressed(staged, plan.columns))
                if dropping
                else None,
                separator=separator,
            )
        else:
            start_stage(progress, "Verifying the release")
            verification = verify(engine.apply(source, masked))
            # a query over the input: it refuses to read the file once it changed
            release = watch.guarded(engine.apply(source, plan))
    t3 = time.perf_counter()

    found = outcome.found
    details = {
        "engine": engine.name,
        **found_details(outcome, table, estimator.metric, estimator.metric_options, "FullDomain"),
    }
    transformation = FrozenDict(dict(zip(qi, found.levels, strict=True)))
    result = AnonymizationResult(
        release=release,
        transformation=transformation,
        algorithm=found.algorithm,
        metric=estimator.metric,
        privacy=tuple(m.describe() for m in models),
        n_records=n,
        suppressed=outcome.suppressed,
        suppression_limit=limit,
        classes=outcome.classes,
        metrics=FrozenDict(outcome.metrics),
        nodes_evaluated=found.nodes_evaluated,
        lattice_size=outcome.lattice_size,
        timing=stage_timing(t0, t1, t2, t3),
        details=FrozenDict(details),
    )
    return dataclasses.replace(result, **verified_fields(verification, safety)), plan
