"""Files a study writes together: staged beside their places, then renamed into place at
once, with the stop signals held for those few renames.

A study's files describe one run: ``results.csv`` beside its ``report.html``, a page
beside the figures it links. Written one by one, a Ctrl-C between two of them left new
files beside old ones. :func:`staged_files` writes each to a temporary file next to its
place; only when every one is complete are they renamed, with Ctrl-C, SIGTERM and SIGHUP
held (:func:`signals_held`). An interruption or error before then leaves every place as
it was and removes the temporary files.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from anonkit._atomic import atomic_path

__all__ = ["signals_held", "staged_files"]


@contextlib.contextmanager
def staged_files() -> Iterator[Callable[[Path], Path]]:
    """Yield ``stage(path)``, the temporary path to write ``path``'s new content to;
    when the block ends without an error, every staged file is renamed over its place
    together, with the stop signals held.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> with staged_files() as stage:
    ...     _ = stage(folder / "a.txt").write_text("a", encoding="utf-8")
    ...     _ = stage(folder / "b.txt").write_text("b", encoding="utf-8")
    ...     print(sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")))
    []
    >>> sorted(p.name for p in folder.iterdir())
    ['a.txt', 'b.txt']
    """
    with contextlib.ExitStack() as renames:
        yield lambda path: renames.enter_context(atomic_path(Path(path)))
        with signals_held():
            renames.close()


@contextlib.contextmanager
def signals_held(names: Sequence[str] = ("SIGINT", "SIGTERM", "SIGHUP")) -> Iterator[None]:
    """Hold the signals ``names`` (Ctrl-C, SIGTERM and SIGHUP) inside the block: one that
    arrives meanwhile is raised again when it ends (main thread only, where Python runs
    signal handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    held = [getattr(signal, n) for n in names if hasattr(signal, n)]
    previous = {s: signal.signal(s, lambda signum, frame: arrived.append(signum)) for s in held}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)
        for number in dict.fromkeys(arrived):
            signal.raise_signal(number)
