"""``import anonkit`` stays light: no optional heavy dependencies, and numba (Mondrian's
compiled engine) only when that engine first runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def test_import_does_not_pull_optional_dependencies() -> None:
    code = (
        "import sys, anonkit\n"
        "heavy = ['pyspark', 'matplotlib', 'sklearn', 'jinja2', 'numba']\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert proc.stdout.strip() == ""
