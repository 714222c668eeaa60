"""The reactive wiring of ``anonkit app``, one module per page.

Each module has one function, ``wire(input, output, state)``, called inside the Shiny server
function: it defines the page's outputs and effects (Shiny registers them on the current
session) and stores on :class:`~anonkit.app.state.AppState` what later pages read. The
steps only call :mod:`anonkit.app.workflow`, :mod:`anonkit.app.results` and
:mod:`anonkit.app.export`, which call the library's public API.
"""

from __future__ import annotations

__all__: list[str] = []
