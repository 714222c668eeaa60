"""Ctrl-C for every command: one true line on stderr, exit code 130, nothing half written.

:func:`run_command` runs the whole command line (``anonkit.cli.main.main``). While the
command runs, SIGINT raises :class:`Interrupted`, and so do SIGTERM (``kill``,
``timeout``, a scheduler ending a job) and SIGHUP (the terminal closed), which would
otherwise end the process on the spot and leave a temporary file half written; the exit
code is then 128 + that signal's number. That is a :class:`BaseException` but not a
:class:`KeyboardInterrupt`, so typer and click (which turn a ``KeyboardInterrupt`` into
``Aborted!`` or a silent exit, depending on their versions) let it pass, while every
``finally`` and ``except BaseException`` on the way still runs: progress displays close,
temporary files of :mod:`anonkit._atomic` are removed, process pools stop their
workers. At the top it becomes one line on stderr and exit code 130 (128 + SIGINT, what
shells report for a process stopped by Ctrl-C), without a traceback.

The line tells the truth about the outputs. Every file :mod:`anonkit._atomic` renamed into
place during the command is noted (:class:`anonkit._atomic.CommitLog`; such a file is
complete), and the line is ``Interrupted; nothing was written.`` only when none was,
otherwise ``Interrupted; already written: out/release.csv.`` (:func:`interruption_line`).
A command can say more with :func:`saying` (a study names the finished cells it keeps
in its cache); its line is kept, followed by the files it does not name itself or by
their folder. Once the first Ctrl-C is raised, the ones that follow within
:data:`FORCE_AFTER` seconds are ignored, so pressing it twice does not cut the clean-up
short; a Ctrl-C after that (the clean-up is stuck) exits at once.

Once the command has finished (it returned, or asked to exit with its own code), the stop
signals are ignored until the process exits. :func:`exit_on_interrupt` does the same as
:func:`run_command` for a block of code, and gives the previous handlers back after it.

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
>>> interruption_line(None, [Path.cwd() / "out" / "release.csv"])
'Interrupted; already written: out/release.csv.'
"""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from anonkit._atomic import CommitLog
from anonkit._interrupts import signalled

__all__ = [
    "DEFAULT_MESSAGE",
    "EXIT_CODE",
    "FORCED_MESSAGE",
    "FORCE_AFTER",
    "Interrupted",
    "exit_on_interrupt",
    "interruption_line",
    "run_command",
    "saying",
    "written_note",
]

#: Exit code of an interrupted command (128 + SIGINT; 128 + the signal for the others).
EXIT_CODE = 130
#: The signals that stop a command the way Ctrl-C does (those this platform has).
STOP_SIGNALS: tuple[int, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
#: The line printed when no command said anything else and no file was committed.
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
        The command's line; the innermost :func:`saying` fills it in on the way out
        (``None`` until then: :func:`interruption_line` then only names the files
        written).
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
        #: Set the moment the command has finished: every stop signal is then ignored.
        self.finished = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.finished:
            return
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


def interruption_line(message: str | None, written: Sequence[Path]) -> str:
    """The line printed for an interrupted command.

    Parameters
    ----------
    message
        The command's own line (:func:`saying`), or ``None``.
    written
        The files committed during the command (absolute paths, in order). They are named
        relative to the current folder when inside it; a folder holding three or more of
        them is named once with their count. A file the command's line names already,
        itself or by one of its folders, is not named again.

    Examples
    --------
    >>> out = Path.cwd() / "out"
    >>> interruption_line(None, [])
    'Interrupted; nothing was written.'
    >>> interruption_line(None, [out / "release.csv", out / "summary.json"])
    'Interrupted; already written: out/release.csv, out/summary.json.'
    >>> cells = [out / "cache" / f"{i}.json" for i in range(12)]
    >>> interruption_line("Interrupted; 12 cells are kept in out/cache.", cells)
    'Interrupted; 12 cells are kept in out/cache.'
    >>> interruption_line(None, [*cells, out / "results.csv"])
    'Interrupted; already written: 12 files in out/cache/, out/results.csv.'
    """
    if message is not None:
        named = _named_paths(message)
        folders = {folder: _with_folders(folder) for folder in {p.parent for p in written}}
        written = [
            p for p in written if os.path.realpath(p) not in named and not named & folders[p.parent]
        ]
        if not written:
            return message
        return message.rstrip() + written_note(written)
    if not written:
        return DEFAULT_MESSAGE
    return f"Interrupted; already written: {_listing(written)}."


def written_note(written: Sequence[Path]) -> str:
    """What a command that stops on an error adds to its line: the files it had already
    written (renamed into place, so complete), or nothing.

    Examples
    --------
    >>> written_note([]), written_note([Path.cwd() / "out" / "release.csv"])
    ('', ' Already written: out/release.csv.')
    """
    return f" Already written: {_listing(written)}." if written else ""


#: How many files or folders :func:`interruption_line` names at most.
_LISTED = 5


def _listing(paths: Sequence[Path]) -> str:
    """``paths`` for a human: by folder when one holds three or more of them.

    Examples
    --------
    >>> _listing([Path.cwd() / f"{name}.csv" for name in "abc"])
    '3 files in the current folder'
    >>> _listing([Path.cwd() / folder / "r.csv" for folder in "abcdefg"])
    'a/r.csv, b/r.csv, c/r.csv, d/r.csv and 3 more files'
    """
    folders: dict[Path, list[Path]] = {}
    for path in paths:
        folders.setdefault(path.parent, []).append(path)
    items: list[tuple[str, int]] = []  # (text, how many files it stands for)
    for folder, files in folders.items():
        if len(files) >= 3:
            shown = _shown(folder)
            shown = "the current folder" if shown == "." else os.path.join(shown, "")
            items.append((f"{len(files):,} files in {shown}", len(files)))
        else:
            items.extend((_shown(f), 1) for f in files)
    if len(items) <= _LISTED:
        return ", ".join(text for text, _ in items)
    rest = sum(n for _, n in items[_LISTED - 1 :])
    return ", ".join(text for text, _ in items[: _LISTED - 1]) + f" and {rest:,} more files"


def _shown(path: Path) -> str:
    """``path`` relative to the current folder when it is inside it, else absolute."""
    cwd = Path.cwd()
    return os.path.relpath(path, cwd) if path.is_relative_to(cwd) else str(path)


def _named_paths(message: str) -> set[str]:
    """The real paths of the words of ``message`` that look like paths (hold a ``/``)."""
    words = (word.strip("()[]'\"`,;:").rstrip(".") for word in message.split())
    return {os.path.realpath(word) for word in words if os.sep in word or "/" in word}


def _with_folders(folder: Path) -> set[str]:
    """The real path of ``folder`` and of each folder above it."""
    real = Path(os.path.realpath(folder))
    return {str(real), *(str(above) for above in real.parents)}


class _Guard:
    """What protects one command: the handler of the stop signals it took, the unraisable
    hook and the log of the files it committed."""

    def __init__(self) -> None:
        self.handler = _Handler()
        self.taken: list[int] = []
        self.hook = sys.unraisablehook
        self.log = CommitLog()
        self.stopped = False

    def install(self) -> None:
        """Take the stop signals that have their default handler (main thread only)."""
        if threading.current_thread() is not threading.main_thread():
            return
        self.taken = [s for s in STOP_SIGNALS if signal.getsignal(s) is _default(s)]
        if not self.taken:
            return
        self.log.open()
        for signum in self.taken:
            signal.signal(signum, self.handler)
        handler, hook = self.handler, self.hook
        sys.unraisablehook = lambda info: handler.unraisable(hook, info)

    def stop(self, err: Interrupted) -> NoReturn:
        """The line on stderr and the exit; the signals stay ignored from here on, so the
        interpreter's own shutdown (joining threads, finalizers) cannot print ``Exception
        ignored ... KeyboardInterrupt`` or be cut short."""
        self.stopped = True
        for signum in self.taken:
            signal.signal(signum, signal.SIG_IGN)
        _write_line(interruption_line(err.message, self.log.paths))
        raise SystemExit(128 + err.signum) from None

    @contextlib.contextmanager
    def ending(self, *, ignore: bool) -> Iterator[None]:
        """The way out of a guarded block: an interruption inside it, or one that compiled
        code wrapped, stops the command (:meth:`stop`); any other exception passes on; the
        signals are then given back (:meth:`close`)."""
        try:
            yield
        except Interrupted as err:
            self.stop(err)
        except BaseException as err:
            self.stop(_interruption(err))
        finally:
            self.close(ignore=ignore)

    def close(self, *, ignore: bool) -> None:
        """Give back the hook; ignore the signals taken (``ignore``) or give back their
        default handlers, unless :meth:`stop` ignored them already."""
        self.log.close()
        sys.unraisablehook = self.hook
        if not self.stopped:
            for signum in self.taken:
                signal.signal(signum, signal.SIG_IGN if ignore else _default(signum))


def run_command(command: Callable[[], object]) -> None:
    """Run ``command``, the whole command line: Ctrl-C inside it prints one line on stderr
    and raises ``SystemExit(130)``; SIGTERM and SIGHUP the same way, with exit code 128 +
    the signal.

    The handler is installed only in the main thread, and for each signal only when it
    has its default handler (a process started with a signal ignored, such as SIGHUP under
    ``nohup``, keeps ignoring it). Whatever way ``command`` ends, the signals it took are
    then ignored until the process exits: a finished command is not turned into an
    interrupted one.
    """
    # Why ignore rather than report a late signal: the work is complete and its files are
    # in place, so exit code 130 would make a pipeline (make, a scheduler, CI) throw away
    # or redo a good result, and the default action would end the process by the signal,
    # with no line at all, while the interpreter shuts down. The process exits at once
    # anyway, which is all a stop signal asks for.
    guard = _Guard()
    with guard.ending(ignore=True):
        try:
            guard.install()
            command()
        finally:
            # First on every way out of the command: signals are handled only at calls
            # and loops, so none can raise between the command's end and this line.
            guard.handler.finished = True


@contextlib.contextmanager
def exit_on_interrupt() -> Iterator[None]:
    """:func:`run_command` for the block inside: Ctrl-C there prints one line on stderr
    and raises ``SystemExit(130)``, SIGTERM and SIGHUP the same way with exit code 128 +
    the signal.

    The previous handlers are given back when the block ends without an interruption;
    after an interruption the signals stay ignored, as in :func:`run_command`. Leaving a
    ``with`` block runs ``__exit__``, where a signal can land before the block knows it
    finished: use :func:`run_command` for a whole command line.
    """
    guard = _Guard()
    with guard.ending(ignore=False):
        try:
            guard.install()
            yield
        finally:
            guard.handler.finished = True


def _interruption(err: BaseException) -> Interrupted:
    """The interruption behind ``err`` (:func:`~anonkit._interrupts.signalled`: compiled
    code may have wrapped it in a ``SystemError``), or ``err`` raised again as it is."""
    found = signalled(err)
    if isinstance(found, Interrupted):
        return found
    raise err


def _default(signum: int) -> Any:
    """The handler a signal has in a Python process that did not change it."""
    return signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
