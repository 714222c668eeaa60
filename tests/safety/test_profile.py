"""The table profile: kinds, counts, identifier patterns and dependencies."""

from __future__ import annotations

import json
from datetime import date

import polars as pl
import pytest

from anonkit.exceptions import DataError
from anonkit.safety.profile import profile_table


def test_adult_full_profile(adult_full: pl.DataFrame) -> None:
    profile = profile_table(adult_full)
    assert profile.records == 32561
    kinds = {c.name: c.kind for c in profile}
    assert kinds["age"] == "integer"
    assert kinds["fnlwgt"] == "integer"
    assert kinds["education"] == "category"
    assert kinds["hours-per-week"] == "integer"
    fnlwgt = profile["fnlwgt"]
    assert fnlwgt.near_unique and fnlwgt.distinct == 21648
    assert fnlwgt.unique_share == pytest.approx(0.4708, abs=1e-4)
    assert profile["workclass"].nulls == 1836
    assert profile["workclass"].distinct == 8
    assert all(c.identifier is None for c in profile)
    pairs = {(d.determinant, d.dependent) for d in profile.dependencies}
    assert pairs == {("education", "education-num"), ("education-num", "education")}
    assert profile.determined_by("education-num") == ["education"]
    text = json.dumps(profile.to_dict())
    assert "Bachelors" not in text and "United-States" not in text


@pytest.mark.parametrize(
    ("values", "kind", "extra"),
    [
        (["1", "20", "-3", " 7 "], "integer", {}),
        (["1.5", "2", "1e-3", "-.5"], "number", {}),
        (["02134", "13053", "90210", "02134"], "code", {"length": 5}),
        (["13053", "13068", "14000", "13053"], "code", {"length": 5}),
        (["17", "39", "50", "90"], "integer", {}),
        (["1990", "2001", "1985", "1990"], "integer", {}),
        (["K12", "A01", "B99", "K12"], "code", {"length": 3}),
        (["2024-03-05", "1999-12-31"], "date", {"date_format": "%Y-%m-%d"}),
        (["05/03/2024", "31/12/1999"], "date", {"date_format": "%d/%m/%Y"}),
        (["12/31/1999", "01/02/2000"], "date", {"date_format": "%m/%d/%Y"}),
        (["F", "M", "F", "M", "F"], "category", {}),
        (["Ann Lee", "Bob Ray", "Cy Doe"], "text", {}),
        ([None, None], "empty", {}),
    ],
)
def test_kinds(values: list[str | None], kind: str, extra: dict[str, object]) -> None:
    column = profile_table(pl.DataFrame({"c": pl.Series(values, dtype=pl.String)}))["c"]
    assert column.kind == kind
    for key, value in extra.items():
        assert getattr(column, key) == value


def test_typed_columns_keep_their_kind() -> None:
    frame = pl.DataFrame(
        {
            "i": [1, 2, 3],
            "f": [1.5, 2.0, None],
            "d": [date(2024, 1, 1), date(2024, 2, 1), date(2024, 3, 1)],
            "b": [True, False, True],
        }
    )
    assert [c.kind for c in profile_table(frame)] == ["integer", "number", "date", "category"]


def test_counts_and_identifier() -> None:
    frame = pl.DataFrame(
        {
            "mail": ["a@example.org", "b@example.org", None, "a@example.org"],
            "sex": ["F", "M", "F", "F"],
        }
    )
    profile = profile_table(frame)
    mail = profile["mail"]
    assert (mail.nulls, mail.distinct, mail.unique_share, mail.distinct_share) == (1, 2, 0.5, 0.75)
    assert mail.identifier == "e-mail addresses" and mail.identifier_share == 1.0
    assert profile["sex"].identifier is None
    with pytest.raises(KeyError):
        profile["nope"]


def test_dependencies_between_columns() -> None:
    n = 300
    frame = pl.DataFrame(
        {
            "zip": [str(10000 + i % 30) for i in range(n)],
            "state": [f"S{(i % 30) // 10}" for i in range(n)],
            "sex": [("F", "M")[(i // 7) % 2] for i in range(n)],
        }
    )
    profile = profile_table(frame)
    assert [(d.determinant, d.dependent) for d in profile.dependencies] == [("zip", "state")]
    assert profile.dependencies[0].agreement == 1.0


def test_empty_table() -> None:
    profile = profile_table(pl.DataFrame({"a": pl.Series([], dtype=pl.String)}))
    assert profile.records == 0 and profile["a"].kind == "empty"
    assert profile.dependencies == ()


def test_columns_without_a_text_form_are_named_not_a_polars_error() -> None:
    """`anonkit init` on a Parquet file with a List or Duration column stopped on
    'polars stopped on the data (InvalidOperationError)'."""
    import datetime as dt

    frame = pl.DataFrame(
        {"age": [30, 40], "tags": [[1], [2, 3]], "wait": [dt.timedelta(1), dt.timedelta(2)]}
    )
    with pytest.raises(DataError, match=r"Columns 'tags' \(List\(Int64\)\), 'wait' \(Duration"):
        profile_table(frame)
    assert [c.name for c in profile_table(frame.select("age"))] == ["age"]


def test_spellings_that_differ_by_spaces_or_case_are_counted() -> None:
    """' Paris' and 'Paris' are one value to the hierarchies (they trim), 'paris' another:
    the profile counts both kinds of variant, so that init can say so."""
    frame = pl.DataFrame(
        {
            "city": ["Paris", " Paris", "Paris ", "paris", "PARIS", "Lyon", None] * 3,
            "n": [1, 2, 3, 4, 5, 6, 7] * 3,
        }
    )
    city = profile_table(frame)["city"]
    assert (city.spaced, city.cased) == (2, 2)
    assert (profile_table(frame)["n"].spaced, profile_table(frame)["n"].cased) == (0, 0)
    tidy = profile_table(pl.DataFrame({"city": ["Paris", "Lyon"] * 4}))["city"]
    assert (tidy.spaced, tidy.cased) == (0, 0)


def test_iso_times_with_an_offset_are_dates() -> None:
    """'2024-03-05T10:00:00+02:00' was a category, proposed for suppression: a time stamp
    is as identifying as a day, and the dates builder reads it (its day as written)."""
    from anonkit.core.hierarchy_builders import build_hierarchy
    from anonkit.safety.starter import starter_config

    values = ["2024-03-05T10:00:00+02:00", "2024-03-06T23:30:00-05:00", "2024-03-07T01:00:00+00:00"]
    frame = pl.DataFrame({"visit": values * 4})
    column = profile_table(frame)["visit"]
    assert (column.kind, column.date_format) == ("date", "%Y-%m-%dT%H:%M:%S%z")
    spec = starter_config(frame, input="x.csv").proposals[0].hierarchy
    assert spec == {"type": "dates", "levels": ["day", "month", "year"],
                    "format": "%Y-%m-%dT%H:%M:%S%z"}  # fmt: skip
    rows = build_hierarchy(spec, values, name="visit").rows
    assert [row[1] for row in rows] == ["2024-03-05", "2024-03-06", "2024-03-07"]
