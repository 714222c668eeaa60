"""The Python entry point: :func:`anonymize` and the :class:`Anonymizer` behind it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import polars as pl

from anonkit.algorithms.lattice import LATTICE_ALGORITHMS, Evaluator
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.hierarchy_builders import build_hierarchy, suppression
from anonkit.core.lattice import Lattice
from anonkit.core.schema import AttributeRole, Schema
from anonkit.core.transform import build_release, recode
from anonkit.engines.base import get_engine
from anonkit.exceptions import EmptyDataError, ParameterError, UnknownColumnError, UnknownNameError
from anonkit.io.frames import from_polars, to_polars
from anonkit.metrics.classes import profile_sizes
from anonkit.metrics.generalization import METRICS, NodeSummary, all_metrics
from anonkit.models import KAnonymity, PrivacyModel
from anonkit.result import AnonymizationResult

HierarchySpec = Hierarchy | str | Path | Mapping[str, Any]
#: Progress callback: ``(done, total)``; ``total`` is an upper bound on the work.
Progress = Callable[[int, int], None]

SUPPRESSED_MODES = ("mask", "drop")


def resolve_hierarchy(column: str, spec: HierarchySpec | None, values: pl.Series) -> Hierarchy:
    """A hierarchy from an object, a file path, a builder spec, or ``None`` (suppression)."""
    if spec is None:
        return suppression(values.drop_nulls().unique(maintain_order=True).to_list(), name=column)
    if isinstance(spec, Hierarchy):
        return spec if spec.name == column else spec.with_name(column)
    if isinstance(spec, (str, Path)):
        return Hierarchy.from_csv(spec, name=column)
    if isinstance(spec, Mapping):
        return build_hierarchy(
            spec, values.drop_nulls().unique(maintain_order=True).to_list(), name=column
        )
    raise ParameterError(
        "hierarchies",
        "anonymize",
        "Hierarchy objects, file paths or builder tables",
        type(spec).__name__,
    )


class Anonymizer:
    """Full-domain anonymization with scikit-learn style parameters.

    Parameters are stored unchanged and validated when :meth:`fit` runs; see
    :func:`anonymize` for their meaning.
    """

    def __init__(
        self,
        *,
        quasi_identifiers: Sequence[str],
        hierarchies: Mapping[str, HierarchySpec] | None = None,
        k: int | None = None,
        privacy: Sequence[PrivacyModel] = (),
        suppression_limit: float = 0.0,
        algorithm: str = "flash",
        metric: str = "loss",
        identifying: Sequence[str] = (),
        sensitive: Sequence[str] = (),
        suppressed: str = "mask",
        engine: str = "polars",
        progress: Progress | None = None,
    ) -> None:
        self.quasi_identifiers = quasi_identifiers
        self.hierarchies = hierarchies
        self.k = k
        self.privacy = privacy
        self.suppression_limit = suppression_limit
        self.algorithm = algorithm
        self.metric = metric
        self.identifying = identifying
        self.sensitive = sensitive
        self.suppressed = suppressed
        self.engine = engine
        self.progress = progress

    def _models(self, n_records: int) -> list[PrivacyModel]:
        models: list[PrivacyModel] = list(self.privacy)
        if self.k is not None:
            models.insert(0, KAnonymity(self.k))
        if not models:
            raise ParameterError(
                "k", "anonymize", "given (or a list of privacy models in 'privacy')", None
            )
        for m in models:
            k = getattr(m, "k", None)
            if k is not None and k > n_records:
                raise ParameterError(
                    "k",
                    type(m).__name__,
                    f"at most the number of records ({n_records})",
                    k,
                )
        return models

    def _validate(self) -> None:
        if self.algorithm not in LATTICE_ALGORITHMS:
            raise UnknownNameError("algorithm", self.algorithm, list(LATTICE_ALGORITHMS))
        if self.metric not in METRICS:
            raise UnknownNameError("metric", self.metric, list(METRICS))
        if self.suppressed not in SUPPRESSED_MODES:
            raise ParameterError("suppressed", "anonymize", "'mask' or 'drop'", self.suppressed)
        limit = self.suppression_limit
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not 0 <= limit <= 1:
            raise ParameterError("suppression_limit", "anonymize", "a share between 0 and 1", limit)

    def fit(self, frame: Any) -> AnonymizationResult:
        """Anonymize ``frame`` (pandas or polars) and return the result."""
        t0 = time.perf_counter()
        self._validate()
        data, kind = to_polars(frame)
        if data.height == 0:
            raise EmptyDataError()
        qi = (
            [self.quasi_identifiers]
            if isinstance(self.quasi_identifiers, str)
            else list(self.quasi_identifiers)
        )
        schema = Schema.build(
            data.columns,
            quasi_identifiers=qi,
            identifying=self.identifying,
            sensitive=self.sensitive,
        )
        specs = dict(self.hierarchies or {})
        extra = [c for c in specs if c not in qi]
        if extra:
            unknown = [c for c in extra if c not in data.columns]
            if unknown:
                raise UnknownColumnError(unknown, data.columns)
            raise ParameterError(
                "hierarchies",
                "anonymize",
                "given for quasi-identifiers only",
                f"a hierarchy for {extra[0]!r}",
            )
        models = self._models(data.height)
        hierarchies = [resolve_hierarchy(c, specs.get(c), data[c]) for c in qi]
        table = get_engine(self.engine).encode(data, qi, hierarchies)
        t1 = time.perf_counter()

        lattice = Lattice(table.heights)
        done = [0]

        def tick(n: int) -> None:
            done[0] += n
            if self.progress is not None:
                self.progress(done[0], lattice.size)

        evaluator = Evaluator(
            table,
            lattice,
            models,
            float(self.suppression_limit),
            self.metric,
            on_evaluate=tick if self.progress is not None else None,
        )
        found = LATTICE_ALGORITHMS[self.algorithm]().search(evaluator)
        if self.progress is not None:
            self.progress(lattice.size, lattice.size)
        t2 = time.perf_counter()

        recoding = recode(table, found.levels, evaluator.violating)
        released = build_release(
            data,
            table,
            found.levels,
            recoding,
            drop=schema.columns(AttributeRole.IDENTIFYING),
            suppressed=self.suppressed,
        )
        kept_sizes = recoding.sizes[
            ~np.bincount(
                recoding.class_of, weights=recoding.suppressed, minlength=recoding.sizes.size
            ).astype(bool)
        ]
        n_suppressed = int(recoding.suppressed.sum())
        if n_suppressed != found.suppressed:  # the search and the records must agree
            raise RuntimeError(
                f"internal error: search suppressed {found.suppressed} records, "
                f"the release {n_suppressed}"
            )
        snap = evaluator.snapshot(found.node)
        summary = NodeSummary(
            levels=found.levels,
            hierarchies=table.hierarchies,
            codes=snap.codes.T,
            sizes=snap.counts,
            suppressed=evaluator.violating(snap),
            value_counts=table.value_counts,
            k=evaluator.k,
        )
        metrics = all_metrics(summary)
        metrics["precision_score"] = 1.0 - metrics["precision"]
        t3 = time.perf_counter()
        names = tuple(qi)
        return AnonymizationResult(
            release=from_polars(released, kind),
            transformation=MappingProxyType(dict(zip(names, found.levels, strict=True))),
            algorithm=self.algorithm,
            metric=self.metric,
            privacy=tuple(m.describe() for m in models),
            n_records=data.height,
            suppressed=n_suppressed,
            suppression_limit=float(self.suppression_limit),
            classes=profile_sizes(kept_sizes, k=evaluator.k, suppressed=n_suppressed),
            metrics=MappingProxyType(metrics),
            nodes_evaluated=found.nodes_evaluated,
            lattice_size=lattice.size,
            timing=MappingProxyType(
                {"encode": t1 - t0, "search": t2 - t1, "release": t3 - t2, "total": t3 - t0}
            ),
            minimal_transformations=tuple(
                MappingProxyType(dict(zip(names, m, strict=True))) for m in found.minimal
            ),
        )


def anonymize(
    frame: Any,
    *,
    quasi_identifiers: Sequence[str],
    hierarchies: Mapping[str, HierarchySpec] | None = None,
    k: int | None = None,
    privacy: Iterable[PrivacyModel] = (),
    suppression_limit: float = 0.0,
    algorithm: str = "flash",
    metric: str = "loss",
    identifying: Sequence[str] = (),
    sensitive: Sequence[str] = (),
    suppressed: str = "mask",
    engine: str = "polars",
    progress: Progress | None = None,
) -> AnonymizationResult:
    """Anonymize a table by full-domain generalization and record suppression.

    Parameters
    ----------
    frame
        A pandas or polars DataFrame; the release has the same type.
    quasi_identifiers
        Columns an attacker could link on; they are generalized.
    hierarchies
        Per quasi-identifier: a :class:`Hierarchy`, the path of a hierarchy CSV, or a
        builder table such as ``{"type": "intervals", "widths": [5, 10]}``. A
        quasi-identifier without one can only be kept or suppressed (``*``).
    k
        Shortcut for ``privacy=[KAnonymity(k)]``.
    privacy
        Privacy models the release must satisfy (all of them).
    suppression_limit
        Largest share of records that may be suppressed, in [0, 1] (default 0).
    algorithm
        ``"flash"`` (optimal, default), ``"exhaustive"``, ``"samarati"``, ``"datafly"`` or
        ``"incognito"``.
    metric
        What to minimize: ``"loss"`` (default), ``"height"``, ``"relative_distance"``,
        ``"precision"``, ``"discernibility"``, ``"average_class_size"`` or
        ``"nonuniform_entropy"``.
    identifying
        Direct identifiers; removed from the release.
    sensitive
        Sensitive attributes; kept (and used by models such as l-diversity).
    suppressed
        ``"mask"`` writes suppressed records with ``*`` in every quasi-identifier (row
        count preserved); ``"drop"`` leaves them out.
    engine
        Counting engine (``"polars"`` or ``"numpy"``).
    progress
        Called as ``progress(done, total)`` while the search runs.

    Returns
    -------
    AnonymizationResult

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"age": ["34", "45", "66", "70"], "sex": ["m", "m", "f", "f"]})
    >>> res = anonymize(df, quasi_identifiers=["age", "sex"], k=2,
    ...                 hierarchies={"age": {"type": "intervals", "widths": [50]}})
    >>> res.release["age"].to_list(), res.classes.min_size
    (['[0-50[', '[0-50[', '[50-100[', '[50-100['], 2)
    """
    return Anonymizer(
        quasi_identifiers=quasi_identifiers,
        hierarchies=hierarchies,
        k=k,
        privacy=list(privacy),
        suppression_limit=suppression_limit,
        algorithm=algorithm,
        metric=metric,
        identifying=identifying,
        sensitive=sensitive,
        suppressed=suppressed,
        engine=engine,
        progress=progress,
    ).fit(frame)
