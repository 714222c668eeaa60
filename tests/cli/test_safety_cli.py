"""Issue 15 end to end through ``anonkit anonymize``: fail closed on real-world files.

Each test is one of the ways a run used to report success while the release was unsafe
or corrupted (or an error that said too little), driven through the CLI as a user would.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from test_cli_commands import run_module
from typer.testing import CliRunner

from anonkit.cli.main import app
from anonkit.io.tables import read_table

runner = CliRunner()

ROWS = [
    ("ann@example.org", "34", "f", "1305", "flu", "12"),
    ("bob@example.org", "36", "m", "1306", "cold", "13"),
    ("cid@example.org", "35", "m", "1305", "flu", "11"),
    ("dee@example.org", "52", "f", "1487", "cold", "12"),
    ("eve@example.org", "55", "f", "1488", "flu", "15"),
    ("fay@example.org", "58", "m", "1487", "cold", "14"),
]
HEADER = ("email", "age", "sex", "zip", "disease", "visits")


def _write_csv(path: Path, rows: list[tuple[str, ...]], header: tuple[str, ...] = HEADER) -> Path:
    path.write_text("\n".join(",".join(r) for r in [header, *rows]) + "\n", encoding="utf-8")
    return path


def _config(folder: Path, body: str, *, data: str = "data.csv") -> Path:
    text = f'input = "{data}"\noutput = "release.csv"\n' + body
    if "[hierarchies]" not in body:
        text += (
            '\n[hierarchies]\nage = { type = "intervals", widths = [10, 20] }\n'
            'zip = { type = "masking" }\n'
        )
    if "[privacy]" not in body:
        text += "\n[privacy]\nk = 3\n"
    path = folder / "run.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _run(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    return res.exit_code, res.stdout, res.stderr


def _no_leftovers(folder: Path) -> None:
    assert not list(folder.glob(".*.tmp")), "a temporary file was left behind"


# ------------------------------------------------------------------ 1. undeclared columns
def test_undeclared_columns_stop_the_run_and_nothing_is_written(tmp_path: Path) -> None:
    _write_csv(tmp_path / "data.csv", ROWS)
    cfg = _config(tmp_path, '[attributes]\nquasi_identifiers = ["age", "zip"]\n')
    code, _, err = _run("anonymize", str(cfg))
    assert code == 1
    for column in ("email", "sex", "disease", "visits"):
        assert f"'{column}'" in err
    assert not (tmp_path / "release.csv").exists()
    _no_leftovers(tmp_path)


def test_others_drop_and_keep(tmp_path: Path) -> None:
    _write_csv(tmp_path / "data.csv", ROWS)
    body = (
        '[attributes]\nquasi_identifiers = ["age", "zip"]\nidentifying = ["email"]\n'
        'sensitive = ["disease"]\nothers = "drop"\n'
    )
    cfg = _config(tmp_path, body)
    code, _, err = _run("anonymize", str(cfg), "--summary", str(tmp_path / "s.json"))
    assert code == 0, err
    release = pl.read_csv(tmp_path / "release.csv", infer_schema=False)
    assert release.columns == ["age", "zip", "disease"]
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["checks"]["dropped_undeclared"] == ["sex", "visits"]


def test_a_column_that_gives_a_quasi_identifier_away_stops_the_run(tmp_path: Path) -> None:
    rows = [(*r[:5], {"1305": "A", "1306": "B", "1487": "C", "1488": "D"}[r[3]]) for r in ROWS]
    rows = rows * 3
    _write_csv(tmp_path / "data.csv", rows, (*HEADER[:5], "zipcode_letter"))
    body = (
        '[attributes]\nquasi_identifiers = ["age", "zip"]\nidentifying = ["email"]\n'
        'sensitive = ["disease"]\nothers = "keep"\n'
    )
    code, _, err = _run("anonymize", str(_config(tmp_path, body)))
    assert code == 1
    assert "'zipcode_letter'" in err and "'zip'" in err
    assert not (tmp_path / "release.csv").exists()
    code, _, err = _run(
        "anonymize",
        str(_config(tmp_path, body)),
        "--no-leak-check",
        "--summary",
        str(tmp_path / "s.json"),
    )
    assert code == 0, err
    assert "leak check was skipped" in err
    assert json.loads((tmp_path / "s.json").read_text())["checks"]["leak_check"] is False


def test_warnings_are_one_line_each_not_python_warnings(tmp_path: Path) -> None:
    """The CLI says a leak check's warning and a column starred for want of a hierarchy
    once each, as its own line; the Python warnings the API issues for them
    (``LeakWarning``, ``SuppressedColumnWarning``) do not reach the terminal as well.
    Run as a process: pytest would catch the Python warnings before any terminal."""
    # six values of "sex" twice each: no class of 3 keeps it, and it has no hierarchy
    rows = [(f"p{i}@example.org", "30", f"s{i % 6}", "1305", "flu", f"v{i}")
            for i in range(12)]  # fmt: skip
    _write_csv(tmp_path / "data.csv", rows)
    body = (
        '[attributes]\nquasi_identifiers = ["age", "zip", "sex"]\nidentifying = ["email"]\n'
        'sensitive = ["disease"]\ninsensitive = ["visits"]\n'
    )
    done = run_module("anonymize", str(_config(tmp_path, body)), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("warning: Column 'visits' is near-unique") == 1
    assert done.stderr.count("note: sex had no hierarchy") == 1
    assert "LeakWarning" not in done.stderr
    assert "SuppressedColumnWarning" not in done.stderr


def test_identifier_patterns_stop_the_run(tmp_path: Path) -> None:
    _write_csv(tmp_path / "data.csv", ROWS)
    body = (
        '[attributes]\nquasi_identifiers = ["age", "zip"]\ninsensitive = ["email"]\n'
        'others = "drop"\n'
    )
    code, _, err = _run("anonymize", str(_config(tmp_path, body)))
    assert code == 1 and "'email'" in err
    assert "@example.org" not in err  # never a raw value


# ------------------------------------------------------------------ 2. encodings
def test_latin1_input_is_an_error_unless_declared(tmp_path: Path) -> None:
    rows = [
        (r[0], r[1], r[2], r[3], "fièvre" if i == 2 else r[4], r[5]) for i, r in enumerate(ROWS)
    ]
    text = "\n".join(",".join(r) for r in [HEADER, *rows]) + "\n"
    (tmp_path / "data.csv").write_bytes(text.encode("latin-1"))
    body = (
        '[attributes]\nquasi_identifiers = ["age", "zip"]\nidentifying = ["email"]\n'
        'sensitive = ["disease"]\nothers = "drop"\n'
    )
    code, _, err = _run("anonymize", str(_config(tmp_path, body)))
    assert code == 2
    assert "line 4" in err and "latin-1" in err
    assert not (tmp_path / "release.csv").exists()
    code, _, err = _run(
        "anonymize", str(_config(tmp_path, '[read]\nencoding = "latin-1"\n' + body))
    )
    assert code == 0, err
    release = pl.read_csv(tmp_path / "release.csv", infer_schema=False)
    assert "fièvre" in release["disease"].to_list()


def test_latin1_hierarchy_files_follow_the_read_encoding(tmp_path: Path) -> None:
    """The error on a latin-1 hierarchy file says to declare the encoding in [read]; doing
    so must work: [read] encoding applies to the configuration's hierarchy files too,
    and a { type = "file", ... } table sets one file's own."""
    rows = [(*r[:2], "fée" if r[2] == "f" else "mâle", *r[3:]) for r in ROWS]
    text = "\n".join(",".join(r) for r in [HEADER, *rows]) + "\n"
    (tmp_path / "data.csv").write_bytes(text.encode("latin-1"))
    (tmp_path / "sex.csv").write_bytes("fée;*\nmâle;*\n".encode("latin-1"))
    body = (
        '[attributes]\nquasi_identifiers = ["age", "zip", "sex"]\nidentifying = ["email"]\n'
        'sensitive = ["disease"]\nothers = "drop"\n'
        '[hierarchies]\nage = { type = "intervals", widths = [10, 20] }\n'
        'zip = { type = "masking" }\nsex = "sex.csv"\n'
    )
    code, _, err = _run("anonymize", str(_config(tmp_path, body)))
    assert code == 2 and "data.csv" in err and "[read]" in err  # the data file first
    code, _, err = _run(
        "anonymize", str(_config(tmp_path, '[read]\nencoding = "latin-1"\n' + body))
    )
    assert code == 0, err
    release = pl.read_csv(tmp_path / "release.csv", infer_schema=False)
    assert set(release["sex"].to_list()) <= {"fée", "mâle", "*"}
    # a UTF-8 hierarchy beside latin-1 data: its own encoding in a file table
    (tmp_path / "sex.csv").write_text("fée;*\nmâle;*\n", encoding="utf-8")
    own = body.replace(
        'sex = "sex.csv"', 'sex = { type = "file", path = "sex.csv", encoding = "utf-8" }'
    )
    code, _, err = _run("anonymize", str(_config(tmp_path, '[read]\nencoding = "latin-1"\n' + own)))
    assert code == 0, err
    # without it, the hierarchy's labels do not match the data: named, not guessed
    code, _, err = _run(
        "anonymize", str(_config(tmp_path, '[read]\nencoding = "latin-1"\n' + body))
    )
    assert code == 1 and "sex" in err


# ------------------------------------------------------------------ 3. dirty files
def test_the_raw_uci_style_file_reads_with_strip_and_missing(tmp_path: Path) -> None:
    lines = ["email, age, sex, zip, disease, visits"]
    lines += [", ".join(r) for r in ROWS]
    lines[3] = lines[3].replace("flu", "?")
    (tmp_path / "data.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    body = (
        '[read]\nstrip = true\nmissing = ["?", ""]\n'
        '[attributes]\nquasi_identifiers = ["age", "zip"]\nidentifying = ["email"]\n'
        'sensitive = ["disease"]\nothers = "drop"\n'
    )
    code, _, err = _run("anonymize", str(_config(tmp_path, body)))
    assert code == 0, err
    release = pl.read_csv(tmp_path / "release.csv", infer_schema=False)
    assert release.columns == ["age", "zip", "disease"]
    assert release["disease"].null_count() == 1
    assert not any(v.startswith(" ") for v in release["zip"].to_list())


def test_duplicate_column_names_are_an_error(tmp_path: Path) -> None:
    _write_csv(tmp_path / "data.csv", ROWS, ("email", "age", "sex", "age", "disease", "visits"))
    code, _, err = _run("anonymize", str(_config(tmp_path, "")))
    assert code == 1 and "'age'" in err and "duplicate" in err.lower()
    assert "age_duplicated" not in err


def test_ragged_rows_name_the_line(tmp_path: Path) -> None:
    path = _write_csv(tmp_path / "data.csv", ROWS)
    text = path.read_text().splitlines()
    text[4] = text[4] + ",extra"
    path.write_text("\n".join(text) + "\n")
    code, _, err = _run("anonymize", str(_config(tmp_path, "")))
    assert code == 1 and "line 5" in err
    assert "Traceback" not in err


def test_a_wrong_separator_gets_a_hint(tmp_path: Path) -> None:
    _write_csv(tmp_path / "data.csv", ROWS)
    body = '[read]\nseparator = ";"\n[attributes]\nquasi_identifiers = ["age", "zip"]\n'
    code, _, err = _run("anonymize", str(_config(tmp_path, body)))
    assert code == 2
    assert "','" in err or '","' in err


# ------------------------------------------------------------------ 4. CSV injection
def test_formula_cells_are_neutralized_in_the_release(tmp_path: Path) -> None:
    rows = [(*r[:4], "=cmd|' /C calc'!A0" if i == 0 else r[4], "-3") for i, r in enumerate(ROWS)]
    _write_csv(tmp_path / "data.csv", rows)
    hier = tmp_path / "zip.csv"
    hier.write_text(
        "".join(f"{z};@SUM(1+1);*\n" for z in ("1305", "1306", "1487", "1488")), encoding="utf-8"
    )
    body = (
        '[attributes]\nquasi_identifiers = ["age", "zip"]\nidentifying = ["email"]\n'
        'sensitive = ["disease"]\ninsensitive = ["visits", "sex"]\n'
        '[hierarchies]\nage = { type = "intervals", widths = [10, 20] }\nzip = "zip.csv"\n'
        "[privacy]\nk = 3\n"
    )
    cfg = _config(tmp_path, body)
    code, out, err = _run("anonymize", str(cfg), "--summary", str(tmp_path / "s.json"))
    assert code == 0, err
    text = (tmp_path / "release.csv").read_text(encoding="utf-8")
    assert "'=cmd" in text and "\n=cmd" not in text and ",=cmd" not in text
    assert ",-3" in text  # numbers stay numbers
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["output"]["escaped_cells"] >= 1
    if "@SUM" in text:  # the hierarchy label was released
        assert "'@SUM" in text
    (tmp_path / "release.csv").unlink()
    cfg = _config(tmp_path, body + '[release]\ncsv_formulas = "keep"\n')
    assert _run("anonymize", str(cfg))[0] == 0
    assert "\n" + "=cmd" in "\n" + (tmp_path / "release.csv").read_text().replace(",", "\n")


@pytest.mark.parametrize("formulas", ["escape", "keep"])
@pytest.mark.parametrize("engine", ["polars", "streaming"])
def test_check_reads_escaped_cells_as_anonymize_wrote_them(
    tmp_path: Path, formulas: str, engine: str
) -> None:
    """'=1+1' escaped became '=1+1' written by the user as '\\'=1+1': anonymize verified
    distinct 2-diversity and wrote a 1-diverse file (the streaming engine, which checks
    the file, stopped with an internal error); check read 1-diversity from it, with
    csv_formulas = "keep" too, since it unescaped the raw cells."""
    rows = [("m" if i % 4 < 2 else "f", "=1+1" if i % 2 else "'=1+1") for i in range(20)]
    _write_csv(tmp_path / "data.csv", rows, header=("sex", "note"))
    body = (
        '[attributes]\nquasi_identifiers = ["sex"]\nsensitive = ["note"]\n'
        '[hierarchies]\nsex = { type = "suppression" }\n[privacy]\nk = 2\n'
        'models = [{ name = "distinct_l_diversity", attribute = "note", l = 2 }]\n'
        f'[release]\ncsv_formulas = "{formulas}"\n'
    )
    cfg = _config(tmp_path, body)
    code, _, err = _run("anonymize", str(cfg), "--engine", engine, "-q")
    if engine == "streaming" and formulas == "keep":
        assert code == 2 and "always escapes formulas" in err
        return
    assert code == 0, err
    written = read_table(tmp_path / "release.csv")
    assert written["note"].n_unique() == 2
    code, out, err = _run("check", str(tmp_path / "release.csv"), "-c", str(cfg))
    assert code == 0, out + err
    assert "NOT met" not in out
    original, release = str(tmp_path / "data.csv"), str(tmp_path / "release.csv")
    figures = tmp_path / "figures.json"
    code, out, err = _run("evaluate", original, release, "-c", str(cfg), "--json", str(figures))
    assert code == 0, out + err
    privacy = json.loads(figures.read_text())["privacy"]
    assert privacy["l_diversity"]["note"]["distinct_l"] == 2


def test_a_failure_after_the_release_was_written_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A summary that could not be written (a full disk) ended the run with an error
    that did not say the release had already been replaced."""
    import errno

    import anonkit.cli.anonymize as command

    _write_csv(tmp_path / "data.csv", ROWS)
    cfg = _config(tmp_path, '[attributes]\nquasi_identifiers = ["age", "zip"]\nothers = "drop"\n')

    def full_disk(summary: Path | None, *args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(summary))

    monkeypatch.setattr(command, "_write_texts", full_disk)
    monkeypatch.chdir(tmp_path)
    code, _, err = _run("anonymize", str(cfg), "--summary", "s.json")
    assert code == 1
    assert "No space left on device. Already written: release.csv." in err
    _no_leftovers(tmp_path)


def test_html_report_escapes_hostile_labels(tmp_path: Path) -> None:
    rows = [(*r[:4], "<script>x</script>", r[5]) for r in ROWS]
    _write_csv(tmp_path / "data.csv", rows)
    body = (
        '[attributes]\nquasi_identifiers = ["age", "zip"]\nidentifying = ["email"]\n'
        'sensitive = ["disease"]\nothers = "drop"\n'
    )
    html = tmp_path / "full.html"
    code, _, err = _run("anonymize", str(_config(tmp_path, body)), "--html", str(html))
    assert code == 0, err
    assert "<script>x" not in html.read_text(encoding="utf-8")


# ------------------------------------------------------------------ 5. smaller messages
def test_an_unknown_output_extension_is_refused_before_any_work(tmp_path: Path) -> None:
    _write_csv(tmp_path / "data.csv", ROWS)
    code, _, err = _run("anonymize", str(_config(tmp_path, "")), "-o", str(tmp_path / "r.xlsx"))
    assert code == 2 and ".xlsx" in err and ".parquet" in err
    assert not (tmp_path / "r.xlsx").exists()


@pytest.mark.parametrize("suffix", [".tsv", ".parquet"])
def test_the_output_format_follows_the_extension(tmp_path: Path, suffix: str) -> None:
    _write_csv(tmp_path / "data.csv", ROWS)
    body = '[attributes]\nquasi_identifiers = ["age", "zip"]\nothers = "drop"\n'
    target = tmp_path / f"release{suffix}"
    code, _, err = _run("anonymize", str(_config(tmp_path, body)), "-o", str(target))
    assert code == 0, err
    frame = (
        pl.read_parquet(target)
        if suffix == ".parquet"
        else pl.read_csv(target, separator="\t", infer_schema=False)
    )
    assert frame.columns == ["age", "zip"] and frame.height == len(ROWS)


def test_check_on_an_empty_file_does_not_talk_of_anonymizing(tmp_path: Path) -> None:
    (tmp_path / "empty.csv").write_text("age,zip\n", encoding="utf-8")
    code, _, err = _run("check", str(tmp_path / "empty.csv"), "--qi", "age,zip", "-k", "2")
    assert code != 0 and "no records" in err
    assert "anonymize" not in err


# ------------------------------------------------------------------ risk, verification
def test_the_summary_states_risk_and_verification(tmp_path: Path) -> None:
    _write_csv(tmp_path / "data.csv", ROWS)
    body = (
        '[attributes]\nquasi_identifiers = ["age", "zip"]\nidentifying = ["email"]\n'
        'sensitive = ["disease"]\nothers = "drop"\n'
    )
    report = tmp_path / "report.html"
    code, out, err = _run(
        "anonymize",
        str(_config(tmp_path, body)),
        "--summary",
        str(tmp_path / "s.json"),
        "--report",
        str(report),
    )
    assert code == 0, err
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["verified"] is True
    risk = summary["risk"]
    assert risk["prosecutor_max"] <= 1 / 3 and risk["sample_uniques"] == 0
    assert {"marketer", "records_at_risk", "journalist_max"} <= set(risk)
    assert "prosecutor risk" in out and "verified" in out
    assert "Re-identification risk" in report.read_text(encoding="utf-8")


def test_progress_goes_to_stderr_only(tmp_path: Path) -> None:
    _write_csv(tmp_path / "data.csv", ROWS)
    body = '[attributes]\nquasi_identifiers = ["age", "zip"]\nothers = "drop"\n'
    code, out, err = _run("anonymize", str(_config(tmp_path, body)), "--progress")
    assert code == 0, err
    assert "Reading" not in out and "Searching" not in out


def test_an_output_that_is_the_input_is_refused_and_the_input_kept(tmp_path: Path) -> None:
    """The release written over the input file replaced the original records."""
    data = _write_csv(tmp_path / "data.csv", ROWS)
    before = data.read_bytes()
    body = '[attributes]\nquasi_identifiers = ["age", "zip"]\nothers = "drop"\n'
    cfg = _config(tmp_path, body)
    (tmp_path / "link.csv").symlink_to(data)
    for target in (data, tmp_path / "sub" / ".." / "data.csv", tmp_path / "link.csv"):
        if target.parent.name == "..":
            (tmp_path / "sub").mkdir(exist_ok=True)
        code, _, err = _run("anonymize", str(cfg), "-o", str(target))
        assert code == 2 and "the run reads that file" in err and "another" in err, err
        assert data.read_bytes() == before
    _no_leftovers(tmp_path)


def test_init_refuses_to_write_its_configuration_over_the_data(tmp_path: Path) -> None:
    data = _write_csv(tmp_path / "data.toml", ROWS)  # an odd name, but a data file
    before = data.read_bytes()
    code, _, err = _run("init", str(data), "--separator", ",", "-o", str(data))
    assert code == 2 and "the run reads that file" in err, err
    assert data.read_bytes() == before


def test_reports_and_sequential_releases_refuse_to_overwrite_their_inputs(tmp_path: Path) -> None:
    data = _write_csv(tmp_path / "data.csv", ROWS)
    before = data.read_bytes()
    cfg = _config(tmp_path, '[attributes]\nquasi_identifiers = ["age", "zip"]\nothers = "drop"\n')
    code, _, err = _run("anonymize", str(cfg), "--summary", str(data))
    assert code == 2 and "the run reads that file" in err
    code, _, err = _run("evaluate", str(data), str(data), "-c", str(cfg), "--html", str(data))
    assert code == 2 and "the run reads that file" in err
    options = ["--history", str(tmp_path / "h.json"), "--id-column", "email", "--qi", "age"]
    options += ["--sensitive", "disease", "--m", "2"]
    code, _, err = _run("release", str(data), *options, "-o", str(data))
    assert code == 2 and "the run reads that file" in err, err
    assert data.read_bytes() == before


def test_an_output_that_is_a_folder_is_named_in_the_error(tmp_path: Path) -> None:
    _write_csv(tmp_path / "data.csv", ROWS)
    cfg = _config(tmp_path, '[attributes]\nquasi_identifiers = ["age", "zip"]\nothers = "drop"\n')
    (tmp_path / "out.csv").mkdir()
    code, _, err = _run("anonymize", str(cfg), "-o", str(tmp_path / "out.csv"))
    # refused before the work (it failed at the end, after the search)
    assert code == 2 and f"{tmp_path / 'out.csv'}: it is a folder" in err, err
    _no_leftovers(tmp_path)


def test_outputs_that_name_one_file_or_the_config_are_refused_before_any_write(
    tmp_path: Path,
) -> None:
    """--summary release.csv replaced the release with JSON (exit 0); --summary CONFIG
    replaced the configuration; a --summary naming a folder stopped the run after the
    release had replaced the previous one."""
    _write_csv(tmp_path / "data.csv", ROWS)
    cfg = _config(tmp_path, '[attributes]\nquasi_identifiers = ["age", "zip"]\nothers = "drop"\n')
    release = tmp_path / "release.csv"
    release.write_text("PREVIOUS RELEASE\n", encoding="utf-8")
    config_text = cfg.read_text(encoding="utf-8")
    (tmp_path / "sum.json").mkdir()
    cases = [
        (["--summary", str(release)], "--summary names the same file as the release"),
        (["--report", str(tmp_path / "r.html"), "--html", str(tmp_path / "r.html")], "--html"),
        (["--summary", str(cfg)], "the run reads that file"),
        (["--summary", str(tmp_path / "sum.json")], "sum.json: it is a folder"),
    ]
    for options, expected in cases:
        code, _, err = _run("anonymize", str(cfg), "-o", str(release), *options)
        assert code == 2 and expected in " ".join(err.split()), err
        assert release.read_text(encoding="utf-8") == "PREVIOUS RELEASE\n"
        assert cfg.read_text(encoding="utf-8") == config_text
    code, _, err = _run(
        "evaluate", str(tmp_path / "data.csv"), str(tmp_path / "data.csv"), "-c", str(cfg),
        "--json", str(tmp_path / "x"), "--html", str(tmp_path / "x"),
    )  # fmt: skip
    assert code == 2 and "--html names the same file as --json" in err, err
    assert not (tmp_path / "x").exists()


def test_column_names_with_brackets_are_printed_as_written(tmp_path: Path) -> None:
    """rich read 'weight [kg]' as markup ('weight ' was printed), and a name holding
    '[/]' crashed the run with a traceback after the files were written."""
    rows = "".join(f"{'v0' if i % 2 else 'v1'},{'xyz'[i % 3]}\n" for i in range(12))
    for name in ("weight [kg]", "[/]"):
        (tmp_path / "d.csv").write_text(f'"{name}",s\n' + rows, encoding="utf-8")
        cfg = _config(
            tmp_path,
            f'[attributes]\nquasi_identifiers = ["{name}"]\nsensitive = ["s"]\n'
            f'[hierarchies]\n"{name}" = [["v0", "*"], ["v1", "*"]]\n',
            data="d.csv",
        )
        code, out, err = _run("anonymize", str(cfg), "--no-progress")
        assert code == 0, err
        assert f"{name}=" in out and "Traceback" not in err


def test_evaluate_refuses_to_write_over_a_hierarchy_it_reads(tmp_path: Path) -> None:
    data = _write_csv(tmp_path / "data.csv", ROWS)
    hierarchy = tmp_path / "zip.csv"
    hierarchy.write_text("10115;101**;*\n10117;101**;*\n", encoding="utf-8")
    before = hierarchy.read_bytes()
    cfg = _config(
        tmp_path,
        '[attributes]\nquasi_identifiers = ["zip"]\nothers = "drop"\n'
        f'[hierarchies]\nzip = "{hierarchy}"\n',
    )
    code, _, err = _run("evaluate", str(data), str(data), "-c", str(cfg), "--json", str(hierarchy))
    assert code == 2 and "the run reads that file" in err, err
    assert hierarchy.read_bytes() == before
