"""anonkit's compiled kernels and numba's on-disk cache when processes compile together.

numba saves a compiled signature by reading the cache index, choosing the first free data
file name, writing the index and then the data file. Two processes that compile two
signatures of one kernel at the same time both read the empty index, both choose data
file 1, and whichever writes last wins the data file while the other's index names it:
a later process then runs one signature's machine code on the other's arrays (numba
issue 4807), which reads garbage and decides privacy from it. :mod:`anonkit._jit` takes a
file lock around the cache's reads and writes; these tests force the interleaving.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.fresh_python import SRC

KERNELS = """
from anonkit._jit import njit


@njit()
def total(values):
    sum_ = 0
    for value in values:
        sum_ += value
    return sum_
"""

#: Compiles ``total`` for one dtype, holding numba's index write until the other racer
#: has read the index too (or three seconds passed: a lock keeps it from coming).
RACER = """
import pathlib, sys, time
import numpy as np
import numba.core.caching as caching

here, me, other, dtype = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
sys.path.insert(0, str(here))
original = caching.IndexDataCacheFile._save_index


def waiting(self, overloads):
    (here / f"ready-{me}").touch()
    deadline = time.monotonic() + 3
    while not (here / f"ready-{other}").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    original(self, overloads)


caching.IndexDataCacheFile._save_index = waiting
import kernels

print(kernels.total(np.arange(10, dtype=dtype)))
"""

CHECKER = """
import sys
import numpy as np

sys.path.insert(0, sys.argv[1])
import kernels

print(kernels.total(np.arange(10, dtype="int64")), kernels.total(np.arange(10, dtype="int32")))
"""


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    return env


def _run(script: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(script), *args],
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _output(proc: subprocess.Popen[str]) -> str:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return out.strip()


def test_two_processes_compiling_one_kernel_together_leave_a_cache_that_loads_right(
    tmp_path: Path,
) -> None:
    (tmp_path / "kernels.py").write_text(textwrap.dedent(KERNELS))
    racer = tmp_path / "racer.py"
    racer.write_text(RACER)
    checker = tmp_path / "checker.py"
    checker.write_text(CHECKER)

    first = _run(racer, str(tmp_path), "a", "b", "int64")
    second = _run(racer, str(tmp_path), "b", "a", "int32")
    assert (_output(first), _output(second)) == ("45", "45")
    # Each signature has its own data file (racing, both wrote data file 1) ...
    assert len(list((tmp_path / "__pycache__").glob("kernels.total-*.nbc"))) == 2
    # ... and a later process loads each signature's own machine code.
    assert _output(_run(checker, str(tmp_path))) == "45 45"
