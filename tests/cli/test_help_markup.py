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


@pytest.mark.parametrize(
    "command",
    ["anonymize", "app", "check", "demo", "evaluate", "init", "study", "reproduce", "release"],
)
def test_option_names_are_whole_on_an_80_column_terminal(command: str) -> None:
    """`anonkit evaluate --help` showed '--population-si…' and '--class-attribu…' on an
    80-column terminal: the name a user has to type, cut."""
    out = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "80"}).output
    assert "Usage" in out
    cut = [word for word in out.split() if word.startswith("-") and word.endswith("…")]
    assert not cut


def test_positional_arguments_show_their_help() -> None:
    """With click 8.5.0, typer's Argument(help=...) vanished from --help: `anonkit check
    --help` showed `data PATH [required]` and nothing about what the file is."""
    out = CliRunner().invoke(app, ["check", "--help"], env={"COLUMNS": "200"}).output
    assert "Table to measure" in out
