"""``anonkit init``: a starter configuration from a profile of the data."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import typer
from typer.testing import CliRunner

from anonkit.cli.init import init_command
from anonkit.cli.main import app as main_app
from anonkit.config import load_config
from anonkit.core.hierarchy_builders import build_hierarchy
from anonkit.io.tables import read_table

runner = CliRunner()
app = typer.Typer()
app.command("init")(init_command)
app.command("unused")(lambda: None)  # two commands keep 'init' a subcommand

ROLE_KEYS = ("quasi_identifiers", "identifying", "sensitive", "insensitive")


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["init", *args])
    return result.exit_code, result.stdout, result.stderr


def roles(config: dict[str, object]) -> dict[str, str]:
    attributes = config["attributes"]
    assert isinstance(attributes, dict)
    out: dict[str, str] = {}
    for key in ROLE_KEYS:
        for column in attributes[key]:
            assert column not in out, f"{column} has two roles"
            out[column] = key
    return out


@pytest.fixture(scope="module")
def adult_full_file(shared_data: Path) -> Path:
    path = shared_data / "adult" / "adult_full.csv"
    if not path.is_file():
        pytest.skip(f"raw Adult file not found at {path}")
    return path


def test_init_on_raw_adult(adult_full_file: Path, tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    code, out, err = run(str(adult_full_file), "-o", str(target))
    assert code == 0, err
    assert "starter configuration written to" in out and "education-num" in out
    text = target.read_text(encoding="utf-8")
    config = tomllib.loads(text)
    columns = read_table(adult_full_file).columns
    proposed = roles(config)
    assert sorted(proposed) == sorted(columns)  # every column exactly one role
    assert proposed["education-num"] == "quasi_identifiers"
    assert proposed["fnlwgt"] == "identifying"
    assert proposed["salary-class"] == "sensitive"
    assert proposed["age"] == "quasi_identifiers"
    # '?' is found but kept as a value (quasi-identifiers cannot be missing)
    assert '# missing = ["", "?"]' in target.read_text(encoding="utf-8")
    assert config["read"] == {"separator": ",", "encoding": "utf-8", "missing": [""],
                              "strip": False, "decimal_comma": False}  # fmt: skip
    assert config["privacy"] == {"k": 5, "suppression_limit": 0.05}
    assert config["search"] == {"algorithm": "auto"}
    assert config["hierarchies"]["age"] == {"type": "intervals", "widths": [5, 10, 20]}
    assert set(config["hierarchies"]) == set(config["attributes"]["quasi_identifiers"])
    assert (tmp_path / config["input"]).resolve() == adult_full_file.resolve()
    assert "Bachelors" not in text and "United-States" not in text  # no values


def test_every_proposed_hierarchy_builds(adult_full_file: Path, tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    assert run(str(adult_full_file), "-o", str(target))[0] == 0
    config = tomllib.loads(target.read_text(encoding="utf-8"))
    read = config["read"]
    frame = read_table(
        adult_full_file,
        separator=read["separator"],
        encoding=read["encoding"],
        missing=read["missing"],
        strip=read["strip"],
    )
    for column, spec in config["hierarchies"].items():
        values = frame.get_column(column).drop_nulls().unique().to_list()
        hierarchy = build_hierarchy(spec, values, name=column)
        assert hierarchy.height >= 2
    cfg = load_config(target)  # the configuration loader accepts every key
    assert "education-num" in cfg.quasi_identifiers


def test_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    data = tmp_path / "people.csv"
    data.write_text("age,sex\n31,F\n45,M\n31,M\n45,F\n", encoding="utf-8")
    target = tmp_path / "config.toml"
    target.write_text("keep me", encoding="utf-8")
    code, _, err = run(str(data), "-o", str(target))
    assert code == 2 and "--force" in err
    assert target.read_text(encoding="utf-8") == "keep me"
    code, _, err = run(str(data), "-o", str(target), "--force", "-q")
    assert code == 0, err
    assert tomllib.loads(target.read_text(encoding="utf-8"))["input"] == "people.csv"


def test_missing_data_file_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = run(str(tmp_path / "nope.csv"), "-o", str(tmp_path / "c.toml"))
    assert code == 2 and err.startswith("error:")
    assert not (tmp_path / "c.toml").exists()


def test_email_column_is_identifying(tmp_path: Path) -> None:
    n = 40
    frame = pl.DataFrame(
        {
            "contact": [f"user{i}@example.org" for i in range(n)],
            "age": [str(20 + i % 30) for i in range(n)],
            "sex": ["F", "M"] * (n // 2),
            "diagnosis": ["flu", "cold", "asthma", "flu"] * (n // 4),
        }
    )
    data = tmp_path / "patients.csv"
    frame.write_csv(data)
    target = tmp_path / "config.toml"
    code, out, err = run(str(data), "-o", str(target))
    assert code == 0, err
    proposed = roles(tomllib.loads(target.read_text(encoding="utf-8")))
    assert proposed == {
        "contact": "identifying",
        "age": "quasi_identifiers",
        "sex": "quasi_identifiers",
        "diagnosis": "sensitive",
    }
    assert "user1@" not in out and "user1@" not in target.read_text(encoding="utf-8")


def test_read_options_detected_and_given(tmp_path: Path) -> None:
    data = tmp_path / "raw.csv"
    rows = ["age, sex, zip, income"] + [
        f"{20 + i % 50}, {'FM'[i % 2]}, {'NA' if i % 9 == 0 else f'0{2100 + i % 7}'}, {i % 4}"
        for i in range(60)
    ]
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    target = tmp_path / "config.toml"
    assert run(str(data), "-o", str(target))[0] == 0
    config = tomllib.loads(target.read_text(encoding="utf-8"))
    assert config["read"]["strip"] is True and config["read"]["missing"] == [""]
    # 'NA' stays a value of zip, so zip codes no longer share one length: suppression
    assert config["hierarchies"]["zip"] == {"type": "suppression"}
    assert "'NA' found" in target.read_text(encoding="utf-8")
    code, _, err = run(str(data), "-o", str(target), "--force", "--no-strip", "--missing",
                       "NA,-", "--separator", ",")  # fmt: skip
    assert code == 0, err
    config = tomllib.loads(target.read_text(encoding="utf-8"))
    assert config["read"]["strip"] is False and config["read"]["missing"] == ["", "NA", "-"]
    assert config["read"]["separator"] == ","


def test_reading_and_profiling_show_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both take seconds on a large table (4 million rows: 2.8 s and 3.3 s): each is a
    step of the progress display, which --progress forces on."""
    import contextlib

    import anonkit.cli.init as init_module

    seen: list[tuple[bool | None, list[str]]] = []

    @contextlib.contextmanager
    def recording(progress: bool | None, quiet: bool = False) -> Any:
        class Bar:
            def __call__(self, done: int, total: int) -> None: ...

            def stage(self, name: str, unit: str = "") -> None:
                seen[-1][1].append(name)

        seen.append((progress, []))
        yield Bar()

    monkeypatch.setattr(init_module, "progress_reporter", recording)
    data = tmp_path / "d.csv"
    data.write_text("age,sex\n31,f\n45,m\n", encoding="utf-8")
    code, _, err = run(str(data), "-o", str(tmp_path / "c.toml"), "--progress")
    assert code == 0, err
    assert seen == [(True, ["Reading d.csv", "Profiling the columns"])]


@pytest.mark.parametrize("width", [60, 80, 200])
def test_reasons_stay_readable_on_a_narrow_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    """A long column name left the reasons 3 characters wide on an 80-column terminal,
    one word per line ('no', 'ru…', 'ma…'); every reason must read as a sentence and every
    column name whole, whatever the width."""
    monkeypatch.setenv("COLUMNS", str(width))
    n = 40
    frame = pl.DataFrame(
        {
            "default-payment-next-month": [str(i % 2) for i in range(n)],
            "account_balance_in_euro": [str(100 * i) for i in range(n)],
            "sex": ["F", "M"] * (n // 2),
        }
    )
    data = tmp_path / "credit.csv"
    frame.write_csv(data)
    code, out, err = run(str(data), "-o", str(tmp_path / "config.toml"))
    assert code == 0, err
    assert max(len(line.rstrip()) for line in out.splitlines()) <= width
    assert "default-payment-next-month" in out and "account_balance_in_euro" in out
    assert "…" not in out
    flat = " ".join(out.split())  # the reasons may wrap, but only between words
    assert "no rule matched: generalized to be safe; make it insensitive if no outside data" in flat
    assert "demographic; outside data can hold it" in flat


def test_decimal_commas_are_detected_and_read_as_numbers(tmp_path: Path) -> None:
    """A ';' file from a country that writes decimal commas: the weights were profiled as
    near-unique text and proposed for removal; now init reads them as numbers and says
    so in [read], and a run generalizes them into intervals."""
    data = tmp_path / "patients.csv"
    rows = ["age;weight;sex"] + [
        f"{20 + i % 40};{50 + i % 30},{i % 10};{'FM'[i % 2]}" for i in range(200)
    ]
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    target = tmp_path / "config.toml"
    code, out, err = run(str(data), "-o", str(target))
    assert code == 0, err
    text = target.read_text(encoding="utf-8")
    config = tomllib.loads(text)
    assert config["read"]["decimal_comma"] is True
    assert "decimal_comma = true  # read 49,4 as the number 49.4 (detected)" in text
    assert "weight" in config["attributes"]["quasi_identifiers"]
    assert config["hierarchies"]["weight"]["type"] == "intervals"
    release = tmp_path / "patients.anonymized.csv"
    done = CliRunner().invoke(main_app, ["anonymize", str(target), "-q"])
    assert done.exit_code == 0, done.stderr
    weights = read_table(release)["weight"].unique().to_list()
    assert weights and all("," not in w and w.startswith(("[", "*")) for w in weights)
    # told otherwise, init keeps them as text, and the note says what to declare
    code, _, err = run(str(data), "-o", str(target), "--force", "--no-decimal-comma")
    assert code == 0, err
    text = target.read_text(encoding="utf-8")
    assert tomllib.loads(text)["read"]["decimal_comma"] is False
    assert "set decimal_comma = true" in text


def test_decimal_commas_are_not_guessed_in_a_comma_separated_file(tmp_path: Path) -> None:
    """In a ',' file a quoted 1,234 is as likely a thousands separator: not guessed."""
    data = tmp_path / "money.csv"
    rows = ["age,income"] + [f'{20 + i % 40},"{1 + i % 9},{i % 1000:03d}"' for i in range(100)]
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    target = tmp_path / "config.toml"
    assert run(str(data), "-o", str(target))[0] == 0
    assert tomllib.loads(target.read_text(encoding="utf-8"))["read"]["decimal_comma"] is False


def test_three_digits_after_every_comma_are_not_guessed_a_decimal_comma(tmp_path: Path) -> None:
    """In a ';' file, incomes of 18,000 were detected as decimal commas and released as
    18.000, a thousandfold smaller, without a word."""
    data = tmp_path / "money.csv"
    rows = ["age;income"] + [f"{20 + i % 40};{1 + i % 90},{(i * 7) % 10}00" for i in range(100)]
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    target = tmp_path / "config.toml"
    code, _, err = run(str(data), "-o", str(target))
    assert code == 0, err
    assert tomllib.loads(target.read_text(encoding="utf-8"))["read"]["decimal_comma"] is False


def test_separator_tab_as_typed_and_a_release_anonymize_cannot_write(tmp_path: Path) -> None:
    """--separator '\\t' was refused (TOML takes "\\t"); --release out.xlsx was written
    into the configuration and failed only at anonymize."""
    data = tmp_path / "t.csv"
    data.write_text("age\tsex\n" + "".join(f"{20 + i}\t{'fm'[i % 2]}\n" for i in range(40)))
    target = tmp_path / "config.toml"
    code, _, err = run(str(data), "-o", str(target), "--separator", "\\t")
    assert code == 0, err
    assert tomllib.loads(target.read_text(encoding="utf-8"))["read"]["separator"] == "\t"
    code, _, err = run(str(data), "-o", str(target), "--force", "--release", "out.xlsx")
    assert code == 2 and ".xlsx" in err, err
    code, _, err = run(str(data), "-o", str(target), "--force", "--release", str(data))
    assert code == 2 and "the run reads that file" in err, err


def test_hierarchy_files_beside_the_data_are_proposed(tmp_path: Path) -> None:
    """ARX keeps a table's hierarchies beside it (adult.csv, adult_hierarchy_age.csv):
    init ignored them and proposed '*' or builders over arbitrary codes instead. A file
    that does not cover every value of its column is not proposed."""
    data = tmp_path / "data" / "people.csv"
    data.parent.mkdir()
    data.write_text(
        "zip,city,age\n" + "".join(f"{z},c{z % 3},{20 + z}\n" for z in range(10) for _ in range(3)),
        encoding="utf-8",
    )
    zips = "".join(f"{z};{z // 5}*;*\n" for z in range(10))
    (data.parent / "people_hierarchy_zip.csv").write_text(zips, encoding="utf-8")
    partial = "c0;*\nc1;*\n"  # lacks c2: the run would stop on it
    (data.parent / "people_hierarchy_city.csv").write_text(partial, encoding="utf-8")
    out = tmp_path / "run.toml"
    code, _, err = run(str(data), "-o", str(out), "-q")
    assert code == 0, err
    config = tomllib.loads(out.read_text(encoding="utf-8"))
    assert config["hierarchies"]["zip"] == {"type": "file", "path": "data/people_hierarchy_zip.csv"}
    assert config["hierarchies"]["city"].get("type") != "file"
    assert load_config(out).hierarchies["zip"]


def test_a_wrong_separator_is_refused_with_a_hint(tmp_path: Path) -> None:
    """init --separator ',' on a ';' file exited 0 and proposed the whole header line
    'sex;age;zip' as one identifying column."""
    data = tmp_path / "semi.csv"
    data.write_text(
        "sex;age;zip\n" + "".join(f"{'fm'[i % 2]};{20 + i % 30};{1000 + i}\n" for i in range(60))
    )
    target = tmp_path / "config.toml"
    code, out, err = run(str(data), "-o", str(target), "--separator", ",")
    assert code == 2, out + err
    assert "one column" in err and "use --separator ';'" in err
    assert not target.exists()
    code, _, err = run(str(data), "-o", str(target), "--separator", ";")
    assert code == 0, err


def test_a_one_column_file_is_still_profiled(tmp_path: Path) -> None:
    data = tmp_path / "ages.csv"
    data.write_text("age\n" + "".join(f"{20 + i % 30}\n" for i in range(60)))
    target = tmp_path / "config.toml"
    code, _, err = run(str(data), "-o", str(target), "--separator", ",")
    assert code == 0, err
