"""In a narrow terminal the summary tables wrap long values and names instead of
cropping them with '…'."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from anonkit.cli.main import app

runner = CliRunner()

DATA = "zip-of-residence,age-in-years,marital-status,disease\n" + "".join(
    f"{z},{a},{m},{d}\n"
    for z, a, m, d in [
        ("13053", 21, "Never-married", "flu"),
        ("13068", 22, "Married", "cold"),
        ("14853", 23, "Never-married", "flu"),
        ("14853", 23, "Married", "cold"),
        ("14850", 34, "Divorced", "cancer"),
        ("14851", 35, "Never-married", "flu"),
        ("14852", 36, "Married", "cold"),
        ("14852", 37, "Divorced", "flu"),
    ]
)

CONFIG = """input = "data.csv"
output = "release.csv"

[attributes]
sensitive = ["disease"]

[hierarchies]
zip-of-residence = {type = "masking"}
age-in-years = {type = "intervals", widths = [10, 20]}
marital-status = {type = "suppression"}

[privacy]
k = 2
"""


def _files(folder: Path) -> Path:
    (folder / "data.csv").write_text(DATA)
    (folder / "config.toml").write_text(CONFIG)
    return folder / "config.toml"


def _run(*args: str) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "40"})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_anonymize_summary_is_not_cropped(tmp_path: Path) -> None:
    config = _files(tmp_path)
    out = _run("anonymize", str(config), "-o", str(tmp_path / "release.csv"))
    assert "transformation" in out
    assert "…" not in out


def test_check_and_evaluate_are_not_cropped(tmp_path: Path) -> None:
    config = _files(tmp_path)
    release = tmp_path / "release.csv"
    _run("anonymize", str(config), "-o", str(release), "-q")
    out = _run("check", str(release), "-c", str(config), "-k", "5")
    assert "achieved k" in out
    assert "…" not in out
    out = _run("evaluate", str(tmp_path / "data.csv"), str(release), "-c", str(config))
    assert "…" not in out
