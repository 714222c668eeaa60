"""The Python entry point: :func:`anonymize` and the :class:`Anonymizer` behind it.

Both map today's flat keywords onto the estimators of :mod:`anonkit.estimators` (one per
algorithm family: :class:`~anonkit.estimators.FullDomain`,
:class:`~anonkit.estimators.Mondrian`, :class:`~anonkit.estimators.GreedyMerge`,
:class:`~anonkit.estimators.Microaggregation`), which do the work.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Concatenate, ParamSpec

from anonkit import estimators
from anonkit._validation import (
    Boolean,
    Callback,
    Constraint,
    Interval,
    Options,
    OrNone,
    Separator,
    init_parameters,
    validate,
)
from anonkit.algorithms.lattice import LATTICE_ALGORITHMS
from anonkit.core.resolve import HierarchySpec
from anonkit.core.schema import Columns
from anonkit.engines.base import ENGINE_CHOICES
from anonkit.estimators import (
    Estimator,
    FullDomain,
    GreedyMerge,
    Microaggregation,
    Mondrian,
    Privacy,
)
from anonkit.estimators.full_domain import SUPPRESSED_MODES
from anonkit.estimators.given import (
    FLAT_KEYWORDS,
    check_metric,
    refuse_ignored,
    refuse_unused,
    with_keywords,
    with_output,
)
from anonkit.exceptions import ParameterError, UnknownNameError
from anonkit.io.frames import to_polars
from anonkit.io.tables import read_table
from anonkit.io.write import check_output, write_table
from anonkit.metrics.generalization import METRICS
from anonkit.models import KAnonymity, PrivacyModel
from anonkit.progress import Progress
from anonkit.result import AnonymizationResult

__all__ = [
    "ALGORITHMS",
    "FAMILY_KEYWORDS",
    "LOCAL_ALGORITHMS",
    "Anonymizer",
    "anonymize",
    "takes_keyword",
]

#: Constraints of the :class:`Anonymizer` parameters that need no data to check.
_CONSTRAINTS: dict[str, Constraint] = {
    "leak_check": Boolean(),
    "suppressed": Options(SUPPRESSED_MODES),
    "suppression_limit": Interval(float, 0, 1, noun="a share"),
    "memory_share": Interval(float, 0, 1, closed="right", noun="a share"),
    "output_separator": OrNone(Separator()),
    "progress": OrNone(Callback()),
}
P = ParamSpec("P")
#: Local-recoding algorithms (besides the full-domain ones of ``LATTICE_ALGORITHMS``).
LOCAL_ALGORITHMS = ("mondrian", "greedy_merge", "microaggregation")
#: Algorithms that are one estimator each, built with ``options`` (its own parameters);
#: the name of its class in :mod:`anonkit.estimators` (loaded on use).
ESTIMATOR_ALGORITHMS: dict[str, str] = {
    "hilbert": "Hilbert",
    "banga": "BangA",
    "k_optimize": "KOptimize",
    "safepub": "SafePub",
    "k_epsilon": "KEpsilon",
}
#: Every algorithm name :func:`anonymize` accepts.
ALGORITHMS = (*LATTICE_ALGORITHMS, *LOCAL_ALGORITHMS, *ESTIMATOR_ALGORITHMS)


#: Keywords of one local algorithm each (and keys of the TOML ``[search]`` section), with
#: the algorithm that reads it: given another value than their default with another
#: algorithm, they would be ignored without a word.
FAMILY_KEYWORDS: dict[str, str] = {
    "mode": "mondrian",
    "split": "mondrian",
    "numeric_release": "mondrian",
    "cost": "greedy_merge",
    "method": "microaggregation",
    "aggregate": "microaggregation",
}


def takes_keyword(algorithm: str, keyword: str) -> bool:
    """Whether the algorithm called ``algorithm`` reads the :func:`anonymize` keyword
    ``keyword`` of :data:`~anonkit.estimators.given.FLAT_KEYWORDS` (``metric``, say)."""
    return keyword in init_parameters(_estimator_class(algorithm))


def _estimator_class(algorithm: str) -> type[Estimator]:
    """The estimator class an algorithm name maps to."""
    if algorithm in ESTIMATOR_ALGORITHMS:
        found: type[Estimator] = getattr(estimators, ESTIMATOR_ALGORITHMS[algorithm])
        return found
    local: dict[str, type[Estimator]] = {
        "mondrian": Mondrian,
        "greedy_merge": GreedyMerge,
        "microaggregation": Microaggregation,
    }
    return local.get(algorithm, FullDomain)


class _Privacy(Privacy):
    """The flat keywords' privacy: ``k`` becomes :class:`KAnonymity` when the fit
    checks the models (so an empty table is reported before a bad ``k``)."""

    k: int | None = None
    owner = "anonymize"
    parameter = "privacy"

    def __init__(
        self, k: int | None, models: Any, suppression_limit: float, population: Any
    ) -> None:
        listed = isinstance(models, Iterable) and not isinstance(models, (str, PrivacyModel))
        super().__init__(tuple(models) if listed else models, suppression_limit, population)
        object.__setattr__(self, "k", k)

    @property
    def model_list(self) -> list[PrivacyModel]:
        models = super().model_list
        return models if self.k is None else [KAnonymity(self.k), *models]

    def _no_models(self) -> None:
        raise ParameterError(
            "k", self.owner, "given (or a list of privacy models in 'privacy')", None
        )


class Anonymizer:
    """Anonymization with the flat keywords of :func:`anonymize` (kept for existing code).

    Parameters are stored unchanged and validated when :meth:`fit` runs; see
    :func:`anonymize` for their meaning. :meth:`estimator` gives the estimator of
    :mod:`anonkit.estimators` they map to; new code can use that directly.
    """

    def __init__(
        self,
        *,
        quasi_identifiers: Sequence[str],
        hierarchies: Mapping[str, HierarchySpec] | None = None,
        k: int | None = None,
        privacy: PrivacyModel | Iterable[PrivacyModel] = (),
        suppression_limit: float = 0.0,
        algorithm: str | Estimator = "auto",
        metric: str = "loss",
        metric_options: Mapping[str, Any] | None = None,
        identifying: Sequence[str] = (),
        sensitive: Sequence[str] = (),
        insensitive: Sequence[str] = (),
        others: str | None = None,
        leak_check: bool = True,
        suppressed: str = "mask",
        engine: str = "polars",
        output: str | Path | None = None,
        output_separator: str | None = None,
        memory_share: float = 0.25,
        time_limit: float | None = None,
        max_nodes: int | None = None,
        seed: int | None = None,
        options: Mapping[str, Any] | None = None,
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
        self.metric_options = metric_options
        self.identifying = identifying
        self.sensitive = sensitive
        self.insensitive = insensitive
        self.others = others
        self.leak_check = leak_check
        self.suppressed = suppressed
        self.engine = engine
        self.output = output
        self.output_separator = output_separator
        self.memory_share = memory_share
        self.time_limit = time_limit
        self.max_nodes = max_nodes
        self.seed = seed
        self.options = options
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

    def _validate(self) -> None:
        validate(vars(self), _CONSTRAINTS, "anonymize")
        Columns.given("anonymize", **self.roles())
        for name, names in (("engine", ENGINE_CHOICES), ("metric", METRICS)):
            if not isinstance(value := getattr(self, name), str):  # names are looked up
                raise ParameterError(name, "anonymize", str(Options(tuple(names))), value)
        if isinstance(self.algorithm, Estimator):
            defaults = inspect.signature(Anonymizer.__init__).parameters
            refuse_ignored(self.algorithm, vars(self), {n: p.default for n, p in defaults.items()})
            return
        if not isinstance(self.algorithm, str):
            raise _not_an_algorithm(self.algorithm)
        if self.algorithm not in ALGORITHMS:
            raise UnknownNameError("algorithm", self.algorithm, list(ALGORITHMS))
        if self.local_suppression is not False and self.algorithm not in LATTICE_ALGORITHMS:
            raise ParameterError(
                "local_suppression",
                "anonymize",
                "used with a full-domain algorithm (it blanks cells after a global recoding)",
                self.algorithm,
            )
        check_metric(self.algorithm, self.metric)
        defaults = inspect.signature(type(self).__init__).parameters
        for name, family in FAMILY_KEYWORDS.items():
            if getattr(self, name) != defaults[name].default and self.algorithm != family:
                raise ParameterError(
                    name,
                    "anonymize",
                    f"left out with algorithm={self.algorithm!r} (it is a parameter of "
                    f"algorithm={family!r}, which would use it)",
                    getattr(self, name),
                )
        if not isinstance(self.algorithm, Estimator) and self.algorithm not in LATTICE_ALGORITHMS:
            cls = _estimator_class(self.algorithm)
            refuse_unused(self.algorithm, self._flat(), self._flat(cls), self.options or {})
        if self.numeric and not _estimator_class(self.algorithm).reads_numbers:
            readers = [a for a in ALGORITHMS if _estimator_class(a).reads_numbers]
            raise ParameterError(
                "numeric",
                "anonymize",
                f"left out with algorithm={self.algorithm!r} (it generalizes every "
                "quasi-identifier by its hierarchy; the algorithms that read numbers are "
                f"{', '.join(repr(a) for a in readers)})",
                [self.numeric] if isinstance(self.numeric, str) else list(self.numeric),
            )
        # an estimator without an engine works on the table in memory; of the local
        # recodings, Mondrian also runs on Spark and streamed from disk
        has_engine = "engine" in init_parameters(_estimator_class(self.algorithm))
        if not has_engine and self.engine not in ("polars", "auto"):
            raise ParameterError(
                "engine",
                "anonymize",
                f"'polars' or 'auto' with {self.algorithm} (local recoding works record "
                "by record, on a table in memory; of the local algorithms only "
                "'mondrian' also runs on 'spark' and 'streaming')",
                self.engine,
            )

    def _flat(self, cls: type[Estimator] | None = None) -> dict[str, Any]:
        """The keywords of :data:`FLAT_KEYWORDS` given another value than their default
        (with ``cls``, those it takes as parameters)."""
        defaults = inspect.signature(Anonymizer.__init__).parameters
        names = [n for n in FLAT_KEYWORDS if cls is None or n in init_parameters(cls)]
        return {n: getattr(self, n) for n in names if getattr(self, n) != defaults[n].default}

    def estimator(self) -> Estimator:
        """The estimator these keywords map to (not fitted).

        Raises
        ------
        UnknownNameError
            If ``algorithm`` or ``metric`` is unknown.
        ParameterError
            If a parameter is invalid or does not fit the algorithm.
        """
        self._validate()
        privacy = _Privacy(self.k, self.privacy, self.suppression_limit, self.population)
        if isinstance(self.algorithm, Estimator):
            given = (
                self.k is not None
                or bool(privacy.models)
                or self.population is not None
                or self.suppression_limit != 0.0
            )
            held = with_keywords(self.algorithm, privacy, given, self.progress)
            return with_output(held, self.output, self.output_separator)
        shared: dict[str, Any] = {
            "privacy": privacy,
            "leak_check": self.leak_check,
            "progress": self.progress,
        }
        if self.algorithm in ESTIMATOR_ALGORITHMS:
            cls = getattr(estimators, ESTIMATOR_ALGORITHMS[self.algorithm])
            return _from_options(cls, {**self._flat(cls), **(self.options or {})}, shared)
        if self.options:
            raise ParameterError(
                "options",
                "anonymize",
                f"empty with algorithm={self.algorithm!r} (its parameters are keywords of "
                f"anonymize); options are for {', '.join(ESTIMATOR_ALGORITHMS)}",
                dict(self.options),
            )
        if self.algorithm == "mondrian":
            engine = self.engine if self.engine in ("spark", "streaming", "auto") else "polars"
            return Mondrian(
                self.mode,
                self.split,
                self.numeric_release,
                engine=engine,
                memory_share=self.memory_share,
                output=self.output,
                output_separator=self.output_separator,
                **shared,
            )
        if self.algorithm == "greedy_merge":
            return GreedyMerge(self.cost, **self._flat(GreedyMerge), **shared)
        if self.algorithm == "microaggregation":
            return Microaggregation(self.method, self.aggregate, **shared)
        return FullDomain(
            self.algorithm,
            self.metric,
            metric_options=self.metric_options,
            suppressed=self.suppressed,
            local_suppression=self.local_suppression,
            engine=self.engine,
            output=self.output,
            output_separator=self.output_separator,
            memory_share=self.memory_share,
            time_limit=self.time_limit,
            max_nodes=self.max_nodes,
            seed=self.seed,
            **shared,
        )

    def roles(self) -> dict[str, Any]:
        """The keywords of :meth:`Estimator.fit <anonkit.estimators.base.Estimator.fit>`."""
        return {
            "quasi_identifiers": self.quasi_identifiers,
            "hierarchies": self.hierarchies,
            "identifying": self.identifying,
            "sensitive": self.sensitive,
            "insensitive": self.insensitive,
            "others": self.others,
            "numeric": self.numeric,
        }

    def fit(self, frame: Any) -> AnonymizationResult:
        """Anonymize ``frame`` (pandas or polars) and return the result.

        The release is re-checked by :func:`anonkit.verify.verify_release` before it is
        returned; a failure raises :class:`~anonkit.exceptions.ReleaseVerificationError`.
        """
        estimator = self.estimator()
        writes = getattr(estimator, "output", None) is not None  # it writes its own release
        if self.output is not None and not writes:  # (one that writes checks in its fit)
            read = [frame, *(self.hierarchies or {}).values(), self.population]
            check_output(self.output, read)
        if isinstance(frame, (str, Path)) and not isinstance(estimator, (FullDomain, Mondrian)):
            frame = read_table(frame)  # FullDomain may stream it instead, Mondrian use Spark
        try:
            result = estimator.fit(frame, **self.roles()).result_
        except ParameterError as err:  # of the estimator's fit: given to anonymize
            if err.owner != f"{type(estimator).__name__}.fit":
                raise
            raise ParameterError(
                err.parameter, "anonymize", err.expected, err.got, err.hint
            ) from None
        if self.output is not None and not writes:
            release = to_polars(result.release)[0]
            write_table(release, self.output, separator=self.output_separator)
        return result


def _not_an_algorithm(value: object) -> ParameterError:
    """The error of an ``algorithm`` that is neither a name nor an estimator: an estimator
    class is told to be called."""
    hint = ""
    if isinstance(value, type) and issubclass(value, Estimator):
        hint = f" Pass an instance: algorithm={value.__name__}() (with its parameters)."
    expected = f"{Options(ALGORITHMS)}, or an estimator such as Mondrian()"
    return ParameterError("algorithm", "anonymize", expected, value, hint)


def _from_options(
    cls: type[Estimator], options: Mapping[str, Any] | None, shared: dict[str, Any]
) -> Estimator:
    """``cls`` built with ``options`` (its own parameters) and the shared keywords."""
    accepted = init_parameters(cls)
    unknown = [name for name in (options or {}) if name not in accepted or name in shared]
    if unknown:
        own = [p for p in accepted if p not in shared]
        allowed = (
            f"parameters of {cls.__name__}: {', '.join(own)}"
            if own
            else f"empty: {cls.__name__} takes no parameters beyond anonymize()'s keywords"
        )
        raise ParameterError("options", "anonymize", allowed, unknown)
    return cls(**dict(options or {}), **shared)


def _one_call(
    cls: Callable[P, Anonymizer],
) -> Callable[Concatenate[Any, P], AnonymizationResult]:
    """``cls(**keywords).fit(frame)`` as a function whose keywords are ``cls``'s own (typed
    and introspected from its ``__init__``: the keywords are declared once)."""

    def anonymize(frame: Any, /, *args: P.args, **keywords: P.kwargs) -> AnonymizationResult:
        return cls(*args, **keywords).fit(frame)

    init = inspect.signature(cls.__init__)
    params = [p for name, p in init.parameters.items() if name != "self"]
    first = inspect.Parameter("frame", inspect.Parameter.POSITIONAL_ONLY, annotation="Any")
    anonymize.__signature__ = init.replace(  # type: ignore[attr-defined]
        parameters=[first, *params], return_annotation="AnonymizationResult"
    )
    return anonymize


anonymize = _one_call(Anonymizer)
anonymize.__doc__ = """Anonymize a table in one call: ``Anonymizer(**keywords).fit(frame)``.

    The keywords are :class:`Anonymizer`'s (declared once, there); they map onto the
    estimators of :mod:`anonkit.estimators`.

    Parameters
    ----------
    frame
        A pandas or polars DataFrame; the release has the same type.
    quasi_identifiers
        Columns an attacker could link on; they are generalized.
    hierarchies
        Per quasi-identifier: a :class:`Hierarchy`, the path of a hierarchy CSV, a
        builder table such as ``{"type": "intervals", "widths": [5, 10]}``, or the
        hierarchy table in memory (a polars or pandas frame, or a list of rows, laid out
        as the CSV: one row per value, one column per level, root last). A
        quasi-identifier without one can only be kept or suppressed (``*``).
    k
        Shortcut for ``privacy=[KAnonymity(k)]``.
    privacy
        Privacy models the release must satisfy (all of them), or a single one.
    suppression_limit
        Largest share of records that may be suppressed, in [0, 1] (default 0).
    algorithm
        Full-domain (global recoding): ``"auto"`` (the default: Flash, optimal, when it
        can finish within a minute, else Lightning), ``"flash"``, ``"exhaustive"``,
        ``"samarati"``, ``"datafly"``, ``"incognito"`` or ``"allmin"``; on lattices above
        5,000,000 nodes ``"flash"`` runs ``"sparse_flash"`` (exact, node state kept
        sparsely; refused up front when memory would run out); for lattices no exact
        search can visit (many quasi-identifiers), the anytime heuristics
        ``"lightning"``, ``"genetic"`` and ``"topdown"`` (top-down specialization), or
        ``"auto"`` (the exact search when it can finish within a minute, Lightning
        otherwise). Local recoding:
        ``"mondrian"`` (multidimensional partitioning), ``"greedy_merge"`` (class merging
        with cost matrices) or ``"microaggregation"`` (numeric quasi-identifiers). Or an
        estimator of :mod:`anonkit.estimators` (``Mondrian(mode="relaxed")``): it is fitted
        with the column keywords; its own parameters stand for the algorithm keywords
        (``metric``, ``mode``, ``cost``, ...: giving one of those too is an error), and
        the privacy keywords (``k``, ``privacy``, ``suppression_limit``, ``population``),
        ``progress`` and ``output`` fill what it lacks, in a copy that is fitted instead
        (the result is returned either way).
    metric
        What to minimize: ``"loss"`` (default), ``"height"``, ``"relative_distance"``,
        ``"precision"``, ``"discernibility"``, ``"average_class_size"`` or
        ``"nonuniform_entropy"``.
    metric_options
        Full-domain algorithms, ``metric="loss"``: ``{"aggregate": "arithmetic" |
        "geometric", "weights": {column: weight}}``, how the per-attribute losses combine
        (``"geometric"`` reproduces ARX's aggregate) and how much each quasi-identifier
        counts; the optimized value is in ``result.details["objective"]``
        (:class:`anonkit.metrics.node_metrics.Aggregation`).
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
        Where the records are counted and released (full-domain algorithms and
        Mondrian): ``"polars"`` (in memory, default), ``"streaming"`` (``frame`` is a file
        path or a polars ``LazyFrame``, streamed from disk: tables larger than memory;
        the release is a ``LazyFrame``), ``"spark"`` (``frame`` is a Spark DataFrame; so
        is the release; Mondrian runs per block of the table, see
        :mod:`anonkit.algorithms.mondrian.spark`), ``"numpy"`` (a slow second path), or
        ``"auto"`` (from the input's type and size; ``result.details["engine"]`` says
        which ran and why).
    output
        Write the release to this file (``.parquet``, ``.csv``, ``.tsv``) atomically, once
        verified (full-domain algorithms and Mondrian; on Spark a folder of part files).
    output_separator
        The field separator of a CSV or TSV ``output``: one ASCII character (default
        ``,`` for ``.csv``, tab for ``.tsv``), whichever engine writes it.
    memory_share
        With ``engine="auto"``, stream a file whose table would take more than this share
        of the machine's memory (default 0.25).
    options
        With the algorithms that are one estimator each (``"hilbert"``, ``"banga"``,
        ``"k_optimize"``, ``"safepub"``, ``"k_epsilon"``): that estimator's own parameters
        (``{"epsilon": 1.0}``); see its class in :mod:`anonkit.estimators`.
    time_limit, max_nodes, seed
        The anytime heuristics (``"lightning"``, ``"genetic"``, ``"topdown"``,
        ``"auto"``): stop after
        this many seconds or evaluated nodes with the best release found so far (Ctrl-C
        does too), and the seed that makes a run reproducible.
        ``result.details["search"]`` records whether the release is proven optimal, why
        the search stopped and how the best loss evolved.
    population
        The population the data is a sample of (pandas or polars, holding the
        quasi-identifiers), for k-map and δ-presence.
    numeric
        Quasi-identifiers Mondrian splits as numbers (released as ranges or means),
        microaggregation aggregates, and Hilbert, BangA and k-Optimize order by value.
        The other algorithms generalize every quasi-identifier by its hierarchy and
        refuse it.
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
