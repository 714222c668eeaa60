"""Local recodings: ``transform`` into the box a record falls in (mean release too), the
nearest box whatever the distance, non-finite numbers refused as the fit refuses them; the
class profile of k-Optimize's suppressed records; a class column k-Optimize's metric
would ignore."""

from __future__ import annotations

import re
from typing import Any

import polars as pl
import pytest

from anonkit.estimators import Microaggregation, Mondrian, Privacy
from anonkit.estimators.banga import BangA
from anonkit.estimators.base import Estimator
from anonkit.estimators.hilbert import Hilbert
from anonkit.estimators.koptimize import KOptimize
from anonkit.exceptions import DataError, ParameterError
from anonkit.models import KAnonymity

#: Two boxes under k = 5: [30-39] (mean 31.8) and [40-42] (mean 40.8).
AGES = pl.DataFrame({"age": [30, 30, 30, 30, 39, 40, 40, 41, 41, 42]})
#: Four boxes under k = 2: [1-2], [3-4], [5-6], [7-8].
EIGHT = pl.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8]})


def _mondrian(release: str) -> Mondrian:
    est = Mondrian(numeric_release=release, privacy=Privacy(KAnonymity(5)))
    return est.fit(AGES, quasi_identifiers=["age"], numeric=["age"])


def test_a_mean_release_transforms_a_new_record_into_the_box_it_falls_in() -> None:
    """38 lies in [30-39], whose mean is 31.8; it was given the nearest mean, 40.8."""
    ranges, means = _mondrian("range"), _mondrian("mean")
    assert sorted(set(means.result_.release["age"])) == ["31.8", "40.8"]
    new = pl.DataFrame({"age": [38.0, 35.0, 39.8, 41.0, 100.0, -5.0]})
    assert ranges.transform(new)["age"].to_list() == [
        "[30-39]", "[30-39]", "[40-42]", "[40-42]", "[40-42]", "[30-39]",
    ]  # fmt: skip
    assert means.transform(new)["age"].to_list() == [
        "31.8", "31.8", "40.8", "40.8", "40.8", "31.8",
    ]  # fmt: skip
    # the training records still take their own labels
    assert means.transform(AGES)["age"].to_list() == means.result_.release["age"].to_list()


def test_a_mean_release_transforms_into_boxes_of_several_columns() -> None:
    """50 lies in the box [20-59] (mean 29.75), nearer the other box's mean (61.5)."""
    frame = pl.DataFrame(
        {"age": [20, 20, 20, 59, 60, 61, 62, 63], "zip": ["111", "112", "121", "122"] * 2}
    )
    est = Mondrian(numeric_release="mean", privacy=Privacy(KAnonymity(4)))
    est.fit(
        frame,
        quasi_identifiers=["age", "zip"],
        hierarchies={"zip": {"type": "masking"}},
        numeric=["age"],
    )
    young, old = est.result_.release.row(0), est.result_.release.row(4)
    assert young == ("29.75", "1**") and old == ("61.5", "1**")
    new = pl.DataFrame({"age": [50.0, 59.8, 21.0], "zip": ["111", "122", "112"]})
    assert est.transform(new).rows() == [young, old, young]


def test_the_nearest_box_wins_however_far_the_value_is() -> None:
    """Beyond one domain width every box tied and the first one won: 100 got [1-2]."""
    est = Mondrian(privacy=Privacy(KAnonymity(2))).fit(
        EIGHT, quasi_identifiers=["x"], numeric=["x"]
    )
    new = pl.DataFrame({"x": [12.0, 100.0, -100.0, 1e9, -1e9, 0.0]})
    assert est.transform(new)["x"].to_list() == [
        "[7-8]", "[7-8]", "[1-2]", "[7-8]", "[1-2]", "[1-2]",
    ]  # fmt: skip


def test_a_box_missing_fewer_columns_wins_over_a_nearer_one() -> None:
    """The extension ranks the boxes that miss the fewest columns, however large it is:
    a record inside one box's zip but far beyond every age takes that box."""
    frame = pl.DataFrame({"age": [1, 2, 3, 4], "zip": ["a", "a", "b", "b"]})
    est = Mondrian(privacy=Privacy(KAnonymity(2)))
    est.fit(frame, quasi_identifiers=["age", "zip"], numeric=["age"])
    assert est.result_.release.rows() == [("[1-2]", "a")] * 2 + [("[3-4]", "b")] * 2
    new = pl.DataFrame({"age": [-1000.0, 1000.0], "zip": ["b", "a"]})
    assert est.transform(new).rows() == [("[3-4]", "b"), ("[1-2]", "a")]


NUMERIC_FITS: list[tuple[Estimator, dict[str, Any]]] = [
    (Mondrian(privacy=Privacy(KAnonymity(2))), {"numeric": ["x"]}),
    (Mondrian(numeric_release="mean", privacy=Privacy(KAnonymity(2))), {"numeric": ["x"]}),
    (Hilbert(privacy=Privacy(KAnonymity(2))), {"numeric": ["x"]}),
    (BangA(privacy=Privacy(KAnonymity(2))), {"numeric": ["x"]}),
    (KOptimize(privacy=Privacy(KAnonymity(2))), {"numeric": ["x"]}),
    (Microaggregation(privacy=Privacy(KAnonymity(2))), {}),
]


@pytest.mark.parametrize(
    ("estimator", "numeric"), NUMERIC_FITS, ids=lambda v: type(v).__name__ if v else "all"
)
@pytest.mark.parametrize("infinite", [float("inf"), float("-inf")])
def test_transform_refuses_infinite_numbers_as_the_fit_does(
    estimator: Estimator, numeric: dict[str, Any], infinite: float
) -> None:
    """They were recoded into a box (Mondrian: inf -> '[1-2]') or a group."""
    frame = EIGHT.cast(pl.Float64)
    with pytest.raises(DataError) as refused:
        estimator.fit(
            frame.with_columns(x=pl.Series([infinite, *range(2, 9)])),
            quasi_identifiers=["x"],
            **numeric,
        )
    estimator.fit(frame, quasi_identifiers=["x"], **numeric)
    with pytest.raises(DataError) as err:
        estimator.transform(pl.DataFrame({"x": [3.0, infinite]}))
    assert type(err.value) is type(refused.value)
    assert str(err.value) == str(refused.value)
    assert "'x'" in str(err.value) and "infinite" in str(err.value)


def test_k_optimize_profiles_suppressed_records_as_suppressed() -> None:
    """The record suppressed was profiled as a class of one (and a sample unique)."""
    frame = pl.DataFrame({"x": [1, 1, 1, 500]})
    est = KOptimize(privacy=Privacy(KAnonymity(3), suppression_limit=0.25))
    result = est.fit(frame, quasi_identifiers=["x"], numeric=["x"]).result_
    assert result.release["x"].to_list() == ["1", "1", "1", "*"]
    assert result.suppressed == 1 and result.verified
    classes = result.classes
    assert classes.suppressed == 1
    assert (classes.n_classes, classes.min_size, classes.max_size) == (1, 3, 3)
    assert (classes.sample_uniques, classes.classes_below_k) == (0, 0)


@pytest.mark.parametrize("column", ["no_such_column", "label"])
def test_k_optimize_refuses_a_class_column_its_metric_does_not_read(column: str) -> None:
    """Discernibility reads no class column: any, even one the data lacks, was accepted."""
    frame = EIGHT.with_columns(label=pl.Series(["a", "b"] * 4))
    est = KOptimize(class_column=column, privacy=Privacy(KAnonymity(2)))
    message = (
        "The 'class_column' parameter of KOptimize must be left out with metric='discernibility'"
    )
    with pytest.raises(ParameterError, match=re.escape(message)) as err:
        est.fit(frame, quasi_identifiers=["x"], numeric=["x"], insensitive=["label"])
    assert err.value.got == column
    # the classification metric reads it
    est = KOptimize("classification", class_column="label", privacy=Privacy(KAnonymity(2)))
    assert est.fit(frame, quasi_identifiers=["x"], numeric=["x"], others="keep").result_.verified
