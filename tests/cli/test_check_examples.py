"""``anonkit check`` never shows the values of a failing class that could single people
out: on an original table every failing class is given by its size only; on a release,
a class's values are shown when it has at least two records and every value is
generalized (a hierarchy label above the leaves, or ``*``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
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


# ------------------------------------------------------------------ how the table is read
def _error(result: Any, code: int) -> str:
    """The one error line of a failed command."""
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return str(lines[0])


def test_a_wrong_separator_gets_a_hint(tmp_path: Path) -> None:
    """README (Dirty input) promises a hint for a wrong separator; check said only
    "Unknown column(s) 'zip'; the data has 'zip;age;disease'"."""
    data = tmp_path / "semi.csv"
    data.write_text(RELEASE.replace(",", ";"))
    result = runner.invoke(app, ["check", str(data), "--qi", "zip,age", "--separator", ","])
    line = _error(result, 2)
    assert "Unknown column(s) 'zip'" in line
    assert "read with separator ',' into one column" in line
    assert "use --separator ';'" in line and "set separator" not in line


def _spark_folder(folder: Path, text: str, cuts: list[int]) -> Path:
    """``text`` (a CSV with its header) written as Spark writes a CSV release: a folder
    of part files, each with the header, cut before the records ``cuts``, with
    ``_SUCCESS`` and the ``.crc`` files of Hadoop's local file system."""
    header, *records = text.strip().splitlines()
    folder.mkdir()
    bounds = [0, *cuts, len(records)]
    for i, (start, end) in enumerate(zip(bounds, bounds[1:], strict=False)):
        name = f"part-{i:05d}-1b2c3d4e-aaaa-bbbb-cccc-0123456789ab-c000.csv"
        (folder / name).write_text("\n".join([header, *records[start:end]]) + "\n")
        (folder / f".{name}.crc").write_bytes(b"crc\x00\x01")
    (folder / "_SUCCESS").write_text("")
    (folder / "._SUCCESS.crc").write_bytes(b"crc\x00")
    return folder


def test_a_release_spark_wrote_as_part_files_is_checked(tmp_path: Path) -> None:
    """anonymize with engine = "spark" writes release.csv as a folder of part files;
    check refused it: "Cannot read release.csv: it is a folder; name a file."."""
    config = _files(tmp_path)
    folder = _spark_folder(tmp_path / "spark.csv", RELEASE, [3, 7])
    args = ["-c", str(config), "--json", "--suppression", "0.2"]
    whole = json.loads(_check(str(tmp_path / "release.csv"), *args))
    parts = json.loads(_check(str(folder), *args))
    assert parts.pop("file") == str(folder) and whole.pop("file") == str(tmp_path / "release.csv")
    assert parts == whole and parts["records"] == 10


def test_part_files_are_read_in_part_order(tmp_path: Path) -> None:
    from anonkit.cli.measuring import read_measured

    text = "n,v\n" + "".join(f"{i},x\n" for i in range(12))
    folder = _spark_folder(tmp_path / "r.csv", text, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    frame, info = read_measured(folder)
    assert frame["n"].to_list() == [str(i) for i in range(12)]  # part-00010 after -00009
    assert info.separator == "," and info.columns == ("n", "v")


def test_part_files_are_read_as_strictly_as_one_file(tmp_path: Path) -> None:
    """Each part is read with the same options and refused as a single file would be,
    naming the part; the parts must share one header."""
    folder = _spark_folder(tmp_path / "semi.csv", RELEASE.replace(",", ";"), [5])
    result = runner.invoke(app, ["check", str(folder), "--qi", "zip,age", "--separator", ","])
    assert "use --separator ';'" in _error(result, 2)
    ragged = _spark_folder(tmp_path / "ragged.csv", RELEASE + "148**,30-39\n", [5])
    line = _error(runner.invoke(app, ["check", str(ragged), "--qi", "zip,age"]), 1)
    assert "part-00001-" in line and "line 7" in line
    other = _spark_folder(tmp_path / "other.csv", RELEASE, [5])
    second = sorted(other.glob("part-00001-*.csv"))[0]
    second.write_text(second.read_text().replace("zip,age,disease", "zip,age,illness"))
    line = _error(runner.invoke(app, ["check", str(other), "--qi", "zip,age"]), 1)
    assert second.name in line and "header" in line


def test_a_folder_that_is_not_a_spark_release_says_what_to_do(tmp_path: Path) -> None:
    empty = tmp_path / "empty.csv"
    empty.mkdir()
    (empty / "_SUCCESS").write_text("")
    line = _error(runner.invoke(app, ["check", str(empty), "--qi", "zip"]), 2)
    assert "no part files" in line and "name a file" in line
    stray = _spark_folder(tmp_path / "stray.csv", RELEASE, [5])
    (stray / "notes.txt").write_text("x\n")
    line = _error(runner.invoke(app, ["check", str(stray), "--qi", "zip"]), 2)
    assert "'notes.txt'" in line and "not a part file" in line
    mixed = _spark_folder(tmp_path / "mixed.csv", RELEASE, [5])
    first = sorted(mixed.glob("part-*.csv"))[0]
    pl.read_csv(first).write_parquet(mixed / "part-00002-x-c000.snappy.parquet")
    line = _error(runner.invoke(app, ["check", str(mixed), "--qi", "zip"]), 2)
    assert "both CSV and Parquet part files" in line


def test_parquet_part_files_are_checked(tmp_path: Path) -> None:
    config = _files(tmp_path)
    release = pl.read_csv(tmp_path / "release.csv", infer_schema=False)
    folder = tmp_path / "spark.parquet"
    folder.mkdir()
    for i, part in enumerate((release.slice(0, 4), release.slice(4))):
        part.write_parquet(folder / f"part-{i:05d}-0f0f-c000.snappy.parquet")
        (folder / f".part-{i:05d}-0f0f-c000.snappy.parquet.crc").write_bytes(b"c")
    (folder / "_SUCCESS").write_text("")
    args = ["-c", str(config), "--json", "--suppression", "0.2"]
    whole = json.loads(_check(str(tmp_path / "release.csv"), *args))
    parts = json.loads(_check(str(folder), *args))
    del whole["file"], parts["file"]
    assert parts == whole
