"""numba's ``njit`` with an on-disk cache that processes can share safely.

Every anonkit kernel is compiled on its first call and cached on disk, so later processes
load it instead of compiling again. numba saves a signature by reading the function's
cache index, choosing the first free data file name, writing the index and then the data
file, with nothing between processes: two that compile two signatures of one kernel at the
same time (parallel test workers, a pipeline running several ``anonkit`` commands at once)
both choose data file 1, and one's index entry then names the other's machine code. Every
later process runs that code on arrays of another type, reads garbage and judges privacy
from it, or crashes (numba issue 4807, open in numba 0.68).

:func:`njit` compiles as ``numba.njit(cache=True, ...)`` does but gives the dispatcher a
cache that holds a file lock in the cache directory while it reads (shared) and writes
(exclusive) the index and data files; compiling itself runs outside the lock. This module
imports numba: import it only from kernel modules, which are imported on first use.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

from numba import njit as _numba_njit
from numba.core.caching import FunctionCache

#: The lock file, one per cache directory.
LOCK_NAME = "anonkit-numba-cache.lock"


def njit(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``njit(**options)`` whose on-disk cache is locked against other
    processes (see the module docstring)."""

    def compile_cached(function: Callable[..., Any]) -> Any:
        dispatcher = _numba_njit(cache=True, **options)(function)
        dispatcher._cache = LockedCache(function)  # type: ignore[no-untyped-call]
        return dispatcher

    return compile_cached


class LockedCache(FunctionCache):
    """numba's per-function cache, reading under a shared and writing under an exclusive
    lock of the cache directory's :data:`LOCK_NAME`."""

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        with self._locked(exclusive=False):
            return super().load_overload(sig, target_context)  # type: ignore[no-untyped-call]

    def save_overload(self, sig: Any, data: Any) -> None:
        with self._locked(exclusive=True):
            super().save_overload(sig, data)  # type: ignore[no-untyped-call]

    @contextlib.contextmanager
    def _locked(self, *, exclusive: bool) -> Iterator[None]:
        self._impl.locator.ensure_cache_path()
        with _file_lock(os.path.join(self._cache_path, LOCK_NAME), exclusive=exclusive):
            yield


@contextlib.contextmanager
def _file_lock(path: str, *, exclusive: bool) -> Iterator[None]:
    """Hold ``path`` locked (POSIX ``flock``; on Windows an exclusive ``msvcrt`` lock, both
    kinds), waiting for other processes' locks."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        if sys.platform == "win32":  # pragma: no cover - the tests run on Linux
            import msvcrt  # noqa: PLC0415 (Windows only)

            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
            try:
                yield
            finally:
                os.lseek(fd, 0, os.SEEK_SET)
                msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        else:
            import fcntl  # noqa: PLC0415 (POSIX only)

            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
