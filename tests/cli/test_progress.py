"""The command line's progress display: one rich display, one step at a time."""

from __future__ import annotations

import io
import time

import pytest
from rich.console import Console

from anonkit.cli.progress import ProgressReporter
from anonkit.progress import StagedProgress, start_stage


def terminal() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, force_terminal=True, color_system=None, width=100), buf


def test_is_a_staged_progress() -> None:
    assert isinstance(ProgressReporter(enabled=False), StagedProgress)


def test_counted_step_shows_a_bar_with_its_unit() -> None:
    console, buf = terminal()
    with ProgressReporter(delay=0, console=console) as bar:
        start_stage(bar, "Mondrian", "rounds")
        bar(3, 10)
        assert bar.shown
    out = buf.getvalue()
    assert "Mondrian" in out
    assert "3/10 rounds" in out
    assert "━" in out  # the bar


def test_uncounted_step_shows_a_spinner_and_elapsed_time() -> None:
    console, buf = terminal()
    with ProgressReporter(delay=0, console=console) as bar:
        start_stage(bar, "Reading")
        assert bar.shown
    out = buf.getvalue()
    assert "Reading" in out
    assert "0:00:0" in out  # elapsed time
    assert "━" not in out and "nodes" not in out  # no bar, no count


def test_one_display_follows_the_steps() -> None:
    console, buf = terminal()
    with ProgressReporter(delay=0, console=console) as bar:
        start_stage(bar, "Reading")
        first = bar._progress
        start_stage(bar, "Searching", "nodes")
        bar(5, 8)
        assert first is not None
        assert bar._progress is first  # the same display, not a second one
        assert len(first.tasks) == 1
        start_stage(bar, "Writing")
    out = buf.getvalue()
    for step in ("Reading", "Searching", "Writing"):
        assert step in out
    assert not bar.shown


def test_fast_steps_stay_invisible() -> None:
    console, buf = terminal()
    with ProgressReporter(delay=60, console=console) as bar:
        start_stage(bar, "Reading")
        start_stage(bar, "Searching", "nodes")
        for i in range(10):
            bar(i, 10)
        start_stage(bar, "Writing")
        assert not bar.shown
    assert buf.getvalue() == ""
    assert bar._timer is None  # no timer left behind


def test_a_silent_step_appears_after_the_delay() -> None:
    console, buf = terminal()
    with ProgressReporter(delay=0.05, console=console) as bar:
        start_stage(bar, "Reading")
        assert not bar.shown
        deadline = time.monotonic() + 5
        while not bar.shown and time.monotonic() < deadline:
            time.sleep(0.01)
        assert bar.shown
    assert "Reading" in buf.getvalue()


def test_a_finished_step_does_not_pop_up() -> None:
    console, buf = terminal()
    with ProgressReporter(delay=0, console=console) as bar:
        bar(10, 10)
        assert not bar.shown
    assert buf.getvalue() == ""


@pytest.mark.parametrize("terminal_console", [False, True])
def test_disabled_or_not_a_terminal_shows_nothing(terminal_console: bool) -> None:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=terminal_console)
    with ProgressReporter(delay=0, enabled=not terminal_console, console=console) as bar:
        start_stage(bar, "Reading")
        start_stage(bar, "Searching", "nodes")
        bar(1, 10)
        assert not bar.shown
    assert buf.getvalue() == ""


def test_force_draws_on_stderr_even_when_it_is_not_a_terminal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with ProgressReporter(delay=0, force=True) as bar:
        start_stage(bar, "Encoding")
        assert bar.shown
    captured = capsys.readouterr()
    assert "Encoding" in captured.err
    assert captured.out == ""


def test_plain_calls_keep_the_first_description() -> None:
    console, buf = terminal()
    with ProgressReporter("Study", unit="cells", delay=0, remaining=True, console=console) as bar:
        bar(2, 4)
    assert "Study" in buf.getvalue()
    assert "2/4 cells" in buf.getvalue()


def test_stdout_is_left_alone_while_shown(capsys: pytest.CaptureFixture[str]) -> None:
    with ProgressReporter(delay=0, force=True) as bar:
        start_stage(bar, "Writing")
        print("a,b")
    captured = capsys.readouterr()
    assert captured.out == "a,b\n"
    assert "a,b" not in captured.err


def test_forced_onto_a_log_it_writes_plain_lines() -> None:
    """--progress with stderr redirected wrote 22 KB of escape codes and spinner frames
    into the log of a 10-second run; a log gets one line per step and per interval."""
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=False)
    with ProgressReporter(delay=0, force=True, console=console, interval=3600) as bar:
        assert bar.plain
        start_stage(bar, "Reading data.csv")
        start_stage(bar, "Searching", "nodes")
        bar(1, 3502)
        bar(2, 3502)  # within the interval: no line
        bar.note("best loss 0.31")
        bar(3502, 3502)  # the step completes: a line
        start_stage(bar, "Writing")
    lines = buf.getvalue().splitlines()
    assert [line.split("] ", 1)[1] for line in lines] == [
        "Reading data.csv",
        "Searching",
        "Searching (best loss 0.31): 3,502/3,502 nodes (100%)",
        "Writing",
    ]
    assert all(line.startswith("[0:00:0") for line in lines)
    assert "\x1b" not in buf.getvalue() and "\r" not in buf.getvalue()


def test_plain_lines_come_every_interval_and_not_for_short_runs() -> None:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=False)
    with ProgressReporter(delay=60, force=True, console=console) as bar:
        start_stage(bar, "Reading")
        bar(1, 2)
    assert buf.getvalue() == ""
    with ProgressReporter(delay=0, force=True, console=console, interval=0) as bar:
        start_stage(bar, "Searching", "nodes")
        for i in range(3):
            bar(i, 10)
    assert buf.getvalue().count("/10 nodes") == 3


def test_a_log_hears_from_a_long_step_that_reports_nothing() -> None:
    """A study cell or a spinner step that makes no calls for a minute left the log
    silent that long: plain lines now come every interval while a step runs."""
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=False)
    with ProgressReporter(delay=0, force=True, console=console, interval=0.2) as bar:
        start_stage(bar, "Clustering")
        time.sleep(0.9)
    lines = buf.getvalue().splitlines()
    assert len(lines) >= 3 and all(line.endswith("] Clustering") for line in lines)
    time.sleep(0.5)  # closed: no more lines
    assert buf.getvalue().splitlines() == lines
