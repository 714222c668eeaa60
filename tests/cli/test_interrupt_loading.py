"""Ctrl-C while the program is still loading its modules: one line, exit 130.

``import polars`` and the commands take a moment before ``main()`` can install its
handler; the console script's :func:`anonkit.cli.run` covers that window.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def _demo(tmp_path: Path) -> subprocess.Popen[str]:
    """``python -m anonkit demo`` writing into ``tmp_path / "out"``, started now."""
    return subprocess.Popen(
        [sys.executable, "-m", "anonkit", "demo", "--output-dir", str(tmp_path / "out")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=tmp_path,
    )


@pytest.mark.parametrize("delay", [0.05, 0.15, 0.3])
def test_ctrl_c_while_loading(tmp_path: Path, delay: float) -> None:
    proc = _demo(tmp_path)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=10)
    if "Traceback" in err and "anonkit" not in err.split("KeyboardInterrupt")[0]:
        # on a loaded machine the signal can land while the interpreter itself starts,
        # before any anonkit code runs: nothing a program can catch
        pytest.skip("Ctrl-C arrived during the interpreter's own start-up")
    assert proc.returncode == 130, err
    assert err.strip().startswith("Interrupted;") and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
    assert not (tmp_path / "out" / "release.csv").exists()


def test_the_package_loads_fast() -> None:
    """``import anonkit`` loads no polars: the public names load on first use."""
    out = subprocess.run(
        [sys.executable, "-c", "import sys, anonkit; print('polars' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(("sig", "delay"), [(signal.SIGTERM, 0.4), (signal.SIGHUP, 0.8)])
def test_a_stop_signal_while_loading(tmp_path: Path, sig: signal.Signals, delay: float) -> None:
    # SIGTERM or SIGHUP during the seconds of imports ended the process by the signal,
    # silently (exit -15), where the README promises one line and exit 128 + signal.
    proc = _demo(tmp_path)
    time.sleep(delay)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 128 + sig, err
    assert err.strip() == "Interrupted; nothing was written."
    assert not (tmp_path / "out").exists()
