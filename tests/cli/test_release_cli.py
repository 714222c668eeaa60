"""``anonkit release``: successive releases of a changing table from the command line."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from anonkit.cli.main import app
from anonkit.releases import ReleaseHistory, publish

runner = CliRunner()
DISEASES = ["flu", "hiv", "cancer", "gastritis", "asthma", "diabetes"]
T1 = pl.DataFrame(
    {
        "pid": [f"p{i}" for i in range(1, 13)],
        "age": [str(a) for a in range(21, 33)],
        "zip": [str(10 + i % 3) for i in range(12)],
        "disease": [DISEASES[i % 6] for i in range(12)],
        "name": [f"person {i}" for i in range(12)],
    }
)
T2 = pl.concat(
    [
        T1.slice(1),
        pl.DataFrame(
            {"pid": ["p13"], "age": ["33"], "zip": ["11"], "disease": ["flu"], "name": ["x"]}
        ),
    ]
)
ARGS = ["--id-column", "pid", "--qi", "age,zip", "--sensitive", "disease", "--m", "3",
        "--numeric", "age,zip"]  # fmt: skip


def _release(data: Path, out: Path, history: Path) -> tuple[int, str]:
    res = runner.invoke(
        app, ["release", str(data), "--history", str(history), "-o", str(out), *ARGS]
    )
    return res.exit_code, res.stdout + res.stderr


def test_two_releases_keep_the_history_and_match_the_api(tmp_path: Path) -> None:
    history = tmp_path / "history.json"
    T1.write_csv(tmp_path / "t1.csv")
    T2.write_csv(tmp_path / "t2.csv")
    code, out = _release(tmp_path / "t1.csv", tmp_path / "r1.csv", history)
    assert code == 0, out
    assert history.is_file() and (tmp_path / "r1.counterfeits.csv").is_file()
    code, out = _release(tmp_path / "t2.csv", tmp_path / "r2.csv", history)
    assert code == 0, out
    assert "invarian" in out
    first = publish(T1, id_column="pid", quasi_identifiers=["age", "zip"], sensitive="disease",
                    m=3, numeric=["age", "zip"])  # fmt: skip
    second = publish(T2, id_column="pid", quasi_identifiers=["age", "zip"], sensitive="disease",
                     m=3, numeric=["age", "zip"], history=first.history)  # fmt: skip
    released = pl.read_csv(tmp_path / "r2.csv", infer_schema=False)
    assert released.columns == second.table.columns
    assert "name" not in released.columns and "pid" not in released.columns
    assert released.height == second.table.height
    assert ReleaseHistory.load(history).to_json() == second.history.to_json()


def test_a_failed_release_keeps_the_previous_history(tmp_path: Path) -> None:
    history = tmp_path / "history.json"
    T1.write_csv(tmp_path / "t1.csv")
    assert _release(tmp_path / "t1.csv", tmp_path / "r1.csv", history)[0] == 0
    before = history.read_text()
    # p5's value leaves the signature it was published with: m-invariance refuses
    changed = T1.with_columns(
        pl.when(pl.col("pid") == "p5")
        .then(pl.lit("flu"))
        .otherwise(pl.col("disease"))
        .alias("disease")
    )
    changed.write_csv(tmp_path / "t2.csv")
    code, out = _release(tmp_path / "t2.csv", tmp_path / "r2.csv", history)
    assert code == 1 and "tau_safety" in out
    assert history.read_text() == before and not (tmp_path / "r2.csv").exists()


def test_a_release_shows_its_steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Publishing is record by record (300,000 records: 6 s): reading, each step of
    publish() and writing are steps of the progress display."""
    import contextlib
    from typing import Any

    import anonkit.cli.release as release_module

    seen: list[str] = []

    @contextlib.contextmanager
    def recording(progress: bool | None, quiet: bool = False) -> Any:
        class Bar:
            def __call__(self, done: int, total: int) -> None: ...

            def stage(self, name: str, unit: str = "") -> None:
                seen.append(name)

        yield Bar()

    monkeypatch.setattr(release_module, "progress_reporter", recording)
    T1.write_csv(tmp_path / "t1.csv")
    code, out = _release(tmp_path / "t1.csv", tmp_path / "r1.csv", tmp_path / "h.json")
    assert code == 0, out
    assert seen == [
        "Reading t1.csv",
        "Dividing the records",
        "Forming the classes",
        "Releasing the classes",
        "Writing the release",
    ]


def test_a_latin1_table_is_read_with_encoding(tmp_path: Path) -> None:
    """The encoding error names --encoding; with it, the release is made (the sensitive
    values keep their accents)."""
    table = T1.with_columns(pl.col("disease").str.replace("flu", "grippe aviaire é"))
    data = tmp_path / "t1.csv"
    data.write_bytes(table.write_csv(separator=";").encode("latin-1"))
    out, history = tmp_path / "r1.csv", tmp_path / "h.json"
    args = ["release", str(data), "--history", str(history), "-o", str(out), *ARGS]
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and "--encoding latin-1" in res.stderr
    res = runner.invoke(app, [*args, "--encoding", "latin-1", "--separator", ";"])
    assert res.exit_code == 0, res.stderr
    assert "grippe aviaire é" in pl.read_csv(out, infer_schema=False)["disease"].to_list()


def test_a_release_names_the_columns_it_leaves_out(tmp_path: Path) -> None:
    """Only the quasi-identifiers and the sensitive attribute are published; the others
    (here the id and 'name') left without a word, so a user could not tell a column they
    wanted from one they meant to drop."""
    T1.write_csv(tmp_path / "t1.csv")
    code, out = _release(tmp_path / "t1.csv", tmp_path / "r1.csv", tmp_path / "h.json")
    assert code == 0, out
    assert "not published: pid (the id column), name" in " ".join(out.split())


def test_a_release_whose_history_cannot_be_saved_is_not_published(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The release was written, then the history save failed (a file-size limit): the
    release stayed, the history did not know it, and the next release gave its records
    new signatures, which the intersection attack narrowed to one value."""
    import errno

    history = tmp_path / "history.json"
    T1.write_csv(tmp_path / "t1.csv")
    T2.write_csv(tmp_path / "t2.csv")
    assert _release(tmp_path / "t1.csv", tmp_path / "r1.csv", history)[0] == 0
    before = history.read_text()

    def too_large(self: ReleaseHistory, path: Path) -> None:
        raise OSError(errno.EFBIG, "File too large", str(path))

    monkeypatch.setattr(ReleaseHistory, "save", too_large)
    code, out = _release(tmp_path / "t2.csv", tmp_path / "r2.csv", history)
    assert code == 1 and "File too large" in out and "history.json" in out
    assert history.read_text() == before
    assert not (tmp_path / "r2.csv").exists() and not (tmp_path / "r2.counterfeits.csv").exists()


def test_a_wrong_separator_gets_a_hint(tmp_path: Path) -> None:
    """README (Dirty input) promises a hint for a wrong separator; release said only
    "Unknown column(s) 'pid', ...; the data has 'pid;age;zip;disease;name'"."""
    data = tmp_path / "t1.csv"
    T1.write_csv(data, separator=";")
    history, out = tmp_path / "history.json", tmp_path / "r1.csv"
    res = runner.invoke(
        app,
        ["release", str(data), "--history", str(history), "-o", str(out), *ARGS,
         "--separator", ","],
    )  # fmt: skip
    assert res.exit_code == 2, res.output
    assert "read with separator ',' into one column" in res.stderr
    assert "use --separator ';'" in res.stderr and "set separator" not in res.stderr
    assert not out.exists() and not history.exists()


@pytest.mark.parametrize(
    ("old", "qi", "sensitive"), [("zip", "age,class", "disease"), ("disease", "age,zip", "class")]
)
def test_a_column_named_class_is_a_usage_error(
    tmp_path: Path, old: str, qi: str, sensitive: str
) -> None:
    """A quasi-identifier or sensitive column named 'class' (the release's class column)
    stopped with "polars stopped on the data (DuplicateError)"."""
    T1.rename({old: "class"}).write_csv(tmp_path / "t1.csv")
    history, out = tmp_path / "h.json", tmp_path / "r1.csv"
    res = runner.invoke(
        app, ["release", str(tmp_path / "t1.csv"), "--history", str(history), "-o", str(out),
              "--id-column", "pid", "--qi", qi, "--sensitive", sensitive, "--m", "3"],
    )  # fmt: skip
    assert res.exit_code == 2, res.output
    assert "other than 'class'" in res.stderr and "polars" not in res.stderr
    assert not out.exists() and not history.exists()


@pytest.mark.parametrize(
    "content",
    [
        b'{"format":1,"window":1,"releases":1,"sensitive":"disease","records":{"p1":[]}}',
        b'{"format":1,"window":1e999,"releases":1,"sensitive":null,"records":{}}',
        b'{"format":1,"window":1,"releases":1.7,"sensitive":null,"records":{}}',
        b"[" * 100_000 + b"]" * 100_000,
        b"\xff\xfe{}",
    ],
    ids=["empty entries", "huge window", "fractional releases", "deep", "not utf-8"],
)
def test_a_malformed_history_is_one_line(tmp_path: Path, content: bytes) -> None:
    """Each stopped with a Python traceback (ValueError from min(), OverflowError,
    RecursionError, UnicodeDecodeError), or was read (1.7 releases as 1)."""
    history = tmp_path / "h.json"
    history.write_bytes(content)
    T1.write_csv(tmp_path / "t1.csv")
    res = runner.invoke(
        app, ["release", str(tmp_path / "t1.csv"), "--history", str(history), "-o",
              str(tmp_path / "r1.csv"), *ARGS],
    )  # fmt: skip
    assert res.exit_code == 1, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert f"error: Cannot read {history}: it is not a release history" in res.stderr
    assert history.read_bytes() == content and not (tmp_path / "r1.csv").exists()


def test_tau_is_refused_without_tau_safety(tmp_path: Path) -> None:
    """--tau 7 under the default m-invariance was accepted and ignored (the history kept
    a window of 1)."""
    T1.write_csv(tmp_path / "t1.csv")
    history, out = tmp_path / "h.json", tmp_path / "r1.csv"
    base = ["release", str(tmp_path / "t1.csv"), "--history", str(history), "-o", str(out)]
    res = runner.invoke(app, [*base, *ARGS, "--tau", "7"])
    assert res.exit_code == 2, res.output
    assert "--tau" in res.stderr and "--model tau_safety" in res.stderr
    assert not out.exists() and not history.exists()
    res = runner.invoke(app, [*base, *ARGS, "--tau", "7", "--model", "tau_safety"])
    assert res.exit_code == 0, res.output
    assert "τ=7" in res.stdout and ReleaseHistory.load(history).window == 7


def test_a_seed_repeats_the_counterfeits(tmp_path: Path) -> None:
    """--seed is publish's seed: the counterfeit values of new classes, drawn at random,
    are drawn again the same (here three 'flu' records need counterfeits)."""
    skewed = T1.head(6).with_columns(
        disease=pl.Series(["flu", "flu", "flu", "flu", "hiv", "cancer"])
    )
    skewed.write_csv(tmp_path / "t1.csv")
    tables = []
    for run in ("a", "b"):
        out = tmp_path / f"{run}.csv"
        res = runner.invoke(
            app, ["release", str(tmp_path / "t1.csv"), "--history", str(tmp_path / f"{run}.json"),
                  "-o", str(out), *ARGS, "--seed", "11"],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        tables.append(pl.read_csv(out, infer_schema=False))
    api = publish(skewed, id_column="pid", quasi_identifiers=["age", "zip"], sensitive="disease",
                  m=3, numeric=["age", "zip"], seed=11)  # fmt: skip
    assert int(api.counterfeits["counterfeits"].sum()) > 0
    assert tables[0].equals(tables[1])
    assert tables[0].equals(api.table.cast(pl.String))


def test_a_warning_is_one_line_and_advice_names_the_command_line(tmp_path: Path) -> None:
    """ "None of the ids is in the history" came as a Python UserWarning with a source path
    and line; errors advised domain= and model='tau_safety', which the command line does
    not take as such."""
    T1.write_csv(tmp_path / "t1.csv")
    T1.with_columns(pid=pl.lit("q") + pl.col("pid")).write_csv(tmp_path / "t2.csv")
    history = tmp_path / "h.json"
    assert _release(tmp_path / "t1.csv", tmp_path / "r1.csv", history)[0] == 0
    res = runner.invoke(
        app, ["release", str(tmp_path / "t2.csv"), "--history", str(history), "-o",
              str(tmp_path / "r2.csv"), *ARGS],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "warning: None of the 12 ids in column 'pid' is in the history" in res.stderr
    assert "UserWarning" not in res.stderr and "release.py" not in res.stderr
    assert _release(tmp_path / "t1.csv", tmp_path / "q1.csv", tmp_path / "q.json")[0] == 0
    res = runner.invoke(
        app, ["release", str(tmp_path / "t2.csv"), "--history", str(tmp_path / "q.json"), "-o",
              str(tmp_path / "q2.csv"), *ARGS, "-q"],
    )  # fmt: skip
    assert res.exit_code == 0 and res.stderr == ""  # --quiet: nothing but errors
    res = runner.invoke(
        app, ["release", str(tmp_path / "t2.csv"), "--history", str(tmp_path / "h2.json"),
              "-o", str(tmp_path / "r3.csv"), *[a if a != "3" else "30" for a in ARGS]],
    )  # fmt: skip
    assert res.exit_code == 1
    assert "(domain= in Python)" in " ".join(res.stderr.split())
    changed = T1.with_columns(
        disease=pl.when(pl.col("pid") == "p5").then(pl.lit("flu")).otherwise(pl.col("disease"))
    )
    changed.write_csv(tmp_path / "t3.csv")
    code, out = _release(tmp_path / "t3.csv", tmp_path / "r4.csv", tmp_path / "h.json")
    assert code == 1 and "(--model tau_safety" in " ".join(out.split())
