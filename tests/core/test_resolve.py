"""A hierarchy given as a table in memory: a polars or pandas frame, or a list of rows,
in the layout of the hierarchy CSV (one row per value, one column per level, root last),
as a pandas or polars user holds it; the same release as from the file."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import anonkit
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import resolve_hierarchy
from anonkit.exceptions import (
    ConfigError,
    DataError,
    HierarchyError,
    InputEncodingError,
    OutputIsInputError,
    ParameterError,
    ValuesNotInHierarchyError,
)

ROWS = [["34", "30-39", "*"], ["36", "30-39", "*"], ["51", "50-59", "*"], ["55", "50-59", "*"]]
VALUES = pl.Series(["34", "36", "51", "55"])


@pytest.mark.parametrize(
    "table",
    [
        pl.DataFrame(ROWS, schema=["leaf", "decade", "root"], orient="row"),
        pd.DataFrame(ROWS, columns=["leaf", "decade", "root"]),
        ROWS,
        [tuple(r) for r in ROWS],
    ],
    ids=["polars", "pandas", "list", "tuples"],
)
def test_a_table_in_memory_is_a_hierarchy(table: object) -> None:
    h = resolve_hierarchy("age", table, VALUES)  # type: ignore[arg-type]
    assert h == Hierarchy(ROWS, name="age")
    assert h.name == "age" and h.generalize("51", 1) == "50-59"


def test_numbers_in_a_frame_are_read_as_their_text() -> None:
    frame = pd.DataFrame({"age": [34, 36], "band": ["30-39", "30-39"], "root": ["*", "*"]})
    h = resolve_hierarchy("age", frame, pl.Series(["34", "36"]))
    assert h.leaves == ("34", "36")


@pytest.mark.parametrize(
    "table",
    [
        pl.DataFrame({"v": ["a", "b"], "l1": ["ab", None], "root": ["*", "*"]}),
        pd.DataFrame({"v": ["a", "b"], "l1": ["ab", float("nan")], "root": ["*", "*"]}),
    ],
    ids=["polars-null", "pandas-nan"],
)
def test_a_missing_label_is_an_error_not_a_label(table: object) -> None:
    with pytest.raises(HierarchyError, match="row 2 has an empty label"):
        resolve_hierarchy("x", table, pl.Series(["a", "b"]))  # type: ignore[arg-type]


def test_other_objects_are_refused_naming_what_is_taken() -> None:
    with pytest.raises(ParameterError, match="tables of rows") as err:
        resolve_hierarchy("x", 42, pl.Series(["a"]))  # type: ignore[arg-type]
    assert "'int'" in str(err.value)
    with pytest.raises(ParameterError):  # a list of texts is not a list of rows
        resolve_hierarchy("x", ["a", "b"], pl.Series(["a"]))  # type: ignore[arg-type]


def test_anonymize_takes_frames_as_hierarchies(adult: tuple[pl.DataFrame, dict[str, Path]]) -> None:
    data, paths = adult
    qi = ["age", "sex", "race"]
    from_files = anonkit.anonymize(data, quasi_identifiers=qi, hierarchies=paths, k=5,
                                   others="drop")  # fmt: skip
    tables = {
        "age": pl.read_csv(paths["age"], separator=";", has_header=False, infer_schema=False),
        "sex": pd.read_csv(paths["sex"], sep=";", header=None, dtype=str),
        "race": [line.split(";") for line in paths["race"].read_text().splitlines()],
    }
    from_tables = anonkit.anonymize(data, quasi_identifiers=qi, hierarchies=tables, k=5,
                                    others="drop")  # fmt: skip
    assert from_tables.release.equals(from_files.release)
    assert from_tables.transformation == from_files.transformation


def test_a_value_the_table_lacks_is_named() -> None:
    frame = pl.DataFrame({"age": ["34", "99"]})
    with pytest.raises(ValuesNotInHierarchyError, match="99"):
        anonkit.anonymize(frame, quasi_identifiers=["age"], hierarchies={"age": ROWS}, k=1)


def test_a_file_table_reads_with_its_own_encoding_and_separator(tmp_path: Path) -> None:
    path = tmp_path / "sex.csv"
    path.write_bytes("fée,F,*\nmâle,M,*\n".encode("latin-1"))
    spec = {"type": "file", "path": str(path), "encoding": "latin-1", "separator": ","}
    h = resolve_hierarchy("sex", spec, pl.Series(["fée"]))
    assert h.leaves == ("fée", "mâle") and h.name == "sex"
    with pytest.raises(InputEncodingError) as err:  # as a plain path: UTF-8
        resolve_hierarchy("sex", str(path), pl.Series(["fée"]))
    message = str(err.value)
    assert 'Hierarchy.from_csv(path, encoding="latin-1")' in message
    assert '"type": "file"' in message and "[read]" in message
    with pytest.raises(ConfigError, match="path"):
        resolve_hierarchy("sex", {"type": "file"}, pl.Series(["fée"]))


def test_an_output_over_a_file_table_s_hierarchy_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "v.csv"
    path.write_text("a;*\nb;*\n", encoding="utf-8")
    frame = pl.DataFrame({"v": ["a", "b"] * 3})
    spec = {"type": "file", "path": str(path)}
    with pytest.raises(OutputIsInputError):
        anonkit.anonymize(frame, quasi_identifiers=["v"], hierarchies={"v": spec}, k=2,
                          output=path)  # fmt: skip
    assert path.read_text(encoding="utf-8") == "a;*\nb;*\n"


def test_a_builder_s_error_names_the_column() -> None:
    """Among twenty columns, 'The widths parameter of intervals()' alone says not which."""
    frame = pl.DataFrame({"age": ["31", "45", "unknown", "52"] * 5})
    spec = {"type": "intervals", "widths": [10, 15]}
    with pytest.raises(ParameterError, match="multiple") as err:
        anonkit.anonymize(frame, quasi_identifiers=["age"], hierarchies={"age": spec}, k=2)
    assert "for column 'age'" in str(err.value)


@pytest.mark.parametrize(
    ("spec", "expected", "value"),
    [
        ({"type": "intervals", "widths": [10, 20]}, "numbers or numeric strings", "'unknown'"),
        ({"type": "masking"}, r"values of equal length \(2 characters, like '31'\)", "'unknown'"),
        ({"type": "dates", "format": "%Y", "levels": ["year"]}, "dates in the format '%Y'", "'31'"),
    ],
)
@pytest.mark.parametrize("engine", ["polars", "streaming"])
def test_a_value_its_builder_cannot_read_is_a_data_error(
    tmp_path: Path, spec: dict[str, object], expected: str, value: str, engine: str
) -> None:
    """A stray value in the data ('3l' in a column of ages) gave exit code 2 and 'The
    'values' parameter of intervals() ... must be': the data is at fault, not a
    parameter; the error names the column, the value and (in memory) its record."""
    path = tmp_path / "data.csv"
    path.write_text("age\n31\n45\nunknown\n52\n" + "31\n" * 8, encoding="utf-8")
    with pytest.raises(DataError) as err:
        anonkit.anonymize(path, engine=engine, quasi_identifiers=["age"], k=2,
                          hierarchies={"age": spec})  # fmt: skip
    assert not isinstance(err.value, ParameterError) and err.value.exit_code == 1
    kind = spec["type"]
    record = rf" \(record {1 if kind == 'dates' else 3}\)" if engine == "polars" else ""
    assert re.fullmatch(
        rf"Column 'age' has an? {kind} hierarchy, whose values must be {expected}, but "
        rf"holds {value}{record}\..*",
        str(err.value),
    ), str(err.value)


def test_a_value_only_the_population_holds_is_named_as_the_population_s(tmp_path: Path) -> None:
    """The hierarchy built over the sample and the population: a stray value of the
    population is not numbered as a record of the data."""
    from anonkit.models import KMap

    sample = pl.DataFrame({"age": ["31", "45"] * 4})
    population = pl.DataFrame({"age": ["31", "45"] * 4 + ["3l"]})
    with pytest.raises(DataError, match=r"holds '3l' \(in the population table\)\.") as err:
        anonkit.anonymize(sample, quasi_identifiers=["age"], privacy=[KMap(2)],
                          population=population,
                          hierarchies={"age": {"type": "intervals", "widths": [10]}})  # fmt: skip
    assert err.value.exit_code == 1


def test_resolve_hierarchy_numbers_the_record_of_a_value_its_builder_cannot_read() -> None:
    spec = {"type": "intervals", "widths": [10]}
    values = pl.Series("age", [31.5, 40.0, float(7), 2.25])
    assert resolve_hierarchy("age", spec, values, records=4).height == 3  # floats read
    with pytest.raises(DataError, match=r"holds ' x ' \(record 3\)\.$"):
        resolve_hierarchy("age", spec, pl.Series("age", [" 31", "40", " x ", "x"]), records=4)
    with pytest.raises(DataError, match=r"holds 'x'\.$"):  # distinct values: no record
        resolve_hierarchy("age", spec, pl.Series("age", ["31", "x"]))


def _births(n: int = 60) -> pl.Series:
    days = pl.Series("birth", [(i * 97) % 9000 for i in range(n)], dtype=pl.Int32)
    return days.cast(pl.Date)


@pytest.mark.parametrize(
    "dtype",
    [pl.Date(), pl.Datetime("us"), pl.Datetime("ns"), pl.Datetime("ms", "UTC")],
    ids=str,
)
def test_a_dates_builder_codes_a_temporal_column(dtype: pl.DataType) -> None:
    """A Datetime column failed against its own dates() builder: the builder labelled a
    value '1995-11-29 00:00:00' (Python's text of it), the coding looked up
    '1995-11-29 00:00:00.000000' (polars' cast), so every value was outside the
    hierarchy (pandas' datetime64 columns arrive as such)."""
    n = 60
    frame = pl.DataFrame({"sex": ["F", "M"] * (n // 2), "birth": _births(n).cast(dtype)})
    res = anonkit.anonymize(
        frame,
        quasi_identifiers=["sex", "birth"],
        hierarchies={"birth": {"type": "dates", "levels": ["month", "year"]}},
        k=2,
        algorithm="exhaustive",
    )
    assert res.verified and res.suppressed == 0


def test_a_pandas_datetime_column_with_times_keeps_its_times_apart() -> None:
    stamps = pd.to_datetime(
        ["2024-03-05 08:00:00", "2024-03-05 09:30:00.25", "2024-03-06 00:00:00"] * 4,
        format="ISO8601",
    )
    frame = pd.DataFrame({"sex": ["F", "M", "F"] * 4, "seen": stamps})
    res = anonkit.anonymize(
        frame,
        quasi_identifiers=["sex", "seen"],
        hierarchies={"seen": {"type": "dates", "levels": ["month"]}},
        k=2,
        algorithm="exhaustive",
    )
    assert res.verified and res.transformation == {"sex": 0, "seen": 0}
    assert sorted(set(res.release["seen"])) == [
        "2024-03-05 08:00:00",
        "2024-03-05 09:30:00.250000",
        "2024-03-06 00:00:00",
    ]


@pytest.mark.parametrize("engine", ["polars", "streaming"])
def test_a_timestamp_file_streams_with_a_dates_builder(tmp_path: Path, engine: str) -> None:
    n = 60
    hours = pl.Series([i * 3_600_000_000 for i in range(n)]).cast(pl.Duration("us"))
    stamps = _births(n).cast(pl.Datetime("us")) + hours
    source = tmp_path / "seen.parquet"
    pl.DataFrame({"sex": ["F", "M"] * (n // 2), "seen": stamps}).write_parquet(source)
    res = anonkit.anonymize(
        str(source),
        engine=engine,
        output=str(tmp_path / f"release_{engine}.parquet"),
        quasi_identifiers=["sex", "seen"],
        hierarchies={"seen": {"type": "dates", "levels": ["month", "year"]}},
        k=2,
    )
    assert res.verified and res.suppressed == 0


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        ({"type": "file", "path": 5}, "path"),
        ({"type": "file", "path": ["sex.csv"]}, "path"),
        ({"type": "file", "path": ""}, "path"),
        ({"type": "file", "path": "sex.csv", "separator": ";;"}, "separator"),
        ({"type": "file", "path": "sex.csv", "separator": 9}, "separator"),
        ({"type": "file", "path": "sex.csv", "separator": '"'}, "separator"),
        ({"type": "file", "path": "sex.csv", "encoding": 8}, "encoding"),
        ({"type": "file", "path": "sex.csv", "encoding": "utf-9"}, "encoding"),
    ],
)
def test_a_file_table_with_a_bad_value_names_its_key(
    tmp_path: Path, spec: dict[str, object], key: str
) -> None:
    """path = 5, a list, or separator = ";;" stopped with a raw TypeError of Python."""
    (tmp_path / "sex.csv").write_text("M;*\nF;*\n", encoding="utf-8")
    if spec["path"] == "sex.csv":
        spec = {**spec, "path": tmp_path / "sex.csv"}
    with pytest.raises(
        ConfigError, match=f"The '{key}' key of the 'file' hierarchy table for column 'sex'"
    ):
        resolve_hierarchy("sex", spec, pl.Series(["M"]))  # type: ignore[arg-type]


@pytest.mark.parametrize("separator", ["\t", "\\t"])
def test_a_file_table_takes_a_tab_written_as_in_read(tmp_path: Path, separator: str) -> None:
    """'\\t' in a TOML literal string is a backslash and a t: [read] separator takes it
    for a tab, a file table crashed on it."""
    (tmp_path / "sex.csv").write_text("M\tx;y\t*\nF\tx;y\t*\n", encoding="utf-8")
    spec = {"type": "file", "path": str(tmp_path / "sex.csv"), "separator": separator}
    assert resolve_hierarchy("sex", spec, pl.Series(["M"])).rows[0] == ("M", "x;y", "*")


@pytest.mark.parametrize("cell", [{"a": 1}, ["x"], ("x",)], ids=["table", "list", "tuple"])
def test_a_row_with_a_cell_that_is_no_label_is_refused(cell: object) -> None:
    """[["M", {a=1}, "*"]] was published with the label "{'a': 1}"."""
    rows = [["M", "mf", "*"], ["F", cell, "*"]]
    with pytest.raises(
        HierarchyError, match=r"'sex': row 2 holds a table|'sex': row 2 holds a list"
    ):
        resolve_hierarchy("sex", rows, pl.Series(["M", "F"]))  # type: ignore[arg-type]
