"""The shared parameter checks of anonkit._validation."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from anonkit._validation import (
    SEED,
    Boolean,
    Interval,
    Name,
    Names,
    Options,
    Parameters,
    check,
    check_bool,
    check_choice,
    check_int,
    check_items,
    check_name,
    check_names,
    check_real,
    lookup,
    validate,
)
from anonkit.exceptions import ParameterError, UnknownNameError


def test_int_message_has_the_sklearn_shape() -> None:
    with pytest.raises(ParameterError) as info:
        check_int(0, "k", "KAnonymity", low=1)
    assert str(info.value) == "The 'k' parameter of KAnonymity must be an int >= 1. Got 0 instead."
    assert (info.value.parameter, info.value.owner, info.value.got) == ("k", "KAnonymity", 0)
    assert info.value.expected == "an int >= 1"


@pytest.mark.parametrize("bad", [True, False, 1.0, "3", None, np.float64(2.0)])
def test_int_refuses_non_ints(bad: object) -> None:
    with pytest.raises(ParameterError):
        check_int(bad, "k", "X", low=1)


def test_int_takes_numpy_ints_and_returns_an_int() -> None:
    out = check_int(np.int32(4), "k", "X", low=1, high=4)
    assert out == 4 and type(out) is int
    with pytest.raises(ParameterError, match="an int between 1 and 4"):
        check_int(5, "k", "X", low=1, high=4)


@pytest.mark.parametrize(
    ("interval", "text"),
    [
        (Interval(int, 1), "an int >= 1"),
        (Interval(int, 0), "an int >= 0"),
        (Interval(float, 1), "a real number >= 1"),
        (Interval(float, 0, closed="neither"), "a real number > 0"),
        (Interval(float, 0, 1), "a real number between 0 and 1"),
        (Interval(float, 0, 1, "right"), "a real number in (0, 1]"),
        (Interval(float, 0, 1, "neither"), "a real number in (0, 1)"),
        (Interval(float, 0, 1, noun="a share"), "a share between 0 and 1"),
        (Interval(float, None, 2.5), "a real number <= 2.5"),
        (Interval(int), "an int"),
    ],
)
def test_interval_descriptions(interval: Interval, text: str) -> None:
    assert str(interval) == text


def test_interval_bounds() -> None:
    right = Interval(float, 0, 1, "right")
    assert not right.accepts(0) and right.accepts(1) and right.accepts(0.5)
    left = Interval(float, 0, 1, "left")
    assert left.accepts(0) and not left.accepts(1)
    assert not Interval(float, 0).accepts(math.nan)
    assert not Interval(float).accepts(math.inf)
    assert not Interval(float).accepts(True)


def test_real_returns_a_float() -> None:
    out = check_real(1, "t", "X", low=0, high=1)
    assert out == 1.0 and type(out) is float
    with pytest.raises(ParameterError, match=r"must be a real number > 0\. Got -1 instead"):
        check_real(-1, "delta", "X", low=0, closed="neither")


def test_choice() -> None:
    assert check_choice("drop", "suppressed", "anonymize", ("mask", "drop")) == "drop"
    with pytest.raises(ParameterError) as info:
        check_choice("hide", "suppressed", "anonymize", ("mask", "drop"))
    assert str(info.value) == (
        "The 'suppressed' parameter of anonymize must be 'mask' or 'drop'. Got 'hide' instead."
    )
    assert str(Options(("a", "b", "c"))) == "'a', 'b' or 'c'"
    assert str(Options(("a",))) == "'a'"
    assert not Options(("a",)).accepts(["a"])


def test_bool() -> None:
    assert check_bool(False, "leak_check", "anonymize") is False
    with pytest.raises(ParameterError, match="must be True or False"):
        check_bool(1, "leak_check", "anonymize")
    assert str(Boolean()) == "True or False"


def test_names() -> None:
    assert check_name("age", "attribute", "X") == "age"
    for bad in ("", "  ", 3, None):
        with pytest.raises(ParameterError, match="non-empty column name"):
            check_name(bad, "attribute", "X")
    assert check_names("age", "quasi_identifiers", "X") == ("age",)
    assert check_names(["age", "sex"], "quasi_identifiers", "X") == ("age", "sex")
    with pytest.raises(ParameterError, match="a column name or a list of column names"):
        check_names(["age", 3], "quasi_identifiers", "X")
    assert not Names().accepts(b"age") and not Name().accepts(b"age")


def test_items() -> None:
    assert check_items((1, 2), "sizes", "X", int, "ints") == [1, 2]
    assert check_items([], "sizes", "X", int, "ints", allow_empty=True) == []
    with pytest.raises(ParameterError) as info:
        check_items([], "sizes", "X", int, "ints")
    assert info.value.expected == "a non-empty sequence of ints" and info.value.got == []
    with pytest.raises(ParameterError) as info:
        check_items([1, "2"], "sizes", "X", (int, float), "numbers", allow_empty=True)
    assert str(info.value) == (
        "The 'sizes' parameter of X must be a sequence of numbers. Got ['int', 'str'] instead."
    )


def test_lookup() -> None:
    registry = {"loss": 1, "height": 2}
    assert lookup(registry, "height", "metric") == 2
    with pytest.raises(UnknownNameError) as info:
        lookup(registry, "los", "metric")
    assert str(info.value) == (
        "Unknown metric 'los' (did you mean 'loss'?); choose one of: height, loss."
    )
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_parameters_come_from_the_signature() -> None:
    class Search(Parameters):
        def __init__(self, k: int = 2, *, seed: int | None = None) -> None:
            self.k = k
            self.seed = seed

    assert Search(5).get_params() == {"k": 5, "seed": None}
    assert repr(Search(seed=1)) == "Search(k=2, seed=1)"


def test_set_params_sets_and_reaches_inside_frozen_dataclasses() -> None:
    @dataclass(frozen=True)
    class Limits:
        share: float = 0.0
        inner: Any = None

    class Search(Parameters):
        def __init__(self, k: int = 2, limits: Any = None) -> None:
            self.k = k
            self.limits = limits

    est = Search(limits=Limits(inner=Limits()))
    assert est.get_params(deep=False) == {"k": 2, "limits": Limits(inner=Limits())}
    assert est.get_params()["limits__inner__share"] == 0.0
    before = est.limits
    assert est.set_params(k=3, limits__share=0.5, limits__inner__share=0.1) is est
    assert (
        est.k == 3 and est.limits == Limits(0.5, Limits(0.1)) and before == Limits(inner=Limits())
    )
    with pytest.raises(UnknownNameError) as info:
        est.set_params(width=1)
    assert str(info.value) == "Unknown parameter 'width' of Search; choose one of: k, limits."
    with pytest.raises(UnknownNameError, match="'size' of limits"):
        est.set_params(limits__size=1)
    with pytest.raises(UnknownNameError, match="'x' of k"):
        est.set_params(k__x=1)
    with pytest.raises(UnknownNameError, match="'width'"):  # nothing set before the refusal
        est.set_params(k=9, width=1)
    assert est.k == 3


def test_validate_checks_the_named_parameters_in_order() -> None:
    constraints = {"k": Interval(int, 1), "suppressed": Options(("mask", "drop"))}
    validate({"k": 2, "other": object()}, constraints, "anonymize")
    with pytest.raises(ParameterError) as info:
        validate({"suppressed": "x", "k": 0}, constraints, "anonymize")
    assert info.value.parameter == "k"


def test_check_returns_the_value_unchanged() -> None:
    value = np.int64(3)
    assert check(value, Interval(int, 1), "k", "X") is value


# ------------------------------------------------------- models declare what they protect
def _models() -> list[tuple[object, tuple[str, ...], int]]:
    from anonkit.core.hierarchy import Hierarchy
    from anonkit.models import (
        AverageRisk,
        BasicBetaLikeness,
        DeltaDisclosure,
        DeltaPresence,
        DistinctLDiversity,
        EnhancedBetaLikeness,
        EntropyLDiversity,
        EqualDistanceTCloseness,
        HierarchicalTCloseness,
        KAnonymity,
        KMap,
        MUniqueness,
        OrderedDistanceTCloseness,
        RecursiveCLDiversity,
    )

    h = Hierarchy([["a", "*"], ["b", "*"]])
    return [
        (KAnonymity(4), (), 4),
        (DistinctLDiversity("d", l=3), ("d",), 3),
        (EntropyLDiversity("d", l=2.5), ("d",), 3),
        (RecursiveCLDiversity("d", c=2, l=2), ("d",), 2),
        (EqualDistanceTCloseness("d", t=0.2), ("d",), 1),
        (OrderedDistanceTCloseness("d", t=0.2), ("d",), 1),
        (HierarchicalTCloseness("d", t=0.2, hierarchy=h), ("d",), 1),
        (DeltaDisclosure("d", delta=1.0), ("d",), 1),
        (BasicBetaLikeness("d", beta=1.0), ("d",), 1),
        (EnhancedBetaLikeness("d", beta=1.0), ("d",), 1),
        (KMap(5), (), 1),
        (MUniqueness("d", m=3), ("d",), 3),
        (DeltaPresence(0.1, 0.9), (), 1),
        (AverageRisk(0.2), (), 1),
    ]


def test_every_model_declares_its_attributes_and_least_class_size() -> None:
    from anonkit.models import MODELS, PrivacyModel

    cases = _models()
    assert {type(m) for m, _, _ in cases} == set(MODELS.values())
    for model, attributes, size in cases:
        assert isinstance(model, PrivacyModel)
        assert model.sensitive_attributes == attributes, model
        assert model.min_class_size == size, model


def test_a_model_missing_the_declarations_is_not_a_privacy_model() -> None:
    from anonkit.models import PrivacyModel

    class Old:
        requires = frozenset({"class_size"})
        monotone_generalization = monotone_suppression = class_local = True

        def violations(self, classes: object) -> object:
            return classes

        def describe(self) -> str:
            return "old"

    assert not isinstance(Old(), PrivacyModel)


def test_split_k_anonymity() -> None:
    from anonkit.models import KAnonymity, KMap, split_k_anonymity

    assert split_k_anonymity([KAnonymity(2), KMap(3), KAnonymity(5)]) == (5, (KMap(3),))
    assert split_k_anonymity([KMap(3)]) == (None, (KMap(3),))
    assert split_k_anonymity([]) == (None, ())


# ---------------------------------------------------------- the TOML loader's wording
@pytest.mark.parametrize(
    ("privacy", "key", "expected"),
    [
        ("k = 0", "privacy.k", "an int >= 1, not an integer (0)"),
        ('k = "5"', "privacy.k", "an int >= 1, not a string ('5')"),
        ("k = 2\nsuppression_limit = 1.5", "privacy.suppression_limit", "a share between 0"),
    ],
)
def test_config_reports_the_shared_checks_with_key_and_file(
    tmp_path: Path, privacy: str, key: str, expected: str
) -> None:
    from anonkit.config import load_config
    from anonkit.exceptions import ConfigError

    path = tmp_path / "run.toml"
    path.write_text(
        f'input = "t.csv"\n[attributes]\nquasi_identifiers = ["a"]\n[privacy]\n{privacy}\n'
    )
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert f"The key '{key}' in {path.resolve()} must be {expected}" in message


def test_config_choices_and_booleans(tmp_path: Path) -> None:
    from anonkit.config import load_config
    from anonkit.exceptions import ConfigError

    base = 'input = "t.csv"\n[attributes]\nquasi_identifiers = ["a"]\n[privacy]\nk = 2\n'
    path = tmp_path / "run.toml"
    path.write_text(base + '[release]\nsuppressed = "hide"\n')
    with pytest.raises(ConfigError, match=r"'release.suppressed' .* must be 'mask' or 'drop'"):
        load_config(path)
    path.write_text(base + "[release]\nleak_check = 1\n")
    with pytest.raises(ConfigError, match=r"'release.leak_check' .* must be true or false"):
        load_config(path)


@pytest.mark.parametrize("bad", [False, True, 1, "bar"])
def test_progress_must_be_a_callback(bad: object) -> None:
    """``progress=False`` (a natural guess for "no progress") is refused up front,
    naming the parameter, instead of failing deep inside the search."""
    import polars as pl

    import anonkit
    from anonkit.estimators import FullDomain, Privacy
    from anonkit.models import KAnonymity

    frame = pl.DataFrame({"a": ["1", "2"]})
    with pytest.raises(ParameterError, match="progress"):
        anonkit.anonymize(frame, quasi_identifiers=["a"], k=1, progress=bad)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="progress"):
        FullDomain(privacy=Privacy([KAnonymity(2)]), progress=bad)._validate()  # type: ignore[arg-type]


def test_a_choice_off_by_a_typo_is_suggested() -> None:
    from anonkit._validation import check_choice

    with pytest.raises(ParameterError) as info:
        check_choice("Drop", "suppressed", "anonymize", ("mask", "drop"))
    assert str(info.value).endswith("Got 'Drop' instead. Did you mean 'drop'?")
    with pytest.raises(ParameterError) as info:
        check_choice("hide", "suppressed", "anonymize", ("mask", "drop"))
    assert "Did you mean" not in str(info.value)


@pytest.mark.parametrize(
    ("given", "hint"), [(5, "0.05"), (2.5, "0.025"), ("4%", "0.04"), ("0.5 %", "0.005")]
)
def test_a_share_written_as_a_percentage_is_pointed_out(given: object, hint: str) -> None:
    from anonkit._validation import check_real

    with pytest.raises(ParameterError) as info:
        check_real(given, "suppression_limit", "anonymize", low=0, high=1, noun="a share")
    assert str(info.value).endswith(f"Did you mean {hint}?")
    with pytest.raises(ParameterError) as info:
        check_real(-1, "suppression_limit", "anonymize", low=0, high=1, noun="a share")
    assert "Did you mean" not in str(info.value)


def test_setting_a_part_of_a_parameter_that_is_none_says_what_to_do() -> None:
    """FullDomain().set_params(privacy__suppression_limit=0.05) said "Unknown parameter
    'suppression_limit' of privacy; choose one of: ." (privacy was None)."""
    from anonkit.estimators import FullDomain

    with pytest.raises(ParameterError, match=r"'privacy'.*set as a whole first \(privacy=\.\.\.\)"):
        FullDomain().set_params(privacy__suppression_limit=0.05)


def test_an_int_past_the_floats_is_judged_by_its_exact_value() -> None:
    """10**400 has no float: it was an OverflowError, not a verdict."""
    assert check_int(10**400, "k", "anonymize", low=1) == 10**400
    with pytest.raises(ParameterError, match="between 1 and 5"):
        check_int(10**400, "k", "anonymize", low=1, high=5)
    assert SEED.accepts(10**400) and not SEED.accepts(-(10**400))
