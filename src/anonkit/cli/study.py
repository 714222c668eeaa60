"""``anonkit study CONFIG.toml``: run a utility study and summarize it.

Runs the grid of a study configuration (:class:`anonkit.study.config.StudyConfig`) with
:func:`anonkit.study.runner.run_study`: a progress bar while the cells run, then a short
summary (cells, wall time, the time per stage, the best cell per classifier). The tidy
results, the study's settings and timings and the HTML report are written to the output
folder; nothing printed or written holds a record.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from anonkit.cli.common import QuietOption, guarded, stdout_console
from anonkit.cli.interrupt import saying
from anonkit.cli.progress import ProgressReporter
from anonkit.exceptions import DataError, ParameterError, SuppressedColumnWarning

if TYPE_CHECKING:
    from anonkit.study.runner import StudyResult

__all__ = [
    "PROGRESS_HELP",
    "StudyProgressOption",
    "StudyProgress",
    "column_notes",
    "interrupted_study",
    "parse_k_list",
    "study_progress",
    "study_command",
]

#: Help of ``--progress/--no-progress`` (``study`` and ``reproduce``).
PROGRESS_HELP = (
    "Draw the progress of the cells on stderr even when it is not a terminal, or never "
    "(default: on a terminal, unless --quiet)."
)

#: ``--progress/--no-progress`` of ``study`` and ``reproduce`` (read by :func:`study_progress`).
StudyProgressOption = Annotated[
    bool | None, typer.Option("--progress/--no-progress", help=PROGRESS_HELP)
]


def parse_k_list(text: str, command: str = "anonkit study") -> tuple[int, ...]:
    """The k values of ``--k 2,5,10`` (an error names ``command``).

    Examples
    --------
    >>> parse_k_list("2, 5,10")
    (2, 5, 10)
    """
    parts = [p.strip() for p in text.split(",") if p.strip()]
    try:
        values = tuple(int(p) for p in parts)
    except ValueError:
        values = ()
    if not values or any(v < 1 for v in values):
        raise ParameterError("--k", command, "a comma-separated list of ints >= 1", text)
    return values


class StudyProgress(ProgressReporter):
    """``progress(done, total)`` callback drawing a rich bar of finished cells.

    Shown on stderr when it is a terminal (or ``force``), from the first call on: a study
    takes minutes, and the cells found in the cache count as done at once. ``done`` keeps
    the last count (drawn or not), which an interrupted study reports.
    """

    def __init__(
        self, *, enabled: bool = True, force: bool = False, console: Console | None = None
    ) -> None:
        super().__init__(
            "Study",
            unit="cells",
            delay=0.0,
            remaining=True,
            enabled=enabled,
            force=force,
            console=console,
        )
        self.done = 0

    def __call__(self, done: int, total: int) -> None:
        self.done = done
        super().__call__(done, total)


def study_progress(progress: bool | None, quiet: bool) -> StudyProgress:
    """The display of ``--progress/--no-progress`` (``None``: on a terminal unless
    ``--quiet``; an explicit ``--progress`` draws even on a pipe and wins over ``--quiet``).

    Examples
    --------
    >>> bar = study_progress(False, False)
    >>> bar.enabled
    False
    """
    if progress is None:
        return StudyProgress(enabled=not quiet)
    return StudyProgress(enabled=progress, force=progress)


def interrupted_study(cells: int, cache: Path) -> str:
    """The line printed when Ctrl-C stops a study after ``cells`` finished cells.

    Examples
    --------
    >>> interrupted_study(12, Path("out/cache"))
    'Interrupted; 12 finished cells are kept in out/cache and a rerun resumes from them.'
    >>> interrupted_study(1, Path("out/cache"))
    'Interrupted; 1 finished cell is kept in out/cache and a rerun resumes from it.'
    >>> interrupted_study(0, Path("out/cache"))
    'Interrupted; no cell had finished and nothing was written.'
    """
    if cells == 0:
        return "Interrupted; no cell had finished and nothing was written."
    are, them = ("cell is", "it") if cells == 1 else ("cells are", "them")
    return f"Interrupted; {cells:,} finished {are} kept in {cache} and a rerun resumes from {them}."


@contextlib.contextmanager
def column_notes(quiet: bool) -> Iterator[None]:
    """Show the study's :class:`~anonkit.exceptions.SuppressedColumnWarning` (a
    quasi-identifier without a hierarchy, warned before the cells) as a ``note:`` line
    on stderr, as ``anonymize`` does, instead of Python's warning format; nothing with
    ``quiet``. Other warnings are shown as usual."""
    notes = Console(stderr=True, quiet=quiet, highlight=False)
    shown = warnings.showwarning

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if issubclass(category, SuppressedColumnWarning):
            notes.print(f"note: {message}", markup=False)
        else:
            shown(message, category, filename, lineno, file, line)

    with warnings.catch_warnings():
        warnings.simplefilter("always", SuppressedColumnWarning)
        warnings.showwarning = show
        yield


def _seconds(value: float) -> str:
    if value >= 3600:
        return f"{value / 3600:.1f} h"
    if value >= 120:
        return f"{value / 60:.1f} min"
    return f"{value:.1f} s"


def summary_tables(result: StudyResult) -> list[Table]:
    """The study's overview and its best cell per classifier (figures only)."""
    table = Table(title="Study summary", show_header=False, title_justify="left")
    table.add_column("item", style="bold")
    table.add_column("value")
    cfg = result.config
    table.add_row("dataset", escape(f"{cfg.name} (target {cfg.target})"))
    table.add_row(
        "cells",
        f"{result.cells_total:,} ({result.cells_computed:,} computed, "
        f"{result.cells_cached:,} from the cache, {result.cells_failed:,} failed)",
    )
    table.add_row("rows", f"{result.frame.height:,}")
    table.add_row("wall time", f"{_seconds(result.timing['wall'])} ({cfg.n_workers} workers)")
    stages = ("anonymize", "metrics", "utility")
    busy = sum(result.timing[s] for s in stages)
    split = ", ".join(
        f"{s} {_seconds(result.timing[s])} ({result.timing[s] / busy:.0%})" if busy else s
        for s in stages
    )
    table.add_row("time per stage", f"{split} (summed over cells)")
    for name, path in result.paths.items():
        table.add_row(name, escape(str(path)))

    best = Table(title="Best cell per classifier (anonymized test)", title_justify="left")
    for column in ("classifier", "cell", "k", "accuracy", "baseline", "drop"):
        # names wrap whole on a narrow terminal instead of losing their end to an ellipsis
        text = column in ("classifier", "cell")
        best.add_column(
            column, justify="left" if text else "right", overflow="fold" if text else "ellipsis"
        )
    import polars as pl

    original = result.frame.filter((pl.col("algorithm") == "original") & (pl.col("status") == "ok"))
    baselines = {
        str(c): float(a)
        for c, a in original.group_by("classifier").agg(pl.col("accuracy").mean()).iter_rows()
    }
    for row in result.best_cells().iter_rows(named=True):
        base = baselines.get(str(row["classifier"]))
        best.add_row(
            escape(str(row["classifier"])),
            escape(str(row["cell"])),
            f"{row['k']:,}",
            f"{row['accuracy']:.4f}",
            f"{base:.4f}" if base is not None else "n/a",
            f"{row['accuracy_drop']:+.4f}",
        )
    return [table, best]


@guarded
def study_command(
    config: Annotated[
        Path, typer.Argument(help="The study's TOML configuration.", metavar="CONFIG.toml")
    ],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Output folder; overrides 'output'."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-w", min=1, help="Processes (default: 'workers' or the cores)."),
    ] = None,
    no_cache: Annotated[
        bool,
        typer.Option("--no-cache", help="Recompute every cell instead of reading the cache."),
    ] = False,
    k: Annotated[
        str | None,
        typer.Option(
            "--k", "-k", help="Requested k, comma-separated (e.g. 2,5,10); overrides 'k'."
        ),
    ] = None,
    quiet: QuietOption = False,
    progress: StudyProgressOption = None,
) -> None:
    """Run the utility study of CONFIG.toml: anonymize, measure and score every cell.

    Ctrl-C stops it at once; the finished cells stay in the cache and a rerun resumes.
    """
    from anonkit.study.config import OWNER, StudyConfig
    from anonkit.study.config_file import toml_error
    from anonkit.study.outputs import check_outputs
    from anonkit.study.runner import run_study

    cfg = StudyConfig.from_toml(config)
    changes: dict[str, object] = {}
    if output is not None:
        changes["output"] = output
    if workers is not None:
        changes["workers"] = workers
    if k is not None:
        changes["k_values"] = parse_k_list(k)
    if changes:
        cfg = cfg.replace(**changes)
    check_outputs(cfg, [config])  # the study's own checks do not know the configuration file
    start = time.perf_counter()
    bar = study_progress(progress, quiet)
    with bar, column_notes(quiet):  # the notes come before the bar's first draw
        cache = cfg.cache_folder
        with saying(lambda: interrupted_study(bar.done, cache)):
            try:
                result = run_study(cfg, progress=bar, use_cache=not no_cache)
            except ParameterError as err:
                # a setting the data cannot meet (a sample larger than the table): told
                # as the key of the file, unless an option of the command set it
                if err.owner != OWNER or err.parameter in changes:
                    raise
                raise toml_error(err, config.resolve(), OWNER) from err
    if result.cells_failed == result.cells_total:
        first = str(result.frame["status"][0]) if result.frame.height else "no cell ran"
        raise DataError(f"Every cell of the study failed; the first says: {first}")
    console = stdout_console(quiet)
    for table in summary_tables(result):
        console.print(table)
    if result.cells_failed:
        failed = result.frame.filter(result.frame["status"] != "ok")
        first = escape(str(failed["status"][0]))
        console.print(
            f"note: {result.cells_failed} cell(s) failed (status column of results.csv); "
            f"for example: {first}"
        )
    console.print(f"done in {_seconds(time.perf_counter() - start)}")
