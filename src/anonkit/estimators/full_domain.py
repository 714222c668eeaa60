"""Full-domain generalization: one hierarchy level per quasi-identifier, for every record.

:class:`FullDomain` searches the generalization lattice with one of the full-domain
searches of :mod:`anonkit.algorithms.lattice` (Flash by default, optimal) and suppresses
the records of the classes that still violate a model, within the suppression limit; its
``transform`` applies the learned levels to new records.

References
----------
Kohlmayer, F., Prasser, F., Eckert, C., Kemper, A., Kuhn, K. A. (2012). Flash: efficient,
stable and optimal k-anonymity. PASSAT/SocialCom.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np
import polars as pl

from anonkit._validation import Constraint, Options
from anonkit.algorithms.lattice import LATTICE_ALGORITHMS, Evaluator
from anonkit.core.encoding import EncodedTable
from anonkit.core.lattice import Lattice
from anonkit.core.resolve import resolve_hierarchy
from anonkit.core.transform import SUPPRESSED, SUPPRESSED_MODES, ReleasePlan
from anonkit.core.values import as_text
from anonkit.engines.base import Engine, SensitiveSpec, get_engine
from anonkit.estimators.base import Estimator, Fitting, Privacy
from anonkit.estimators.recoding import generalize_column
from anonkit.io.frames import from_polars
from anonkit.metrics.classes import ClassProfile, class_profile, profile_sizes
from anonkit.metrics.generalization import METRICS, NodeSummary, all_metrics
from anonkit.models import KAnonymity, PrivacyModel
from anonkit.models.base import CLASS_SIZE
from anonkit.progress import Progress, start_stage
from anonkit.result import AnonymizationResult

__all__ = ["SUPPRESSED_MODES", "FullDomain"]


class _LocalSuppression:
    """``False``, ``True`` or a mapping of attribute importance weights."""

    def accepts(self, value: object) -> bool:
        return isinstance(value, (bool, Mapping))

    def __str__(self) -> str:
        return "True, False or a mapping of attribute importance weights"


class FullDomain(Estimator):
    """Full-domain generalization and record suppression (global recoding).

    Parameters
    ----------
    search
        The lattice search: ``"flash"`` (optimal, default), ``"exhaustive"``,
        ``"samarati"``, ``"datafly"`` or ``"incognito"``.
    metric
        What to minimize (:data:`anonkit.metrics.generalization.METRICS`).
    privacy
        What the release must satisfy (:class:`Privacy`).
    suppressed
        ``"mask"`` writes suppressed records with ``*`` in every quasi-identifier;
        ``"drop"`` leaves them out.
    local_suppression
        Blank as few single cells as needed instead of suppressing whole records
        (``True``, or attribute importance weights).
    engine
        Counting engine (``"polars"`` or ``"numpy"``).
    leak_check
        Check the columns released as is for leaks before searching.
    progress
        Progress callback (:mod:`anonkit.progress`).

    Attributes
    ----------
    result_
        The :class:`~anonkit.result.AnonymizationResult`.
    transformation_
        The level of each quasi-identifier.
    hierarchies_
        The hierarchy of each quasi-identifier.

    Examples
    --------
    >>> import polars as pl
    >>> from anonkit.models import KAnonymity
    >>> df = pl.DataFrame({"age": ["34", "45", "66", "70"], "sex": ["m", "m", "f", "f"]})
    >>> est = FullDomain(privacy=Privacy(KAnonymity(2))).fit(
    ...     df, quasi_identifiers=["age", "sex"],
    ...     hierarchies={"age": {"type": "intervals", "widths": [50]}})
    >>> dict(est.transformation_)
    {'age': 1, 'sex': 0}
    >>> est.transform(pl.DataFrame({"age": ["12"], "sex": ["f"]}))["age"].to_list()
    ['[0-50[']
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "search": Options(tuple(LATTICE_ALGORITHMS)),
        "metric": Options(tuple(METRICS)),
        "suppressed": Options(SUPPRESSED_MODES),
        "local_suppression": _LocalSuppression(),
    }

    def __init__(
        self,
        search: str = "flash",
        metric: str = "loss",
        *,
        privacy: Privacy | None = None,
        suppressed: str = "mask",
        local_suppression: bool | Mapping[str, float] = False,
        engine: str = "polars",
        leak_check: bool = True,
        progress: Progress | None = None,
    ) -> None:
        self.search = search
        self.metric = metric
        self.privacy = privacy
        self.suppressed = suppressed
        self.local_suppression = local_suppression
        self.engine = engine
        self.leak_check = leak_check
        self.progress = progress

    @property
    def algorithm(self) -> str:
        return self.search

    def _encode(self, fitting: Fitting, engine: Engine) -> EncodedTable:
        """The encoded table, with the sensitive and population details models need."""
        data, qi, specs = fitting.data, fitting.quasi_identifiers, fitting.specs
        if not any(m.requires - {CLASS_SIZE} for m in fitting.models):
            return engine.count(data, qi, fitting.hierarchies)
        sensitive = [
            SensitiveSpec(c, resolve_hierarchy(c, specs[c], data[c]) if c in specs else None)
            for c in fitting.wanted
        ]
        return engine.count_detail(
            data, qi, fitting.hierarchies, sensitive, population=fitting.population
        )

    def _run(self, fitting: Fitting) -> tuple[AnonymizationResult, pl.DataFrame]:
        """Search the lattice and build the release; also the release with suppressed
        records masked (what the verification checks)."""
        data, qi, models, t0 = fitting.data, fitting.quasi_identifiers, fitting.models, fitting.t0
        engine = get_engine(self.engine)
        table = self._encode(fitting, engine)
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
            fitting.suppression_limit,
            self.metric,
            on_evaluate=tick if self.progress is not None else None,
        )
        found = LATTICE_ALGORITHMS[self.search]().search(evaluator)
        if self.progress is not None:
            self.progress(lattice.size, lattice.size)
        t2 = time.perf_counter()

        start_stage(self.progress, "Releasing")
        cls, class_summary, class_bad = evaluator.node_classes(found.node)
        class_codes = cls.codes[: table.width]
        n_suppressed = int(cls.counts[class_bad].sum())
        if n_suppressed != found.suppressed:  # the search and its node's classes must agree
            raise RuntimeError(
                f"internal error: search suppressed {found.suppressed} records, "
                f"the node's classes {n_suppressed}"
            )
        plan = ReleasePlan(
            tuple(qi),
            table.hierarchies,
            found.levels,
            np.ascontiguousarray(class_codes[:, class_bad]),
            drop=tuple(fitting.dropped),
        )
        masked = engine.apply(data, plan)
        summary = NodeSummary(
            levels=found.levels,
            hierarchies=table.hierarchies,
            codes=class_codes.T,
            sizes=cls.counts,
            suppressed=class_bad,
            value_counts=table.value_counts,
            k=evaluator.k,
        )
        metrics = all_metrics(summary)
        metrics["precision_score"] = 1.0 - metrics["precision"]
        details: dict[str, Any] = {}
        classes = profile_sizes(cls.counts[~class_bad], k=evaluator.k, suppressed=n_suppressed)
        if self.local_suppression is not False and n_suppressed:
            masked, n_suppressed, classes, details = self._suppress_cells(
                fitting, engine, plan, table
            )
        released = masked
        if self.suppressed == "drop" and n_suppressed:
            released = masked.filter(~_all_star(qi))
        t3 = time.perf_counter()
        names = tuple(qi)
        self.transformation_ = MappingProxyType(dict(zip(names, found.levels, strict=True)))
        result = AnonymizationResult(
            release=from_polars(released, fitting.kind),
            transformation=self.transformation_,
            algorithm=self.search,
            metric=self.metric,
            privacy=tuple(m.describe() for m in models),
            n_records=data.height,
            suppressed=n_suppressed,
            suppression_limit=fitting.suppression_limit,
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
        self, fitting: Fitting, engine: Engine, plan: ReleasePlan, table: EncodedTable
    ) -> tuple[pl.DataFrame, int, ClassProfile, dict[str, Any]]:
        """Blank single cells of the violating records instead of whole records."""
        from anonkit.algorithms.local_suppression import suppress_cells

        qi, models = fitting.quasi_identifiers, fitting.models
        keep_all = ReleasePlan(
            plan.columns,
            plan.hierarchies,
            plan.levels,
            np.zeros((len(plan.columns), 0), dtype=np.int64),
            plan.drop,
        )
        generalized = engine.apply(fitting.data, keep_all)
        k = max((m.k for m in models if isinstance(m, KAnonymity)), default=1)
        others: list[PrivacyModel] = [m for m in models if not isinstance(m, KAnonymity)]
        importance = self.local_suppression if isinstance(self.local_suppression, Mapping) else None
        # the sensitive hierarchies were resolved once, when the table was counted
        sens_h = {sc.name: sc.hierarchy for sc in table.sensitive if sc.hierarchy is not None}
        released, outcome = suppress_cells(
            generalized,
            qi,
            k=k,
            models=others,
            importance=importance,
            sensitive_hierarchies=sens_h or None,
        )
        n_all_star = int(released.select(_all_star(qi).sum()).item())
        details = {
            "local_suppression": {
                "cells": outcome.cells,
                "cells_per_attribute": dict(outcome.cells_per_attribute),
                "records_touched": outcome.records_touched,
                "records_fully_suppressed": n_all_star,
            }
        }
        return released, n_all_star, class_profile(released, list(qi), k=k), details

    # ------------------------------------------------------------------- transform
    def _generalize(self, data: pl.DataFrame, fitting: Fitting) -> pl.DataFrame:
        """``data`` with each quasi-identifier at its learned level. A hierarchy built from a
        table (``{"type": "intervals", ...}``) is built again over the training and the new
        values; a column given no hierarchy keeps its values at level 0 (new ones too) and
        is ``*`` above."""
        columns = []
        for c, h in fitting.by_name.items():
            lv = self.transformation_[c]
            spec = fitting.specs.get(c)
            if isinstance(spec, Mapping):  # a built hierarchy: built again to cover new values
                values = pl.concat([fitting.data[c], data[c]])
                h = resolve_hierarchy(c, spec, values)
            if spec is not None:
                columns.append(generalize_column(data[c], h, lv, c))
            elif lv == 0:
                columns.append(as_text(data[c]).alias(c))
            else:
                columns.append(pl.Series(c, [SUPPRESSED] * data.height, dtype=pl.String))
        return data.with_columns(columns)

    def _transform(self, data: pl.DataFrame, fitting: Fitting) -> pl.DataFrame:
        """The learned levels applied; a record that falls into a class the fit
        suppressed is suppressed too (masked or dropped, like the release). Cells blanked
        by ``local_suppression`` are not reproduced: their records keep the levels."""
        qi = fitting.quasi_identifiers
        out = self._generalize(data, fitting)
        starred = self._masked.select(_all_star(qi)).to_series()
        if self.local_suppression is not False or not starred.any():
            return out
        gone = self._generalize(fitting.data.filter(starred), fitting).select(qi).unique()
        hit = out.select(qi).with_row_index("_new").join(gone, on=qi, how="semi")["_new"]
        hit_mask = pl.Series(np.isin(np.arange(out.height), hit.to_numpy()))
        if self.suppressed == "drop":
            return out.filter(~hit_mask)
        star = pl.lit(SUPPRESSED, dtype=pl.String)
        return out.with_columns(
            [pl.when(hit_mask).then(star).otherwise(pl.col(c)).alias(c) for c in qi]
        )


def _all_star(qi: Sequence[str]) -> pl.Expr:
    """Records whose every quasi-identifier is suppressed."""
    return pl.all_horizontal([pl.col(c) == SUPPRESSED for c in qi])
