"""Measure any release: :func:`evaluate` and the :class:`Evaluation` it returns.

A data steward asks two questions about a release, whoever made it: how much could an
attacker learn, and how much did we lose? :func:`evaluate` reads the release against the
original table (rows matched by position, see :mod:`anonkit.metrics.labels`) and computes
every information-loss metric of :mod:`anonkit.metrics.loss` and every risk measure of
:mod:`anonkit.metrics.risk`, each with a one-line plain-language explanation, into a
frozen, JSON-ready :class:`Evaluation`.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import polars as pl

from anonkit._arrays import IntArray
from anonkit._frozen import FrozenDict
from anonkit._validation import Callback, check, check_choice, check_int, check_names, check_real
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ParameterError, UnknownColumnError
from anonkit.metric_info import LOSS_INFO, RISK_INFO, MetricInfo, percent_label
from anonkit.metrics.classes import ClassProfile, profile_sizes
from anonkit.metrics.levels import json_ready
from anonkit.metrics.loss import all_losses, attribute_losses
from anonkit.metrics.node_metrics import check_weights
from anonkit.metrics.release import (
    Release,
    achieved_l_diversity,
    check_covered,
    check_value_ranges,
    interpret_release,
)
from anonkit.metrics.risk import (
    average_journalist_risk,
    average_prosecutor_risk,
    journalist_risk,
    marketer_risk,
    population_class_sizes,
    prosecutor_risk,
    records_at_risk,
    risk_distribution,
    sample_uniqueness_risk,
)
from anonkit.metrics.tables import (
    UNIQUENESS_TEXTS,
    Measuring,
    frame_argument,
    population_table,
    population_uniqueness,
    resolved_hierarchies,
)
from anonkit.metrics.tables import population_size as checked_size
from anonkit.progress import Progress, start_stage

OWNER = "evaluate"


def _finite(value: float | None) -> float | None:
    if value is None:
        return None
    return float(value) if math.isfinite(value) else None


@dataclass(frozen=True)
class Evaluation:
    """Every information-loss and risk figure of one release.

    Attributes
    ----------
    n_records, n_suppressed
        Records of the release, and those with every quasi-identifier ``*``.
    quasi_identifiers, sensitive, numeric, class_attribute
        The configuration the release was read with.
    k, risk_threshold, population_size, population_model
        Parameters of the measures (``k`` normalizes C_avg; ``population_size`` feeds the
        population-uniqueness estimate).
    uniqueness_method
        How population uniqueness was found: ``"population table"`` (counted in the
        whole population's table), ``"pitman"`` or ``"zayatz"`` (estimated), or ``None``.
    classes
        Equivalence classes of the released (not suppressed) records.
    privacy
        Achieved privacy levels: ``achieved_k`` and, per sensitive attribute,
        ``distinct_l`` and ``entropy_l`` (l-diversity, Machanavajjhala et al. 2007).
    loss
        Loss metrics by name (:data:`LOSS_INFO`); NaN or inf where a metric is undefined
        or unbounded for this release (see ``notes``).
    risk
        Risk measures by name (:data:`RISK_INFO`); NaN where the input they need is
        missing.
    attributes
        Per quasi-identifier loss and generalization (see
        :func:`anonkit.metrics.loss.attribute_losses`).
    risk_distribution
        Released records per prosecutor-risk bucket (journalist risk with a population).
    notes
        Plain sentences on what could not be computed and why.
    timing
        Seconds per stage.
    """

    n_records: int
    n_suppressed: int
    quasi_identifiers: tuple[str, ...]
    sensitive: tuple[str, ...]
    numeric: tuple[str, ...]
    class_attribute: str | None
    k: int | None
    risk_threshold: float
    population_size: int | None
    population_model: str
    classes: ClassProfile
    privacy: Mapping[str, Any]
    loss: Mapping[str, float]
    risk: Mapping[str, float]
    attributes: Mapping[str, Mapping[str, Any]]
    risk_distribution: Mapping[str, int]
    notes: tuple[str, ...]
    timing: Mapping[str, float]
    uniqueness_method: str | None = None

    @property
    def suppressed_share(self) -> float:
        return self.n_suppressed / self.n_records if self.n_records else 0.0

    def _figures(self, values: Mapping[str, float], info: Mapping[str, MetricInfo]) -> list[Any]:
        out = []
        for name, meta in info.items():
            if name not in values:
                continue
            title, explanation, reference = meta.title, meta.explanation, meta.reference
            if name == "records_at_risk":
                explanation = explanation.replace(
                    "the threshold", percent_label(self.risk_threshold)
                )
            if name == "population_uniqueness" and self.uniqueness_method is not None:
                own_title, said, own_reference = UNIQUENESS_TEXTS[self.uniqueness_method]
                title, reference = own_title or title, own_reference or reference
                explanation = said if own_title else f"{explanation} {said}"
            out.append(
                {
                    "name": name,
                    "title": title,
                    "value": _finite(values[name]),
                    "better": meta.better,
                    "range": meta.range,
                    "explanation": explanation,
                    "reference": reference,
                }
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        """Every figure as plain JSON-ready values; undefined figures become ``None``.

        ``loss`` and ``risk`` are lists of ``{name, title, value, better, range,
        explanation, reference}`` in report order. No record is included.
        """
        return {
            "dataset": {
                "n_records": self.n_records,
                "n_released": self.n_records - self.n_suppressed,
                "n_suppressed": self.n_suppressed,
                "suppressed_share": self.suppressed_share,
            },
            "configuration": {
                "quasi_identifiers": list(self.quasi_identifiers),
                "sensitive": list(self.sensitive),
                "numeric": list(self.numeric),
                "class_attribute": self.class_attribute,
                "k": self.k,
                "risk_threshold": self.risk_threshold,
                "population_size": self.population_size,
                "population_model": self.population_model,
                "uniqueness_method": self.uniqueness_method,
            },
            "privacy": json_ready(self.privacy),
            "classes": self.classes.to_dict(),
            "loss": self._figures(self.loss, LOSS_INFO),
            "risk": self._figures(self.risk, RISK_INFO),
            "risk_distribution": dict(self.risk_distribution),
            "attributes": [{"name": name, **json_ready(a)} for name, a in self.attributes.items()],
            "notes": list(self.notes),
            "timing_seconds": dict(self.timing),
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """:meth:`to_dict` as strict JSON (no NaN or Infinity); never contains records."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def __repr__(self) -> str:
        return (
            f"Evaluation(n_records={self.n_records}, suppressed={self.n_suppressed}, "
            f"achieved_k={self.classes.min_size}, loss={_finite(self.loss.get('loss'))}, "
            f"prosecutor_max={_finite(self.risk.get('prosecutor_max'))})"
        )


# ------------------------------------------------------------------------- evaluate
def evaluate(
    original: Any,
    release: Any,
    *,
    quasi_identifiers: Sequence[str],
    hierarchies: Mapping[str, Hierarchy | str | Any] | None = None,
    sensitive: Sequence[str] = (),
    class_attribute: str | None = None,
    population: Any = None,
    population_size: int | None = None,
    population_model: str = "pitman",
    numeric: Sequence[str] = (),
    value_ranges: Mapping[str, tuple[float, float]] | None = None,
    k: int | None = None,
    risk_threshold: float = 0.2,
    levels: Mapping[str, int] | None = None,
    weights: Mapping[str, float] | None = None,
    progress: Progress | None = None,
    suppression_limit: float | None = None,
) -> Evaluation:
    """Measure the information loss and re-identification risk of a release.

    Parameters
    ----------
    original, release
        The original table and the release (pandas or polars), with the same rows in the
        same order; or two Spark DataFrames, measured by group-bys on the cluster (rows
        need no order; the KL divergence, SSE, IL, untruthful cells and journalist risk
        stay single-machine, see :mod:`anonkit.evaluate_spark`). Released
        quasi-identifiers may be hierarchy labels at any level, ``[lo-hi]`` /
        ``[lo-hi[`` ranges, ``*`` or exact values (see :mod:`anonkit.metrics.labels`).
    quasi_identifiers
        Columns an attacker could link on.
    hierarchies
        Per non-numeric quasi-identifier: a :class:`Hierarchy`, the path of a hierarchy
        CSV, a builder table, or the hierarchy table in memory (as in
        :func:`anonkit.anonymize`). Without one, a quasi-identifier can only have been
        kept or suppressed (``*``).
    sensitive
        Sensitive attributes; their achieved l-diversity is reported (values read from the
        release when it has the column, else from the original).
    class_attribute
        Column whose values the classification metric CM checks (from the original).
    population
        A population table (pandas or polars) holding the quasi-identifiers in original
        form, for journalist risk (and the population size).
    population_size
        Size of the population the release was drawn from, for the population-uniqueness
        estimate (default: the population table's size; without either the estimate is
        not computed).
    population_model
        ``"pitman"`` (Hoshino 2001, default) or ``"zayatz"`` (Zayatz 1991).
    numeric
        Quasi-identifiers read as numbers (no hierarchy): ranges, ``*`` or numbers such
        as microaggregated means; SSE and IL are computed on them.
    value_ranges
        Per numeric attribute, the ``(min, max)`` of its domain (default: the data's).
    k
        The k of the privacy target: normalizes C_avg and counts records below k.
    risk_threshold
        Records with a risk above it count as at risk (default 0.2: groups below 5).
    levels
        Per hierarchy attribute, the level to read labels at when a label exists at
        several levels (e.g. ``AnonymizationResult.transformation``).
    weights
        NCP attribute weights (default 1 each).
    progress
        A progress callback; one with a ``stage`` method (:mod:`anonkit.progress`) is
        told when each step starts: matching the release, measuring loss, measuring risk
        (and l-diversity when ``sensitive`` is given).
    suppression_limit
        The share of records the release could suppress: records at ``*`` in every
        quasi-identifier are suppressed ones up to it, beyond it a class generalized to
        the top (with none given, they are suppressed ones).

    Returns
    -------
    Evaluation

    Raises
    ------
    UnknownColumnError
        If a named column is missing.
    ParameterError
        If a parameter is invalid.
    DataError, ValuesNotInHierarchyError
        If the release cannot be read against the original.
    MissingValuesError
        If a ``sensitive`` column has missing values in records that are not suppressed.
    UncoveredValueError
        If a released label does not cover its row's original value (rows reordered, or a
        label of another record); exact numbers of ``numeric`` columns are aggregates.

    Examples
    --------
    >>> import polars as pl
    >>> original = pl.DataFrame({"age": [21, 23, 35, 38], "sex": ["m", "f", "m", "f"]})
    >>> release = pl.DataFrame({"age": ["[20-30[", "[20-30[", "[30-40[", "[30-40["],
    ...                         "sex": ["*", "*", "*", "*"]})
    >>> ev = evaluate(original, release, quasi_identifiers=["age", "sex"], numeric=["age"])
    >>> ev.classes.min_size, ev.risk["prosecutor_max"], round(ev.loss["loss"], 3)
    (2, 0.5, 0.75)
    """
    t0 = time.perf_counter()
    qi = list(check_names(quasi_identifiers, "quasi_identifiers", OWNER))
    if not qi:
        raise ParameterError("quasi_identifiers", OWNER, "at least one column name", qi)
    sens = list(check_names(sensitive, "sensitive", OWNER))
    num = list(check_names(numeric, "numeric", OWNER))
    if not_qi := [c for c in num if c not in qi]:
        raise ParameterError("numeric", OWNER, "quasi-identifiers", not_qi[0])
    if k is not None:
        check_int(k, "k", OWNER, low=1)
    check_real(risk_threshold, "risk_threshold", OWNER, low=0, high=1)
    check_choice(population_model, "population_model", OWNER, ("pitman", "zayatz"))
    if population_size is not None:
        check_int(population_size, "population_size", OWNER)
    if weights is not None:
        check_weights(weights, qi, "weights", OWNER)
    if suppression_limit is not None:
        check_real(suppression_limit, "suppression_limit", OWNER, low=0, high=1, noun="a share")
    if progress is not None:  # as the estimators' OrNone(Callback())
        check(progress, Callback(), "progress", OWNER)
    value_ranges = check_value_ranges(value_ranges, qi, num, OWNER)
    spark = any(type(t).__module__.startswith("pyspark") for t in (original, release))
    pop = None if population is None or spark else population_table(population, qi, OWNER)
    asked = Measuring(
        quasi_identifiers=qi,
        hierarchies=hierarchies,
        sensitive=sens,
        numeric=num,
        class_attribute=class_attribute,
        value_ranges=value_ranges,
        k=k,
        levels=levels,
        weights=weights,
        progress=progress,
        suppression_limit=suppression_limit,
    )
    if spark:
        from anonkit.evaluate_spark import measure_spark  # the figures group-bys give

        measured: _Measured = measure_spark(original, release, asked, population)
    else:
        measured = _measure(original, release, asked, pop)

    start_stage(progress, "Measuring risk")
    notes = measured.notes
    sizes = measured.sizes
    pop_sizes = None
    n_released = measured.n_records - measured.n_suppressed
    pop_n = checked_size(None if pop is None else pop.height, population_size, n_released, OWNER)
    if pop is not None:  # in memory (the Spark path refuses a population table)
        assert isinstance(measured, _InMemory)
        r = measured.read
        pop_sizes = population_class_sizes(r, pop)[~r.class_suppressed]
        if short := int((pop_sizes < sizes).sum()):
            notes.append(
                f"{short} released group(s) match fewer population records than they hold; "
                "they were counted as matching their own records."
            )
    risk: dict[str, float] = {
        "prosecutor_max": prosecutor_risk(sizes),
        "prosecutor_average": average_prosecutor_risk(sizes),
        "journalist_max": math.nan,
        "journalist_average": math.nan,
        "marketer": marketer_risk(sizes, pop_sizes),
        "sample_uniqueness": sample_uniqueness_risk(sizes),
        "records_at_risk": records_at_risk(sizes, threshold=float(risk_threshold)),
        "population_uniqueness": math.nan,
    }
    if pop_sizes is not None:
        risk["journalist_max"] = journalist_risk(sizes, pop_sizes)
        risk["journalist_average"] = average_journalist_risk(sizes, pop_sizes)
    else:
        notes.append("Journalist risk needs a population table; none was given.")
    method = None
    if pop_n is not None and sizes.size:
        risk["population_uniqueness"], method, note = population_uniqueness(
            sizes, pop_sizes, pop, pop_n, population_model
        )
        notes.extend([note] if note else [])
    elif pop_n is None:
        notes.append(
            "Population uniqueness needs the population size (population_size) or a "
            "population table; it was not estimated."
        )
    distribution = risk_distribution(sizes, pop_sizes)
    t3 = time.perf_counter()

    privacy: dict[str, Any] = {"achieved_k": int(sizes.min()) if sizes.size else 0}
    if sens:
        start_stage(progress, "Measuring l-diversity")
        diversity: dict[str, Any] = {}
        for s in sens:
            found = measured.l_diversity(s)
            if found is None:
                notes.append(f"l-diversity of {s!r}: the release has no such column.")
            else:
                diversity[s] = found
        privacy["l_diversity"] = diversity
    loss, per_attribute = measured.loss, measured.attributes
    for name, value in loss.items():
        if name in measured.explained:
            continue
        if math.isnan(value):
            notes.append(f"{LOSS_INFO[name].title}: {_NAN_REASONS.get(name, 'not defined')}.")
        elif math.isinf(value):
            notes.append(f"{LOSS_INFO[name].title}: infinite, {measured.infinite}.")
    untruthful = {
        n: a["untruthful_cells"] for n, a in per_attribute.items() if a["untruthful_cells"]
    }
    if untruthful:
        shown = ", ".join(f"{n} ({c})" for n, c in untruthful.items())
        notes.append(
            f"Released cells that do not contain the original value, per attribute: {shown}."
        )
    t4 = time.perf_counter()
    return Evaluation(
        n_records=measured.n_records,
        n_suppressed=measured.n_suppressed,
        quasi_identifiers=tuple(qi),
        sensitive=tuple(sens),
        numeric=tuple(num),
        class_attribute=class_attribute,
        k=k,
        risk_threshold=float(risk_threshold),
        population_size=pop_n,
        population_model=population_model,
        classes=profile_sizes(sizes, k=k or 1, suppressed=measured.n_suppressed),
        privacy=FrozenDict(privacy),
        loss=FrozenDict(loss),
        risk=FrozenDict(risk),
        attributes=FrozenDict({n: FrozenDict(a) for n, a in per_attribute.items()}),
        risk_distribution=distribution,
        notes=tuple(notes),
        timing=FrozenDict(
            {
                "read": measured.matched - t0,
                "loss": measured.measured - measured.matched,
                "risk": t3 - measured.measured,
                "total": t4 - t0,
            }
        ),
        uniqueness_method=method,
    )


class _Measured(Protocol):
    """A release read against its original, and its loss: what :func:`evaluate` finishes
    (risk, achieved privacy, notes) the same way in memory and on Spark
    (:class:`~anonkit.evaluate_spark.SparkMeasures`)."""

    @property
    def n_records(self) -> int: ...
    @property
    def n_suppressed(self) -> int: ...
    @property
    def sizes(self) -> IntArray: ...
    @property
    def loss(self) -> dict[str, float]: ...
    @property
    def attributes(self) -> dict[str, dict[str, Any]]: ...
    @property
    def notes(self) -> list[str]: ...
    @property
    def explained(self) -> frozenset[str]: ...
    @property
    def infinite(self) -> str: ...
    @property
    def matched(self) -> float: ...
    @property
    def measured(self) -> float: ...
    def l_diversity(self, attribute: str) -> dict[str, float] | None: ...


@dataclass(frozen=True, eq=False)
class _InMemory:
    """A release read against its original in memory (:class:`_Measured`).

    ``matched`` and ``measured`` are the moments (``time.perf_counter``) the reading and
    the loss metrics ended.
    """

    read: Release
    original: pl.DataFrame
    release: pl.DataFrame
    loss: dict[str, float]
    attributes: dict[str, dict[str, Any]]
    matched: float
    measured: float
    notes: list[str] = field(default_factory=list)
    explained: frozenset[str] = frozenset()
    infinite: ClassVar[str] = (
        "some released cells do not contain the original value (a perturbative release)"
    )

    @property
    def n_records(self) -> int:
        return self.read.n_records

    @property
    def n_suppressed(self) -> int:
        return self.read.n_suppressed

    @property
    def sizes(self) -> IntArray:
        return self.read.kept_sizes

    def l_diversity(self, attribute: str) -> dict[str, float]:
        """Read from the release when it has the column, else from the original."""
        frame = self.release if attribute in self.release.columns else self.original
        return achieved_l_diversity(self.read, frame[attribute])


def _measure(
    original: Any, release: Any, asked: Measuring, population: pl.DataFrame | None
) -> _InMemory:
    """:func:`evaluate`'s reading of the release and its loss metrics, in memory."""
    orig = frame_argument(original, "original", OWNER)
    rel = frame_argument(release, "release", OWNER)
    qi, num, cls = list(asked.quasi_identifiers), list(asked.numeric), asked.class_attribute
    named = [*qi, *asked.sensitive, *([cls] if cls is not None else [])]
    missing = [c for c in dict.fromkeys(named) if c not in orig.columns]
    if missing:
        raise UnknownColumnError(missing, orig.columns)
    specs = dict(asked.hierarchies or {})
    # hierarchies of other columns are ignored (a full set, as load_adult() gives, may be
    # passed), but a numeric quasi-identifier cannot also have one
    extra = [c for c in specs if c in num]
    if extra:
        raise ParameterError(
            "hierarchies", OWNER, "given for non-numeric quasi-identifiers only", extra[0]
        )

    start_stage(asked.progress, "Matching the release")
    resolved = resolved_hierarchies(specs, qi, num, orig, population)
    r = interpret_release(
        orig,
        rel,
        quasi_identifiers=qi,
        hierarchies=resolved,
        numeric=num,
        value_ranges=asked.value_ranges,
        levels=asked.levels,
        suppression_limit=asked.suppression_limit,
        owner=OWNER,
    )
    check_covered(r)  # rows correspond here (same number, same order): each label covers
    t1 = time.perf_counter()

    start_stage(asked.progress, "Measuring loss")
    target = orig[cls] if cls is not None else None
    loss = all_losses(r, k=asked.k, target=target, weights=asked.weights)
    if not num:  # SSE and IL are defined on numeric attributes only
        del loss["sse"], loss["il"]
    if len(num) == len(qi):  # the hierarchy-level metrics need hierarchies
        del loss["height"], loss["relative_distance"], loss["precision"]
    per_attribute = attribute_losses(r)
    return _InMemory(r, orig, rel, loss, per_attribute, t1, time.perf_counter())


_NAN_REASONS = {
    "sse": "needs numeric attributes that vary",
    "il": "needs numeric attributes that vary",
    "conditional_entropy": "some released cell covers no original value",
}
