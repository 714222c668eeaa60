"""The local-recoding runner: inputs read as text, and what it refuses clearly."""

from __future__ import annotations

import polars as pl
import pytest

import anonkit
from anonkit.exceptions import DataError, MissingValuesError, ParameterError


def text_frame(ages: list[str]) -> pl.DataFrame:
    """A table as the CSV reader gives it: every column as text."""
    return pl.DataFrame({"age": ages, "zip": [str(i % 2) for i in range(len(ages))]})


AGES = ["30", "31", "40", "41", "50", "52", "60", "61"]


def test_microaggregation_parses_numbers_read_as_text() -> None:
    res = anonkit.anonymize(
        text_frame(AGES),
        quasi_identifiers=["age"],
        k=2,
        algorithm="microaggregation",
        others="keep",
    )
    assert res.classes.min_size >= 2
    assert res.release["age"].dtype.is_numeric()
    assert res.release["zip"].to_list() == text_frame(AGES)["zip"].to_list()


def test_microaggregation_median_keeps_whole_numbers() -> None:
    res = anonkit.anonymize(
        text_frame(AGES),
        quasi_identifiers=["age"],
        k=2,
        algorithm="microaggregation",
        aggregate="median",
        others="keep",
    )
    assert res.release["age"].dtype == pl.Int64


@pytest.mark.parametrize("cell", ["NaN", "nan"])
def test_microaggregation_missing_text_names_the_column(cell: str) -> None:
    ages = [*AGES[:3], cell, *AGES[4:]]
    with pytest.raises(MissingValuesError, match="'age'") as info:
        anonkit.anonymize(
            text_frame(ages),
            quasi_identifiers=["age"],
            k=2,
            algorithm="microaggregation",
            others="keep",
        )
    assert info.value.count == 1


def test_microaggregation_words_name_the_column() -> None:
    ages = [*AGES[:3], "unknown", *AGES[4:]]
    with pytest.raises(DataError, match="'age'") as info:
        anonkit.anonymize(
            text_frame(ages),
            quasi_identifiers=["age"],
            k=2,
            algorithm="microaggregation",
            others="keep",
        )
    assert "unknown" not in str(info.value)  # no cell values in messages


def test_microaggregation_numeric_must_cover_every_quasi_identifier() -> None:
    """The message named the left-out 'zip' as what was given ("Got ['zip'] instead")."""
    df = text_frame(AGES)
    with pytest.raises(ParameterError, match=r"leaves out 'zip'.* Got \['age'\] instead"):
        anonkit.anonymize(
            df,
            quasi_identifiers=["age", "zip"],
            numeric=["age"],
            k=2,
            algorithm="microaggregation",
            others="keep",
        )


@pytest.mark.parametrize("cell", ["NaN", "nan"])
def test_mondrian_nan_text_names_the_column(cell: str) -> None:
    ages = [*AGES[:3], cell, *AGES[4:]]
    with pytest.raises(MissingValuesError, match="'age'"):
        anonkit.anonymize(
            text_frame(ages),
            quasi_identifiers=["age"],
            numeric=["age"],
            k=2,
            algorithm="mondrian",
            others="keep",
        )


@pytest.mark.parametrize("algorithm", ["mondrian", "microaggregation", "flash"])
@pytest.mark.parametrize("cell", [float("nan"), ""])
def test_float_nan_names_the_column(algorithm: str, cell: float | str) -> None:
    ages = [30.0, cell, 40.0, 41.0, 50.0, 52.0]
    df = pl.DataFrame({"age": [str(a) for a in ages] if cell == "" else ages})
    numeric = [] if algorithm == "flash" else ["age"]  # flash reads hierarchies, not numbers
    with pytest.raises(MissingValuesError, match="'age'"):
        anonkit.anonymize(df, quasi_identifiers=["age"], numeric=numeric, k=2, algorithm=algorithm)
