"""Local recoding: Mondrian, greedy class merging and microaggregation as estimators.

Full-domain searches generalize whole columns; these generalize or aggregate groups of
records. Each wraps its algorithm of :mod:`anonkit.algorithms` (which works on one table of
quasi-identifiers) into the shared fit pipeline of :class:`~anonkit.estimators.base.Estimator`
and the same :class:`~anonkit.result.AnonymizationResult` as the full-domain searches: the
release in the caller's frame type, the class profile measured on the release itself, the
metrics and the timing. ``transformation`` is empty (there is no single level per column)
and ``details`` holds the algorithm's own figures.

``transform`` gives a new record the labels of the training record with the same
quasi-identifiers when there is one (so the training frame comes back as the release,
except where the algorithm split equal records between classes: relaxed Mondrian,
microaggregation), else those of the class :func:`~anonkit.estimators.recoding.assign_classes`
(Mondrian, greedy merging) or :func:`~anonkit.estimators.recoding.nearest_groups` finds.

The names repeat those of the algorithm classes, which work on encoded inputs and return
partitions (:class:`anonkit.algorithms.mondrian.Mondrian`); these fit on frames.

*Large tables.* Above :data:`LARGE_TABLE` records the steps that read every record as
text are shortened: the leak check reads :data:`~anonkit.estimators.steps.LEAK_SAMPLE`
records spread over the table (as the streamed full-domain fit does), the loss metrics are not
measured (``details["loss"]`` says so; :func:`anonkit.evaluate.evaluate` measures them on
the release), and Mondrian profiles and verifies its release on the release's tally (one
row per class and sensitive value, :func:`anonkit.algorithms.mondrian.frame.release_tally`)
instead of grouping the released text of every record.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import polars as pl

from anonkit._frozen import FrozenDict
from anonkit._validation import Boolean, Constraint, Interval, Options, OrNone, Separator
from anonkit.algorithms.microaggregation.aggregate import AGGREGATES
from anonkit.algorithms.microaggregation.estimator import METHODS
from anonkit.algorithms.mondrian.estimator import NUMERIC_RELEASES
from anonkit.algorithms.mondrian.partition import MODES, SPLITS
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import resolve_hierarchy
from anonkit.core.schema import Schema
from anonkit.engines.base import sample_step
from anonkit.engines.counting import COUNT
from anonkit.estimators.bare import DETAIL as BARE
from anonkit.estimators.bare import note_bare_columns
from anonkit.estimators.base import (
    Columns,
    Estimator,
    Fitting,
    Placed,
    Privacy,
    stage_timing,
    with_engine,
)
from anonkit.estimators.leak_check import PendingLeaks
from anonkit.estimators.recoding import (
    assign_classes,
    nearest_groups,
    parse_numbers,
    refuse_infinite,
)
from anonkit.estimators.steps import LEAK_SAMPLE, check_numeric, local_result
from anonkit.exceptions import ParameterError
from anonkit.io.frames import from_polars
from anonkit.metrics.classes import class_profile, profile_sizes, tally_sizes
from anonkit.metrics.levels import model_attributes
from anonkit.metrics.release import interpret_release
from anonkit.models import PrivacyModel, split_k_anonymity
from anonkit.progress import Progress, start_stage
from anonkit.result import AnonymizationResult

__all__ = [
    "GREEDY_MERGE_COMBINATIONS",
    "LARGE_TABLE",
    "GreedyMerge",
    "Microaggregation",
    "Mondrian",
]

#: Tables with more records than this are "large" (see the module docstring).
LARGE_TABLE = 500_000
#: The most distinct quasi-identifier combinations greedy merging takes. Measured on the
#: jittered table of ``benchmarks/scale_data.py`` (k = 10, 8 quasi-identifiers): 16,670
#: combinations 3.6 s CPU and 1.1 GB peak, 30,921 8.7 s and 2.1 GB, 56,536 21 s and 4.2 GB;
#: memory grows by about 75 KB per combination (7.5 GB at this limit) and time faster
#: than linearly.
GREEDY_MERGE_COMBINATIONS = 100_000  # = algorithms.greedy_merge MAX_COMBINATIONS (tested)


def _k_only(models: Sequence[PrivacyModel], algorithm: str) -> int:
    """The k of a k-anonymity-only model list (greedy merging, microaggregation)."""
    k, others = split_k_anonymity(models)
    if others or k is None:
        raise ParameterError(
            "privacy",
            algorithm,
            "k-anonymity only (use flash or mondrian for other privacy models)",
            ", ".join(m.describe() for m in others),
        )
    return k


def _loss_metrics(
    data: pl.DataFrame,
    released: pl.DataFrame,
    fitting: Fitting,
    numeric: Sequence[str],
    k: int | None,
) -> dict[str, float]:
    """The loss metrics of :func:`anonkit.evaluate.evaluate` for a local recoding."""
    from anonkit.evaluate import evaluate

    qi = fitting.quasi_identifiers
    ev = evaluate(
        data.select(qi),
        released.select(qi),
        quasi_identifiers=qi,
        hierarchies={c: h for c, h in fitting.by_name.items() if c not in numeric},
        numeric=list(numeric),
        k=k,
    )
    out: dict[str, float] = {}
    for entry in ev.to_dict()["loss"]:
        value = entry.get("value")
        if isinstance(value, (int, float)):
            out[str(entry["name"])] = float(value)
    return out


class Outcome(NamedTuple):
    """What a local algorithm's run gives :meth:`_Local._run`."""

    #: The release, identifying columns still in.
    released: pl.DataFrame
    metrics: dict[str, Any]
    #: The metric the algorithm minimised (``"none"`` where it follows a rule).
    metric: str
    #: The k of the class profile (``None``: no k-anonymity among the models).
    k: int | None
    #: The release counted while it was written (one row per class and sensitive
    #: values, its records in ``COUNT``), or ``None``: the class profile and the
    #: verification read it instead of grouping the release's text again.
    tally: pl.DataFrame | None = None
    #: The release whose loss is measured, where it is not ``released``: Mondrian's mean
    #: release is measured on its classes' ranges (a mean read as a value loses nothing).
    measured: pl.DataFrame | None = None


class _Local(Estimator):
    """What the local-recoding estimators share: the result and ``transform``."""

    #: The algorithm name of the result.
    name: ClassVar[str]
    #: Whether the algorithm suppresses records (``*`` in every quasi-identifier) within
    #: ``privacy.suppression_limit``; in the release of one that does not, records at
    #: ``*`` everywhere are a class generalized to the top.
    suppresses: ClassVar[bool] = False
    #: The algorithm's own figures (``result_.details``), set by ``_outcome``.
    details_: dict[str, Any]
    #: The release as boxes, row-aligned with it, where its labels are not boxes
    #: (``Outcome.measured``: Mondrian's means are points); ``None``: its own labels.
    _boxes: pl.DataFrame | None = None

    @property
    def algorithm(self) -> str:
        return self.name

    def _outcome(self, fitting: Fitting) -> Outcome:
        """Run the algorithm; ``details_`` set."""
        raise NotImplementedError

    #: Columns whose loss :func:`anonkit.evaluate.evaluate` measures as numbers (``None``:
    #: the loss is not measured with evaluate).
    def _loss_numeric(self, fitting: Fitting) -> list[str] | None:
        return None

    def _run(self, fitting: Fitting) -> tuple[AnonymizationResult, pl.DataFrame]:
        check_numeric(fitting.numeric, fitting.quasi_identifiers, fitting.data.columns, self.name)
        t1 = time.perf_counter()
        released, metrics, metric, k, tally, measured = self._outcome(fitting)
        # the classes as boxes where the release labels them otherwise (Mondrian's means)
        self._boxes = None if measured is None else measured.select(fitting.quasi_identifiers)
        t2 = time.perf_counter()
        released = released.drop(fitting.dropped)
        least = k if k is not None else 1
        # where the algorithm suppresses no record, a class at ``*`` everywhere is a class
        starred = self.suppresses
        if tally is None:
            classes = class_profile(released, fitting.quasi_identifiers, k=least, starred=starred)
        else:
            sizes, n_star = tally_sizes(tally, fitting.quasi_identifiers, COUNT, starred=starred)
            classes = profile_sizes(sizes, k=least, suppressed=n_star)
            fitting.tallies.append((released, tally))
        loss_numeric = self._loss_numeric(fitting)
        if loss_numeric is not None and fitting.data.height > LARGE_TABLE:
            self.details_["loss"] = (
                f"not measured on more than {LARGE_TABLE:,} records (anonkit.evaluate "
                "measures it on the release)"
            )
        elif loss_numeric is not None:
            start_stage(self.progress, "Measuring loss")
            measured = released if measured is None else measured.drop(fitting.dropped)
            metrics.update(_loss_metrics(fitting.data, measured, fitting, loss_numeric, k))
        t3 = time.perf_counter()
        result = local_result(
            from_polars(released, fitting.kind),
            algorithm=self.name,
            metric=metric,
            models=fitting.models,
            n_records=fitting.data.height,
            suppression_limit=fitting.suppression_limit,
            classes=classes,
            metrics=metrics,
            timing=stage_timing(fitting.t0, t1, t2, t3),
            details=self.details_,
        )
        return result, released

    def _leak_check(
        self, data: pl.DataFrame, qi: Sequence[str], schema: Schema, tallied: Sequence[str] = ()
    ) -> tuple[dict[str, Any], PendingLeaks | None]:
        """The leak check of every estimator; on a large table, of
        :data:`~anonkit.estimators.steps.LEAK_SAMPLE` records spread over all of it."""
        if data.height > LARGE_TABLE:
            data = data.gather_every(sample_step(data.height, LEAK_SAMPLE))
        return super()._leak_check(data, qi, schema, tallied)

    def _transform(self, data: pl.DataFrame, fitting: Fitting) -> pl.DataFrame:
        """Records seen in training take their release labels, the others
        :meth:`_recode_new`'s; the order is kept. Infinite numbers are refused, as the
        fit refuses them."""
        refuse_infinite(data, self._read_numeric(fitting))
        row, seen = self._seen(data, fitting)
        release = self._masked.select(fitting.quasi_identifiers)
        order = "__anonkit_row"
        numbered = data.with_row_index(order)
        parts = [numbered.filter(seen).with_columns(release[row.filter(seen)].get_columns())]
        if not bool(seen.all()):
            parts.append(self._recode_new(numbered.filter(~seen), fitting))
        return pl.concat(parts, how="vertical_relaxed").sort(order).drop(order)

    def _recode_new(self, new: pl.DataFrame, fitting: Fitting) -> pl.DataFrame:
        """Records unseen in training, recoded (quasi-identifiers replaced)."""
        raise NotImplementedError

    def _read_numeric(self, fitting: Fitting) -> list[str]:
        """The quasi-identifiers read as numbers."""
        return []


class _Classes(_Local):
    """Local recodings whose new records join the most specific containing class."""

    def _recode_new(self, new: pl.DataFrame, fitting: Fitting) -> pl.DataFrame:
        qi = fitting.quasi_identifiers
        hierarchies: dict[str, Hierarchy] = {}
        for c, h in fitting.by_name.items():
            if c in self._read_numeric(fitting):
                continue
            if fitting.specs.get(c) is None:  # a suppression hierarchy: add the new values
                values = pl.concat([fitting.data[c], new[c].cast(fitting.data[c].dtype)])
                h = resolve_hierarchy(c, None, values)
            hierarchies[c] = h
        boxes = self._masked if self._boxes is None else self._boxes
        # the class of the box holding the record, labelled as the release labels it
        read = interpret_release(
            fitting.data.select(qi),
            boxes.select(qi),
            quasi_identifiers=qi,
            hierarchies=hierarchies,
            numeric=self._read_numeric(fitting),
        )
        recoded, _ = assign_classes(read, self._masked.select(qi), new)
        return recoded


class Mondrian(_Classes, Placed):
    """Mondrian multidimensional partitioning (LeFevre et al. 2006) as an estimator.

    Parameters
    ----------
    mode
        ``"strict"`` or ``"relaxed"`` partitioning.
    split
        Split dimension: ``"widest"``, ``"distinct"`` or ``"round_robin"``.
    numeric_release
        Numeric quasi-identifiers (``numeric=`` of :meth:`fit`) released as ``"range"``
        or ``"mean"``; ``transform`` gives a new record the labels of the box (range)
        holding it, else of the nearest box, whichever of the two is released.
    engine
        ``"polars"`` (default: the table in memory), ``"spark"`` (a Spark DataFrame, or a
        path Spark reads; :mod:`anonkit.estimators.spark_mondrian`: the release is a
        Spark DataFrame), ``"streaming"`` (a file path or a polars ``LazyFrame`` streamed
        from disk, only the codes in memory; :mod:`anonkit.estimators.streaming_mondrian`:
        the release is a ``LazyFrame``) or ``"auto"`` (Spark for a Spark DataFrame,
        streaming for a lazy query or a file too large for memory, else in memory;
        ``result_.details["engine"]`` says which ran and why).
    memory_share
        With ``engine="auto"``, stream a file whose table would take more than this share
        of the memory (as :class:`~anonkit.estimators.FullDomain`).
    max_block_records
        On Spark, the most records one task partitions (the driver cuts the table's
        snapshot into blocks of at most this many records where a cut allows).
    output
        Write the release to this file once verified (on Spark: a folder of part files,
        verified from what was written and then renamed into place).
    output_separator
        The field separator of a CSV or TSV ``output``: one ASCII character (default
        ``,`` for ``.csv``, tab for ``.tsv``); every engine writes with it.
    privacy, leak_check, progress
        As for every estimator (:class:`~anonkit.estimators.FullDomain`).

    References
    ----------
    LeFevre, K., DeWitt, D. J., Ramakrishnan, R. (2006). Mondrian multidimensional
    k-anonymity. ICDE.
    """

    name = "mondrian"
    reads_numbers = True
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "mode": Options(MODES),
        "split": Options(SPLITS),
        "numeric_release": Options(NUMERIC_RELEASES),
        "engine": Options(("polars", "spark", "streaming", "auto")),
        "memory_share": Interval(float, 0, 1, closed="right", noun="a share"),
        "max_block_records": Interval(int, 1),
        "output_separator": OrNone(Separator()),
    }

    def __init__(
        self,
        mode: str = "strict",
        split: str = "widest",
        numeric_release: str = "range",
        *,
        engine: str = "polars",
        memory_share: float = 0.25,
        max_block_records: int = 1_000_000,
        output: str | Path | None = None,
        output_separator: str | None = None,
        privacy: Privacy | None = None,
        leak_check: bool = True,
        progress: Progress | None = None,
    ) -> None:
        self.mode = mode
        self.split = split
        self.numeric_release = numeric_release
        self.engine = engine
        self.memory_share = memory_share
        self.max_block_records = max_block_records
        self.output = output
        self.output_separator = output_separator
        self.privacy = privacy
        self.leak_check = leak_check
        self.progress = progress

    def _fit(self, frame: Any, columns: Columns) -> None:
        """Fit in memory (pandas, polars, a file path), streamed or on Spark, as ``engine``
        says (:meth:`Estimator.fit <anonkit.estimators.base.Estimator.fit>`)."""
        name, reason = self._engine_choice(frame, self.memory_share)
        if name == "spark":
            from anonkit.estimators.spark_mondrian import fit_mondrian_spark

            result, hierarchies = fit_mondrian_spark(self, frame, columns, reason=reason)
        elif name == "streaming":
            from anonkit.estimators.streaming_mondrian import fit_mondrian_streaming

            result, hierarchies = fit_mondrian_streaming(self, frame, columns, reason=reason)
        else:
            self._fit_in_memory(frame, columns)
            if self.engine == "auto":
                self.result_ = with_engine(self.result_, name, reason)
            return
        # out of core the release is not here: the fit read the columns starred
        # everywhere from its re-check's tally
        self._fitted_elsewhere(result, columns)
        self.hierarchies_ = FrozenDict(hierarchies)
        note_bare_columns(self, result.details.get(BARE, ()))

    def _outcome(self, fitting: Fitting) -> Outcome:
        from anonkit.algorithms.mondrian.frame import fit_frame, release_frame, release_tally

        data, models, numeric = fitting.data, fitting.models, fitting.numeric
        by_name = fitting.by_name
        wanted = [a for m in models for a in m.sensitive_attributes]
        sens_h = {c: by_name[c] for c in wanted if c in by_name}
        specs = fitting.specs
        sens_h.update({c: resolve_hierarchy(c, specs[c], data[c]) for c in wanted if c in specs})
        start_stage(self.progress, "Mondrian", "rounds")
        part = fit_frame(
            data,
            models,
            quasi_identifiers=fitting.quasi_identifiers,
            hierarchies={c: h for c, h in by_name.items() if c not in numeric},
            numeric=numeric,
            sensitive=list(dict.fromkeys(wanted)),
            sensitive_hierarchies=sens_h or None,
            population=fitting.population,
            mode=self.mode,
            split=self.split,
            numeric_release=self.numeric_release,
            progress=self.progress,
        )
        start_stage(self.progress, "Releasing")
        tally = None
        if data.height > LARGE_TABLE:
            tally = release_tally(data, part, sensitive=model_attributes(models), weight=COUNT)
        self.details_ = {"mondrian": part.figures()}
        k = split_k_anonymity(models)[0]
        # cuts follow a rule (``split``), not a metric: there is none to report
        ranges = release_frame(data, part, ranges=True) if self.numeric_release == "mean" else None
        return Outcome(release_frame(data, part), {}, "none", k, tally, ranges)

    def _loss_numeric(self, fitting: Fitting) -> list[str] | None:
        return fitting.numeric

    def _read_numeric(self, fitting: Fitting) -> list[str]:
        return fitting.numeric


class GreedyMerge(_Classes):
    """Greedy class merging with cost matrices (seed 004) as an estimator.

    Parameters
    ----------
    cost
        ``"distortion"``, ``"ncp"``, ``"total"``, ``"llm"``, ``"nllm"`` (default),
        ``"wllm"`` or ``"wnllm"``.
    order
        ``"codes"`` (default: the classes in the order of their codes, the historical
        behaviour) or ``"random"``: the initial class order, which picks the small class
        to merge and breaks ties, shuffled with ``seed`` (Mauger et al. leave this order
        open; it decides most merges at large k).
    seed
        The seed of the random order (an int >= 0).
    fuse
        Whether a merged class is fused with an identical existing one (default ``True``,
        as in the paper).
    privacy, leak_check, progress
        As for every estimator; the models must be k-anonymity only.
    """

    name = "greedy_merge"
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "order": Options(("codes", "random")),
        "seed": Interval(int, 0),
        "fuse": Boolean(),
    }

    def __init__(
        self,
        cost: str = "nllm",
        *,
        order: str = "codes",
        seed: int = 0,
        fuse: bool = True,
        privacy: Privacy | None = None,
        leak_check: bool = True,
        progress: Progress | None = None,
    ) -> None:
        self.cost = cost
        self.order = order
        self.seed = seed
        self.fuse = fuse
        self.privacy = privacy
        self.leak_check = leak_check
        self.progress = progress

    def _outcome(self, fitting: Fitting) -> Outcome:
        from anonkit.algorithms.greedy_merge import GreedyMerge as Merging

        k = _k_only(fitting.models, "greedy_merge")
        combinations = fitting.data.select(fitting.quasi_identifiers).n_unique()
        if combinations > GREEDY_MERGE_COMBINATIONS:
            raise ParameterError(
                "algorithm",
                "anonymize",
                f"'mondrian' or a full-domain search for tables with more than "
                f"{GREEDY_MERGE_COMBINATIONS:,} distinct quasi-identifier combinations "
                f"(greedy merging needs about 75 KB of memory per combination; this table "
                f"has {combinations:,})",
                "greedy_merge",
            )
        start_stage(self.progress, "Greedy merging", "small classes")
        merged = Merging(
            k=k,
            cost=self.cost,
            order=self.order,
            seed=self.seed,
            fuse=self.fuse,
            progress=self.progress,
        ).fit(fitting.data.select(fitting.quasi_identifiers), fitting.by_name)
        start_stage(self.progress, "Releasing")
        released = fitting.data.with_columns(
            [pl.Series(c, v, dtype=pl.String) for c, v in merged.released_values().items()]
        )
        metrics: dict[str, float] = {f"cost_{n}": v for n, v in merged.losses.items()}
        metrics.update({f"alteration_{n}": v for n, v in merged.alteration.items()})
        metrics["modified_percentage"] = merged.modified_percentage
        metrics["deleted_percentage"] = merged.deleted_percentage
        self.details_ = {"greedy_merge": merged.to_dict()}
        return Outcome(released, dict(metrics), f"cost_{self.cost}", k)

    def _loss_numeric(self, fitting: Fitting) -> list[str] | None:
        return []


class Microaggregation(_Local):
    """Microaggregation of numeric quasi-identifiers as an estimator.

    Parameters
    ----------
    method
        ``"univariate"``, ``"mdav"`` (default) or ``"gmm"``.
    aggregate
        Groups aggregated by ``"mean"``, ``"median"`` or ``"mode"``.
    privacy, leak_check, progress
        As for every estimator; the models must be k-anonymity only.

    References
    ----------
    Domingo-Ferrer, J., Mateo-Sanz, J. M. (2002). Practical data-oriented microaggregation
    for statistical disclosure control. IEEE TKDE 14(1).
    """

    name = "microaggregation"
    reads_numbers = True
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "method": Options(METHODS),
        "aggregate": Options(AGGREGATES),
    }

    def __init__(
        self,
        method: str = "mdav",
        aggregate: str = "mean",
        *,
        privacy: Privacy | None = None,
        leak_check: bool = True,
        progress: Progress | None = None,
    ) -> None:
        self.method = method
        self.aggregate = aggregate
        self.privacy = privacy
        self.leak_check = leak_check
        self.progress = progress

    def _outcome(self, fitting: Fitting) -> Outcome:
        from anonkit.algorithms.microaggregation import Microaggregation as Aggregation

        qi, numeric = fitting.quasi_identifiers, fitting.numeric
        k = _k_only(fitting.models, "microaggregation")
        left_out = [c for c in qi if c not in numeric]
        if numeric and left_out:
            missing = ", ".join(repr(c) for c in left_out)
            raise ParameterError(
                "numeric",
                "microaggregation",
                f"every quasi-identifier (it leaves out {missing}: microaggregation replaces "
                "them all by group aggregates; leave 'numeric' empty to mean all)",
                list(numeric),
            )
        numbers = parse_numbers(fitting.data, qi)
        start_stage(self.progress, "Microaggregation", "groups")
        aggregated = Aggregation(
            k=k, method=self.method, aggregate=self.aggregate, progress=self.progress
        ).fit(numbers, qi)
        start_stage(self.progress, "Releasing")
        self.details_ = {"microaggregation": aggregated.to_dict()}
        self._numbers = numbers.select(qi)
        metrics = {"sse": aggregated.sse, "il": aggregated.il}
        # every method minimizes the within-group sum of squared errors
        return Outcome(aggregated.release(numbers), metrics, "sse", k)

    def _read_numeric(self, fitting: Fitting) -> list[str]:
        return fitting.quasi_identifiers  # every one, aggregated

    def _recode_new(self, new: pl.DataFrame, fitting: Fitting) -> pl.DataFrame:
        qi = fitting.quasi_identifiers
        numbers = parse_numbers(new, qi)
        return nearest_groups(self._numbers, self._masked.select(qi), numbers, qi)
