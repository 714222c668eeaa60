"""Helpers shared by the subcommands: error handling, common options, the progress display
and the summary table.

A closed stdout (``anonkit ... | head -1``) ends a command quietly with exit code
:data:`STDOUT_CLOSED`, following Python's note on SIGPIPE
(https://docs.python.org/3/library/signal.html#note-on-sigpipe): stdout is pointed at
:data:`os.devnull` (so the interpreter's last flush stays quiet) and the process exits. Files
are written atomically, so none is left half-written, and those finished before the pipe
closed are kept.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import os
import select
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, TypeVar

import polars as pl
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from anonkit._atomic import CommitLog
from anonkit._interrupts import signalled
from anonkit.cli.interrupt import written_note
from anonkit.cli.progress import ProgressReporter
from anonkit.engines.spark_session import worker_problem
from anonkit.exceptions import (
    POPULATION_TABLE,
    SHOW_ERRORS,
    AnonkitError,
    LeakWarning,
    SuppressedColumnWarning,
)
from anonkit.metric_info import percent_label
from anonkit.result import AnonymizationResult

F = TypeVar("F", bound=Callable[..., Any])

#: ``--quiet/-q`` of the commands that print results.
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")]


def said_otherwise() -> None:
    """Keep the API's warnings about a release (:class:`LeakWarning`,
    :class:`SuppressedColumnWarning`) off the terminal of a command that says the same its
    own way (``anonymize``'s notes after the summary, the app's pages)."""
    warnings.filterwarnings("ignore", category=LeakWarning)
    warnings.filterwarnings("ignore", category=SuppressedColumnWarning)


def separator_option(value: str | None) -> str | None:
    """A separator as a shell passes it: ``\\t`` or ``tab`` is a tab, as ``"\\t"`` is in
    TOML (a tab is awkward to type in a shell)."""
    return "\t" if value in ("\\t", "tab") else value


#: ``--separator`` of the commands that read a table without a configuration's ``[read]``.
SeparatorOption = Annotated[
    str | None,
    typer.Option(
        "--separator",
        help="CSV separator (detected if omitted); \\t or tab for a tab.",
        callback=separator_option,
    ),
]

#: ``--encoding`` of the commands that read a table without a configuration's ``[read]``.
EncodingOption = Annotated[
    str,
    typer.Option(
        "--encoding", help='The table\'s encoding, e.g. "latin-1" (undecodable bytes are an error).'
    ),
]

#: ``--progress/--no-progress`` of the commands that read, measure and write tables (read by
#: :func:`progress_reporter`).
ProgressOption = Annotated[
    bool | None,
    typer.Option(
        "--progress/--no-progress",
        help="Show progress on stderr (default: only when stderr is a terminal; "
        "--progress into a log writes plain lines).",
        show_default=False,
    ),
]


def progress_reporter(progress: bool | None, *, quiet: bool = False) -> ProgressReporter:
    """The display of :data:`ProgressOption`: on a terminal unless ``quiet``; an explicit
    ``--progress`` draws even on a pipe, ``--no-progress`` or ``quiet`` never draws.

    Examples
    --------
    >>> progress_reporter(None, quiet=True).enabled, progress_reporter(False).enabled
    (False, False)
    """
    return ProgressReporter(
        "Reading", enabled=not quiet and progress is not False, force=bool(progress)
    )


def one_line(message: str) -> str:
    """``message`` on a single line, ending with a full stop."""
    text = " ".join(str(message).split())
    return text if text.endswith((".", "!", "?")) else text + "."


#: Exit code of a command whose stdout closed before it had printed everything: 128 +
#: SIGPIPE, the status a shell reports for a Unix tool that a closed pipe stopped (``yes |
#: head -1``), so ``set -o pipefail`` treats anonkit like any other tool. Not 0: output
#: was lost, and the command may have stopped before writing its later files. Not 1 or 2:
#: those say a data or privacy problem and a usage problem.
STDOUT_CLOSED = 141


def _stdout_gone() -> bool:
    """Whether stdout is a pipe whose reader has gone (poll reports an error on it)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(event & select.POLLERR for _, event in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll (Windows), no file descriptor
        return False


def _is_devnull(fd: int) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(os.devnull))
    except OSError:
        return False


def stdout_closed() -> SystemExit:
    """Point stdout at :data:`os.devnull`, so that nothing more written to it (the
    interpreter's last flush included) fails, and return the quiet exit to raise
    (:data:`STDOUT_CLOSED`)."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)
    return SystemExit(STDOUT_CLOSED)


@contextlib.contextmanager
def quiet_when_stdout_closes() -> Iterator[None]:
    """Around a whole command line: a closed stdout ends it with :func:`stdout_closed`
    instead of a traceback or the exit code 1 that click and rich give it (rich's
    :meth:`Console.on_broken_pipe` points stdout at :data:`os.devnull` and exits 1: typer's
    ``--help`` goes that way)."""
    was_devnull = _is_devnull(1)
    try:
        yield
    except BrokenPipeError:
        if not _stdout_gone():
            raise
        raise stdout_closed() from None
    except SystemExit as exit_:
        if exit_.code != 1:
            raise
        if _stdout_gone() or (not was_devnull and _is_devnull(1)):
            raise stdout_closed() from None
        raise


@contextlib.contextmanager
def naming_population(path: Path | None) -> Iterator[None]:
    """Errors about the population table (whose ``table`` is
    :data:`~anonkit.exceptions.POPULATION_TABLE`) name its file ``path`` too, as
    ``the population table pop.csv``: the API, handed a frame, cannot."""
    try:
        yield
    except AnonkitError as err:
        said = f"the {POPULATION_TABLE}"
        text = str(err)
        # once only: a column or value spelled so would leave the message ambiguous
        if path is None or getattr(err, "table", "") != POPULATION_TABLE or text.count(said) != 1:
            raise
        named = copy.copy(err)  # the same class and attributes (AnonkitError.__reduce__)
        named.args = (text.replace(said, f"{said} {path}"),)
        vars(named)["table"] = f"{POPULATION_TABLE} {path}"
        raise named from None


def fail(message: str, code: int, written: Sequence[Path] = ()) -> typer.Exit:
    """Print ``error: <message>`` on stderr, followed by the files already ``written``
    (:func:`~anonkit.cli.interrupt.written_note`), and return the exit to raise."""
    typer.echo(f"error: {one_line(message)}{written_note(written)}", err=True)
    return typer.Exit(code)


def _untold(what: str, err: BaseException, written: Sequence[Path] = ()) -> typer.Exit:
    """The one line for another library's error: its message can quote the data it
    stopped on, and records are never printed (``ANONKIT_SHOW_ERRORS=1`` shows it)."""
    return fail(
        f"{what} ({type(err).__name__}); its message is not shown, as it can quote "
        f"records: set {SHOW_ERRORS}=1 to see it",
        1,
        written,
    )


def guarded(func: F) -> F:
    """Turn :class:`AnonkitError`, I/O errors, polars' and Spark's errors (their kind
    only: their messages can quote records) into one line on stderr and an exit code; a
    Spark job whose Python workers cannot run anonkit says what to set
    (:func:`~anonkit.engines.spark_session.worker_problem`)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        # the files the command renamed into place before it failed are named after the
        # error: a release already replaced is news to whoever reads "error"
        with CommitLog() as log:
            try:
                return func(*args, **kwargs)
            except AnonkitError as err:
                raise fail(str(err), err.exit_code, log.paths) from None
            except OSError as err:
                if isinstance(err, BrokenPipeError) and _stdout_gone():
                    raise stdout_closed() from None  # no message: nobody is reading
                # a rename names the user's path second (the first is the temporary file)
                name = getattr(err, "filename2", None) or getattr(err, "filename", None)
                where = f"{name}: " if name else ""
                line = f"Cannot write or read {where}{err.strerror or err}"
                raise fail(line, 1, log.paths) from None
            except pl.exceptions.PolarsError as err:
                if os.environ.get(SHOW_ERRORS):
                    raise
                raise _untold("polars stopped on the data", err, log.paths) from None
            except Exception as err:
                if not type(err).__module__.startswith(("pyspark.", "py4j.")):
                    raise
                stop = signalled(err)  # a stop signal that broke a call into the JVM
                if stop is not None:
                    raise stop from None
                problem = worker_problem(err)
                if problem is not None:  # the setup, not the data: what to set
                    raise fail(problem, 2) from None
                if os.environ.get(SHOW_ERRORS):
                    raise
                raise _untold("Spark stopped", err, log.paths) from None

    return wrapper  # type: ignore[return-value]


class _StdoutConsole(Console):
    """A console on stdout whose closing ends the command quietly (:func:`stdout_closed`),
    not with rich's exit code 1."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise stdout_closed()


def stdout_console(quiet: bool = False) -> Console:
    """The console of a command's results; a closed stdout exits :data:`STDOUT_CLOSED`."""
    return _StdoutConsole(quiet=quiet, highlight=False)


def _fmt(value: float) -> str:
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.4f}" if abs(value) < 1e6 else f"{value:,.4g}"


def _count(n: int, noun: str, plural: str = "") -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1: ``"1 cut"``, ``"1,840 cuts"``."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {plural or noun + 's'}"


def _local_rows(details: Mapping[str, Any]) -> list[tuple[str, str]] | None:
    """What a local recoding did, from ``result.details``; ``None`` for other results."""
    if "mondrian" in details:
        d = details["mondrian"]
        rounds = f" in {_count(d['rounds'], 'round')}" if "rounds" in d else ""
        return [
            (
                "recoding",
                f"local: Mondrian, {d['mode']} mode, split {d['split']}, "
                f"numbers as {d['numeric_release']}",
            ),
            (
                "partitioning",
                f"{_count(d['partitions'], 'partition')} from {_count(d['cuts'], 'cut')}{rounds}"
                if "partitions" in d
                else f"{_count(d['blocks'], 'block')} on Spark (largest {d['largest_block']:,} "
                f"records, at most {d['max_block_records']:,} per task)",
            ),
        ]
    if "greedy_merge" in details:
        d = details["greedy_merge"]
        return [
            (
                "recoding",
                f"local: greedy merging, cost {d['cost']}, small class {d['small_class']}",
            ),
            (
                "merging",
                f"{_count(d['n_merges'], 'merge')} ({d['n_fused']:,} fused), "
                f"{d['n_initial_classes']:,} → {_count(d['n_classes'], 'class', 'classes')}, "
                f"effective k {d['effective_k']:,}",
            ),
        ]
    if "microaggregation" in details:
        d = details["microaggregation"]
        aggregates = ", ".join(dict.fromkeys(d["aggregates"].values()))
        return [
            ("recoding", f"local: microaggregation, {d['method']}, {aggregates}"),
            (
                "grouping",
                f"{_count(d['n_groups'], 'group')} of {d['min_group_size']:,}-"
                f"{d['max_group_size']:,} records",
            ),
        ]
    return None


def _metrics(result: AnonymizationResult) -> Text:
    """The metrics, one a line; when none was measured, why (the result's ``loss`` note),
    never an empty row."""
    if result.metrics:
        return Text("\n".join(f"{name} = {_fmt(v)}" for name, v in result.metrics.items()))
    why = result.details.get("loss")
    return Text(str(why) if why else "not measured: run anonkit evaluate on the release")


def summary_table(
    result: AnonymizationResult, *, heights: Mapping[str, int] | None = None
) -> Table:
    """A rich table summarizing ``result`` (never any records)."""
    table = Table(title="Anonymization summary", show_header=False, title_justify="left")
    table.add_column("item", style="bold", overflow="fold")
    table.add_column("value", overflow="fold")
    # values that name columns are Text: rich reads '[kg]' in 'weight [kg]' as markup
    table.add_row("privacy", Text("; ".join(result.privacy)))
    table.add_row("algorithm / metric", f"{result.algorithm} / {result.metric}")
    # a local recoding has no transformation and no lattice: say what it did instead
    local = _local_rows(result.details) if not result.transformation else None
    if local is not None:
        table.add_row(*local[0])
    else:
        levels = []
        for column, level in result.transformation.items():
            top = f"/{heights[column] - 1}" if heights and column in heights else ""
            levels.append(f"{column}={level}{top}")
        table.add_row("transformation", Text(", ".join(levels)))
    table.add_row("records", f"{result.n_records:,}")
    table.add_row(
        "suppressed",
        f"{result.suppressed:,} ({result.suppressed_share:.2%}, limit "
        f"{result.suppression_limit:.2%})",
    )
    c = result.classes
    table.add_row(
        "classes", f"{c.n_classes:,} (sizes {c.min_size:,}-{c.max_size:,}, mean {c.mean_size:,.1f})"
    )
    table.add_row("achieved k", f"{c.min_size:,}")
    table.add_row("metrics", _metrics(result))
    if local is not None:
        table.add_row(*local[1])
    else:
        note = result.search_note
        searched = f"{result.nodes_evaluated:,} of {result.lattice_size:,} nodes evaluated"
        table.add_row("search", Text(searched if note is None else f"{searched}\n{note}"))
    table.add_row("timing", ", ".join(f"{k} {v:.3f}s" for k, v in result.timing.items()))
    return table


def risk_table(result: AnonymizationResult) -> Table:
    """The release's re-identification risk, its independent check and the leak check."""
    table = Table(title="Re-identification risk", show_header=False, title_justify="left")
    table.add_column("item", style="bold", overflow="fold")
    table.add_column("value", overflow="fold")
    r = result.risk

    def share(key: str) -> str:
        value = r.get(key)
        return "needs a population table" if value is None else f"{float(value):.2%}"

    table.add_row(
        "prosecutor risk",
        f"highest {share('prosecutor_max')}, average {share('prosecutor_average')}",
    )
    table.add_row("journalist risk", share("journalist_max"))
    table.add_row("marketer risk", share("marketer"))
    threshold = float(r.get("risk_threshold") or 0.2)
    table.add_row(f"records at risk (> {percent_label(threshold)})", share("records_at_risk"))
    table.add_row("sample uniques", f"{int(r.get('sample_uniques') or 0):,}")
    table.add_row(
        "verified",
        "yes: classes recounted from the release, every model judged again"
        if result.verified
        else "no",
    )
    checks = result.checks
    leak = "on" if checks.get("leak_check", True) else "SKIPPED"
    n_warn = len(checks.get("leak_warnings", ()))
    table.add_row("leak check", f"{leak}, {n_warn} warning(s)" if leak == "on" else leak)
    dropped = checks.get("dropped_undeclared", ())
    if dropped:
        table.add_row("dropped (no role)", ", ".join(dropped))
    return table
