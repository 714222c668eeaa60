"""The Shiny application of ``anonkit app``: seven pages over the workflow functions.

The page layout is :mod:`anonkit.app.pages`; the session's state (the loaded table,
roles, hierarchies, settings and the last run, kept while the user moves between pages)
is an :class:`~anonkit.app.state.AppState`; each page's outputs and effects are wired by
its module of :mod:`anonkit.app.steps`, in page order. The run is a Shiny extended task
whose work runs in a worker thread, so the page stays responsive.

Errors of the library (:class:`~anonkit.exceptions.AnonkitError`) are shown as their
message next to the field that caused them; nothing about the data is logged.
"""

from __future__ import annotations

from pathlib import Path

from shiny import App, Inputs, Outputs, Session

from anonkit.app import pages
from anonkit.app.state import AppState
from anonkit.app.steps import explore, export, hierarchies, load, privacy, roles, run

__all__ = ["create_app"]

#: The step modules in page order (each reads what the earlier ones put in the state).
_STEPS = (load, roles, hierarchies, privacy, run, explore, export)


def create_app(data: Path | None = None, *, workdir: Path) -> App:
    """The Shiny app; ``data`` is loaded at start; uploads are copied under ``workdir``."""

    def server(input: Inputs, output: Outputs, session: Session) -> None:  # noqa: A002
        """Every page's outputs render as soon as their inputs change, also while the
        page is hidden, so that moving to a page shows it at once."""
        state = AppState(data, workdir)
        for step in _STEPS:
            step.wire(input, output, state)

    return App(pages.page(data), server)
