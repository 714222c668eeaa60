"""``anonkit reproduce EXPERIMENT``: re-run an experiment of the seed papers.

* ``mauger2020``: Mauger, Le Mahec & Dequen (2020), seed 004
  (:mod:`anonkit.study.mauger2020`). Without grid options it runs the study under many
  random orders of ``C(T)`` (``--quick``: a few orders), prints the answer and results
  and, with ``--output``, writes the plots, the CSV of every run and the answer and
  results blocks of ``mauger2020.md`` into that folder (``OUTPUT/mauger2020-quick/`` with
  ``--quick``, so that a quick run never replaces the full study's page), keeping finished runs in
  ``OUTPUT/mauger2020/cache`` so an interrupted study resumes. With ``--k``, ``--costs``,
  ``--order``, ``--seed``, ``--small-class``, ``--leaves`` or ``--no-fusion`` it runs
  one grid instead and prints it beside the paper's tables (``--output`` then writes the
  grid's plot and CSV and the results block of ``mauger2020.md``).
* ``seed000``: seed 000's question, does a loss metric predict classifier accuracy
  (:mod:`anonkit.study.seed000`). Runs (or resumes) the Adult, credit-card and synthetic
  studies into ``OUTPUT/seed000/`` (``OUTPUT/seed000-quick/`` with ``--quick``) and writes
  the figures and the answer and results blocks of ``OUTPUT/seed000.md``
  (``OUTPUT/seed000-quick/seed000.md`` with ``--quick``); ``--output`` is required.
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
        typer.Option(
            "--output",
            "-o",
            help="Folder for the page (mauger2020.md or seed000.md), its plots and CSV files.",
        ),
    ] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", "-w", min=1, help="Processes (default: the cores).")
    ] = None,
    k: Annotated[
        str | None,
        typer.Option(
            "--k", "-k", help="Requested k, comma-separated (default: the paper's 21 values)."
        ),
    ] = None,
    costs: Annotated[
        str | None,
        typer.Option(
            "--costs", help="Optimizations, comma-separated (default: the paper's 7 costs)."
        ),
    ] = None,
    small_class: Annotated[
        str, typer.Option("--small-class", help="How C_small is chosen: first, smallest or queue.")
    ] = "first",
    leaves: Annotated[
        str,
        typer.Option(
            "--leaves",
            help="Hierarchy leaves kept: hierarchy (every row of the files), data (values "
            "that occur) or range (integer leaves within the data's span: age 17-90).",
        ),
    ] = "hierarchy",
    order: Annotated[
        str,
        typer.Option("--order", help="How C(T) is listed: codes (group-by order) or random."),
    ] = "codes",
    seed: Annotated[
        int, typer.Option("--seed", min=0, help="Seed of --order random (default 0).")
    ] = 0,
    no_fusion: Annotated[
        bool,
        typer.Option("--no-fusion", help="Do not fuse classes that come to share values."),
    ] = False,
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help="The small version of the study (mauger2020: a few orders; seed000: fewer "
            "splits and cells), minutes instead of an hour.",
        ),
    ] = False,
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            help="seed000: the folder holding the datasets (adult/, highdim/; default: "
            "$ANONKIT_SHARED_DATA, else ../shared/data).",
        ),
    ] = None,
    quiet: QuietOption = False,
    progress: StudyProgressOption = None,
) -> None:
    """Re-run a published experiment (mauger2020 or seed000) beside the paper's numbers."""
    if experiment not in EXPERIMENTS:
        raise UnknownNameError("experiment", experiment, EXPERIMENTS)
    grid_options: dict[str, tuple[object, object]] = {  # option: (value, default)
        "--k": (k, None),
        "--costs": (costs, None),
        "--order": (order, "codes"),
        "--seed": (seed, 0),
        "--small-class": (small_class, "first"),
        "--leaves": (leaves, "hierarchy"),
        "--no-fusion": (no_fusion, False),
    }
    given = {name: value for name, (value, default) in grid_options.items() if value != default}
    if experiment == "seed000":
        _refuse(given, "seed000", "an option of mauger2020; seed000 runs its fixed design")
        _seed000(output, workers, quick, data, quiet, progress)
        return
    _refuse({} if data is None else {"--data": str(data)}, "mauger2020", "an option of seed000")
    from anonkit.study import mauger2020

    if not given:
        _mauger_study(output, workers, quick, quiet, progress)
        return
    if quick:
        raise ParameterError(
            "--quick",
            "anonkit reproduce mauger2020",
            "no grid option (--k, --costs, --order, ...): --quick is for the study",
            True,
        )
    options: dict[str, object] = {
        "small_class": small_class,
        "leaves": leaves,
        "order": order,
        "seed": seed,
        "fuse": not no_fusion,
        "workers": workers,
    }
    if k is not None:
        options["k_values"] = parse_k_list(k, "anonkit reproduce mauger2020")
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


def _refuse(options: dict[str, object], experiment: str, why: str) -> None:
    """Options that the experiment does not read are an error, not ignored."""
    if options:
        name, value = next(iter(options.items()))
        raise ParameterError(name, "anonkit reproduce", f"left out for {experiment} ({why})", value)


def _mauger_study(
    output: Path | None, workers: int | None, quick: bool, quiet: bool, shown: bool | None
) -> None:
    from anonkit.study import mauger2020

    design = mauger2020.QUICK if quick else mauger2020.FULL
    cache = None if output is None else output / "mauger2020" / "cache"
    console = stdout_console(quiet)
    bar = study_progress(shown, quiet)
    with bar:
        if cache is None:
            study = mauger2020.run_study(design, workers=workers, progress=bar)
        else:
            folder = cache
            with saying(lambda: interrupted_study(bar.done, folder)):
                study = mauger2020.run_study(design, workers=workers, cache=cache, progress=bar)
    if output is not None:
        # a quick run's page beside the full study's, never over it
        page = output / "mauger2020-quick" if quick else output
        written = mauger2020.write_study_outputs(study, page)
        console.print(f"wrote {written['markdown']} and {len(written) - 1} files", markup=False)
    else:
        text = study.answer_markdown() + "\n\n" + study.to_markdown()
        console.print(text, markup=False, highlight=False, soft_wrap=True)


def _seed000(
    output: Path | None,
    workers: int | None,
    quick: bool,
    data: Path | None,
    quiet: bool,
    shown: bool | None,
) -> None:
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
            frames = seed000.reproduce(
                output, workers=workers, progress=progress, quick=quick, data=data
            )
    finally:
        for bar in bars:
            bar.close()
    page = seed000.write_outputs(frames, seed000.page_folder(output, quick))
    console.print(f"wrote {page}", markup=False)
