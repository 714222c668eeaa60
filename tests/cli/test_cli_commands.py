"""The ``anonkit`` command line: anonymize, check, demo and the error paths."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from anonkit.cli.main import app
from seed_tables import population_sample

SRC = Path(__file__).resolve().parents[2] / "src"

runner = CliRunner()


@pytest.fixture(scope="module")
def toy(toy_dir: Path) -> Path:
    if not (toy_dir / "test.csv").is_file():
        pytest.skip(f"toy data not found at {toy_dir}")
    return toy_dir


def toy_config(folder: Path, toy: Path, *, extra: str = "", **overrides: str) -> Path:
    hier = {
        "age": f'"{toy / "test_hierarchy_age.csv"}"',
        "gender": f'"{toy / "test_hierarchy_gender.csv"}"',
        "zipcode": f'"{toy / "test_hierarchy_zipcode.csv"}"',
    }
    hier.update(overrides)
    lines = [f'input = "{toy / "test.csv"}"', 'output = "out/release.csv"', extra, "[hierarchies]"]
    lines += [f"{c} = {v}" for c, v in hier.items()]
    lines += ["[privacy]", "k = 2"]
    p = folder / "run.toml"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def run_module(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run(
        [sys.executable, "-m", "anonkit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


# ------------------------------------------------------------------------- anonymize
@pytest.fixture(scope="module")
def toy_run(tmp_path_factory: pytest.TempPathFactory, toy: Path) -> tuple[Path, object]:
    folder = tmp_path_factory.mktemp("anon")
    cfg = toy_config(folder, toy)
    result = runner.invoke(
        app,
        [
            "anonymize",
            str(cfg),
            "--summary",
            str(folder / "summary.json"),
            "--report",
            str(folder / "report.html"),
        ],
    )
    return folder, result


def test_anonymize_writes_release_and_summary(toy_run: tuple[Path, object], toy: Path) -> None:
    folder, result = toy_run
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    release_path = folder / "out" / "release.csv"  # relative to the config's folder
    release = pl.read_csv(release_path, infer_schema=False)
    original = pl.read_csv(toy / "test.csv", separator=";", infer_schema=False)
    assert release.columns == original.columns  # no index column
    assert release.height == original.height
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["n_records"] == original.height
    assert summary["classes"]["min_size"] >= 2
    assert set(summary["transformation"]) == {"age", "gender", "zipcode"}
    # no leftovers of the atomic writes
    assert not [p for p in folder.rglob(".*.tmp")]


def test_anonymize_prints_summary_without_records(toy_run: tuple[Path, object], toy: Path) -> None:
    _, result = toy_run
    out = result.stdout  # type: ignore[attr-defined]
    for word in ("transformation", "suppressed", "classes", "achieved k", "loss", "timing"):
        assert word in out
    for zip_code in ("81667", "81675", "81925"):
        assert zip_code not in out


def test_anonymize_report_is_self_contained(toy_run: tuple[Path, object]) -> None:
    folder, _ = toy_run
    html = (folder / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert "achieved k" in html and "Information loss" in html
    assert "http://" not in html and "https://" not in html and "<script" not in html
    for zip_code in ("81667", "81675", "81925"):
        assert zip_code not in html


def test_output_option_overrides_config(tmp_path: Path, toy: Path) -> None:
    cfg = toy_config(
        tmp_path, toy, age='{ type = "intervals", widths = [50] }', zipcode='{ type = "masking" }'
    )
    target = tmp_path / "elsewhere" / "r.parquet"
    result = runner.invoke(app, ["anonymize", str(cfg), "-o", str(target), "--quiet"])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert pl.read_parquet(target).height == 7
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------------- errors
@pytest.mark.parametrize("option", ["-o", "--summary", "--html"])
def test_an_unwritable_output_fails_before_the_work(tmp_path: Path, toy: Path, option: str) -> None:
    cfg = toy_config(
        tmp_path, toy, age='{ type = "intervals", widths = [50] }', zipcode='{ type = "masking" }'
    )
    (tmp_path / "a_file").write_text("x", encoding="utf-8")
    target = tmp_path / "a_file" / ("r.html" if option == "--html" else "r.csv")
    result = runner.invoke(app, ["anonymize", str(cfg), option, str(target)])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: Cannot write {target}: ")
    assert "not a folder" in result.stderr and "Anonymization summary" not in result.stdout
    assert not (tmp_path / "out").exists()  # the configured release was not written either


def test_a_built_hierarchy_covers_the_population_as_the_api_builds_it(tmp_path: Path) -> None:
    """The command built an intervals hierarchy over the sample only, so a population
    holding ages beyond the sample's stopped it ('not in the hierarchy'), while
    anonymize() and the app (whose exported configuration this is) built it over both."""
    import anonkit

    sample = pl.DataFrame({"age": [20 + i % 30 for i in range(60)], "sex": ["m", "f"] * 30})
    population = pl.concat([sample, sample.with_columns(pl.col("age") + 40)])
    sample.write_csv(tmp_path / "data.csv")
    population.write_csv(tmp_path / "population.csv")
    (tmp_path / "run.toml").write_text(
        'input = "data.csv"\noutput = "out.csv"\n'
        '[attributes]\nquasi_identifiers = ["age", "sex"]\n'
        '[hierarchies]\nage = { type = "intervals", widths = [10, 20] }\n'
        'sex = { type = "suppression" }\n'
        '[privacy]\nk = 2\npopulation = "population.csv"\n'
        'models = [{ name = "k_map", k = 2 }]\n',
        encoding="utf-8",
    )
    done = runner.invoke(app, ["anonymize", str(tmp_path / "run.toml"), "-q"])
    assert done.exit_code == 0, done.output
    api = anonkit.anonymize(
        sample.with_columns(pl.col("age").cast(pl.String)),
        quasi_identifiers=["age", "sex"],
        hierarchies={"age": {"type": "intervals", "widths": [10, 20]}, "sex": None},
        k=2,
        privacy=[anonkit.models.KMap(2)],
        population=population.with_columns(pl.col("age").cast(pl.String)),
    )
    released = pl.read_csv(tmp_path / "out.csv", infer_schema=False)
    assert released.equals(api.release)


@pytest.mark.parametrize("engine", ["polars", "streaming"])
def test_errors_about_the_population_table_name_its_file(tmp_path: Path, engine: str) -> None:
    """They said "the data" ("Unknown column(s) 'sex'; the data has 'id', ..."; "1
    value(s) of the data are not in the hierarchy"), which has both."""
    sample = pl.DataFrame(population_sample())
    sample.write_csv(tmp_path / "in.csv")
    population = pl.concat([sample] * 3)
    population.drop("sex").write_csv(tmp_path / "pop.csv")
    other = population.head(1).with_columns(sex=pl.lit("other"))
    pl.concat([population, other]).write_csv(tmp_path / "other.csv")
    config = (
        'input = "in.csv"\n[attributes]\nidentifying = ["id"]\nsensitive = ["disease"]\n'
        '[hierarchies]\nage = { type = "intervals", widths = [10, 20] }\n'
        'sex = [["male","*"],["female","*"]]\nzip = { type = "masking" }\n'
        '[privacy]\npopulation = "pop.csv"\nmodels = [{ name = "k_map", k = 3 }]\n'
    )
    (tmp_path / "run.toml").write_text(config, encoding="utf-8")
    (tmp_path / "other.toml").write_text(config.replace("pop.csv", "other.csv"))
    out = tmp_path / "out.csv"
    args = ["-o", str(out), "--engine", engine]
    lacking = runner.invoke(app, ["anonymize", str(tmp_path / "run.toml"), *args])
    assert lacking.exit_code == 2, lacking.output
    assert lacking.stderr == (
        f"error: Unknown column(s) 'sex'; the population table {tmp_path / 'pop.csv'} has "
        "'id', 'age', 'zip', 'disease'.\n"
    )
    outside = runner.invoke(app, ["anonymize", str(tmp_path / "other.toml"), *args])
    assert outside.exit_code == 1, outside.output
    assert outside.stderr == (
        "error: Hierarchy for column 'sex': 1 value(s) of the population table "
        f"{tmp_path / 'other.csv'} are not in the hierarchy: 'other'.\n"
    )
    assert not out.exists()


def test_check_and_evaluate_name_the_population_file_too(tmp_path: Path) -> None:
    """anonymize named the population table's file; check and evaluate said "the
    population table" without it."""
    sample = pl.DataFrame(population_sample()).with_columns(pl.col("age").cast(pl.String))
    sample.write_csv(tmp_path / "in.csv")
    pl.concat([sample] * 3).drop("sex").write_csv(tmp_path / "pop.csv")
    config = (
        'input = "in.csv"\n[attributes]\nquasi_identifiers = ["age", "sex"]\n'
        'identifying = ["id", "zip"]\nsensitive = ["disease"]\n'
        '[hierarchies]\nsex = [["male","*"],["female","*"]]\n'
        '[privacy]\npopulation = "pop.csv"\nmodels = [{ name = "k_map", k = 3 }]\n'
    )
    (tmp_path / "run.toml").write_text(config, encoding="utf-8")
    said = f"the population table {tmp_path / 'pop.csv'} has 'id', 'age', 'zip', 'disease'"
    data = str(tmp_path / "in.csv")
    for args in (
        ["check", data, "--config", str(tmp_path / "run.toml")],
        ["evaluate", data, data, "--config", str(tmp_path / "run.toml")],
    ):
        result = runner.invoke(app, [*args, "--no-progress"])
        assert result.exit_code == 2 and said in result.stderr, (args[0], result.stderr)


def test_naming_population_names_the_file_where_the_message_is_plain() -> None:
    from anonkit.cli.common import naming_population
    from anonkit.exceptions import POPULATION_TABLE, MissingValuesError, UnknownColumnError

    path = Path("pop.csv")
    with pytest.raises(MissingValuesError) as err:
        with naming_population(path):
            raise MissingValuesError("sex", 3, table=POPULATION_TABLE)
    assert str(err.value).startswith("Column 'sex' of the population table pop.csv has 3")
    assert (err.value.column, err.value.count) == ("sex", 3)
    assert err.value.table == "population table pop.csv"
    data = UnknownColumnError(["sex"], ["age"])  # the data's errors pass unchanged
    odd = UnknownColumnError(["the population table"], ["age"], POPULATION_TABLE)
    for raised in (data, odd):  # a column spelled as the label: left as it is
        with pytest.raises(UnknownColumnError) as same:
            with naming_population(path):
                raise raised
        assert same.value is raised


def test_missing_config_file_subprocess(tmp_path: Path) -> None:
    proc = run_module("anonymize", "missing.toml", cwd=tmp_path)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ") and "missing.toml" in lines[0]
    assert "Traceback" not in proc.stderr


def test_unknown_column_exits_2(tmp_path: Path, toy: Path) -> None:
    cfg = toy_config(tmp_path, toy, extra="", nope='{ type = "masking" }')
    cfg.write_text(
        cfg.read_text().replace(
            "[hierarchies]",
            '[attributes]\nquasi_identifiers = ["age", "gender", "zipcode", "nope"]\n[hierarchies]',
        )
    )
    result = runner.invoke(app, ["anonymize", str(cfg)])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert "'nope'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_value_missing_from_hierarchy_exits_1_and_writes_nothing(tmp_path: Path, toy: Path) -> None:
    partial = tmp_path / "gender.csv"
    partial.write_text("male;*\n", encoding="utf-8")  # 'female' is missing
    cfg = toy_config(tmp_path, toy, gender=f'"{partial}"')
    result = runner.invoke(
        app,
        [
            "anonymize",
            str(cfg),
            "--summary",
            str(tmp_path / "s.json"),
            "--report",
            str(tmp_path / "r.html"),
        ],
    )
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: ")
    assert "gender" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "s.json").exists() and not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("engine", ["polars", "streaming"])
def test_stray_text_in_an_intervals_column_exits_1_naming_the_value(
    tmp_path: Path, engine: str
) -> None:
    """'3l' among ages exited 2 with "The 'values' parameter of intervals() for column
    'age' must be numbers or numeric strings": a usage error, in the API's words."""
    (tmp_path / "s.csv").write_text("age,sex\n31,m\n3l,f\n31,m\n40,f\n", encoding="utf-8")
    (tmp_path / "s.toml").write_text(
        'input = "s.csv"\n[hierarchies]\nage = { type = "intervals", widths = [10] }\n'
        'sex = [["m","*"],["f","*"]]\n[privacy]\nk = 2\n',
        encoding="utf-8",
    )
    out = tmp_path / "rs.csv"
    result = runner.invoke(app, ["anonymize", str(tmp_path / "s.toml"), "-o", str(out),
                                 "--engine", engine])  # fmt: skip
    assert result.exit_code == 1, result.output
    record = " (record 2)" if engine == "polars" else ""  # in memory, the record is known
    assert result.stderr == (
        "error: Column 'age' has an intervals hierarchy, whose values must be numbers or "
        f"numeric strings, but holds '3l'{record}.\n"
    )
    assert not out.exists()


def test_existing_release_untouched_by_failed_run(tmp_path: Path, toy: Path) -> None:
    (tmp_path / "out").mkdir()
    old = tmp_path / "out" / "release.csv"
    old.write_text("previous release\n")
    cfg = toy_config(tmp_path, toy)
    cfg.write_text(cfg.read_text().replace("k = 2", "k = 100"))  # more than the records
    result = runner.invoke(app, ["anonymize", str(cfg)])
    assert result.exit_code == 2
    assert old.read_text() == "previous release\n"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["release.csv"]


def test_invalid_config_exits_2(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text('input = "x.csv"\n[hierarchies]\na = "a.csv"\n[privacy]\nk = "5"\n')
    result = runner.invoke(app, ["anonymize", str(cfg)])
    assert result.exit_code == 2
    assert "privacy.k" in result.stderr


# ------------------------------------------------------------------------- check
@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    rows = ["a;b", *["1;x"] * 3, *["2;y"] * 2, "3;z", "*;*"]
    p = tmp_path / "tiny.csv"
    p.write_text("\n".join(rows) + "\n")
    return p


def test_check_json_numbers(tiny: Path) -> None:
    # told the release may suppress records, the '*;*' record is a suppressed one
    args = ["check", str(tiny), "--qi", "a,b", "-k", "3", "--suppression", "0.2", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["min_size"] == 1
    assert data["n_classes"] == 3
    assert data["sample_uniques"] == 1
    assert data["below_k"] == 3
    assert data["classes_below_k"] == 2
    assert data["suppressed"] == 1
    assert data["histogram"]["1"] == 1 and data["histogram"]["2"] == 1
    assert data["histogram"]["3-4"] == 1
    # the table's "records" line counts every row; n_records those outside suppression
    assert data["records"] == data["n_records"] + data["suppressed"]


def test_check_table_output(tiny: Path) -> None:
    result = runner.invoke(app, ["check", str(tiny), "--qi", "a, b", "-k", "2"])
    assert result.exit_code == 0  # a measurement: not 2-anonymous, still exit 0
    out = result.stdout
    assert "achieved k" in out and "sample uniques" in out and "suppressed" in out
    assert "Class size distribution" in out


def test_check_unknown_column(tiny: Path) -> None:
    result = runner.invoke(app, ["check", str(tiny), "--qi", "a,zzz"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and "'zzz'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_check_missing_data_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["check", str(tmp_path / "none.csv"), "--qi", "a"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")


# ------------------------------------------------------------------------- demo
def test_demo(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = runner.invoke(app, ["demo", "--output-dir", str(out)])
    assert result.exit_code == 0, result.output
    assert {p.name for p in out.iterdir()} == {"release.csv", "summary.json", "report.html"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_records"] == 30162
    assert summary["classes"]["min_size"] >= 5
    assert summary["suppressed_share"] <= 0.04
    assert "achieved k" in result.stdout
    header = (out / "release.csv").read_text().splitlines()[0].split(",")
    assert len(header) == 9


def test_demo_refuses_a_file_as_output_folder_before_any_work(tmp_path: Path) -> None:
    # It ran the whole search, then failed with "Cannot write or read ...: File exists".
    taken = tmp_path / "taken"
    taken.write_text("mine")
    result = runner.invoke(app, ["demo", "--output-dir", str(taken), "--quiet"])
    assert result.exit_code == 2
    assert "is a" in result.stderr and "file." in result.stderr  # the box may wrap it
    assert taken.read_text() == "mine"


def test_version_and_help() -> None:
    assert runner.invoke(app, ["--version"]).stdout.startswith("anonkit ")
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("anonymize", "check", "demo"):
        assert command in result.stdout


def test_a_polars_error_is_one_line_without_its_message(
    tmp_path: Path, toy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """polars' errors quote the data they stopped on (a CSV field never closed: every
    record after it). A command prints its kind on one line, not its message, unless
    ANONKIT_SHOW_ERRORS asks for the traceback."""
    import anonkit.cli.anonymize as anonymize_cli

    def failing(*args: object, **kwargs: object) -> None:
        raise pl.exceptions.ComputeError('Field `"secret,row\nnext,row` is not escaped')

    monkeypatch.setattr(anonymize_cli, "run_config", failing)
    cfg = toy_config(
        tmp_path, toy, age='{ type = "intervals", widths = [50] }', zipcode='{ type = "masking" }'
    )
    result = runner.invoke(app, ["anonymize", str(cfg)])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: polars stopped on the data (ComputeError)")
    assert "secret" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    shown = runner.invoke(app, ["anonymize", str(cfg)], env={"ANONKIT_SHOW_ERRORS": "1"})
    assert isinstance(shown.exception, pl.exceptions.ComputeError)
