"""Recoding held-out records like the train release: full-domain, local, microaggregation."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import DataError, UnknownColumnError, ValuesNotInHierarchyError
from anonkit.study.ml import UtilitySetup
from anonkit.study.recode import recode_test

H = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]], name="x")
S = Hierarchy([["m", "*"], ["f", "*"]], name="s")
AGE = Hierarchy(
    [[str(v), f"{v // 10 * 10}-{v // 10 * 10 + 9}", "*"] for v in range(20, 40)], name="age"
)


def _setup(qi: tuple[str, ...], hierarchies: dict[str, Hierarchy], **kw: object) -> UtilitySetup:
    return UtilitySetup(target="y", quasi_identifiers=qi, hierarchies=hierarchies, **kw)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- full domain
@settings(max_examples=30, deadline=None)
@given(
    st.integers(0, 2),
    st.integers(0, 1),
    st.integers(0, 2),
    st.lists(
        st.tuples(st.sampled_from("abcd"), st.sampled_from("mf"), st.integers(20, 39)),
        min_size=1,
        max_size=20,
    ),
)
def test_full_domain_applies_the_levels(
    lx: int, ls: int, la: int, rows: list[tuple[str, str, int]]
) -> None:
    setup = _setup(("x", "s", "age"), {"x": H, "s": S, "age": AGE})
    train = pl.DataFrame({"x": ["a", "c"], "s": ["m", "f"], "age": [20, 30]})
    test = pl.DataFrame(
        {
            "x": [r[0] for r in rows],
            "s": [r[1] for r in rows],
            "age": [r[2] for r in rows],
            "y": list(range(len(rows))),
        }
    )
    levels = {"x": lx, "s": ls, "age": la}
    release = train.with_columns(
        pl.Series("x", [H.generalize(v, lx) for v in train["x"]]),
        pl.Series("s", [S.generalize(v, ls) for v in train["s"]]),
        pl.Series("age", [AGE.generalize(str(v), la) for v in train["age"]]),
    )
    out = recode_test(setup, train, release, test, transformation=levels)
    assert out.uncovered_share == 0.0
    assert out.method == ("identity" if lx == ls == la == 0 else "full_domain")
    assert out.frame["x"].to_list() == [H.generalize(v, lx) for v in test["x"]]
    assert out.frame["s"].to_list() == [S.generalize(v, ls) for v in test["s"]]
    if la:
        assert out.frame["age"].to_list() == [AGE.generalize(str(v), la) for v in test["age"]]
    else:
        assert out.frame["age"].to_list() == test["age"].to_list()
    assert out.frame["y"].to_list() == test["y"].to_list()  # other columns untouched
    # the same levels are found from the release alone
    inferred = recode_test(setup, train, release, test)
    assert inferred.frame.equals(out.frame)


def test_full_domain_numeric_without_hierarchy_is_kept_or_suppressed() -> None:
    setup = _setup(("x", "n"), {"x": H}, numeric=("n",))
    train = pl.DataFrame({"x": ["a", "c"], "n": [1.5, 2.5]})
    test = pl.DataFrame({"x": ["b", "d"], "n": [3.5, 4.5]})
    out = recode_test(setup, train, train, test, transformation={"x": 1, "n": 1})
    assert out.frame["x"].to_list() == ["ab", "cd"]
    assert out.frame["n"].to_list() == ["*", "*"]
    assert out.levels == {"x": 1}


def test_full_domain_rejects_values_outside_the_hierarchy() -> None:
    setup = _setup(("x",), {"x": H})
    train = pl.DataFrame({"x": ["a"]})
    with pytest.raises(ValuesNotInHierarchyError):
        recode_test(setup, train, train, pl.DataFrame({"x": ["zz"]}), transformation={"x": 1})


# ---------------------------------------------------------------------------- local
def _local_tables() -> tuple[UtilitySetup, pl.DataFrame, pl.DataFrame]:
    """Four classes: A (ab, [20-30]) x2, B (a, [20-25]) x2, C (*, [20-30]) x3,
    D (cd, [40-50]) x2."""
    setup = _setup(("x", "n"), {"x": H}, numeric=("n",))
    train = pl.DataFrame(
        {
            "x": ["a", "b", "a", "a", "c", "d", "a", "c", "d"],
            "n": [26, 28, 21, 24, 20, 29, 30, 40, 50],
        }
    )
    release = pl.DataFrame(
        {
            "x": ["ab", "ab", "a", "a", "*", "*", "*", "cd", "cd"],
            "n": ["[20-30]"] * 2 + ["[20-25]"] * 2 + ["[20-30]"] * 3 + ["[40-50]"] * 2,
        }
    )
    return setup, train, release


def test_local_takes_the_most_specific_covering_class() -> None:
    setup, train, release = _local_tables()
    test = pl.DataFrame({"x": ["a", "b", "c"], "n": [22, 27, 22]})
    out = recode_test(setup, train, release, test, algorithm="mondrian")
    assert out.method == "local" and out.uncovered_share == 0.0
    # (a, 22): A, B and C contain it; B covers 1 leaf x 3 train values -> B
    # (b, 27): A (2 x 7) beats C (4 x 7); (c, 22): only C
    assert out.frame.rows() == [("a", "[20-25]"), ("ab", "[20-30]"), ("*", "[20-30]")]


def test_local_uncovered_records_take_the_nearest_class() -> None:
    setup, train, release = _local_tables()
    test = pl.DataFrame({"x": ["d", "d", "a"], "n": [35, 37, 22]})
    out = recode_test(setup, train, release, test, algorithm="greedy_merge")
    # (d, 35): C and D each miss n by 5 over a width of 30 -> tie -> C, the larger
    # (d, 37): D misses n by 3, C by 7 -> D
    assert out.frame.rows() == [("*", "[20-30]"), ("cd", "[40-50]"), ("a", "[20-25]")]
    assert out.uncovered_share == pytest.approx(2 / 3)


def test_local_ties_go_to_the_larger_class() -> None:
    setup = _setup(("x", "s"), {"x": H, "s": S})
    train = pl.DataFrame({"x": ["a", "b", "c", "d", "a"], "s": ["m", "f", "m", "m", "m"]})
    # (ab, *) covers 2 x 2 = 4 values with 2 records; (*, m) covers 4 x 1 with 3 records
    release = pl.DataFrame({"x": ["ab", "ab", "*", "*", "*"], "s": ["*", "*", "m", "m", "m"]})
    out = recode_test(
        setup, train, release, pl.DataFrame({"x": ["a"], "s": ["m"]}), algorithm="mondrian"
    )
    assert out.frame.rows() == [("*", "m")]


def test_local_nearest_class_counts_misses_then_hierarchy_extension() -> None:
    setup = _setup(("x", "s"), {"x": H, "s": S})
    train = pl.DataFrame({"x": ["a", "a", "c", "c", "c", "c"], "s": ["m", "m", "m", "m", "f", "f"]})
    release = train  # classes (a, m), (c, m) and (c, f), two records each
    test = pl.DataFrame({"x": ["b", "b", "d"], "s": ["f", "m", "m"]})
    out = recode_test(setup, train, release, test, algorithm="greedy_merge")
    # (b, f): (c, f) misses x only, the others x and s -> (c, f).
    # (b, m): (a, m) and (c, m) miss x only; 'a' grows to 'ab' (+1 leaf), 'c' to the root
    # (+3 leaves) -> (a, m). (d, m): 'c' grows to 'cd' (+1), 'a' to the root -> (c, m).
    assert out.frame.rows() == [("c", "f"), ("a", "m"), ("c", "m")]
    assert out.uncovered_share == 1.0


def test_local_suppressed_class_contains_everything() -> None:
    setup = _setup(("x",), {"x": H})
    train = pl.DataFrame({"x": ["a", "b", "c"]})
    release = pl.DataFrame({"x": ["ab", "ab", "*"]})
    out = recode_test(setup, train, release, pl.DataFrame({"x": ["d", "a"]}), algorithm="mondrian")
    assert out.frame["x"].to_list() == ["*", "ab"] and out.uncovered_share == 0.0


# ---------------------------------------------------------------------- microaggregation
def test_microaggregation_nearest_group_standardized() -> None:
    setup = _setup(("x", "a", "b"), {"x": H}, numeric=("a", "b"))
    train = pl.DataFrame({"x": ["a", "b", "c", "d"], "a": [0, 0, 1, 1], "b": [0, 0, 100, 100]})
    release = train.with_columns(pl.col("a").cast(pl.Float64), pl.col("b").cast(pl.Float64))
    test = pl.DataFrame({"x": ["c"], "a": [0.9], "b": [40.0]})
    out = recode_test(setup, train, release, test, algorithm="microaggregation")
    # raw distance picks (0, 0); divided by the train std (0.5, 50) it is (1, 100)
    assert out.frame.rows() == [("c", 1.0, 100.0)]
    assert out.method == "microaggregation" and out.uncovered_share == 0.0


def test_microaggregation_ties_go_to_the_larger_group() -> None:
    setup = _setup(("n",), {}, numeric=("n",))
    train = pl.DataFrame({"n": [1, 2, 3, 10, 11, 11, 12]})
    release = pl.DataFrame({"n": [2.0] * 3 + [11.0] * 4})
    test = pl.DataFrame({"n": [6.5, 6.4, 100.0]})
    out = recode_test(setup, train, release, test)  # inferred: microaggregation
    assert out.method == "microaggregation"
    assert out.frame["n"].to_list() == [11.0, 2.0, 11.0]


# ---------------------------------------------------------------------------- inference
def test_inference_identity_and_local() -> None:
    setup, train, release = _local_tables()
    test = pl.DataFrame({"x": ["a"], "n": [22]})
    assert recode_test(setup, train, train, test).method == "identity"
    assert recode_test(setup, train, release, test).method == "local"


def test_bad_frames() -> None:
    setup, train, release = _local_tables()
    with pytest.raises(DataError):
        recode_test(setup, train, release.head(3), train)
    with pytest.raises(UnknownColumnError):
        recode_test(setup, train, release, train.drop("n"))


def test_full_domain_numeric_column_with_a_hierarchy_reads_as_ranges() -> None:
    from anonkit.study.features import FeatureEncoder

    setup = _setup(("age",), {"age": AGE}, numeric=("age",))
    train = pl.DataFrame({"age": [20, 25, 30, 39]})
    release = pl.DataFrame({"age": ["20-29", "20-29", "*", "*"]})  # 1 suppressed class
    test = pl.DataFrame({"age": [21, 35]})
    out = recode_test(setup, train, release, test, transformation={"age": 1})
    assert out.frame["age"].to_list() == ["20-29", "30-39"]
    enc, _ = FeatureEncoder.fit(setup, train, release, levels=out.levels)
    assert enc.feature_names == ("age:mid", "age:width")
    # midpoint and width in units of the train domain [20, 39]
    x = enc.transform(out.frame, test).onehot * 19
    assert x.ravel().tolist() == pytest.approx([4.5, 9.0, 14.5, 9.0])


def test_numeric_column_released_with_word_labels_is_read_through_its_hierarchy() -> None:
    from anonkit.study.features import FeatureEncoder

    words = Hierarchy(
        [[str(v), "young" if v < 30 else "old", "*"] for v in range(20, 40)], name="age"
    )
    setup = _setup(("age",), {"age": words}, numeric=("age",))
    train = pl.DataFrame({"age": [20, 25, 30, 39]})
    release = pl.DataFrame({"age": ["young", "young", "old", "old"]})
    test = pl.DataFrame({"age": [21, 35]})
    out = recode_test(setup, train, release, test)  # inferred: full-domain, level 1
    assert out.method == "full_domain" and dict(out.levels) == {"age": 1}
    assert out.frame["age"].to_list() == ["young", "old"]
    enc, f = FeatureEncoder.fit(setup, train, release, levels=out.levels)
    assert enc.feature_names == ("age@1=young", "age@1=old")
    assert enc.transform(out.frame, test).onehot.tolist() == [[1, 0], [0, 1]]
    assert enc.transform(test).onehot.tolist() == [[1, 0], [0, 1]]
