"""The study's process pool: a failure in the caller ends the workers and the pool's
threads before it returns."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from anonkit.study.pool import run_in_processes


def _stop(index: int, result: Any) -> None:
    raise RuntimeError("stop")


def test_a_failure_ends_the_workers_and_the_pool_threads_at_once() -> None:
    """Python 3.11's exit handler writes to the manager thread's wake-up pipe unguarded;
    a thread still ending at exit raced it ("Exception ignored ... Bad file descriptor",
    seen once interrupting a study whose workers were starting)."""
    before = set(threading.enumerate())
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="stop"):
        run_in_processes(
            time.sleep, [0.05, 30, 30, 30], _stop, workers=2, initializer=int, initargs=()
        )
    assert time.monotonic() - start < 10  # not the 30 s tasks
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not left, left
