"""``anonkit app``: a local web application over the public API, for data stewards.

Seven steps, one page each, with the state kept so that the user can go back: load a
table, confirm the roles the profiler proposes (leaks must be resolved), choose the
hierarchies, set privacy and utility, run in the background (progress, cancel), explore
the result and its alternatives, export the release, the TOML configuration that
reproduces it with ``anonkit anonymize --config`` and the HTML report.

The steps' logic lives in :mod:`anonkit.app.workflow` (load, roles, hierarchies,
settings), :mod:`anonkit.app.results` (run, explore) and :mod:`anonkit.app.export`; none
of them imports Shiny, and each only calls the library's public functions.
:mod:`anonkit.app.server` is the Shiny application and :mod:`anonkit.app.serve` runs it on
a loopback address. This package is the only place that imports Shiny (the ``app``
extra).
"""

from __future__ import annotations

__all__: list[str] = []
