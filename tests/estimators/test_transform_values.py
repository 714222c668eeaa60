"""transform reads new records' quasi-identifiers as the fit read the training ones: the
same label for the same value whatever else is in the batch, missing values refused,
text that is not a number named."""

from __future__ import annotations

import pandas as pd
import polars as pl
import pytest

from anonkit.estimators import FullDomain, KEpsilon, Mondrian, Privacy
from anonkit.exceptions import DataError, MissingValuesError, ValuesNotInHierarchyError
from anonkit.models import KAnonymity

AGES = {"age": {"type": "intervals", "widths": [10, 20]}}


def _fitted() -> FullDomain:
    train = pd.DataFrame({"age": [30, 31, 32, 33, 41], "sex": ["m"] * 5})
    fd = FullDomain(privacy=Privacy(KAnonymity(5)))
    return fd.fit(train, quasi_identifiers=["age", "sex"], hierarchies=AGES)


def test_a_value_gets_the_same_label_whatever_else_is_in_the_batch() -> None:
    """The intervals were built again over the batch, anchored at its smallest value:
    31 was [30-50[ alone and [20-40[ beside a 5."""
    fd = _fitted()
    assert fd.result_.release["age"].tolist() == ["[30-50["] * 5
    alone = fd.transform(pd.DataFrame({"age": [31], "sex": ["m"]}))["age"].tolist()
    beside = fd.transform(pd.DataFrame({"age": [31, 5], "sex": ["m", "m"]}))["age"].tolist()
    assert alone == ["[30-50["] and beside == ["[30-50[", "[-10-10["]


def test_ordered_groups_are_not_rebuilt_so_a_new_value_is_named() -> None:
    train = pd.DataFrame({"grade": ["a", "b", "c", "d"] * 2})
    spec = {"grade": {"type": "ordered", "fanouts": [2]}}
    fd = FullDomain(privacy=Privacy(KAnonymity(4)))
    fd.fit(train, quasi_identifiers=["grade"], hierarchies=spec)
    assert fd.transform(train)["grade"].tolist() == fd.result_.release["grade"].tolist()
    with pytest.raises(Exception, match="'e'"):
        fd.transform(pd.DataFrame({"grade": ["e"]}))


def test_floats_are_read_as_the_fit_reads_them() -> None:
    """Fitted on text ages, 30.0 was '30.0', not in the hierarchy; the fit reads '30'."""
    hier = [[str(a), "young" if a < 40 else "old", "*"] for a in range(18, 90)]
    train = pd.DataFrame({"age": ["30", "31", "32", "50", "51", "52"]})
    fd = FullDomain(privacy=Privacy(KAnonymity(3)))
    fd.fit(train, quasi_identifiers=["age"], hierarchies={"age": hier})
    out = fd.transform(pd.DataFrame({"age": [30.0, 50.0]}))
    assert out["age"].tolist() == ["young", "old"]


def test_text_that_is_not_a_number_is_named_not_called_missing() -> None:
    hier = [[str(a), "young" if a < 40 else "old", "*"] for a in range(18, 90)]
    train = pd.DataFrame({"age": [30, 31, 32, 50, 51, 52]})
    fd = FullDomain(privacy=Privacy(KAnonymity(3)))
    fd.fit(train, quasi_identifiers=["age"], hierarchies={"age": hier})
    with pytest.raises(DataError, match="'abc'"):
        fd.transform(pd.DataFrame({"age": ["30", "abc"]}))


def test_missing_values_are_refused_as_the_fit_refuses_them() -> None:
    """A null in a quasi-identifier without a hierarchy came out as None."""
    train = pd.DataFrame({"sex": ["m", "m", "f", "f"], "zip": ["1", "1", "2", "2"]})
    fd = FullDomain(privacy=Privacy(KAnonymity(2))).fit(train, quasi_identifiers=["sex", "zip"])
    with pytest.raises(MissingValuesError, match="'zip' has 1 missing"):
        fd.transform(pd.DataFrame({"sex": ["m"], "zip": [None]}))


def test_mondrian_reads_numbers_of_another_type() -> None:
    d = pd.DataFrame({"sex": ["m", "m", "f", "f"], "age": [30, 31, 40, 41]})
    mo = Mondrian(privacy=Privacy(KAnonymity(2)))
    mo.fit(d, quasi_identifiers=["sex", "age"], numeric=["age"])
    new = pd.DataFrame({"sex": ["m", "f"], "age": [30.5, 40.0]})
    assert mo.transform(new)["age"].tolist() == ["[30-31]", "[40-41]"]
    as_text = pd.DataFrame({"sex": ["m", "f"], "age": ["30", "41"]})
    assert mo.transform(as_text)["age"].tolist() == ["[30-31]", "[40-41]"]


NUMBERS = pl.DataFrame({"age": [20, 21, 22, 23, 40, 41, 42, 43]})


def _full_domain(spec: dict[str, object]) -> FullDomain:
    fd = FullDomain(search="flash", privacy=Privacy(KAnonymity(2)))
    return fd.fit(NUMBERS, quasi_identifiers=["age"], hierarchies={"age": spec})


@pytest.mark.parametrize(
    "new",
    [
        pl.Series("age", [20.0, 41.0]),
        pl.Series("age", [20, 41], dtype=pl.Int32),
        pl.Series("age", [20, 41], dtype=pl.UInt8),
        pd.Series([20, 41], dtype="int32", name="age"),
        pd.Series([20.0, 41.0], dtype="Float64", name="age"),
    ],
    ids=["Float64", "Int32", "UInt8", "pandas int32", "pandas Float64"],
)
def test_numbers_of_another_type_are_read_as_the_training_numbers(new: object) -> None:
    """Int32, UInt8 or 20.0 beside training Int64 stopped on polars' SchemaError where a
    hierarchy built from the data is built again over the new values."""
    fd = _full_domain({"type": "intervals", "widths": [10, 20]})
    out = fd.transform(new.to_frame())  # type: ignore[attr-defined]
    assert list(out["age"]) == ["[20-30[", "[40-50["]


def test_a_fraction_beside_whole_training_numbers_is_a_new_value_not_cut() -> None:
    """20.5 is not read as 20: like any value the training lacked, it gets the label of
    the interval it falls in, and 29.5 is not put with 29 (cut, it would be)."""
    fd = _full_domain({"type": "intervals", "widths": [10, 20]})
    out = fd.transform(pl.DataFrame({"age": [20.5, 29.5, 41.0, 99.0]}))
    assert out["age"].to_list() == ["[20-30[", "[20-30[", "[40-50[", "[90-100["]
    hier = [[str(a), "young" if a < 40 else "old", "*"] for a in range(18, 90)]
    given = FullDomain(privacy=Privacy(KAnonymity(2)))
    given.fit(NUMBERS, quasi_identifiers=["age"], hierarchies={"age": hier})
    with pytest.raises(ValuesNotInHierarchyError, match="20.5"):
        given.transform(pl.DataFrame({"age": [20.5]}))


def test_k_epsilon_reads_numbers_of_another_type_as_full_domain_does() -> None:
    train = NUMBERS.with_columns(pl.Series("pay", [float(i) for i in range(8)]))
    ke = KEpsilon(epsilon=1.0, noisy=["pay"], privacy=Privacy(KAnonymity(2)), seed=0)
    ke.fit(
        train,
        quasi_identifiers=["age"],
        hierarchies={"age": {"type": "intervals", "widths": [10, 20]}},
        insensitive=["pay"],
    )
    new = pl.DataFrame({"age": pl.Series([20, 41], dtype=pl.Int32), "pay": [1.0, 2.0]})
    assert ke.transform(new)["age"].to_list() == ["[20-30[", "[40-50["]


def test_a_streaming_fit_transforms_a_pandas_frame_into_a_pandas_frame(tmp_path) -> None:
    """After engine="streaming", transform(pandas) stopped on a TypeError: 'the polars
    engines read polars frames, lazy frames or paths, not DataFrame'."""
    path = tmp_path / "zips.parquet"
    pl.DataFrame({"zip": ["100", "101", "110", "111"] * 5, "n": list(range(20))}).write_parquet(
        path
    )
    fd = FullDomain(search="flash", engine="streaming", privacy=Privacy(KAnonymity(6)))
    fd.fit(path, quasi_identifiers=["zip"], hierarchies={"zip": {"type": "masking"}},
           identifying=["n"])  # fmt: skip
    new = pd.DataFrame({"zip": ["100", "111"], "n": [1, 2]}, index=[7, 9])
    out = fd.transform(new)
    assert isinstance(out, pd.DataFrame) and out.columns.tolist() == ["zip"]
    assert out["zip"].tolist() == ["10*", "11*"] and out.index.tolist() == [0, 1]
    with pytest.raises(ValuesNotInHierarchyError, match="'999'"):
        fd.transform(pd.DataFrame({"zip": ["999"], "n": [1]}))
    # polars in, the engine's lazy query out, as before
    lazy = fd.transform(pl.DataFrame({"zip": ["100", "111"], "n": [1, 2]}))
    assert lazy.collect()["zip"].to_list() == ["10*", "11*"]
