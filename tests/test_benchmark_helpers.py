"""The benchmarks' shared helpers must not change what they measure."""

from __future__ import annotations

from pathlib import Path

from fresh_python import fresh_stdout

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def test_machine_info_reads_versions_without_importing_numba() -> None:
    """Importing numba switches the roll-ups to the compiled kernels
    (anonkit.core.grouping.compiled_ready): machine_info imported it to read its version,
    so every 'fresh process' run of anonymize_adult.py ran compiled."""
    code = (
        f"import sys; sys.path.insert(0, {str(BENCHMARKS)!r}); import _common; "
        "info = _common.machine_info(); "
        "print('numba' in sys.modules, info['numba'] != 'not installed')"
    )
    assert fresh_stdout(code) == "False True"
