"""What publish refuses, and what it hides: found by an independent review of sequential
releases. Each case once published more than the guarantee allows."""

from __future__ import annotations

import json

import polars as pl
import pytest

from anonkit.exceptions import (
    DataError,
    InputFormatError,
    MissingValuesError,
    ParameterError,
    PrivacyUnattainableError,
)
from anonkit.releases import ReleaseHistory, publish
from anonkit.releases.sequential import COUNTERFEIT_COLUMN

T1 = pl.DataFrame(
    {
        "id": ["p1", "p2", "p3", "p4", "p5", "p6"],
        "zip": ["13053", "13068", "13053", "14853", "14853", "14850"],
        "age": ["28", "29", "23", "50", "55", "47"],
        "disease": ["hiv", "flu", "cold", "gastritis", "asthma", "bronchitis"],
    }
)
KW = {"id_column": "id", "quasi_identifiers": ["zip", "age"], "sensitive": "disease", "m": 3}


def test_counterfeit_rows_are_not_the_last_of_their_class() -> None:
    """Written after the real rows, with the counterfeit count per class published, they
    gave the remaining real records' values away."""
    first = publish(T1, numeric=["age"], **KW)  # type: ignore[arg-type]
    t2 = T1.filter(pl.col("id").is_in(["p1", "p5", "p6"]))
    second = publish(t2, numeric=["age"], history=first.history, **KW)  # type: ignore[arg-type]
    assert COUNTERFEIT_COLUMN not in second.table.columns
    for _, rows in second.table.group_by("class"):
        values = rows["disease"].to_list()
        assert values == sorted(values)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"quasi_identifiers": ["zip", "id"]}, "'id_column' parameter of publish"),
        ({"sensitive": "id"}, "'id_column' parameter of publish"),
        ({"quasi_identifiers": ["zip", "disease"]}, "'sensitive' parameter of publish"),
        ({"quasi_identifiers": ["zip", "zip"]}, "without duplicates"),
        ({"numeric": ["disease"]}, "'numeric' parameter of publish must be quasi"),
    ],
)
def test_columns_with_two_roles_are_refused(change: dict[str, object], message: str) -> None:
    """An id column also given as a quasi-identifier or the sensitive attribute was
    published whole, while the run said it was not."""
    with pytest.raises(ParameterError, match=message):
        publish(T1, **{**KW, **change})  # type: ignore[arg-type]


def test_numeric_columns_read_as_text_are_read_as_numbers() -> None:
    """Ranges came from the text order: [100-7], [30-9]."""
    frame = T1.with_columns(pl.Series("age", ["9", "25", "100", "8", "30", "99"]))
    out = publish(frame, numeric=["age"], **KW)  # type: ignore[arg-type]
    for label in out.table["age"].unique().to_list():
        lo, hi = (float(x) for x in label.strip("[]").split("-"))
        assert lo <= hi
    with pytest.raises(DataError, match="'age' is declared numeric but 1"):
        publish(frame.with_columns(pl.col("age").replace("8", "?")), numeric=["age"], **KW)  # type: ignore[arg-type]


def test_a_history_that_knows_none_of_the_ids_is_said_and_a_larger_m_refused() -> None:
    """Ids read from Parquet as 10.0 matched no '10' of the history: every record got a
    new signature, and two releases intersected gave values away. Raising m failed with
    an internal error."""
    ids = T1.with_columns(pl.Series("id", [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
    first = publish(ids.with_columns(pl.col("id").cast(pl.Int64)), **KW)  # type: ignore[arg-type]
    again = publish(ids, history=first.history, **KW)  # type: ignore[arg-type]
    assert again.history.releases == 2  # float ids read as the int ids were written
    other = T1.with_columns(pl.Series("id", [f"x{i}" for i in range(6)]))
    with pytest.warns(UserWarning, match="None of the 6 ids in column 'id' is in the history"):
        publish(other, history=first.history, **KW)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="'m' parameter of publish must be at most 3"):
        publish(T1, history=publish(T1, **KW).history, **{**KW, "m": 4})  # type: ignore[arg-type]
    assert isinstance(first.history, ReleaseHistory)


def test_ids_that_read_the_same_are_duplicates() -> None:
    """'p1 ' and 'p1' passed the duplicate check (on the raw values) and were read as one
    id: the later record took the earlier one's place in the history, whose signature was
    then lost, and m-invariance failed across releases."""
    twin = pl.concat([T1, T1.head(1).with_columns(id=pl.lit("p1 "))])
    with pytest.raises(PrivacyUnattainableError, match="'id'.*duplicates"):
        publish(twin, **KW)


@pytest.mark.parametrize("column", ["zip", "age"])
def test_missing_quasi_identifier_values_are_refused(column: str) -> None:
    """A class of three records, two without age or zip, was labelled with the one known
    record's exact values, as if they applied to all three."""
    gaps = T1.with_columns(
        pl.when(pl.col("id") == "p2").then(None).otherwise(pl.col(column)).alias(column)
    )
    for numeric in ([], ["age"]):
        with pytest.raises(MissingValuesError, match=f"'{column}' has 1 missing"):
            publish(gaps, **KW, numeric=numeric)


@pytest.mark.parametrize("bad", ["NaN", "inf", "1e400"])
def test_numbers_that_are_not_finite_are_refused(bad: str) -> None:
    """NaN, inf and 1e400 in a numeric quasi-identifier were taken: a NaN record sat in a
    class labelled [31.0-32.0], and a label read [30.0-inf]."""
    odd = T1.with_columns(
        pl.when(pl.col("id") == "p2").then(pl.lit(bad)).otherwise(pl.col("age")).alias("age")
    )
    with pytest.raises(DataError, match="'age'"):
        publish(odd, **KW, numeric=["age"])


def test_no_quasi_identifier_is_a_parameter_error() -> None:
    """An empty list stopped with polars' ShapeError."""
    with pytest.raises(ParameterError, match="'quasi_identifiers'"):
        publish(T1, **{**KW, "quasi_identifiers": []})


@pytest.mark.parametrize(
    "signature", [["flu", "cold", "hiv"], "flu", ["flu", None, "hiv"], ["flu", "flu", "hiv"]]
)
def test_a_history_with_a_malformed_signature_is_refused(signature: object) -> None:
    """A hand-edited history: unsorted values stopped the release with an internal error,
    a string was read as its letters, null as the value 'None'."""
    text = json.dumps(
        {"format": 1, "window": 1, "releases": 1, "records": {"p1": [[1, signature]]}}
    )
    with pytest.raises(InputFormatError, match="signature"):
        ReleaseHistory.from_json(text)


@pytest.mark.parametrize(
    ("old", "name", "change"),
    [
        ("zip", "class", {"quasi_identifiers": ["class", "age"]}),
        ("disease", "class", {"sensitive": "class"}),
        ("zip", "__anonkit_row__", {"quasi_identifiers": ["__anonkit_row__", "age"]}),
        ("disease", "*", {"sensitive": "*"}),
        ("zip", "^z.*$", {"quasi_identifiers": ["^z.*$", "age"]}),
        ("id", "^i.*$", {"id_column": "^i.*$"}),
    ],
)
def test_column_names_the_release_uses_itself_are_refused(
    old: str, name: str, change: dict[str, object]
) -> None:
    """A quasi-identifier or sensitive column named 'class' (the release's class column)
    stopped with polars' DuplicateError; a working column's name or one polars reads as a
    pattern ('*', '^...$') failed the same way, or with an IndexError."""
    with pytest.raises(ParameterError, match="parameter of publish") as caught:
        publish(T1.rename({old: name}), **{**KW, **change})  # type: ignore[arg-type]
    assert repr(name) in str(caught.value)


@pytest.mark.parametrize("name", ["class", "counterfeit", "counterfeits", "_code", "_set"])
def test_other_names_are_free(name: str) -> None:
    """The id column is never released, so it may be named 'class'; quasi-identifiers
    named as a label's working columns ('_code', '_set') stopped with polars errors."""
    as_id = publish(T1.rename({"id": name}), **{**KW, "id_column": name})  # type: ignore[arg-type]
    assert as_id.table.columns == ["class", "zip", "age", "disease"]
    if name == "class":
        return
    frame = T1.rename({"zip": name})
    out = publish(frame, **{**KW, "quasi_identifiers": [name, "age"]})  # type: ignore[arg-type]
    assert out.table.columns == ["class", name, "age", "disease"]
    assert all(label.startswith("{") for label in out.table[name].to_list())
    again = publish(frame, history=out.history, **{**KW, "quasi_identifiers": [name, "age"]})  # type: ignore[arg-type]
    assert again.history.releases == 2


def test_an_unrelated_column_named_as_the_row_index_is_ignored() -> None:
    """Only the released columns are worked on: a column that plays no role may have
    any name."""
    frame = T1.with_columns(pl.lit(1).alias("__anonkit_row__"))
    assert publish(frame, **KW).table.height >= T1.height  # type: ignore[arg-type]


_GOOD = {"format": 1, "window": 1, "releases": 1, "sensitive": "disease"}


@pytest.mark.parametrize(
    "text",
    [
        json.dumps({**_GOOD, "records": {"p1": []}}),
        '{"format":1,"window":1e999,"releases":1,"sensitive":null,"records":{}}',
        json.dumps({**_GOOD, "releases": 1.7, "records": {}}),
        json.dumps({**_GOOD, "window": True, "records": {}}),
        json.dumps({**_GOOD, "format": True, "records": {}}),
        json.dumps({**_GOOD, "window": 0, "records": {}}),
        json.dumps({**_GOOD, "releases": -1, "records": {}}),
        '{"format":1,"window":1,"releases":NaN,"records":{}}',
        json.dumps({**_GOOD, "records": {"p1": [[1.5, ["flu", "hiv"]]]}}),
        json.dumps({**_GOOD, "records": {"p1": [["1", ["flu", "hiv"]]]}}),
        json.dumps({**_GOOD, "records": {"p1": [[2, ["flu", "hiv"]]]}}),
        json.dumps({**_GOOD, "records": {"p1": [[1, ["flu", "hiv"], 3]]}}),
        json.dumps({**_GOOD, "records": {"p1": {"1": ["flu", "hiv"]}}}),
        json.dumps({**_GOOD, "releases": 2, "records": {"p1": [[2, ["a", "b"]], [1, ["a", "b"]]]}}),
        "[" * 100_000 + "]" * 100_000,
        "",
        "[]",
    ],
)
def test_a_malformed_history_is_not_a_release_history(text: str) -> None:
    """An empty entry list stopped the release with min()'s ValueError, a window of 1e999
    with an OverflowError, deep nesting with a RecursionError; 1.7 releases were read as
    1."""
    with pytest.raises(InputFormatError, match="is not a release history"):
        ReleaseHistory.from_json(text)


@pytest.mark.parametrize("signature", [[], ["flu"]])
def test_a_signature_of_fewer_than_two_values_is_refused(signature: list[str]) -> None:
    """Every class holds m >= 2 values: an empty signature was accepted."""
    text = json.dumps({**_GOOD, "records": {"p1": [[1, signature]]}})
    with pytest.raises(InputFormatError, match="signature"):
        ReleaseHistory.from_json(text)


def test_a_history_that_is_no_utf8_text_is_not_a_release_history(tmp_path) -> None:
    """A UnicodeDecodeError escaped load."""
    path = tmp_path / "h.json"
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(InputFormatError, match=r"h\.json: it is not a release history"):
        ReleaseHistory.load(path)


def test_a_history_kept_in_memory_with_an_empty_entry_list_serves() -> None:
    """A record with no entry counts as never published; min() of no signature stopped
    the release with a ValueError."""
    past = ReleaseHistory(releases=1, records={"p1": []}, sensitive="disease")
    with pytest.warns(UserWarning, match="None of the 6 ids"):
        out = publish(T1.with_columns(id=pl.lit("x") + pl.col("id")), history=past, **KW)  # type: ignore[arg-type]
    assert out.history.releases == 2
    assert publish(T1, history=past, **KW).history.releases == 2  # type: ignore[arg-type]
