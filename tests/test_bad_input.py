"""One test per class of bad input to anonymize(): the error type and what it says."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest

from anonkit import (
    AnonkitError,
    EmptyDataError,
    Hierarchy,
    HierarchyError,
    KAnonymity,
    MissingValuesError,
    ParameterError,
    UnknownColumnError,
    UnknownNameError,
    ValuesNotInHierarchyError,
    anonymize,
)
from anonkit.algorithms.lattice import LATTICE_ALGORITHMS
from anonkit.metrics.generalization import METRICS

SEX = Hierarchy([["m", "*"], ["f", "*"]], name="sex")
AGE = Hierarchy([[str(a), "<40" if a < 40 else ">=40", "*"] for a in range(20, 60)], name="age")


def _frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "name": ["ann", "bob", "cid", "dee"],
            "sex": ["f", "m", "m", "f"],
            "age": ["25", "31", "45", "52"],
            "disease": ["flu", "flu", "cold", "cold"],
        }
    )


def _pandas(frame: pl.DataFrame) -> pd.DataFrame:
    # built by hand: polars' to_pandas() needs pyarrow, which anonkit does not require
    return pd.DataFrame({c: frame[c].to_list() for c in frame.columns})


def _run(frame=None, **kwargs):
    args = dict(quasi_identifiers=["sex", "age"], hierarchies={"sex": SEX, "age": AGE}, k=2)
    args.update(kwargs)
    return anonymize(_frame() if frame is None else frame, **args, others="keep")


def test_missing_values_in_a_quasi_identifier() -> None:
    frame = _frame().with_columns(pl.Series("age", ["25", None, "45", None]))
    for engine in ("polars", "numpy"):
        with pytest.raises(MissingValuesError) as exc:
            _run(frame, engine=engine)
        assert exc.value.column == "age" and exc.value.count == 2
        assert "'age'" in str(exc.value) and "2 missing" in str(exc.value)


def test_missing_values_from_pandas() -> None:
    frame = pd.DataFrame({"sex": ["f", None, "m", "f"], "age": ["25", "31", "45", "52"]})
    with pytest.raises(MissingValuesError) as exc:
        _run(frame)
    assert exc.value.column == "sex" and exc.value.count == 1


def test_values_not_in_hierarchy() -> None:
    ages = [str(a) for a in range(60, 75)] + ["25"]  # 15 unknown values
    frame = pl.DataFrame({"sex": ["f"] * 16, "age": ages})
    for engine in ("polars", "numpy"):
        with pytest.raises(ValuesNotInHierarchyError) as exc:
            _run(frame, engine=engine)
        err = exc.value
        assert isinstance(err, HierarchyError)
        assert err.column == "age" and err.count == 15
        assert err.missing[:10] == [str(a) for a in range(60, 70)]
        msg = str(err)
        assert "'age'" in msg and "15 value(s)" in msg
        for a in range(60, 70):
            assert repr(str(a)) in msg
        assert "'70'" not in msg and "..." in msg  # at most ten listed


def test_values_not_in_hierarchy_few() -> None:
    frame = pl.DataFrame({"sex": ["f", "x", "y", "x"], "age": ["25"] * 4})
    with pytest.raises(ValuesNotInHierarchyError) as exc:
        _run(frame)
    assert exc.value.count == 2 and exc.value.missing == ["x", "y"]
    assert "..." not in str(exc.value)


@pytest.mark.parametrize("engine", ["polars", "numpy", "streaming"])
def test_a_value_a_leaf_away_by_case_or_a_typo_is_suggested(engine: str) -> None:
    sex = Hierarchy([["Male", "*"], ["Female", "*"]], name="sex")
    frame = pl.DataFrame({"sex": ["male", "Femal", "q", "Male"], "age": ["25"] * 4})
    with pytest.raises(ValuesNotInHierarchyError) as exc:
        _run(frame, engine=engine, hierarchies={"sex": sex, "age": AGE})
    msg = str(exc.value)
    assert "'male' (did you mean 'Male'?)" in msg
    assert "'Femal' (did you mean 'Female'?)" in msg
    assert msg.endswith("'q'")  # nothing looks like it


def test_inconsistent_hierarchy(tmp_path: Path) -> None:
    p = tmp_path / "age.csv"
    p.write_text("25;young;*\n31;young;*\n45;old;ALL\n52;old;ALL\n")  # two roots
    with pytest.raises(HierarchyError, match="single root") as exc:
        _run(hierarchies={"sex": SEX, "age": p})
    assert exc.value.column == "age"
    p.write_text("25;young;a;*\n31;young;b;*\n45;old;c;*\n52;old;c;*\n")  # two parents
    with pytest.raises(HierarchyError, match="two parents"):
        _run(hierarchies={"sex": SEX, "age": p})


def test_wrong_separator_hierarchy(tmp_path: Path) -> None:
    p = tmp_path / "age.csv"
    p.write_text("25|<40|*\n31|<40|*\n45|>=40|*\n52|>=40|*\n")
    with pytest.raises(HierarchyError, match="separator") as exc:
        _run(hierarchies={"sex": SEX, "age": p})
    assert exc.value.column == "age"


def test_empty_table() -> None:
    empty = _frame().clear()
    for engine in ("polars", "numpy"):
        with pytest.raises(EmptyDataError, match="no records"):
            _run(empty, engine=engine)
    with pytest.raises(EmptyDataError):
        _run(_pandas(_frame()).iloc[0:0])


def test_one_row_table() -> None:
    one = _frame().head(1)
    res = _run(one, k=1)
    assert res.release.height == 1
    assert dict(res.transformation) == {"sex": 0, "age": 0}
    assert res.release["age"].to_list() == ["25"]
    with pytest.raises(ParameterError, match="number of records") as exc:
        _run(one, k=2)
    assert exc.value.parameter == "k" and exc.value.got == 2


def test_k_larger_than_table() -> None:
    with pytest.raises(ParameterError, match=r"at most the number of records \(4\)"):
        _run(k=5)
    with pytest.raises(ParameterError):
        _run(k=None, privacy=[KAnonymity(5)])


@pytest.mark.parametrize("role", ["quasi_identifiers", "identifying", "sensitive"])
def test_unknown_column(role: str) -> None:
    kwargs = {role: ["sex", "nope"] if role == "quasi_identifiers" else ["nope"]}
    with pytest.raises(UnknownColumnError) as exc:
        _run(**kwargs)
    assert exc.value.columns == ["nope"]
    assert "'nope'" in str(exc.value) and "'disease'" in str(exc.value)
    assert isinstance(exc.value, KeyError)


def test_unknown_hierarchy_key() -> None:
    with pytest.raises(UnknownColumnError) as exc:
        _run(hierarchies={"sex": SEX, "age": AGE, "agee": AGE})
    assert exc.value.columns == ["agee"]


def test_hierarchy_for_a_non_quasi_identifier() -> None:
    # a hierarchy for a column that is not a quasi-identifier is not needed: ignored
    res = _run(hierarchies={"sex": SEX, "age": AGE, "disease": SEX})
    assert "disease" not in res.transformation
    with pytest.raises(UnknownColumnError, match="nosuch"):
        _run(hierarchies={"sex": SEX, "age": AGE, "nosuch": SEX})


def test_unknown_algorithm_and_metric() -> None:
    with pytest.raises(UnknownNameError) as exc:
        _run(algorithm="magic")
    assert exc.value.kind == "algorithm" and exc.value.name == "magic"
    for name in LATTICE_ALGORITHMS:
        assert name in str(exc.value)
    with pytest.raises(UnknownNameError) as exc:
        _run(metric="utility")
    assert exc.value.available == sorted(METRICS)
    for name in METRICS:
        assert name in str(exc.value)
    with pytest.raises(UnknownNameError, match="auto, polars, spark, streaming"):
        _run(engine="spark2")  # the engines offered; numpy, a test path, is not


@pytest.mark.parametrize("limit", [-0.1, 1.5, True, "0.1", float("nan")])
def test_suppression_limit_out_of_range(limit) -> None:
    with pytest.raises(ParameterError, match="suppression_limit") as exc:
        _run(suppression_limit=limit)
    assert exc.value.parameter == "suppression_limit"


@pytest.mark.parametrize("limit", [0, 0.0, 1, 1.0])
def test_suppression_limit_bounds_are_valid(limit) -> None:
    res = _run(suppression_limit=limit)
    assert res.suppressed_share <= limit


def test_k_zero() -> None:
    with pytest.raises(ParameterError) as exc:
        _run(k=0)
    assert str(exc.value) == "The 'k' parameter of KAnonymity must be an int >= 1. Got 0 instead."
    assert isinstance(exc.value, ValueError) and isinstance(exc.value, AnonkitError)
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(ParameterError):
            KAnonymity(bad)


def test_no_privacy_model() -> None:
    with pytest.raises(ParameterError, match="'k'"):
        _run(k=None)


def test_column_in_two_roles() -> None:
    with pytest.raises(ParameterError, match="one role") as exc:
        _run(identifying=["age"])
    assert exc.value.parameter == "age"
    with pytest.raises(ParameterError, match="one role"):
        _run(identifying=["name"], sensitive=["name"])
    with pytest.raises(ParameterError, match="duplicates"):
        _run(quasi_identifiers=["sex", "sex"])


def test_no_quasi_identifiers() -> None:
    with pytest.raises(ParameterError, match="quasi_identifiers"):
        _run(quasi_identifiers=[], hierarchies={})


def test_bad_suppressed_mode_and_frame_type() -> None:
    with pytest.raises(ParameterError, match="'mask' or 'drop'"):
        _run(suppressed="hide")
    with pytest.raises(ParameterError, match="DataFrame"):
        _run({"sex": ["f"], "age": ["25"]})


def test_pandas_in_pandas_out() -> None:
    frame = _pandas(_frame())
    frame.index = [10, 20, 30, 40]  # a non-default index is not carried over
    res = _run(frame, identifying=["name"], sensitive=["disease"])
    rel = res.release
    assert isinstance(rel, pd.DataFrame)
    assert isinstance(rel.index, pd.RangeIndex)
    assert list(rel.index) == [0, 1, 2, 3]
    assert list(rel.columns) == ["sex", "age", "disease"]
    assert "name" not in rel.columns
    assert rel["disease"].tolist() == ["flu", "flu", "cold", "cold"]
    # pandas integer ages are matched against the hierarchy's text labels
    ints = frame.assign(age=[25, 31, 45, 52])
    res2 = _run(ints, identifying=["name"])
    assert isinstance(res2.release, pd.DataFrame)
    assert res2.release["age"].tolist() == rel["age"].tolist()


def test_polars_in_polars_out() -> None:
    res = _run(identifying=["name"])
    assert isinstance(res.release, pl.DataFrame)
    assert res.release.columns == ["sex", "age", "disease"]
    lazy = _run(_frame().lazy())
    assert isinstance(lazy.release, pl.DataFrame)


# ------------------------------------------------------------------ NaN and rendering
def test_nan_in_pandas_integer_column_is_a_missing_value() -> None:
    frame = pd.DataFrame({"sex": ["f", "m", "m", "f"], "age": [25, np.nan, 45, 52]})
    with pytest.raises(MissingValuesError) as exc:
        _run(frame, engine="polars")
    assert exc.value.column == "age" and exc.value.count == 1


def test_nan_in_pandas_integer_column_numpy_engine() -> None:
    # the numpy engine already reports it correctly
    frame = pd.DataFrame({"sex": ["f", "m", "m", "f"], "age": [25, np.nan, 45, 52]})
    with pytest.raises(MissingValuesError) as exc:
        _run(frame, engine="numpy")
    assert exc.value.column == "age" and exc.value.count == 1


def test_nan_in_polars_float_column_is_an_anonkit_error() -> None:
    frame = pl.DataFrame({"sex": ["f", "m", "m"], "age": [25.0, float("nan"), 45.0]})
    with pytest.raises(AnonkitError):
        _run(frame, k=1)


def test_l_diversity_of_a_column_with_fewer_values_than_l_names_the_column() -> None:
    from anonkit import PrivacyUnattainableError
    from anonkit.models import DistinctLDiversity

    for algorithm in ("flash", "mondrian"):
        with pytest.raises(PrivacyUnattainableError) as exc:
            _run(
                privacy=[DistinctLDiversity("disease", l=3)],
                identifying=["name"],
                algorithm=algorithm,
                suppression_limit=0.5,
            )
        text = str(exc.value)
        assert "'disease'" in text and "only 2 distinct" in text
        assert "raise the suppression limit" not in text


def test_an_unknown_builder_names_its_column() -> None:
    """Among 13 hierarchies, 'Unknown hierarchy builder 'interval'' left the user to
    search which one was misspelt."""
    with pytest.raises(UnknownNameError) as exc:
        _run(hierarchies={"sex": SEX, "age": {"type": "interval", "widths": [10]}})
    assert exc.value.kind == "hierarchy builder" and exc.value.name == "interval"
    assert str(exc.value).startswith(
        "Unknown hierarchy builder 'interval' for column 'age' (did you mean 'intervals'?);"
    )


@pytest.mark.parametrize(
    ("keyword", "value", "algorithm"),
    [("mode", "relaxed", "flash"), ("cost", "ncp", "mondrian"), ("method", "gmm", "auto")],
)
def test_a_keyword_of_another_algorithm_is_an_error(
    keyword: str, value: str, algorithm: str
) -> None:
    """mode= with flash, cost= with Mondrian were ignored without a word."""
    with pytest.raises(ParameterError, match=f"'{keyword}' parameter of anonymize must be left"):
        _run(**{keyword: value, "algorithm": algorithm})
