"""Mondrian on a table streamed from disk: ``Mondrian(engine="streaming")`` (issue 17).

The in-memory fit holds the whole table twice over (the frame read, then the release
with eight new text columns: 3.5 GB at 10M rows). Here, as in the streamed full-domain
fit (:mod:`anonkit.estimators.scaled`), the records are touched through the
:class:`~anonkit.engines.streaming_engine.StreamingEngine`, and only what Mondrian works
on sits in memory:

1. the column names give every column its role;
   :data:`~anonkit.estimators.steps.LEAK_SAMPLE` records spread over the table are
   checked for leaks; built
   hierarchies read their column's distinct values;
2. one pass reads each record's leaf code of every quasi-identifier (int32, 4 bytes a
   cell) and of every sensitive attribute a model reads, with the default engine's
   errors for missing values and values outside a hierarchy;
3. :class:`~anonkit.algorithms.mondrian.Mondrian` partitions those codes (strict or
   relaxed, every model that needs no population table); each record's codes, packed
   into one integer, and its class are kept, the rest is freed;
4. the release pass labels the ``i``-th record with its class's labels (a gather by row
   number) after checking that the record still holds the codes step 2 read (else
   :class:`~anonkit.exceptions.InputChangedError`, nothing written); with ``output`` it
   is written to a staging file, verified by reading that file back (tallied by its
   released labels, as every release is verified) and then renamed; without, the query
   itself is tallied and verified and returned as a ``polars.LazyFrame``.

The input file is watched between the passes as in the full-domain fit
(:mod:`anonkit.estimators.input_watch`): an ``InputChangedError`` names it, and a file
that changed after the first pass is refused before the release is published.

The loss metrics are measured as on Spark (:mod:`anonkit.metrics.tallied`), from counts:
each quasi-identifier's records per leaf, counted from the codes the first pass read, and
the release's tally its verification grouped; the KL divergence, which needs each record
paired with its release, is left to :func:`anonkit.evaluate` on the release.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from anonkit.algorithms.mondrian import HierarchicalQI, SensitiveAttribute
from anonkit.algorithms.mondrian import Mondrian as Partitioning
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.schema import AttributeRole
from anonkit.engines.base import resolve_hierarchies
from anonkit.engines.counting import COUNT
from anonkit.engines.streaming_engine import RecordRelease, StreamingEngine, record_keys
from anonkit.estimators.bare import DETAIL as BARE
from anonkit.estimators.bare import starred_everywhere
from anonkit.estimators.base import Columns, stage_timing, verified_fields
from anonkit.estimators.input_watch import InputWatch
from anonkit.estimators.steps import (
    TallyCheck,
    engine_roles,
    head_leak_check,
    local_result,
    refuse_numeric,
    streamed_source,
    write_verified,
)
from anonkit.exceptions import InputChangedError, ParameterError
from anonkit.metrics.classes import profile_sizes, tally_sizes
from anonkit.metrics.tallied import hierarchy_losses
from anonkit.models import split_k_anonymity
from anonkit.models.base import POPULATION_COUNT
from anonkit.progress import start_stage
from anonkit.result import AnonymizationResult
from anonkit.verify import Verification

if TYPE_CHECKING:
    from anonkit.estimators.local import Mondrian

__all__ = ["fit_mondrian_streaming"]


def fit_mondrian_streaming(
    estimator: Mondrian, source: Any, columns: Columns, *, reason: str
) -> tuple[AnonymizationResult, dict[str, Hierarchy]]:
    """Fit ``estimator`` (Mondrian) on a file or a polars lazy query, streamed; see the
    module docstring.

    Returns
    -------
    (result, hierarchies)
        The result and each quasi-identifier's hierarchy.

    Raises
    ------
    ParameterError
        For numeric quasi-identifiers (cut along hierarchies here) and models that read
        a population table.
    UndeclaredColumnsError, UnknownColumnError, LeakError, MissingValuesError,
    ValuesNotInHierarchyError, EmptyDataError, PrivacyUnattainableError
        As :func:`~anonkit.estimators.spark_mondrian.fit_mondrian_spark` raises them.
    InputChangedError
        If the input changed between the pass that read the codes and the release pass.
    """
    t0 = time.perf_counter()
    privacy = estimator.privacy
    assert privacy is not None
    progress = estimator.progress
    refuse_numeric(columns.numeric, "streaming")
    models = privacy.model_list
    needs_population = [m.describe() for m in models if POPULATION_COUNT in m.requires]
    if needs_population:
        raise ParameterError(
            "privacy",
            "Mondrian",
            "models without a population table with engine='streaming' (or engine='polars')",
            needs_population,
        )
    qi, specs = columns.quasi_identifiers, columns.specs
    engine = StreamingEngine()
    watch = InputWatch.start(source)  # before the first pass: scan_table's checks read it
    with watch.passes():  # a read that fails on a file changing under it says so
        source = streamed_source(source, engine)
        schema, wanted = engine_roles(engine, source, columns, models)
        safety = head_leak_check(estimator, engine, source, qi, schema, estimator.output)

    start_stage(progress, "Reading codes")
    with watch.passes():
        hierarchies = resolve_hierarchies(engine, source, qi, specs)
        given = [c for c in wanted if c in specs]
        sens_h = dict(zip(given, resolve_hierarchies(engine, source, given, specs), strict=True))
        codes = engine.record_codes(source, qi, hierarchies)
    n = int(codes[0].shape[0])
    # each quasi-identifier's records per leaf: the original side of the loss metrics
    leaf_counts = [
        np.bincount(c, minlength=len(h.leaves)) for c, h in zip(codes, hierarchies, strict=True)
    ]
    models = privacy.checked(n)
    sens = [
        SensitiveAttribute(c, values, labels, sens_h.get(c))
        for c, (labels, values) in zip(
            wanted, engine.sensitive_codes(source, wanted, sens_h), strict=True
        )
    ]
    keys = record_keys(codes, hierarchies)
    qis = [HierarchicalQI(c, v, h) for c, v, h in zip(qi, codes, hierarchies, strict=True)]
    del codes
    t1 = time.perf_counter()

    start_stage(progress, "Mondrian", "rounds")
    part = Partitioning(
        mode=estimator.mode,
        split=estimator.split,
        numeric_release=estimator.numeric_release,
        progress=progress,
    ).fit(qis, models, sensitive=sens)
    del qis, sens
    dropped = [*schema.columns(AttributeRole.IDENTIFYING), *schema.dropped]
    release = RecordRelease(
        tuple(qi),
        tuple(hierarchies),
        keys,
        part.class_of.astype(np.uint32),
        tuple(pl.Series(a.name, a.table, dtype=pl.String).gather(a.codes) for a in part.attributes),
        drop=tuple(dict.fromkeys(dropped)),
    )
    tables = {a.name: a.table for a in part.attributes}  # each column's released labels
    details: dict[str, Any] = {
        "engine": {"name": "streaming", "reason": reason},
        "mondrian": part.figures(),
    }
    del part, keys
    gc.collect()  # the partitioning's arrays, before the release pass
    t2 = time.perf_counter()

    start_stage(progress, "Releasing")
    limit = float(privacy.suppression_limit)

    check = TallyCheck(qi, wanted, models, n, limit, specs, dict(zip(qi, hierarchies, strict=True)))

    def verify(written: Any) -> tuple[Verification, pl.DataFrame]:
        verified = _verify(engine, written, check, tables)
        watch.check()  # before the release is published
        return verified

    output = estimator.output
    with watch.passes():
        if output is not None:
            (verification, tallied), released = write_verified(
                engine,
                engine.apply_records(source, release),
                output,
                verify,
                progress=progress,
                separator=estimator.output_separator,
            )
        else:
            released = engine.apply_records(source, release)
            start_stage(progress, "Verifying the release")
            verification, tallied = verify(released)
    sizes, starred = tally_sizes(tallied, qi, COUNT)
    bare = starred_everywhere(tallied, columns)
    if bare:
        details[BARE] = bare
    k, _ = split_k_anonymity(models)
    start_stage(progress, "Measuring loss")
    present = [np.flatnonzero(counts) for counts in leaf_counts]
    metrics = hierarchy_losses(
        [(codes, counts[codes]) for codes, counts in zip(present, leaf_counts, strict=True)],
        tallied,
        COUNT,
        dict(zip(qi, hierarchies, strict=True)),
        sizes,
        n_suppressed=starred,
        k=k,
    )
    t3 = time.perf_counter()

    result = local_result(
        released,
        algorithm="mondrian",
        metric="none",
        models=models,
        n_records=n,
        suppression_limit=limit,
        classes=profile_sizes(sizes, k=k or 1, suppressed=starred),
        metrics=metrics,
        timing=stage_timing(t0, t1, t2, t3),
        details=details,
        **verified_fields(verification, safety),
    )
    return result, dict(zip(qi, hierarchies, strict=True))


def _verify(
    engine: StreamingEngine,
    release: Any,
    check: TallyCheck,
    labels: Mapping[str, Sequence[str]],
) -> tuple[Verification, pl.DataFrame]:
    """The independent re-check, on the release tallied by its released labels, and the
    tally (one row per released label combination, with its records in ``COUNT``: the
    class profile and the columns starred everywhere are read from it). The tally groups
    the released text through each column's label table (``labels``:
    :meth:`~anonkit.engines.streaming_engine.StreamingEngine.tally_labels`).

    Raises
    ------
    InputChangedError
        If the release holds more or fewer records than were read (the input changed).
    """
    tallied = engine.tally_labels(release, check.columns, labels)
    total = int(tallied[COUNT].sum())
    if total != check.n_records:
        raise InputChangedError(None, abs(total - check.n_records))
    return check.verify(tallied), tallied
