"""anonkit's errors and warnings survive pickling (a study cell's error raised in a
worker process reaches the parent as itself, not as a TypeError about ``__init__``)."""

from __future__ import annotations

import pickle
from concurrent.futures import ProcessPoolExecutor

import pytest

from anonkit import exceptions as ex

EXAMPLES: list[BaseException] = [
    ex.AnonkitError("plain"),
    ex.ParameterError("k", "KAnonymity", "an int >= 1", 0),
    ex.UnknownColumnError(["agee"], ["age", "zip"]),
    ex.UnknownNameError("metric", "los", ["loss", "height"]),
    ex.DataError("bad data"),
    ex.LeakError(["'zip' determines 'age'"]),
    ex.UndeclaredColumnsError(["zip"], fitted=True),
    ex.ReleaseVerificationError(["k-anonymity fails in 1 class(es)"]),
    ex.EmptyDataError(),
    ex.MissingValuesError("age", 3),
    ex.HierarchyError("no root", column="age"),
    ex.ValuesNotInHierarchyError("age", ["17"], 1),
    ex.InputChangedError("age", 2),
    ex.UncoveredValueError("age", 3, "[30-40[", {"age": 2, "zip": 1}),
    ex.NotFittedError("FullDomain"),
    ex.ConfigError("bad key"),
    ex.InputFileError("data.csv", "no such file"),
    ex.InputFormatError("data.csv", "ragged row", line=3, column=2),
    ex.InputEncodingError("data.csv", "utf-8", line=2, offset=17, byte=0xE9),
    ex.OutputIsInputError("out.csv", "data.csv"),
    ex.OutputFormatError("out.xls", ".xls", [".csv", ".parquet"]),
    ex.OutputLocationError("/proc/out.csv", "its folder /proc takes no new file"),
    ex.PrivacyUnattainableError("no node is private", requirement="k = 50"),
    ex.SuppressedColumnWarning(["age", "zip"]),
    ex.LeakWarning("ref", "unique", "Column 'ref' is near-unique."),
]


def _public(err: BaseException) -> dict[str, object]:
    return {k: v for k, v in vars(err).items() if not k.startswith("_")}


@pytest.mark.parametrize("err", EXAMPLES, ids=lambda e: type(e).__name__)
def test_pickles_as_itself(err: BaseException) -> None:
    twin = pickle.loads(pickle.dumps(err))
    assert type(twin) is type(err)
    assert str(twin) == str(err) and twin.args == err.args
    assert _public(twin) == _public(err)
    if isinstance(err, ex.AnonkitError):
        assert twin.exit_code == err.exit_code  # type: ignore[attr-defined]


def test_every_class_is_covered() -> None:
    classes = {
        c
        for c in vars(ex).values()
        if isinstance(c, type)
        and issubclass(c, (ex.AnonkitError, Warning))
        and c.__module__ == ex.__name__
    }
    assert classes == {type(e) for e in EXAMPLES}


def _raise_in_worker() -> None:
    raise ex.UnknownColumnError(["agee"], ["age"])


def test_an_error_raised_in_a_worker_process_reaches_the_parent() -> None:
    with ProcessPoolExecutor(1) as pool, pytest.raises(ex.UnknownColumnError) as caught:
        pool.submit(_raise_in_worker).result()
    assert caught.value.columns == ["agee"] and "Unknown column(s) 'agee'" in str(caught.value)


# ----------------------------------------------------------------- names that look alike
@pytest.mark.parametrize(
    ("name", "names", "expected"),
    [
        ("Sex", ["age", "sex", "race"], ["sex"]),  # another case wins outright
        ("agee", ["age", "sex"], ["age"]),
        ("PAY_1", ["PAY_0", "PAY_2", "AGE"], ["PAY_0", "PAY_2"]),
        ("suppresion_limit", ["k", "suppression_limit", "models"], ["suppression_limit"]),
        ("zip", ["age", "sex"], []),
        ("age", ["age"], []),  # the name itself is not a suggestion
    ],
)
def test_close_names(name: str, names: list[str], expected: list[str]) -> None:
    assert ex.close_names(name, names) == expected


def test_an_unknown_column_suggests_the_one_meant_even_past_the_listed_twenty() -> None:
    columns = [f"col{i:02d}" for i in range(40)] + ["Education"]
    msg = str(ex.UnknownColumnError(["education", "col_39"], columns))
    assert "'education' (did you mean 'Education'?)" in msg
    assert "'col_39' (did you mean 'col39'?)" in msg
    assert "(and 21 more)" in msg


def test_an_unknown_name_suggests_the_one_meant() -> None:
    msg = str(ex.UnknownNameError("algorithm", "mondrain", ["flash", "mondrian"]))
    assert msg.startswith("Unknown algorithm 'mondrain' (did you mean 'mondrian'?);")
    assert "did you mean" not in str(ex.UnknownNameError("metric", "zzz", ["loss"]))


def test_a_column_named_by_a_number_is_told_the_names_are_text() -> None:
    """pandas frames read without a header name their columns 0, 1, ...: polars (and
    anonkit) name them '0', '1', and ``quasi_identifiers=[0]`` was only 'unknown'."""
    msg = str(ex.UnknownColumnError([0, "b"], ["0", "1", "a"]))  # type: ignore[list-item]
    assert "0 (the data names it '0': column names are text)" in msg


def test_options_of_an_estimator_without_options_say_so() -> None:
    """The list of accepted options was empty: 'must be parameters of Hilbert: . Got'."""
    import polars as pl

    import anonkit

    frame = pl.DataFrame({"a": [1, 2, 3, 4]})
    with pytest.raises(ex.ParameterError, match="Hilbert takes no parameters beyond") as err:
        anonkit.anonymize(frame, quasi_identifiers=["a"], numeric=["a"], k=2,
                          algorithm="hilbert", options={"x": 1})  # fmt: skip
    assert ": ." not in str(err.value)


def test_a_column_named_in_two_roles_is_named_once() -> None:
    """`anonkit release --qi age,zipx --numeric zipx` said "'zipx' (did you mean 'zip'?),
    'zipx' (did you mean 'zip'?)": each unknown name once, in the order first given."""
    err = ex.UnknownColumnError(["zipx", "agex", "zipx"], ["age", "zip"])
    assert err.columns == ["zipx", "agex"]
    assert str(err).count("'zipx'") == 1
