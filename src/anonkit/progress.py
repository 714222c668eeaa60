"""Progress reporting: the callback the library calls, and how steps are announced.

Long work reports progress through one callable, ``progress(done, total)``, where
``total`` is an upper bound on the units of work (lattice nodes, Mondrian rounds, merges,
microaggregation groups, study cells). A run goes through several steps (read, encode,
search, release, write, ...); a callback that also has a ``stage(name, unit)`` method is
told when each step starts, so it can label what the following ``(done, total)`` calls
count, and one with a ``note(text)`` method is shown a short live note on the step (an
anytime search's best loss so far). A plain function works too: it just does not learn
the step names.

The library never prints; the CLI's :class:`anonkit.cli.progress.ProgressReporter`
implements both methods and draws on stderr.

Examples
--------
>>> seen = []
>>> class Recorder:
...     def __call__(self, done, total):
...         seen.append((done, total))
...     def stage(self, name, unit=""):
...         seen.append(name)
>>> rec = Recorder()
>>> start_stage(rec, "Encoding")
>>> rec(1, 2)
>>> start_stage(print, "ignored by plain functions")
>>> seen
['Encoding', (1, 2)]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

#: Progress callback: ``(done, total)``; ``total`` is an upper bound on the work.
Progress = Callable[[int, int], None]

__all__ = ["Progress", "StagedProgress", "show_note", "start_stage", "tick"]


@runtime_checkable
class StagedProgress(Protocol):
    """A progress callback that is also told when a step starts."""

    def __call__(self, done: int, total: int) -> None: ...

    def stage(self, name: str, unit: str = "") -> None: ...


def start_stage(progress: object, name: str, unit: str = "") -> None:
    """Tell ``progress`` (if it listens for steps) that the step ``name`` starts.

    ``unit`` names what the following ``(done, total)`` calls count ("nodes", "rounds",
    ...); an empty unit means the step reports no counts (a spinner with elapsed time).
    """
    stage = getattr(progress, "stage", None)
    if callable(stage):
        stage(name, unit)


def show_note(progress: object, text: str) -> None:
    """Show ``text`` beside the current step, if ``progress`` takes notes."""
    note = getattr(progress, "note", None)
    if callable(note):
        note(text)


def tick(progress: Progress | None, done: int, total: int) -> None:
    """Call ``progress(done, total)`` when a callback is given."""
    if progress is not None:
        progress(done, total)
