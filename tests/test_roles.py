"""Every column has a role, or the run stops (issue 15, item 1)."""

from __future__ import annotations

import polars as pl
import pytest

from anonkit import anonymize
from anonkit.core.schema import AttributeRole, Schema
from anonkit.exceptions import ParameterError, UndeclaredColumnsError

AGE = {"type": "intervals", "widths": [20, 40]}


def _frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "name": ["ann", "bob", "cid", "dee", "eve", "fay"],
            "age": ["25", "31", "45", "52", "38", "27"],
            "sex": ["f", "m", "m", "f", "f", "m"],
            "weight": ["61", "80", "77", "58", "66", "90"],
            "disease": ["flu", "flu", "cold", "cold", "flu", "cold"],
        }
    )


def _run(**kwargs):  # type: ignore[no-untyped-def]
    args = dict(quasi_identifiers=["age", "sex"], hierarchies={"age": AGE}, k=2)
    args.update(kwargs)
    return anonymize(_frame(), **args)


def test_an_undeclared_column_stops_the_run_and_is_named() -> None:
    with pytest.raises(UndeclaredColumnsError) as exc:
        _run(identifying=["name"], sensitive=["disease"])
    assert exc.value.columns == ["weight"]
    assert "'weight'" in str(exc.value) and "others" in str(exc.value)
    assert exc.value.exit_code == 1


def test_every_undeclared_column_is_named() -> None:
    with pytest.raises(UndeclaredColumnsError) as exc:
        _run()
    assert exc.value.columns == ["name", "weight", "disease"]


def test_others_drop_removes_the_undeclared_columns() -> None:
    res = _run(identifying=["name"], sensitive=["disease"], others="drop")
    assert res.release.columns == ["age", "sex", "disease"]
    assert res.checks["dropped_undeclared"] == ["weight"]


def test_others_keep_releases_them_as_they_are() -> None:
    res = _run(identifying=["name"], sensitive=["disease"], others="keep", leak_check=False)
    assert res.release["weight"].to_list() == _frame()["weight"].to_list()


def test_insensitive_columns_are_kept_and_declared() -> None:
    res = _run(identifying=["name"], sensitive=["disease"], insensitive=["weight"])
    assert "weight" in res.release.columns
    assert res.checks["roles"]["insensitive"] == ["weight"]


def test_others_must_be_a_known_mode() -> None:
    with pytest.raises(ParameterError, match="'others'"):
        _run(others="publish")


def test_a_column_with_two_roles_is_refused() -> None:
    with pytest.raises(ParameterError):
        _run(identifying=["name"], sensitive=["disease"], insensitive=["disease"], others="drop")


def test_schema_roles_of_dropped_columns_are_identifying() -> None:
    s = Schema.build(["a", "b", "c"], quasi_identifiers=["a"], insensitive=["b"], others="drop")
    assert s.columns(AttributeRole.IDENTIFYING) == ["c"]
    assert s.released_as_is() == ["b"]
    assert s.dropped == ("c",)


@pytest.mark.parametrize("algorithm", ["flash", "mondrian", "greedy_merge"])
def test_the_rule_holds_for_every_algorithm(algorithm: str) -> None:
    with pytest.raises(UndeclaredColumnsError):
        _run(algorithm=algorithm)
    res = _run(algorithm=algorithm, others="drop")
    assert res.release.columns == ["age", "sex"]


@pytest.mark.parametrize(
    ("keywords", "said"),
    [
        ({"quasi_identifiers": []}, "The 'quasi_identifiers' parameter of FullDomain.fit"),
        ({"quasi_identifiers": ["sex", "sex"]}, "parameter of FullDomain.fit must be a list"),
        ({"quasi_identifiers": ["sex"], "others": "maybe"}, "'others' parameter of FullDomain.fit"),
        (
            {"quasi_identifiers": ["sex"], "hierarchies": {"sex": 5}},
            "The 'hierarchies' parameter of FullDomain.fit must be Hierarchy objects",
        ),
        (
            {"quasi_identifiers": ["sex", "age"], "sensitive": ["age"]},
            "The 'age' parameter of FullDomain.fit must be given one role only. "
            "Got 'quasi_identifying and sensitive' instead.",
        ),
    ],
)
def test_an_estimator_s_role_errors_name_its_fit(keywords: dict[str, object], said: str) -> None:
    """Estimator.fit's role errors named anonymize (and "the attribute roles"), which the
    caller never called."""
    from anonkit.estimators import FullDomain, Privacy
    from anonkit.models import KAnonymity

    frame = pl.DataFrame({"age": ["30", "31", "40", "41"], "sex": ["m", "m", "f", "f"]})
    with pytest.raises(ParameterError) as caught:
        FullDomain(privacy=Privacy(KAnonymity(2))).fit(frame, **keywords)
    assert said in str(caught.value)
