"""Full-domain anonymization of data that stays where it lives (issue 17).

When the engine does not hold the records in this process (``engine="streaming"``: a
file or a polars lazy query, streamed; ``engine="spark"``: a Spark DataFrame), the fit
touches the records only through the engine (:mod:`anonkit.engines.base`):

1. the column names give every column its role, as in memory;
2. the first :data:`LEAK_SAMPLE` records are checked for leaks;
3. hierarchies built from the data (``{"type": "intervals", ...}`` or none) read the
   column's distinct values;
4. one grouped count gives the bottom snapshot (with the sensitive values and population
   counts models need); the search runs on it, in memory, as for any table;
5. the release is the engine's lazy query (or Spark plan) of the chosen transformation;
   with ``output`` it is written to a temporary file, verified by reading that file back
   (tallied by released values, so the check is as independent as in memory) and only
   then renamed to ``output``; without, the query itself is tallied and verified.

The release is returned in the engine's type: a ``polars.LazyFrame`` (reading ``output``
when given) or a Spark DataFrame.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import HierarchySpec, resolve_hierarchy
from anonkit.core.schema import AttributeRole, Schema
from anonkit.core.transform import ReleasePlan
from anonkit.engines.base import Engine, SensitiveSpec
from anonkit.engines.counting import COUNT
from anonkit.estimators.searching import objective, search
from anonkit.exceptions import PrivacyUnattainableError, UnknownColumnError
from anonkit.models import PrivacyModel
from anonkit.models.base import CLASS_SIZE, POPULATION_COUNT
from anonkit.progress import start_stage
from anonkit.result import AnonymizationResult
from anonkit.verify import Verification, verify_release

if TYPE_CHECKING:
    from anonkit.estimators.full_domain import FullDomain

__all__ = ["LEAK_SAMPLE", "fit_out_of_core"]

#: Records the leak check reads from a table it cannot hold (the first ones).
LEAK_SAMPLE = 200_000


def _hierarchies(
    engine: Engine,
    source: Any,
    population: Any,
    qi: Sequence[str],
    specs: Mapping[str, HierarchySpec],
) -> list[Hierarchy]:
    """Each quasi-identifier's hierarchy; built ones read the distinct values (of the
    data and the population) through the engine."""
    out = []
    for c in qi:
        spec = specs.get(c)
        values: list[str] = []
        if spec is None or isinstance(spec, Mapping):
            values = engine.distinct(source, c)
            if population is not None:
                values = list(dict.fromkeys([*values, *engine.distinct(population, c)]))
        out.append(resolve_hierarchy(c, spec, pl.Series(c, values, dtype=pl.String)))
    return out


def _verify(
    engine: Engine,
    release: Any,
    *,
    qi: Sequence[str],
    wanted: Sequence[str],
    models: Sequence[PrivacyModel],
    n_records: int,
    suppression_limit: float,
    specs: Mapping[str, HierarchySpec],
    population: Any,
    hierarchies: Mapping[str, Hierarchy],
) -> Verification:
    """The independent re-check, on the release tallied by its released values."""
    tallied = engine.tally(release, [*qi, *wanted])
    pop = None
    if population is not None:
        # the population's records, rebuilt from its tally (k-map and delta-presence match
        # them against the released classes)
        counts = engine.tally(population, list(qi))
        rows = np.repeat(np.arange(counts.height), counts[COUNT].to_numpy())
        pop = counts.select(qi)[rows]
    return verify_release(
        tallied,
        quasi_identifiers=qi,
        models=models,
        n_records=n_records,
        suppression_limit=suppression_limit,
        sensitive_hierarchies={c: specs[c] for c in wanted if c in specs},
        population=pop,
        hierarchies=dict(hierarchies),
        weight=COUNT,
    )


def fit_out_of_core(
    estimator: FullDomain,
    engine: Engine,
    source: Any,
    *,
    quasi_identifiers: Sequence[str],
    specs: dict[str, HierarchySpec],
    roles: tuple[Sequence[str], Sequence[str], Sequence[str], str | None],
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
    identifying, sensitive, insensitive, others = roles
    qi = list(quasi_identifiers)
    names = engine.columns(source)
    models = privacy.model_list
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
    population = privacy.population if any(POPULATION_COUNT in m.requires for m in models) else None
    if population is not None:
        missing = [c for c in qi if c not in engine.columns(population)]
        if missing:
            raise UnknownColumnError(missing, engine.columns(population))
    sample = engine.head(source, LEAK_SAMPLE) if estimator.leak_check else pl.DataFrame()
    safety = estimator._leak_check(sample, qi, schema)
    if estimator.leak_check:
        safety["leak_check_records"] = sample.height

    start_stage(progress, "Counting")
    detailed = any(m.requires - {CLASS_SIZE} for m in models)
    hierarchies = _hierarchies(engine, source, population, qi, specs)
    if detailed:
        sens = [
            SensitiveSpec(c, _hierarchies(engine, source, None, [c], specs)[0])
            if c in specs
            else SensitiveSpec(c)
            for c in wanted
        ]
        table = engine.count_detail(source, qi, hierarchies, sens, population=population)
    else:
        table = engine.count(source, qi, hierarchies)
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
    check = {
        "qi": qi,
        "wanted": wanted,
        "models": models,
        "n_records": n,
        "suppression_limit": limit,
        "specs": specs,
        "population": population,
        "hierarchies": by_name,
    }
    if output is not None and "://" in str(output):
        # a cluster file system (hdfs://, s3a://): the release plan is verified as a query,
        # then the engine writes it (atomically, on that file system)
        start_stage(progress, "Verifying the release")
        verification = _verify(engine, engine.apply(source, masked), **check)  # type: ignore[arg-type]
        engine.write(engine.apply(source, plan), output)  # type: ignore[arg-type]
        release: Any = engine.read(output)  # type: ignore[arg-type]
    elif output is not None:
        out = Path(output)
        staging = out.with_name(f".{out.stem}.staging{out.suffix}")
        try:
            engine.write(engine.apply(source, masked), staging)
            start_stage(progress, "Verifying the release")
            verification = _verify(engine, staging, **check)  # type: ignore[arg-type]
            if estimator.suppressed == "drop" and outcome.suppressed:
                engine.write(engine.apply(source, plan), out)
            else:
                _publish(staging, out)
        finally:
            _remove(staging)
        release = engine.read(out)
    else:
        start_stage(progress, "Verifying the release")
        verification = _verify(engine, engine.apply(source, masked), **check)  # type: ignore[arg-type]
        release = engine.apply(source, plan)
    t3 = time.perf_counter()

    found = outcome.found
    details: dict[str, Any] = {"engine": engine.name, "search": outcome.search_details}
    aim = objective(estimator.metric, estimator.metric_options, qi, "FullDomain", found.cost)
    if aim is not None:
        details["objective"] = aim
    transformation = MappingProxyType(dict(zip(qi, found.levels, strict=True)))
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
        metrics=MappingProxyType(outcome.metrics),
        nodes_evaluated=found.nodes_evaluated,
        lattice_size=outcome.lattice_size,
        timing=MappingProxyType(
            {"encode": t1 - t0, "search": t2 - t1, "release": t3 - t2, "total": t3 - t0}
        ),
        details=MappingProxyType(details),
    )
    result = dataclasses.replace(
        result,
        verified=verification.verified,
        risk=MappingProxyType(dict(verification.risk)),
        checks=MappingProxyType({**safety, "models": [dict(m) for m in verification.models]}),
    )
    return result, plan


def _remove(path: Path) -> None:
    """Remove a file or a folder of part files (Spark), if it exists."""
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _publish(staging: Path, out: Path) -> None:
    """Move the verified release over ``out`` (a file, or a folder of part files)."""
    if out.is_dir():
        shutil.rmtree(out)
    os.replace(staging, out)
