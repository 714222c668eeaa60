"""The app's run and explore steps: a cancellable run and the figures of its result.

:func:`run` fits the estimator that :class:`anonkit.Anonymizer` maps the settings to (the
same path as :func:`anonkit.anonymize` and ``anonkit anonymize``), reporting progress to a
:class:`RunProgress` whose :meth:`~RunProgress.cancel` stops the run at its next progress
call (the library calls it after every lattice node, and at every stage).

The explore step reads the fitted result: :func:`loss_rows`, :func:`risk_rows` (titles and
directions from :mod:`anonkit.metric_info`), :func:`class_size_svg`,
:func:`distribution_svgs` (bar charts of :mod:`anonkit.report.plots`) and
:func:`alternatives`: the private lattice nodes next to the chosen one, each with its cost,
suppressed records and risk.

Alternatives
------------
:func:`alternatives` judges the lattice nodes near the chosen one with
:meth:`FullDomain.evaluate_levels <anonkit.estimators.FullDomain.evaluate_levels>` (the
same verdicts, suppression and cost the search used) and takes the risk of each node's kept
classes with :func:`anonkit.verify.release_risk`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from anonkit.api import Anonymizer, takes_keyword
from anonkit.app.population import Population, population_risk
from anonkit.app.workflow import Loaded, Settings
from anonkit.core.lattice import Lattice
from anonkit.core.resolve import HierarchySpec
from anonkit.estimators import Estimator, FullDomain
from anonkit.metric_info import LOSS_INFO, RISK_INFO
from anonkit.metrics.classes import size_histogram
from anonkit.report.plots import bar_chart_svg
from anonkit.result import AnonymizationResult
from anonkit.verify import release_risk

__all__ = [
    "Alternative",
    "RunCancelled",
    "RunChoices",
    "RunOutcome",
    "RunProgress",
    "RunRequest",
    "alternatives",
    "class_size_svg",
    "distribution_svgs",
    "loss_rows",
    "notes",
    "risk_rows",
    "run",
]


class RunCancelled(Exception):
    """The user cancelled the run (raised from the progress callback)."""


class RunProgress:
    """Progress of a run, safe to read from another thread; :meth:`cancel` stops it.

    It is the ``progress`` callback of :mod:`anonkit.progress`: called as
    ``progress(done, total)``, with ``stage(name, unit)`` when a step starts.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancel = threading.Event()
        self.done = 0
        self.total = 0
        self.stage_name = "Starting"

    def __call__(self, done: int, total: int) -> None:
        if self._cancel.is_set():
            raise RunCancelled
        with self._lock:
            self.done, self.total = int(done), int(total)

    def stage(self, name: str, unit: str | None = None) -> None:
        """A new step started (its name is shown)."""
        if self._cancel.is_set():
            raise RunCancelled
        with self._lock:
            self.stage_name, self.done, self.total = name, 0, 0

    def cancel(self) -> None:
        """Ask the run to stop at its next progress call."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def snapshot(self) -> tuple[str, int, int]:
        """Stage name, done and total, read together."""
        with self._lock:
            return self.stage_name, self.done, self.total


@dataclass(frozen=True)
class RunChoices:
    """What the pages asked a run for, kept with its outcome: the export writes these
    (the TOML, the report) beside the release they produced, and the pages compare them
    with their current choices.

    Attributes
    ----------
    table
        The table read (the run's records; the TOML's ``input`` and ``[read]``).
    settings
        The Privacy page's settings (``algorithm`` may be ``"auto"``).
    algorithm
        The algorithm that ran (``"auto"`` resolved).
    specs
        The hierarchy of each quasi-identifier that has one.
    roles
        The columns of each role.
    heights
        The levels of each quasi-identifier's hierarchy (for the report).
    population
        The population table, if one was given.
    """

    table: Loaded
    settings: Settings
    algorithm: str
    specs: Mapping[str, HierarchySpec]
    roles: Mapping[str, Sequence[str]]
    heights: Mapping[str, int]
    population: Population | None = None


@dataclass(frozen=True)
class RunRequest:
    """Everything one run needs: the records and the keywords of :class:`anonkit.Anonymizer`
    (``population`` among them when a population table was given), and the page's
    choices they came from (kept with the outcome)."""

    frame: pl.DataFrame
    keywords: Mapping[str, Any]
    choices: RunChoices | None = None


@dataclass(frozen=True)
class RunOutcome:
    """A finished run: the fitted estimator, its result, the wall time, the alternatives
    next to the chosen node (:func:`alternatives`, empty for local recoding) and the
    release's risk figures (the result's, with the journalist risk measured against the
    population table when one was given and no model asked for it), with the choices
    of the request (:class:`RunChoices`): a later run that fails or is cancelled leaves
    both as they were."""

    estimator: Estimator
    result: AnonymizationResult
    seconds: float
    alternatives: tuple[Alternative, ...] = ()
    risk: Mapping[str, float | None] = field(default_factory=dict)
    choices: RunChoices | None = None


def anonymizer_keywords(
    roles: Mapping[str, Sequence[str]],
    hierarchies: Mapping[str, HierarchySpec],
    *,
    k: int | None,
    models: Sequence[Any],
    suppression_limit: float,
    algorithm: str,
    metric: str,
    options: Mapping[str, Any] | None = None,
    numeric: Sequence[str] = (),
    population: pl.DataFrame | None = None,
) -> dict[str, Any]:
    """The keywords of :class:`anonkit.Anonymizer` for the app's choices (``roles``: the
    columns of each role of :data:`anonkit.safety.starter.ROLES`; ``options``: the
    local-recoding algorithms' options; ``numeric``: the quasi-identifiers Mondrian and
    microaggregation read as numbers; ``population``: the population table)."""
    qi = list(roles["quasi_identifier"])
    extra: dict[str, Any] = {"numeric": list(numeric)} if numeric else {}
    if takes_keyword(algorithm, "metric"):  # the others would refuse it
        extra["metric"] = metric
    if population is not None:
        extra["population"] = population
    return {
        "quasi_identifiers": qi,
        "hierarchies": {c: hierarchies[c] for c in qi if c in hierarchies},
        "k": k,
        "privacy": list(models),
        "suppression_limit": suppression_limit,
        "algorithm": algorithm,
        "identifying": list(roles["identifying"]),
        "sensitive": list(roles["sensitive"]),
        "insensitive": list(roles["insensitive"]),
        **extra,
        **dict(options or {}),
    }


def run(
    request: RunRequest, progress: RunProgress | None = None, *, with_alternatives: bool = True
) -> RunOutcome:
    """Fit the estimator the keywords map to on the records; then (in the same worker, so
    that the explore page opens at once) find the alternatives.

    Raises
    ------
    RunCancelled
        If ``progress.cancel()`` was called.
    AnonkitError
        What :func:`anonkit.anonymize` raises (leaks, unattainable privacy, ...).
    """
    t0 = time.perf_counter()
    anonymizer = Anonymizer(**request.keywords, progress=progress)
    estimator = anonymizer.estimator().fit(request.frame, **anonymizer.roles())
    seconds = time.perf_counter() - t0
    result: AnonymizationResult = estimator.result_
    found: tuple[Alternative, ...] = ()
    if with_alternatives:
        if progress is not None:
            progress.stage("Evaluating the alternatives")
        found = tuple(alternatives(estimator))
    risk = dict(result.risk)
    population = request.keywords.get("population")
    if population is not None and risk.get("journalist_max") is None:
        if progress is not None:
            progress.stage("Measuring the journalist risk")
        risk = population_risk(
            result.release,
            population,
            quasi_identifiers=request.keywords["quasi_identifiers"],
            hierarchies=request.keywords.get("hierarchies") or {},
            numeric=request.keywords.get("numeric", ()),
            suppressed=result.suppressed > 0,
        )
    return RunOutcome(estimator, result, seconds, found, risk, request.choices)


# ---------------------------------------------------------------------------- explore
def _info_rows(values: Mapping[str, Any], info: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for key, value in values.items():
        if value is None or isinstance(value, bool):
            continue
        meta = info.get(key)
        rows.append(
            {
                "figure": meta.title if meta is not None else key.replace("_", " "),
                "value": float(value),
                "better": meta.better if meta is not None else "",
                "meaning": meta.explanation if meta is not None else "",
            }
        )
    return rows


def notes(result: AnonymizationResult) -> list[str]:
    """What the user should know about the release beside its figures: the
    quasi-identifiers without a hierarchy that it suppresses in every record."""
    bare = list(result.details.get("suppressed_without_hierarchy", ()))
    if not bare:
        return []
    names = ", ".join(bare)
    them = "it" if len(bare) == 1 else "them"
    return [
        f"{names} had no hierarchy but '*', so the release shows '*' for {them} in every record: "
        f"give {them} a hierarchy on the Hierarchies page to release {them} generalized."
    ]


def loss_rows(result: AnonymizationResult) -> list[dict[str, Any]]:
    """The information-loss table: figure, value, which way is better, meaning."""
    return _info_rows(result.metrics, LOSS_INFO)


def risk_rows(
    result: AnonymizationResult, risk: Mapping[str, float | None] | None = None
) -> list[dict[str, Any]]:
    """The re-identification risk table (prosecutor, journalist, marketer, records at
    risk): ``risk`` (:attr:`RunOutcome.risk`) or else the result's."""
    shown = {k: v for k, v in (risk or result.risk).items() if k in RISK_INFO}
    return _info_rows(shown, RISK_INFO)


def class_size_svg(histogram: Mapping[str, int], *, title: str = "Class sizes") -> str:
    """Classes per size bucket as a bar chart."""
    return bar_chart_svg(
        list(histogram), [float(v) for v in histogram.values()], title=title, xlabel="classes"
    )


def _top(series: pl.Series, top: int) -> tuple[list[str], list[float]]:
    # renamed: a column named like the count's own column ("n") would clash with it
    counts = (
        series.cast(pl.String)
        .fill_null("(missing)")
        .alias("value")
        .value_counts(sort=True, name="n")
        .sort(["n", "value"], descending=[True, False])
    )
    head = counts.head(top)
    labels = head.get_column("value").to_list()
    values = [float(v) for v in head.get_column("n").to_list()]
    rest = counts.height - head.height
    if rest > 0:
        labels.append(f"({rest} more values)")
        values.append(float(counts.get_column("n").slice(top).sum()))
    return labels, values


def distribution_svgs(
    original: pl.DataFrame, release: pl.DataFrame, column: str, *, top: int = 12
) -> tuple[str, str]:
    """Bar charts of ``column``'s most frequent values before and after."""
    before = _top(original.get_column(column), top)
    after = _top(release.get_column(column), top) if column in release.columns else ([], [])
    return (
        bar_chart_svg(*before, title=f"{column}: original", xlabel="records"),
        bar_chart_svg(*after, title=f"{column}: released", xlabel="records"),
    )


@dataclass(frozen=True)
class Alternative:
    """A private lattice node next to the chosen one.

    ``cost`` is the search metric's value (lower is better), ``suppressed`` the records
    its violating classes lose, ``risk`` :func:`anonkit.verify.release_risk` of its kept
    classes, ``histogram`` its classes per size bucket.
    """

    levels: Mapping[str, int]
    chosen: bool
    cost: float
    suppressed: int
    classes: int
    risk: Mapping[str, float | None]
    histogram: Mapping[str, int]


def _neighbours(lattice: Lattice, node: int, radius: int) -> list[int]:
    seen = {node}
    frontier = [node]
    for _ in range(radius):
        nxt = []
        for n in frontier:
            for m in (*lattice.successors(n), *lattice.predecessors(n)):
                if m not in seen:
                    seen.add(m)
                    nxt.append(m)
        frontier = nxt
    return sorted(seen)


def alternatives(estimator: Estimator, *, radius: int = 2, limit: int = 30) -> list[Alternative]:
    """The private nodes within ``radius`` steps of the chosen node, cheapest first.

    Empty for local recoding (Mondrian, greedy merging, microaggregation: no lattice).
    Each is judged by :meth:`FullDomain.evaluate_levels`.
    """
    if not isinstance(estimator, FullDomain) or not hasattr(estimator, "transformation_"):
        return []

    names = list(estimator.quasi_identifiers_)
    heights = [estimator.hierarchies_[c].height for c in names]
    lattice = Lattice(heights)
    chosen = lattice.index([estimator.transformation_[c] for c in names])
    out = []
    for node in _neighbours(lattice, chosen, radius):
        levels = dict(zip(names, (int(v) for v in lattice.node(node)), strict=True))
        judged = estimator.evaluate_levels(levels)
        if not judged.private:
            continue
        out.append(
            Alternative(
                levels=dict(judged.levels),
                chosen=node == chosen,
                cost=judged.cost,
                suppressed=judged.suppressed,
                classes=int(judged.class_sizes.size),
                risk=release_risk(judged.class_sizes),
                histogram=size_histogram(judged.class_sizes),
            )
        )
    out.sort(key=lambda a: (not a.chosen, a.cost, sum(a.levels.values())))
    return out[:limit]
