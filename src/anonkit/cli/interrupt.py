"""Ctrl-C for every command: one line on stderr, exit code 130, nothing half written.

:func:`exit_on_interrupt` wraps the whole command line (``anonkit.cli.main.main``). While
it runs, SIGINT raises :class:`Interrupted`, and so do SIGTERM (``kill``, ``timeout``, a
scheduler ending a job) and SIGHUP (the terminal closed), which would otherwise end the
process on the spot and leave a temporary file half written; the exit code is then
128 + that signal's number. That is a :class:`BaseException` but not a
:class:`KeyboardInterrupt`, so typer and click (which turn a ``KeyboardInterrupt`` into
``Aborted!`` or a silent exit, depending on their versions) let it pass, while every
``finally`` and ``except BaseException`` on the way still runs: progress displays close,
temporary files of :mod:`anonkit._atomic` are removed, process pools stop their
workers. At the top it becomes one line on stderr and exit code 130 (128 + SIGINT, what
shells report for a process stopped by Ctrl-C), without a traceback.

The line is ``Interrupted; nothing was written.`` unless a command said otherwise with
:func:`saying` (a study names the finished cells it keeps). Once the first Ctrl-C is
raised, the ones that follow within :data:`FORCE_AFTER` seconds are ignored, so pressing
it twice does not cut the clean-up short; a Ctrl-C after that (the clean-up is stuck)
exits at once.

Examples
--------
>>> def cells():
...     return "Interrupted; 3 finished cells are kept in cache/."
>>> try:
...     with saying(cells):
...         raise Interrupted()
... except Interrupted as err:
...     print(err.message)
Interrupted; 3 finished cells are kept in cache/.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

__all__ = [
    "DEFAULT_MESSAGE",
    "EXIT_CODE",
    "FORCED_MESSAGE",
    "FORCE_AFTER",
    "Interrupted",
    "exit_on_interrupt",
    "saying",
]

#: Exit code of an interrupted command (128 + SIGINT; 128 + the signal for the others).
EXIT_CODE = 130
#: The signals that stop a command the way Ctrl-C does (those this platform has).
STOP_SIGNALS: tuple[int, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
#: The line printed when no command said anything else.
DEFAULT_MESSAGE = "Interrupted; nothing was written."
#: Seconds after the first Ctrl-C during which further ones are ignored.
FORCE_AFTER = 3.0
#: The line printed when a Ctrl-C forces the exit.
FORCED_MESSAGE = "Interrupted again; stopped at once, temporary files may remain."


class Interrupted(BaseException):
    """Raised by Ctrl-C (or another of :data:`STOP_SIGNALS`) inside
    :func:`exit_on_interrupt`.

    Attributes
    ----------
    message
        The line to print; the innermost :func:`saying` fills it in on the way out
        (``None`` until then, which prints :data:`DEFAULT_MESSAGE`).
    signum
        The signal that stopped the command (the exit code is 128 + it).
    """

    def __init__(self, message: str | None = None, signum: int = signal.SIGINT) -> None:
        super().__init__(message)
        self.message = message
        self.signum = int(signum)


@contextlib.contextmanager
def saying(message: str | Callable[[], str]) -> Iterator[None]:
    """What an interruption inside the block prints instead of :data:`DEFAULT_MESSAGE`.

    Parameters
    ----------
    message
        The line, or a function returning it, called when the interruption passes
        through the block (so it can count what was finished by then).
    """
    try:
        yield
    except Interrupted as err:
        if err.message is None:
            err.message = message() if callable(message) else message
        raise


class _Handler:
    """The handler of :data:`STOP_SIGNALS`: raise :class:`Interrupted` once, then ignore,
    then force."""

    def __init__(self) -> None:
        self.first: float | None = None
        self.signum: int = signal.SIGINT

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        now = time.monotonic()
        if self.first is None:
            self.first, self.signum = now, signum
            raise Interrupted(signum=signum)
        if now - self.first >= FORCE_AFTER:  # the clean-up hangs: leave now
            _stop_children()
            _write_line(FORCED_MESSAGE)
            os._exit(128 + self.signum)

    def unraisable(self, hook: Callable[[Any], object], info: Any) -> None:
        """Raised in a ``__del__`` or a callback, which swallow it: raise it again soon
        (from a timer, so that it lands in the main code, not in this hook)."""
        if isinstance(info.exc_value, Interrupted):
            self.first = None
            timer = threading.Timer(0.1, _signal_main_thread, (self.signum,))
            timer.daemon = True
            timer.start()
            return
        hook(info)


def _signal_main_thread(signum: int = signal.SIGINT) -> None:
    """``signum`` to the main thread: a real signal, which also ends a blocking call
    there."""
    if hasattr(signal, "pthread_kill"):
        main = threading.main_thread().ident
        if main is not None:
            signal.pthread_kill(main, signum)
            return
    _thread.interrupt_main(signal.Signals(signum))  # pragma: no cover - Windows


def _stop_children() -> None:
    """Kill the worker processes of any multiprocessing pool (forced exit only)."""
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is None:
        return
    for child in multiprocessing.active_children():
        with contextlib.suppress(Exception):
            child.kill()


def _write_line(text: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(text + "\n")
        sys.stderr.flush()


@contextlib.contextmanager
def exit_on_interrupt() -> Iterator[None]:
    """Turn Ctrl-C inside the block into one line on stderr and ``SystemExit(130)``;
    SIGTERM and SIGHUP the same way, with exit code 128 + the signal.

    The handler is installed only in the main thread, and for each signal only when it
    has its default handler (a process started with a signal ignored, such as SIGHUP under
    ``nohup``, keeps ignoring it); the previous handlers are restored when the block ends
    without an interruption. After an interruption the signals stay ignored, so the
    interpreter's own shutdown (joining threads, finalizers) cannot print ``Exception
    ignored ... KeyboardInterrupt`` or be cut short.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    taken = [s for s in STOP_SIGNALS if signal.getsignal(s) is _default(s)]
    if not taken:
        yield
        return
    handler = _Handler()
    previous_hook = sys.unraisablehook
    for signum in taken:
        signal.signal(signum, handler)
    sys.unraisablehook = lambda info: handler.unraisable(previous_hook, info)
    interrupted = False
    try:
        yield
    except Interrupted as err:
        interrupted = True
        for signum in taken:
            signal.signal(signum, signal.SIG_IGN)
        _write_line(err.message or DEFAULT_MESSAGE)
        raise SystemExit(128 + err.signum) from None
    finally:
        sys.unraisablehook = previous_hook
        if not interrupted:
            for signum in taken:
                signal.signal(signum, _default(signum))


def _default(signum: int) -> Any:
    """The handler a signal has in a Python process that did not change it."""
    return signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
