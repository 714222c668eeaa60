"""``import anonkit`` stays light: no optional heavy dependencies, and numba (Mondrian's
compiled engine) only when that engine first runs."""

from __future__ import annotations

from fresh_python import fresh_stdout


def test_import_does_not_pull_optional_dependencies() -> None:
    code = (
        "import sys, anonkit\n"
        "heavy = ['pyspark', 'matplotlib', 'sklearn', 'jinja2', 'numba']\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    assert fresh_stdout(code) == ""
