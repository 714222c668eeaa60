"""The ``anonkit`` typer application and its ``main()`` entry point.

Commands: ``anonymize`` (run a TOML configuration), ``check`` (measure a table's classes
and privacy levels), ``evaluate`` (loss, risk and privacy of a release against its
original, JSON and HTML), ``study`` (a utility study: metrics against classifier accuracy
over a grid of k and algorithms), ``reproduce`` (a published experiment beside its
numbers), ``release`` (the next release of a changing table, m-invariant or τ-safe),
``app`` (the local web application) and ``demo``.

Errors raised on purpose (:class:`~anonkit.exceptions.AnonkitError`) are printed as one
line ``error: <message>`` on stderr, and the process exits with the error's
``exit_code`` (1 for data or privacy problems, 2 for usage problems). Ctrl-C stops any
command with one line on stderr (``Interrupted; nothing was written.``, or the files
already written and what the command kept) and exit code 130; once the command has
finished, a late Ctrl-C or ``kill`` is ignored and the exit code is the command's own
(:mod:`anonkit.cli.interrupt`).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from anonkit.cli.anonymize import anonymize_command
from anonkit.cli.app import app_command
from anonkit.cli.check import check_command
from anonkit.cli.common import fail, quiet_when_stdout_closes
from anonkit.cli.demo import demo_command
from anonkit.cli.evaluate import evaluate_command
from anonkit.cli.init import init_command
from anonkit.cli.interrupt import run_command
from anonkit.cli.release import release_command
from anonkit.cli.reproduce import reproduce_command
from anonkit.cli.study import study_command
from anonkit.exceptions import AnonkitError

app = typer.Typer(
    name="anonkit",
    help="Privacy-preserving publishing of microdata: k-anonymity, fast.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from anonkit import __version__

        typer.echo(f"anonkit {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Privacy-preserving publishing of microdata: k-anonymity, fast."""


app.command("anonymize")(anonymize_command)
app.command("app")(app_command)
app.command("check")(check_command)
app.command("demo")(demo_command)
app.command("evaluate")(evaluate_command)
app.command("init")(init_command)
app.command("study")(study_command)
app.command("reproduce")(reproduce_command)
app.command("release")(release_command)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run the command line ``argv`` and exit.

    Ctrl-C: one line on stderr, exit code 130. The stop signals stay ignored after the
    command (:func:`~anonkit.cli.interrupt.run_command`), so call this as a process's
    entry point, not from a longer-lived one (use ``app`` there).
    """
    with quiet_when_stdout_closes():  # `anonkit --help | head -1`: exit 141, quietly
        run_command(lambda: _command_line(argv))


def _command_line(argv: list[str] | None) -> None:
    try:
        app(args=argv, prog_name="anonkit")
    except AnonkitError as err:  # safety net; commands already handle their errors
        try:
            raise fail(str(err), err.exit_code)
        except typer.Exit as exit_:
            sys.exit(exit_.exit_code)


if __name__ == "__main__":
    main()
