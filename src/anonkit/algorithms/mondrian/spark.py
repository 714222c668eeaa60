"""Mondrian on Apache Spark: cut on the driver from the snapshot, partition per block.

:func:`mondrian_spark` anonymizes a Spark DataFrame with Mondrian and k-anonymity:

1. the Spark engine counts the distinct combinations of quasi-identifier codes (the
   frequency snapshot; the records stay on the executors) and refuses missing values and
   values outside a hierarchy with the default engine's errors;
2. the driver cuts the snapshot with Mondrian's rules until every block holds at most
   ``max_block_records`` records (:func:`~anonkit.algorithms.mondrian.blocks.snapshot_blocks`;
   each block holds at least k records);
3. each record gets its block by a broadcast join of its codes on the snapshot's block
   table; the records are repartitioned so that one task holds one block, and each task
   runs :class:`~anonkit.algorithms.mondrian.Mondrian` on its block (strict or relaxed)
   with the table's hierarchies, so labels mean the same in every block;
4. the release is verified on its tally (``groupBy`` of the released labels, counted in
   Spark) by :func:`anonkit.verify.verify_release`.

Every block's classes hold at least k records, and classes of different blocks that
share their labels only grow, so the release is k-anonymous on the whole table.

What stays single-machine: each block (its records are one task's memory), the snapshot
and the block table (on the driver, one row per distinct combination). Where the
implementation had to choose: only k-anonymity is supported (models that read a class's
sensitive values against the whole table's, such as t-closeness, would be judged
against a block's), quasi-identifiers are cut along hierarchies (numeric ranges would
need the snapshot to carry the numbers), and the per-block runs use Spark's RDD
``partitionBy`` + ``mapPartitions`` (pandas UDFs would need pyarrow, which the ``spark``
extra does not install). The release is a Spark DataFrame with the quasi-identifiers as
text; the order of the records is Spark's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from anonkit._validation import check_choice, check_int
from anonkit.algorithms.mondrian.attributes import Axis, HierarchicalQI
from anonkit.algorithms.mondrian.blocks import snapshot_blocks
from anonkit.algorithms.mondrian.partition import MODES, SPLITS
from anonkit.core.hierarchy import Hierarchy
from anonkit.engines.counting import COUNT, check_counts
from anonkit.exceptions import PrivacyUnattainableError
from anonkit.models import KAnonymity
from anonkit.verify import Verification, verify_release

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["SparkMondrian", "mondrian_spark"]

OWNER = "mondrian_spark"
_BLOCK = "__anonkit_block__"
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
    n_records, n_blocks, largest_block
        Records, blocks cut on the driver and the records of the largest block.
    details
        JSON-ready figures (mode, split, k, blocks).
    """

    release: DataFrame
    verification: Verification
    n_records: int
    n_blocks: int
    largest_block: int
    details: Mapping[str, Any] = field(default_factory=dict)


def _block_runner(
    names: list[str],
    qi: list[str],
    hierarchies: dict[str, Hierarchy],
    k: int,
    mode: str,
    split: str,
) -> Any:
    """The function each task runs on its block's rows (module-level state only, so
    that Spark can pickle it)."""

    def run(rows: Iterator[tuple[int, Any]]) -> Iterator[tuple[Any, ...]]:
        from anonkit.algorithms.mondrian.frame import fit_frame, release_frame

        records = [tuple(r) for _, r in rows]
        if not records:
            return
        frame = pl.DataFrame(records, schema=names, orient="row", infer_schema_length=None)
        # a block's release depends on its records only, not on the order Spark's
        # shuffle delivers them in (relaxed halves follow record order)
        frame = frame.sort(names, nulls_last=True)
        part = fit_frame(
            frame,
            [KAnonymity(k)],
            quasi_identifiers=qi,
            hierarchies=hierarchies,
            mode=mode,
            split=split,
        )
        yield from release_frame(frame, part).iter_rows()

    return run


def mondrian_spark(
    source: DataFrame,
    *,
    quasi_identifiers: Sequence[str],
    hierarchies: Mapping[str, Hierarchy],
    k: int,
    mode: str = "strict",
    split: str = "widest",
    max_block_records: int = 1_000_000,
    session: SparkSession | None = None,
) -> SparkMondrian:
    """Mondrian with k-anonymity on a Spark DataFrame (see the module docstring).

    Parameters
    ----------
    source
        The table (a Spark DataFrame, or a path the session reads).
    quasi_identifiers
        The columns to partition, each with a hierarchy in ``hierarchies``.
    hierarchies
        One :class:`~anonkit.core.hierarchy.Hierarchy` per quasi-identifier.
    k
        Every released class holds at least ``k`` records.
    mode, split
        As for :class:`~anonkit.algorithms.mondrian.Mondrian` (``mode`` applies within
        the blocks; the driver's cuts are strict).
    max_block_records
        The most records one task partitions (the driver cuts until blocks fit).
    session
        The Spark session (default: the source's).

    Returns
    -------
    SparkMondrian

    Raises
    ------
    ParameterError
        For a bad ``k``, ``mode``, ``split`` or ``max_block_records``, or a
        quasi-identifier without a hierarchy.
    UnknownColumnError, MissingValuesError, ValuesNotInHierarchyError, EmptyDataError
        As the default engine raises them for the same data.
    PrivacyUnattainableError
        If the table holds fewer than ``k`` records.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    from anonkit.engines.spark_engine import SparkEngine

    check_int(k, "k", OWNER, low=1)
    check_int(max_block_records, "max_block_records", OWNER, low=1)
    check_choice(mode, "mode", OWNER, MODES)
    check_choice(split, "split", OWNER, SPLITS)
    qi = list(quasi_identifiers)
    lacking = [c for c in qi if not isinstance(hierarchies.get(c), Hierarchy)]
    if lacking:
        from anonkit.exceptions import ParameterError

        raise ParameterError(
            "hierarchies", OWNER, "a Hierarchy for every quasi-identifier", lacking
        )
    hs = [hierarchies[c] for c in qi]
    engine = SparkEngine(session)
    df = engine.frame(source, qi)
    counts = engine.group_counts(df, qi, hs)
    check_counts(counts, qi, (), lambda j: engine.unknown_values(df, qi[j], hs[j]))
    weights = counts[COUNT].to_numpy().astype(np.int64)
    n_records = int(weights.sum())
    if n_records < k:
        raise PrivacyUnattainableError(
            f"The table holds {n_records} records, fewer than k = {k}; Mondrian never "
            "suppresses records, so no release satisfies k-anonymity.",
            requirement=KAnonymity(k).describe(),
        )
    axes = [
        Axis.of(HierarchicalQI(c, counts[c].to_numpy(), h)) for c, h in zip(qi, hs, strict=True)
    ]
    block = snapshot_blocks(axes, weights, k=k, max_records=max_block_records)
    n_blocks = int(block.max()) + 1
    block_sizes = np.bincount(block, weights=weights, minlength=n_blocks)

    # each record's block: a broadcast join of its codes on the snapshot's block table
    coded_names = [c + _CODED for c in qi]
    table = df.sparkSession.createDataFrame(
        [
            (*row, int(b))
            for row, b in zip(counts.select(qi).iter_rows(), block.tolist(), strict=True)
        ],
        ", ".join([*(f"`{c}` bigint" for c in coded_names), f"`{_BLOCK}` int"]),
    )
    coded = engine._codes(df, qi, hs)  # noqa: SLF001 (the engine's own lookup of codes)
    blocked = coded.join(F.broadcast(table), on=coded_names, how="inner").select(
        *[F.col(f"`{c}`") for c in df.columns], F.col(_BLOCK)
    )

    names = list(df.columns)
    released_schema = StructType(
        [StructField(f.name, StringType(), True) if f.name in qi else f for f in df.schema.fields]
    )
    runner = _block_runner(names, qi, dict(zip(qi, hs, strict=True)), k, mode, split)
    rows = (
        blocked.rdd.map(lambda r: (r[-1], tuple(r[:-1])))
        .partitionBy(n_blocks, lambda b: b)
        .mapPartitions(runner)
    )
    release = df.sparkSession.createDataFrame(rows, released_schema)

    tally_rows = release.groupBy(*qi).agg(F.count(F.lit(1)).alias(COUNT)).collect()
    tally = pl.DataFrame(
        [tuple(r) for r in tally_rows],
        schema={**{c: pl.String for c in qi}, COUNT: pl.Int64},
        orient="row",
    )
    verification = verify_release(
        tally,
        quasi_identifiers=qi,
        models=[KAnonymity(k)],
        n_records=n_records,
        suppression_limit=0.0,
        weight=COUNT,
    )
    return SparkMondrian(
        release=release,
        verification=verification,
        n_records=n_records,
        n_blocks=n_blocks,
        largest_block=int(block_sizes.max()),
        details={
            "mode": mode,
            "split": split,
            "k": k,
            "blocks": n_blocks,
            "largest_block": int(block_sizes.max()),
            "max_block_records": max_block_records,
        },
    )
