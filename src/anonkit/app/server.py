"""The Shiny application of ``anonkit app``: seven pages over the workflow functions.

The page layout is :mod:`anonkit.app.pages`; the session's state (the loaded table,
roles, hierarchies, settings and the last run, kept while the user moves between pages)
is an :class:`~anonkit.app.state.AppState`; each page's outputs and effects are wired by
its module of :mod:`anonkit.app.steps`, in page order. The run is a Shiny extended task
whose work runs in a worker thread, so the page stays responsive.

Errors of the library (:class:`~anonkit.exceptions.AnonkitError`) are shown as their
message next to the field that caused them; any other error of an output or effect is
told by its type (:func:`anonkit.app.guard.guard`) and the session goes on; nothing
about the data is logged.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from pathlib import Path

from shiny import App, Inputs, Outputs, Session

from anonkit.app import pages, workflow
from anonkit.app.state import AppState
from anonkit.app.steps import explore, export, hierarchies, load, privacy, roles, run

__all__ = ["create_app"]

#: The step modules in page order (each reads what the earlier ones put in the state).
_STEPS = (load, roles, hierarchies, privacy, run, explore, export)


def _skip_value_name_inference() -> None:
    """Stop Shiny from naming each unnamed reactive value by reading the caller's source.

    Shiny 1.5+ names reactive values for OpenTelemetry by calling ``inspect.stack()``,
    which reads the source of every frame of the web server's deep stack: measured at
    about 0.1 s per value, and every session makes a few (the extended task's own three
    are unnamed), so opening the page took a second or two more. The app exports no
    telemetry (nothing is logged), so the name is not needed; the app's own values are
    named. Guarded: a Shiny without the method is left alone.
    """
    try:
        from shiny.reactive import _reactives
    except ImportError:  # pragma: no cover - another Shiny layout
        return
    value = getattr(_reactives, "Value", None)
    if value is not None and hasattr(value, "_try_infer_name"):
        value._try_infer_name = lambda self: None


def create_app(
    data: Path | None = None, *, workdir: Path, warm: bool = True, server_files: bool = True
) -> App:
    """The Shiny app; ``data`` is loaded at start; uploads are copied under ``workdir``,
    in a folder per session (removed when the session ends).

    With ``warm``, the bundled Adult (the default source) is read and profiled in a
    background thread while the server starts, so that loading it answers at once.
    """
    _skip_value_name_inference()
    if warm:
        threading.Thread(target=workflow.warm_up, name="anonkit-app-warm-up", daemon=True).start()

    def server(input: Inputs, output: Outputs, session: Session) -> None:  # noqa: A002
        """Every page's outputs render as soon as their inputs change, also while the
        page is hidden, so that moving to a page shows it at once."""
        state = AppState(data, _session_folder(workdir, session), server_files=server_files)
        for step in _STEPS:
            step.wire(input, output, state)

    return App(pages.page(data, server_files=server_files), server)


def _session_folder(workdir: Path, session: Session) -> Path:
    """A folder of ``workdir`` for one session's uploads and exports, removed when the
    session ends: two users uploading files of the same name each keep their own, and a
    closed page leaves no copy of its data behind while the server runs on."""
    workdir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="session-", dir=workdir))
    session.on_ended(lambda: shutil.rmtree(folder, ignore_errors=True))
    return folder
