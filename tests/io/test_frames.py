"""pandas in, pandas out: columns read as the one type their values share, never guessed,
and a column the caller did not declare never published under another's name."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

from anonkit import DataError, KAnonymity, MissingValuesError, ParameterError, anonymize
from anonkit.estimators import FullDomain, Mondrian, Privacy
from anonkit.io.frames import PandasTypes, from_polars, to_polars

SEX = ["m", "m", "f", "f"]


def _run(frame: pd.DataFrame, **kwargs: object) -> pd.DataFrame:
    args: dict[str, object] = {"quasi_identifiers": ["sex"], "k": 2, "leak_check": False}
    args.update(kwargs)
    return anonymize(frame, **args).release  # type: ignore[arg-type]


def test_two_columns_whose_names_read_the_same_are_refused() -> None:
    """The int-named column 0 used to replace the declared '0' in the release."""
    frame = pd.DataFrame({"sex": SEX, "0": ["a", "a", "b", "b"]})
    frame[0] = ["HIV+", "HIV-", "HIV+", "HIV-"]
    with pytest.raises(DataError, match="more than one column named '0'"):
        _run(frame, insensitive=["0"])
    twice = pd.DataFrame([["m", "flu", "HIV+"]] * 4, columns=["sex", "diag", "diag"])
    for check in (True, False):
        with pytest.raises(DataError, match="'diag'") as exc:
            _run(twice, insensitive=["diag"], leak_check=check)
        assert "HIV" not in str(exc.value)


def test_a_column_without_a_name_is_refused() -> None:
    with pytest.raises(DataError, match="Column 1 of the frame has no name"):
        _run(pd.DataFrame({"": SEX, "sex": SEX}), quasi_identifiers=[""])


def test_an_object_column_mixing_kinds_is_refused_naming_it() -> None:
    """[1, 2, True, 4] came back as [1, 2, 1, 4]; int 5 and text '5' made one class."""
    cases = {
        "n": pd.Series([1, 2, True, 4], dtype=object),
        "code": pd.Series(["A1", 7, 2.5, "A1"], dtype=object),
    }
    for name, column in cases.items():
        with pytest.raises(DataError, match=f"Column '{name}' mixes kinds of values"):
            _run(pd.DataFrame({"sex": SEX, name: column}), insensitive=[name])
    mixed_qi = pd.DataFrame({"sex": pd.Series(["m", "m", 5, "5"], dtype=object)})
    with pytest.raises(DataError, match=r"text \(row 1\) and integer \(row 3\)") as err:
        _run(mixed_qi)
    assert "'m'" not in str(err.value)  # kinds and rows, never a value of the records


def test_one_kind_per_object_column_is_read_as_that_type() -> None:
    frame = pd.DataFrame(
        {
            "text": pd.Series(["a", None, "b", np.nan], dtype=object),
            "whole": pd.Series([1, 2, None, 4], dtype=object),
            "numbers": pd.Series([1, 2.5, None, 4], dtype=object),
            "flags": pd.Series([True, False, None, True], dtype=object),
        }
    )
    data, kind = to_polars(frame)
    assert isinstance(kind, PandasTypes)
    assert data.schema == pl.Schema(
        {"text": pl.String, "whole": pl.Int64, "numbers": pl.Float64, "flags": pl.Boolean}
    )
    assert data["text"].to_list() == ["a", None, "b", None]
    assert data["whole"].null_count() == data["numbers"].null_count() == 1


def test_pandas_missing_markers_are_nulls_and_nullable_types_come_back() -> None:
    """pd.NA in a string or boolean column raised "boolean value of NA is ambiguous";
    Int64 with NA came back as float64."""
    frame = pd.DataFrame(
        {
            "sex": SEX,
            "note": pd.array(["x", pd.NA, "y", "z"], dtype="string"),
            "flag": pd.array([True, pd.NA, False, True], dtype="boolean"),
            "n": pd.array([1, None, 3, 4], dtype="Int64"),
            "c": pd.Categorical(["a", "b", None, "a"]),
        }
    )
    out = _run(frame, insensitive=["note", "flag", "n", "c"])
    assert out["note"].fillna("?").tolist() == ["x", "?", "y", "z"]
    assert str(out["note"].dtype) == "string"
    assert str(out["flag"].dtype) == "boolean"
    assert out["flag"].isna().tolist() == [False, True, False, False]
    assert str(out["n"].dtype) == "Int64" and out["n"].tolist()[0] == 1
    assert out["c"].astype(object).fillna("?").tolist() == ["a", "b", "?", "a"]
    assert out["c"].isna().tolist() == [False, False, True, False]
    with pytest.raises(MissingValuesError, match="'sex' has 1 missing"):
        _run(frame[["sex"]].assign(sex=pd.array(["m", pd.NA, "f", "f"], dtype="string")))


def test_zoned_times_keep_their_zone_and_instant() -> None:
    """A Paris time came back naive, shifted to UTC (another date)."""
    when = pd.to_datetime(["2024-03-01 00:30"] * 4).tz_localize("Europe/Paris")
    out = _run(pd.DataFrame({"sex": SEX, "when": when}), insensitive=["when"])
    assert str(out["when"].dtype) == "datetime64[ns, Europe/Paris]" or (
        getattr(out["when"].dtype, "tz", None) is not None
        and str(out["when"].dtype.tz) == "Europe/Paris"
    )
    assert out["when"].iloc[0] == when[0]


def test_round_trip_keeps_plain_types() -> None:
    frame = pd.DataFrame({"a": [1, 2], "b": [1.5, np.nan], "c": ["x", "y"], "d": [True, False]})
    back = from_polars(*to_polars(frame))
    assert back.dtypes.tolist() == frame.dtypes.tolist()
    assert back["b"].isna().tolist() == [False, True]


def test_round_trip_keeps_extension_types() -> None:
    """category, string, Int32, boolean and Float64 columns came back as object, int32,
    bool and float64: pandas in, but not the same frame type out."""
    frame = pd.DataFrame(
        {
            "c": pd.Categorical(["b", "a"], categories=["b", "a", "z"], ordered=True),
            "s": pd.array(["x", "y"], dtype="string"),
            "i": pd.array([1, 2], dtype="Int32"),
            "f": pd.array([True, False], dtype="boolean"),
            "x": pd.array([0.5, 1.5], dtype="Float64"),
        }
    )
    back = from_polars(*to_polars(frame))
    assert back.dtypes.tolist()[1:] == frame.dtypes.tolist()[1:]
    # categories the values use, in their order (an unused one could be a value the
    # release suppressed)
    assert back["c"].cat.categories.tolist() == ["b", "a"] and back["c"].cat.ordered


def test_columns_published_unchanged_keep_their_pandas_types() -> None:
    frame = pd.DataFrame(
        {
            "sex": pd.Categorical(SEX),
            "note": pd.array(["x", "y", "z", "w"], dtype="string"),
            "n": pd.array([1, 2, 3, 4], dtype="Int32"),
            "c": pd.Categorical(["a", "b", "a", "a"]),
        }
    )
    out = _run(frame, insensitive=["note", "n", "c"])
    assert str(out["note"].dtype) == "string" and str(out["n"].dtype) == "Int32"
    assert isinstance(out["c"].dtype, pd.CategoricalDtype)
    assert out["c"].tolist() == ["a", "b", "a", "a"]


def test_a_generalized_category_column_is_text_not_a_category_it_does_not_fit() -> None:
    frame = pd.DataFrame({"sex": pd.Categorical(["m", "f", "f", "f"])})
    out = _run(frame, suppression_limit=0.0)
    assert out["sex"].tolist() == ["*"] * 4
    assert out["sex"].dtype == object


def test_a_category_released_keeps_no_category_of_a_suppressed_value() -> None:
    """The release's category type listed the categories of the input, a value of the
    suppressed (dropped) records too: value_counts() printed it with 0."""
    frame = pd.DataFrame(
        {"sex": ["m", "m", "f", "f", "x"], "job": pd.Categorical(["a", "a", "b", "b", "TV"])}
    )
    out = _run(frame, sensitive=["job"], suppression_limit=0.2, suppressed="drop")
    assert "TV" not in out["job"].cat.categories.tolist()


def test_a_zoned_time_column_generalized_comes_back_as_its_labels() -> None:
    """pandas parsed a dates hierarchy's labels ('2020', '2020-Q3') back into zoned
    instants: the generalization disappeared and every value was a wrong instant."""
    when = pd.to_datetime(
        ["2020-07-03 10:00", "2020-07-09 11:00", "2020-08-01 09:00", "2020-08-02 08:00"]
    ).tz_localize("Europe/Paris")
    frame = pd.DataFrame({"sex": SEX, "when": when})
    out = _run(
        frame,
        quasi_identifiers=["sex", "when"],
        hierarchies={"when": {"type": "dates", "levels": ["month", "year"]}},
        k=2,
    )
    assert out["when"].dtype == object
    assert all(isinstance(v, str) for v in out["when"])


def test_a_pandas_frame_with_an_engine_that_reads_files_is_a_parameter_error() -> None:
    with pytest.raises(ParameterError, match="'polars' or 'auto' for a pandas frame"):
        _run(pd.DataFrame({"sex": SEX}), engine="streaming")


def test_privacy_takes_one_model_or_a_list_of_models() -> None:
    frame = pd.DataFrame({"sex": SEX})
    assert _run(frame, k=None, privacy=KAnonymity(2))["sex"].tolist() == SEX
    for bad in (["k2"], "k2", 5):
        with pytest.raises(ParameterError, match="a privacy model of anonkit.models"):
            _run(frame, k=None, privacy=bad)
    with pytest.raises(ParameterError, match="a privacy model"):
        Privacy("k").checked(4)  # type: ignore[arg-type]


def test_list_cells_in_a_quasi_identifier_are_refused_without_quoting_them() -> None:
    frame = pl.DataFrame({"sex": [["m"], ["m"], ["f"], ["f"]]})
    with pytest.raises(DataError, match="Column 'sex' holds List") as exc:
        anonymize(frame, quasi_identifiers=["sex"], k=2)
    assert "'m'" not in str(exc.value)


@pytest.mark.parametrize("name", ["__anonkit_records__", "__anonkit_count__", "__anonkit_x"])
def test_anonkit_working_column_names_are_reserved(name: str) -> None:
    """A column named __anonkit_count__ made the search count wrongly (caught only by the
    release's verification)."""
    frame = pd.DataFrame({name: SEX, "age": [30, 31, 40, 41]})
    with pytest.raises(ParameterError, match="does not start with '__anonkit'"):
        anonymize(frame, quasi_identifiers=[name, "age"], k=3, suppression_limit=0.5)


def test_transform_works_with_columns_named_like_its_old_working_columns() -> None:
    """QIs named '_new' or '_row' made transform raise polars' DuplicateError."""
    d = pd.DataFrame({"_new": ["m"] * 5 + ["f"], "age": [30] * 6})
    fd = FullDomain(privacy=Privacy(KAnonymity(2), suppression_limit=0.5))
    fd.fit(d, quasi_identifiers=["_new", "age"])
    assert len(fd.transform(d)) == 6
    d = pd.DataFrame({"_row": SEX, "age": [30, 31, 40, 41]})
    mo = Mondrian(privacy=Privacy(KAnonymity(2))).fit(d, quasi_identifiers=["_row", "age"])
    assert len(mo.transform(d.assign(age=[35, 36, 37, 38]))) == 4


def test_a_frame_column_named_star_is_refused() -> None:
    frame = pl.DataFrame({"sex": SEX, "*": ["a", "b", "a", "b"]})
    with pytest.raises(ParameterError, match="a column name other than '\\*'"):
        anonymize(frame, quasi_identifiers=["sex"], k=2, others="keep")


def test_durations_and_unreadable_released_columns_are_named_not_polars_errors() -> None:
    """A Duration quasi-identifier, and a List column released as it is with the leak
    check on, stopped on polars' 'casting from Duration to String not supported'."""
    import datetime as dt

    frame = pl.DataFrame(
        {
            "sex": ["m", "f"] * 4,
            "wait": [dt.timedelta(days=i % 2) for i in range(8)],
            "tags": [[1], [2, 3]] * 4,
        }
    )
    sup = {"type": "suppression"}
    with pytest.raises(DataError, match=r"Column 'wait' holds Duration.*dt.total_days"):
        anonymize(frame.drop("tags"), quasi_identifiers=["sex", "wait"], k=2,
                  hierarchies={"sex": sup, "wait": sup})  # fmt: skip
    for col, match in (("wait", "Duration"), ("tags", "leak check cannot read")):
        kw = {"quasi_identifiers": ["sex"], "hierarchies": {"sex": sup}, "insensitive": [col]}
        with pytest.raises(DataError, match=match):
            anonymize(frame.select("sex", col), k=2, **kw)
        # published unchecked, as asked
        assert anonymize(frame.select("sex", col), k=2, leak_check=False, **kw).verified


@pytest.mark.parametrize("algorithm", ["flash", "mondrian"])
def test_a_polars_column_without_a_name_is_refused(algorithm: str) -> None:
    """polars renames a Series named '' to 'column_0' when it builds a frame: Mondrian
    released the raw '' column beside an undeclared 'column_0' holding the labels."""
    frame = pl.DataFrame({"": [1, 1, 2, 2, 3, 3, 4, 4], "s": list("abababab")})
    with pytest.raises(DataError, match="Column 1 of the frame has no name"):
        anonymize(frame, quasi_identifiers=[""], sensitive=["s"], k=2, algorithm=algorithm)
    with pytest.raises(DataError, match="Column 1 of the frame has no name"):
        anonymize(frame.lazy(), quasi_identifiers=["s"], others="drop", k=2)


@pytest.mark.parametrize("name", ["^x$", "^.*$", "^sex$"])
def test_a_column_name_polars_reads_as_a_pattern_is_refused(name: str) -> None:
    """polars reads a name starting with '^' and ending with '$' as a regular expression:
    such a quasi-identifier crashed every algorithm with an IndexError ('^sex$' would
    select the column 'sex')."""
    frame = pl.DataFrame({name: [1, 2, 1, 2], "sex": SEX})
    for algorithm in ("flash", "mondrian"):
        with pytest.raises(ParameterError, match="polars reads"):
            anonymize(frame, quasi_identifiers=[name, "sex"], k=2, algorithm=algorithm)


@pytest.mark.parametrize(
    "algorithm", ["flash", "mondrian", "greedy_merge", "microaggregation", "safepub"]
)
def test_a_column_named_len_is_an_ordinary_name(algorithm: str) -> None:
    """polars names a group-by's count 'len': a quasi-identifier so named crashed Mondrian,
    greedy merging, microaggregation and SafePub with polars' DuplicateError."""
    frame = pl.DataFrame({"len": [1, 2, 1, 2, 3, 3, 1, 2] * 40, "sex": ["m", "m", "f", "f"] * 80})
    qi = ["len"] if algorithm == "microaggregation" else ["len", "sex"]
    options = {"options": {"epsilon": 2.0}} if algorithm == "safepub" else {"k": 2}
    result = anonymize(frame, quasi_identifiers=qi, others="drop", algorithm=algorithm, **options)
    assert result.verified
    assert result.release.columns == qi


def test_a_quasi_identifier_named_twice_is_refused_under_its_keyword() -> None:
    """The message named the role ('quasi_identifying'), not the keyword the caller used."""
    with pytest.raises(ParameterError, match="'quasi_identifiers' parameter of anonymize"):
        anonymize(pl.DataFrame({"sex": SEX}), quasi_identifiers=["sex", "sex"], k=2)


# ------------------------------------------------------- polars Categorical and Enum
ZIPS = pl.Enum(["1", "2", "9"])
HIERARCHIES = {"sex": [["M", "*"], ["F", "*"]], "zip": [["1", "*"], ["2", "*"], ["9", "*"]]}


def _typed_polars() -> pl.DataFrame:
    """A Categorical and an Enum quasi-identifier, an Enum column published as it is."""
    return pl.DataFrame(
        {
            "sex": pl.Series(["M", "F"] * 4, dtype=pl.Categorical),
            "zip": pl.Series(["1", "1", "2", "2"] * 2, dtype=ZIPS),
            "age": [20, 21, 30, 31, 40, 41, 50, 51],
            "job": pl.Series(["a", "b"] * 4, dtype=pl.Enum(["a", "b", "zz"])),
        }
    )


@pytest.mark.parametrize(
    "algorithm",
    ["flash", "exhaustive", "datafly", "topdown", "mondrian", "greedy_merge", "hilbert",
     "banga", "k_optimize", "k_epsilon"],
)  # fmt: skip
def test_polars_categorical_and_enum_quasi_identifiers_keep_their_type(algorithm: str) -> None:
    """A Categorical or Enum quasi-identifier came back as String even when published
    unchanged, where a pandas category keeps its type."""
    result = anonymize(
        _typed_polars(), quasi_identifiers=["sex", "zip"], hierarchies=HIERARCHIES, k=2,
        insensitive=["age", "job"], algorithm=algorithm, leak_check=False,
    )  # fmt: skip
    schema = result.release.schema
    assert schema["sex"] == pl.Categorical
    assert result.release["sex"].to_list() == ["M", "F"] * 4
    # an Enum of the categories the release uses (an unused one could be a value the
    # release suppressed), as a pandas category
    assert schema["zip"] == pl.Enum(["1", "2"])
    assert schema["job"] == pl.Enum(["a", "b"])
    assert schema["age"] == pl.Int64


def test_generalized_polars_categorical_and_enum_columns() -> None:
    """A Categorical holds any text, the labels too; an Enum whose categories lack the
    released labels is text (String), as a pandas category is."""
    frame = pl.DataFrame(
        {
            "sex": pl.Series(["M", "F", "F", "F"], dtype=pl.Categorical),
            "zip": pl.Series(["1", "1", "2", "2"], dtype=ZIPS),
        }
    )
    for qi, other in (("sex", "zip"), ("zip", "sex")):
        result = anonymize(
            frame, quasi_identifiers=[qi], hierarchies={qi: HIERARCHIES[qi]}, k=2,
            insensitive=[other], leak_check=False,
        )  # fmt: skip
        release = result.release
        assert result.transformation == {qi: 1 if qi == "sex" else 0}
        if qi == "sex":
            assert release.schema["sex"] == pl.Categorical
            assert release["sex"].to_list() == ["*"] * 4
        else:
            assert release.schema["zip"] == pl.Enum(["1", "2"])
    starred = frame.with_columns(pl.Series("zip", ["1", "2", "2", "2"], dtype=ZIPS))
    result = anonymize(
        starred, quasi_identifiers=["zip"], hierarchies={"zip": HIERARCHIES["zip"]}, k=2,
        insensitive=["sex"], leak_check=False,
    )  # fmt: skip
    assert result.transformation == {"zip": 1}
    assert result.release.schema["zip"] == pl.String
    assert result.release["zip"].to_list() == ["*"] * 4


def test_transform_of_polars_keeps_categorical_and_enum_types() -> None:
    est = FullDomain(privacy=Privacy(KAnonymity(2)), leak_check=False).fit(
        _typed_polars(), quasi_identifiers=["sex", "zip"], hierarchies=HIERARCHIES,
        insensitive=["age", "job"],
    )  # fmt: skip
    new = _typed_polars().head(2)
    out = est.transform(new)
    assert out.schema["sex"] == pl.Categorical and out.schema["zip"] == pl.Enum(["1"])
    assert out["sex"].to_list() == ["M", "F"]


def test_polars_types_round_trip_through_the_frame_conversion() -> None:
    frame = _typed_polars()
    data, kind = to_polars(frame)
    assert data is frame
    back = from_polars(data.with_columns(pl.col("sex", "zip").cast(pl.String)), kind)
    assert back.schema["sex"] == pl.Categorical and back.schema["zip"] == pl.Enum(["1", "2"])
    star = data.with_columns(pl.lit("*").alias("zip"))
    assert from_polars(star, kind).schema["zip"] == pl.String  # '*' is no category
    numbers = data.with_columns(pl.col("zip").cast(pl.String).cast(pl.Int64))
    assert from_polars(numbers, kind)["zip"].dtype == pl.Int64  # recoded: left as it is
    plain = pl.DataFrame({"a": ["x"]})
    assert to_polars(plain) == (plain, "polars")
