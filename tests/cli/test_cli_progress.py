"""The delayed progress bar of the command line."""

from __future__ import annotations

import io

from rich.console import Console

from anonkit.cli.progress import ProgressReporter


def terminal() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, force_terminal=True, width=80), buf


def test_hidden_when_fast() -> None:
    console, buf = terminal()
    with ProgressReporter(delay=60, console=console) as bar:
        for i in range(10):
            bar(i, 10)
        bar(10, 10)
        assert not bar.shown
    assert buf.getvalue() == ""


def test_shown_after_delay_and_closed() -> None:
    console, buf = terminal()
    with ProgressReporter("Searching", delay=0, console=console) as bar:
        bar(1, 10)
        assert bar.shown
        bar(10, 10)
    assert not bar.shown
    assert "Searching" in buf.getvalue()


def test_disabled_and_non_terminal() -> None:
    buf = io.StringIO()
    plain = Console(file=buf, force_terminal=False)
    for bar in (
        ProgressReporter(delay=0, console=plain),
        ProgressReporter(delay=0, enabled=False, console=terminal()[0]),
    ):
        bar(1, 10)
        assert not bar.shown
        bar.close()
    assert buf.getvalue() == ""
