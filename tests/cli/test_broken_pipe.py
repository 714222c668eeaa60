"""A closed stdout (``anonkit ... | head -1``) ends a command quietly: no message, exit
code 141 (128 + SIGPIPE, as a shell reports for a tool that a closed pipe stopped), and
the files written before the pipe closed are kept, complete."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from anonkit.cli.common import STDOUT_CLOSED

DATA = "zip,age,disease\n" + "".join(
    f"{z},{a},{d}\n"
    for z, a in [("13053", 21), ("13068", 22), ("14853", 23), ("14850", 34), ("14851", 35)]
    for d in ("flu", "cold")
)

CONFIG = """input = "data.csv"
output = "release.csv"

[attributes]
sensitive = ["disease"]

[hierarchies]
zip = {type = "masking"}
age = {type = "intervals", widths = [10, 20]}

[privacy]
k = 2
"""


def _closed(args: list[str], cwd: Path) -> tuple[int, str]:
    """Run ``python -m anonkit args`` with its stdout's reader gone before it prints."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "anonkit", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    proc.stdout.close()  # like `| head -0`: nobody reads
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err


def test_the_exit_code_is_128_plus_sigpipe() -> None:
    assert STDOUT_CLOSED == 141


def test_help_into_a_closed_pipe(tmp_path: Path) -> None:
    code, err = _closed(["--help"], tmp_path)
    assert (code, err) == (STDOUT_CLOSED, "")


def test_commands_into_a_closed_pipe_keep_their_files(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text(DATA)
    (tmp_path / "config.toml").write_text(CONFIG)
    code, err = _closed(["anonymize", "config.toml", "-o", "release.csv"], tmp_path)
    assert (code, err) == (STDOUT_CLOSED, "")
    assert (tmp_path / "release.csv").read_text().count("\n") == 11  # written before printing
    code, err = _closed(
        ["evaluate", "data.csv", "release.csv", "-c", "config.toml", "--json", "ev.json"],
        tmp_path,
    )
    assert (code, err) == (STDOUT_CLOSED, "")
    assert "dataset" in json.loads((tmp_path / "ev.json").read_text())
    code, err = _closed(["check", "release.csv", "-c", "config.toml", "--json"], tmp_path)
    assert (code, err) == (STDOUT_CLOSED, "")
    code, err = _closed(["check", "release.csv", "-c", "config.toml"], tmp_path)
    assert (code, err) == (STDOUT_CLOSED, "")
