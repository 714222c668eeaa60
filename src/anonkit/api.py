"""The Python entry point: :func:`anonymize` and the :class:`Anonymizer` behind it."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
import polars as pl

from anonkit._validation import Boolean, Constraint, Interval, Options, validate
from anonkit.algorithms.lattice import LATTICE_ALGORITHMS, Evaluator
from anonkit.core.encoding import EncodedTable, SensitiveCodes, with_details
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.lattice import Lattice
from anonkit.core.resolve import HierarchySpec, resolve_hierarchy
from anonkit.core.schema import AttributeRole, Schema
from anonkit.core.transform import SUPPRESSED, Recoding, build_release, recode
from anonkit.engines.base import get_engine
from anonkit.engines.polars_engine import encode_sensitive
from anonkit.exceptions import (
    EmptyDataError,
    ParameterError,
    PrivacyUnattainableError,
    UnknownColumnError,
    UnknownNameError,
)
from anonkit.io.frames import FrameKind, from_polars, to_polars
from anonkit.metrics.classes import ClassProfile, class_profile, profile_sizes
from anonkit.metrics.generalization import METRICS, NodeSummary, all_metrics
from anonkit.models import KAnonymity, PrivacyModel, split_k_anonymity
from anonkit.models.base import CLASS_SIZE, POPULATION_COUNT
from anonkit.progress import Progress, start_stage
from anonkit.result import AnonymizationResult
from anonkit.verify import Verification, verify_release

SUPPRESSED_MODES = ("mask", "drop")
#: Constraints of the :class:`Anonymizer` parameters that need no data to check.
_CONSTRAINTS: dict[str, Constraint] = {
    "leak_check": Boolean(),
    "suppressed": Options(SUPPRESSED_MODES),
    "suppression_limit": Interval(float, 0, 1, noun="a share"),
}
#: Local-recoding algorithms (besides the full-domain ones of ``LATTICE_ALGORITHMS``).
LOCAL_ALGORITHMS = ("mondrian", "greedy_merge", "microaggregation")
#: Every algorithm name :func:`anonymize` accepts.
ALGORITHMS = (*LATTICE_ALGORITHMS, *LOCAL_ALGORITHMS)


def _values(data: pl.DataFrame, population: pl.DataFrame | None, column: str) -> pl.Series:
    """Values a built hierarchy must cover: the data's and the population's."""
    values = data[column]
    if population is None:
        return values
    other = population[column]
    if other.dtype != values.dtype:
        other = other.cast(values.dtype, strict=False).drop_nulls()
    return pl.concat([values, other])


def _check_attainable(data: pl.DataFrame, models: Sequence[PrivacyModel]) -> None:
    """Refuse models no class can satisfy whatever the generalization: ℓ-diversity of a
    column with fewer than ℓ distinct values (more suppression would not help)."""
    for m in models:
        need = int(m.min_class_size)
        if not (m.class_local and need > 1):
            continue
        for attribute in m.sensitive_attributes:
            if attribute not in data.columns:
                continue
            have = int(data[attribute].drop_nulls().n_unique())
            if have < need:
                raise PrivacyUnattainableError(
                    f"Column {attribute!r} has only {have} distinct value(s), so no class can "
                    f"hold the {need} that {m.describe()} needs, whatever the generalization or "
                    f"suppression; lower l to at most {have} or protect another attribute.",
                    requirement=m.describe(),
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
        insensitive: Sequence[str] = (),
        others: str | None = None,
        leak_check: bool = True,
        suppressed: str = "mask",
        engine: str = "polars",
        population: Any = None,
        numeric: Sequence[str] = (),
        mode: str = "strict",
        split: str = "widest",
        numeric_release: str = "range",
        cost: str = "nllm",
        method: str = "mdav",
        aggregate: str = "mean",
        local_suppression: bool | Mapping[str, float] = False,
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
        self.insensitive = insensitive
        self.others = others
        self.leak_check = leak_check
        self.suppressed = suppressed
        self.engine = engine
        self.population = population
        self.numeric = numeric
        self.mode = mode
        self.split = split
        self.numeric_release = numeric_release
        self.cost = cost
        self.method = method
        self.aggregate = aggregate
        self.local_suppression = local_suppression
        self.progress = progress

    def _models(self, n_records: int) -> list[PrivacyModel]:
        models: list[PrivacyModel] = list(self.privacy)
        if self.k is not None:
            models.insert(0, KAnonymity(self.k))
        if not models:
            raise ParameterError(
                "k", "anonymize", "given (or a list of privacy models in 'privacy')", None
            )
        k, _ = split_k_anonymity(models)
        if k is not None and k > n_records:
            raise ParameterError(
                "k", "KAnonymity", f"at most the number of records ({n_records})", k
            )
        return models

    def _validate(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise UnknownNameError("algorithm", self.algorithm, list(ALGORITHMS))
        if self.local_suppression is not False and self.algorithm not in LATTICE_ALGORITHMS:
            raise ParameterError(
                "local_suppression",
                "anonymize",
                "used with a full-domain algorithm (it blanks cells after a global recoding)",
                self.algorithm,
            )
        if self.metric not in METRICS:
            raise UnknownNameError("metric", self.metric, list(METRICS))
        validate(vars(self), _CONSTRAINTS, "anonymize")

    def _population(self, models: Sequence[PrivacyModel], qi: Sequence[str]) -> pl.DataFrame | None:
        """The population table, checked, when a model needs one."""
        if not any(POPULATION_COUNT in m.requires for m in models):
            return None
        if self.population is None:
            names = ", ".join(m.describe() for m in models if POPULATION_COUNT in m.requires)
            raise ParameterError("population", "anonymize", f"a population table for {names}", None)
        pop, _ = to_polars(self.population)
        missing = [c for c in qi if c not in pop.columns]
        if missing:
            raise UnknownColumnError(missing, pop.columns)
        if pop.height == 0:
            raise EmptyDataError()
        return pop.select(list(qi))

    def fit(self, frame: Any) -> AnonymizationResult:
        """Anonymize ``frame`` (pandas or polars) and return the result.

        The release is re-checked by :func:`anonkit.verify.verify_release` before it is
        returned; a failure raises :class:`~anonkit.exceptions.ReleaseVerificationError`.
        """
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
        models = self._models(data.height)
        # attributes the models protect are sensitive even when not declared so
        wanted = list(dict.fromkeys(a for m in models for a in m.sensitive_attributes))
        sensitive = list(dict.fromkeys([*self.sensitive, *wanted]))
        insensitive = [c for c in self.insensitive if c not in wanted]
        schema = Schema.build(
            data.columns,
            quasi_identifiers=qi,
            identifying=self.identifying,
            sensitive=sensitive,
            insensitive=insensitive,
            others=self.others,
        )
        _check_attainable(data, models)
        safety = self._leak_check(data, qi, schema)
        specs = dict(self.hierarchies or {})
        # hierarchies of other columns are not needed (a full set, as load_adult() gives,
        # may be passed); hierarchies of columns the data lacks are an error
        unknown = [c for c in specs if c not in data.columns]
        if unknown:
            raise UnknownColumnError(unknown, data.columns)
        population = self._population(models, qi)
        start_stage(self.progress, "Encoding")
        hierarchies = [resolve_hierarchy(c, specs.get(c), _values(data, population, c)) for c in qi]
        sens_specs: dict[str, Any] = {c: specs[c] for c in wanted if c in specs}
        if self.algorithm not in LATTICE_ALGORITHMS:
            from anonkit.runners import run_local_recoding

            result = run_local_recoding(
                self, data, kind, qi, hierarchies, models, schema, population, t0
            )
            released, _ = to_polars(result.release)
            verification = self._verify(
                released, qi, models, data.height, sens_specs, population, hierarchies
            )
            return self._finish(result, verification, safety, t0)
        result, masked = self._full_domain(
            data, kind, qi, hierarchies, models, schema, population, wanted, specs, t0
        )
        verification = self._verify(
            masked, qi, models, data.height, sens_specs, population, hierarchies
        )
        return self._finish(result, verification, safety, t0)

    def _leak_check(self, data: pl.DataFrame, qi: Sequence[str], schema: Schema) -> dict[str, Any]:
        """Stop on columns released as is that give the quasi-identifiers away."""
        out: dict[str, Any] = {
            "roles": {r.value: schema.columns(r) for r in AttributeRole},
            "dropped_undeclared": list(schema.dropped),
            "leak_check": self.leak_check,
            "leak_warnings": [],
        }
        if self.leak_check:
            from anonkit.safety.leaks import check_leaks

            start_stage(self.progress, "Checking for leaks")
            warnings = check_leaks(data, quasi_identifiers=qi, released=schema.released_as_is())
            out["leak_warnings"] = [w.to_dict() for w in warnings]
        return out

    def _verify(
        self,
        released: pl.DataFrame,
        qi: Sequence[str],
        models: Sequence[PrivacyModel],
        n_records: int,
        sensitive_specs: Mapping[str, Any],
        population: pl.DataFrame | None,
        hierarchies: Sequence[Hierarchy],
    ) -> Verification:
        start_stage(self.progress, "Verifying the release")
        return verify_release(
            released,
            quasi_identifiers=qi,
            models=models,
            n_records=n_records,
            suppression_limit=float(self.suppression_limit),
            sensitive_hierarchies=sensitive_specs,
            population=population,
            hierarchies={
                c: h for c, h in zip(qi, hierarchies, strict=True) if c not in self.numeric
            },
            numeric=list(self.numeric),
        )

    def _finish(
        self,
        result: AnonymizationResult,
        verification: Verification,
        safety: Mapping[str, Any],
        t0: float,
    ) -> AnonymizationResult:
        """``result`` with the verification, the risk and the safety checks recorded."""
        timing = {**result.timing, "total": time.perf_counter() - t0}
        return dataclasses.replace(
            result,
            verified=verification.verified,
            risk=MappingProxyType(dict(verification.risk)),
            checks=MappingProxyType({**safety, "models": [dict(m) for m in verification.models]}),
            timing=MappingProxyType(timing),
        )

    def _full_domain(
        self,
        data: pl.DataFrame,
        kind: FrameKind,
        qi: list[str],
        hierarchies: list[Hierarchy],
        models: list[PrivacyModel],
        schema: Schema,
        population: pl.DataFrame | None,
        wanted: Sequence[str],
        specs: Mapping[str, HierarchySpec],
        t0: float,
    ) -> tuple[AnonymizationResult, pl.DataFrame]:
        """Search the lattice and build the release; also the release with suppressed
        records masked (what :meth:`_verify` checks)."""
        engine = get_engine(self.engine)
        table = engine.encode(data, qi, hierarchies)
        if any(m.requires - {CLASS_SIZE} for m in models):
            coded = []
            for c in wanted:
                h = resolve_hierarchy(c, specs[c], data[c]) if c in specs else None
                labels, codes = encode_sensitive(data[c], c, h)
                coded.append(SensitiveCodes(c, labels, codes, h))
            pop_codes = None
            if population is not None:
                pop_codes = engine.encode(population, qi, hierarchies).record_codes
            table = with_details(table, coded, pop_codes)
        t1 = time.perf_counter()

        lattice = Lattice(table.heights)
        done = [0]
        start_stage(self.progress, "Searching", "nodes")

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

        start_stage(self.progress, "Releasing")
        cls, class_summary, class_bad = evaluator.node_classes(found.node)
        recoding = recode(table, found.levels, cls.codes, class_bad)
        masked = build_release(
            data,
            table,
            found.levels,
            recoding,
            drop=schema.columns(AttributeRole.IDENTIFYING),
            suppressed="mask",
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
        summary = NodeSummary(
            levels=found.levels,
            hierarchies=table.hierarchies,
            codes=cls.codes.T,
            sizes=cls.counts,
            suppressed=class_bad,
            value_counts=table.value_counts,
            k=evaluator.k,
        )
        metrics = all_metrics(summary)
        metrics["precision_score"] = 1.0 - metrics["precision"]
        details: dict[str, Any] = {}
        classes = profile_sizes(kept_sizes, k=evaluator.k, suppressed=n_suppressed)
        if self.local_suppression is not False and n_suppressed:
            masked, n_suppressed, classes, details = self._suppress_cells(
                data, table, found.levels, recoding, schema, models, qi
            )
        released = masked
        if self.suppressed == "drop" and n_suppressed:
            star = pl.all_horizontal([pl.col(c) == SUPPRESSED for c in qi])
            released = masked.filter(~star)
        t3 = time.perf_counter()
        names = tuple(qi)
        result = AnonymizationResult(
            release=from_polars(released, kind),
            transformation=MappingProxyType(dict(zip(names, found.levels, strict=True))),
            algorithm=self.algorithm,
            metric=self.metric,
            privacy=tuple(m.describe() for m in models),
            n_records=data.height,
            suppressed=n_suppressed,
            suppression_limit=float(self.suppression_limit),
            classes=classes,
            metrics=MappingProxyType(metrics),
            nodes_evaluated=found.nodes_evaluated,
            lattice_size=lattice.size,
            timing=MappingProxyType(
                {"encode": t1 - t0, "search": t2 - t1, "release": t3 - t2, "total": t3 - t0}
            ),
            minimal_transformations=tuple(
                MappingProxyType(dict(zip(names, m, strict=True))) for m in found.minimal
            ),
            details=MappingProxyType(details),
        )
        return result, masked

    def _suppress_cells(
        self,
        data: pl.DataFrame,
        table: EncodedTable,
        levels: Sequence[int],
        recoding: Recoding,
        schema: Schema,
        models: Sequence[PrivacyModel],
        qi: Sequence[str],
    ) -> tuple[pl.DataFrame, int, ClassProfile, dict[str, Any]]:
        """Blank single cells of the violating records instead of whole records."""
        from anonkit.algorithms.local_suppression import suppress_cells

        unmasked = Recoding(
            recoding.codes,
            recoding.class_of,
            recoding.sizes,
            np.zeros_like(recoding.suppressed),
        )
        generalized = build_release(
            data, table, levels, unmasked, drop=schema.columns(AttributeRole.IDENTIFYING)
        )
        k = max((m.k for m in models if isinstance(m, KAnonymity)), default=1)
        others = [m for m in models if not isinstance(m, KAnonymity)]
        importance = self.local_suppression if isinstance(self.local_suppression, Mapping) else None
        # the sensitive hierarchies were resolved once, when the table was encoded
        sens_h = {sc.name: sc.hierarchy for sc in table.sensitive if sc.hierarchy is not None}
        released, outcome = suppress_cells(
            generalized,
            qi,
            k=k,
            models=others,
            importance=importance,
            sensitive_hierarchies=sens_h or None,
        )
        star = pl.all_horizontal([pl.col(c) == SUPPRESSED for c in qi])
        n_all_star = int(released.select(star.sum()).item())
        details = {
            "local_suppression": {
                "cells": outcome.cells,
                "cells_per_attribute": dict(outcome.cells_per_attribute),
                "records_touched": outcome.records_touched,
                "records_fully_suppressed": n_all_star,
            }
        }
        return released, n_all_star, class_profile(released, list(qi), k=k), details


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
    insensitive: Sequence[str] = (),
    others: str | None = None,
    leak_check: bool = True,
    suppressed: str = "mask",
    engine: str = "polars",
    population: Any = None,
    numeric: Sequence[str] = (),
    mode: str = "strict",
    split: str = "widest",
    numeric_release: str = "range",
    cost: str = "nllm",
    method: str = "mdav",
    aggregate: str = "mean",
    local_suppression: bool | Mapping[str, float] = False,
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
        Full-domain (global recoding): ``"flash"`` (optimal, default), ``"exhaustive"``,
        ``"samarati"``, ``"datafly"`` or ``"incognito"``. Local recoding:
        ``"mondrian"`` (multidimensional partitioning), ``"greedy_merge"`` (class merging
        with cost matrices) or ``"microaggregation"`` (numeric quasi-identifiers).
    metric
        What to minimize: ``"loss"`` (default), ``"height"``, ``"relative_distance"``,
        ``"precision"``, ``"discernibility"``, ``"average_class_size"`` or
        ``"nonuniform_entropy"``.
    identifying
        Direct identifiers; removed from the release.
    sensitive
        Sensitive attributes; kept (and used by models such as l-diversity).
    insensitive
        Columns released as they are.
    others
        What to do with columns given no role above: ``None`` (default) raises
        :class:`~anonkit.exceptions.UndeclaredColumnsError` naming them, so that no column
        is published by accident; ``"drop"`` removes them; ``"keep"`` releases them as they
        are (insensitive).
    leak_check
        Before searching, check every column released as is (sensitive, insensitive):
        one that determines a quasi-identifier (``education-num`` for ``education``) or
        looks like direct identifiers (e-mail, phone, ID numbers) stops the run with
        :class:`~anonkit.exceptions.LeakError`; one unique for at least half the records
        is a warning in ``result.checks``. ``False`` skips the check (recorded).
    suppressed
        ``"mask"`` writes suppressed records with ``*`` in every quasi-identifier (row
        count preserved); ``"drop"`` leaves them out.
    engine
        Counting engine (``"polars"`` or ``"numpy"``).
    population
        The population the data is a sample of (pandas or polars, holding the
        quasi-identifiers), for k-map and δ-presence.
    numeric
        Quasi-identifiers Mondrian splits as numbers (released as ranges or means) and
        microaggregation aggregates.
    mode, split, numeric_release
        Mondrian: ``"strict"`` or ``"relaxed"`` partitioning; split dimension
        ``"widest"``, ``"distinct"`` or ``"round_robin"``; numbers released as
        ``"range"`` or ``"mean"``.
    cost
        Greedy merging: ``"distortion"``, ``"ncp"``, ``"total"``, ``"llm"``, ``"nllm"``
        (default), ``"wllm"`` or ``"wnllm"`` (seed 004).
    method, aggregate
        Microaggregation: ``"univariate"``, ``"mdav"`` (default) or ``"gmm"``; groups
        aggregated by ``"mean"``, ``"median"`` or ``"mode"``.
    local_suppression
        Full-domain algorithms: instead of suppressing whole records of violating classes,
        blank as few single cells as needed (``True``, or a mapping of attribute
        importance weights: important attributes keep their values longer).
    progress
        Called as ``progress(done, total)`` while the work runs; a callback with a
        ``stage(name, unit)`` method is also told when each step starts
        (:mod:`anonkit.progress`).

    Returns
    -------
    AnonymizationResult
        With ``verified`` (the release passed the independent re-check of
        :func:`anonkit.verify.verify_release`), ``risk`` (prosecutor, journalist, marketer
        risk, sample uniques, records at risk) and ``checks`` (roles, leak check).

    Raises
    ------
    UndeclaredColumnsError
        If a column has no role and ``others`` is not given.
    LeakError
        If a column released as is gives the quasi-identifiers away (``leak_check``).
    PrivacyUnattainableError
        If no transformation satisfies the models within the suppression limit.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"age": ["34", "45", "66", "70"], "sex": ["m", "m", "f", "f"]})
    >>> res = anonymize(df, quasi_identifiers=["age", "sex"], k=2,
    ...                 hierarchies={"age": {"type": "intervals", "widths": [50]}})
    >>> res.release["age"].to_list(), res.classes.min_size, res.verified
    (['[0-50[', '[0-50[', '[50-100[', '[50-100['], 2, True)
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
        insensitive=insensitive,
        others=others,
        leak_check=leak_check,
        suppressed=suppressed,
        engine=engine,
        population=population,
        numeric=numeric,
        mode=mode,
        split=split,
        numeric_release=numeric_release,
        cost=cost,
        method=method,
        aggregate=aggregate,
        local_suppression=local_suppression,
        progress=progress,
    ).fit(frame)
