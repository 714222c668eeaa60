"""Mondrian on Apache Spark: cut on the driver from the snapshot, partition per block.

:func:`mondrian_spark` anonymizes a Spark DataFrame with Mondrian under k-anonymity,
ℓ-diversity, t-closeness or any other class-local privacy model that is monotone under
generalization:

1. the Spark engine counts the distinct combinations of quasi-identifier codes, with the
   sensitive values the models read (the detail snapshot; the records stay on the
   executors), and refuses missing values and values outside a hierarchy with the
   default engine's errors;
2. the driver cuts the snapshot with Mondrian's rules until every block holds at most
   ``max_block_records`` records (:func:`~anonkit.algorithms.mondrian.blocks.snapshot_blocks`
   for k-anonymity alone; :func:`~anonkit.algorithms.mondrian.spark_blocks.judged_blocks`
   when models read sensitive values: every part of a cut satisfies them as one class);
3. each record gets its block by a broadcast join of its codes on the snapshot's block
   table; the records are repartitioned so that one task holds one block, and each task
   runs :class:`~anonkit.algorithms.mondrian.Mondrian` on its block (strict or relaxed)
   with the table's hierarchies, so labels mean the same in every block, and with the
   models judging against the *whole table's* sensitive distribution
   (:class:`~anonkit.algorithms.mondrian.spark_blocks.AgainstTable`);
4. the release is verified on its tally (``groupBy`` of the released labels and the
   sensitive values, counted in Spark) by :func:`anonkit.verify.verify_release`.

Every block's classes satisfy the models, and classes of different blocks that share
their labels merge into classes that still satisfy them (the models are monotone under
generalization), so the release satisfies them on the whole table; step 4 checks it.

What stays single-machine: each block (its records are one task's memory), the snapshot
and the block table (on the driver, one row per distinct combination of the
quasi-identifiers and the sensitive values). Where the implementation had to choose:
models that judge the whole set of classes, read a population table or are not monotone
under merging are refused (:func:`~anonkit.algorithms.mondrian.spark_blocks.block_models`);
quasi-identifiers are cut along hierarchies (numeric ranges would need the snapshot to
carry the numbers); the per-block runs use Spark's RDD ``partitionBy`` +
``mapPartitions`` (pandas UDFs would need pyarrow, which the ``spark`` extra does not
install). The release is a Spark DataFrame with the quasi-identifiers as text; the order
of the records is Spark's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from anonkit._validation import check_choice, check_int
from anonkit.algorithms.mondrian.attributes import Axis, HierarchicalQI, SensitiveAttribute
from anonkit.algorithms.mondrian.blocks import snapshot_blocks
from anonkit.algorithms.mondrian.estimator import Mondrian
from anonkit.algorithms.mondrian.frame import encode_frame, release_frame
from anonkit.algorithms.mondrian.partition import MODES, SPLITS
from anonkit.algorithms.mondrian.spark_blocks import (
    AgainstTable,
    SnapshotDetail,
    block_models,
    judged_blocks,
)
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.values import as_text, sensitive_labels
from anonkit.engines.counting import COUNT, check_counts
from anonkit.exceptions import (
    DataError,
    InputChangedError,
    ParameterError,
    PrivacyUnattainableError,
)
from anonkit.models import KAnonymity, PrivacyModel, split_k_anonymity
from anonkit.models.base import SENSITIVE_HISTOGRAM
from anonkit.models.judge import SensitiveSource, first_violated, summarize_classes
from anonkit.progress import Progress, start_stage
from anonkit.verify import Verification, verify_release

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["SparkMondrian", "mondrian_spark"]

OWNER = "mondrian_spark"
_BLOCK = "__anonkit_block__"
_ROW = "__anonkit_row__"
#: The suffix of the columns holding the codes (:meth:`SparkEngine._codes`).
_CODED = "__anonkit_"


@dataclass(frozen=True)
class SparkMondrian:
    """What :func:`mondrian_spark` returns.

    Attributes
    ----------
    release
        The released Spark DataFrame (quasi-identifiers as text, other columns unchanged).
    verification
        The re-check of the release's tally (:func:`anonkit.verify.verify_release`).
    tally
        The release counted: one row per combination of released labels and sensitive
        values, the records in ``COUNT`` (what the verification read).
    counts
        The table's snapshot: one row per distinct combination of the quasi-identifiers'
        level-0 codes, the records in ``COUNT``.
    n_records, n_blocks, largest_block
        Records, blocks cut on the driver and the records of the largest block.
    details
        JSON-ready figures (mode, split, models, blocks).
    """

    release: DataFrame
    verification: Verification
    tally: pl.DataFrame
    counts: pl.DataFrame
    n_records: int
    n_blocks: int
    largest_block: int
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class _BlockJob:
    """What every task needs to partition its block (pickled to the executors)."""

    names: list[str]
    polars_types: dict[str, pl.DataType | None]
    qi: list[str]
    hierarchies: dict[str, Hierarchy]
    models: list[Any]
    sensitive: list[tuple[str, tuple[str, ...], Hierarchy | None]]
    mode: str
    split: str

    def __call__(self, rows: Iterable[tuple[Any, tuple[Any, ...]]]) -> Iterator[tuple[Any, ...]]:
        records = [tuple(r) for _, r in rows]
        if not records:
            return
        frame = pl.DataFrame(
            records, schema=self.polars_types, orient="row", infer_schema_length=None
        )
        # a block's release depends on its records only, not on the order Spark's
        # shuffle delivers them in (relaxed halves follow record order)
        frame = frame.sort(self.names, nulls_last=True)
        qis = encode_frame(frame, quasi_identifiers=self.qi, hierarchies=self.hierarchies)
        sens = []
        for name, labels, h in self.sensitive:
            text = as_text(frame[name])
            codes = text.replace_strict(
                list(labels), list(range(len(labels))), default=-1, return_dtype=pl.Int64
            )
            if int((codes < 0).sum()) or text.null_count():
                raise DataError(
                    f"Column {name!r}: a block holds values the table's count did not see "
                    "(the input changed between two reads?)"
                )
            sens.append(SensitiveAttribute(name, codes.to_numpy(), labels, h))
        part = Mondrian(mode=self.mode, split=self.split).fit(qis, self.models, sensitive=sens)
        yield from release_frame(frame, part).iter_rows()


def _models(k: int | None, models: Sequence[PrivacyModel]) -> list[PrivacyModel]:
    if k is not None:
        check_int(k, "k", OWNER, low=1)
    out = ([KAnonymity(k)] if k is not None else []) + list(models)
    if not out:
        raise ParameterError("k", OWNER, "given (or a list of privacy models in 'models')", None)
    for m in out:
        if not isinstance(m, PrivacyModel):
            raise ParameterError("models", OWNER, "privacy models", type(m).__name__)
    return block_models(out)


def _sensitive(
    counts: pl.DataFrame,
    snap: pl.DataFrame,
    wanted: Sequence[str],
    hierarchies: Mapping[str, Hierarchy],
) -> SnapshotDetail:
    """The sensitive values of the snapshot's rows (``snap`` holds each distinct
    combination's row index in :data:`_ROW`), with the table's labels and totals."""
    sources, rows, codes, weights = [], [], [], []
    qi = [c for c in snap.columns if c not in (COUNT, _ROW)]
    keyed = counts.join(snap.select([*qi, _ROW]), on=qi) if wanted else counts
    for s in wanted:
        per = keyed.group_by([_ROW, s]).agg(pl.col(COUNT).sum())
        labels = sensitive_labels(per[s].unique().to_list(), s, hierarchies.get(s))
        code = per[s].replace_strict(list(labels), list(range(len(labels))), return_dtype=pl.Int64)
        n = per[COUNT].to_numpy().astype(np.int64)
        totals = np.bincount(code.to_numpy(), weights=n, minlength=len(labels)).astype(np.int64)
        sources.append(SensitiveSource(s, labels, totals, hierarchies.get(s)))
        rows.append(per[_ROW].to_numpy().astype(np.int64))
        codes.append(code.to_numpy())
        weights.append(n)
    return SnapshotDetail.build(sources, rows, codes, weights, snap.height)


def mondrian_spark(
    source: DataFrame,
    *,
    quasi_identifiers: Sequence[str],
    hierarchies: Mapping[str, Hierarchy],
    k: int | None = None,
    models: Sequence[PrivacyModel] = (),
    sensitive_hierarchies: Mapping[str, Hierarchy] | None = None,
    mode: str = "strict",
    split: str = "widest",
    max_block_records: int = 1_000_000,
    session: SparkSession | None = None,
    progress: Progress | None = None,
    output: str | Path | None = None,
    separator: str | None = None,
    check_input: Callable[[], None] | None = None,
) -> SparkMondrian:
    """Mondrian on a Spark DataFrame (see the module docstring).

    Parameters
    ----------
    source
        The table (a Spark DataFrame, or a path the session reads).
    quasi_identifiers
        The columns to partition, each with a hierarchy in ``hierarchies``.
    hierarchies
        One :class:`~anonkit.core.hierarchy.Hierarchy` per quasi-identifier.
    k
        Shortcut for ``KAnonymity(k)`` among the models.
    models
        Privacy models the release must satisfy (with ``k``: all of them); class-local
        and monotone under generalization (k-anonymity, ℓ-diversity, t-closeness,
        β-likeness).
    sensitive_hierarchies
        Hierarchies of sensitive attributes (hierarchical t-closeness); their values must
        be leaves.
    mode, split
        As for :class:`~anonkit.algorithms.mondrian.Mondrian` (``mode`` applies within
        the blocks; the driver's cuts are strict).
    max_block_records
        The most records one task partitions (the driver cuts until blocks fit).
    session
        The Spark session (default: the source's).
    progress
        Told when each step starts (counting, cutting, partitioning and verifying).
    output
        Write the release there (:meth:`~anonkit.engines.spark_engine.SparkEngine.write`:
        Parquet, CSV or TSV by the extension), verify what was written, and only then
        rename it into place; the returned release reads it.
    separator
        The field separator of a CSV or TSV ``output`` (default: ``,`` and tab).
    check_input
        Called once the release is tallied, before it is published: raises if the
        input changed since it was counted (the caller's check of its file).

    Returns
    -------
    SparkMondrian

    Raises
    ------
    ParameterError
        For a bad ``k``, ``mode``, ``split`` or ``max_block_records``, a
        quasi-identifier without a hierarchy, or a model that cannot run per block.
    UnknownColumnError, MissingValuesError, ValuesNotInHierarchyError, EmptyDataError
        As the default engine raises them for the same data.
    PrivacyUnattainableError
        If the whole table, taken as one class, does not satisfy the models.
    InputChangedError
        If the release holds more or fewer records than were counted (the input changed
        between the count and the release pass), or ``check_input`` raises it.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    from anonkit.engines.spark_engine import SparkEngine, polars_types
    from anonkit.engines.spark_frames import named, quoted

    all_models = _models(k, models)
    check_int(max_block_records, "max_block_records", OWNER, low=1)
    check_choice(mode, "mode", OWNER, MODES)
    check_choice(split, "split", OWNER, SPLITS)
    qi = list(quasi_identifiers)
    lacking = [c for c in qi if not isinstance(hierarchies.get(c), Hierarchy)]
    if lacking:
        raise ParameterError(
            "hierarchies", OWNER, "a Hierarchy for every quasi-identifier", lacking
        )
    wanted = list(dict.fromkeys(a for m in all_models for a in m.sensitive_attributes))
    sens_h = dict(sensitive_hierarchies or {})
    hs = [hierarchies[c] for c in qi]
    engine = SparkEngine(session)
    df = engine.frame(source, [*qi, *wanted])
    start_stage(progress, "Counting")
    counts = engine.group_counts(df, qi, hs, wanted)
    check_counts(counts, qi, wanted, lambda j: engine.unknown_values(df, qi[j], hs[j]), hs)
    snap = (
        counts.group_by(qi, maintain_order=True)
        .agg(pl.col(COUNT).sum())
        .with_row_index(_ROW)
        .select([*qi, COUNT, _ROW])
        .cast({_ROW: pl.Int64})
    )
    weights = snap[COUNT].to_numpy().astype(np.int64)
    n_records = int(weights.sum())
    detail = _sensitive(counts, snap, wanted, sens_h)
    root = summarize_classes(
        np.array([n_records], dtype=np.int64),
        n_records,
        detail.sources,
        [s.totals[None, :] for s in detail.sources],
    )
    failed = first_violated(all_models, root)
    if failed is not None:
        raise PrivacyUnattainableError(
            f"The whole table ({n_records} records), taken as one equivalence class, does "
            f"not satisfy {failed.describe()}; Mondrian never suppresses records, so no "
            "release satisfies the privacy models.",
            requirement=failed.describe(),
        )

    start_stage(progress, "Cutting the snapshot into blocks")
    axes = [Axis.of(HierarchicalQI(c, snap[c].to_numpy(), h)) for c, h in zip(qi, hs, strict=True)]
    k_min, _ = split_k_anonymity(all_models)
    if all(isinstance(m, KAnonymity) for m in all_models):
        block = snapshot_blocks(axes, weights, k=int(k_min or 1), max_records=max_block_records)
    else:
        block = judged_blocks(axes, weights, all_models, detail, max_records=max_block_records)
    n_blocks = int(block.max()) + 1
    block_sizes = np.bincount(block, weights=weights, minlength=n_blocks)

    # each record's block: a broadcast join of its codes on the snapshot's block table
    start_stage(progress, "Partitioning the blocks")
    coded_names = [c + _CODED for c in qi]
    table = df.sparkSession.createDataFrame(
        [
            (*row, int(b))
            for row, b in zip(snap.select(qi).iter_rows(), block.tolist(), strict=True)
        ],
        ", ".join([*(f"{quoted(c)} bigint" for c in coded_names), f"`{_BLOCK}` int"]),
    )
    coded = engine._codes(df, qi, hs)  # noqa: SLF001 (the engine's own lookup of codes)
    blocked = coded.join(F.broadcast(table), on=coded_names, how="inner").select(
        *[named(c) for c in df.columns], F.col(_BLOCK)
    )
    totals = {s.name: s.totals for s in detail.sources}
    job = _BlockJob(
        names=list(df.columns),
        polars_types=polars_types(df),
        qi=qi,
        hierarchies=dict(zip(qi, hs, strict=True)),
        models=[
            AgainstTable(m, totals, n_records) if SENSITIVE_HISTOGRAM in m.requires else m
            for m in all_models
        ],
        sensitive=[(s.name, s.labels, s.hierarchy) for s in detail.sources],
        mode=mode,
        split=split,
    )
    released_schema = StructType(
        [StructField(f.name, StringType(), True) if f.name in qi else f for f in df.schema.fields]
    )
    rows = (
        blocked.rdd.map(lambda r: (r[-1], tuple(r[:-1])))
        .partitionBy(n_blocks, lambda b: b)
        .mapPartitions(job)
    )
    release = df.sparkSession.createDataFrame(rows, released_schema)

    def verify(written: DataFrame) -> tuple[pl.DataFrame, Verification]:
        start_stage(progress, "Verifying the release")
        tally = engine.tally(written, [*qi, *wanted])
        read = int(tally[COUNT].sum())
        if read != n_records:  # a record no block holds is left out by the join
            raise InputChangedError(None, abs(read - n_records))
        if check_input is not None:
            check_input()
        return tally, verify_release(
            tally,
            quasi_identifiers=qi,
            models=all_models,
            n_records=n_records,
            suppression_limit=0.0,
            sensitive_hierarchies=sens_h or None,
            weight=COUNT,
        )

    if output is None:
        tally, verification = verify(release)
    else:
        checked: list[tuple[pl.DataFrame, Verification]] = []
        start_stage(progress, "Writing the release")
        engine.write(
            release,
            output,
            check=lambda written: checked.append(verify(written)),
            separator=separator,
        )
        (tally, verification), release = checked[0], engine.read(output, separator=separator)
    largest = int(block_sizes.max())
    return SparkMondrian(
        release=release,
        verification=verification,
        tally=tally,
        counts=snap.select([*qi, COUNT]),
        n_records=n_records,
        n_blocks=n_blocks,
        largest_block=largest,
        details={
            "mode": mode,
            "split": split,
            "privacy": [m.describe() for m in all_models],
            "blocks": n_blocks,
            "largest_block": largest,
            "max_block_records": max_block_records,
        },
    )
