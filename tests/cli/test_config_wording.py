"""``anonkit anonymize CONFIG.toml``: a value that the API refuses only in combination with
another (after loading) is told by its TOML key, its section and the file, not as a
parameter of ``anonymize`` that a TOML user never wrote (or by the command's flag, when a
flag gave it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from anonkit.cli.main import app
from anonkit.cli.wording import toml_wording
from anonkit.config import AnonymizeConfig, parse_config
from anonkit.exceptions import ConfigError, ParameterError
from anonkit.io.toml import read_toml

runner = CliRunner()

#: Record values that no message may show.
SECRETS = ("Quokka", "Xylophonist")
TABLE = "age,kind\n" + "".join(
    f"{age},{SECRETS[i % 2]}\n" for i, age in enumerate((31, 34, 35, 38, 41, 44, 47, 49))
)
HIERARCHIES = (
    '[hierarchies]\nage = { type = "intervals", widths = [10] }\n'
    'kind = [["Quokka", "*"], ["Xylophonist", "*"]]\n'
)


def write_config(folder: Path, *, privacy: str = "k = 2", **sections: str) -> Path:
    """A run configuration of the 8-record table: ``sections`` adds the lines of
    [attributes], [search] or [release]."""
    (folder / "t.csv").write_text(TABLE, encoding="utf-8")
    text = f'input = "t.csv"\n{HIERARCHIES}[privacy]\n{privacy}\n'
    for name, body in sections.items():
        text += f"[{name}]\n{body}\n"
    path = folder / "t.toml"
    path.write_text(text, encoding="utf-8")
    return path


def error_line(folder: Path, config: Path, *flags: str) -> str:
    """The one stderr line of a run that exits 2."""
    result = runner.invoke(app, ["anonymize", str(config), "-o", str(folder / "o.csv"), *flags])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert not (folder / "o.csv").exists()
    assert not any(secret in lines[0] for secret in SECRETS)
    return lines[0]


def test_the_working_configuration_runs(tmp_path: Path) -> None:
    """The table and hierarchies of these tests anonymize (the errors below are the
    keys' own)."""
    config = write_config(tmp_path, search='algorithm = "mondrian"')
    result = runner.invoke(app, ["anonymize", str(config), "-o", str(tmp_path / "o.csv")])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("sections", "key", "told"),
    [
        (
            {"search": 'algorithm = "mondrian"\nmetric = "height"'},
            "[search] metric",
            'must be left out with algorithm = "mondrian", which would ignore it (a '
            "full-domain keyword of the algorithms with a parameter 'metric'). Got 'height' "
            "instead.",
        ),
        (
            {"search": 'algorithm = "flash"\nmode = "relaxed"'},
            "[search] mode",
            'must be left out with algorithm = "flash" (it is a parameter of algorithm = '
            "\"mondrian\", which would use it). Got 'relaxed' instead.",
        ),
        (
            {"search": 'algorithm = "hilbert"\ntime_limit = 5'},
            "[search] time_limit",
            'must be left out with algorithm = "hilbert", which would ignore it',
        ),
        (
            {"search": 'algorithm = "flash"\noptions = { epsilon = 1.0 }'},
            "[search] options",
            'must be empty with algorithm = "flash"',
        ),
        (
            {"attributes": 'numeric = ["age"]', "search": 'algorithm = "flash"'},
            "[attributes] numeric",
            'must be left out with algorithm = "flash" (it generalizes every quasi-identifier '
            "by its hierarchy; the algorithms that read numbers are 'mondrian',",
        ),
        (
            {"search": 'algorithm = "mondrian"', "release": "local_suppression = true"},
            "[release] local_suppression",
            "must be used with a full-domain algorithm (it blanks cells after a global "
            "recoding). Got 'mondrian' instead.",
        ),
        (
            {"search": 'algorithm = "microaggregation"\nengine = "streaming"'},
            "[search] engine",
            "must be 'polars' or 'auto' with microaggregation (local recoding works record "
            "by record",
        ),
        (
            {"search": 'algorithm = "safepub"\noptions = { epsilon = -1.0 }'},
            "[search.options] epsilon",
            "must be a real number > 0. Got -1.0 instead.",
        ),
    ],
)
def test_a_key_refused_with_another_is_named_by_its_section_and_the_file(
    tmp_path: Path, sections: dict[str, str], key: str, told: str
) -> None:
    """Each was "The '<key>' parameter of anonymize (or of SafePub) must be ...", with
    algorithm='mondrian' spelled as in Python."""
    privacy = "" if "safepub" in sections["search"] else "k = 2"  # SafePub derives its k
    config = write_config(tmp_path, privacy=privacy, **sections)
    line = error_line(tmp_path, config)
    assert line.startswith(f"error: {key} in {config.resolve()} {told}"), line
    assert "' parameter of" not in line and "algorithm='" not in line


def test_a_k_above_the_number_of_records_names_the_key(tmp_path: Path) -> None:
    """It was "The 'k' parameter of KAnonymity must be at most the number of records"."""
    config = write_config(tmp_path, privacy="k = 10")
    line = error_line(tmp_path, config)
    assert line == (
        f"error: [privacy] k in {config.resolve()} must be at most the number of records "
        "(8). Got 10 instead."
    )


def test_a_value_given_by_a_flag_is_named_by_the_flag(tmp_path: Path) -> None:
    """--engine replaces [search] engine: the error names --engine, not the file."""
    config = write_config(tmp_path, search='algorithm = "microaggregation"\nengine = "polars"')
    line = error_line(tmp_path, config, "--engine", "streaming")
    assert line.startswith(
        "error: The '--engine' parameter of anonkit anonymize must be 'polars' or 'auto' "
        "with microaggregation (local recoding works record by record"
    ), line
    assert line.endswith("Got 'streaming' instead.")
    assert "[search]" not in line and str(config.resolve()) not in line


def test_a_flag_without_a_key_in_the_file_is_named_by_the_flag(tmp_path: Path) -> None:
    config = write_config(tmp_path, search='algorithm = "microaggregation"')
    line = error_line(tmp_path, config, "--engine", "streaming")
    assert line.startswith("error: The '--engine' parameter of anonkit anonymize must be")


# ---------------------------------------------------------------- what stays as it was
def loaded(folder: Path, **sections: str) -> tuple[AnonymizeConfig, dict[str, Any]]:
    """The configuration and its parsed file, as ``anonymize`` reads them."""
    path = write_config(folder, **sections)
    data = read_toml(path)
    return parse_config(data, path=path.resolve()), data


def raised_through(err: Exception, folder: Path, **sections: str) -> BaseException:
    cfg, data = loaded(folder, **sections)
    with pytest.raises(Exception) as info, toml_wording(cfg, data):
        raise err
    return info.value


def test_a_parameter_the_file_does_not_give_is_left_as_it_is(tmp_path: Path) -> None:
    """metric is not in the file: the run (not the user) handed it over."""
    err = ParameterError("metric", "anonymize", "left out", "height")
    assert raised_through(err, tmp_path, search='algorithm = "mondrian"') is err


def test_another_owners_parameter_is_left_as_it_is(tmp_path: Path) -> None:
    """A 'mode' of some other function is not [search] mode."""
    err = ParameterError("mode", "evaluate", "'a' or 'b'", "relaxed")
    assert raised_through(err, tmp_path, search='algorithm = "flash"\nmode = "relaxed"') is err


def test_an_engine_the_run_chose_is_left_as_it_is(tmp_path: Path) -> None:
    """engine = "auto" lets the run pick one: the value refused is not the file's."""
    err = ParameterError("engine", "anonymize", "'polars' or 'auto'", "streaming")
    search = 'algorithm = "microaggregation"\nengine = "auto"'
    assert raised_through(err, tmp_path, search=search) is err


def test_a_k_that_a_model_may_have_given_is_left_as_it_is(tmp_path: Path) -> None:
    """With a k_anonymity model besides [privacy] k, KAnonymity's k is either."""
    err = ParameterError("k", "KAnonymity", "at most the number of records (8)", 10)
    privacy = 'k = 10\nmodels = [{ name = "k_anonymity", k = 10 }]'
    assert raised_through(err, tmp_path, privacy=privacy) is err


def test_a_reworded_error_is_a_config_error_with_exit_code_2(tmp_path: Path) -> None:
    err = ParameterError("mode", "anonymize", "left out with algorithm='flash'", "relaxed")
    told = raised_through(err, tmp_path, search='algorithm = "flash"\nmode = "relaxed"')
    assert isinstance(told, ConfigError) and told.exit_code == 2
    assert str(told).startswith("[search] mode in ")
    assert "left out with algorithm = \"flash\". Got 'relaxed' instead." in str(told)
