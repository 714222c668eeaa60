"""Checks that run beside the work they guard, in a worker thread.

A fit's leak check reads only the input, and its answer is needed only before the release
is returned; the counting and the search do not depend on it. Run in a worker thread, it
overlaps them where polars and numpy release the GIL (Adult with 8 quasi-identifiers and
``salary-class`` released, on two cores: the check alone takes about 9.5 ms and adds about
5 ms to the call; the rest waits for the cores and the GIL, see
``benchmarks/safety_overhead.py``).

:func:`beside` starts a call; :func:`errors_first` makes the check's error the one raised
when the guarded work fails too, as if the check had run first, alone.

Examples
--------
>>> pending = beside(sum, [1, 2, 3])
>>> with errors_first(pending):
...     total = 4 + 5
>>> pending.result() + total
15
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol, TypeVar

__all__ = ["beside", "errors_first"]

T = TypeVar("T")


class Pending(Protocol):
    """A call under way (a :class:`~concurrent.futures.Future`, or what answers like one):
    its error once it has ended, or ``None``."""

    def exception(self) -> BaseException | None: ...


#: Enough workers that fits started from several threads (the web app's sessions) do not
#: queue behind one another's checks.
_WORKERS = 4
#: The pool of this process, by process id: a child forked from a process whose pool had
#: threads inherits the pool but not its threads, and would wait for them for ever.
_POOL: dict[int, ThreadPoolExecutor] = {}
_LOCK = threading.Lock()


def beside(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
    """Start ``fn(*args, **kwargs)`` in a worker thread; its result or error is in the
    returned future. ``fn`` must only read what the caller goes on changing, if anything."""
    pid = os.getpid()
    with _LOCK:
        pool = _POOL.get(pid)
        if pool is None:
            _POOL.clear()  # a parent's pool, if this process was forked
            pool = _POOL[pid] = ThreadPoolExecutor(_WORKERS, thread_name_prefix="anonkit-check")
    return pool.submit(fn, *args, **kwargs)


@contextlib.contextmanager
def errors_first(pending: Pending | None) -> Iterator[None]:
    """Run the block; if it raises (an interrupt too) and the call ``pending`` fails, raise
    that call's error instead, once it has ended."""
    try:
        yield
    except BaseException:
        error = pending.exception() if pending is not None else None
        if error is not None:
            raise error from None
        raise
