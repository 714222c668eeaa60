"""Step 5, Run: the anonymization as a Shiny extended task in a worker thread, with a
progress bar polled from :class:`~anonkit.app.results.RunProgress` and a cancel button."""

from __future__ import annotations

import asyncio
from typing import Any

from shiny import Inputs, Outputs, reactive, render, ui

from anonkit.app import results, workflow
from anonkit.app.guard import NotReadyError, guard, what_failed
from anonkit.app.population import check_population
from anonkit.app.state import AppState
from anonkit.app.widgets import ERRORS, error_box, progress_bar, stale_box, summary_cards

__all__ = ["SETTINGS_CHANGED", "UNREADABLE", "changed_since", "run_request", "wire"]


def wire(input: Inputs, output: Outputs, state: AppState) -> None:  # noqa: A002
    """Wire the Run page: sets ``state.outcome`` (with the choices it was run with) when
    a run succeeds; a run that fails or is cancelled leaves the previous one."""
    run_message: reactive.Value[ui.TagChild] = reactive.value(None, name="run_message")

    @ui.bind_task_button(button_id="run")
    @reactive.extended_task
    async def run_task(
        request: results.RunRequest, progress: results.RunProgress
    ) -> results.RunOutcome:
        return await asyncio.to_thread(results.run, request, progress)

    @reactive.effect
    @reactive.event(input.run)
    @guard("Starting the run")
    def _run() -> None:
        try:
            request = run_request(state)
        except ERRORS as err:
            run_message.set(error_box(err))
            return
        progress = results.RunProgress()
        state.progress_box.set(progress)
        run_message.set(None)
        run_task(request, progress)

    @reactive.effect
    @reactive.event(input.cancel)
    @guard("Cancelling the run")
    def _cancel() -> None:
        progress = state.progress_box()
        if progress is not None:
            progress.cancel()

    @reactive.effect
    @guard("Finishing the run")
    def _finished() -> None:
        status = run_task.status()
        if status == "success":
            done = run_task.result()
            with reactive.isolate():
                current = _current_table(state)
            if done.choices is None or done.choices.table is not current:
                # another table was loaded meanwhile: this release is not of the table
                # the pages (and the export) now describe
                run_message.set(
                    ui.div(
                        "The table changed while the run was going; its release was set "
                        "aside. Run again.",
                        class_="alert alert-warning",
                        id="stale",
                    )
                )
                return
            state.outcome.set(done)
        elif status == "error":
            with reactive.isolate():
                progress = state.progress_box()
            cancelled = progress is not None and progress.cancelled
            run_message.set(
                ui.div("The run was cancelled.", class_="alert alert-warning", id="cancelled")
                if cancelled
                else error_box(_task_error(run_task))
            )

    @render.ui
    @guard("Showing the run's progress")
    def run_status() -> ui.TagChild:
        status = run_task.status()
        progress = state.progress_box()
        if status == "running" and progress is not None:
            reactive.invalidate_later(0.25)
            stage, done, total = progress.snapshot()
            share = done / total if total else 0.0
            return progress_bar(stage, share, done, total)
        message = run_message()
        if message is not None:
            return message
        result = state.outcome()
        if result is not None:
            return ui.div(
                stale_box(changed_since(state, result.choices), id="run-stale"),
                summary_cards(result.result, result.seconds, id="summary"),
            )
        return ui.p("Not run yet.", class_="text-muted")


#: What Run, Explore and Export say when the pages no longer describe the last run.
SETTINGS_CHANGED = "The settings changed since this run: run again to release them."
UNREADABLE = (
    "The table of this run can no longer be read (the Load page says why): correct the "
    "reading options or load a table, then run again."
)


def changed_since(state: AppState, choices: results.RunChoices | None) -> str | None:
    """Why the pages no longer describe the run made with ``choices`` (the table cannot
    be read, another table, other roles, hierarchies, settings or population), or
    ``None`` when they still do."""
    if choices is None:
        return SETTINGS_CHANGED
    table = _current_table(state)
    if table is None:
        return UNREADABLE
    settings = state.settings_or_error()
    roles = state.by_role()
    qi = roles["quasi_identifier"]
    if (
        table is not choices.table
        or isinstance(settings, BaseException)
        or settings != choices.settings
        or roles != choices.roles
        or {c: s for c, s in state.hier_specs().items() if c in qi} != choices.specs
        or state.population() is not choices.population
    ):
        return SETTINGS_CHANGED
    return None


def run_request(state: AppState) -> results.RunRequest:
    """The run the pages describe, with the choices the export writes.

    Raises
    ------
    NotReadyError
        If no table is loaded, or the roles are not ready (a blocking leak, no
        quasi-identifier).
    AnonkitError
        A bad setting or hierarchy, with the API's message.
    """
    if _current_table(state) is None:
        raise NotReadyError(
            "Load a table first."
            if state.source() is None
            else "The table cannot be read (the Load page says why): correct the reading "
            "options or load another table first."
        )
    if not state.roles_ready():
        raise NotReadyError("Resolve the leaks on Roles before running.")
    found = state.settings_or_error()
    if isinstance(found, BaseException):
        raise found
    models = found.check()
    by_role = state.by_role()
    qi = by_role["quasi_identifier"]
    specs = {c: s for c, s in state.hier_specs().items() if c in qi}
    frame = state.loaded().frame
    workflow.check_numeric(frame, found.numeric, qi)
    population = state.population()
    if isinstance(population, BaseException):
        raise population
    check_population(population, qi, models)
    heights = [workflow.hierarchy_preview(frame, c, specs.get(c), rows=0)[0].height for c in qi]
    algorithm = workflow.resolve_algorithm(found.algorithm, heights)
    workflow.check_options(found.options, algorithm)  # "auto" is resolved now
    keywords = results.anonymizer_keywords(
        by_role, specs, k=found.k, models=models, suppression_limit=found.suppression_limit,
        algorithm=algorithm, metric=found.metric, options=found.options, numeric=found.numeric,
        population=None if population is None else population.frame,
    )  # fmt: skip
    chosen = results.RunChoices(
        table=state.loaded(), settings=found, algorithm=algorithm, specs=specs,
        roles=by_role, heights=dict(zip(qi, heights, strict=True)), population=population,
    )  # fmt: skip
    return results.RunRequest(frame, keywords, chosen)


def _current_table(state: AppState) -> workflow.Loaded | None:
    """The table loaded now (``None`` while none is)."""
    try:
        return state.loaded()
    except Exception:  # noqa: BLE001 - Shiny's silent "not ready" when nothing is loaded
        return None


def _task_error(task: Any) -> BaseException | str:
    """The error the run raised: the library's as is, others by their type only
    (:func:`~anonkit.app.guard.what_failed`)."""
    try:
        task.result()
    except BaseException as err:  # noqa: BLE001 - the error the run raised, shown as is
        if isinstance(err, ERRORS):
            return err
        return what_failed("The run", err)
    return "The run failed."
