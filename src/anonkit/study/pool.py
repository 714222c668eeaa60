"""The study's process pool: tasks in spawn-context processes that Ctrl-C ends at once.

:func:`run_in_processes` runs a module-level function over a list of items in a
``ProcessPoolExecutor`` whose workers share the cores (thread pools capped per worker),
ignore Ctrl-C, and are ended (terminate, then kill) as soon as anything goes wrong in the
calling process. The study runner (:mod:`anonkit.study.cells`) and the reproduction of
Mauger et al. (2020) (:mod:`anonkit.study.mauger2020.runs`) both use it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from anonkit.study.staging import signals_held

__all__ = ["run_in_processes"]

_THREAD_VARIABLES = (
    "POLARS_MAX_THREADS",
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
)


@contextlib.contextmanager
def _threads_per_worker(workers: int) -> Iterator[None]:
    """Cap the threads of spawned workers so that they share the cores, not fight over
    them (variables the user set are kept)."""
    per = str(max(1, (os.cpu_count() or 1) // workers))
    saved = {name: os.environ.get(name) for name in _THREAD_VARIABLES}
    for name, value in saved.items():
        if value is None:
            os.environ[name] = per
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)


def _start_worker(initializer: Callable[..., object], initargs: tuple[Any, ...]) -> None:
    """Initializer of every pool process: ignore Ctrl-C, then ``initializer(*initargs)``.

    The terminal sends SIGINT to the whole process group; the parent alone handles it and
    stops the workers (:func:`_stop_pool`), so a worker neither prints a traceback nor
    finishes its cell first.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    initializer(*initargs)


@contextlib.contextmanager
def _spawning() -> Iterator[None]:
    """Spawn worker processes inside: Ctrl-C waits until the block ends.

    A process being spawned is not yet in the pool's list, so an interruption then
    would leave it running. This thread blocks SIGINT, and the spawned processes inherit
    the mask, so a Ctrl-C that reaches them while they import (before
    :func:`_start_worker` ignores it) stays pending instead of killing them with a
    traceback (``multiprocessing.resource_tracker`` starts its process the same way).
    Other threads of this process may still receive it, so the Python handler is
    deferred too (main thread only): the Ctrl-C is raised again when the block ends.
    Spawning takes milliseconds per process as long as the initializer's arguments are
    small (they are written to a pipe that the new process reads only after its imports).
    """
    with signals_held(("SIGINT",)):
        mask = None
        if hasattr(signal, "pthread_sigmask"):
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            yield
        finally:
            if mask is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _stop_pool(pool: ProcessPoolExecutor, processes: Sequence[Any], grace: float = 1.0) -> None:
    """Drop the queued tasks and end the workers now (terminate, then kill).

    ``ProcessPoolExecutor.shutdown`` lets running tasks finish, which for a study cell
    can take minutes; Python before 3.14 has no public way to end the workers, so they
    are ``processes`` (taken once they were spawned) and the pool's own list.
    """
    current = getattr(pool, "_processes", None) or {}
    processes = [*processes, *(p for p in current.values() if p not in processes)]
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown() forgets it
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    deadline = time.monotonic() + grace
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(grace)
    # The pool's manager thread closes its wake-up pipe as it ends; Python 3.11's exit
    # handler writes to that pipe unguarded, and when the two race the exit printed
    # "Exception ignored ... Bad file descriptor" (seen once, interrupting a study whose
    # workers were starting). With the workers gone the thread ends within milliseconds.
    if manager is not None:
        with contextlib.suppress(Exception):
            manager.join(grace)


def run_in_processes(
    task: Callable[[Any], Any],
    items: Sequence[Any],
    finished: Callable[[int, Any], None],
    *,
    workers: int,
    initializer: Callable[..., object],
    initargs: tuple[Any, ...],
) -> None:
    """Run ``task(item)`` for every item in a spawn-context process pool.

    Calls ``finished(index, result)`` in this process as each task ends (in the order they
    end). Every worker runs ``initializer(*initargs)`` once and ignores Ctrl-C; on any
    exception in this process (Ctrl-C, a failed task, an error in ``finished``) the
    queued tasks are dropped and the workers are ended at once, so no worker outlives
    the call. Spawn, not fork: a forked child of a process whose polars or numpy thread
    pools run can deadlock.

    Parameters
    ----------
    task, initializer
        Module-level functions (they are pickled by name for the workers).
    items
        The tasks' arguments (pickled to the workers).
    finished
        Called with the index of the item and the task's result.
    workers
        Processes to start.
    initargs
        Arguments of ``initializer`` (pickled once per worker).
    """
    context = multiprocessing.get_context("spawn")
    with _threads_per_worker(workers):
        pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(initializer, initargs),
        )
        processes: list[Any] = []
        try:
            with _spawning():  # the workers are spawned by the first submits
                pending: dict[Future[Any], int] = {
                    pool.submit(task, item): i for i, item in enumerate(items)
                }
                processes = list((getattr(pool, "_processes", None) or {}).values())
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    finished(pending.pop(future), future.result())
        except BaseException:
            _stop_pool(pool, processes)
            raise
        pool.shutdown(wait=True)
