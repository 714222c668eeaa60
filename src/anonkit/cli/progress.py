"""One progress display for a whole run, invisible for short ones: a live rich display on
a terminal, plain lines in a log (``--progress`` with stderr redirected)."""

from __future__ import annotations

import threading
import time
from types import TracebackType
from typing import IO

from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class _Activity(ProgressColumn):
    """A bar for a step that counts its work, a spinner for one that does not."""

    def __init__(self) -> None:
        super().__init__()
        self._bar = BarColumn()
        self._spinner = SpinnerColumn()

    def render(self, task: Task) -> RenderableType:
        if task.fields.get("unit"):
            return self._bar.render(task)
        return self._spinner.render(task)


class _Count(ProgressColumn):
    """``done/total unit`` of a counted step; nothing for the others."""

    def render(self, task: Task) -> Text:
        unit = str(task.fields.get("unit", ""))
        if not unit:
            return Text("")
        total = "?" if task.total is None else f"{int(task.total):,}"
        return Text(f"{int(task.completed):,}/{total} {unit}", style="progress.download")


class _Remaining(TimeRemainingColumn):
    """The time left of a counted step; nothing for the others."""

    def render(self, task: Task) -> Text:
        return super().render(task) if task.fields.get("unit") else Text("")


class ProgressReporter:
    """``progress(done, total)`` callback drawing one rich display once ``delay`` passed.

    It implements :class:`anonkit.progress.StagedProgress`: :meth:`stage` starts a step
    (reading, encoding, searching, ...) and the display shows that step. A step with a
    ``unit`` shows a bar with ``done/total unit``; a step without one shows a spinner with
    the step's elapsed time. Use as a context manager so the display is always closed::

        with ProgressReporter("Searching") as bar:
            anonymize(..., progress=bar)

    Nothing is shown when ``enabled`` is false, when stderr is not a terminal (unless
    ``force``), or when the whole run finishes within ``delay`` seconds. With ``force`` on
    a stderr that is not a terminal (a log file, a CI job), the display is plain lines
    instead, without escape codes: one line as each step starts, one every ``interval``
    seconds while it runs, and for a counted step one when it completes (``[0:00:12]
    Searching: 1,200/3,502 nodes (34%)``). ``description`` and ``unit`` name the work counted
    by calls made before any :meth:`stage` (lattice nodes, study cells); ``remaining``
    adds an estimate of the time left to counted steps. The display is transient: it is
    erased when closed, and it never writes to stdout.
    """

    def __init__(
        self,
        description: str = "Searching",
        *,
        unit: str = "nodes",
        delay: float = 1.0,
        remaining: bool = False,
        enabled: bool = True,
        force: bool = False,
        console: Console | None = None,
        interval: float = 10.0,
    ) -> None:
        self.description = description
        self.unit = unit
        self.remaining = remaining
        self.delay = delay
        self.interval = interval
        if console is None:
            console = Console(stderr=True)
        #: Plain lines rather than a live display: forced onto a stream that is no terminal.
        self.plain = force and not console.is_terminal
        self.console = console
        self.enabled = enabled and (force or self.console.is_terminal)
        self._log: IO[str] | None = None
        self._logged = 0.0
        self._lock = threading.RLock()
        self._start = time.monotonic()
        self._stage_start = self._start
        self._counts: tuple[int, int] | None = None
        self._timer: threading.Timer | None = None
        self._closed = threading.Event()
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._note = ""

    @property
    def shown(self) -> bool:
        """Whether the display is on screen (for plain lines: whether they have begun)."""
        return self._progress is not None or self._log is not None

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        with self._lock:
            before = self._counts
            self._counts = (done, total)
            if self._log is not None:
                finished = done >= total and (before is None or before[0] < before[1])
                if finished or time.monotonic() - self._logged >= self.interval:
                    self._line()
            elif self._progress is None:
                if time.monotonic() - self._start < self.delay or done >= total:
                    return
                self._show()
            elif self._task is not None:
                self._progress.update(self._task, completed=min(done, total), total=total)

    def note(self, text: str) -> None:
        """Show ``text`` beside the current step's name (the best loss so far)."""
        if not self.enabled:
            return
        with self._lock:
            self._note = text
            if self._progress is not None and self._task is not None:
                self._progress.update(self._task, description=self._label())

    def _label(self) -> str:
        return f"{self.description} ({self._note})" if self._note else self.description

    def stage(self, name: str, unit: str = "") -> None:
        """Start the step ``name``; ``unit`` names what its ``(done, total)`` calls count
        (empty: the step reports no counts and shows a spinner)."""
        if not self.enabled:
            return
        with self._lock:
            self.description, self.unit = name, unit
            self._note = ""
            self._counts = None
            self._stage_start = time.monotonic()
            if self._log is not None:
                self._line()
                return
            if self._progress is not None:
                if self._task is not None:
                    self._progress.remove_task(self._task)
                self._task = self._add_task(self._progress)
                return
            wait = self.delay - (self._stage_start - self._start)
            if wait <= 0:
                self._show()
            elif self._timer is None:
                self._timer = threading.Timer(wait, self._on_timer)
                self._timer.daemon = True
                self._timer.start()

    def _on_timer(self) -> None:
        with self._lock:
            if self._timer is not None and not self.shown:
                self._timer = None
                self._show()

    def _line(self) -> None:
        """Write the current step as one plain line (elapsed time of the run, the step,
        its count and share done)."""
        assert self._log is not None
        now = time.monotonic()
        elapsed = int(now - self._start)
        hours, rest = divmod(elapsed, 3600)
        text = f"[{hours}:{rest // 60:02d}:{rest % 60:02d}] {self._label()}"
        if self._counts is not None and self.unit:
            done, total = self._counts
            share = f" ({100 * done // total}%)" if total > 0 else ""
            text += f": {min(done, total):,}/{total:,} {self.unit}{share}"
        self._log.write(text + "\n")
        self._log.flush()
        self._logged = now

    def _add_task(self, progress: Progress) -> TaskID:
        total: int | None = None
        completed = 0
        if self._counts is not None and self.unit:
            completed, total = min(self._counts[0], self._counts[1]), self._counts[1]
        task = progress.add_task(self._label(), total=total, completed=completed, unit=self.unit)
        for t in progress.tasks:  # elapsed time counts from the step's start
            if t.id == task:
                t.start_time = self._stage_start
        return task

    def _show(self) -> None:
        if self.plain:
            self._log = self.console.file
            self._line()
            if self.interval > 0:
                threading.Thread(target=self._heartbeat, daemon=True).start()
            return
        columns: list[ProgressColumn] = [
            TextColumn("[progress.description]{task.description}"),
            _Activity(),
            _Count(),
            TimeElapsedColumn(),
        ]
        if self.remaining:
            columns.append(_Remaining())
        # stdout stays untouched (a release may be written there); stderr lines printed
        # meanwhile appear above the display
        progress = Progress(*columns, console=self.console, transient=True, redirect_stdout=False)
        self._task = self._add_task(progress)
        progress.start()
        self._progress = progress

    def _heartbeat(self) -> None:
        """Plain lines: a line every ``interval`` seconds while nothing else writes one
        (a step that reports no counts, a study cell that takes a minute)."""
        while not self._closed.wait(self.interval / 4):
            with self._lock:
                if self._log is None:
                    return
                if time.monotonic() - self._logged >= self.interval:
                    self._line()

    def close(self) -> None:
        """Take the display off the screen (if shown); safe to call more than once."""
        self._closed.set()
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._log = None
            if self._progress is not None:
                self._progress.stop()
                self._progress = None
                self._task = None

    def __enter__(self) -> ProgressReporter:
        self._start = self._stage_start = time.monotonic()
        self._closed.clear()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
