"""``anonkit reproduce EXPERIMENT``: re-run an experiment of the seed papers.

* ``mauger2020``: Figures 6 to 9 of Mauger, Le Mahec & Dequen (2020), seed 004
  (:mod:`anonkit.study.mauger2020`). Runs the grid with a progress bar, prints the
  side-by-side tables as Markdown and, with ``--output``, writes the Figure 9 plot, the
  CSV of every run and the results block of ``mauger2020.md`` into that folder.
* ``seed000``: seed 000's question, does a loss metric predict classifier accuracy
  (:mod:`anonkit.study.seed000`). Runs (or resumes) the Adult and synthetic studies into
  ``OUTPUT/seed000/`` and writes the figures and the results block of ``seed000.md``;
  ``--output`` is required.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from anonkit.cli.common import QuietOption, guarded, stdout_console
from anonkit.cli.interrupt import saying
from anonkit.cli.study import (
    StudyProgress,
    StudyProgressOption,
    interrupted_study,
    parse_k_list,
    study_progress,
)
from anonkit.exceptions import ParameterError, UnknownNameError

__all__ = ["EXPERIMENTS", "reproduce_command"]

#: The experiments ``anonkit reproduce`` knows.
EXPERIMENTS = ("mauger2020", "seed000")


def _names(text: str) -> tuple[str, ...]:
    names = tuple(p.strip() for p in text.split(",") if p.strip())
    if not names:
        raise ParameterError("--costs", "anonkit reproduce", "a comma-separated list", text)
    return names


@guarded
def reproduce_command(
    experiment: Annotated[
        str,
        typer.Argument(help="mauger2020 (seed 004, Figures 6-9) or seed000 (metrics vs accuracy)."),
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
    leaves: Annotated[
        str,
        typer.Option(
            "--leaves",
            help="Hierarchy leaves kept: hierarchy (every row of the files) or data (values "
            "that occur).",
        ),
    ] = "hierarchy",
    quiet: QuietOption = False,
    progress: StudyProgressOption = None,
) -> None:
    """Re-run a published experiment and print it beside the paper's numbers."""
    if experiment not in EXPERIMENTS:
        raise UnknownNameError("experiment", experiment, EXPERIMENTS)
    if experiment == "seed000":
        _seed000(output, workers, quiet, progress)
        return
    from anonkit.study import mauger2020

    options: dict[str, object] = {
        "small_class": small_class,
        "leaves": leaves,
        "workers": workers,
    }
    if k is not None:
        options["k_values"] = parse_k_list(k)
    if costs is not None:
        options["costs"] = _names(costs)
    with study_progress(progress, quiet) as bar:
        rep = mauger2020.reproduce(progress=bar, **options)  # type: ignore[arg-type]
    console = stdout_console(quiet)
    if output is not None:
        written = mauger2020.write_outputs(rep, output)
        console.print(rep.to_markdown(), markup=False, highlight=False, soft_wrap=True)
        console.print("wrote " + ", ".join(str(p) for p in written.values()), markup=False)
    else:
        console.print(rep.to_markdown(), markup=False, highlight=False, soft_wrap=True)


def _seed000(output: Path | None, workers: int | None, quiet: bool, shown: bool | None) -> None:
    if output is None:
        raise ParameterError(
            "--output", "anonkit reproduce seed000", "the folder of seed000.md", None
        )
    from anonkit.study import seed000

    console = stdout_console(quiet)
    bars: list[StudyProgress] = []

    def progress(name: str) -> StudyProgress:
        if bars:
            bars[-1].close()
        console.print(f"study: {name}")
        bars.append(study_progress(shown, quiet))
        return bars[-1]

    def kept() -> str:  # finished studies are cells in their caches too
        return interrupted_study(sum(bar.done for bar in bars), output / "seed000")

    try:
        with saying(kept):
            frames = seed000.reproduce(output, workers=workers, progress=progress)
    finally:
        for bar in bars:
            bar.close()
    page = seed000.write_outputs(frames, output)
    console.print(f"wrote {page}", markup=False)
