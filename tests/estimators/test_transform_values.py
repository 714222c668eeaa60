"""transform reads new records' quasi-identifiers as the fit read the training ones: the
same label for the same value whatever else is in the batch, missing values refused,
text that is not a number named."""

from __future__ import annotations

import pandas as pd
import pytest

from anonkit.estimators import FullDomain, Mondrian, Privacy
from anonkit.exceptions import DataError, MissingValuesError
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
