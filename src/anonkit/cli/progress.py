"""A progress bar for long searches that stays invisible for short ones."""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class ProgressReporter:
    """``progress(done, total)`` callback showing a rich bar once ``delay`` seconds passed.

    Use as a context manager so the bar is always closed::

        with ProgressReporter("Searching") as bar:
            anonymize(..., progress=bar)

    Nothing is shown when ``enabled`` is false, when stderr is not a terminal (unless
    ``force``), or when the work finishes within ``delay`` seconds. ``unit`` names what is
    counted (lattice nodes, study cells); ``remaining`` adds an estimate of the time left.
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
    ) -> None:
        self.description = description
        self.unit = unit
        self.remaining = remaining
        self.delay = delay
        self.console = console or Console(stderr=True)
        self.enabled = enabled and (force or self.console.is_terminal)
        self._start = time.monotonic()
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    @property
    def shown(self) -> bool:
        """Whether the bar has been displayed."""
        return self._progress is not None

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._progress is None:
            if time.monotonic() - self._start < self.delay or done >= total:
                return
            columns = [
                TextColumn("[progress.description]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(self.unit),
                TimeElapsedColumn(),
            ]
            if self.remaining:
                columns.append(TimeRemainingColumn())
            self._progress = Progress(*columns, console=self.console, transient=True)
            self._progress.start()
            self._task = self._progress.add_task(self.description, total=total)
        assert self._task is not None
        self._progress.update(self._task, completed=min(done, total), total=total)

    def close(self) -> None:
        """Stop the bar (if shown); safe to call more than once."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
            self._task = None

    def __enter__(self) -> ProgressReporter:
        self._start = time.monotonic()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
