"""The ``anonkit`` command line (typer + rich).

Each subcommand lives in its own module and is a thin layer over the public API; the
typer application and its ``main()`` are in :mod:`anonkit.cli.main`. The console script
calls :func:`run`, which imports all of that under Ctrl-C protection first.
"""

from __future__ import annotations

import os
import signal
import sys

#: What a Ctrl-C while the program is still loading says (nothing had started).
LOADING_INTERRUPTED = "Interrupted; nothing was written."


#: SIGTERM and SIGHUP, which stop a command as Ctrl-C does (see :mod:`anonkit.cli.interrupt`).
_STOPS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n))
#: The stop signals :func:`stop_while_loading` took, given back by :func:`loaded`.
_TAKEN: list[int] = []


def stop_while_loading() -> None:
    """Until :func:`loaded`, SIGTERM and SIGHUP (each where it has its default handler)
    print the loading line and exit with 128 + the signal: by default they would end the
    process silently during the seconds the imports take."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return
    for signum in _STOPS:
        if signal.getsignal(signum) == signal.SIG_DFL:
            signal.signal(signum, lambda number, frame: exit_loading(128 + number))
            _TAKEN.append(signum)


def loaded() -> None:
    """Give the stop signals back their default handlers, which the command's own
    protection (:func:`anonkit.cli.interrupt.run_command`) takes over."""
    while _TAKEN:
        signal.signal(_TAKEN.pop(), signal.SIG_DFL)


def run() -> None:
    """Console-script entry point: load the CLI, then run :func:`anonkit.cli.main.main`.

    Loading polars, numpy and the commands takes a moment; a Ctrl-C then, or before
    ``main()`` has installed its own handler, prints one line and exits with code 130
    instead of a traceback from deep inside an import. (Once installed, that handler
    turns Ctrl-C into its own exception, and the signal is ignored after the command, so
    a ``KeyboardInterrupt`` leaving ``main()`` comes from before anything had started.)
    """
    stop_while_loading()
    try:
        from anonkit.cli.main import main

        loaded()
        main()
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # no second traceback on shutdown
        exit_loading()


def exit_loading(code: int = 130) -> None:
    """One line and exit ``code`` (130: Ctrl-C) after a stop during the imports or before
    ``main()`` took the signals over (nothing had started).

    The exit is immediate: CPython remembers a KeyboardInterrupt that left a module's
    code even when it is caught later, and then ends the process by SIGINT (exit code
    -2) instead of the code asked for (seen in about one run in six with the signal
    landing in ``anonkit.cli.main``'s imports).
    """
    sys.stderr.write(LOADING_INTERRUPTED + "\n")
    sys.stderr.flush()
    os._exit(code)
