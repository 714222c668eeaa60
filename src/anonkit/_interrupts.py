"""Interruptions that compiled code wrapped in another error.

A stop signal's Python handler runs at the next point where the interpreter checks for
pending signals. When that point is a call back into Python from a compiled kernel (numba
unpickles constants that way), the handler's exception cannot travel through the kernel:
numba raises ``SystemError: CPUDispatcher(...) returned a result with an exception set``
instead, with the interruption as its cause. :func:`signalled` finds it again, so that
Ctrl-C reaches the caller as a ``KeyboardInterrupt`` (or the command line's own
interruption), not as an internal error.
"""

from __future__ import annotations

__all__ = ["signalled"]


def signalled(err: BaseException) -> BaseException | None:
    """The interruption behind ``err``: ``err`` itself or the first error along its causes
    and contexts that is not an ``Exception`` (``KeyboardInterrupt``, the command line's
    ``Interrupted``, ``SystemExit``); ``None`` when there is none."""
    seen: set[int] = set()
    link: BaseException | None = err
    while link is not None and id(link) not in seen:
        if not isinstance(link, Exception):
            return link
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return None
