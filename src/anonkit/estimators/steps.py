"""Steps the fits through an engine share, and the result of a local recoding.

A fit whose records stay where they live (the full-domain search streamed or on Spark,
:mod:`anonkit.estimators.scaled`; Mondrian on Spark, :mod:`anonkit.estimators.spark_mondrian`;
Mondrian streamed, :mod:`anonkit.estimators.streaming_mondrian`) runs the steps of the
in-memory pipeline (:mod:`anonkit.estimators.base`) through the engine:

1. the column names give every column its role (:func:`engine_roles`);
2. :data:`LEAK_SAMPLE` records spread over the whole table are checked for leaks
   (:func:`head_leak_check`);
3. with ``output``, the release is written to a staging file beside it, verified by
   reading that file back, and only then renamed into place (:func:`write_verified`).

:func:`local_result` fills the result every local recoding reports (no lattice, no
transformation, no record suppression), in memory or not.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import polars as pl

from anonkit._atomic import forget_commit, note_commit
from anonkit._frozen import FrozenDict
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import HierarchySpec
from anonkit.core.schema import AttributeRole, Schema
from anonkit.core.values import check_single_values
from anonkit.engines.base import Engine
from anonkit.engines.counting import COUNT
from anonkit.estimators.base import Columns
from anonkit.estimators.leak_check import PendingLeaks, settle_leaks
from anonkit.exceptions import OutputLocationError, ParameterError, UnknownColumnError
from anonkit.io.tables import scan_table
from anonkit.io.write import output_format, refuse_unwritable
from anonkit.metrics.classes import ClassProfile
from anonkit.metrics.levels import model_attributes
from anonkit.models import PrivacyModel
from anonkit.progress import Progress, start_stage
from anonkit.result import AnonymizationResult
from anonkit.verify import Verification, verify_release

__all__ = [
    "LEAK_SAMPLE",
    "TallyCheck",
    "engine_roles",
    "head_leak_check",
    "local_result",
    "check_numeric",
    "refuse_numeric",
    "write_verified",
]

#: Records the leak check reads from a table it cannot hold (spread over all of it: a
#: column can change anywhere in a file).
LEAK_SAMPLE = 200_000

V = TypeVar("V")


class _LeakChecking(Protocol):
    leak_check: bool

    def _leak_check(
        self, data: pl.DataFrame, qi: Sequence[str], schema: Schema, tallied: Sequence[str] = ()
    ) -> tuple[dict[str, Any], PendingLeaks | None]: ...


def streamed_source(source: Any, engine: Engine) -> Any:
    """``source`` as the streaming engine reads it: a CSV or TSV path scanned as
    :func:`~anonkit.io.tables.scan_table` does (separator sniffed, every record's fields
    counted first, so that a ragged file stops here as :func:`~anonkit.io.tables.read_table`
    stops it); anything else, or another engine, unchanged."""
    if engine.name != "streaming" or not isinstance(source, (str, os.PathLike)):
        return source
    if Path(source).suffix.lower() in (".parquet", ".pq"):
        return source
    return scan_table(Path(source))


def engine_roles(
    engine: Engine, source: Any, columns: Columns, models: Sequence[PrivacyModel]
) -> tuple[Schema, list[str]]:
    """Every column's role from ``source``'s column names, and the attributes the models
    protect (sensitive even when not declared so).

    Raises
    ------
    UndeclaredColumnsError, ParameterError
        As :meth:`Schema.build <anonkit.core.schema.Schema.build>`.
    UnknownColumnError
        If a hierarchy is given for a column ``source`` lacks.
    """
    names = engine.columns(source)
    wanted = model_attributes(models)
    schema = columns.schema(names, wanted)
    unknown = [c for c in columns.specs if c not in names]
    if unknown:
        raise UnknownColumnError(unknown, names)
    return schema, wanted


def head_leak_check(
    estimator: _LeakChecking,
    engine: Engine,
    source: Any,
    qi: Sequence[str],
    schema: Schema,
    output: str | Path | None = None,
) -> dict[str, Any]:
    """The estimator's leak check on about :data:`LEAK_SAMPLE` records spread over the
    whole of ``source`` (:meth:`Engine.sample <anonkit.engines.base.Engine.sample>`; the
    safety checks of the result, ``leak_check_records`` says how many were read), after
    the check that the quasi-identifiers and sensitive attributes hold values anonkit
    reads (:func:`~anonkit.core.values.check_single_values`) and, with ``output``, that
    its format can hold the columns released as they are (before any count, not when the
    release is written)."""
    if estimator.leak_check:
        sample = engine.sample(source, LEAK_SAMPLE)
    else:
        sample = engine.head(source, 1)
    # the columns' types, as reading in memory checks them (a Duration stopped in polars)
    check_single_values(sample.schema, [*qi, *schema.columns(AttributeRole.SENSITIVE)])
    if output is not None:
        kept = [c for c in schema.released_as_is() if c in sample.columns]
        refuse_unwritable({c: sample.schema[c] for c in kept}, output_format(Path(output)))
    safety, pending = estimator._leak_check(sample, qi, schema)
    settle_leaks(safety, pending)
    if estimator.leak_check:
        safety["leak_check_records"] = sample.height
    return safety


def refuse_numeric(numeric: Sequence[str], engine: str, where: str = "") -> None:
    """Refuse numeric quasi-identifiers for Mondrian through ``engine`` (cut along their
    hierarchies there); ``where`` begins the reason (``"on Spark, "``)."""
    if numeric:
        raise ParameterError(
            "numeric",
            "Mondrian",
            f"empty with engine={engine!r} ({where}quasi-identifiers are cut along their "
            "hierarchies; give the numeric columns an interval hierarchy)",
            list(numeric),
        )


def check_numeric(
    numeric: Sequence[str], qi: Sequence[str], columns: Sequence[str], owner: str
) -> None:
    """Refuse numeric columns that are not in the data (an unknown column, the data's
    columns listed) or not quasi-identifiers."""
    absent = [c for c in numeric if c not in columns]
    if absent:
        raise UnknownColumnError(absent, columns)
    others = [c for c in numeric if c not in qi]
    if others:
        raise ParameterError("numeric", owner, "quasi-identifiers only", others)


@dataclass(frozen=True, eq=False)
class TallyCheck:
    """What the verification of a release tallied by its released values reads (the
    records each row stands for in :data:`~anonkit.engines.counting.COUNT`)."""

    quasi_identifiers: list[str]
    wanted: list[str]
    models: Sequence[PrivacyModel]
    n_records: int
    suppression_limit: float
    specs: Mapping[str, HierarchySpec]
    hierarchies: Mapping[str, Hierarchy]

    @property
    def columns(self) -> list[str]:
        """The columns to tally: the quasi-identifiers and the protected attributes."""
        return [*self.quasi_identifiers, *self.wanted]

    def verify(self, tallied: pl.DataFrame, population: pl.DataFrame | None = None) -> Verification:
        """:func:`~anonkit.verify.verify_release` of ``tallied``.

        Raises
        ------
        ReleaseVerificationError
            If the release fails a model or suppresses too much.
        """
        return verify_release(
            tallied,
            quasi_identifiers=self.quasi_identifiers,
            models=self.models,
            n_records=self.n_records,
            suppression_limit=self.suppression_limit,
            sensitive_hierarchies={c: self.specs[c] for c in self.wanted if c in self.specs},
            population=population,
            hierarchies=dict(self.hierarchies),
            weight=COUNT,
        )


def write_verified(
    engine: Engine,
    release: Any,
    output: str | Path,
    verify: Callable[[Any], V],
    *,
    progress: Progress | None,
    final: Callable[[Any], Any] | None = None,
    separator: str | None = None,
) -> tuple[V, Any]:
    """Write ``release`` to a staging file beside ``output``, verify what was written
    (``verify`` of the staging file read back by the engine), then rename it to
    ``output``; with ``final``, write ``final`` of the staging file read back there
    instead (the release as published, derived from the one verified, not from another
    pass over the source, which may have changed). The staging file is removed whatever
    happens. A CSV or TSV release is written and read back with ``separator`` (default:
    ``,`` and tab).

    Returns
    -------
    tuple
        What ``verify`` returned, and ``output`` read back by the engine.
    """
    out = Path(output)
    staging = out.with_name(f".{out.stem}.staging{out.suffix}")
    try:
        engine.write(release, staging, separator=separator)
        start_stage(progress, "Verifying the release")
        written = engine.read(staging, separator=separator)
        verified = verify(written)
        if final is None:
            _publish(staging, out)
        else:
            engine.write(final(written), out, separator=separator)
    finally:
        _remove(staging)
    return verified, engine.read(out, separator=separator)


def _remove(path: Path) -> None:
    """Remove a file or a folder of part files (Spark), if it exists; no longer among
    the files the command wrote."""
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
    forget_commit(path)


def _publish(staging: Path, out: Path) -> None:
    """Move the verified release over ``out`` (a file, or a folder of part files, which
    replaces only a folder: a release file never replaces a folder, whatever it holds)."""
    if out.is_dir():
        if not staging.is_dir():
            raise OutputLocationError(out, "it is a folder; name a file")
        shutil.rmtree(out)
    elif staging.is_dir() and out.exists():  # Spark's folder replaces a file of that name
        out.unlink()
    os.replace(staging, out)
    note_commit(out)  # a Ctrl-C from now on says the release is written


def local_result(
    release: Any,
    *,
    algorithm: str,
    metric: str,
    models: Sequence[PrivacyModel],
    n_records: int,
    suppression_limit: float,
    classes: ClassProfile,
    metrics: Mapping[str, float],
    timing: Mapping[str, float],
    details: Mapping[str, Any],
    **verified: Any,
) -> AnonymizationResult:
    """The result of a local recoding: no transformation, lattice or record suppression
    (its classes say what it suppressed); ``verified`` holds the verification's fields
    when the fit filled them (:func:`~anonkit.estimators.base.verified_fields`)."""
    return AnonymizationResult(
        release=release,
        transformation=FrozenDict({}),
        algorithm=algorithm,
        metric=metric,
        privacy=tuple(m.describe() for m in models),
        n_records=n_records,
        suppressed=0,
        suppression_limit=suppression_limit,
        classes=classes,
        metrics=FrozenDict(metrics),
        nodes_evaluated=0,
        lattice_size=0,
        timing=FrozenDict(timing),
        details=FrozenDict(details),
        family="local",
        **verified,
    )
