"""Help texts keep their TOML section names (rich markup once ate ``[privacy]``)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from anonkit.cli.main import app


@pytest.mark.parametrize(
    ("command", "sections"),
    [
        ("check", ["[privacy]"]),
        ("evaluate", ["[attributes]", "[hierarchies]", "[privacy]"]),
        ("anonymize", ["[release]"]),
    ],
)
def test_section_names_survive_in_help(command: str, sections: list[str]) -> None:
    out = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"}).output
    for section in sections:
        assert section in out
    assert "\\[" not in out
