"""Tests of anonkit.metrics.release: reading releases as covered sets and classes."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import (
    DataError,
    EmptyDataError,
    MissingValuesError,
    ParameterError,
    UncoveredValueError,
    UnknownColumnError,
    ValuesNotInHierarchyError,
)
from anonkit.metrics.release import check_covered, interpret_release


# --------------------------------------------------------------------- toy: test2 data
@pytest.fixture(scope="module")
def toy2(toy_dir: Path) -> tuple[pl.DataFrame, dict[str, Hierarchy]]:
    frame = pl.read_csv(toy_dir / "test2.csv", separator=";", infer_schema=False)
    hs = {
        c: Hierarchy.from_csv(toy_dir / f"test2_hierarchy_{c}.csv", name=c)
        for c in ("ZIPCode", "Age")
    }
    return frame, hs


def test_hierarchy_labels_at_any_level(toy2: tuple[pl.DataFrame, dict[str, Hierarchy]]) -> None:
    frame, hs = toy2
    zips = frame["ZIPCode"].to_list()
    # local recoding: each record at its own level, one suppressed cell, one exact value
    released = ["4767*", "476**", "4767*", "479**", "47***", "479**", "*", "47673", "476**"]
    rel = frame.with_columns(pl.Series("ZIPCode", released))
    r = interpret_release(frame, rel, quasi_identifiers=["ZIPCode"], hierarchies=hs)
    col = r.column("ZIPCode")
    h = hs["ZIPCode"]
    for i, label in enumerate(released):
        li = col.cell[i]
        assert col.labels[li] == label
        # covered positions hold exactly the leaves under the label
        leaves = {h.leaves[x] for x in col.order[col.start[li] : col.stop[li]]}
        if label == "*":
            assert leaves == set(h.leaves) and col.level[li] == h.max_level
        else:
            lv = next(lv for lv in range(h.height) if label in h.labels(lv))
            assert col.level[li] == lv
            assert leaves == {x for x in h.leaves if h.generalize(x, lv) == label}
        assert zips[i] in leaves  # truthful
    assert col.truthful.all()
    # the one quasi-identifier of record 6 is "*": that record is suppressed
    assert r.class_sizes.sum() == frame.height and r.suppressed.tolist() == [
        i == 6 for i in range(9)
    ]


def test_ranges_over_numeric_leaves(toy2: tuple[pl.DataFrame, dict[str, Hierarchy]]) -> None:
    frame, hs = toy2
    released = ["[20-29]", "[20-29]", "[20-29]", ">=40", "[40-60[", ">=40", "30", "[30,40[", "*"]
    rel = frame.with_columns(pl.Series("Age", released))
    r = interpret_release(frame, rel, quasi_identifiers=["Age"], hierarchies=hs)
    col = r.column("Age")
    idx = {lab: i for i, lab in enumerate(col.labels)}
    # [20-29] covers 22, 27, 29: exactly the node [20,30[, so level 1
    assert col.covered[idx["[20-29]"]] == 3 and col.level[idx["[20-29]"]] == 1
    assert col.covered[idx["[40-60["]] == 3 and col.level[idx["[40-60["]] == 1
    assert col.level[idx["30"]] == 0 and col.covered[idx["30"]] == 1
    assert col.level[idx["[30,40["]] == 1  # a hierarchy label, read as the node
    assert col.level[idx["*"]] == 2 and col.covered[idx["*"]] == 9
    assert col.truthful.all()
    # a range spanning two level-1 nodes sits at the root
    rel2 = frame.with_columns(pl.Series("Age", ["[20-35]"] * 9))
    r2 = interpret_release(frame, rel2, quasi_identifiers=["Age"], hierarchies=hs)
    assert r2.columns[0].level.tolist() == [2]
    assert r2.columns[0].covered.tolist() == [5]
    assert r2.columns[0].truthful.sum() == 5


def test_range_covering_no_leaf_is_an_error(
    toy2: tuple[pl.DataFrame, dict[str, Hierarchy]],
) -> None:
    frame, hs = toy2
    rel = frame.with_columns(pl.Series("Age", ["[60-70]"] * 9))
    with pytest.raises(DataError, match="cover no value"):
        interpret_release(frame, rel, quasi_identifiers=["Age"], hierarchies=hs)


def test_unknown_labels_raise(toy2: tuple[pl.DataFrame, dict[str, Hierarchy]]) -> None:
    frame, hs = toy2
    rel = frame.with_columns(pl.Series("ZIPCode", ["47x"] * 8 + ["zz"]))
    with pytest.raises(ValuesNotInHierarchyError) as exc:
        interpret_release(frame, rel, quasi_identifiers=["ZIPCode"], hierarchies=hs)
    assert exc.value.missing == ["47x", "zz"] and exc.value.column == "ZIPCode"
    # a masked number is a range over numeric leaves; here it covers none of them
    rel = frame.with_columns(pl.Series("ZIPCode", ["9999*"] * 9))
    with pytest.raises(DataError, match="cover no value"):
        interpret_release(frame, rel, quasi_identifiers=["ZIPCode"], hierarchies=hs)


def test_leaf_ranges_over_ordered_categories() -> None:
    h = Hierarchy(
        [["S", "small", "*"], ["M", "small", "*"], ["L", "large", "*"], ["XL", "large", "*"]],
        name="size",
    )
    orig = pl.DataFrame({"size": ["S", "M", "L", "XL"]})
    rel = pl.DataFrame({"size": ["[S-M]", "[S-M]", "[L-XL]", "[L-XL]"]})
    r = interpret_release(orig, rel, quasi_identifiers=["size"], hierarchies={"size": h})
    col = r.columns[0]
    assert col.covered.tolist() == [2, 2] and col.level.tolist() == [1, 1]
    assert col.truthful.all()
    # a node that is not a run of the row order cannot be mixed with ranges
    h2 = Hierarchy(
        [["S", "g1", "*"], ["M", "g2", "*"], ["L", "g1", "*"], ["XL", "g2", "*"]], name="size"
    )
    rel2 = pl.DataFrame({"size": ["g1", "[M-L]", "[M-L]", "XL"]})
    with pytest.raises(DataError, match="not ranges"):
        interpret_release(orig, rel2, quasi_identifiers=["size"], hierarchies={"size": h2})


def test_ambiguous_labels_follow_the_hint_then_the_majority() -> None:
    # "c" is a leaf and its own parent: at level 0 and level 1
    h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name="x")
    orig = pl.DataFrame({"x": ["a", "b", "c"]})
    rel = pl.DataFrame({"x": ["ab", "ab", "c"]})
    r = interpret_release(orig, rel, quasi_identifiers=["x"], hierarchies={"x": h})
    assert r.columns[0].level.tolist() == [1, 1]  # like "ab"
    r0 = interpret_release(
        orig, pl.DataFrame({"x": ["a", "b", "c"]}), quasi_identifiers=["x"], hierarchies={"x": h}
    )
    assert r0.columns[0].level.tolist() == [0, 0, 0]
    r1 = interpret_release(
        pl.DataFrame({"x": ["c", "c", "c"]}),
        pl.DataFrame({"x": ["c", "c", "c"]}),
        quasi_identifiers=["x"],
        hierarchies={"x": Hierarchy([["c", "c", "*"]], name="x")},
        levels={"x": 1},
    )
    assert r1.columns[0].level.tolist() == [1]


def test_suppressed_records_and_classes() -> None:
    h = Hierarchy([["a", "*"], ["b", "*"]], name="x")
    orig = pl.DataFrame({"x": ["a", "b", "a", "b"], "y": [1, 2, 3, 4]})
    rel = pl.DataFrame({"x": ["a", "*", None, "*"], "y": ["[1-3]", "*", "*", None]})
    r = interpret_release(
        orig, rel, quasi_identifiers=["x", "y"], hierarchies={"x": h}, numeric=["y"]
    )
    assert r.suppressed.tolist() == [False, True, True, True]
    assert r.n_suppressed == 3 and r.n_released == 1
    assert sorted(r.class_sizes.tolist()) == [1, 3]
    assert r.kept_sizes.tolist() == [1]
    assert r.column("x").labels == ("a", "*")  # null read as "*"
    assert r.class_of[1] == r.class_of[2] == r.class_of[3] != r.class_of[0]


def test_numeric_columns() -> None:
    orig = pl.DataFrame({"v": ["1", "2", "3", "10"]})  # text numbers are fine
    rel = pl.DataFrame({"v": [2.0, 2.0, "[3-10]", "*"]}, strict=False)
    rel = pl.DataFrame({"v": ["2", "2", "[3-10]", "*"]})
    r = interpret_release(orig, rel, quasi_identifiers=["v"], hierarchies={}, numeric=["v"])
    col = r.columns[0]
    assert col.kind == "numeric" and col.value_range == (1.0, 10.0)
    assert col.labels == ("2", "[3-10]", "*")
    assert np.allclose(col.relative_width, [0.0, 7 / 9, 1.0])
    assert col.value[0] == 2.0 and math.isnan(col.value[1])
    assert col.covered.tolist() == [1, 2, 4]
    assert col.truthful.tolist() == [False, True, True, True]  # 1 released as 2 (a mean)
    r2 = interpret_release(
        orig,
        rel,
        quasi_identifiers=["v"],
        hierarchies={},
        numeric=["v"],
        value_ranges={"v": (0, 100)},
    )
    assert np.allclose(r2.columns[0].relative_width, [0.0, 0.07, 1.0])


def test_bad_inputs(toy2: tuple[pl.DataFrame, dict[str, Hierarchy]]) -> None:
    frame, hs = toy2
    with pytest.raises(DataError, match="rows are matched by position"):
        interpret_release(frame, frame.head(5), quasi_identifiers=["Age"], hierarchies=hs)
    with pytest.raises(UnknownColumnError):
        interpret_release(frame, frame.drop("Age"), quasi_identifiers=["Age"], hierarchies=hs)
    with pytest.raises(ParameterError, match="hierarchies"):
        interpret_release(frame, frame, quasi_identifiers=["Salary"], hierarchies=hs)
    with pytest.raises(ParameterError, match="numeric"):
        interpret_release(frame, frame, quasi_identifiers=["Age"], hierarchies=hs, numeric=["Age"])
    with pytest.raises(EmptyDataError):
        interpret_release(frame.head(0), frame.head(0), quasi_identifiers=["Age"], hierarchies=hs)
    nulls = frame.with_columns(pl.lit(None, dtype=pl.String).alias("Age"))
    with pytest.raises(MissingValuesError):
        interpret_release(nulls, frame, quasi_identifiers=["Age"], hierarchies=hs)
    with pytest.raises(DataError, match="not numbers"):
        interpret_release(
            frame.with_columns(pl.lit("x").alias("Salary")),
            frame,
            quasi_identifiers=["Salary"],
            hierarchies={},
            numeric=["Salary"],
        )
    with pytest.raises(DataError, match="neither numbers"):
        interpret_release(
            frame,
            frame.with_columns(pl.lit("high").alias("Salary")),
            quasi_identifiers=["Salary"],
            hierarchies={},
            numeric=["Salary"],
        )
    with pytest.raises(ParameterError, match="value_ranges"):
        interpret_release(
            frame, frame, quasi_identifiers=["Age"], hierarchies=hs, value_ranges={"Age": (0, 1)}
        )
    with pytest.raises(ParameterError, match="levels"):
        interpret_release(frame, frame, quasi_identifiers=["Age"], hierarchies=hs, levels={"x": 1})
    with pytest.raises(ParameterError, match="levels"):
        interpret_release(
            frame, frame, quasi_identifiers=["Age"], hierarchies=hs, levels={"Age": -1}
        )
    with pytest.raises(ParameterError, match="value_ranges"):
        interpret_release(
            frame,
            frame,
            quasi_identifiers=["Salary"],
            hierarchies={},
            numeric=["Salary"],
            value_ranges={"Salary": (5, 1)},
        )


@pytest.mark.parametrize("ranges", [{"v": ("a", "b")}, {"v": 5}, [("v", 0, 1)], {"v": (9, 1)}])
def test_badly_shaped_value_ranges_name_the_callers_function(ranges: object) -> None:
    """('a', 'b') and 5 raised raw ValueError/TypeError; the checks that existed named
    interpret_release whatever the caller had called."""
    frame = pl.DataFrame({"v": [1, 5, 9]})
    with pytest.raises(ParameterError, match="'value_ranges.*' parameter of evaluate"):
        interpret_release(
            frame, frame, quasi_identifiers=["v"], hierarchies={}, numeric=["v"],
            value_ranges=ranges, owner="evaluate",  # type: ignore[arg-type]
        )  # fmt: skip


def test_points_of_population_values(toy2: tuple[pl.DataFrame, dict[str, Hierarchy]]) -> None:
    frame, hs = toy2
    r = interpret_release(frame, frame, quasi_identifiers=["ZIPCode"], hierarchies=hs)
    col = r.columns[0]
    assert np.array_equal(col.points(frame["ZIPCode"]), col.own_points())
    with pytest.raises(ValuesNotInHierarchyError):
        col.points(pl.Series(["00000"]))


def test_a_label_at_two_levels_is_read_at_the_one_covering_the_original() -> None:
    """With A -> A, B -> A, C -> C, a release at level 1 was read at level 0 (loss 0,
    "untruthful cells", infinite entropy): the records of B released as 'A' show it is
    the parent."""
    from anonkit.evaluate import evaluate

    h = Hierarchy([["A", "A", "*"], ["B", "A", "*"], ["C", "C", "*"]], name="g")
    original = pl.DataFrame({"g": ["A", "B", "C", "C"] * 3})
    release = pl.DataFrame({"g": ["A", "A", "C", "C"] * 3})
    r = interpret_release(original, release, quasi_identifiers=["g"], hierarchies={"g": h})
    assert r.column("g").level.tolist() == [1, 1]
    ev = evaluate(original, release, quasi_identifiers=["g"], hierarchies={"g": h})
    assert ev.loss["height"] == pytest.approx(1.0)


def test_reading_leaves_coverage_to_a_separate_check(
    toy2: tuple[pl.DataFrame, dict[str, Hierarchy]],
) -> None:
    """interpret_release also reads rows that do not correspond one to one (population
    matching reads a release against a stand-in original), so it must not refuse a label
    that misses its row's value; check_covered, run where rows correspond, does."""
    frame, hs = toy2
    rel = frame.reverse()
    r = interpret_release(frame, rel, quasi_identifiers=["ZIPCode", "Age"], hierarchies=hs)
    assert r.n_records == frame.height  # read, not judged
    with pytest.raises(UncoveredValueError) as caught:
        check_covered(r)
    err = caught.value
    bad = [i for i in range(frame.height) if frame["ZIPCode"][i] != rel["ZIPCode"][i]]
    assert err.column == "ZIPCode" and err.row == bad[0] + 1
    assert err.label == rel["ZIPCode"][bad[0]]
    check_covered(interpret_release(frame, frame, quasi_identifiers=["Age"], hierarchies=hs))
