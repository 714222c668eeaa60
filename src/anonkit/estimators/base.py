"""What every estimator shares: the privacy requirement, the parameters, the fit pipeline.

An estimator (scikit-learn's sense, ``sklearn/base.py``) stores its parameters unchanged
in ``__init__``, declares their constraints as data (``_parameter_constraints``, checked by
:func:`anonkit._validation.validate` when :meth:`Estimator.fit` runs), and after ``fit``
holds what it learned in attributes ending in ``_``: ``result_`` (the
:class:`~anonkit.result.AnonymizationResult`) and what ``transform`` needs to write new
records the way the release writes its records: of the training table, its
quasi-identifiers and the columns the models read. A fitted estimator pickles and
deep-copies (its engine forgets the fit's caches), so the saved file holds those
training values.

:meth:`Estimator.fit` runs the steps every family shares, in this order: the frame is read
(pandas or polars), the privacy models are gathered, every column gets a role
(:class:`~anonkit.core.schema.Schema`), models no class can satisfy are refused, columns
released as is are checked for leaks (:func:`anonkit.safety.leaks.check_leaks`), the
population table is checked, each quasi-identifier's hierarchy is resolved; then the family
runs (``_run``), and the release is re-checked by :func:`anonkit.verify.verify_release`
before it is returned.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Self

import polars as pl

from anonkit._beside import errors_first
from anonkit._frozen import FrozenDict
from anonkit._interrupts import signalled
from anonkit._validation import (
    Boolean,
    Callback,
    Constraint,
    Options,
    OrNone,
    Parameters,
    init_parameters,
    validate,
)
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import HierarchySpec
from anonkit.core.schema import AttributeRole, Columns, Schema
from anonkit.core.values import check_single_values
from anonkit.engines.base import ENGINE_CHOICES, choose_engine, get_engine
from anonkit.engines.counting import COUNT
from anonkit.estimators.bare import note_bare_columns, refuse_star_labels, starred_everywhere
from anonkit.estimators.leak_check import PendingLeaks, settle_leaks, warn_leaks
from anonkit.estimators.privacy import Privacy, _IsPrivacy, check_population, population_table
from anonkit.estimators.recoding import like_training
from anonkit.estimators.sklearn_compat import SKLEARN_STATE, refuse_target, sklearn_tags
from anonkit.exceptions import (
    EmptyDataError,
    NotFittedError,
    ParameterError,
    PrivacyUnattainableError,
    UndeclaredColumnsError,
    UnknownColumnError,
)
from anonkit.io.frames import FrameKind, PandasTypes, PolarsTypes, from_polars, to_polars
from anonkit.io.tables import read_table
from anonkit.io.write import check_outputs, check_writable, write_table
from anonkit.metrics.levels import model_attributes
from anonkit.metrics.tables import resolved_hierarchies
from anonkit.models import PrivacyModel
from anonkit.models.base import POPULATION_COUNT
from anonkit.progress import Progress, start_stage
from anonkit.result import AnonymizationResult
from anonkit.safety.leaks import check_leaks
from anonkit.verify import Verification, verify_release

__all__ = [
    "Columns",
    "Estimator",
    "Fitting",
    "Placed",
    "Privacy",
    "settle_leaks",
    "stage_timing",
    "verified_fields",
    "with_engine",
]

#: Working columns of :meth:`Estimator._seen` (reserved names, core.schema.RESERVED_PREFIX).
_ROW, _NEW = "__anonkit_row__", "__anonkit_new__"


@dataclass(frozen=True, eq=False)
class Fitting:
    """The prepared inputs of one fit, handed to the family's ``_run``."""

    data: pl.DataFrame
    kind: FrameKind
    quasi_identifiers: list[str]
    hierarchies: list[Hierarchy]
    specs: Mapping[str, HierarchySpec]
    models: list[PrivacyModel]
    wanted: list[str]
    schema: Schema
    population: pl.DataFrame | None
    numeric: list[str]
    suppression_limit: float
    safety: dict[str, Any]
    t0: float
    #: The leak check, while it runs beside the fit (see :func:`settle_leaks`).
    leaks: PendingLeaks | None = None
    #: Releases whose tally their engine counted while writing them, each with that
    #: tally (:meth:`Engine.apply_tallied <anonkit.engines.base.Engine.apply_tallied>`):
    #: the verification of one of these frames reads its tally.
    tallies: list[tuple[pl.DataFrame, pl.DataFrame]] = field(default_factory=list)

    @property
    def by_name(self) -> dict[str, Hierarchy]:
        """Each quasi-identifier's hierarchy."""
        return dict(zip(self.quasi_identifiers, self.hierarchies, strict=True))

    @property
    def dropped(self) -> list[str]:
        """Columns the release leaves out (identifying)."""
        return list(self.schema.columns(AttributeRole.IDENTIFYING))


def _kept_after_fit(fitting: Fitting) -> Fitting:
    """What a fitted estimator keeps of its fit's inputs: the training records'
    quasi-identifiers (``transform`` matches new records to them and rebuilds hierarchies
    built from values) and the columns the models read (``evaluate_levels``), not the
    identifying or other columns; not the leak check, which has ended."""
    kept = list(dict.fromkeys([*fitting.quasi_identifiers, *model_attributes(fitting.models)]))
    data = pl.DataFrame([fitting.data.get_column(c) for c in kept if c in fitting.data.columns])
    kind = fitting.kind
    if isinstance(kind, PandasTypes | PolarsTypes):  # a category type holds the column's values
        kind = kind.only(kept)
    return dataclasses.replace(fitting, data=data, kind=kind, leaks=None, tallies=[])


def verified_fields(verification: Verification, safety: Mapping[str, Any]) -> dict[str, Any]:
    """The result's fields the verification fills (``verified``, ``risk``, ``checks``:
    the fit's safety checks and each model's verdict)."""
    return {
        "verified": verification.verified,
        "risk": FrozenDict(dict(verification.risk)),
        "checks": FrozenDict({**safety, "models": [dict(m) for m in verification.models]}),
    }


def stage_timing(t0: float, t1: float, t2: float, t3: float) -> FrozenDict[str, float]:
    """The result's ``timing`` of a fit whose stages ended at ``t1`` (encoding), ``t2``
    (the search or partitioning) and ``t3`` (the release), from ``t0``."""
    return FrozenDict({"encode": t1 - t0, "search": t2 - t1, "release": t3 - t2, "total": t3 - t0})


def with_engine(result: AnonymizationResult, name: str, reason: str) -> AnonymizationResult:
    """``result`` recording which engine ran and why (``details["engine"]``)."""
    details = {**result.details, "engine": {"name": name, "reason": reason}}
    return dataclasses.replace(result, details=FrozenDict(details))


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


def _polars(frame: Any, owner: str) -> tuple[pl.DataFrame, FrameKind]:
    """:func:`~anonkit.io.frames.to_polars`, a frame of another type reported as the
    ``frame`` parameter of ``owner`` (the method it was given to)."""
    try:
        return to_polars(frame)
    except ParameterError as err:
        if err.parameter != "frame":
            raise
        raise ParameterError("frame", owner, err.expected, err.got, err.hint) from None


#: The estimators whose :attr:`Estimator.reads_numbers` is true.
NUMBER_ESTIMATORS = ("Mondrian", "Microaggregation", "Hilbert", "BangA", "KOptimize")


class Estimator(Parameters):
    """The base of the estimators: parameters, the shared fit pipeline, ``transform``.

    Subclasses list their parameters in ``__init__`` (stored unchanged), declare their
    constraints in ``_parameter_constraints``, name themselves in ``algorithm`` (the
    result's ``algorithm``) and implement ``_run`` (the family's work on a
    :class:`Fitting`) and ``_transform`` (new records, polars in and out).
    """

    privacy: Privacy | None
    leak_check: bool
    progress: Progress | None

    #: Constraints of the parameters every estimator takes.
    _shared_constraints: ClassVar[dict[str, Constraint]] = {
        "privacy": _IsPrivacy(),
        "leak_check": Boolean(),
        "progress": OrNone(Callback()),
    }
    #: Constraints of the family's own parameters.
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {}
    #: Whether the family reads the columns named by ``numeric=`` as numbers (splits,
    #: orders or aggregates them by value). The others generalize every quasi-identifier
    #: by its hierarchy and refuse ``numeric=``, which they would otherwise ignore.
    reads_numbers: ClassVar[bool] = False

    @property
    def algorithm(self) -> str:
        """The name recorded as the result's ``algorithm``."""
        raise NotImplementedError

    def __sklearn_is_fitted__(self) -> bool:
        """Whether a fit ran (read by ``sklearn.utils.validation.check_is_fitted``)."""
        return hasattr(self, "result_")

    def __sklearn_tags__(self) -> Any:
        """scikit-learn's tags (:func:`~anonkit.estimators.sklearn_compat.sklearn_tags`)."""
        return sklearn_tags()

    def _validate(self) -> None:
        params = self.get_params(deep=False)
        owner = type(self).__name__
        validate(params, self._shared_constraints, owner)
        validate(params, self._parameter_constraints, owner)

    # ------------------------------------------------------------------------- fit
    def fit(
        self,
        frame: Any,
        y: None = None,
        *,
        quasi_identifiers: str | Sequence[str],
        hierarchies: Mapping[str, HierarchySpec] | None = None,
        identifying: Sequence[str] = (),
        sensitive: Sequence[str] = (),
        insensitive: Sequence[str] = (),
        others: str | None = None,
        numeric: Sequence[str] = (),
    ) -> Self:
        """Anonymize ``frame`` (pandas or polars; estimators with an ``engine`` also read
        what their engine reads); the result is in ``result_``.

        The keywords say what the columns are (see :func:`anonkit.anonymize`). The release
        is re-checked by :func:`anonkit.verify.verify_release`; a failure raises
        :class:`~anonkit.exceptions.ReleaseVerificationError`. ``y`` must be ``None``
        (scikit-learn's target): as the last step of a ``Pipeline`` the keywords are the
        step's fit parameters, ``Pipeline.fit(X, anon__quasi_identifiers=[...])``, with
        scikit-learn's metadata routing off (its default).

        Returns
        -------
        Self
            The fitted estimator.
        """
        self._forget_fit()
        self._validate()
        owner, roles = f"{type(self).__name__}.fit", (identifying, sensitive, insensitive, others)
        refuse_target(y, owner)
        columns = Columns.given(owner, quasi_identifiers, hierarchies, *roles, numeric)
        if columns.numeric and not self.reads_numbers:
            name, readers = type(self).__name__, ", ".join(NUMBER_ESTIMATORS)
            why = f"{name} generalizes every column by its hierarchy; {readers} read numbers"
            raise ParameterError("numeric", name, f"left out ({why})", columns.numeric)
        output = getattr(self, "output", None)
        if output is not None:
            read = [frame, *columns.specs.values(), getattr(self.privacy, "population", None)]
            # only Spark writes a folder (of part files), which replaces an existing one
            spark = getattr(self, "engine", None) == "spark" or type(frame).__module__.startswith(
                "pyspark"
            )
            folders = ("output",) if spark else ()
            check_outputs({"output": output}, read, folders=folders, owner=owner)
        self._others = others  # read by the fit too (SafePub names what kept a column)
        try:
            self._fit(frame, columns)
        except SystemError as err:
            # Ctrl-C while a compiled kernel ran: the KeyboardInterrupt, not numba's wrapper
            found = signalled(err)
            if found is None:
                raise
            raise found from None
        warn_leaks(self.result_.checks)
        # transform recodes as the fit did, whatever set_params changes until the next fit
        self._fitted_with = self.get_params(deep=False)
        return self

    def _forget_fit(self) -> None:
        """Drop what an earlier fit left (``result_``, caches, the records kept for
        ``transform``): a refit starts from the parameters alone (and what scikit-learn
        set, :data:`SKLEARN_STATE`), whichever way it runs; a failed one leaves the
        estimator unfitted."""
        keep = {*init_parameters(type(self)), *SKLEARN_STATE}
        for name in [n for n in vars(self) if n not in keep]:
            delattr(self, name)

    def _fit(self, frame: Any, columns: Columns) -> None:
        """The fit on a table held in memory (estimators that can fit through an engine
        override it to choose where, see :class:`Placed`)."""
        t0 = time.perf_counter()
        data, kind = _polars(frame, f"{type(self).__name__}.fit")
        if data.height == 0:
            raise EmptyDataError()
        fitting = self._prepare(data, kind, t0, columns)
        with errors_first(fitting.leaks):
            result, masked = self._run(fitting)
        settle_leaks(fitting.safety, fitting.leaks)
        verification = self._verify(masked, fitting, suppressed=result.suppressed)
        timing = {**result.timing, "total": time.perf_counter() - t0}
        self.result_ = dataclasses.replace(
            result, **verified_fields(verification, fitting.safety), timing=FrozenDict(timing)
        )
        self.quasi_identifiers_ = tuple(fitting.quasi_identifiers)
        self.hierarchies_ = FrozenDict(fitting.by_name)
        self._fitting = _kept_after_fit(fitting)
        self._masked = masked
        note_bare_columns(self, self._bare_columns(columns, masked))

    def _bare_columns(self, columns: Columns, released: pl.DataFrame | None) -> list[str]:
        """Quasi-identifiers without a hierarchy that the release suppresses everywhere."""
        return [] if released is None else starred_everywhere(released, columns)

    def _prepare(self, data: pl.DataFrame, kind: FrameKind, t0: float, columns: Columns) -> Fitting:
        """Roles, attainability, leak check, population and hierarchies."""
        assert self.privacy is not None
        qi, specs = columns.quasi_identifiers, columns.specs
        models = self.privacy.checked(data.height)
        wanted = model_attributes(models)
        schema = columns.schema(data.columns, wanted)
        check_single_values(data.schema, [*qi, *schema.columns(AttributeRole.SENSITIVE)])
        check_writable(data.schema, self._released_as_is(schema), getattr(self, "output", None))
        _check_attainable(data, models)
        safety, leaks = self._leak_check(data, qi, schema, self._tallied(models))
        with errors_first(leaks):
            # hierarchies of other columns are not needed (a full set, as load_adult()
            # gives, may be passed); hierarchies of columns the data lacks are an error
            unknown = [c for c in specs if c not in data.columns]
            if unknown:
                raise UnknownColumnError(unknown, data.columns)
            population = self._population(models, qi)
            if population is not None:
                check_population(data, population, qi)
            start_stage(self.progress, "Encoding")
            built = resolved_hierarchies(specs, qi, (), data, population)
            hierarchies = [built[c] for c in qi]
            refuse_star_labels(hierarchies, data)
        return Fitting(
            data=data,
            kind=kind,
            quasi_identifiers=qi,
            hierarchies=hierarchies,
            specs=specs,
            models=models,
            wanted=wanted,
            schema=schema,
            population=population,
            numeric=columns.numeric,
            suppression_limit=float(self.privacy.suppression_limit),
            safety=safety,
            t0=t0,
            leaks=leaks,
        )

    def _population(self, models: Sequence[PrivacyModel], qi: Sequence[str]) -> pl.DataFrame | None:
        """The population table, checked, when a model needs one."""
        if not any(POPULATION_COUNT in m.requires for m in models):
            return None
        assert self.privacy is not None
        if self.privacy.population is None:
            names = ", ".join(m.describe() for m in models if POPULATION_COUNT in m.requires)
            owner = self.privacy.owner
            raise ParameterError("population", owner, f"a population table for {names}", None)
        pop = population_table(self.privacy.population, self.privacy.owner, qi)
        return pop.select(list(qi))

    def _leak_check(
        self, data: pl.DataFrame, qi: Sequence[str], schema: Schema, tallied: Sequence[str] = ()
    ) -> tuple[dict[str, Any], PendingLeaks | None]:
        """Start the check of the columns released as is (that they do not give the
        quasi-identifiers away) beside the fit: the safety record, its warnings still to
        come, and the running check (``None`` when ``leak_check`` is off), which leaves the
        dependencies and uniqueness of the columns ``tallied`` to the fit's count."""
        out: dict[str, Any] = {
            "roles": {r.value: schema.columns(r) for r in AttributeRole},
            "dropped_undeclared": list(schema.dropped),
            "leak_check": self.leak_check,
            "leak_warnings": [],
        }
        if self.leak_check:
            start_stage(self.progress, "Checking for leaks")
            released = self._released_as_is(schema)
            check_single_values(data.schema, released, released=True)
            if released:
                return out, PendingLeaks(data, qi, released, tallied)
            check_leaks(data, quasi_identifiers=qi, released=released)  # checks the names
        return out, None

    def _tallied(self, models: Sequence[PrivacyModel]) -> list[str]:
        """Columns whose leak check the family's ``_run`` finishes from its count
        (:meth:`PendingLeaks.tally <anonkit.estimators.leak_check.PendingLeaks.tally>`)."""
        return []

    def _released_as_is(self, schema: Schema) -> list[str]:
        """The columns the release publishes unchanged (what the leak check reads)."""
        return list(schema.released_as_is())

    def _verify(
        self,
        released: pl.DataFrame,
        fitting: Fitting,
        weight: str | None = None,
        suppressed: int | None = None,
    ) -> Verification:
        """The independent re-check of ``released`` (or of its tally, whose records each
        row stands for are in the column ``weight``: given, or counted when the release was
        written, see :attr:`Fitting.tallies`); ``suppressed``: the records the algorithm
        suppressed (:func:`~anonkit.verify.verify_release`)."""
        start_stage(self.progress, "Verifying the release")
        if weight is None:
            tally = next((t for r, t in fitting.tallies if r is released), None)
            if tally is not None:
                released, weight = tally, COUNT
        return verify_release(
            released,
            quasi_identifiers=fitting.quasi_identifiers,
            models=fitting.models,
            n_records=fitting.data.height,
            suppression_limit=fitting.suppression_limit,
            sensitive_hierarchies={
                c: fitting.specs[c] for c in fitting.wanted if c in fitting.specs
            },
            population=fitting.population,
            hierarchies={c: h for c, h in fitting.by_name.items() if c not in fitting.numeric},
            numeric=fitting.numeric,
            weight=weight,
            suppressed=suppressed,
        )

    def _run(self, fitting: Fitting) -> tuple[AnonymizationResult, pl.DataFrame]:
        """The family's work: the result and the release with suppressed records masked
        (what the verification reads)."""
        raise NotImplementedError

    # ------------------------------------------------------------------- transform
    def transform(self, frame: Any) -> Any:
        """Write new records (pandas or polars) the way the fitted release writes its own.

        Quasi-identifiers are recoded as the family learned (see each estimator), the
        columns the release leaves out are left out, the others it keeps are kept;
        pandas comes back as pandas, polars as polars (a ``LazyFrame`` is read into
        memory: a ``DataFrame`` comes back). The training frame itself comes back as the
        release, except with Hilbert and microaggregation, which can put records of equal
        quasi-identifiers in different groups: each such record takes the labels of the
        first training record like it. A column
        the training table lacked has no role: it is an error, or left out when the fit
        dropped undeclared columns (``others="drop"``). The output is not a release: the
        new records were not counted when the recoding was chosen, so their classes need
        not satisfy the privacy models.

        Raises
        ------
        NotFittedError
            If :meth:`fit` has not run (an ``AttributeError`` too).
        UnknownColumnError
            If a quasi-identifier is missing from ``frame``.
        UndeclaredColumnsError
            If ``frame`` has a column the training table lacked (unless ``others="drop"``).
        """
        fitting = self._training("transform")
        data, kind = _polars(frame, f"{type(self).__name__}.transform")
        unseen = self._unseen_columns(data.columns)
        qi = fitting.quasi_identifiers
        missing = [c for c in qi if c not in data.columns]
        if missing:
            raise UnknownColumnError(missing, data.columns)
        data = data.with_columns(like_training(data[c], fitting.data[c].dtype) for c in qi)
        out = self._transform(data, fitting)
        gone = [*fitting.dropped, *fitting.schema.dropped, *unseen]
        return from_polars(out.drop([c for c in gone if c in out.columns]), kind)

    def _training(self, method: str) -> Fitting:
        """What the fit kept of the training table, for ``method``.

        Raises
        ------
        NotFittedError
            If the estimator is not fitted, or was fitted where the records stay.
        """
        fitting: Fitting | None = getattr(self, "_fitting", None)
        if fitting is None:
            result = getattr(self, "result_", None)
            engine = result.details.get("engine", {}).get("name") if result is not None else None
            raise NotFittedError(type(self).__name__, engine, method)
        return fitting

    def _transform(self, data: pl.DataFrame, fitting: Fitting) -> pl.DataFrame:
        raise NotImplementedError

    def _unseen_columns(self, names: Sequence[str]) -> list[str]:
        """The columns of a frame to transform that the training table lacked, to leave
        out of the output: they have no role, so they are an error unless the fit dropped
        the columns it was not told about (``others="drop"``)."""
        checks = self.result_.checks
        seen = {c for names_ in checks.get("roles", {}).values() for c in names_}
        seen.update(checks.get("dropped_undeclared", ()))
        unseen = [c for c in names if c not in seen]
        if unseen and getattr(self, "_others", None) != "drop":
            raise UndeclaredColumnsError(unseen, fitted=True)
        return unseen

    def fit_transform(self, frame: Any, y: None = None, **roles: Any) -> Any:
        """:meth:`fit` (``y`` too), then the release (the transform of the training frame)."""
        refuse_target(y, f"{type(self).__name__}.fit_transform")
        return self.fit(frame, **roles).result_.release

    def _seen(self, data: pl.DataFrame, fitting: Fitting) -> tuple[pl.Series, pl.Series]:
        """For each record of ``data``: the first training record with the same
        quasi-identifiers (``-1`` if none), and whether there was one."""
        qi = fitting.quasi_identifiers
        # numbers of another type than the training's (like_training keeps them) meet
        # the training's as floats
        wider = {c: pl.Float64 for c in qi if data[c].dtype != fitting.data[c].dtype}
        first = (
            fitting.data.select(qi)
            .cast(wider)  # type: ignore[arg-type]
            .with_row_index(_ROW)
            .unique(subset=qi, keep="first", maintain_order=True)
        )
        joined = (
            data.select(qi)
            .cast(wider)  # type: ignore[arg-type]
            .with_row_index(_NEW)
            .join(first, on=qi, how="left", nulls_equal=True)
            .sort(_NEW)
        )
        row = joined[_ROW]
        return row.fill_null(0).cast(pl.Int64), row.is_not_null()


class Placed(Estimator):
    """An estimator whose ``engine`` says where the records are: held in memory, or read
    through an engine (streamed from disk, on Spark). Its :meth:`_fit` chooses, fits
    there and, in memory, writes ``output``."""

    engine: str
    output: str | Path | None
    output_separator: str | None

    def _engine_choice(self, frame: Any, memory_share: float = 0.25) -> tuple[str, str]:
        """The engine the fit runs on and why (``engine="auto"``:
        :func:`~anonkit.engines.base.choose_engine` picks it from the input)."""
        if not isinstance(self.engine, str):
            names = str(Options(ENGINE_CHOICES))
            raise ParameterError("engine", type(self).__name__, names, self.engine)
        if self.engine == "auto":
            return choose_engine(frame, memory_share)
        pandas = type(frame).__module__.split(".")[0] == "pandas"
        if pandas and not get_engine(self.engine).in_memory:
            raise ParameterError(
                "engine",
                type(self).__name__,
                "'polars' or 'auto' for a pandas frame (it is in memory already; the "
                f"{self.engine} engine reads files, polars frames and lazy queries)",
                self.engine,
            )
        # given or the default: the two cannot be told apart here
        return self.engine, "the engine argument"

    def _fit_in_memory(self, frame: Any, columns: Columns) -> None:
        """The in-memory fit of ``frame`` (a path read first), the release then written
        to ``output`` when given."""
        if isinstance(frame, (str, Path)):
            frame = read_table(frame)
        super()._fit(frame, columns)
        if self.output is not None:
            release = to_polars(self.result_.release)[0]
            write_table(release, self.output, separator=self.output_separator)

    def _fitted_elsewhere(self, result: AnonymizationResult, columns: Columns) -> None:
        """Keep the result of a fit through an engine that holds no records here."""
        self.result_ = result
        self.quasi_identifiers_ = tuple(columns.quasi_identifiers)
        self.__dict__.pop("_fitting", None)  # transform needs the records in memory
