"""``anonkit check`` never shows the values of a failing class that could single people
out: on an original table every failing class is given by its size only; on a release,
a class's values are shown when it has at least two records and every value is
generalized (a hierarchy label above the leaves, or ``*``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from anonkit.cli.main import app

runner = CliRunner()

ORIGINAL = """zip,age,disease
13053,21,flu
13068,22,cold
14853,23,flu
14853,23,cold
14850,34,cancer
14851,35,flu
14852,36,cold
14852,37,flu
"""

#: A release of it and more: 130**/20-29 (2 records, generalized: shown), 148**/20-29
#: (1 record: withheld), 14853/30-39 (2 records, a leaf: withheld), 148**/30-39 (3: passes)
#: and */* (2 records, all '*': shown).
RELEASE = """zip,age,disease
130**,20-29,flu
130**,20-29,cold
148**,20-29,flu
14853,30-39,cold
14853,30-39,flu
148**,30-39,cancer
148**,30-39,flu
148**,30-39,cold
*,*,flu
*,*,cold
"""

ZIP = "\n".join(f"{z};{z[:3]}**;*" for z in ("13053", "13068", "14850", "14851", "14852", "14853"))
AGE = "\n".join(f"{a};{a // 10 * 10}-{a // 10 * 10 + 9};*" for a in (21, 22, 23, 34, 35, 36, 37))

CONFIG = """input = "original.csv"

[attributes]
sensitive = ["disease"]

[hierarchies]
zip = "zip.csv"
age = "age.csv"

[privacy]
k = 3
"""


def _files(folder: Path) -> Path:
    (folder / "original.csv").write_text(ORIGINAL)
    (folder / "release.csv").write_text(RELEASE)
    (folder / "zip.csv").write_text(ZIP + "\n")
    (folder / "age.csv").write_text(AGE + "\n")
    (folder / "config.toml").write_text(CONFIG)
    return folder / "config.toml"


def _check(*args: str) -> str:
    result = runner.invoke(app, ["check", *args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


def _model(out: str) -> dict[str, Any]:
    (model,) = json.loads(out)["requested_models"]
    assert isinstance(model, dict)
    return model


def test_an_original_table_shows_no_failing_values(tmp_path: Path) -> None:
    config = _files(tmp_path)
    data = str(tmp_path / "original.csv")
    text = _check(data, "-c", str(config))
    for value in ("13053", "13068", "1485", " 21 ", " 34 ", " 37 "):
        assert value not in text, value
    assert "withheld" in text
    model = _model(_check(data, "-c", str(config), "--json"))
    assert model["examples"] == []
    assert model["example_sizes"] == []
    assert sorted(model["withheld_example_sizes"]) == [1, 1, 1, 1, 1, 1, 2]


def test_a_release_shows_generalized_classes_of_two_or_more(tmp_path: Path) -> None:
    config = _files(tmp_path)
    data = str(tmp_path / "release.csv")
    model = _model(_check(data, "-c", str(config), "--json"))
    shown = [(e["zip"], e["age"]) for e in model["examples"]]
    assert sorted(zip(shown, model["example_sizes"], strict=True)) == [
        (("*", "*"), 2),
        (("130**", "20-29"), 2),
    ]
    assert sorted(model["withheld_example_sizes"]) == [1, 2]
    text = _check(data, "-c", str(config))
    assert "130**" in text
    assert "14853" not in text  # a leaf: the original value
    assert "withheld" in text


def test_without_a_configuration_no_class_is_listed(tmp_path: Path) -> None:
    _files(tmp_path)
    data = str(tmp_path / "release.csv")
    text = _check(data, "--qi", "zip,age", "-k", "3")
    # no model requested without a configuration: no failing classes listed at all
    assert "14853" not in text and "130**" not in text


def test_the_rule_is_in_the_help() -> None:
    result = runner.invoke(app, ["check", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "withheld" in result.stdout
