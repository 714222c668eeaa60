"""Tests of anonkit.evaluate: the Evaluation of any release, JSON output, parameters."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

import anonkit
from anonkit.core.hierarchy import Hierarchy
from anonkit.evaluate import LOSS_INFO, RISK_INFO, Evaluation, evaluate
from anonkit.exceptions import (
    DataError,
    MissingValuesError,
    ParameterError,
    UncoveredValueError,
    UnknownColumnError,
    ValuesNotInHierarchyError,
)
from anonkit.metrics.risk import population_uniqueness_risk
from seed_tables import HOSPITAL, HOSPITAL_RELEASE

QI = ["Zip", "Age", "Nationality"]


def hospital() -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Hierarchy]]:
    cols = ["Zip", "Age", "Nationality", "Disease"]
    original = pd.DataFrame(HOSPITAL, columns=cols)
    release = pd.DataFrame(
        [(*r, d[3]) for r, d in zip(HOSPITAL_RELEASE, HOSPITAL, strict=True)], columns=cols
    )
    zips = [str(z) for z in range(13000, 13100)] + [str(z) for z in range(14850, 14860)]
    zip_h = Hierarchy(
        [[z, z[:4] + "*", z[:3] + "**", z[:2] + "***", z[:1] + "****", "*****"] for z in zips],
        name="Zip",
    )
    age_h = Hierarchy(
        [
            [str(a), "<30" if a < 30 else ("[30,40)" if a < 40 else ">40"),
             "<40" if a < 40 else ">=40", "*"]
            for a in range(100)
        ],
        name="Age",
    )  # fmt: skip
    nats = sorted({r[2] for r in HOSPITAL}) + ["French", "German", "Brazilian", "Mexican", "Other"]
    nat_h = Hierarchy([[n, "Any"] for n in nats], name="Nationality")
    return original, release, {"Zip": zip_h, "Age": age_h, "Nationality": nat_h}


def test_hospital_evaluation_from_pandas() -> None:
    original, release, hs = hospital()
    ev = evaluate(
        original, release, quasi_identifiers=QI, hierarchies=hs, k=4,
        sensitive=["Disease"], class_attribute="Disease",
    )  # fmt: skip
    assert isinstance(ev, Evaluation)
    assert round(ev.loss["average_class_size"], 2) == 1.08
    assert ev.loss["discernibility"] == 57
    assert round(1 - ev.loss["precision"], 2) == 0.44
    assert ev.loss["classification"] == pytest.approx(4 / 13)
    assert ev.risk["prosecutor_max"] == 0.25
    assert ev.risk["prosecutor_average"] == pytest.approx(3 / 13)
    assert ev.risk["sample_uniqueness"] == 0.0
    assert ev.risk["records_at_risk"] == pytest.approx(8 / 13)  # 1/4 > 0.2
    assert math.isnan(ev.risk["journalist_max"]) and math.isnan(ev.risk["population_uniqueness"])
    assert ev.privacy["achieved_k"] == 4
    assert dict(ev.privacy["l_diversity"]["Disease"]) == {"distinct_l": 1.0, "entropy_l": 1.0}
    assert ev.classes.min_size == 4 and ev.classes.n_classes == 3 and ev.classes.k == 4
    assert "sse" not in ev.loss and "il" not in ev.loss
    assert dict(ev.attributes["Zip"]["levels"]) == {"1": 4, "2": 9}
    assert any("population table" in n for n in ev.notes)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ev.k = 3  # type: ignore[misc]


def test_to_dict_is_tidy_and_strict_json() -> None:
    original, release, hs = hospital()
    ev = evaluate(original, release, quasi_identifiers=QI, hierarchies=hs, k=4)
    d = json.loads(ev.to_json())
    assert set(d) == {
        "dataset", "configuration", "privacy", "classes", "loss", "risk",
        "risk_distribution", "attributes", "notes", "timing_seconds",
    }  # fmt: skip
    names = [m["name"] for m in d["loss"]]
    assert names == [n for n in LOSS_INFO if n in ev.loss]
    for entry in d["loss"] + d["risk"]:
        assert set(entry) == {"name", "title", "value", "better", "range", "explanation",
                              "reference"}  # fmt: skip
        assert entry["explanation"] and entry["title"]
    risk = {m["name"]: m["value"] for m in d["risk"]}
    assert risk["journalist_max"] is None and risk["prosecutor_max"] == 0.25
    assert [m["name"] for m in d["risk"]] == list(RISK_INFO)
    assert "20%" in next(m for m in d["risk"] if m["name"] == "records_at_risk")["explanation"]
    assert d["dataset"] == {"n_records": 13, "n_released": 13, "n_suppressed": 0,
                            "suppressed_share": 0.0}  # fmt: skip
    assert [a["name"] for a in d["attributes"]] == QI
    assert sum(d["risk_distribution"].values()) == 13
    assert "Zip" not in ev.to_json() or "13053" not in ev.to_json()  # no records
    assert ev.to_json(indent=None).count("\n") == 0
    assert "achieved_k=4" in repr(ev)


def test_population_table_and_size() -> None:
    original, release, hs = hospital()
    sample = [0, 5, 7, 8, 9, 10, 11, 12]
    ev = evaluate(
        original.iloc[sample], release.iloc[sample], quasi_identifiers=QI, hierarchies=hs,
        population=original,
    )  # fmt: skip
    assert ev.risk["prosecutor_max"] == 1.0
    assert ev.risk["journalist_max"] == 0.25
    assert ev.risk["marketer"] == pytest.approx((1 / 4 + 2 / 4 + 5 / 5) / 8)
    assert ev.population_size == 13
    # counted in the table (every released group matches 4 or 5 of its records); this
    # asserted 0 < share, which only Pitman's overestimate from the sample's one unique met
    assert ev.risk["population_uniqueness"] == 0.0
    assert ev.uniqueness_method == "population table"
    assert ev.risk_distribution["(20%, 50%]"] == 3
    ev2 = evaluate(
        original, release, quasi_identifiers=QI, hierarchies=hs, population_size=1000,
        population_model="zayatz",
    )  # fmt: skip
    assert ev2.risk["population_uniqueness"] == 0.0  # no sample uniques
    with pytest.raises(ParameterError, match="population_size"):
        evaluate(original, release, quasi_identifiers=QI, hierarchies=hs, population_size=5)


def test_full_domain_release_of_adult(adult_frame: pl.DataFrame, adult_hierarchies) -> None:
    qi = list(adult_hierarchies)
    res = anonkit.anonymize(
        adult_frame, quasi_identifiers=qi, hierarchies=adult_hierarchies, k=10,
        suppression_limit=0.02,
        others="keep",
    )  # fmt: skip
    ev = evaluate(
        adult_frame, res.release, quasi_identifiers=qi, hierarchies=adult_hierarchies, k=10,
        class_attribute="salary-class", population_size=300_000,
    )  # fmt: skip
    assert ev.classes == res.classes
    assert ev.n_suppressed == res.suppressed
    assert ev.risk["prosecutor_max"] == pytest.approx(1 / res.classes.min_size)
    for name in ("height", "precision", "loss", "discernibility", "nonuniform_entropy"):
        assert ev.loss[name] == pytest.approx(res.metrics[name], rel=1e-9)
    for name in ("loss", "ncp", "precision", "classification"):
        assert 0 <= ev.loss[name] <= 1
    assert ev.risk["population_uniqueness"] == 0.0
    assert json.loads(ev.to_json())["classes"]["min_size"] == res.classes.min_size


def test_local_recoding_with_ranges(adult_frame: pl.DataFrame, adult_hierarchies) -> None:
    # A Mondrian-like release: age as the [min-max] range of each full-domain class
    qi = ["age", "sex", "race"]
    res = anonkit.anonymize(
        adult_frame, quasi_identifiers=qi,
        hierarchies={c: adult_hierarchies[c] for c in qi}, k=20,
        others="keep",
    )  # fmt: skip
    key = res.release.select(pl.concat_str(qi, separator="|")).to_series()
    ages = adult_frame["age"].cast(pl.Int64)
    frame = pl.DataFrame({"key": key, "age": ages})
    bounds = frame.group_by("key").agg(
        pl.col("age").min().alias("lo"), pl.col("age").max().alias("hi")
    )
    ranged = frame.join(bounds, on="key", how="left", maintain_order="left")
    labels = ranged.select(pl.format("[{}-{}]", "lo", "hi").alias("age")).to_series()
    release = res.release.with_columns(labels)
    ev = evaluate(adult_frame, release, quasi_identifiers=qi,
                  hierarchies={c: adult_hierarchies[c] for c in qi}, k=20)  # fmt: skip
    full = evaluate(adult_frame, res.release, quasi_identifiers=qi,
                    hierarchies={c: adult_hierarchies[c] for c in qi}, k=20)  # fmt: skip
    assert ev.attributes["age"]["untruthful_cells"] == 0
    assert ev.loss["loss"] <= full.loss["loss"] + 1e-12  # tighter ranges lose less
    assert ev.classes.min_size >= 1
    # read as a numeric attribute instead of through the hierarchy
    ev_num = evaluate(adult_frame, release, quasi_identifiers=qi, numeric=["age"],
                      hierarchies={c: adult_hierarchies[c] for c in ("sex", "race")})  # fmt: skip
    assert 0 <= ev_num.loss["il"] <= 100 and ev_num.loss["sse"] >= 0


def test_microaggregated_numbers_and_notes() -> None:
    original = pl.DataFrame({"a": [1.0, 2.0, 3.0, 10.0, 11.0, 12.0], "g": ["x"] * 6})
    release = pl.DataFrame({"a": [2.0, 2.0, 2.0, 11.0, 11.0, 11.0], "g": ["x"] * 6})
    ev = evaluate(original, release, quasi_identifiers=["a", "g"], numeric=["a"], k=3)
    assert ev.classes.min_size == 3
    assert 0 < ev.loss["il"] < 100
    assert ev.loss["kl_divergence"] == math.inf
    d = json.loads(ev.to_json())
    kl = next(m for m in d["loss"] if m["name"] == "kl_divergence")
    assert kl["value"] is None
    assert any("perturbative" in n for n in d["notes"])
    assert any("a (4)" in n for n in d["notes"])  # 2 and 11 are original values


def test_hierarchy_specs_paths_and_builders(adult_frame: pl.DataFrame, adult_hierarchies) -> None:
    small = adult_frame.head(200)
    release = small.with_columns(pl.lit("*").alias("sex"))
    ev = evaluate(small, release, quasi_identifiers=["sex", "age"],
                  hierarchies={"sex": str(adult_hierarchies["sex"]),
                               "age": {"type": "intervals", "widths": [10]}})  # fmt: skip
    assert ev.attributes["sex"]["suppressed_cells"] == 200
    assert ev.attributes["age"]["generalized_loss"] == 0.0
    # without a hierarchy a quasi-identifier is kept or suppressed
    ev2 = evaluate(small, release, quasi_identifiers=["sex"])
    assert ev2.n_suppressed == 200 and ev2.risk["prosecutor_max"] == 0.0
    assert ev2.loss["loss"] == 1.0


def test_parameters_are_validated() -> None:
    original, release, hs = hospital()
    ok = {"quasi_identifiers": QI, "hierarchies": hs}
    bad: list[tuple[dict[str, object], type[Exception]]] = [
        ({"k": 0}, ParameterError),
        ({"k": True}, ParameterError),
        ({"risk_threshold": 2.0}, ParameterError),
        ({"population_model": "snb"}, ParameterError),
        ({"population_size": 1.5}, ParameterError),
        ({"quasi_identifiers": []}, ParameterError),
        ({"quasi_identifiers": [1]}, ParameterError),
        ({"numeric": ["Disease"]}, ParameterError),
        ({"hierarchies": {**hs, "Age": hs["Zip"]}, "numeric": ["Age"]}, ParameterError),
        ({"sensitive": ["nope"]}, UnknownColumnError),
        ({"class_attribute": "nope"}, UnknownColumnError),
        ({"weights": {"nope": 1.0}}, ParameterError),
    ]
    for extra, exc in bad:
        with pytest.raises(exc):
            evaluate(original, release, **{**ok, **extra})  # type: ignore[arg-type]
    with pytest.raises(DataError):
        evaluate(original, release.head(5), **ok)  # type: ignore[arg-type]
    with pytest.raises(ValuesNotInHierarchyError):
        evaluate(original, release.assign(Zip="99x"), **ok)  # type: ignore[arg-type]


def test_timing_and_numbers_are_plain(tmp_path: Path) -> None:
    original, release, hs = hospital()
    ev = evaluate(original, release, quasi_identifiers=QI, hierarchies=hs)
    assert set(ev.timing) == {"read", "loss", "risk", "total"}
    d = ev.to_dict()
    for value in d["timing_seconds"].values():
        assert isinstance(value, float)
    for a in d["attributes"]:
        assert all(not isinstance(v, np.generic) for v in a.values())
    (tmp_path / "e.json").write_text(ev.to_json())
    assert json.loads((tmp_path / "e.json").read_text())["configuration"]["k"] is None


# ------------------------------------------------------ labels that cover their values
def test_labels_shuffled_between_rows_are_refused() -> None:
    """A release whose rows were reordered was measured as if it were a release of its
    original (a wrong utility figure for a table that generalizes nothing)."""
    original, release, hs = hospital()
    shuffled = release.iloc[::-1].reset_index(drop=True)  # the same labels, other rows
    with pytest.raises(UncoveredValueError) as caught:
        evaluate(original, shuffled, quasi_identifiers=QI, hierarchies=hs)
    err = caught.value
    assert isinstance(err, DataError)
    # data row 1 (13053, 28) got the last row's labels: '130**' covers it, '[30,40)' not
    assert (err.column, err.row, err.label) == ("Age", 1, "[30,40)")
    assert err.counts == {"Zip": 2, "Age": 10}
    message = str(err)
    assert "'Age'" in message and "row 1" in message and "'[30,40)'" in message
    assert "28" not in message and "13053" not in message  # never an original value


def test_one_label_that_does_not_cover_its_value_is_refused() -> None:
    original, release, hs = hospital()
    wrong = release.copy()
    wrong.loc[2, "Zip"] = "1485*"  # data row 3 holds 13068
    with pytest.raises(UncoveredValueError) as caught:
        evaluate(original, wrong, quasi_identifiers=QI, hierarchies=hs)
    assert (caught.value.column, caught.value.row, caught.value.label) == ("Zip", 3, "1485*")
    assert caught.value.counts == {"Zip": 1}
    assert "13068" not in str(caught.value)


def test_a_numeric_range_must_hold_its_value_an_aggregate_need_not() -> None:
    original = pl.DataFrame({"a": [1.0, 2.0, 3.0, 10.0, 11.0, 12.0], "g": ["x"] * 6})
    ranges = ["[1-3]", "[1-3]", "[1-3]", "[10-12]", "[1-3]", "[10-12]"]
    release = pl.DataFrame({"a": ranges, "g": ["x"] * 6})
    with pytest.raises(UncoveredValueError) as caught:
        evaluate(original, release, quasi_identifiers=["a", "g"], numeric=["a"])
    assert (caught.value.column, caught.value.row, caught.value.label) == ("a", 5, "[1-3]")
    assert "11" not in str(caught.value)
    # open bounds count: 3 is not in [1-3[
    release = release.with_columns(pl.Series("a", [*["[1-3["] * 3, "[10-12]", "[10-12]", "*"]))
    with pytest.raises(UncoveredValueError, match=r"row 3\b"):
        evaluate(original, release, quasi_identifiers=["a", "g"], numeric=["a"])
    # exact numbers are read as aggregates (microaggregation): measured, with a note
    means = pl.DataFrame({"a": [2.0, 2.0, 2.0, 11.0, 11.0, 11.0], "g": ["x"] * 6})
    ev = evaluate(original, means, quasi_identifiers=["a", "g"], numeric=["a"])
    assert ev.attributes["a"]["untruthful_cells"] == 4


def test_ranges_read_through_a_hierarchy_must_hold_their_value() -> None:
    h = Hierarchy([[str(a), "<50" if a < 50 else ">=50", "*"] for a in range(100)], name="age")
    original = pl.DataFrame({"age": ["20", "30", "60", "70"]})
    ok = pl.DataFrame({"age": ["[20-30]", "[20-30]", ">=50", "*"]})
    assert evaluate(original, ok, quasi_identifiers=["age"], hierarchies={"age": h}).n_records == 4
    bad = pl.DataFrame({"age": ["[20-30]", "[20-30]", "[70-80]", "<50"]})
    with pytest.raises(UncoveredValueError) as caught:
        evaluate(original, bad, quasi_identifiers=["age"], hierarchies={"age": h})
    assert (caught.value.row, caught.value.label, caught.value.counts) == (3, "[70-80]", {"age": 2})


def test_a_decimal_column_on_a_hierarchy_is_measured_as_its_integers_are() -> None:
    """evaluate() stopped on polars' "cannot cast 'Object' type" for Decimal columns."""
    import anonkit

    ints = pl.DataFrame({"age": [21, 22, 35, 36, 47, 48]})
    decimals = ints.with_columns(pl.col("age").cast(pl.Decimal(10, 2)))
    h = {"age": {"type": "intervals", "widths": [10, 20]}}
    release = anonkit.anonymize(decimals, quasi_identifiers=["age"], hierarchies=h, k=2).release
    got = evaluate(decimals, release, quasi_identifiers=["age"], hierarchies=h)
    want = evaluate(ints, release, quasi_identifiers=["age"], hierarchies=h)
    assert got.loss["ncp"] == want.loss["ncp"] and got.loss["loss"] == want.loss["loss"]


@pytest.mark.parametrize("wrong", ["original", "release", "population"])
def test_a_table_that_is_not_a_frame_is_named_as_evaluate_s(wrong: str) -> None:
    """A path or a list where evaluate() takes a frame names evaluate's own parameter (it
    named "the 'frame' parameter of anonymize")."""
    original, release, hs = hospital()
    tables = {"original": original, "release": release, "population": original}
    tables[wrong] = "population.csv" if wrong == "population" else [["13053"]]
    with pytest.raises(ParameterError, match=f"'{wrong}' parameter of evaluate") as err:
        evaluate(
            tables["original"], tables["release"], quasi_identifiers=QI, hierarchies=hs,
            population=tables["population"],
        )  # fmt: skip
    assert "anonymize" not in str(err.value) and "13053" not in str(err.value)


def test_a_population_table_smaller_than_the_release_is_refused_as_such() -> None:
    """A population table with fewer records than the release cannot hold its sample: a
    DataError that names the table (it blamed a 'population_size' nobody gave)."""
    original, release, hs = hospital()
    with pytest.raises(DataError, match="population table holds 5 records") as err:
        evaluate(original, release, quasi_identifiers=QI, hierarchies=hs, population=original[:5])
    assert "population_size" not in str(err.value) and "13053" not in str(err.value)
    with pytest.raises(ParameterError, match="population_size"):  # a size given is its own
        evaluate(
            original, release, quasi_identifiers=QI, hierarchies=hs, population=original,
            population_size=12,
        )  # fmt: skip


def test_a_population_with_values_the_sample_lacks_and_no_hierarchy() -> None:
    """Without hierarchies the values of a quasi-identifier are read as they are; the
    population's own values (ones the sample lacks) match no exact label and are covered
    by '*' (evaluate refused them as values "not in the hierarchy"). Figures by hand."""
    sample = pd.DataFrame({"zip": ["a", "a", "b", "b", "b"], "sex": ["F", "F", "M", "M", "M"]})
    extra = pd.DataFrame({"zip": ["a", "b", "c", "d", "c"], "sex": ["F", "M", "F", "M", "F"]})
    population = pd.concat([sample, extra], ignore_index=True)
    ev = evaluate(sample, sample, quasi_identifiers=["zip", "sex"], population=population)
    # F(a, F) = 3, F(b, M) = 4
    assert ev.risk["journalist_max"] == pytest.approx(1 / 3)
    assert ev.risk["journalist_average"] == pytest.approx((2 / 3 + 3 / 4) / 5)
    starred = sample.assign(zip="*")
    ev = evaluate(sample, starred, quasi_identifiers=["zip", "sex"], population=population)
    # F(*, F) = 3 + 2 = 5, F(*, M) = 4 + 1 = 5
    assert ev.risk["journalist_max"] == pytest.approx(1 / 5)
    assert ev.risk["journalist_average"] == pytest.approx(1 / 5)
    assert ev.population_size == 10 and not ev.notes


def test_missing_values_of_the_population_are_named_as_its() -> None:
    sample = pd.DataFrame({"zip": ["a", "a", "b", "b"], "sex": ["F", "F", "M", "M"]})
    population = pd.concat([sample, pd.DataFrame({"zip": [None], "sex": ["F"]})])
    with pytest.raises(DataError, match="'zip' of the population table has 1 missing"):
        evaluate(sample, sample, quasi_identifiers=["zip", "sex"], population=population)


def test_missing_sensitive_values_are_refused_not_counted_as_a_value() -> None:
    """A class holding 'x' and two missing values was measured distinct 2-diverse: the
    missing values were counted as one more value (verify_release and check refuse)."""
    release = pl.DataFrame(
        {"q": ["a", "a", "a", "b", "b", "b"], "s": ["x", None, None, "x", "y", "z"]}
    )
    with pytest.raises(MissingValuesError, match="'s' has 2 missing"):
        evaluate(
            release, release, quasi_identifiers=["q"], hierarchies={"q": [["a", "*"], ["b", "*"]]},
            sensitive=["s"],
        )  # fmt: skip


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ({"x": 0}, "positive sum"),
        ({"y": 1}, "keyed by quasi-identifiers"),
        ({"x": -1}, r"weights\['x'\]"),
        ([1], "a mapping"),
    ],
)
def test_ncp_weights_are_checked_before_measuring(weights: object, message: str) -> None:
    """Every weight 0 made NCP 0/0, reported as 0.0, the figure of an untouched table,
    for a release at '*' everywhere (the search refuses the same weights)."""
    h = Hierarchy([["a", "*"], ["b", "*"]], name="x")
    original = pl.DataFrame({"x": ["a", "b", "a", "b"]})
    with pytest.raises(ParameterError, match=message):
        evaluate(
            original,
            pl.DataFrame({"x": ["*"] * 4}),
            quasi_identifiers=["x"],
            hierarchies={"x": h},
            weights=weights,  # type: ignore[arg-type]
        )


def test_a_level_hint_beyond_the_hierarchy_is_refused_by_evaluate() -> None:
    """levels={'x': 99} was accepted where the hierarchy has 2 levels (and -1 refused
    naming interpret_release, which the caller never called)."""
    h = Hierarchy([["a", "*"], ["b", "*"]], name="x")
    frame = pl.DataFrame({"x": ["a", "b", "a", "b"]})
    for level in (99, -1):
        with pytest.raises(ParameterError, match=r"'levels\['x'\]' parameter of evaluate"):
            evaluate(
                frame, frame, quasi_identifiers=["x"], hierarchies={"x": h}, levels={"x": level}
            )


# ------------------------------------------------- population uniqueness and its table
FIVE = pl.DataFrame({"zip": ["a", "b", "c", "d", "d"]})
FIVE_H = {"zip": [["a", "*"], ["b", "*"], ["c", "*"], ["d", "*"], ["e", "*"]]}


def _uniqueness_figure(ev: Evaluation) -> dict[str, object]:
    return next(r for r in ev.to_dict()["risk"] if r["name"] == "population_uniqueness")


@pytest.mark.parametrize("model", ["pitman", "zayatz"])
def test_population_uniqueness_is_counted_in_a_population_table(model: str) -> None:
    """With the population table given (the release's own five records), Pitman's estimate
    said 1.0, with no note: 3 of the 5 population records are unique, and at most 3 can
    be. The table's counts say it exactly, and the figures say they were counted."""
    ev = evaluate(FIVE, FIVE, quasi_identifiers=["zip"], hierarchies=FIVE_H, population=FIVE,
                  population_model=model)  # fmt: skip
    assert ev.risk["population_uniqueness"] == 0.6
    assert ev.uniqueness_method == "population table"
    config = ev.to_dict()["configuration"]
    assert config["population_model"] == model  # the key and its meaning are kept
    assert config["uniqueness_method"] == "population table"
    figure = _uniqueness_figure(ev)
    assert "population table" in str(figure["title"]) and "estimate" not in str(figure["title"])
    assert "counted" in str(figure["explanation"])
    # a population larger than the sample: F(a) = 2, F(b) = F(c) = 1, F(d) = 3
    population = pl.concat([FIVE, pl.DataFrame({"zip": ["a", "d", "e"]})])
    ev = evaluate(FIVE, FIVE, quasi_identifiers=["zip"], hierarchies=FIVE_H,
                  population=population, population_model=model)  # fmt: skip
    assert ev.risk["population_uniqueness"] == 2 / 8


def test_population_uniqueness_is_estimated_and_said_so_without_a_table() -> None:
    original, release, hs = hospital()
    ev = evaluate(original, release, quasi_identifiers=QI, hierarchies=hs, population_size=100,
                  population_model="zayatz")  # fmt: skip
    assert ev.uniqueness_method == "zayatz"
    assert ev.to_dict()["configuration"]["uniqueness_method"] == "zayatz"
    assert "estimate" in str(_uniqueness_figure(ev)["title"])
    assert "Zayatz" in str(_uniqueness_figure(ev)["explanation"])
    ev = evaluate(original, release, quasi_identifiers=QI, hierarchies=hs)
    assert ev.uniqueness_method is None and math.isnan(ev.risk["population_uniqueness"])


def test_a_population_size_beyond_the_table_is_estimated_with_a_note() -> None:
    """The table is then part of the population: its counts are not the population's."""
    original, release, hs = hospital()
    sample = [0, 5, 7, 8, 9, 10, 11, 12]
    ev = evaluate(
        original.iloc[sample], release.iloc[sample], quasi_identifiers=QI, hierarchies=hs,
        population=original, population_size=1000,
    )  # fmt: skip
    assert ev.uniqueness_method == "pitman" and ev.population_size == 1000
    assert ev.risk["population_uniqueness"] == pytest.approx(
        population_uniqueness_risk([1, 2, 5], population_size=1000)
    )
    assert any("13 records" in n and "1,000" in n for n in ev.notes), ev.notes


def test_a_population_size_below_the_population_tables_records_is_refused() -> None:
    """population_size=10 with a population table of 13 records was taken silently."""
    original, release, hs = hospital()
    sample = [0, 5, 7, 8, 9, 10, 11, 12]
    with pytest.raises(ParameterError, match="population_size") as err:
        evaluate(
            original.iloc[sample], release.iloc[sample], quasi_identifiers=QI,
            hierarchies=hs, population=original, population_size=10,
        )  # fmt: skip
    assert "population table (13)" in str(err.value) and "Got 10" in str(err.value)


def test_a_population_value_outside_the_hierarchy_is_named_as_the_tables() -> None:
    """It was reported as a value "of the data", which holds no such value."""
    sample = pl.DataFrame({"age": ["20", "21", "20", "21"]})
    release = pl.DataFrame({"age": ["2x", "2x", "2x", "2x"]})
    population = pl.DataFrame({"age": ["20", "21", "20", "21", "75"]})
    hs = {"age": [["20", "2x", "*"], ["21", "2x", "*"]]}
    with pytest.raises(ValuesNotInHierarchyError, match="of the population table") as err:
        evaluate(sample, release, quasi_identifiers=["age"], hierarchies=hs, population=population)
    assert "of the data" not in str(err.value) and "'75'" in str(err.value)


# ------------------------------------------------- suppression limit, progress, ranges
AGES = pl.DataFrame({"age": [21, 23, 35, 38], "sex": ["m", "f", "m", "f"]})
AGES_RELEASE = pl.DataFrame({"age": ["*", "*", "[30-40[", "[30-40["], "sex": ["*"] * 4})


def _ages(**keywords: Any) -> Any:
    """:func:`evaluate` of ``AGES_RELEASE`` (age numeric) with ``keywords``."""
    return evaluate(
        AGES, AGES_RELEASE, quasi_identifiers=["age", "sex"], numeric=["age"], **keywords
    )


@pytest.mark.parametrize("limit", [5, -1, "0.5", True, math.nan, 1.5])
def test_a_suppression_limit_that_is_no_share_is_refused(limit: object) -> None:
    """5 and -1 were accepted (and changed n_suppressed), '0.5' raised a raw TypeError."""
    with pytest.raises(
        ParameterError,
        match=r"The 'suppression_limit' parameter of evaluate must be a share between 0 and 1",
    ):
        _ages(suppression_limit=limit)


@pytest.mark.parametrize("limit", [None, 0, 0.5, 1])
def test_a_suppression_limit_that_is_a_share_is_taken(limit: float | None) -> None:
    ev = _ages(suppression_limit=limit)
    assert ev.n_suppressed == (0 if limit == 0 else 2)


def test_a_progress_that_cannot_be_called_is_refused() -> None:
    """progress=5 was accepted silently (the estimators refuse it)."""
    with pytest.raises(ParameterError, match="The 'progress' parameter of evaluate must be"):
        evaluate(AGES, AGES_RELEASE, quasi_identifiers=["age", "sex"], progress=5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("ranges", "message"),
    [
        (
            {"age": ("a", "b")},
            r"'value_ranges\['age'\]' parameter of evaluate must be a \(min, max\)",
        ),
        ({"age": 5}, r"'value_ranges\['age'\]' parameter of evaluate must be a \(min, max\)"),
        ({"age": (0, 1, 2)}, r"'value_ranges\['age'\]' parameter of evaluate"),
        ({"age": (0, math.nan)}, r"'value_ranges\['age'\]' parameter of evaluate"),
        ({"age": (True, 5)}, r"'value_ranges\['age'\]' parameter of evaluate"),
        ({"age": (50, 10)}, r"'value_ranges\['age'\]' parameter of evaluate.*min <= max"),
        ([("age", 0, 1)], "'value_ranges' parameter of evaluate must be a mapping"),
        ({"nope": (0, 1)}, "'value_ranges' parameter of evaluate must be keyed by numeric"),
        ({"sex": (0, 1)}, "'value_ranges' parameter of evaluate must be keyed by numeric"),
    ],
)
def test_badly_shaped_value_ranges_are_refused_naming_evaluate(
    ranges: object, message: str
) -> None:
    """They raised raw ValueError/TypeError, or named interpret_release (internal)."""
    with pytest.raises(ParameterError, match=message):
        _ages(value_ranges=ranges)


def test_value_ranges_that_are_pairs_are_taken() -> None:
    ev = evaluate(
        AGES, AGES_RELEASE, quasi_identifiers=["age", "sex"], numeric=["age"],
        value_ranges={"age": np.array([0, 100])},
    )  # fmt: skip
    assert ev.attributes["age"]["generalized_loss"] >= 0
