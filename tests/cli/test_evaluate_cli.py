"""``anonkit evaluate`` and ``anonkit anonymize --html``: figures, report and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from anonkit import anonymize
from anonkit.cli.main import app
from anonkit.evaluate import evaluate
from anonkit.report.evaluation import SECTIONS

runner = CliRunner()

ADULT_QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
JSON_SECTIONS = {
    "files", "dataset", "configuration", "privacy", "classes", "loss", "risk",
    "risk_distribution", "attributes", "notes", "timing_seconds", "privacy_levels",
    "requested_models",
}  # fmt: skip


def one_error_line(result: object, code: int) -> str:
    assert result.exit_code == code, result.output  # type: ignore[attr-defined]
    err = result.stderr  # type: ignore[attr-defined]
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    return lines[0]


# ----------------------------------------------------------------------------- toy
@pytest.fixture(scope="module")
def toy_files(tmp_path_factory: pytest.TempPathFactory, toy_dir: Path) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("toy")
    original = pl.read_csv(toy_dir / "test.csv", separator=";", infer_schema=False)
    hier = {c: toy_dir / f"test_hierarchy_{c}.csv" for c in ("age", "gender", "zipcode")}
    result = anonymize(original, quasi_identifiers=list(hier), hierarchies=hier, k=2, others="keep")
    release = folder / "release.csv"
    result.release.write_csv(release)
    config = folder / "eval.toml"
    lines = ["[hierarchies]", *(f'{c} = "{p}"' for c, p in hier.items()), "[privacy]", "k = 2"]
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {
        "original": toy_dir / "test.csv",
        "release": release,
        "config": config,
        "folder": folder,
    }


def test_evaluate_small_table(toy_files: dict[str, Path]) -> None:
    folder = toy_files["folder"]
    out, page = folder / "ev.json", folder / "ev.html"
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(toy_files["original"]),
            str(toy_files["release"]),
            "--config",
            str(toy_files["config"]),
            "--json",
            str(out),
            "--html",
            str(page),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert set(data) == JSON_SECTIONS
    assert data["dataset"]["n_records"] == 7
    assert data["privacy"]["achieved_k"] >= 2
    assert data["privacy_levels"]["k"] == data["privacy"]["achieved_k"]
    assert data["requested_models"] == [
        {
            "model": "2-anonymity",
            "satisfied": True,
            "failing_classes": 0,
            "failing_records": 0,
            "examples": [],
        }
    ]
    assert {m["name"] for m in data["loss"]} >= {"loss", "ncp", "discernibility"}
    assert all(m["explanation"] for m in data["loss"] + data["risk"])
    html = page.read_text()
    for heading in SECTIONS[:-1]:
        assert f"<h2>{heading}</h2>" in html
    assert html.count("<svg") >= 2
    out_text = result.stdout
    for word in ("Achieved privacy", "Key risks", "Key losses", "k (smallest class)"):
        assert word in out_text
    for zip_code in ("81667", "81675", "81925"):  # original values: never shown
        assert zip_code not in out_text and zip_code not in html
    assert not list(folder.glob(".*.tmp"))


def test_evaluate_prints_only_when_not_quiet(toy_files: dict[str, Path]) -> None:
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(toy_files["original"]),
            str(toy_files["release"]),
            "-c",
            str(toy_files["config"]),
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == ""


# --------------------------------------------------------------------------- Adult
@pytest.fixture(scope="module")
def adult_files(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("adult")
    adult = shared_data / "adult"
    original = pl.read_csv(adult / "adult.csv", separator=";", infer_schema=False)
    hier = {c: adult / f"adult_hierarchy_{c}.csv" for c in ADULT_QI}
    result = anonymize(
        original,
        quasi_identifiers=ADULT_QI,
        hierarchies=hier,
        k=5,
        suppression_limit=0.02,
        others="keep",
    )
    release = folder / "release.csv"
    result.release.write_csv(release)
    config = folder / "adult.toml"
    lines = [
        "[attributes]",
        f"quasi_identifiers = {json.dumps(ADULT_QI)}",
        'sensitive = ["occupation"]',
        "[hierarchies]",
        *(f'{c} = "{p}"' for c, p in hier.items()),
        f'occupation = "{adult / "adult_hierarchy_occupation.csv"}"',
        "[privacy]",
        "k = 5",
        "suppression_limit = 0.02",  # as the run: its records at '*' are suppressed ones
        'models = [{ name = "distinct_l_diversity", attribute = "occupation", l = 3 }]',
    ]
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"original": adult / "adult.csv", "release": release, "config": config, "folder": folder}


@pytest.fixture(scope="module")
def adult_run(adult_files: dict[str, Path]) -> tuple[object, dict[str, object], str]:
    folder = adult_files["folder"]
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(adult_files["original"]),
            str(adult_files["release"]),
            "--config",
            str(adult_files["config"]),
            "--json",
            str(folder / "ev.json"),
            "--html",
            str(folder / "ev.html"),
            "--class-attribute",
            "salary-class",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads((folder / "ev.json").read_text())
    return result, data, (folder / "ev.html").read_text()


def test_evaluate_adult_json_has_every_figure(
    adult_run: tuple[object, dict[str, object], str], adult_files: dict[str, Path]
) -> None:
    _, data, _ = adult_run
    assert set(data) == JSON_SECTIONS
    # the same figures as the Python API
    original = pl.read_csv(adult_files["original"], separator=";", infer_schema=False)
    release = pl.read_csv(adult_files["release"], infer_schema=False)
    folder = adult_files["original"].parent
    ev = evaluate(
        original,
        release,
        quasi_identifiers=ADULT_QI,
        hierarchies={c: folder / f"adult_hierarchy_{c}.csv" for c in ADULT_QI},
        sensitive=["occupation"],
        class_attribute="salary-class",
        k=5,
    )
    expected = ev.to_dict()
    for section in ("dataset", "classes", "loss", "risk", "risk_distribution", "attributes"):
        assert data[section] == expected[section], section  # type: ignore[index]
    loss = {m["name"]: m for m in data["loss"]}  # type: ignore[attr-defined]
    assert "classification" in loss and loss["classification"]["value"] is not None
    levels = data["privacy_levels"]
    occupation = levels["sensitive"]["occupation"]  # type: ignore[index]
    assert levels["k"] == 5  # type: ignore[index]
    for key in (
        "distinct_l",
        "entropy_l",
        "recursive_c",
        "t_equal",
        "t_ordered",
        "t_hierarchical",
        "delta",
        "beta_basic",
        "beta_enhanced",
    ):
        assert key in occupation, key
    assert (
        occupation["distinct_l"] == expected["privacy"]["l_diversity"]["occupation"]["distinct_l"]
    )
    checks = {c["model"]: c for c in data["requested_models"]}  # type: ignore[attr-defined]
    assert checks["5-anonymity"]["satisfied"] is True
    l3 = checks["distinct 3-diversity of 'occupation'"]
    assert l3["satisfied"] is (occupation["distinct_l"] >= 3)
    assert l3["examples"] == []  # evaluate lists no class keys


def test_evaluate_adult_report(
    adult_run: tuple[object, dict[str, object], str], shared_data: Path
) -> None:
    result, _, html = adult_run
    for heading in SECTIONS[:-1]:
        assert f"<h2>{heading}</h2>" in html
    assert html.count("<svg") >= 2
    assert "http://" not in html and "https://" not in html and "<script" not in html
    # no value of the original table reaches the report or the terminal: these leaves are
    # generalized away (native-country, workclass) or sensitive (occupation)
    adult = shared_data / "adult"
    original = pl.read_csv(adult / "adult.csv", separator=";", infer_schema=False)
    for column in ("native-country", "occupation", "workclass"):
        for value in original[column].unique().to_list():
            if "-" in value:
                assert value not in html, value
                assert value not in result.stdout, value  # type: ignore[attr-defined]


# --------------------------------------------------------------------- bad input
def test_missing_original_file(toy_files: dict[str, Path], tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(tmp_path / "nope.csv"),
            str(toy_files["release"]),
            "-c",
            str(toy_files["config"]),
            "--json",
            str(tmp_path / "o.json"),
        ],
    )
    assert "nope.csv" in one_error_line(result, 2)
    assert not (tmp_path / "o.json").exists()


def test_missing_config_file(toy_files: dict[str, Path], tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(toy_files["original"]),
            str(toy_files["release"]),
            "-c",
            str(tmp_path / "none.toml"),
        ],
    )
    assert "none.toml" in one_error_line(result, 2)


@pytest.mark.parametrize("threshold", ["2", "-0.1"])
def test_risk_threshold_outside_0_and_1(
    toy_files: dict[str, Path], tmp_path: Path, threshold: str
) -> None:
    """typer no longer checks the range (its '[0.0<=x<=1.0]' cut option names in the
    help); the evaluation does, before anything is written."""
    files = [str(toy_files[f]) for f in ("original", "release", "config")]
    out = str(tmp_path / "o.json")
    result = runner.invoke(
        app, ["evaluate", *files[:2], "-c", files[2], "--risk-threshold", threshold, "--json", out]
    )
    assert "between 0 and 1" in one_error_line(result, 2)
    assert not (tmp_path / "o.json").exists()


def test_row_count_mismatch(toy_files: dict[str, Path], tmp_path: Path) -> None:
    short = tmp_path / "short.csv"
    pl.read_csv(toy_files["release"], infer_schema=False).head(5).write_csv(short)
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(toy_files["original"]),
            str(short),
            "-c",
            str(toy_files["config"]),
            "--json",
            str(tmp_path / "o.json"),
            "--html",
            str(tmp_path / "o.html"),
        ],
    )
    assert "5 rows" in one_error_line(result, 1)
    assert not (tmp_path / "o.json").exists() and not (tmp_path / "o.html").exists()


def test_a_release_in_another_row_order_is_refused(
    toy_files: dict[str, Path], tmp_path: Path
) -> None:
    """Rows are matched by position: a release written in another order was measured as
    if each label belonged to the record beside it."""
    reordered = tmp_path / "reordered.csv"
    pl.read_csv(toy_files["release"], infer_schema=False).reverse().write_csv(reordered)
    out = tmp_path / "o.json"
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(toy_files["original"]),
            str(reordered),
            "-c",
            str(toy_files["config"]),
            "--json",
            str(out),
        ],
    )
    line = one_error_line(result, 1)
    # the release shows age as '*' and zipcode as '81***'; gender, kept, differs on row 2
    assert "column 'gender'" in line and "data row 2" in line and "does not cover" in line
    original = pl.read_csv(toy_files["original"], separator=";", infer_schema=False)
    for value in original["zipcode"].to_list():
        assert value not in line  # the original values are never shown
    assert not out.exists()


def test_unknown_column(toy_files: dict[str, Path], tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(
        toy_files["config"]
        .read_text()
        .replace(
            "[hierarchies]",
            '[attributes]\nquasi_identifiers = ["age", "gender", "zipcode", "nope"]\n[hierarchies]',
        )
    )
    result = runner.invoke(
        app,
        ["evaluate", str(toy_files["original"]), str(toy_files["release"]), "-c", str(config)],
    )
    assert "'nope'" in one_error_line(result, 2)


def test_unparsable_labels(toy_files: dict[str, Path], tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    release = pl.read_csv(toy_files["release"], infer_schema=False)
    release.with_columns(pl.lit("banana").alias("gender")).write_csv(bad)
    result = runner.invoke(
        app,
        ["evaluate", str(toy_files["original"]), str(bad), "-c", str(toy_files["config"])],
    )
    line = one_error_line(result, 1)
    assert "gender" in line and "banana" in line


def test_invalid_config(toy_files: dict[str, Path], tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text('[privacy]\nk = "5"\n[hierarchies]\nage = "a.csv"\n')
    result = runner.invoke(
        app,
        ["evaluate", str(toy_files["original"]), str(toy_files["release"]), "-c", str(config)],
    )
    assert "privacy.k" in one_error_line(result, 2)


# ------------------------------------------------------------------ anonymize --html
def _toy_run_config(folder: Path, toy_dir: Path, *, suppressed: str = "mask") -> Path:
    lines = [
        f'input = "{toy_dir / "test.csv"}"',
        'output = "release.csv"',
        "[hierarchies]",
        *(f'{c} = "{toy_dir / f"test_hierarchy_{c}.csv"}"' for c in ("age", "gender", "zipcode")),
        "[privacy]",
        "k = 2",
        "[release]",
        f'suppressed = "{suppressed}"',
    ]
    config = folder / "run.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def test_anonymize_html_writes_the_full_report(tmp_path: Path, toy_dir: Path) -> None:
    config = _toy_run_config(tmp_path, toy_dir)
    page = tmp_path / "full.html"
    result = runner.invoke(app, ["anonymize", str(config), "--html", str(page)])
    assert result.exit_code == 0, result.output
    html = page.read_text()
    for heading in SECTIONS[:-1]:
        assert f"<h2>{heading}</h2>" in html
    assert html.count("<svg") >= 2
    assert "Level chosen" in html and "2-anonymity" in html
    for zip_code in ("81667", "81675", "81925"):
        assert zip_code not in html
    assert "full report written to" in result.stdout


def test_anonymize_html_needs_masked_suppression(tmp_path: Path, toy_dir: Path) -> None:
    config = _toy_run_config(tmp_path, toy_dir, suppressed="drop")
    result = runner.invoke(app, ["anonymize", str(config), "--html", str(tmp_path / "r.html")])
    assert "suppressed" in one_error_line(result, 2)
    assert not (tmp_path / "release.csv").exists() and not (tmp_path / "r.html").exists()


def test_evaluate_is_listed_in_help() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0 and "evaluate" in result.stdout
    result = runner.invoke(app, ["evaluate", "--help"], env={"COLUMNS": "160"})
    assert result.exit_code == 0
    for option in ("--config", "--json", "--html", "--population", "--class-attribute"):
        assert option in result.stdout


def test_evaluate_with_a_population(tmp_path: Path, shared_data: Path) -> None:
    adult = shared_data / "adult"
    qi = ["sex", "age", "race"]
    hier = {c: adult / f"adult_hierarchy_{c}.csv" for c in qi}
    sample = pl.read_csv(adult / "adult_subset.csv", separator=";", infer_schema=False)
    release = tmp_path / "release.csv"
    anonymize(sample, quasi_identifiers=qi, hierarchies=hier, k=2, others="keep").release.write_csv(
        release
    )
    config = tmp_path / "c.toml"
    config.write_text(
        "\n".join(["[hierarchies]", *(f'{c} = "{p}"' for c, p in hier.items())]) + "\n"
    )
    out = tmp_path / "ev.json"
    result = runner.invoke(
        app,
        ["evaluate", str(adult / "adult_subset.csv"), str(release), "-c", str(config),
         "--population", str(adult / "adult.csv"), "--json", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    risk = {r["name"]: r["value"] for r in data["risk"]}
    assert risk["journalist_max"] is not None and risk["population_uniqueness"] is not None
    assert risk["journalist_max"] <= risk["prosecutor_max"]
    levels = data["privacy_levels"]
    assert levels["k_map"] >= levels["k"] >= 2
    assert 0 < levels["presence"]["min"] <= levels["presence"]["max"] <= 1
    assert data["configuration"]["population_size"] == 30162


def test_evaluate_reads_back_a_release_anonymize_escaped(tmp_path: Path) -> None:
    """``anonkit anonymize`` writes ``'@home`` for a cell ``@home`` (a spreadsheet would
    run it as a formula); ``anonkit evaluate`` must read its own release back as the
    values it released, not stop on ``'@home`` as a value the hierarchy lacks."""
    wards = ["@home", "+icu", "=er", "-", "ward A"]
    rows = [f"{wards[i % 5]},{20 + i % 40},{['flu', 'cold'][i % 2]}" for i in range(200)]
    (tmp_path / "d.csv").write_text("ward,age,diag\n" + "\n".join(rows) + "\n", encoding="utf-8")
    cfg = tmp_path / "run.toml"
    cfg.write_text(
        'input = "d.csv"\noutput = "r.csv"\n[attributes]\nquasi_identifiers = ["ward", "age"]\n'
        'sensitive = ["diag"]\n[hierarchies]\nage = { type = "intervals", widths = [10, 20] }\n'
        "[privacy]\nk = 5\n",
        encoding="utf-8",
    )
    assert runner.invoke(app, ["anonymize", str(cfg), "-q"]).exit_code == 0
    assert "'@home" in (tmp_path / "r.csv").read_text(encoding="utf-8")  # escaped on disk
    figures = {}
    for name in ("r.csv", "raw.csv"):
        if name == "raw.csv":  # the same release written raw, as the reference
            text = (tmp_path / "r.csv").read_text(encoding="utf-8")
            for w in wards:
                text = text.replace(f"'{w}", w)
            (tmp_path / name).write_text(text, encoding="utf-8")
        out = tmp_path / f"{name}.json"
        res = runner.invoke(
            app,
            ["evaluate", str(tmp_path / "d.csv"), str(tmp_path / name), "-c", str(cfg),
             "--json", str(out)],
        )  # fmt: skip
        assert res.exit_code == 0, res.stderr
        data = json.loads(out.read_text(encoding="utf-8"))
        figures[name] = (data["classes"], data["loss"])
    assert figures["r.csv"] == figures["raw.csv"]


def test_read_table_unescapes_on_request(tmp_path: Path) -> None:
    from anonkit import read_table

    path = tmp_path / "r.csv"
    path.write_text("'=x,n\n'@home,-3\n'-,'+1a\nplain,'quoted\n", encoding="utf-8")
    assert read_table(path).row(0) == ("'@home", "-3")  # input data: as it stands
    back = read_table(path, csv_formulas="unescape")
    assert back.columns == ["=x", "n"]
    assert back.rows() == [("@home", "-3"), ("-", "+1a"), ("plain", "'quoted")]


def test_check_matches_an_escaped_release_to_its_population(tmp_path: Path) -> None:
    """``anonkit check`` with a population: the release's ``'@home`` is the population's
    ``@home`` (here the population is the data itself, so 5-map holds with k = 5)."""
    wards = ["@home", "+icu", "=er", "-", "ward A"]
    rows = [f"{wards[i % 5]},{20 + i % 40}" for i in range(200)]
    (tmp_path / "d.csv").write_text("ward,age\n" + "\n".join(rows) + "\n", encoding="utf-8")
    body = (
        '[attributes]\nquasi_identifiers = ["ward", "age"]\n[hierarchies]\n'
        'age = { type = "intervals", widths = [10, 20] }\n[privacy]\nk = 5\n'
    )
    run = tmp_path / "run.toml"
    run.write_text('input = "d.csv"\noutput = "r.csv"\n' + body, encoding="utf-8")
    assert runner.invoke(app, ["anonymize", str(run), "-q"]).exit_code == 0
    chk = tmp_path / "chk.toml"
    chk.write_text(
        body + 'population = "d.csv"\nmodels = [{ name = "k_map", k = 5 }]\n', encoding="utf-8"
    )
    res = runner.invoke(app, ["check", str(tmp_path / "r.csv"), "-c", str(chk)])
    assert res.exit_code == 0, res.stderr
    assert "5-map" in res.stdout and "NOT met" not in res.stdout


def test_check_reads_a_latin1_table_with_encoding(tmp_path: Path) -> None:
    rows = "".join(f"{'fée' if i % 2 else 'mâle'};{30 + i % 2}\n" for i in range(20))
    (tmp_path / "r.csv").write_bytes(("sex;age\n" + rows).encode("latin-1"))
    args = ["check", str(tmp_path / "r.csv"), "--qi", "sex,age", "-k", "5"]
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and "--encoding latin-1" in res.stderr
    res = runner.invoke(app, [*args, "--encoding", "latin-1"])
    assert res.exit_code == 0, res.stderr
    assert "achieved k" in res.stdout


def _blanked(tmp_path: Path, blank: str, disease: str = "flu") -> list[str]:
    """A release with five records generalized and two blanked (``blank`` in every
    quasi-identifier, as sdcMicro leaves NA), and the evaluate command line over it."""
    (tmp_path / "orig.csv").write_text(
        "age,sex,disease\n21,m,flu\n23,f,cold\n25,m,flu\n27,f,ulcer\n29,m,cold\n35,f,flu\n"
        "38,m,flu\n",
        encoding="utf-8",
    )
    rows = ["[20-30[,*,flu", "[20-30[,*,cold", "[20-30[,*,flu", "[20-30[,*,ulcer", "[20-30[,*,cold"]
    rows += [f"{blank},{blank},{disease}"] * 2
    (tmp_path / "rel.csv").write_text(
        "age,sex,disease\n" + "\n".join(rows) + "\n", encoding="utf-8"
    )
    (tmp_path / "cfg.toml").write_text(
        'input = "orig.csv"\n[attributes]\nquasi_identifiers = ["age", "sex"]\n'
        'numeric = ["age"]\nsensitive = ["disease"]\n[hierarchies]\n'
        'sex = [["m", "*"], ["f", "*"]]\n[privacy]\nk = 3\n',
        encoding="utf-8",
    )
    return ["evaluate", str(tmp_path / "orig.csv"), str(tmp_path / "rel.csv"),
            "-c", str(tmp_path / "cfg.toml"), "--json", str(tmp_path / "ev.json")]  # fmt: skip


@pytest.mark.parametrize("blank", ["", "**"])
def test_blanked_records_are_one_class_without_a_suppression_limit(
    tmp_path: Path, blank: str
) -> None:
    """Records blanked with NA or '**' were counted as suppressed by the privacy table
    (k 5, '3-anonymity met') while the overview measured them as a class of 2 (k 2): the
    rows shown '*' were counted before empty and '**' cells were read as '*'."""
    res = runner.invoke(app, _blanked(tmp_path, blank))
    assert res.exit_code == 0, res.stderr
    data = json.loads((tmp_path / "ev.json").read_text(encoding="utf-8"))
    assert data["privacy"]["achieved_k"] == 2
    assert data["privacy_levels"]["k"] == 2
    assert data["requested_models"][0]["satisfied"] is False


def test_an_empty_sensitive_cell_of_a_suppressed_record_is_no_crash(tmp_path: Path) -> None:
    """Suppressed records with an empty sensitive cell stopped evaluate with a traceback
    ('Enum categories must not contain null values'); values missing from the release
    are said in one line, as anonkit check says it."""
    args = _blanked(tmp_path, "*", disease="")
    res = runner.invoke(app, [*args, "--suppression", "0.3"])
    assert res.exit_code == 1 and isinstance(res.exception, SystemExit)
    assert "Column 'disease' has 2 missing value(s)" in res.stderr


def test_l_diversity_reads_sensitive_values_stripped(tmp_path: Path) -> None:
    """'flu' and 'flu ' counted as two values in evaluate's l-diversity (2, against 1 in
    the privacy table)."""
    original = pl.DataFrame({"q": ["a"] * 4, "s": ["flu", "flu ", "flu", "flu "]})
    ev = evaluate(original, original, quasi_identifiers=["q"], hierarchies={"q": [["a", "*"]]},
                  sensitive=["s"])  # fmt: skip
    assert dict(ev.privacy["l_diversity"]["s"]) == {"distinct_l": 1.0, "entropy_l": 1.0}


def test_a_release_with_another_separator_is_read_as_its_own_file(
    toy_files: dict[str, Path], tmp_path: Path
) -> None:
    """The configuration's [read] separator was applied to the release too: a ';' original
    beside a ',' release (another tool's) ended in 'Unknown column(s)' naming the whole
    header as one column. The release is read like the population: --separator, or its own
    separator detected."""
    original = tmp_path / "original.csv"
    original.write_text(toy_files["original"].read_text(encoding="utf-8"), encoding="utf-8")
    config = tmp_path / "eval.toml"
    config.write_text('[read]\nseparator = ";"\n' + toy_files["config"].read_text())
    release = tmp_path / "release.csv"
    release.write_text(toy_files["release"].read_text(encoding="utf-8"), encoding="utf-8")
    assert ";" not in release.read_text(encoding="utf-8").splitlines()[0]
    res = runner.invoke(app, ["evaluate", str(original), str(release), "-c", str(config)])
    assert res.exit_code == 0, res.stderr


def test_an_original_read_into_one_column_says_which_separator_it_looks_like(
    toy_files: dict[str, Path], tmp_path: Path
) -> None:
    config = tmp_path / "eval.toml"
    config.write_text('[read]\nseparator = ","\n' + toy_files["config"].read_text())
    res = runner.invoke(
        app, ["evaluate", str(toy_files["original"]), str(toy_files["release"]), "-c", str(config)]
    )
    line = one_error_line(res, 2)
    assert "into one column" in line and "set separator = ';'" in line


def test_evaluate_reads_a_release_in_another_encoding(tmp_path: Path) -> None:
    """A latin-1 release from another tool could not be evaluated at all: the release was
    read as UTF-8 whatever the configuration said, and the error advised a setting that
    did not apply to it."""
    original = tmp_path / "o.csv"
    original.write_text("city,n\nZürich,1\nZürich,2\nGenève,3\nGenève,4\n", encoding="utf-8")
    release = tmp_path / "r.csv"
    release.write_bytes("city,n\nZürich,1\nZürich,2\nGenève,3\nGenève,4\n".encode("latin-1"))
    config = tmp_path / "c.toml"
    config.write_text('[attributes]\nquasi_identifiers = ["city"]\ninsensitive = ["n"]\n')
    args = ["evaluate", str(original), str(release), "-c", str(config), "-q"]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 2 and "--encoding latin-1" in refused.output
    done = runner.invoke(app, [*args, "--encoding", "latin-1", "--json", str(tmp_path / "e.json")])
    assert done.exit_code == 0, done.output
    assert json.loads((tmp_path / "e.json").read_text())["privacy_levels"]["k"] == 2


def test_a_release_label_or_column_evaluate_cannot_read_is_named_with_its_file(
    tmp_path: Path,
) -> None:
    """'1 value(s) of the data are not in the hierarchy' and 'the data has ...' did not
    say that the release was meant, nor where in it."""
    original = tmp_path / "o.csv"
    original.write_text("sex,age\nm,1\nm,2\nf,3\nf,4\n", encoding="utf-8")
    config = tmp_path / "c.toml"
    config.write_text('[attributes]\nquasi_identifiers = ["sex"]\ninsensitive = ["age"]\n')
    release = tmp_path / "r.csv"
    release.write_text("sex,age\nm,1\nm,2\n?,3\n?,4\n", encoding="utf-8")
    args = ["evaluate", str(original), str(release), "-c", str(config), "-q"]
    line = one_error_line(runner.invoke(app, args), 1)
    assert "r.csv" in line and "line 4" in line and "'?'" in line
    release.write_text("age\n1\n2\n3\n4\n", encoding="utf-8")
    line = one_error_line(runner.invoke(app, args), 2)
    assert "r.csv" in line and "'sex'" in line


# --------------------------------------------------------------- the population's size
def _toy_population(toy_files: dict[str, Path], folder: Path, extra: list[str]) -> Path:
    """The toy original (7 records) and ``extra`` lines ``age;gender;zipcode`` as a
    population table."""
    lines = toy_files["original"].read_text(encoding="utf-8").strip().splitlines()
    path = folder / "population.csv"
    path.write_text("\n".join([*lines, *extra]) + "\n", encoding="utf-8")
    return path


def _evaluate(toy_files: dict[str, Path], *options: str) -> object:
    return runner.invoke(
        app,
        ["evaluate", str(toy_files["original"]), str(toy_files["release"]),
         "-c", str(toy_files["config"]), *options],
    )  # fmt: skip


def test_a_population_size_below_the_release_names_the_option(
    toy_files: dict[str, Path],
) -> None:
    """The error named evaluate's Python parameter 'population_size'."""
    line = one_error_line(_evaluate(toy_files, "--population-size", "3"), 2)
    assert "--population-size" in line and "'population_size'" not in line
    assert "released records (7)" in line and "Got 3" in line


def test_a_population_size_below_the_population_table_is_refused(
    toy_files: dict[str, Path], tmp_path: Path
) -> None:
    """--population-size 10 beside a population table of 14 records was taken silently."""
    population = _toy_population(toy_files, tmp_path, ["34;male;81667"] * 7)
    out = tmp_path / "ev.json"
    result = _evaluate(
        toy_files, "--population", str(population), "--population-size", "10", "--json", str(out)
    )
    line = one_error_line(result, 2)
    assert "--population-size" in line and "population table (14)" in line and "Got 10" in line
    assert not out.exists()


def test_population_uniqueness_is_counted_in_the_population_table(
    toy_files: dict[str, Path], tmp_path: Path
) -> None:
    population = _toy_population(toy_files, tmp_path, ["34;male;81667"])
    out = tmp_path / "ev.json"
    result = _evaluate(toy_files, "--population", str(population), "--json", str(out))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["configuration"]["uniqueness_method"] == "population table"
    assert data["configuration"]["population_model"] == "pitman"
    figure = next(r for r in data["risk"] if r["name"] == "population_uniqueness")
    assert "population table" in figure["title"]
    out2 = tmp_path / "ev2.json"
    result = _evaluate(
        toy_files, "--population", str(population), "--population-size", "1000",
        "--json", str(out2),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(out2.read_text())
    assert data["configuration"]["uniqueness_method"] == "pitman"
    assert any("fewer than the population size 1,000" in n for n in data["notes"])


def test_a_population_value_outside_a_hierarchy_is_named_as_the_population_tables(
    toy_files: dict[str, Path], tmp_path: Path
) -> None:
    """It was reported as "1 value(s) of the data are not in the hierarchy"."""
    population = _toy_population(toy_files, tmp_path, ["150;male;81667"])
    line = one_error_line(_evaluate(toy_files, "--population", str(population)), 1)
    said = f"of the population table {population} are not in the hierarchy"
    assert said in line and "'150'" in line
    assert "of the data" not in line


# ------------------------------------------------- how the tables are read: separators
def test_a_release_read_into_one_column_says_which_separator_it_looks_like(
    toy_files: dict[str, Path],
) -> None:
    """--separator ';' (the original's) on a ','-separated release said only "The release
    has no column ...; its columns: 'age,gender,zipcode'": the hint was the original's
    alone. --separator reads both tables, so leaving it out is the way."""
    res = _evaluate(toy_files, "--separator", ";")
    line = one_error_line(res, 2)
    assert "release.csv" in line and "read with separator ';' into one column" in line
    assert "','-separated" in line and "leave out --separator" in line


def test_an_original_read_into_one_column_by_the_option_names_the_option(
    toy_files: dict[str, Path],
) -> None:
    line = one_error_line(_evaluate(toy_files, "--separator", ","), 2)
    assert "read with separator ',' into one column" in line and "';'-separated" in line
    assert "--separator" in line and "set separator" not in line


def _spark_parts(source: Path, folder: Path, cut: int) -> Path:
    """``source`` written as Spark writes a CSV release: part files, each with the header,
    ``_SUCCESS`` and hidden ``.crc`` files."""
    header, *records = source.read_text(encoding="utf-8").strip().splitlines()
    folder.mkdir()
    for i, rows in enumerate((records[:cut], records[cut:])):
        name = f"part-{i:05d}-9e8d7c6b-0000-1111-2222-333344445555-c000.csv"
        (folder / name).write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
        (folder / f".{name}.crc").write_bytes(b"\x00crc")
    (folder / "_SUCCESS").write_text("")
    (folder / "._SUCCESS.crc").write_bytes(b"\x00crc")
    return folder


def test_a_release_spark_wrote_as_part_files_is_evaluated(
    toy_files: dict[str, Path], tmp_path: Path
) -> None:
    """The Spark engine writes release.csv as a folder of part files; evaluate refused
    it: "Cannot read release.csv: it is a folder; name a file."."""
    folder = _spark_parts(toy_files["release"], tmp_path / "spark.csv", 3)
    whole, parts = tmp_path / "whole.json", tmp_path / "parts.json"
    assert _evaluate(toy_files, "-q", "--json", str(whole)).exit_code == 0
    res = runner.invoke(
        app,
        ["evaluate", str(toy_files["original"]), str(folder), "-c", str(toy_files["config"]),
         "-q", "--json", str(parts)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    expected, got = json.loads(whole.read_text()), json.loads(parts.read_text())
    assert got["files"]["release"] == str(folder)
    for figures in (expected, got):
        del figures["files"], figures["timing_seconds"]
    assert got == expected
