"""Step 3, Hierarchies: per quasi-identifier a hierarchy file or a builder, previewed on
the column's real values."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from shiny import Inputs, Outputs, reactive, render, ui

from anonkit.app import workflow
from anonkit.app.guard import guard
from anonkit.app.preview import builder_example, draft_spec, preview_hierarchy
from anonkit.app.state import AppState
from anonkit.app.widgets import ERRORS, describe_spec, error_box, frame_table, table
from anonkit.core.resolve import FILE, HierarchySpec, hierarchy_file

__all__ = ["wire"]


def wire(input: Inputs, output: Outputs, state: AppState) -> None:  # noqa: A002
    """Wire the Hierarchies page (edits ``state.hier_specs``)."""

    @output(suspend_when_hidden=False)  # ready before its page opens
    @render.ui
    @guard("Listing the quasi-identifiers")
    def hier_gate() -> ui.TagChild:
        if not state.roles_ready():
            return error_box("Resolve the leaks and choose quasi-identifiers on Roles first.")
        qi = state.by_role()["quasi_identifier"]
        return ui.input_select("h_column", "Quasi-identifier", qi, selected=qi[0])

    def spec_of(column: str) -> HierarchySpec | None:
        return state.hier_specs().get(column)

    @reactive.effect
    @reactive.event(input.h_column)
    @guard("Showing the hierarchy")
    def _show_spec() -> None:
        spec = spec_of(input.h_column())
        if isinstance(spec, Mapping) and spec.get("type") == FILE:  # a file read as the data
            ui.update_select("h_type", selected="file")
            ui.update_text("h_path", value=str(spec["path"]))
        elif isinstance(spec, Mapping):
            ui.update_select("h_type", selected=str(spec.get("type", "suppression")))
            ui.update_text("h_params", value=workflow.builder_text(spec))
        elif spec is not None:
            ui.update_select("h_type", selected="file")
            ui.update_text("h_path", value=str(spec))
        else:
            ui.update_select("h_type", selected="suppression")
            ui.update_text("h_params", value="")

    @reactive.effect
    @reactive.event(input.h_upload)
    @guard("Reading the uploaded hierarchy")
    def _hier_upload() -> None:
        """An uploaded hierarchy file is the one to use: its path in the field, and the
        Kind switched to file (left at a builder, "Use this hierarchy" applied the
        builder and passed the upload over)."""
        got = state.upload_target(input.h_upload(), "hierarchies")
        if got is not None:
            target, name = got
            state.renamed.set({**state.renamed(), str(target): name})
            ui.update_select("h_type", selected="file")
            ui.update_text("h_path", value=str(target))

    hier_message: reactive.Value[ui.TagChild] = reactive.value(None, name="hier_message")

    @reactive.calc
    def draft() -> HierarchySpec | BaseException:
        """The hierarchy the editor's fields describe (not applied yet)."""
        try:
            kind, path = input.h_type(), input.h_path()
            if kind == "file" and path.strip():
                path = str(state.named_file(path.strip()))
            spec = draft_spec(kind, input.h_params(), path)
            # a hierarchy file is read with the encoding the table was loaded with
            if isinstance(spec, Path):
                return hierarchy_file(spec, state.loaded().read.encoding)
            return spec
        except ERRORS as err:
            return err

    @reactive.effect
    @reactive.event(input.h_type)
    @guard("Proposing builder parameters")
    def _example() -> None:
        """A builder chosen for a column that uses another: parameters to start from."""
        column = input.h_column() if "h_column" in input else None
        kind = input.h_type()
        if not column or kind == "file":
            return
        with reactive.isolate():
            stored = spec_of(column)
            if isinstance(stored, Mapping) and stored.get("type") == kind:
                return
            example = builder_example(kind, state.loaded().frame.get_column(column))
        ui.update_text("h_params", value=workflow.builder_text(example))

    @reactive.effect
    @reactive.event(input.h_apply)
    @guard("Applying the hierarchy")
    def _apply_spec() -> None:
        column = input.h_column() if "h_column" in input else None
        if not column:
            return
        spec = draft()
        try:
            if isinstance(spec, BaseException):
                raise spec
            preview_hierarchy(state.loaded().frame, column, spec, rows=0)
        except ERRORS as err:
            hier_message.set(error_box(err))
            return
        hier_message.set(None)
        state.hier_specs.set({**state.hier_specs(), column: spec})

    @reactive.effect
    @reactive.event(input.h_column)
    @guard("Showing the hierarchy")
    def _clear_message() -> None:
        hier_message.set(None)

    @render.ui
    @guard("Showing the hierarchy")
    def hier_error() -> ui.TagChild:
        return hier_message()

    @output(suspend_when_hidden=False)  # ready before its page opens
    @render.ui
    @guard("Previewing the hierarchy")
    def hier_preview() -> ui.TagChild:
        if "h_column" not in input or not input.h_column() or not state.roles_ready():
            return None
        column = input.h_column()
        spec = draft()
        try:
            if isinstance(spec, BaseException):
                raise spec
            shown = preview_hierarchy(state.loaded().frame, column, spec)
        except ERRORS as err:
            return ui.div(
                ui.p("The hierarchy being edited:"), error_box(err), id="hier-draft-error"
            )
        applied = spec == spec_of(column)
        state_note = (
            ui.span("in use", class_="badge bg-success", id="hier-in-use")
            if applied
            else ui.span("not applied yet", class_="badge bg-warning text-dark", id="hier-draft")
        )
        return ui.div(
            ui.p(
                f"{column}: {describe_spec(spec)}, {shown.hierarchy.height} levels ",
                state_note,
            ),
            frame_table(shown.levels, id="hier-levels-table"),
            ui.p("The most frequent values at each level:"),
            frame_table(shown.values, id="hier-preview-table"),
        )

    @output(suspend_when_hidden=False)  # ready before its page opens
    @render.ui
    @guard("Listing the hierarchies")
    def hier_summary() -> ui.TagChild:
        if not state.roles_ready():
            return None
        rows = [
            {"quasi-identifier": column, "hierarchy": describe_spec(spec_of(column))}
            for column in state.by_role()["quasi_identifier"]
        ]
        return table(rows, ["quasi-identifier", "hierarchy"], id="hier-summary")
