"""Step 2, Roles: the profiler's proposals, the user's roles and the leak check."""

from __future__ import annotations

import itertools
from typing import Any

from shiny import Inputs, Outputs, reactive, render, ui

from anonkit.app import workflow
from anonkit.app.guard import guard
from anonkit.app.state import AppState, go
from anonkit.app.widgets import ERRORS, ROLE_LABELS, error_box

__all__ = ["wire"]

_COLUMNS = ("column", "type", "distinct", "unique", "role", "why")


def wire(input: Inputs, output: Outputs, state: AppState) -> None:  # noqa: A002
    """Wire the Roles page; sets ``state.by_role`` and ``state.roles_ready``, and resets
    the hierarchies and the last run when another table is loaded."""

    @reactive.calc
    def starter() -> Any:
        return workflow.propose(state.loaded())

    @reactive.calc
    def proposed() -> list[dict[str, Any]]:
        return workflow.role_rows(starter())

    # The role selectors' ids carry a token new at every load: the browser keeps the
    # value of an input whose selector is gone, so ids by position alone (``role_3``)
    # gave the new table's fourth column the role chosen for the old table's fourth
    # column until the new selectors reported theirs.
    tokens = itertools.count(1)

    @reactive.calc
    def load_token() -> int:
        state.loaded()
        return next(tokens)

    def role_id(i: int) -> str:
        return f"role_{load_token()}_{i}"

    @reactive.effect
    @guard("Profiling the columns")
    def _reset_hierarchies() -> None:
        table = state.loaded()
        state.hier_specs.set(workflow.default_hierarchies(table, starter()))
        state.outcome.set(None)
        with reactive.isolate():  # a run of the table before is of no use now
            running = state.progress_box()
        if running is not None:
            running.cancel()

    # The roles table is drawn one flush after a load (about 0.1 s of the browser's time
    # with its selectors), so that the Load page shows its summary first; it is still
    # ready before the user reaches the Roles page.
    drawn_for: reactive.Value[object] = reactive.value(None, name="roles_drawn_for")
    pending = [False]

    @reactive.effect
    @guard("Proposing roles")
    def _draw_after_load() -> None:
        table = state.loaded()
        with reactive.isolate():
            if drawn_for() is table:
                return
        if not pending[0]:
            pending[0] = True
            reactive.invalidate_later(0.02)
            return
        pending[0] = False
        drawn_for.set(table)

    @output(suspend_when_hidden=False)  # ready before its page opens
    @render.ui
    @guard("Proposing roles")
    def roles_table() -> ui.TagChild:
        if drawn_for() is not state.loaded():
            return ui.p("Proposing roles...", class_="text-muted")
        body = [_role_row(role_id(i), i, row) for i, row in enumerate(proposed())]
        head = ui.tags.tr(*(ui.tags.th(c) for c in _COLUMNS))
        return ui.tags.table(
            ui.tags.thead(head), ui.tags.tbody(*body), class_="table table-sm", id="roles"
        )

    chosen: reactive.Value[dict[str, str]] = reactive.value({}, name="roles")

    @reactive.effect
    @guard("Reading the roles")
    def _roles() -> None:
        """The roles as chosen; set only when they change, so that the role selectors
        reporting their first values (the proposals) recompute nothing."""
        out = {}
        for i, row in enumerate(proposed()):
            key = role_id(i)
            picked = input[key]() if key in input else None
            out[row["column"]] = picked or row["role"]
        with reactive.isolate():
            if out == chosen():
                return
        chosen.set(out)

    def roles() -> dict[str, str]:
        return chosen()

    @reactive.calc
    def by_role() -> dict[str, list[str]]:
        return workflow.roles_by_kind(roles())

    state.by_role = by_role

    @reactive.calc
    def leaks_or_error() -> list[Any] | BaseException:
        try:
            return workflow.role_leaks(state.loaded().frame, roles())
        except ERRORS as err:
            return err

    @output(suspend_when_hidden=False)  # ready before its page opens
    @render.ui
    @guard("Checking for leaks")
    def leaks() -> ui.TagChild:
        found = leaks_or_error()
        if isinstance(found, BaseException):
            return error_box(found)
        if not by_role()["quasi_identifier"]:
            return error_box("Mark at least one column as a quasi-identifier.")
        if not found:
            return ui.div(
                "No leaks: no column released as is gives a quasi-identifier away.",
                class_="alert alert-success py-1",
                id="no-leaks",
            )
        items = [
            ui.tags.li(
                leak.reason,
                class_="text-danger fw-bold" if leak.severity == "error" else "text-warning",
            )
            for leak in found
        ]
        return ui.div(ui.tags.ul(*items), id="leak-list")

    @output(suspend_when_hidden=False)  # ready before its page opens
    @render.ui
    @guard("Checking for leaks")
    def leak_marks() -> ui.TagChild:
        """Red column names for the columns whose leaks stop the run."""
        found = leaks_or_error()
        if isinstance(found, BaseException):
            return None
        bad = {leak.column for leak in workflow.blocking_leaks(found)}
        rows = [
            f"#role-row-{i} .app-column" for i, row in enumerate(proposed()) if row["column"] in bad
        ]
        if not rows:
            return None
        return ui.tags.style(", ".join(rows) + " { color: #c00; font-weight: bold; }")

    def roles_ready() -> bool:
        found = leaks_or_error()
        return (
            not isinstance(found, BaseException)
            and not workflow.blocking_leaks(found)
            and bool(by_role()["quasi_identifier"])
        )

    state.roles_ready = roles_ready

    @reactive.effect
    @reactive.event(input.to_hierarchies)
    @guard("Opening the Hierarchies page")
    def _to_hierarchies() -> None:
        if roles_ready():
            go("Hierarchies")


def _role_row(input_id: str, i: int, row: dict[str, Any]) -> ui.Tag:
    """One column: name, type, distinct values, unique share, role selector (the input
    ``input_id``), reason; the row's id is ``role-row-<i>``."""
    select = ui.input_select(input_id, None, ROLE_LABELS, selected=row["role"], width="17em")
    _named(select, f"Role of {row['column']}")  # no visible label: the row names it
    return ui.tags.tr(
        ui.tags.td(row["column"], class_="app-column"),
        ui.tags.td(row["kind"]),
        ui.tags.td(f"{row['distinct']:,}"),
        ui.tags.td(f"{row['unique']:.1%}"),
        ui.tags.td(select),
        ui.tags.td(row["why"], class_="small"),
        id=f"role-row-{i}",
    )


def _named(tag: ui.Tag, name: str) -> None:
    """Give the ``<select>`` inside ``tag`` the accessible name ``name``."""
    for child in tag.children:
        if isinstance(child, ui.Tag):
            if child.name == "select":
                child.attrs["aria-label"] = name
            else:
                _named(child, name)
