"""Spark reads, counts and releases what the polars engine does, and says what it says.

Each test is a bug found on Spark: a quoted line break read as two records, Unicode
spaces left by ``strip``, a column name with a dot that stopped the run, a valid U+FFFD
refused as a decoding error, Spark's error message logged on stderr by pyspark, and a
missing input file told without its name.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from spark_support import SKIP_REASON

from anonkit.engines.counting import COUNT
from anonkit.engines.spark_csv import read_csv
from anonkit.engines.spark_engine import SparkEngine
from anonkit.exceptions import SHOW_ERRORS, InputFileError, InputFormatError
from anonkit.io.tables import read_table

if SKIP_REASON is not None:
    pytest.skip(SKIP_REASON, allow_module_level=True)


def collect(df: Any, schema: dict[str, Any]) -> pl.DataFrame:
    """A Spark DataFrame's rows as a polars frame with ``schema`` (any column name)."""
    from anonkit.engines.spark_frames import named

    rows = [tuple(r) for r in df.select(*map(named, schema)).collect()]
    return pl.DataFrame(rows, schema=schema, orient="row")


def _same_records(spark: Any, path: Path, **read: Any) -> pl.DataFrame:
    """``path`` read by Spark, asserted equal to the polars read, cell by cell."""
    memory = read_table(path, **read)
    on_spark = collect(read_csv(spark, path, **read), dict.fromkeys(memory.columns, pl.String))
    assert sorted(on_spark.rows(), key=repr) == sorted(memory.rows(), key=repr)
    return on_spark


@pytest.mark.parametrize("end", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_a_quoted_line_break_is_one_record_on_spark(spark: Any, tmp_path: Path, end: str) -> None:
    """Spark read one record per line: the cell ``"cancer<LF>a;M;HIV"`` became the value
    ``cancer`` and a made-up record ``a;M;HIV"``, counted and published."""
    lines = ["g;sex;diag", "a;M;flu", "a;F;flu", 'a;F;"cancer', 'a;M;HIV"', "a;M;cold", "a;F;x"]
    path = tmp_path / "ml.csv"
    path.write_bytes(end.join([*lines, ""]).encode())
    read = _same_records(spark, path, separator=";")
    assert read.height == 5 and f"cancer{end}a;M;HIV" in read["diag"].to_list()


def test_a_release_with_line_breaks_is_verified_from_what_was_written(
    spark: Any, tmp_path: Path
) -> None:
    """The command's run on the file above stopped with 'the input changed': the CSV
    release Spark wrote was read back one record per line, a record too many."""
    from anonkit import anonymize

    frame = pl.DataFrame(
        {
            "sex": ["M", "F", "F", "M", "F"] * 8,
            "diag": ["flu", "cancer\na;M;HIV", "x\r\ny", "z"] * 10,
        }
    )
    out = tmp_path / "release.csv"
    keywords: dict[str, Any] = {"hierarchies": {"sex": [["M", "*"], ["F", "*"]]}, "k": 2}
    got = anonymize(to_spark(spark, frame), quasi_identifiers=["sex"], sensitive=["diag"],
                    engine="spark", output=out, **keywords)  # fmt: skip
    assert got.verified
    read = collect(got.release, {"sex": pl.String, "diag": pl.String})
    assert sorted(read["diag"]) == sorted(frame["diag"])


def test_mixed_line_ends_with_quoted_line_breaks_are_refused(spark: Any, tmp_path: Path) -> None:
    """Spark's multiLine reader takes one line separator: a record ending with \\r\\n
    in a \\n file would keep its \\r; the file is refused, naming the line."""
    path = tmp_path / "mixed.csv"
    path.write_bytes(b'g;diag\na;"x\ny"\r\nb;z\n')
    with pytest.raises(InputFormatError, match="line 3 ends with") as err:
        read_csv(spark, path)
    assert err.value.line == 3
    path.write_bytes(b"g;diag\na;x\r\nb;z\n")  # no quoted line break: read line by line
    _same_records(spark, path)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b'a,b\n1,"x\ny"\n', "\n"),
        (b'a,b\r\n1,"x\ny"\r\n2,3\r\n', "\r\n"),
        (b'a,b\r\n1,"x\ry"\r\n', "\r\n"),
        (b'a,b\n1,"x,y"\n2,""""\n', None),
        (b"a,b\r\n1,2\n", None),
        (b'a,b\n"1\n\n\n2",3', "\n"),
    ],
)
def test_quoted_line_breaks_are_found_across_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes, expected: str | None
) -> None:
    import anonkit.engines.spark_csv as spark_csv

    path = tmp_path / "f.csv"
    path.write_bytes(data)
    assert spark_csv._multiline_separator(path) == expected
    for chunk in (1, 2, 3, 5):
        monkeypatch.setattr(spark_csv, "_CHUNK", chunk)
        assert spark_csv._multiline_separator(path) == expected, chunk


def test_strip_removes_unicode_white_space_as_polars_does(spark: Any, tmp_path: Path) -> None:
    """``strip`` removed ASCII white space only on Spark: ``x<NBSP>`` was published as
    it was, and ``?<NBSP>`` as a value where polars reads the missing token ``?``."""
    path = tmp_path / "nbsp.csv"
    cells = ["x\xa0", "\xa0y", "?\xa0", "z\u3000", "\u2003w\t", "plain", " \u205f"]
    path.write_text("g;note\n" + "".join(f"a;{c}\n" for c in cells), encoding="utf-8", newline="")
    read = _same_records(spark, path, separator=";", missing=["", "?"], strip=True)
    assert sorted(read["note"].drop_nulls()) == ["plain", "w", "x", "y", "z"]


def test_a_valid_replacement_character_is_read_as_polars_reads_it(
    spark: Any, tmp_path: Path
) -> None:
    """A UTF-8 file holding U+FFFD was refused as 'not valid utf-8': the driver had
    checked its bytes as UTF-8 already."""
    path = tmp_path / "fffd.csv"
    path.write_text("g;note\na;x\ufffdy\na;plain\n", encoding="utf-8")
    read = _same_records(spark, path, separator=";")
    assert "x\ufffdy" in read["note"].to_list()


DOTTED = pl.DataFrame(
    {
        "age.years": [str(20 + i % 17) for i in range(60)],
        "sex": ["M" if i % 3 else "F" for i in range(60)],
        "note.text": [f"n{i % 4}" for i in range(60)],
        "diag`x": [["flu", "cold", "hiv"][(i // 2) % 3] for i in range(60)],
    }
)


def to_spark(spark: Any, frame: pl.DataFrame) -> Any:
    """``frame`` (text columns) in Spark, its names quoted (a backtick doubled)."""
    schema = ", ".join(f"`{c.replace('`', '``')}` string" for c in frame.columns)
    return spark.createDataFrame(frame.rows(), schema)


def test_column_names_with_a_dot_are_released_as_by_polars(spark: Any) -> None:
    """``age.years`` was read by Spark as the field ``years`` of a struct ``age``: the
    run stopped with an AnalysisException."""
    from anonkit import anonymize
    from anonkit.models import DistinctLDiversity

    keywords: dict[str, Any] = {
        "quasi_identifiers": ["age.years", "sex"],
        "hierarchies": {
            "age.years": {"type": "intervals", "widths": [5, 10, 20]},
            "sex": [["M", "*"], ["F", "*"]],
        },
        "sensitive": ["diag`x"],
        "insensitive": ["note.text"],
        "privacy": [DistinctLDiversity("diag`x", 2)],
        "k": 4,
        "suppression_limit": 0.1,
    }
    expected = anonymize(DOTTED, **keywords)
    got = anonymize(to_spark(spark, DOTTED), engine="spark", **keywords)
    assert got.verified and dict(got.transformation) == dict(expected.transformation)
    release = collect(got.release, dict(expected.release.schema))
    assert sorted(release.rows()) == sorted(expected.release.rows())
    engine = SparkEngine(spark)
    source = to_spark(spark, DOTTED)
    assert engine.head(source, 3).equals(DOTTED.head(3))
    assert engine.tally(source, ["age.years", "note.text"])[COUNT].sum() == 60
    assert engine.distinct(source, "note.text") == ["n0", "n1", "n2", "n3"]


def test_mondrian_and_evaluate_on_spark_read_dotted_names(spark: Any) -> None:
    from anonkit import anonymize
    from anonkit.evaluate import evaluate

    keywords: dict[str, Any] = {
        "quasi_identifiers": ["age.years", "sex"],
        "hierarchies": {
            "age.years": {"type": "intervals", "widths": [5, 10, 20]},
            "sex": [["M", "*"], ["F", "*"]],
        },
        "insensitive": ["note.text", "diag`x"],
        "algorithm": "mondrian",
        "k": 4,
    }
    expected = anonymize(DOTTED, **keywords)
    source = to_spark(spark, DOTTED)
    got = anonymize(source, engine="spark", **keywords)
    release = collect(got.release, dict(expected.release.schema))
    assert sorted(release.rows()) == sorted(expected.release.rows())
    options: dict[str, Any] = {
        "quasi_identifiers": ["age.years", "sex"],
        "hierarchies": keywords["hierarchies"],
        "k": 4,
    }
    on_spark = evaluate(source, got.release, **options)
    in_memory = evaluate(DOTTED, expected.release, **options)
    assert on_spark.privacy["achieved_k"] == in_memory.privacy["achieved_k"]
    assert on_spark.loss["ncp"] == pytest.approx(in_memory.loss["ncp"])


@pytest.fixture
def pyspark_loggers() -> Any:
    """The names of pyspark's error loggers, their levels restored after the test. They
    are made by pyspark's ``PySparkLogger`` (a plain logger would refuse the keywords
    pyspark logs with)."""
    logger = pytest.importorskip("pyspark.logger", reason="pyspark 3.5 logs no error")
    names = ("DataFrameQueryContextLogger", "SQLQueryContextLogger")
    saved = {n: logger.PySparkLogger.getLogger(n).level for n in names}
    yield names
    for n, level in saved.items():
        logging.getLogger(n).setLevel(level)


def test_a_session_anonkit_starts_logs_no_spark_error(
    spark: Any, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    pyspark_loggers: Any,
) -> None:  # fmt: skip
    """pyspark 4 logs an error's message, plan and stack trace as JSON on stderr
    (``DataFrameQueryContextLogger``), where anonkit says the message is not shown."""
    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F

    from anonkit.engines.spark_session import start_session

    monkeypatch.delenv(SHOW_ERRORS, raising=False)
    try:
        assert start_session() is spark  # the active session, as the CLI's would be
    finally:
        spark.sparkContext.setLogLevel("ERROR")
    capfd.readouterr()
    df = spark.createDataFrame([("secret-value", 1)], "a string, b int")
    with pytest.raises(AnalysisException):
        df.select(F.col("nope") + F.col("b")).collect()
    with pytest.raises(AnalysisException):
        spark.sql("select nope from values (1) as t(b)").collect()
    err = capfd.readouterr().err
    assert "QueryContextLogger" not in err and "nope" not in err, err


def test_show_errors_leaves_pyspark_s_loggers_alone(
    monkeypatch: pytest.MonkeyPatch, pyspark_loggers: Any
) -> None:
    from anonkit.engines.spark_session import quiet_spark_loggers

    for n in pyspark_loggers:
        logging.getLogger(n).setLevel(logging.WARNING)
    monkeypatch.setenv(SHOW_ERRORS, "1")
    quiet_spark_loggers()
    assert all(logging.getLogger(n).level == logging.WARNING for n in pyspark_loggers)
    monkeypatch.delenv(SHOW_ERRORS)
    quiet_spark_loggers()
    assert all(logging.getLogger(n).level > logging.CRITICAL for n in pyspark_loggers)


def test_the_engine_quiets_pyspark_s_loggers_in_a_session_of_the_user_s(
    spark: Any, monkeypatch: pytest.MonkeyPatch, pyspark_loggers: Any
) -> None:
    """Quieted only in sessions anonkit started: with the user's own session (given to
    the engine, or its DataFrames') Spark's whole message still went to stderr."""
    for n in pyspark_loggers:
        logging.getLogger(n).setLevel(logging.WARNING)
    monkeypatch.delenv(SHOW_ERRORS, raising=False)
    SparkEngine(spark)
    assert all(logging.getLogger(n).level > logging.CRITICAL for n in pyspark_loggers)


@pytest.mark.parametrize("name", ["nope.csv", "nope.parquet", "nope.tsv"])
def test_a_missing_local_input_is_named(spark: Any, tmp_path: Path, name: str) -> None:
    """Spark said 'Spark stopped (AnalysisException)', without the file's name."""
    path = tmp_path / name
    with pytest.raises(InputFileError, match="no such file") as err:
        SparkEngine(spark).frame(str(path))
    assert err.value.path == str(path) and err.value.exit_code == 2


def test_the_command_names_a_missing_input_on_spark(spark: Any, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from anonkit.cli.main import app

    cfg = tmp_path / "c.toml"
    cfg.write_text(
        'input = "nope.csv"\n[hierarchies]\nsex = [["M", "*"], ["F", "*"]]\n[privacy]\nk = 2\n'
        '[search]\nengine = "spark"\n',
        encoding="utf-8",
    )
    res = CliRunner().invoke(app, ["anonymize", str(cfg), "-q", "-o", str(tmp_path / "o.csv")])
    assert res.exit_code == 2 and "nope.csv: no such file" in res.stderr, res.stderr
