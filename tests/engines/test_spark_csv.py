"""CSV read by Spark as anonkit reads it: a configuration's ``[read]`` options apply on
Spark too, and bytes Spark could not decode are an error, not ``U+FFFD`` in the release.

Before, Spark read every CSV with its own defaults: a ``;`` file was one column, a
latin-1 file was published with ``f\ufffde`` for ``fée``, and ``missing = ["?"]`` left
``?`` as a value where the in-memory run stopped on the missing values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from spark_support import SKIP_REASON, collect
from typer.testing import CliRunner

from anonkit.cli.main import app
from anonkit.engines.spark_csv import read_csv
from anonkit.engines.spark_engine import SparkEngine
from anonkit.evaluate_spark import measure_spark
from anonkit.exceptions import (
    DataError,
    EmptyDataError,
    InputEncodingError,
    InputFormatError,
    ParameterError,
)
from anonkit.io.tables import read_table
from anonkit.metrics.tables import Measuring

if SKIP_REASON is not None:
    pytest.skip(SKIP_REASON, allow_module_level=True)

ROWS = [("fée" if i % 2 else "mâle", str(20 + i % 30)) for i in range(40)]


def _write(path: Path, rows: list[tuple[str, str]], sep: str, encoding: str) -> Path:
    text = "".join(f"{a}{sep}{b}\n" for a, b in [("sex", "age"), *rows])
    path.write_bytes(text.encode(encoding))
    return path


def _read(spark: Any, path: Path, **read: Any) -> pl.DataFrame:
    return collect(read_csv(spark, path, **read), {"sex": pl.String, "age": pl.String})


def test_the_separator_is_sniffed_and_the_encoding_declared(spark: Any, tmp_path: Path) -> None:
    semi = _read(spark, _write(tmp_path / "semi.csv", ROWS, ";", "utf-8"))
    assert semi.columns == ["sex", "age"] and sorted(set(semi["sex"])) == ["fée", "mâle"]
    latin = _read(spark, _write(tmp_path / "l.csv", ROWS, ",", "latin-1"), encoding="latin-1")
    assert latin.equals(semi)
    tsv = _read(spark, _write(tmp_path / "t.tsv", ROWS, "\t", "utf-8"))
    assert tsv.equals(semi)


def test_missing_tokens_and_strip(spark: Any, tmp_path: Path) -> None:
    rows = [(" f\t", " 31"), ("?", "32"), ("m", "")]
    path = _write(tmp_path / "x.csv", rows, ",", "utf-8")
    read = _read(spark, path, missing=["?", ""], strip=True)
    assert read.rows() == [("f", "31"), (None, "32"), ("m", None)]
    kept = _read(spark, path, missing=[])  # "" is a value then, as read_table keeps it
    assert kept.rows() == [(" f\t", " 31"), ("?", "32"), ("m", "")]


def test_decimal_commas_on_spark_as_in_memory(spark: Any, tmp_path: Path) -> None:
    """Spark rewrote every cell's comma: text columns too, and 1.234 (a thousands
    separator beside 72,5) was read 1.234. It converts the columns read_table does."""
    rows = [("49,4", "a,b"), ("-0,5", "1,234"), ("72", "1.234,5")]
    path = _write(tmp_path / "d.csv", rows, ";", "utf-8")
    assert _read(spark, path, decimal_comma=True).rows() == [
        ("49.4", "a,b"),
        ("-0.5", "1,234"),
        ("72", "1.234,5"),
    ]
    assert _read(spark, path).rows() == rows
    numbers = _write(tmp_path / "n.csv", [("1.234,5", "2,5"), ("2.000", "7")], ";", "utf-8")
    in_memory = read_table(numbers, decimal_comma=True)
    assert _read(spark, numbers, decimal_comma=True).rows() == in_memory.rows()
    unclear = _write(tmp_path / "u.csv", [("1.234", "2,5"), ("640", "7")], ";", "utf-8")
    with pytest.raises(DataError, match="'sex' holds '1.234'"):
        _read(spark, unclear, decimal_comma=True)


def test_bytes_spark_cannot_decode_are_an_error(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import anonkit.engines.spark_csv as spark_csv

    path = _write(tmp_path / "l.csv", ROWS, ",", "latin-1")
    with pytest.raises(InputEncodingError):  # a local file: its first records, sampled
        read_csv(spark, path)
    with pytest.raises(InputEncodingError, match="line 2 is not valid UTF-8"):
        read_csv(spark, path, separator=",")  # not sampled: the driver counts the records
    monkeypatch.setattr(spark_csv, "_local_bytes", lambda path, charset: False)
    with pytest.raises(InputFormatError, match="'sex'.*not valid utf-8.*U\\+FFFD"):
        read_csv(spark, path, separator=",")  # a cluster path: Spark's U+FFFD are caught
    with pytest.raises(ParameterError):
        read_csv(spark, path, encoding="no-such-codec")


@pytest.mark.parametrize(
    ("name", "sep", "encoding", "read", "error"),
    [
        ("semi.csv", ";", "utf-8", "", None),
        ("latin.csv", ",", "latin-1", 'encoding = "latin-1"', None),
        ("q.csv", ",", "utf-8", 'missing = ["?", ""]', "missing value"),
    ],
    ids=["separator", "encoding", "missing"],
)
def test_a_configuration_s_read_section_holds_on_spark(
    spark: Any, tmp_path: Path, name: str, sep: str, encoding: str, read: str, error: str | None
) -> None:
    rows = [("?", a) for _, a in ROWS[:10]] + ROWS if error else ROWS
    _write(tmp_path / name, rows, sep, encoding)
    for engine in ("polars", "spark"):
        out = tmp_path / f"out_{engine}.csv"
        cfg = tmp_path / f"{engine}.toml"
        cfg.write_text(
            f'input = "{name}"\noutput = "{out.name}"\n[read]\n{read}\n[attributes]\n'
            'quasi_identifiers = ["sex", "age"]\n[hierarchies]\n'
            'age = { type = "intervals", widths = [10, 20] }\n[privacy]\nk = 5\n'
            f'[search]\nengine = "{engine}"\n',
            encoding="utf-8",
        )
        res = CliRunner().invoke(app, ["anonymize", str(cfg), "-q"])
        if error is not None:
            assert res.exit_code == 1 and error in res.stderr, (engine, res.stderr)
            continue
        assert res.exit_code == 0, (engine, res.stderr)
    if error is None:
        memory = pl.read_csv(tmp_path / "out_polars.csv", infer_schema=False)
        on_spark = pl.read_csv(tmp_path / "out_spark.csv" / "*.csv", infer_schema=False)
        assert sorted(on_spark.rows()) == sorted(memory.rows())
        assert "\ufffd" not in "".join(on_spark["sex"].to_list())


def test_an_escaped_csv_release_is_measured_as_released(spark: Any, tmp_path: Path) -> None:
    """``measure_spark`` on the path of a CSV release the Spark engine wrote (``'@home``
    for ``@home``) gives the figures of the release itself."""
    wards = ["@home", "+icu", "=er", "-", "ward A"]
    frame = pl.DataFrame({"ward": [wards[i % 5] for i in range(100)],
                          "age": [str(20 + i % 7) for i in range(100)]})  # fmt: skip
    original = spark.createDataFrame(frame.rows(), "ward string, age string")
    path = tmp_path / "release.csv"
    SparkEngine(spark).write(original, path)  # the engine escapes as it writes
    assert "'@home" in "".join(p.read_text() for p in path.glob("*.csv"))
    asked = Measuring(quasi_identifiers=["ward", "age"], k=2)
    from_path = measure_spark(original, str(path), asked)
    in_memory = measure_spark(original, original, asked)
    assert sorted(from_path.sizes.tolist()) == sorted(in_memory.sizes.tolist())
    assert from_path.loss == pytest.approx(in_memory.loss, nan_ok=True)


@pytest.mark.parametrize(("extra", "fields"), [(",x", 3), ("", 1)], ids=["surplus", "short"])
def test_a_ragged_record_is_an_error_naming_its_line_never_its_values(
    spark: Any, tmp_path: Path, extra: str, fields: int
) -> None:
    """Spark read CSV permissively: a short record padded with nulls, a surplus field
    dropped; and its own error for a malformed record quotes the record."""
    rows = [(s, a) for s, a in ROWS]
    path = _write(tmp_path / "r.csv", rows, ",", "utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[7] = lines[7] + extra if extra else lines[7].split(",")[0]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=f"line 8 has {fields} field") as err:
        read_csv(spark, path)
    assert lines[7] not in str(err.value)


def test_a_ragged_record_on_a_cluster_path_is_an_error_without_its_values(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A path the driver cannot read (hdfs://, s3://) is counted by Spark alone: its
    FAILFAST error quotes the record, which the message must not repeat."""
    import anonkit.engines.spark_csv as spark_csv

    monkeypatch.setattr(spark_csv, "_local_bytes", lambda path, charset: False)
    path = _write(
        tmp_path / "r.csv", [*ROWS[:5], ("secret-value", "31,7"), *ROWS[5:]], ",", "utf-8"
    )
    with pytest.raises(InputFormatError, match="more or fewer fields than the header") as err:
        read_csv(spark, path, separator=",")
    assert "secret-value" not in str(err.value)


@pytest.mark.slow
def test_a_session_anonkit_starts_logs_no_record_of_a_malformed_file(tmp_path: Path) -> None:
    """Spark's executors log a malformed record in full at ERROR level, on the stderr of
    a local session: a session anonkit starts logs fatal errors only (anonkit reports
    the error itself, without the record). Run as a process: the tests' session would be
    the active one here."""
    import os
    import subprocess
    import sys

    path = _write(tmp_path / "r.csv", [*ROWS[:5], ("secret-value", "31,7")], ",", "utf-8")
    script = (
        "import anonkit.engines.spark_csv as sc\n"
        "from anonkit.engines.spark_engine import SparkEngine\n"
        "sc._local_bytes = lambda path, charset: False  # as for an hdfs:// path\n"
        "try:\n"
        f"    sc.read_csv(SparkEngine()._session(), {str(path)!r}, separator=',')\n"
        "except Exception as err:\n"
        "    print(type(err).__name__)\n"
    )
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600, env=env
    )
    assert done.stdout.strip() == "InputFormatError", done.stderr
    assert "secret-value" not in done.stderr


def test_a_local_gzipped_csv_is_read_with_its_own_separator(spark: Any, tmp_path: Path) -> None:
    """Spark reads .csv.gz; the driver's record count and separator sniffing read its
    compressed bytes as text instead (an encoding error, or ',' for a ';' file)."""
    import gzip

    plain = _write(tmp_path / "semi.csv", ROWS, ";", "utf-8")
    packed = tmp_path / "semi.csv.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert _read(spark, packed).equals(_read(spark, plain))


def test_a_latin1_file_s_separator_is_sniffed_too(spark: Any, tmp_path: Path) -> None:
    """It fell back to ',' for any encoding but UTF-8 (the docs say local files are
    sniffed): a ';' Latin-1 file stopped with 'line 2 has 2 fields'."""
    latin = _read(spark, _write(tmp_path / "l.csv", ROWS, ";", "latin-1"), encoding="latin-1")
    assert latin.columns == ["sex", "age"] and sorted(set(latin["sex"])) == ["fée", "mâle"]


@pytest.mark.parametrize(
    ("header", "message"),
    [("sex,age,sex", "more than once"), ("sex,,age", "column 2 has no name")],
)
def test_a_bad_header_is_refused_as_in_memory(
    spark: Any, tmp_path: Path, header: str, message: str
) -> None:
    """Spark renamed duplicates (sex0, sex2) and named an empty column: accepted, or an
    unknown-column error for 'sex'."""
    path = tmp_path / "h.csv"
    path.write_text(header + "\n" + "m,31,x\nf,45,y\n" * 3, encoding="utf-8")
    with pytest.raises(InputFormatError, match=message):
        read_csv(spark, path)


def test_a_file_with_a_header_and_no_records_is_said_so(spark: Any, tmp_path: Path) -> None:
    """On Spark such a file stopped in the intervals builder ('values must be a
    non-empty collection'); the other engines say what the file is."""
    path = tmp_path / "empty.csv"
    path.write_text("age,sex\n", encoding="utf-8")
    with pytest.raises(EmptyDataError, match="has a header but no records"):
        read_csv(spark, path)
