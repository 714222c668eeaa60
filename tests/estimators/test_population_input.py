"""How the population table of k-map and δ-presence may be given: a polars or pandas
frame or a file's path, in memory or streamed; anything else, or an empty table, is
named as the population."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import anonkit
from anonkit.exceptions import EmptyDataError, ParameterError
from anonkit.models import KMap
from seed_tables import population_sample

SAMPLE = pl.DataFrame({"zip": ["a", "a", "b", "b"]})
POPULATION = pl.DataFrame({"zip": ["a"] * 3 + ["b"] * 3})
SUP = {"zip": {"type": "suppression"}}


def _run(source: object, population: object, **keywords: object) -> anonkit.AnonymizationResult:
    return anonkit.anonymize(source, quasi_identifiers=["zip"], hierarchies=SUP,
                             privacy=[KMap(3)], population=population, **keywords)  # fmt: skip


def test_a_population_file_is_read_as_a_frame_is(tmp_path: Path) -> None:
    """A path was refused as 'the frame parameter of anonymize'."""
    path = tmp_path / "pop.csv"
    POPULATION.write_csv(path)
    by_path = _run(SAMPLE, str(path))
    assert by_path.verified and by_path.risk == _run(SAMPLE, POPULATION).risk


def test_a_pandas_population_streams_as_a_polars_one(tmp_path: Path) -> None:
    """engine='streaming' with a pandas population stopped on a raw TypeError."""
    path = tmp_path / "sample.csv"
    SAMPLE.write_csv(path)
    out = tmp_path / "release.csv"
    result = _run(path, pd.DataFrame({"zip": POPULATION["zip"].to_list()}),
                  engine="streaming", output=out)  # fmt: skip
    assert result.verified and out.exists()


def test_a_population_of_another_kind_or_empty_is_named_as_the_population() -> None:
    with pytest.raises(ParameterError, match="'population' parameter"):
        _run(SAMPLE, [["a"], ["b"]])
    with pytest.raises(EmptyDataError, match="The population table has no records"):
        _run(SAMPLE, POPULATION.clear())


def _sample_and_population(tmp_path: Path) -> tuple[Path, pl.DataFrame]:
    """A sample file (id, age, sex, zip, disease) and its population, three times it."""
    sample = pl.DataFrame(population_sample())
    path = tmp_path / "in.csv"
    sample.write_csv(path)
    return path, pl.concat([sample] * 3)


def _k_map(source: Path, population: object, engine: str, out: Path) -> None:
    anonkit.anonymize(
        source, engine=engine, identifying=["id"], sensitive=["disease"],
        quasi_identifiers=["age", "sex", "zip"], privacy=[KMap(3)], population=population,
        output=out, hierarchies={"age": {"type": "intervals", "widths": [10, 20]},
                                 "sex": [["male", "*"], ["female", "*"]],
                                 "zip": {"type": "masking"}},
    )  # fmt: skip


@pytest.mark.parametrize("engine", ["polars", "streaming"])
def test_errors_about_the_population_table_say_so(tmp_path: Path, engine: str) -> None:
    """A population without the column 'sex' was reported as "Unknown column(s) 'sex';
    the data has 'id', ...", and a population value outside a hierarchy as "1 value(s)
    of the data are not in the hierarchy": the data has both."""
    from anonkit.exceptions import UnknownColumnError, ValuesNotInHierarchyError

    source, population = _sample_and_population(tmp_path)
    out = tmp_path / "release.csv"
    with pytest.raises(UnknownColumnError) as unknown:
        _k_map(source, population.drop("sex"), engine, out)
    assert str(unknown.value) == (
        "Unknown column(s) 'sex'; the population table has 'id', 'age', 'zip', 'disease'."
    )
    assert unknown.value.table == "population table"
    other = population.head(1).with_columns(sex=pl.lit("other"))
    with pytest.raises(ValuesNotInHierarchyError) as outside:
        _k_map(source, pl.concat([population, other]), engine, out)
    assert str(outside.value) == (
        "Hierarchy for column 'sex': 1 value(s) of the population table are not in the "
        "hierarchy: 'other'"
    )
    assert outside.value.table == "population table"
    assert not out.exists()
    # the data's own errors are worded as they were
    first = pl.int_range(pl.len()) == 0  # the record the population's 'other' one is
    sex = pl.when(first).then(pl.lit("other")).otherwise("sex")
    pl.read_csv(source).with_columns(sex=sex).write_csv(source)
    with pytest.raises(ValuesNotInHierarchyError, match="1 value.s. of the data are not"):
        _k_map(source, pl.concat([population, other]), engine, out)
    pl.read_csv(source).drop("zip").write_csv(source)
    with pytest.raises(UnknownColumnError, match="; the data has 'id', 'age', 'sex', 'disease'"):
        _k_map(source, population, engine, out)
