"""Arguments of the Python API given in a shape or type it does not take: a single column
name for a role keyword, non-strings where a name is expected, a hierarchies list, a frame
of another type. Each is read as meant or refused with a ParameterError naming it."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest

import anonkit
from anonkit.estimators import FullDomain, Mondrian, Privacy
from anonkit.exceptions import ParameterError, UnknownNameError, close_names, did_you_mean
from anonkit.models import KAnonymity

H = {"age": {"type": "intervals", "widths": [50]}}


def _frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "age": ["34", "45", "66", "70"],
            "disease": ["x", "y", "x", "y"],
            "name": ["A", "B", "C", "D"],
        }
    )


def _run(**kwargs: Any) -> anonkit.AnonymizationResult:
    args: dict[str, Any] = dict(quasi_identifiers="age", hierarchies=H, k=2, leak_check=False)
    args.update(kwargs)
    return anonkit.anonymize(_frame(), **args)


# ------------------------------------------------------------------ role keywords
@pytest.mark.parametrize(
    ("keywords", "role", "column"),
    [
        ({"sensitive": "disease", "identifying": ["name"]}, "sensitive", "disease"),
        ({"insensitive": "disease", "identifying": ["name"]}, "insensitive", "disease"),
        ({"sensitive": ["disease"], "identifying": "name"}, "identifying", "name"),
    ],
)
def test_a_single_string_is_one_column_for_every_role(
    keywords: dict[str, Any], role: str, column: str
) -> None:
    res = _run(**keywords)
    assert res.checks["roles"][role] == [column]


def test_one_letter_columns_are_not_given_roles_by_the_letters_of_a_name() -> None:
    frame = _frame().with_columns(pl.lit("q").alias("d"), pl.lit("r").alias("i"))
    res = anonkit.anonymize(
        frame,
        quasi_identifiers="age",
        hierarchies=H,
        k=2,
        sensitive="disease",
        identifying="name",
        others="keep",
        leak_check=False,
    )
    assert res.checks["roles"]["sensitive"] == ["disease"]
    assert set(res.checks["roles"]["insensitive"]) == {"d", "i"}


def test_estimator_fit_reads_a_single_string_as_one_column() -> None:
    est = FullDomain(privacy=Privacy(KAnonymity(2)), leak_check=False)
    est.fit(
        _frame(), quasi_identifiers="age", hierarchies=H, sensitive="disease", insensitive="name"
    )
    assert est.result_.checks["roles"]["sensitive"] == ["disease"]
    assert est.result_.checks["roles"]["insensitive"] == ["name"]


def test_numeric_reads_a_single_string_as_one_column() -> None:
    frame = pl.DataFrame({"age": [34, 45, 66, 70]})
    res = anonkit.anonymize(
        frame, quasi_identifiers="age", numeric="age", k=2, algorithm="mondrian"
    )
    assert res.n_records == 4


@pytest.mark.parametrize(
    "keywords",
    [
        {"quasi_identifiers": 3},
        {"sensitive": 5},
        {"identifying": 1.5},
        {"insensitive": {"name": 1}},
        {"quasi_identifiers": ["age", 3]},
        {"numeric": 7},
    ],
)
def test_a_role_that_is_not_names_is_a_parameter_error(keywords: dict[str, Any]) -> None:
    (parameter,) = keywords
    with pytest.raises(ParameterError) as info:
        _run(**keywords)
    assert info.value.parameter == parameter and info.value.owner == "anonymize"
    assert "column name" in info.value.expected


def test_estimator_fit_refuses_a_role_that_is_not_names() -> None:
    est = FullDomain(privacy=Privacy(KAnonymity(2)))
    with pytest.raises(ParameterError) as info:
        est.fit(_frame(), quasi_identifiers=["age"], hierarchies=H, sensitive=5)
    assert (info.value.parameter, info.value.owner) == ("sensitive", "FullDomain.fit")


def test_a_column_given_as_a_number_is_told_names_are_text() -> None:
    with pytest.raises(ParameterError, match="Column names are text"):
        _run(quasi_identifiers=[0])


def test_roles_may_be_any_iterable_of_names() -> None:
    import pandas as pd

    res = _run(quasi_identifiers=pd.Index(["age"]), identifying=np.array(["name"]), others="keep")
    assert res.checks["roles"]["identifying"] == ["name"]


# ------------------------------------------------------- names that are not strings
def test_close_names_and_did_you_mean_take_any_object() -> None:
    assert close_names(None, ["polars", "spark"]) == []  # type: ignore[arg-type]
    assert close_names("polars", ["polars", 3, None]) == []  # type: ignore[list-item]
    assert did_you_mean(["loss"], ["loss"]) == ""  # type: ignore[arg-type]
    assert "None" in str(UnknownNameError("engine", None, ["polars"]))  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [None, 3, ["flash"]])
def test_an_algorithm_that_is_not_a_name_is_a_parameter_error(value: Any) -> None:
    with pytest.raises(ParameterError) as info:
        _run(algorithm=value, identifying="name", sensitive="disease")
    assert info.value.parameter == "algorithm" and info.value.owner == "anonymize"
    assert "'flash'" in info.value.expected and "'mondrian'" in info.value.expected


def test_an_estimator_class_as_algorithm_is_told_to_pass_an_instance() -> None:
    with pytest.raises(ParameterError) as info:
        _run(algorithm=Mondrian, identifying="name", sensitive="disease")
    assert info.value.parameter == "algorithm"
    assert "Mondrian()" in str(info.value)


@pytest.mark.parametrize("value", [None, 1, ["loss"]])
def test_a_metric_that_is_not_a_name_is_a_parameter_error(value: Any) -> None:
    with pytest.raises(ParameterError) as info:
        _run(metric=value, identifying="name", sensitive="disease")
    assert info.value.parameter == "metric" and "'loss'" in info.value.expected


@pytest.mark.parametrize("value", [None, 1, ["polars"]])
def test_an_engine_that_is_not_a_name_is_a_parameter_error(value: Any) -> None:
    with pytest.raises(ParameterError) as info:
        _run(engine=value, identifying="name", sensitive="disease")
    assert info.value.parameter == "engine" and "'polars'" in info.value.expected


@pytest.mark.parametrize("value", [None, 1])
def test_an_estimator_engine_that_is_not_a_name_is_a_parameter_error(value: Any) -> None:
    est = FullDomain(engine=value, privacy=Privacy(KAnonymity(2)))
    with pytest.raises(ParameterError) as info:
        est.fit(_frame(), quasi_identifiers="age", hierarchies=H, others="drop")
    assert (info.value.parameter, info.value.owner) == ("engine", "FullDomain")
    assert "'polars'" in info.value.expected


def test_lookup_of_an_unhashable_or_non_string_name_is_an_unknown_name() -> None:
    from anonkit._validation import lookup

    for name in (None, 3, ["a"]):
        with pytest.raises(UnknownNameError) as info:
            lookup({"a": 1}, name, "engine")  # type: ignore[arg-type]
        assert info.value.available == ["a"]


# ------------------------------------------------------------ hierarchies and frame
@pytest.mark.parametrize("value", [["age"], [("age", "x")], "age", 3])
def test_hierarchies_that_are_not_a_mapping_are_a_parameter_error(value: Any) -> None:
    with pytest.raises(ParameterError) as info:
        _run(hierarchies=value, others="drop")
    assert (info.value.parameter, info.value.owner) == ("hierarchies", "anonymize")
    assert "mapping" in info.value.expected


def test_estimator_fit_refuses_hierarchies_that_are_not_a_mapping() -> None:
    est = FullDomain(privacy=Privacy(KAnonymity(2)))
    with pytest.raises(ParameterError) as info:
        est.fit(_frame(), quasi_identifiers="age", hierarchies=["age"], others="drop")
    assert (info.value.parameter, info.value.owner) == ("hierarchies", "FullDomain.fit")


def test_a_frame_of_another_type_names_the_estimator_fit() -> None:
    est = FullDomain(privacy=Privacy(KAnonymity(2)))
    with pytest.raises(ParameterError) as info:
        est.fit(_frame().to_numpy(), quasi_identifiers=["age"])
    assert (info.value.parameter, info.value.owner) == ("frame", "FullDomain.fit")
    assert "of FullDomain.fit must be" in str(info.value)


def test_a_frame_of_another_type_names_transform() -> None:
    est = FullDomain(privacy=Privacy(KAnonymity(2)), leak_check=False)
    est.fit(_frame(), quasi_identifiers="age", hierarchies=H, others="drop")
    with pytest.raises(ParameterError) as info:
        est.transform(_frame().to_numpy())
    assert (info.value.parameter, info.value.owner) == ("frame", "FullDomain.transform")


def test_a_frame_of_another_type_still_names_anonymize() -> None:
    with pytest.raises(ParameterError) as info:
        anonkit.anonymize(_frame().to_numpy(), quasi_identifiers=["age"], k=2)
    assert (info.value.parameter, info.value.owner) == ("frame", "anonymize")


# ------------------------------------------------ keywords the algorithm would ignore
@pytest.mark.parametrize(
    ("algorithm", "keyword"),
    [
        ("mondrian", {"metric": "discernibility"}),
        ("greedy_merge", {"metric_options": {"aggregation": "sum"}}),
        ("microaggregation", {"suppressed": "drop"}),
        ("greedy_merge", {"memory_share": 0.5}),
        ("hilbert", {"metric": "height"}),
        ("safepub", {"suppressed": "drop"}),
    ],
)
def test_a_full_domain_keyword_is_refused_by_an_algorithm_that_ignores_it(
    algorithm: str, keyword: dict[str, Any]
) -> None:
    # They were accepted and ignored: greedy merging went on optimizing its own cost.
    (name,) = keyword
    with pytest.raises(ParameterError) as info:
        _run(algorithm=algorithm, identifying="name", sensitive="disease", **keyword)
    assert info.value.parameter == name and info.value.owner == "anonymize"
    assert f"algorithm={algorithm!r}" in str(info.value)


def test_flat_keywords_reach_the_estimators_that_take_them() -> None:
    # engine= and metric= were dropped on the way to SafePub, KEpsilon and KOptimize:
    # a Parquet path with engine="streaming" was read whole into memory.
    from anonkit.api import Anonymizer

    def built(algorithm: str, **keywords: Any) -> Any:
        return Anonymizer(quasi_identifiers="age", algorithm=algorithm, **keywords).estimator()

    assert built("k_epsilon", engine="streaming", metric="height").engine == "streaming"
    assert built("k_epsilon", metric="height").metric == "height"
    assert built("k_optimize", metric="discernibility").metric == "discernibility"
    assert built("safepub", engine="streaming").engine == "streaming"
    assert built("mondrian", engine="auto", memory_share=0.5).memory_share == 0.5
    with pytest.raises(ParameterError, match="given once"):
        built("k_epsilon", metric="height", options={"metric": "loss"})


@pytest.mark.parametrize("privacy", [KAnonymity, [KAnonymity], Privacy(KAnonymity)])
def test_a_model_class_instead_of_a_model_is_told_to_pass_an_instance(privacy: Any) -> None:
    # The protocol check let the class through: TypeError 'property' object is not
    # iterable, deep in the fit.
    with pytest.raises(ParameterError) as info:
        if isinstance(privacy, Privacy):
            FullDomain(privacy=privacy).fit(_frame(), quasi_identifiers="age", hierarchies=H)
        else:
            _run(privacy=privacy, identifying="name", sensitive="disease")
    assert "KAnonymity(...)" in str(info.value)


def test_privacy_that_is_no_model_names_the_privacy_keyword() -> None:
    with pytest.raises(ParameterError) as info:
        _run(privacy=5, identifying="name", sensitive="disease")
    assert info.value.parameter == "privacy" and info.value.owner == "anonymize"


@pytest.mark.parametrize("output", [5, ["out.csv"]])
def test_an_output_that_is_no_path_is_a_parameter_error(output: Any) -> None:
    with pytest.raises(ParameterError) as info:
        _run(output=output, identifying="name", sensitive="disease")
    assert info.value.parameter == "output"
    with pytest.raises(ParameterError) as info:
        FullDomain(output=output, privacy=Privacy(KAnonymity(2))).fit(
            _frame(),
            quasi_identifiers="age",
            hierarchies=H,
            identifying="name",
            sensitive="disease",
        )
    assert info.value.parameter == "output"


def test_a_single_numeric_name_refused_is_shown_as_one_name() -> None:
    with pytest.raises(ParameterError) as info:
        _run(numeric="age", identifying="name", sensitive="disease")
    assert info.value.got == ["age"]


def test_k_optimize_takes_its_own_metrics_through_anonymize() -> None:
    """anonymize(algorithm="k_optimize", metric="classification") was refused as an
    unknown metric (the full-domain list), though KOptimize takes it; a full-domain
    metric is refused naming k-Optimize's."""
    import anonkit
    from anonkit.exceptions import UnknownNameError

    frame = pl.DataFrame({"age": [str(20 + i % 30) for i in range(100)], "inc": ["a", "b"] * 50})
    keywords: dict[str, Any] = {"quasi_identifiers": ["age"], "insensitive": ["inc"], "k": 3}
    result = anonkit.anonymize(
        frame, algorithm="k_optimize", metric="classification",
        options={"class_column": "inc"}, **keywords,
    )  # fmt: skip
    assert result.metric == "classification"
    assert anonkit.anonymize(frame, algorithm="k_optimize", **keywords).metric == "discernibility"
    with pytest.raises(UnknownNameError, match="choose one of: classification, discernibility"):
        anonkit.anonymize(frame, algorithm="k_optimize", metric="height", **keywords)
