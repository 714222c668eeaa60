"""Throttled progress calls for the algorithms' loops.

A loop that runs thousands of times (merges, microaggregation groups) must not call the
progress callback on every turn: :class:`Ticker` passes a call on at most every
``interval`` seconds, and :meth:`Ticker.finish` always reports the end, so a callback
sees ``done`` never decrease, ``done <= total`` throughout and ``done == total`` last.

Examples
--------
>>> seen = []
>>> ticker = Ticker(lambda done, total: seen.append((done, total)), 4, interval=3600)
>>> for done in range(4):
...     ticker(done)
>>> ticker.finish()
>>> seen
[(0, 4), (4, 4)]
"""

from __future__ import annotations

import time

from anonkit.progress import Progress

#: Seconds between two calls passed on to the callback.
INTERVAL = 0.1


class Ticker:
    """Pass ``progress(done, total)`` on at most every ``interval`` seconds.

    Parameters
    ----------
    progress
        The callback, or ``None`` (then every call is a no-op).
    total
        Upper bound on ``done``; it may be revised with :attr:`total`.
    interval
        Seconds between two calls passed on (the first call always is); default
        :data:`INTERVAL`.
    """

    __slots__ = ("_done", "_next", "interval", "progress", "total")

    def __init__(
        self, progress: Progress | None, total: int, *, interval: float | None = None
    ) -> None:
        self.progress = progress
        self.total = int(total)
        self.interval = INTERVAL if interval is None else interval
        self._next = 0.0
        self._done = 0

    def __call__(self, done: int) -> None:
        """Report ``done`` units (clipped to ``0 .. total`` and never below a previous
        report), if ``interval`` passed since the last report."""
        if self.progress is None:
            return
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + self.interval
        self._done = max(self._done, min(int(done), self.total))
        self.progress(self._done, self.total)

    def finish(self, done: int | None = None) -> None:
        """Report the end: ``(done, done)``, or ``(total, total)`` when ``done`` is None."""
        if self.progress is None:
            return
        end = self.total if done is None else max(int(done), self._done)
        self.total = self._done = end
        self.progress(end, end)
