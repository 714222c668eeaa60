"""Step 4, Privacy and utility: the settings read from the page, checked as the API
checks them; the population table; numeric quasi-identifiers of the local algorithms."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from shiny import Inputs, Outputs, reactive, render, ui

from anonkit.api import takes_keyword
from anonkit.app import workflow
from anonkit.app.files import model_files
from anonkit.app.guard import FieldError, guard
from anonkit.app.population import Population, check_population, load_population
from anonkit.app.state import AppState
from anonkit.app.widgets import ERRORS, error_box
from anonkit.estimators.given import OWN_METRICS
from anonkit.exceptions import ConfigError

__all__ = ["ALGORITHM_FIELDS", "FIELD_LABELS", "estimator_options", "settings_from", "wire"]

#: Per local algorithm, its option fields on the page and the API's defaults (a default
#: is left out of the settings, so the TOML names only what the user changed).
ALGORITHM_FIELDS: Final[Mapping[str, Mapping[str, str]]] = {
    "mondrian": {"numeric_release": "range", "mode": "strict", "split": "widest"},
    "microaggregation": {"method": "mdav", "aggregate": "mean"},
    "greedy_merge": {"cost": "nllm"},
}
#: The page's label of each of those fields.
FIELD_LABELS: Final[Mapping[str, str]] = {
    "numeric_release": "Numbers released as",
    "mode": "Partitioning",
    "split": "Split dimension",
    "method": "Grouping",
    "aggregate": "Groups released as their",
    "cost": "Cost",
    "metric": "Metric",  # shown, and passed as the metric, for the algorithms that take one
}


def wire(input: Inputs, output: Outputs, state: AppState) -> None:  # noqa: A002
    """Wire the Privacy page; sets ``state.settings_or_error`` and ``state.population``."""
    # the seed of the algorithms that draw at random: one per session, so that a run
    # and its exported TOML draw alike, and no constant anyone could repeat the draw with
    seed = secrets.randbelow(2**31)

    @reactive.calc
    def settings_or_error() -> workflow.Settings | BaseException:
        try:
            return settings_from(input, state.by_role(), seed=seed, named_file=state.named_file)
        except ERRORS as err:
            return err

    state.settings_or_error = settings_or_error

    @output(suspend_when_hidden=False)  # ready before its page opens
    @render.ui
    @guard("Listing the sensitive columns")
    def privacy_attrs() -> ui.TagChild:
        sensitive = state.by_role()["sensitive"] or ["(no sensitive column)"]
        return ui.input_select("model_attribute", "Sensitive attribute", sensitive)

    @output(suspend_when_hidden=False)  # ready before its page opens
    @render.ui
    @guard("Listing the numeric columns")
    def numeric_choice() -> ui.TagChild:
        qi = state.by_role()["quasi_identifier"]
        with reactive.isolate():
            kept = [c for c in (input.numeric() if "numeric" in input else ()) if c in qi]
        return ui.input_selectize(
            "numeric", "Numeric quasi-identifiers", qi, selected=kept, multiple=True
        )

    def use_population(path: Any, name: str | None, uploaded: bool) -> None:
        try:
            found: Population | BaseException = load_population(
                state.named_file(path), state.loaded().read, name=name, uploaded=uploaded
            )
        except ERRORS as err:
            found = err
        state.population.set(found)

    @reactive.effect
    @reactive.event(input.population_apply)
    @guard("Reading the population table")
    def _population_path() -> None:
        text = input.population_path().strip()
        if not text:
            state.population.set(
                FieldError(
                    "Population table path",
                    "enter the path of a CSV, TSV or Parquet file, or upload it",
                    parameter="population",
                )
            )
            return
        use_population(text, None, False)

    @reactive.effect
    @reactive.event(input.population_upload)
    @guard("Reading the population table")
    def _population_upload() -> None:
        got = state.upload_target(input.population_upload(), "population")
        if got is not None:
            use_population(got[0], got[1], True)

    @reactive.effect
    @reactive.event(input.population_clear)
    @guard("Clearing the population table")
    def _population_clear() -> None:
        state.population.set(None)

    @render.ui
    @guard("Checking the population table")
    def population_state() -> ui.TagChild:
        found = state.population()
        if isinstance(found, BaseException):
            return error_box(found)
        if found is None:
            return ui.p("No population table.", class_="text-muted small", id="no-population")
        try:
            check_population(found, state.by_role()["quasi_identifier"], [])
        except ERRORS as err:
            return error_box(err)
        return ui.p(
            ui.strong(found.name), f": {found.frame.height:,} population records.",
            id="population-summary",
        )  # fmt: skip

    @render.ui
    @guard("Checking the settings")
    def settings_error() -> ui.TagChild:
        found = settings_or_error()
        if isinstance(found, BaseException):
            return error_box(found)
        try:
            models = found.check()
            qi = state.by_role()["quasi_identifier"]
            workflow.check_numeric(state.loaded().frame, found.numeric, qi)
            pop = state.population()
            check_population(pop if isinstance(pop, Population) else None, qi, models)
            if found.algorithm == "safepub" and isinstance(pop, Population):
                raise FieldError(
                    "Population", "press No population, or choose another algorithm: SafePub "
                    "takes no population table (its guarantee does not rest on one)",
                    parameter="population",
                )  # fmt: skip
        except ERRORS as err:
            return error_box(err)
        return None


def settings_from(
    values: Any,
    roles: Mapping[str, Sequence[str]],
    *,
    seed: int | None = None,
    named_file: Callable[[str], Path] | None = None,
) -> workflow.Settings:
    """The privacy page's inputs as :class:`~anonkit.app.workflow.Settings`.

    ``seed`` seeds an algorithm that draws at random when Other options gives no seed
    (:func:`estimator_options`). ``named_file`` is the session's
    :meth:`~anonkit.app.state.AppState.named_file`: a file a model of Other models names
    (a hierarchy) passes it, before anything reads it, and is kept absolute; without
    it, a model naming a file is refused.

    Raises
    ------
    ConfigError, UnknownNameError, FieldError
        For a bad number or model line, an option that a field sets, or columns that
        SafePub would publish as they are (naming the field).
    """
    k = values.k()
    suppression = values.suppression()
    models = _attribute_models(values, roles) + _population_models(values)
    for i, line in enumerate((values.more_models() or "").splitlines()):
        if line.strip():
            spec = workflow.parse_pairs(line, f"line {i + 1} of the other models")
            name = spec.pop("name", None)
            if not isinstance(name, str):
                raise ConfigError(f'Line {i + 1} of the other models needs name = "<model name>".')
            label = f"Other models, line {i + 1} ({name})"
            spec = model_files(spec, named_file or _no_file, label)
            models.append(workflow.ModelSpec(name, spec, label=label))
    algorithm = values.algorithm()
    if algorithm == "safepub":
        _check_safepub_roles(roles)
    options = estimator_options(algorithm, _options(values, algorithm), seed)
    numeric = ()
    if algorithm in workflow.NUMERIC_ALGORITHMS and "numeric" in values:
        numeric = tuple(values.numeric() or ())
    return workflow.Settings(
        options=options,
        k=_whole(k, "k", "k"),
        suppression_limit=float(suppression or 0) / 100,
        models=tuple(models),
        algorithm=algorithm,
        metric=_metric(values, algorithm),
        numeric=numeric,
    )


def _no_file(text: str) -> Path:
    """Refuse ``text``: no session said which files may be read."""
    raise ConfigError(f"Cannot read {text}: no session of the app allows files named here.")


def _metric(values: Inputs, algorithm: str) -> str:
    """The Metric field shown for ``algorithm``: its own (``k_optimize_metric``) or the
    full-domain searches' (``metric``)."""
    own = f"{algorithm}_metric"
    if algorithm in OWN_METRICS and own in values:
        return str(values[own]())
    return str(values.metric())


def estimator_options(
    algorithm: str, options: Mapping[str, Any], seed: int | None = None
) -> dict[str, Any]:
    """The options typed for ``algorithm`` as :func:`anonkit.anonymize` takes them: an
    estimator's own parameters (:data:`~anonkit.app.workflow.ESTIMATOR_OPTIONS`) inside
    ``options``, other algorithms' options as they are.

    ``seed`` is given to an estimator that draws at random (SafePub's sample, the noise
    of (k, ε)-anonymity) when no seed is typed: the run and the exported TOML then draw
    alike. The app draws it once per session, so that it is no public constant.

    Examples
    --------
    >>> estimator_options("safepub", {"epsilon": 1.0}, seed=7)
    {'options': {'epsilon': 1.0, 'seed': 7}}
    >>> estimator_options("mondrian", {"mode": "relaxed"}, seed=7)
    {'mode': 'relaxed'}
    """
    if algorithm not in workflow.ESTIMATOR_OPTIONS:
        return dict(options)
    own = dict(options)
    if seed is not None and "seed" in workflow.ESTIMATOR_OPTIONS[algorithm]:
        own.setdefault("seed", seed)
    return {"options": own} if own else {}


def _options(values: Any, algorithm: str) -> dict[str, Any]:
    """The options ``algorithm``'s fields set (those changed from their default) and
    those typed in Other options.

    Raises
    ------
    FieldError
        For a key typed in Other options that a field of the algorithm sets: the page
        would show one value and the run use another.
    """
    fields = ALGORITHM_FIELDS.get(algorithm, {})
    options: dict[str, Any] = {}
    for key, default in fields.items():
        chosen = values[key]() if key in values else default
        if chosen and chosen != default:
            options[key] = chosen
    typed = workflow.parse_pairs(values.algorithm_options() or "", "the algorithm options")
    shown = {**fields, **options}
    if takes_keyword(algorithm, "metric"):
        shown["metric"] = _metric(values, algorithm)
    for key in typed:
        if key in shown:
            raise FieldError(
                "Other options", f"{key} is set by the {FIELD_LABELS[key]} field "
                f"({shown[key]}); remove it from Other options and choose it in that field",
                parameter=key,
            )  # fmt: skip
    return {**options, **typed}


def _check_safepub_roles(roles: Mapping[str, Sequence[str]]) -> None:
    """Refuse sensitive and insensitive columns with SafePub: its guarantee covers the
    quasi-identifiers it generalizes, not columns published as they are.

    Raises
    ------
    FieldError
        Naming the columns.
    """
    kept = [*roles.get("sensitive", ()), *roles.get("insensitive", ())]
    if kept:
        raise FieldError(
            "Algorithm", f"SafePub releases the quasi-identifiers only: make {', '.join(kept)} "
            "identifying on Roles (removed from the release), or choose another algorithm",
            parameter="algorithm",
        )  # fmt: skip


def _whole(value: Any, label: str, parameter: str) -> int | None:
    """A number field holding a whole number (blank or 0: off, None).

    Raises
    ------
    FieldError
        If the field ``label`` holds a fraction: ``int`` would have cut 2.5 to 2, a
        weaker guarantee than the one typed.
    """
    if not value:
        return None
    if isinstance(value, float) and not value.is_integer():
        advice = "enter a whole number of at least 1, or 0 for off"
        raise FieldError(label, advice, value, parameter=parameter)
    return int(value)


def _attribute_models(values: Any, roles: Mapping[str, Sequence[str]]) -> list[workflow.ModelSpec]:
    """ℓ-diversity and t-closeness on the chosen sensitive attribute."""
    models: list[workflow.ModelSpec] = []
    attribute = values.model_attribute() if "model_attribute" in values else None
    needs = [
        (values.l(), values.l_variant(), "l", "l-diversity", "l-diversity"),
        (values.t(), values.t_variant(), "t", "t-closeness", "t-closeness t"),
    ]
    for amount, name, key, field, label in needs:
        if amount:
            if not roles["sensitive"] or attribute not in roles["sensitive"]:
                raise FieldError(
                    field, "mark a column sensitive on Roles and choose it as the sensitive "
                    f"attribute, or set {key} to 0", parameter="attribute",
                )  # fmt: skip
            value = float(amount) if key == "t" else _l_value(amount, name, label)
            spec = {"attribute": attribute, key: value}
            models.append(workflow.ModelSpec(name, spec, label=label))
    return models


def _l_value(amount: Any, variant: str, label: str) -> int | float | None:
    """The l typed for ``variant``: entropy ℓ-diversity takes any real l >= 1 (its
    model checks it), the other variants a whole number (:func:`_whole`)."""
    if variant in workflow.REAL_L_VARIANTS:
        return int(amount) if float(amount).is_integer() else float(amount)
    return _whole(amount, label, "l")


def _population_models(values: Any) -> list[workflow.ModelSpec]:
    """k-map and δ-presence (they need the population table)."""
    models: list[workflow.ModelSpec] = []
    if values.k_map():
        k = _whole(values.k_map(), "k-map", "k_map")
        models.append(workflow.ModelSpec("k_map", {"k": k}, label="k-map"))
    if values.delta_min() and not values.delta_max():
        raise FieldError(
            "delta-presence", "the smallest share needs a largest share; set the largest "
            "share too, or the smallest to 0", values.delta_min(), parameter="delta_max",
        )  # fmt: skip
    if values.delta_max():
        bounds = {
            "delta_min": float(values.delta_min() or 0),
            "delta_max": float(values.delta_max()),
        }
        models.append(workflow.ModelSpec("delta_presence", bounds, label="delta-presence"))
    return models
