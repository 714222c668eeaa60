"""``anonkit reproduce mauger2020``: re-run a published experiment next to its numbers.

Today one experiment is known: Figures 6 to 9 of Mauger, Le Mahec & Dequen (2020), seed
004 (:mod:`anonkit.study.mauger2020`). The command runs the grid with a progress bar,
prints the side-by-side tables as Markdown and, with ``--output``, writes the Figure 9 plot,
the CSV of every run and the results block of ``mauger2020.md`` into that folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from anonkit.cli.common import guarded, stdout_console
from anonkit.cli.study import StudyProgress, parse_k_list
from anonkit.exceptions import ParameterError, UnknownNameError

__all__ = ["EXPERIMENTS", "reproduce_command"]

#: The experiments ``anonkit reproduce`` knows.
EXPERIMENTS = ("mauger2020",)


def _names(text: str) -> tuple[str, ...]:
    names = tuple(p.strip() for p in text.split(",") if p.strip())
    if not names:
        raise ParameterError("--costs", "anonkit reproduce", "a comma-separated list", text)
    return names


@guarded
def reproduce_command(
    experiment: Annotated[
        str, typer.Argument(help="The experiment: mauger2020 (seed 004, Figures 6-9).")
    ],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Folder for the plot, the CSV and mauger2020.md."),
    ] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", "-w", min=1, help="Processes (default: the cores).")
    ] = None,
    k: Annotated[
        str | None, typer.Option("--k", "-k", help="Requested k, comma-separated (default: 21).")
    ] = None,
    costs: Annotated[
        str | None, typer.Option("--costs", help="Optimizations, comma-separated (default: 7).")
    ] = None,
    small_class: Annotated[
        str, typer.Option("--small-class", help="How C_small is chosen: first or smallest.")
    ] = "first",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")] = False,
) -> None:
    """Re-run a published experiment and print it beside the paper's numbers."""
    if experiment not in EXPERIMENTS:
        raise UnknownNameError("experiment", experiment, EXPERIMENTS)
    from anonkit.study import mauger2020

    options: dict[str, object] = {"small_class": small_class, "workers": workers}
    if k is not None:
        options["k_values"] = parse_k_list(k)
    if costs is not None:
        options["costs"] = _names(costs)
    with StudyProgress(enabled=not quiet) as bar:
        rep = mauger2020.reproduce(progress=bar, **options)  # type: ignore[arg-type]
    console = stdout_console(quiet)
    if output is not None:
        written = mauger2020.write_outputs(rep, output)
        console.print(rep.to_markdown(), markup=False, highlight=False, soft_wrap=True)
        console.print("wrote " + ", ".join(str(p) for p in written.values()), markup=False)
    else:
        console.print(rep.to_markdown(), markup=False, highlight=False, soft_wrap=True)
