"""The engine boundary: every engine counts, checks and releases the same way."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.core.encoding import EncodedTable
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.snapshot import FrequencySnapshot
from anonkit.core.transform import ReleasePlan
from anonkit.core.values import as_text
from anonkit.engines.base import ENGINE_CHOICES, SensitiveSpec, available_engines, get_engine
from anonkit.engines.polars_engine import PolarsEngine
from anonkit.exceptions import (
    EmptyDataError,
    MissingValuesError,
    UnknownNameError,
    ValuesNotInHierarchyError,
)

AGE = Hierarchy(
    [["1", "1-2", "*"], ["2", "1-2", "*"], ["3", "3-4", "*"], ["4", "3-4", "*"]], name="age"
)
SEX = Hierarchy([["m", "*"], ["f", "*"]], name="sex")
DISEASE = Hierarchy(
    [["flu", "resp", "*"], ["cold", "resp", "*"], ["ulcer", "gut", "*"]], name="disease"
)
IN_MEMORY = ("polars", "streaming", "numpy")


def _rows(snap: FrequencySnapshot) -> Counter[tuple[int, ...]]:
    """A snapshot as a multiset of (codes..., count[, population]) rows (order-free)."""
    cols = [*snap.codes, snap.counts]
    if snap.population is not None:
        cols.append(snap.population)
    return Counter(tuple(int(x) for x in row) for row in zip(*cols, strict=True))


def _table_facts(table: EncodedTable) -> tuple[Any, ...]:
    detail = None if table.detail is None else _rows(table.detail)
    sens = [(s.name, s.labels, s.totals.tolist()) for s in table.sensitive]
    return _rows(table.snapshot), detail, sens, table.population_size


def _frame(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "age": rng.integers(1, 5, n),
            "sex": rng.choice(["m", "f", " m"], n),
            "disease": rng.choice(["flu", "cold", "ulcer"], n),
            "income": rng.choice([10.0, 2.5, 3.0], n),
            "name": [f"p{i}" for i in range(n)],
        }
    )


def test_registry_lists_every_engine() -> None:
    assert set(available_engines()) >= {"polars", "streaming", "numpy", "spark"}
    with pytest.raises(UnknownNameError, match="engine"):
        get_engine("duckdb")


def test_unknown_engine_lists_the_engines_offered() -> None:
    # 'auto' is offered (the docs, --help) though no engine is registered under it;
    # 'numpy' is registered, a test path, and not offered.
    with pytest.raises(UnknownNameError) as info:
        get_engine("duckdb")
    error = info.value
    assert (error.kind, error.name, error.available) == ("engine", "duckdb", list(ENGINE_CHOICES))
    assert str(error) == "Unknown engine 'duckdb'; choose one of: auto, polars, spark, streaming."


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40), seed=st.integers(0, 10_000))
def test_engines_count_the_same(n: int, seed: int) -> None:
    frame = _frame(n, seed)
    facts = {
        name: _table_facts(get_engine(name).count(frame, ["age", "sex"], [AGE, SEX]))
        for name in IN_MEMORY
    }
    assert facts["polars"] == facts["streaming"] == facts["numpy"]
    table = get_engine("polars").count(frame, ["age", "sex"], [AGE, SEX])
    assert table.n_records == n
    assert table.detail is None


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40), seed=st.integers(0, 10_000))
def test_engines_count_details_the_same(n: int, seed: int) -> None:
    frame = _frame(n, seed)
    population = _frame(n + 7, seed + 1)
    sensitive = [SensitiveSpec("disease", DISEASE), SensitiveSpec("income")]
    facts = {
        name: _table_facts(
            get_engine(name).count_detail(
                frame, ["age", "sex"], [AGE, SEX], sensitive, population=population
            )
        )
        for name in IN_MEMORY
    }
    assert facts["polars"] == facts["streaming"] == facts["numpy"]


def test_count_detail_labels_and_totals() -> None:
    frame = pl.DataFrame(
        {
            "age": [1, 2, 2, 3],
            "sex": ["m", "f", "f", "m"],
            "disease": ["ulcer", "flu", "flu", "ulcer"],
        }
    )
    frame = frame.with_columns(pl.Series("income", [10.0, 2.5, 9.0, 10.0]))
    table = get_engine("polars").count_detail(
        frame,
        ["age", "sex"],
        [AGE, SEX],
        [SensitiveSpec("disease", DISEASE), SensitiveSpec("income")],
    )
    disease, income = table.sensitive
    # the hierarchy's leaves that occur, in its order; numbers in numeric order
    assert disease.labels == ("flu", "ulcer") and disease.totals.tolist() == [2, 2]
    assert income.labels == ("2.5", "9", "10") and income.totals.tolist() == [1, 1, 2]
    assert table.detail is not None and int(table.detail.counts.sum()) == 4


def test_population_counts_enter_the_detail() -> None:
    sample = pl.DataFrame({"age": [1, 3], "sex": ["m", "f"]})
    population = pl.DataFrame({"age": [1, 1, 3, 4, 4], "sex": ["m", "m", "f", "f", "f"]})
    table = get_engine("polars").count_detail(
        sample, ["age", "sex"], [AGE, SEX], population=population
    )
    assert table.population_size == 5
    assert table.detail is not None and table.detail.population is not None
    assert _rows(table.detail) == Counter({(0, 0, 1, 2): 1, (2, 1, 1, 1): 1, (3, 1, 0, 2): 1})
    assert _rows(table.snapshot) == Counter({(0, 0, 1): 1, (2, 1, 1): 1})


@pytest.mark.parametrize("name", IN_MEMORY)
def test_errors_name_the_column_and_values(name: str) -> None:
    engine = get_engine(name)
    with pytest.raises(EmptyDataError):
        engine.count(
            pl.DataFrame({"age": [], "sex": []}, schema=dict.fromkeys(["age", "sex"], pl.String)),
            ["age", "sex"],
            [AGE, SEX],
        )
    with pytest.raises(MissingValuesError, match="2") as missing:
        engine.count(
            pl.DataFrame({"age": [1, None, None], "sex": ["m", "f", "m"]}),
            ["age", "sex"],
            [AGE, SEX],
        )
    assert missing.value.column == "age"  # type: ignore[attr-defined]
    with pytest.raises(ValuesNotInHierarchyError) as unknown:
        engine.count(
            pl.DataFrame({"age": [1, 7, 9, 7], "sex": ["m", "f", "m", "m"]}),
            ["age", "sex"],
            [AGE, SEX],
        )
    assert "7" in str(unknown.value) and "9" in str(unknown.value)
    with pytest.raises(MissingValuesError):
        engine.count(
            pl.DataFrame({"age": [1.0, float("nan")], "sex": ["m", "f"]}),
            ["age", "sex"],
            [AGE, SEX],
        )
    with pytest.raises(ValuesNotInHierarchyError):
        engine.count_detail(
            pl.DataFrame({"age": [1], "sex": ["m"], "disease": ["gout"]}),
            ["age", "sex"],
            [AGE, SEX],
            [SensitiveSpec("disease", DISEASE)],
        )
    with pytest.raises(MissingValuesError) as missing_sensitive:
        engine.count_detail(
            pl.DataFrame({"age": [1, 2], "sex": ["m", "f"], "disease": ["flu", None]}),
            ["age", "sex"],
            [AGE, SEX],
            [SensitiveSpec("disease", DISEASE)],
        )
    assert missing_sensitive.value.column == "disease"  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", IN_MEMORY)
def test_text_columns_take_the_same_codes_and_errors(name: str) -> None:
    """Text columns whose values are all leaves are coded in one query (an Enum cast);
    padded, missing or unknown values take the general path, with the same codes and
    the same errors (issue 19)."""
    engine = get_engine(name)
    clean = pl.DataFrame({"age": ["1", "2", "4", "2"], "sex": ["m", "f", "m", "m"]})
    padded = pl.DataFrame({"age": ["1", " 2", "4 ", "2"], "sex": ["m", "f", " m", "m"]})
    facts = [_table_facts(engine.count(f, ["age", "sex"], [AGE, SEX])) for f in (clean, padded)]
    assert facts[0] == facts[1]
    with pytest.raises(ValuesNotInHierarchyError) as unknown:
        engine.count(
            pl.DataFrame({"age": ["1", "7", "x"], "sex": ["m", "f", "m"]}),
            ["age", "sex"],
            [AGE, SEX],
        )
    assert "7" in str(unknown.value) and "x" in str(unknown.value)
    with pytest.raises(MissingValuesError) as missing:
        engine.count(
            pl.DataFrame({"age": ["1", "2"], "sex": ["m", None]}), ["age", "sex"], [AGE, SEX]
        )
    assert missing.value.column == "sex"  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", IN_MEMORY)
def test_distinct_values_are_normalized(name: str) -> None:
    frame = pl.DataFrame({"x": [" a", "b", None, "a "], "y": [2.0, 2.5, None, 2.0]})
    engine = get_engine(name)
    assert sorted(engine.distinct(frame, "x")) == ["a", "b"]
    assert sorted(engine.distinct(frame, "y")) == ["2", "2.5"]


def _plan(levels: tuple[int, int], bad: list[tuple[int, int]], **options: Any) -> ReleasePlan:
    codes = np.array(bad, dtype=np.int64).T.reshape(2, len(bad))
    return ReleasePlan(("age", "sex"), (AGE, SEX), levels, codes, **options)


@pytest.mark.parametrize("name", IN_MEMORY)
@pytest.mark.parametrize("suppressed", ["mask", "drop"])
def test_apply_writes_labels_and_suppresses_classes(name: str, suppressed: str) -> None:
    frame = pl.DataFrame(
        {
            "id": ["a", "b", "c", "d"],
            "age": [1, 2, 3, 4],
            "sex": ["m", "m", "f", "m"],
            "x": [1, 2, 3, 4],
        }
    )
    plan = _plan((1, 0), [(1, 0)], drop=("id",), suppressed=suppressed)  # class (3-4, m)
    out = get_engine(name).apply(frame, plan)
    if isinstance(out, pl.LazyFrame):
        out = out.collect()
    assert out.columns == ["age", "sex", "x"]
    rows = out.rows()
    if suppressed == "mask":
        assert rows == [("1-2", "m", 1), ("1-2", "m", 2), ("3-4", "f", 3), ("*", "*", 4)]
    else:
        assert rows == [("1-2", "m", 1), ("1-2", "m", 2), ("3-4", "f", 3)]
    unsuppressed = get_engine(name).apply(frame, _plan((2, 1), []))
    if isinstance(unsuppressed, pl.LazyFrame):
        unsuppressed = unsuppressed.collect()
    assert unsuppressed["age"].to_list() == ["*"] * 4


def test_streaming_engine_reads_files_and_returns_a_query(tmp_path: Any) -> None:
    frame = _frame(30, 3)
    path = tmp_path / "data.parquet"
    frame.write_parquet(path)
    engine = get_engine("streaming")
    assert not engine.in_memory
    from_file = _table_facts(engine.count(path, ["age", "sex"], [AGE, SEX]))
    assert from_file == _table_facts(get_engine("polars").count(frame, ["age", "sex"], [AGE, SEX]))
    query = engine.apply(path, _plan((1, 1), []))
    assert isinstance(query, pl.LazyFrame)
    assert query.collect()["age"].to_list() == [
        "1-2" if a <= 2 else "3-4" for a in frame["age"].to_list()
    ]


@pytest.mark.parametrize("name", IN_MEMORY)
def test_sample_spreads_over_the_whole_table(name: str) -> None:
    frame = pl.DataFrame({"i": list(range(1000))})
    engine = get_engine(name)
    source = frame.lazy() if name == "streaming" else frame
    assert engine.sample(source, 200)["i"].to_list() == list(range(0, 1000, 5))
    assert engine.sample(source, 2000)["i"].to_list() == list(range(1000))
    assert engine.sample(source, 3)["i"].to_list() == [0, 334, 668]


def test_auto_reckons_a_parquet_table_by_its_rows_not_its_compressed_size(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dictionary-encoded Parquet file of a few KiB holds a table many times larger, and
    a run in memory peaks at several times its table: auto read such files into memory
    on a file-size guess (x4) and could exhaust the machine."""
    from anonkit.engines import base

    rows = 300_000
    frame = pl.DataFrame({c: ["some text value"] * rows for c in ("a", "b", "c")})
    path = tmp_path / "t.parquet"
    frame.write_parquet(path)
    assert path.stat().st_size < 64 * 1024
    monkeypatch.setattr(base, "memory_bytes", lambda: 200 * 2**20)  # budget: 50 MiB
    name, reason = base.choose_engine(path, 0.25)
    assert name == "streaming" and "GiB" in reason
    small = tmp_path / "s.parquet"
    frame.head(1000).write_parquet(small)
    assert base.choose_engine(small, 0.25)[0] == "polars"


def test_auto_reckons_long_parquet_text_by_its_size_in_memory(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every text cell counted 16 bytes: a column of 800-character notes was reckoned
    at a fiftieth of its size, and the file read into memory over the budget."""
    from anonkit.engines import base

    rows = 20_000
    frame = pl.DataFrame({"age": list(range(rows)), "notes": [f"{i:0800d}" for i in range(rows)]})
    path = tmp_path / "notes.parquet"
    frame.write_parquet(path)
    table = frame.estimated_size()
    # a budget of twice the table: a run in memory peaks above it
    monkeypatch.setattr(base, "memory_bytes", lambda: int(2 * table / 0.25))
    assert base.choose_engine(path, 0.25)[0] == "streaming"


def test_auto_names_a_missing_input_file(tmp_path: Any) -> None:
    from anonkit.engines.base import choose_engine
    from anonkit.exceptions import InputFileError

    with pytest.raises(InputFileError, match="no such file"):
        choose_engine(tmp_path / "absent.csv")


@pytest.mark.parametrize("rows", [0, 1 << 62])
def test_packed_count_in_polars_and_numpy_agree(rows: int, monkeypatch: Any) -> None:
    """Large tables pack and group their codes in one polars query, small ones in numpy:
    both count like the numpy engine (issue 19)."""
    from anonkit.engines import polars_engine

    monkeypatch.setattr(polars_engine, "_POLARS_ROWS", rows)
    frame = _frame(200, 3)
    sensitive = [SensitiveSpec("disease", DISEASE), SensitiveSpec("income")]
    for name in ("polars", "numpy"):
        engine = get_engine(name)
        facts = (
            _table_facts(engine.count(frame, ["age", "sex"], [AGE, SEX])),
            _table_facts(engine.count_detail(frame, ["age", "sex"], [AGE, SEX], sensitive)),
        )
        if name == "polars":
            expected = facts
    assert facts == expected


def _sorted_rows(snapshot: Any) -> npt.NDArray[np.int64]:
    """A snapshot's codes with its counts below them, columns in lexicographic order."""
    block = np.vstack([snapshot.codes, snapshot.counts])
    return block[:, np.lexsort(block[::-1])]


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 40),
    seed=st.integers(0, 10_000),
    in_polars=st.booleans(),
    padded=st.booleans(),
)
def test_frame_detail_equals_the_general_count(
    n: int, seed: int, in_polars: bool, padded: bool
) -> None:
    """The polars engine counts a frame's detail straight from its packed keys (a
    sensitive column with a hierarchy coded by its leaves, padded values too); the table
    is the one the grouped count of texts gives, array for array (issue 19)."""
    from anonkit.engines import polars_engine

    frame = _frame(n, seed)
    if padded:
        frame = frame.with_columns(pl.col("disease").replace("flu", " flu"))
    sensitive = [SensitiveSpec("disease", DISEASE), SensitiveSpec("income")]
    rows = 0 if in_polars else polars_engine._POLARS_ROWS
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(polars_engine, "_POLARS_ROWS", rows)
        fast = get_engine("polars").count_detail(frame, ["age", "sex"], [AGE, SEX], sensitive)
        engine = get_engine("polars")
        patch.setattr(engine, "_direct_detail", lambda *args: None)  # the general path
        general = engine.count_detail(frame, ["age", "sex"], [AGE, SEX], sensitive)
    for a, b in ((fast.snapshot, general.snapshot), (fast.detail, general.detail)):
        assert a is not None and b is not None and a.levels == b.levels
        # the rows of a snapshot are in no particular order
        assert np.array_equal(_sorted_rows(a), _sorted_rows(b))
    # the bottom, read off the sorted detail's runs, comes in the order grouping gives
    assert np.array_equal(fast.snapshot.codes, general.snapshot.codes)
    assert [(s.name, s.labels, s.totals.tolist()) for s in fast.sensitive] == [
        (s.name, s.labels, s.totals.tolist()) for s in general.sensitive
    ]
    # the leaves coded "disease" as it stands unless a value needed its blanks stripped;
    # "income" (floats) is counted as text: never verbatim, nor anything the general
    # path counts
    stripped = not frame["disease"].str.starts_with(" ").any()
    assert [s.verbatim for s in fast.sensitive] == [stripped, False]
    assert [s.verbatim for s in general.sensitive] == [False, False]


@pytest.mark.parametrize("padded", [False, True])
def test_frame_detail_codes_text_as_it_stands_unless_padded(padded: bool) -> None:
    """A sensitive text column is coded from its distinct values as they stand when none
    has blanks to strip, else from its normalized text: ``" flu"`` and ``"flu"`` are one
    value either way, as the general count reads them (issue 19)."""
    frame = pl.DataFrame(
        {
            "age": [1, 2, 1, 2, 4],
            "sex": ["m", "f", "m", "m", "f"],
            "note": [" flu" if padded else "flu", "cold", "flu", "flu ", "cold"],
        }
    )
    if not padded:
        frame = frame.with_columns(pl.col("note").str.strip_chars())
    engine = get_engine("polars")
    fast = engine.count_detail(frame, ["age", "sex"], [AGE, SEX], [SensitiveSpec("note")])
    engine = get_engine("polars")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "_direct_detail", lambda *args: None)  # the general path
        general = engine.count_detail(frame, ["age", "sex"], [AGE, SEX], [SensitiveSpec("note")])
    assert fast.detail is not None and general.detail is not None
    assert np.array_equal(_sorted_rows(fast.detail), _sorted_rows(general.detail))
    assert (
        [(s.labels, s.totals.tolist()) for s in fast.sensitive]
        == [(("cold", "flu"), [2, 3])]
        == [(s.labels, s.totals.tolist()) for s in general.sensitive]
    )
    # codes of the texts as they stand tell apart what the data tells apart
    assert [s.verbatim for s in fast.sensitive] == [not padded]


def test_frame_detail_leaves_errors_to_the_general_count() -> None:
    engine = get_engine("polars")
    frame = pl.DataFrame({"age": [1, 2], "sex": ["m", "f"], "disease": ["flu", None]})
    with pytest.raises(MissingValuesError) as missing:
        engine.count_detail(frame, ["age", "sex"], [AGE, SEX], [SensitiveSpec("disease")])
    assert missing.value.column == "disease"  # type: ignore[attr-defined]
    frame = pl.DataFrame({"age": [1, 7], "sex": ["m", "f"], "disease": ["flu", "cold"]})
    with pytest.raises(ValuesNotInHierarchyError, match="7"):
        engine.count_detail(frame, ["age", "sex"], [AGE, SEX], [SensitiveSpec("disease")])


@pytest.mark.parametrize(
    "values",
    [
        [True, False, True, True, False, True, False, False, True, True, False],
        [2.0, 0.5, 2.0, 7.25, 0.5, 1.0, 7.25],
    ],
    ids=["booleans", "floats"],
)
def test_distinct_keeps_the_order_of_first_appearance_every_time(values: list[Any]) -> None:
    """polars' unique(maintain_order=True) after a when/then expression (the text of a
    boolean or float column) came out in another order in about 1 call of 100: a
    builder's leaves, and the Spark comparison test, changed between runs."""
    frame = pl.DataFrame({"v": values})
    expected = list(dict.fromkeys(as_text(frame["v"]).to_list()))
    for _ in range(300):
        assert PolarsEngine().distinct(frame, "v") == expected


def test_an_unknown_engine_is_told_the_engines_users_choose_from() -> None:
    # The list left out 'auto', which the docs and --help offer, and offered 'numpy',
    # a test path the docs do not.
    import anonkit

    with pytest.raises(UnknownNameError) as info:
        anonkit.anonymize(pl.DataFrame({"a": ["1", "2"]}), quasi_identifiers="a", engine="polarz")
    assert "choose one of: auto, polars, spark, streaming." in str(info.value)
    assert "did you mean 'polars'" in str(info.value) and "numpy" not in str(info.value)
    assert get_engine("numpy").name == "numpy"  # still accepted
