"""Run a snippet in a fresh interpreter that imports anonkit from this checkout: for
tests of what importing a module pulls in, which the test process has already imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def fresh_stdout(code: str) -> str:
    """What ``code`` prints, stripped, run by ``python -c`` with ``src`` on the path."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return proc.stdout.strip()
