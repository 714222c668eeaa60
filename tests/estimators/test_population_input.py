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
