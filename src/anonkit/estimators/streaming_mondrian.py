"""Mondrian on a table streamed from disk: ``Mondrian(engine="streaming")`` (issue 17).

The in-memory fit holds the whole table twice over (the frame read, then the release
with eight new text columns: 3.5 GB at 10M rows). Here, as in the streamed full-domain
fit (:mod:`anonkit.estimators.scaled`), the records are touched through the
:class:`~anonkit.engines.streaming_engine.StreamingEngine`, and only what Mondrian works
on sits in memory:

1. the column names give every column its role; the first
   :data:`~anonkit.estimators.scaled.LEAK_SAMPLE` records are checked for leaks; built
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

Loss metrics are not measured (as for every local estimator on more than
:data:`~anonkit.estimators.local.LARGE_TABLE` records): :func:`anonkit.evaluate` measures
them on the release.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from anonkit.core.resolve import HierarchySpec
from anonkit.core.schema import AttributeRole, Schema
from anonkit.core.transform import SUPPRESSED
from anonkit.engines.counting import COUNT
from anonkit.engines.streaming_engine import RecordRelease, StreamingEngine, record_keys
from anonkit.estimators.scaled import LEAK_SAMPLE, _hierarchies, _publish, _remove
from anonkit.exceptions import InputChangedError, ParameterError, UnknownColumnError
from anonkit.metrics.classes import profile_sizes
from anonkit.models import split_k_anonymity
from anonkit.models.base import POPULATION_COUNT
from anonkit.progress import start_stage
from anonkit.result import AnonymizationResult
from anonkit.verify import Verification, verify_release

if TYPE_CHECKING:
    from anonkit.estimators.local import Mondrian

__all__ = ["fit_mondrian_streaming"]


def fit_mondrian_streaming(
    estimator: Mondrian,
    source: Any,
    *,
    quasi_identifiers: Sequence[str],
    specs: Mapping[str, HierarchySpec],
    roles: tuple[Sequence[str], Sequence[str], Sequence[str], str | None],
    numeric: Sequence[str],
    reason: str,
) -> AnonymizationResult:
    """Fit ``estimator`` (Mondrian) on a file or a polars lazy query, streamed; see the
    module docstring.

    Raises
    ------
    ParameterError
        For numeric quasi-identifiers (cut along hierarchies here) and models that read
        a population table.
    UndeclaredColumnsError, UnknownColumnError, LeakError
        As the in-memory fit raises them.
    MissingValuesError, ValuesNotInHierarchyError, EmptyDataError
        As the default engine raises them for the same data.
    PrivacyUnattainableError
        If the whole table, as one class, does not satisfy the models.
    InputChangedError
        If the input changed between the pass that read the codes and the release pass.
    """
    from anonkit.algorithms.mondrian import HierarchicalQI, SensitiveAttribute
    from anonkit.algorithms.mondrian import Mondrian as Partitioning

    t0 = time.perf_counter()
    privacy = estimator.privacy
    assert privacy is not None
    progress = estimator.progress
    if numeric:
        raise ParameterError(
            "numeric",
            "Mondrian",
            "empty with engine='streaming' (quasi-identifiers are cut along their "
            "hierarchies; give the numeric columns an interval hierarchy)",
            list(numeric),
        )
    models = privacy.model_list
    needs_population = [m.describe() for m in models if POPULATION_COUNT in m.requires]
    if needs_population:
        raise ParameterError(
            "privacy",
            "Mondrian",
            "models without a population table with engine='streaming' (or engine='polars')",
            needs_population,
        )
    identifying, sensitive, insensitive, others = roles
    qi = list(quasi_identifiers)
    engine = StreamingEngine()
    names = engine.columns(source)
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
    sample = engine.head(source, LEAK_SAMPLE) if estimator.leak_check else pl.DataFrame()
    safety = estimator._leak_check(sample, qi, schema)
    if estimator.leak_check:
        safety["leak_check_records"] = sample.height
    del sample

    start_stage(progress, "Reading codes")
    hierarchies = _hierarchies(engine, source, None, qi, specs)
    given = [c for c in wanted if c in specs]
    sens_h = dict(zip(given, _hierarchies(engine, source, None, given, specs), strict=True))
    codes = engine.record_codes(source, qi, hierarchies)
    n = int(codes[0].shape[0])
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
        "mondrian": {
            "mode": part.mode,
            "split": part.split,
            "numeric_release": part.numeric_release,
            "partitions": part.n_partitions,
            "cuts": part.n_cuts,
            "rounds": part.rounds,
        },
        "loss": "not measured on a streamed table (anonkit.evaluate measures it on the release)",
    }
    del part, keys
    gc.collect()  # the partitioning's arrays, before the release pass
    t2 = time.perf_counter()

    start_stage(progress, "Releasing")
    check = {
        "qi": qi,
        "wanted": wanted,
        "models": models,
        "n_records": n,
        "suppression_limit": float(privacy.suppression_limit),
        "specs": specs,
        "hierarchies": dict(zip(qi, hierarchies, strict=True)),
        "labels": tables,
    }
    output = estimator.output
    if output is not None:
        out = Path(output)
        staging = out.with_name(f".{out.stem}.staging{out.suffix}")
        try:
            engine.write(engine.apply_records(source, release), staging)
            start_stage(progress, "Verifying the release")
            verification, sizes, starred = _verify(engine, staging, **check)  # type: ignore[arg-type]
            _publish(staging, out)
        finally:
            _remove(staging)
        released: Any = engine.read(out)
    else:
        released = engine.apply_records(source, release)
        start_stage(progress, "Verifying the release")
        verification, sizes, starred = _verify(engine, released, **check)  # type: ignore[arg-type]
    t3 = time.perf_counter()

    k, _ = split_k_anonymity(models)
    return AnonymizationResult(
        release=released,
        transformation=MappingProxyType({}),
        algorithm="mondrian",
        metric="none",
        privacy=tuple(m.describe() for m in models),
        n_records=n,
        suppressed=0,
        suppression_limit=float(privacy.suppression_limit),
        classes=profile_sizes(sizes, k=k or 1, suppressed=starred),
        metrics=MappingProxyType({}),
        nodes_evaluated=0,
        lattice_size=0,
        timing=MappingProxyType(
            {"encode": t1 - t0, "search": t2 - t1, "release": t3 - t2, "total": t3 - t0}
        ),
        details=MappingProxyType(details),
        family="local",
        verified=verification.verified,
        risk=MappingProxyType(dict(verification.risk)),
        checks=MappingProxyType({**safety, "models": [dict(m) for m in verification.models]}),
    )


def _verify(
    engine: StreamingEngine,
    release: Any,
    *,
    qi: Sequence[str],
    wanted: Sequence[str],
    models: Sequence[Any],
    n_records: int,
    suppression_limit: float,
    specs: Mapping[str, HierarchySpec],
    hierarchies: Mapping[str, Any],
    labels: Mapping[str, Sequence[str]],
) -> tuple[Verification, np.ndarray[Any, Any], int]:
    """The independent re-check, on the release tallied by its released labels; the
    released classes' sizes and the records starred in every quasi-identifier (the class
    profile, as the in-memory fit draws it from its tally). The tally groups the
    released text through each column's label table (``labels``:
    :meth:`~anonkit.engines.streaming_engine.StreamingEngine.tally_labels`).

    Raises
    ------
    InputChangedError
        If the release holds more or fewer records than were read (the input changed).
    """
    tallied = engine.tally_labels(release, [*qi, *wanted], labels)
    total = int(tallied[COUNT].sum())
    if total != n_records:
        raise InputChangedError(None, abs(total - n_records))
    verification = verify_release(
        tallied,
        quasi_identifiers=qi,
        models=models,
        n_records=n_records,
        suppression_limit=suppression_limit,
        sensitive_hierarchies={c: specs[c] for c in wanted if c in specs},
        hierarchies=dict(hierarchies),
        weight=COUNT,
    )
    star = pl.all_horizontal([pl.col(c) == SUPPRESSED for c in qi])
    sizes = tallied.filter(~star).group_by(qi).agg(pl.col(COUNT).sum())[COUNT].to_numpy()
    return verification, sizes.astype(np.int64), int(tallied.filter(star)[COUNT].sum())
