"""``anonkit app [DATA]``: the local web application (the ``app`` extra, Shiny).

Shiny is imported only when the command runs, so the rest of the command line starts
without it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from anonkit.cli.common import guarded, said_otherwise
from anonkit.exceptions import ConfigError


@guarded
def app_command(
    data: Annotated[
        Path | None, typer.Argument(help="A table to load at start (CSV, TSV or Parquet).")
    ] = None,
    port: Annotated[int, typer.Option(help="Port to listen on.", min=1, max=65535)] = 8765,
    host: Annotated[
        str | None,
        typer.Option(
            help="Address to listen on (default 127.0.0.1, this machine only); another "
            "address exposes the data to the network.",
            show_default=False,
        ),
    ] = None,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Do not open a browser window.")
    ] = False,
) -> None:
    """Start the web application (load, roles, hierarchies, privacy, run, explore, export)."""
    try:
        import shiny  # noqa: F401
    except ImportError:
        raise ConfigError(
            "anonkit app needs Shiny: install it with pip install 'anonkit[app]'."
        ) from None
    from anonkit.app.serve import check_host, serve

    said_otherwise()  # on the Roles (leaks) and Explore (starred columns) pages
    bound, warning = check_host(host, explicit=host is not None)
    if warning is not None:
        typer.echo(f"warning: {warning}", err=True)
    shown = f"[{bound}]" if ":" in bound else bound
    typer.echo(f"anonkit app on http://{shown}:{port}/ (Ctrl-C stops it)")
    serve(data, host=bound, port=port, open_browser=not no_browser)
