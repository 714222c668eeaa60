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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit._frozen import FrozenDict
from anonkit._validation import (
    Constraint,
    Interval,
    Keyed,
    Options,
    OrNone,
    Separator,
    init_parameters,
)
from anonkit.algorithms.lattice import LATTICE_ALGORITHMS, Evaluator
from anonkit.core.encoding import EncodedTable
from anonkit.core.hierarchy_builders import pinned_spec
from anonkit.core.lattice import Lattice
from anonkit.core.resolve import built_from_values, resolve_hierarchy
from anonkit.core.schema import RESERVED_PREFIX
from anonkit.core.transform import SUPPRESSED, SUPPRESSED_MODES, ReleasePlan, all_starred
from anonkit.core.values import as_text
from anonkit.engines.base import (
    Engine,
    SensitiveSpec,
    get_engine,
)
from anonkit.engines.counting import COUNT
from anonkit.estimators.bare import note_bare_columns, without_hierarchy
from anonkit.estimators.base import Columns, Fitting, Placed, Privacy, stage_timing, with_engine
from anonkit.estimators.cell_suppression import (
    LocalSuppressionOption,
    check_importance,
    measured_metrics,
    suppress_cells_found,
)
from anonkit.estimators.recoding import generalize_column
from anonkit.estimators.scaled import fit_out_of_core
from anonkit.estimators.searching import found_details, search
from anonkit.exceptions import ParameterError
from anonkit.io.frames import from_polars, to_polars
from anonkit.io.write import output_format
from anonkit.metrics.generalization import METRICS
from anonkit.metrics.levels import model_attributes
from anonkit.metrics.node_metrics import aggregation
from anonkit.models import PrivacyModel
from anonkit.models.base import CLASS_SIZE
from anonkit.progress import Progress, start_stage
from anonkit.result import AnonymizationResult
from anonkit.safety.leaks import TallyCodes

__all__ = ["SUPPRESSED_MODES", "FullDomain", "NodeEvaluation"]


@dataclass(frozen=True, eq=False)
class NodeEvaluation:
    """Another transformation of a fitted table, judged (:meth:`FullDomain.evaluate_levels`).

    Attributes
    ----------
    levels
        The level of each quasi-identifier.
    private
        Whether it satisfies every model within the suppression limit.
    cost
        Its cost under the estimator's metric.
    suppressed
        Records it would suppress.
    class_sizes
        Sizes of the classes it keeps.
    """

    levels: Mapping[str, int]
    private: bool
    cost: float
    suppressed: int
    class_sizes: npt.NDArray[np.int64] = field(repr=False)


class FullDomain(Placed):
    """Full-domain generalization and record suppression (global recoding).

    Parameters
    ----------
    search
        The lattice search: ``"auto"`` (default: Flash when it can finish within a
        minute, else Lightning), ``"flash"`` (optimal), ``"exhaustive"``,
        ``"samarati"``, ``"datafly"`` or ``"incognito"``.
    metric
        What to minimize (:data:`anonkit.metrics.generalization.METRICS`).
    metric_options
        Options of the metric: for ``"loss"``, ``{"aggregate": "arithmetic" |
        "geometric", "weights": {column: weight}}``: how the per-attribute losses
        combine (the arithmetic mean by default; ``"geometric"`` is ARX's
        ``prod(1 + v_j) ** (1 / n) - 1``) and how much each quasi-identifier counts
        (1 unless given); see :class:`anonkit.metrics.node_metrics.Aggregation`. The
        optimized value is reported in ``result_.details["objective"]``; the result's
        ``metrics["loss"]`` stays the plain mean.
    privacy
        What the release must satisfy (:class:`Privacy`).
    suppressed
        ``"mask"`` writes suppressed records with ``*`` in every quasi-identifier;
        ``"drop"`` leaves them out.
    local_suppression
        Blank as few single cells as needed instead of suppressing whole records
        (``True``, or attribute importance weights).
    engine
        Where the records are counted and released: ``"polars"`` (in memory, default),
        ``"streaming"`` (a file or polars lazy query, streamed: tables larger than
        memory), ``"spark"`` (a Spark DataFrame), ``"numpy"`` (a slow second path for
        tests), or ``"auto"`` (chosen from the input's type and size, see
        :func:`anonkit.engines.base.choose_engine`; the result's ``details["engine"]``
        says which ran and why).
    output
        A file (``.parquet``, ``.csv``, ``.tsv``) to write the release to, atomically and
        only once verified. With the streaming and Spark engines the result's ``release``
        then reads that file lazily.
    output_separator
        The field separator of a CSV or TSV ``output``: one ASCII character (default
        ``,`` for ``.csv``, tab for ``.tsv``); every engine writes with it.
    memory_share
        With ``engine="auto"``: a file is streamed when its table would take more than
        this share of the machine's memory.
    time_limit, max_nodes, seed
        Budget and seed of the anytime heuristics (``"lightning"``, ``"genetic"``,
        ``"auto"``): stop after this many seconds or evaluated nodes and return the best
        release found (Ctrl-C does too); ``None`` keeps the search's default. Exact
        searches take none of them.
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
        "local_suppression": LocalSuppressionOption(),
        "memory_share": Interval(float, 0, 1, closed="right", noun="a share"),
        "output_separator": OrNone(Separator()),
        "metric_options": OrNone(Keyed('a mapping such as {"aggregate": "geometric"}')),
        "time_limit": OrNone(Interval(float, 0, closed="neither", noun="seconds")),
        "max_nodes": OrNone(Interval(int, 1)),
        "seed": OrNone(Interval(int, 0)),
    }

    def __init__(
        self,
        search: str = "auto",
        metric: str = "loss",
        *,
        metric_options: Mapping[str, Any] | None = None,
        privacy: Privacy | None = None,
        suppressed: str = "mask",
        local_suppression: bool | Mapping[str, float] = False,
        engine: str = "polars",
        output: str | Path | None = None,
        output_separator: str | None = None,
        memory_share: float = 0.25,
        time_limit: float | None = None,
        max_nodes: int | None = None,
        seed: int | None = None,
        leak_check: bool = True,
        progress: Progress | None = None,
    ) -> None:
        self.search = search
        self.metric = metric
        self.metric_options = metric_options
        self.privacy = privacy
        self.suppressed = suppressed
        self.local_suppression = local_suppression
        self.engine = engine
        self.output = output
        self.output_separator = output_separator
        self.memory_share = memory_share
        self.time_limit = time_limit
        self.max_nodes = max_nodes
        self.seed = seed
        self.leak_check = leak_check
        self.progress = progress

    @property
    def algorithm(self) -> str:
        return self.search

    def search_options(self) -> dict[str, Any]:
        """The budget and seed given, as keywords of the search.

        Raises
        ------
        ParameterError
            If one is given to a search that takes none (the exact ones).
        """
        given = {
            name: value
            for name, value in (
                ("time_limit", self.time_limit),
                ("max_nodes", self.max_nodes),
                ("seed", self.seed),
            )
            if value is not None
        }
        accepted = init_parameters(LATTICE_ALGORITHMS[self.search])
        for name, value in given.items():
            if name not in accepted:
                raise ParameterError(
                    name,
                    type(self).__name__,
                    "None with an exact search (time_limit, max_nodes and seed belong to "
                    "'lightning', 'genetic', 'topdown' and 'auto')",
                    value,
                )
        return given

    def _fit(self, frame: Any, columns: Columns) -> None:
        """Fit where ``engine`` says: ``frame`` is a pandas or polars frame, a polars lazy
        query, a file path or a Spark DataFrame, as the engine reads; see :meth:`Estimator.fit
        <anonkit.estimators.base.Estimator.fit>`."""
        name, reason = self._engine_choice(frame, self.memory_share)
        engine = get_engine(name)
        self._engine = engine
        if self.output is not None:
            output_format(self.output)  # an unknown extension fails before any work
        qi = columns.quasi_identifiers
        aggregation(self.metric, self.metric_options, qi, type(self).__name__)
        if isinstance(self.local_suppression, Mapping):
            check_importance(self.local_suppression, qi, type(self).__name__)
        if not engine.in_memory:
            if self.local_suppression is not False:
                raise ParameterError(
                    "local_suppression",
                    type(self).__name__,
                    "False with an engine that does not hold the records in memory (local "
                    "suppression chooses cells to blank record by record, on a table held "
                    "in memory: use engine='polars', or suppress whole records)",
                    self.local_suppression,
                )
            result, self._plan = fit_out_of_core(self, engine, frame, columns, output=self.output)
            self._fitted_elsewhere(with_engine(result, name, reason), columns)
            self.transformation_ = result.transformation
            self.hierarchies_ = FrozenDict(dict(zip(qi, self._plan.hierarchies, strict=True)))
            note_bare_columns(self, self._bare_columns(columns, None))
            return
        self._fit_in_memory(frame, columns)
        self.result_ = with_engine(self.result_, name, reason)

    def _bare_columns(self, columns: Columns, released: pl.DataFrame | None) -> list[str]:
        """The quasi-identifiers without a hierarchy at their top level (``*``), read from
        the transformation: no pass over the release."""
        bare = without_hierarchy(columns)
        return [c for c in bare if self.transformation_.get(c, 0) > 0]

    def _tallied(self, models: Sequence[PrivacyModel]) -> list[str]:
        """The attributes the models read, which the detail count holds with the
        quasi-identifiers (:meth:`_encode`): their leak check reads it."""
        return model_attributes(models) if _needs_detail(models) else []

    def _encode(self, fitting: Fitting, engine: Engine) -> EncodedTable:
        """The encoded table, with the sensitive and population details models need."""
        data, qi, specs = fitting.data, fitting.quasi_identifiers, fitting.specs
        if not _needs_detail(fitting.models):
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
        # fit() chose the engine; a subclass's own fit (a frame in memory) may not have
        engine = getattr(self, "_engine", None) or get_engine(
            "polars" if self.engine == "auto" else self.engine
        )
        table = self._encode(fitting, engine)
        if fitting.leaks is not None and fitting.leaks.tallied and table.detail is not None:
            verbatim = [a.name for a in table.sensitive if a.verbatim]
            fitting.leaks.tally(_detail_codes(table, fitting.leaks.tallied), verbatim)
        t1 = time.perf_counter()
        outcome = search(
            table,
            models,
            fitting.suppression_limit,
            algorithm=self.search,
            metric=self.metric,
            metric_options=self.metric_options,
            options=self.search_options(),
            progress=self.progress,
        )
        found, n_suppressed, classes = outcome.found, outcome.suppressed, outcome.classes
        t2 = time.perf_counter()

        start_stage(self.progress, "Releasing")
        plan = outcome.plan(table, drop=fitting.dropped)
        # the engine may count the release's tally from the codes it writes it from: the
        # verification then reads that instead of grouping the release's text again
        masked, tally = engine.apply_tallied(data, plan, fitting.wanted, COUNT)
        if tally is not None:
            fitting.tallies.append((masked, tally))
        details = found_details(
            outcome, table, self.metric, self.metric_options, type(self).__name__
        )
        metrics = dict(outcome.metrics)
        if self.local_suppression is not False and n_suppressed:
            masked, n_suppressed, classes, cells = suppress_cells_found(
                fitting, engine, plan, table, self.local_suppression
            )
            details.update(cells)
            start_stage(self.progress, "Measuring loss")
            metrics = measured_metrics(
                fitting, masked, list(metrics), self.metric, self.metric_options
            )
        released = masked
        if self.suppressed == "drop" and n_suppressed:
            released = masked.filter(~all_starred(qi))
        t3 = time.perf_counter()
        names = tuple(qi)
        self.transformation_ = FrozenDict(dict(zip(names, found.levels, strict=True)))
        result = AnonymizationResult(
            release=from_polars(released, fitting.kind),
            transformation=self.transformation_,
            algorithm=found.algorithm,
            metric=self.metric,
            privacy=tuple(m.describe() for m in models),
            n_records=data.height,
            suppressed=n_suppressed,
            suppression_limit=fitting.suppression_limit,
            classes=classes,
            metrics=FrozenDict(metrics),
            nodes_evaluated=found.nodes_evaluated,
            lattice_size=outcome.lattice_size,
            timing=stage_timing(t0, t1, t2, t3),
            minimal_transformations=tuple(
                FrozenDict(dict(zip(names, m, strict=True))) for m in found.minimal
            ),
            details=FrozenDict(details),
        )
        return result, masked

    # -------------------------------------------------------------- other transformations
    def evaluate_levels(self, levels: Mapping[str, int]) -> NodeEvaluation:
        """Judge another transformation of the fitted table: whether it satisfies the
        privacy models within the suppression limit, its cost under the estimator's
        metric, the records it would suppress and the sizes of the classes it keeps (what
        the web app shows for the alternatives near the chosen node).

        Raises
        ------
        NotFittedError
            If the estimator was not fitted on a table in memory.
        ParameterError
            If ``levels`` does not give every quasi-identifier a level of its hierarchy.
        """
        fitting = self._training("evaluate_levels")
        qi = fitting.quasi_identifiers
        evaluator: Evaluator | None = getattr(self, "_node_evaluator", None)
        if evaluator is None:
            table = self._encode(fitting, get_engine("polars"))
            evaluator = Evaluator(
                table,
                Lattice(table.heights),
                fitting.models,
                fitting.suppression_limit,
                self.metric,
                metric_options=self.metric_options,
                owner=type(self).__name__,
            )
            self._node_evaluator = evaluator
        heights = evaluator.lattice.heights
        given = [levels.get(c) for c in qi]
        if set(levels) != set(qi) or not all(
            isinstance(v, int) and 0 <= v < h for v, h in zip(given, heights, strict=True)
        ):
            expected = ", ".join(f"{c}: 0..{h - 1}" for c, h in zip(qi, heights, strict=True))
            raise ParameterError(
                "levels", "evaluate_levels", f"a level per column ({expected})", dict(levels)
            )
        node = evaluator.lattice.index([int(v) for v in given])  # type: ignore[arg-type]
        found = evaluator.evaluate(node)
        cls, _, bad = evaluator.node_classes(node)
        return NodeEvaluation(
            levels=FrozenDict(dict(zip(qi, found.levels, strict=True))),
            private=bool(found.anonymous),
            cost=float(found.cost),
            suppressed=int(found.suppressed),
            class_sizes=np.asarray(cls.counts, dtype=np.int64)[~bad],
        )

    # ------------------------------------------------------------------- transform
    def transform(self, frame: Any) -> Any:
        """Write new records the way the fitted release writes its own (see
        :meth:`Estimator.transform <anonkit.estimators.base.Estimator.transform>`).

        After a fit through an engine that keeps the records where they are (streaming,
        Spark), ``frame`` is read by that engine too and the release comes back in its
        type, except a pandas frame, which is in memory: the polars engine writes it and
        it comes back as pandas. Every quasi-identifier value must then be in its
        hierarchy (a hierarchy built from the training data is not rebuilt).

        Raises
        ------
        ValuesNotInHierarchyError, MissingValuesError
            After such a fit, if a value is outside its hierarchy or missing.
        """
        plan: ReleasePlan | None = getattr(self, "_plan", None)
        if plan is None or hasattr(self, "_fitting"):
            return super().transform(frame)
        engine, kind = self._engine, None
        if type(frame).__module__.split(".")[0] == "pandas":
            (frame, kind), engine = to_polars(frame), get_engine("polars")
        unseen = self._unseen_columns(engine.columns(frame))
        if unseen:
            plan = replace(plan, drop=(*plan.drop, *unseen))
        engine.count(frame, plan.columns, plan.hierarchies)  # clear errors first
        out = engine.apply(frame, plan)
        return out if kind is None else from_polars(out, kind)

    def _generalize(self, data: pl.DataFrame, fitting: Fitting) -> pl.DataFrame:
        """``data`` with each quasi-identifier at its learned level. A hierarchy built from a
        table (``{"type": "intervals", ...}``) is built again over the training and the new
        values, so that a new value gets a label, with what the builder chose from the
        training values kept (:func:`~anonkit.core.hierarchy_builders.pinned_spec`: the
        intervals' anchor); ordered groups are not (a new value would shift them), so
        values they lack are an error, as with a hierarchy given whole. A column given no
        hierarchy keeps its values at level 0 (new ones too) and
        is ``*`` above. Numbers of another type than the training's are read as the
        training numbers where they fit them exactly (:func:`_as_trained`)."""
        columns = []
        for c, h in fitting.by_name.items():
            lv = self.transformation_[c]
            spec = fitting.specs.get(c)
            values = _as_trained(data[c], fitting.data[c].dtype)
            if (
                isinstance(spec, Mapping)
                and built_from_values(spec)
                and (pinned := pinned_spec(spec, h)) is not None
            ):
                # built again over the new values too, the training values' labels fixed;
                # numbers that do not fit the training type (20.5 beside integers) are
                # read beside them as numbers of a type that holds both (floats)
                both = [fitting.data[c].to_frame(), values.to_frame()]
                h = resolve_hierarchy(c, pinned, pl.concat(both, how="vertical_relaxed")[c])
            if spec is not None:
                columns.append(generalize_column(values, h, lv, c))
            elif lv == 0:
                columns.append(as_text(values).alias(c))
            else:
                columns.append(pl.Series(c, [SUPPRESSED] * data.height, dtype=pl.String))
        return data.with_columns(columns)

    def _transform(self, data: pl.DataFrame, fitting: Fitting) -> pl.DataFrame:
        """The learned levels applied; a record that falls into a class the fit
        suppressed is suppressed too (masked or dropped, like the release), and one in a
        class whose cells ``local_suppression`` blanked has those cells blanked."""
        qi = fitting.quasi_identifiers
        out = self._generalize(data, fitting)
        # the parameters of the fit (an estimator fitted inside another's fit: its own)
        fitted = getattr(self, "_fitted_with", None) or self.get_params(deep=False)
        if fitted["local_suppression"] is not False:
            blanked = self._blank_as_trained(out, fitting)
            return blanked.filter(~all_starred(qi)) if fitted["suppressed"] == "drop" else blanked
        if not self.result_.suppressed:
            return out  # (at the top, every record shows '*' and none was suppressed)
        starred = self._masked.select(all_starred(qi)).to_series()
        gone = self._generalize(fitting.data.filter(starred), fitting).select(qi).unique()
        new = "__anonkit_new__"  # a reserved name (core.schema.RESERVED_PREFIX)
        hit = out.select(qi).with_row_index(new).join(gone, on=qi, how="semi")[new]
        hit_mask = pl.Series(np.isin(np.arange(out.height), hit.to_numpy()))
        if fitted["suppressed"] == "drop":
            return out.filter(~hit_mask)
        star = pl.lit(SUPPRESSED, dtype=pl.String)
        return out.with_columns(
            [pl.when(hit_mask).then(star).otherwise(pl.col(c)).alias(c) for c in qi]
        )

    def _blank_as_trained(self, out: pl.DataFrame, fitting: Fitting) -> pl.DataFrame:
        """``out`` (records at the learned levels) with the cells blanked that local
        suppression blanked in the training records of the same class; where it blanked
        them differently in one class (records told apart by their sensitive values),
        the form with the most blanks (the first in the training, of equal ones). A class
        the training lacked, or where nothing was blanked, keeps its labels."""
        qi = fitting.quasi_identifiers
        shown = [f"{RESERVED_PREFIX}_shown_{i}" for i in range(len(qi))]
        blanks = f"{RESERVED_PREFIX}_blanks"
        # only the training records with a blank cell tell a class's blanks
        some = self._masked.select(pl.any_horizontal(pl.col(qi) == SUPPRESSED)).to_series()
        trained = self._generalize(fitting.data.filter(some), fitting).select(qi)
        released = self._masked.filter(some).select(
            pl.col(c).alias(s) for c, s in zip(qi, shown, strict=True)
        )
        forms = (
            pl.concat([trained, released], how="horizontal")
            .unique(maintain_order=True)
            .with_columns(pl.sum_horizontal(pl.col(shown) == SUPPRESSED).alias(blanks))
            .sort(blanks, descending=True, maintain_order=True)
            .unique(subset=qi, keep="first", maintain_order=True)
            .drop(blanks)
        )
        joined = out.join(forms, on=qi, how="left", maintain_order="left")
        return joined.with_columns(
            pl.coalesce(pl.col(s), pl.col(c)).alias(c) for c, s in zip(qi, shown, strict=True)
        ).drop(shown)


def _as_trained(values: pl.Series, dtype: pl.DataType) -> pl.Series:
    """New records' numbers in the training column's number type ``dtype`` when every
    value fits it exactly (Int32 or UInt8 for Int64, ``20.0`` for an integer); else as
    they are: ``20.5`` is a value the training lacked, never cut to ``20``."""
    if values.dtype == dtype or not (values.dtype.is_numeric() and dtype.is_numeric()):
        return values
    cast = values.cast(dtype, strict=False)
    exact = cast.null_count() == 0 and bool((cast.cast(values.dtype) == values).all())
    return cast if exact else values


def _needs_detail(models: Sequence[PrivacyModel]) -> bool:
    """Whether a model reads more than class sizes (the count must keep the details)."""
    return any(m.requires - {CLASS_SIZE} for m in models)


def _detail_codes(table: EncodedTable, columns: Sequence[str]) -> TallyCodes:
    """The detail snapshot's codes of the sensitive attributes ``columns`` and of the
    quasi-identifiers, with the records of each row (the leak check's tally)."""
    detail = table.detail
    assert detail is not None
    q = table.width
    codes = dict(zip(table.columns, detail.codes[:q], strict=True))
    cards = {c: len(h.leaves) for c, h in zip(table.columns, table.hierarchies, strict=True)}
    for i, attribute in enumerate(table.sensitive):
        codes[attribute.name] = detail.codes[q + i]
        cards[attribute.name] = len(attribute.labels)
    wanted = [*columns, *table.columns]
    return TallyCodes({c: codes[c] for c in wanted}, cards, detail.counts)
