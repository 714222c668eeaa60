"""Step 1, Load: the source (bundled Adult, a path, an upload), the reading options and
the preview."""

from __future__ import annotations

from pathlib import Path

from shiny import Inputs, Outputs, reactive, render, ui

from anonkit.app import workflow
from anonkit.app.guard import guard
from anonkit.app.state import AppState, go
from anonkit.app.widgets import ERRORS, error_box, frame_table

__all__ = ["PREVIEW_ROWS", "wire"]

#: Rows of the table preview on the Load page.
PREVIEW_ROWS = 10


def wire(input: Inputs, output: Outputs, state: AppState) -> None:  # noqa: A002
    """Wire the Load page; sets ``state.loaded``."""

    def take_upload() -> None:
        got = state.upload_target(input.upload(), "uploads")
        if got is not None:
            state.source.set(("upload", *got))

    @reactive.effect
    @reactive.event(input.load)
    @guard("Loading the table")
    def _load() -> None:
        kind = input.source()
        if kind == "adult":
            state.source.set(("adult", Path(), "adult.csv (bundled)"))
        elif kind == "path":
            text = input.path().strip()
            state.source.set(("path", Path(text).expanduser(), Path(text).name) if text else None)
        else:
            take_upload()

    @reactive.effect
    @reactive.event(input.upload)
    @guard("Loading the upload")
    def _uploaded() -> None:
        """A finished upload is loaded at once (the upload runs after the choice)."""
        ui.update_radio_buttons("source", selected="upload")
        take_upload()

    @reactive.calc
    def loaded_or_error() -> workflow.Loaded | BaseException | None:
        chosen = state.source()
        if chosen is None:
            return None
        kind, path, name = chosen
        choice = {"auto": None, "yes": True, "no": False}
        strip, decimal_comma = choice[input.strip()], choice[input.decimal_comma()]
        try:
            if kind == "adult":
                return workflow.load_adult()
            return workflow.load_table(
                state.named_file(path),
                name=name,
                separator=input.separator() or None,
                encoding=input.encoding() or "utf-8",
                missing=workflow.parse_missing(input.missing()),
                strip=strip,
                decimal_comma=decimal_comma,
                uploaded=kind == "upload",
            )
        except ERRORS as err:
            return err

    @reactive.calc
    def loaded() -> workflow.Loaded:
        value = loaded_or_error()
        if not isinstance(value, workflow.Loaded):
            raise _silent()
        return value

    state.loaded = loaded

    @render.ui
    @guard("Reading the table")
    def load_error() -> ui.Tag | None:
        value = loaded_or_error()
        if not isinstance(value, BaseException):
            return None
        chosen = state.source()
        if chosen is None or chosen[0] != "upload":
            return error_box(value)
        _, path, name = chosen  # the upload's temporary copy, named as the user chose
        return error_box(value, renamed={str(path): name, str(path.resolve()): name})

    @render.ui
    @guard("Describing the table")
    def load_summary() -> ui.TagChild:
        value = loaded_or_error()
        if not isinstance(value, workflow.Loaded):
            return ui.p("No table loaded yet.", class_="text-muted")
        read = value.read
        sep = "Parquet" if read.separator is None else f"separator {read.separator!r}"
        detected = f" (detected: {', '.join(read.detected)})" if read.detected else ""
        found = (
            f"; cells {', '.join(repr(t) for t in read.found_missing)} found, kept as values"
            if read.found_missing
            else ""
        )
        return ui.p(
            ui.strong(value.name),
            f": {value.frame.height:,} records, {value.frame.width} columns; {sep}, "
            f"{read.encoding}{detected}{found}.",
            id="load-summary",
        )

    @render.ui
    @guard("Previewing the table")
    def preview() -> ui.TagChild:
        return frame_table(loaded().frame.head(PREVIEW_ROWS), id="preview-table")

    @reactive.effect
    @reactive.event(input.to_roles)
    @guard("Opening the Roles page")
    def _to_roles() -> None:
        go("Roles")


def _silent() -> Exception:
    """Shiny's exception that blanks the outputs depending on a missing table."""
    from shiny.types import SilentException

    return SilentException()
