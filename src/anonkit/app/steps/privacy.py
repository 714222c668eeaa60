"""Step 4, Privacy and utility: the settings read from the page, checked as the API
checks them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from shiny import Inputs, Outputs, reactive, render, ui

from anonkit.app import workflow
from anonkit.app.state import AppState
from anonkit.app.widgets import ERRORS, error_box
from anonkit.exceptions import ConfigError, ParameterError

__all__ = ["settings_from", "wire"]


def wire(input: Inputs, output: Outputs, state: AppState) -> None:  # noqa: A002
    """Wire the Privacy page; sets ``state.settings_or_error``."""

    @reactive.calc
    def settings_or_error() -> workflow.Settings | BaseException:
        try:
            return settings_from(input, state.by_role())
        except ERRORS as err:
            return err

    state.settings_or_error = settings_or_error

    @output(suspend_when_hidden=False)  # ready before its page opens
    @render.ui
    def privacy_attrs() -> ui.TagChild:
        sensitive = state.by_role()["sensitive"] or ["(no sensitive column)"]
        return ui.input_select("model_attribute", "Sensitive attribute", sensitive)

    @render.ui
    def settings_error() -> ui.TagChild:
        found = settings_or_error()
        if isinstance(found, BaseException):
            return error_box(found)
        try:
            found.check()
        except ERRORS as err:
            return error_box(err)
        return None


def settings_from(values: Any, roles: Mapping[str, Sequence[str]]) -> workflow.Settings:
    """The privacy page's inputs as :class:`~anonkit.app.workflow.Settings`.

    Raises
    ------
    ConfigError, UnknownNameError, ParameterError
        For a bad number or model line (naming the field).
    """
    k = values.k()
    suppression = values.suppression()
    models: list[workflow.ModelSpec] = []
    attribute = values.model_attribute() if "model_attribute" in values else None
    needs = [(values.l(), values.l_variant(), "l"), (values.t(), values.t_variant(), "t")]
    for amount, name, key in needs:
        if amount:
            if not roles["sensitive"] or attribute not in roles["sensitive"]:
                raise ParameterError(
                    "attribute", name, "a sensitive column (mark one on Roles)", attribute
                )
            value = int(amount) if key == "l" else float(amount)
            models.append(workflow.ModelSpec(name, {"attribute": attribute, key: value}))
    for i, line in enumerate((values.more_models() or "").splitlines()):
        if line.strip():
            spec = workflow.parse_pairs(line, f"line {i + 1} of the other models")
            name = spec.pop("name", None)
            if not isinstance(name, str):
                raise ConfigError(f'Line {i + 1} of the other models needs name = "<model name>".')
            models.append(workflow.ModelSpec(name, spec))
    options = workflow.parse_pairs(values.algorithm_options() or "", "the algorithm options")
    return workflow.Settings(
        options=options,
        k=int(k) if k else None,
        suppression_limit=float(suppression or 0) / 100,
        models=tuple(models),
        algorithm=values.algorithm(),
        metric=values.metric(),
    )
