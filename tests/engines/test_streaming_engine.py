"""The streaming engine's keyed count and Enum release give what the in-memory engine
gives: the same snapshot, the same errors, the same rows."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

from anonkit.core.hierarchy import Hierarchy
from anonkit.engines.base import SensitiveSpec
from anonkit.engines.polars_engine import PolarsEngine
from anonkit.engines.streaming_engine import StreamingEngine
from anonkit.exceptions import MissingValuesError, ValuesNotInHierarchyError

AGE = Hierarchy(
    [["1", "1-2", "*"], ["2", "1-2", "*"], ["3", "3-4", "*"], ["4", "3-4", "*"]], name="age"
)
SEX = Hierarchy([["m", "*"], ["f", "*"]], name="sex")


def _write(tmp_path: Path, frame: pl.DataFrame) -> Path:
    path = tmp_path / "table.parquet"
    frame.write_parquet(path)
    return path


def _frame(n: int = 500, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "age": rng.integers(1, 5, n).astype(str),
            "sex": rng.choice(["m", "f", " m"], n),  # " m" normalizes to "m"
            "disease": rng.choice(["flu", "cold", "ulcer"], n),
        }
    )


def _rows(table: object) -> Counter[tuple[int, ...]]:
    snap = table.snapshot  # type: ignore[attr-defined]
    return Counter(zip(*[c.tolist() for c in snap.codes], snap.counts.tolist(), strict=True))


def test_keyed_count_equals_the_in_memory_count(tmp_path: Path) -> None:
    path = _write(tmp_path, _frame())
    a = PolarsEngine().count_detail(
        _frame(), ["age", "sex"], [AGE, SEX], [SensitiveSpec("disease")]
    )
    b = StreamingEngine().count_detail(path, ["age", "sex"], [AGE, SEX], [SensitiveSpec("disease")])
    assert _rows(a) == _rows(b)
    assert a.n_records == b.n_records == 500
    assert [(s.name, s.labels, s.totals.tolist()) for s in a.sensitive] == [
        (s.name, s.labels, s.totals.tolist()) for s in b.sensitive
    ]


def test_keys_too_wide_for_64_bits_group_by_the_codes(tmp_path: Path) -> None:
    """Twenty columns of 9,998 leaves (10,000 codes each) make a key of 10^80: the count
    groups by the codes instead, with the same result."""
    rng = np.random.default_rng(0)
    wide = Hierarchy([[str(v), "*"] for v in range(9_998)], name="x")
    names = [f"x{i}" for i in range(20)]
    frame = pl.DataFrame({c: rng.integers(0, 9_998, 50).astype(str) for c in names})
    hierarchies = [wide.with_name(c) for c in names]
    a = PolarsEngine().count(frame, names, hierarchies)
    b = StreamingEngine().count(frame.lazy(), names, hierarchies)
    assert _rows(a) == _rows(b)


@pytest.mark.parametrize(
    ("value", "error"), [(None, MissingValuesError), ("9", ValuesNotInHierarchyError)]
)
def test_keyed_counts_refuse_bad_values_like_the_in_memory_engine(
    tmp_path: Path, value: str | None, error: type[Exception]
) -> None:
    frame = _frame().with_columns(
        pl.when(pl.int_range(pl.len()) == 7).then(pl.lit(value)).otherwise("age").alias("age")
    )
    path = _write(tmp_path, frame)
    messages = []
    for engine, source in ((PolarsEngine(), frame), (StreamingEngine(), path)):
        with pytest.raises(error) as caught:
            engine.count(source, ["age", "sex"], [AGE, SEX])
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("suppressed", ["mask", "drop"])
@pytest.mark.parametrize("levels", [(0, 0), (1, 0), (2, 1)])
def test_streamed_release_equals_the_in_memory_query(
    suppressed: str, levels: tuple[int, int]
) -> None:
    """The Enum-keyed release query gives the same rows as the join-based one."""
    from anonkit.core.transform import ReleasePlan
    from anonkit.engines.polars_engine import release_query
    from anonkit.engines.streaming_engine import streaming_release_query

    frame = _frame(300, seed=3)
    rng = np.random.default_rng(1)
    n_age, n_sex = len(AGE.labels(levels[0])), len(SEX.labels(levels[1]))
    picks = rng.choice(n_age * n_sex, size=min(3, n_age * n_sex), replace=False)
    classes = np.array([picks % n_age, picks // n_age], dtype=np.int64)
    plan = ReleasePlan(
        ("age", "sex"), (AGE, SEX), levels, classes, drop=("disease",), suppressed=suppressed
    )
    expected = release_query(frame.lazy(), plan).collect()
    got = streaming_release_query(frame.lazy(), plan).collect(engine="streaming")
    assert got.equals(expected)
    assert got.columns == ["age", "sex"]


def _changed(frame: pl.DataFrame, value: str | None) -> pl.DataFrame:
    """``frame`` with record 7's age replaced by ``value``."""
    return frame.with_columns(
        pl.when(pl.int_range(pl.len()) == 7).then(pl.lit(value)).otherwise("age").alias("age")
    )


@pytest.mark.parametrize("value", ["9", None, " 1"])
@pytest.mark.parametrize(("levels", "suppressed"), [((0, 0), 0), ((1, 0), 0), ((2, 1), 2)])
def test_a_value_the_count_did_not_see_stops_the_release(
    tmp_path: Path, value: str | None, levels: tuple[int, int], suppressed: int
) -> None:
    """The file changes between the counting pass and the release pass: a value that is
    not a leaf (or missing) is an error naming its column, and nothing is written (the
    release once gave such a value a null label)."""
    from anonkit.core.transform import ReleasePlan
    from anonkit.exceptions import InputChangedError

    frame = _frame()
    path = _write(tmp_path, frame)
    engine = StreamingEngine()
    engine.count(path, ["age", "sex"], [AGE, SEX])
    classes = np.zeros((2, suppressed), dtype=np.int64)
    plan = ReleasePlan(("age", "sex"), (AGE, SEX), levels, classes)
    _changed(frame, value).write_parquet(path)
    out = tmp_path / "release.parquet"
    with pytest.raises(InputChangedError) as caught:
        engine.write(engine.apply(path, plan), out)
    assert caught.value.column == "age"
    assert "'age'" in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]
    with pytest.raises(InputChangedError):  # the verification's tally of the query too
        engine.tally(engine.apply(path, plan), ["age", "sex"])


def test_blanks_around_values_are_stripped_only_where_the_count_found_them(
    tmp_path: Path,
) -> None:
    """The count reads values as they are and strips blanks only in the columns where
    some value is not a leaf as it is (``sex`` here: " m"); the release does the same,
    and both equal the in-memory engine's."""
    from anonkit.core.transform import ReleasePlan

    frame = _frame()
    path = _write(tmp_path, frame)
    engine = StreamingEngine()
    a = PolarsEngine().count(frame, ["age", "sex"], [AGE, SEX])
    b = engine.count(path, ["age", "sex"], [AGE, SEX])
    assert _rows(a) == _rows(b)
    plan = ReleasePlan(("age", "sex"), (AGE, SEX), (1, 0), np.array([[0], [1]], dtype=np.int64))
    expected = PolarsEngine().apply(frame, plan)
    assert engine.apply(path, plan).collect(engine="streaming").equals(expected)


def test_tallying_through_the_labels_equals_grouping_the_text(tmp_path: Path) -> None:
    """The release's tally by label codes gives the text group-by's rows; a value outside
    the labels falls back to grouping the text as it is."""
    frame = pl.DataFrame(
        {
            "age": ["1-2", "3-4", "1-2", "*", "3-4", "1-2"],
            "sex": ["m", "f", "m", "*", "f", "f"],
            "disease": ["flu", "flu", "cold", "flu", "ulcer", "flu"],
        }
    )
    path = _write(tmp_path, frame)
    engine = StreamingEngine()
    columns = ["age", "sex", "disease"]
    expected = engine.tally(path, columns).sort(columns)
    labels = {"age": ["1-2", "3-4", "*"], "sex": ["m", "f", "*"]}
    assert engine.tally_labels(path, columns, labels).sort(columns).equals(expected)
    fewer = {"age": ["1-2", "3-4"], "sex": ["m", "f", "*"]}  # '*' is not an age label
    assert engine.tally_labels(path, columns, fewer).sort(columns).equals(expected)


@pytest.mark.parametrize(
    "values", [["b", " a", None, "a", "b ", "c"], [3.0, None, 1.5, 3.0, float("nan"), 2.0]]
)
def test_distinct_values_equal_the_in_memory_engines(tmp_path: Path, values: list[Any]) -> None:
    path = _write(tmp_path, pl.DataFrame({"x": values}))
    assert StreamingEngine().distinct(path, "x") == PolarsEngine().distinct(path, "x")


def _semicolon_file(tmp_path: Path, extra: str = "") -> Path:
    rows = [f"{30 + i % 5};{'FM'[i % 2]}" for i in range(40)]
    if extra:
        rows[25] += extra
    path = tmp_path / "people.csv"
    path.write_text("age;sex\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_a_csv_path_streams_as_read_table_reads_it(tmp_path: Path) -> None:
    """anonymize(path, engine="streaming") scanned a CSV with polars' defaults: ','
    whatever the file held, and records with a surplus field passed."""
    import anonkit
    from anonkit.exceptions import InputFormatError

    spec = {"age": {"type": "intervals", "widths": [10]}, "sex": {"type": "suppression"}}
    kwargs: dict[str, Any] = {"quasi_identifiers": ["age"], "hierarchies": spec, "k": 2}
    res = anonkit.anonymize(
        _semicolon_file(tmp_path), engine="streaming", output=tmp_path / "r.parquet",
        others="drop", **kwargs,
    )  # fmt: skip
    assert res.verified and res.n_records == 40
    with pytest.raises(InputFormatError, match="line 27 has 3 fields, the header has 2"):
        anonkit.anonymize(
            _semicolon_file(tmp_path, extra=";x"), engine="streaming",
            output=tmp_path / "r2.parquet", others="drop", **kwargs,
        )  # fmt: skip
    assert not (tmp_path / "r2.parquet").exists()
    with pytest.raises(InputFormatError, match="line 27 has 3 fields"):  # Mondrian streams too
        anonkit.anonymize(
            _semicolon_file(tmp_path, extra=";x"), engine="streaming", algorithm="mondrian",
            output=tmp_path / "r3.parquet", others="drop", **kwargs,
        )  # fmt: skip


@pytest.mark.parametrize("engine", ["streaming", "polars"])
@pytest.mark.parametrize("algorithm", ["flash", "mondrian"])
@pytest.mark.parametrize("name", ["r.tsv", "r.csv", "r.parquet"])
def test_every_output_format_streams_and_is_verified(
    tmp_path: Path, name: str, algorithm: str, engine: str
) -> None:
    """A streamed release written as .tsv was read back with ',' to verify it: the run
    stopped on a polars ColumnNotFoundError and wrote nothing."""
    import anonkit

    spec = {"age": {"type": "intervals", "widths": [10]}, "sex": {"type": "suppression"}}
    res = anonkit.anonymize(
        _semicolon_file(tmp_path), engine=engine, algorithm=algorithm,
        output=tmp_path / name, quasi_identifiers=["age", "sex"], hierarchies=spec, k=2,
    )  # fmt: skip
    assert res.verified and res.n_records == 40
    written = anonkit.read_table(tmp_path / name)
    assert written.columns == ["age", "sex"] and written.height == 40


@pytest.mark.parametrize("spec", [None, {"type": "masking"}])
def test_blank_values_are_counted_by_record_when_a_hierarchy_is_built(
    tmp_path: Path, spec: Any
) -> None:
    """A hierarchy built from the values reads the column's distinct values through the
    engine: the error counted the distinct blank spellings (1) where the file holds 3
    blank records, as the run in memory says."""
    from anonkit.core.resolve import resolve_hierarchy
    from anonkit.engines.base import resolve_hierarchies

    values = ["m", " ", "f", "", " ", "m"]
    path = tmp_path / "t.csv"
    pl.DataFrame({"sex": values, "n": list(range(6))}).write_csv(path)
    with pytest.raises(MissingValuesError) as in_memory:
        resolve_hierarchy("sex", spec, pl.Series("sex", values))
    with pytest.raises(MissingValuesError) as streamed:
        resolve_hierarchies(StreamingEngine(), pl.scan_csv(path), ["sex"], {"sex": spec})
    assert in_memory.value.count == streamed.value.count == 3  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "column",
    [pl.Series("nul", [None] * 8, dtype=pl.Null), pl.Series("nul", [float("nan")] * 8)],
    ids=["null", "nan"],
)
@pytest.mark.parametrize("spec", [None, {"type": "intervals", "widths": [10]}])
@pytest.mark.parametrize("algorithm", ["flash", "mondrian"])
def test_a_column_without_a_value_is_named_as_missing_when_streamed(
    tmp_path: Path, column: pl.Series, spec: Any, algorithm: str
) -> None:
    """Streamed, a quasi-identifier holding no value at all (a Null-typed Parquet
    column, or NaN only) stopped in the builder ("The 'values' parameter of
    suppression() must be a non-empty collection of values. Got [] instead.", exit 2);
    in memory it is a MissingValuesError naming the column."""
    import anonkit

    path = _write(tmp_path, pl.DataFrame({"sex": ["m", "f"] * 4, "nul": column}))
    hierarchies = {"sex": [["m", "*"], ["f", "*"]], "nul": spec}
    errors = []
    for engine in ("polars", "streaming"):
        with pytest.raises(MissingValuesError) as err:
            anonkit.anonymize(path, engine=engine, algorithm=algorithm, k=2,
                              quasi_identifiers=["sex", "nul"], output=tmp_path / "o.csv",
                              hierarchies=hierarchies)  # fmt: skip
        errors.append(err.value)
    assert str(errors[0]) == str(errors[1])
    assert errors[1].column == "nul" and errors[1].count == 8 and errors[1].exit_code == 1
    assert not (tmp_path / "o.csv").exists()


def test_a_streamed_table_without_records_is_said_so(tmp_path: Path) -> None:
    """It stopped in the builder too ('a non-empty collection of values')."""
    from anonkit.engines.base import resolve_hierarchies
    from anonkit.exceptions import EmptyDataError

    path = _write(tmp_path, pl.DataFrame({"sex": pl.Series([], dtype=pl.String)}))
    with pytest.raises(EmptyDataError):
        resolve_hierarchies(StreamingEngine(), pl.scan_parquet(path), ["sex"], {"sex": None})
