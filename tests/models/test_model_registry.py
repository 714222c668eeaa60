"""The model registry, and one contract test over every registered model."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ParameterError, UnknownNameError
from anonkit.models import MODELS, PrivacyModel, model_from_config
from anonkit.models.base import (
    CLASS_SIZE,
    POPULATION_COUNT,
    SENSITIVE_HISTOGRAM,
    ClassSummary,
    SensitiveColumn,
)
from anonkit.models.registry import model_parameters

TREE = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]])

#: valid parameters for every registered model
EXAMPLES: dict[str, dict[str, object]] = {
    "k_anonymity": {"k": 2},
    "distinct_l_diversity": {"attribute": "s", "l": 2},
    "entropy_l_diversity": {"attribute": "s", "l": 1.5},
    "recursive_cl_diversity": {"attribute": "s", "c": 3, "l": 2},
    "equal_t_closeness": {"attribute": "s", "t": 0.3},
    "ordered_t_closeness": {"attribute": "s", "t": 0.3, "order": ["c", "b", "a"]},
    "hierarchical_t_closeness": {"attribute": "s", "t": 0.3, "hierarchy": TREE},
    "delta_disclosure": {"attribute": "s", "delta": 1.0},
    "basic_beta_likeness": {"attribute": "s", "beta": 1.0},
    "enhanced_beta_likeness": {"attribute": "s", "beta": 1.0},
    "k_map": {"k": 3},
    "delta_presence": {"delta_min": 0.1, "delta_max": 0.9},
    "average_risk": {"threshold": 0.4},
    "m_uniqueness": {"attribute": "s", "m": 2},
}


def test_registry_names() -> None:
    assert isinstance(MODELS, dict)
    assert set(MODELS) == set(EXAMPLES)


def _summary() -> ClassSummary:
    hist = np.array([[2, 0, 0], [1, 1, 1], [0, 2, 2], [1, 0, 0]])
    col = SensitiveColumn("s", ("a", "b", "c"), hist, hist.sum(axis=0), TREE)
    return ClassSummary(
        hist.sum(axis=1),
        int(hist.sum()),
        {"s": col},
        population=np.array([4, 10, 5, 1]),
        population_size=30,
    )


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_contract(name: str) -> None:
    model = model_from_config(name, EXAMPLES[name])
    assert isinstance(model, MODELS[name])
    assert isinstance(model, PrivacyModel)
    assert model.requires and model.requires <= {CLASS_SIZE, SENSITIVE_HISTOGRAM, POPULATION_COUNT}
    for flag in ("monotone_generalization", "monotone_suppression", "class_local"):
        assert isinstance(getattr(type(model), flag), bool)
    # monotone with suppression implies monotone without it
    assert model.monotone_generalization or not model.monotone_suppression
    if SENSITIVE_HISTOGRAM in model.requires:
        assert model.attribute == "s"  # type: ignore[attr-defined]
    mask = model.violations(_summary())
    assert mask.dtype == np.bool_ and mask.shape == (4,)
    assert isinstance(model.describe(), str) and model.describe()
    assert dataclasses.is_dataclass(model)
    hash(model)
    assert model == model_from_config(name, EXAMPLES[name])
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(model, dataclasses.fields(model)[0].name, None)


def test_model_parameters() -> None:
    assert model_parameters("recursive_cl_diversity") == (("attribute", "c", "l"), ())
    assert model_parameters("hierarchical_t_closeness") == (("attribute", "t"), ("hierarchy",))


def test_unknown_name_lists_the_models() -> None:
    with pytest.raises(UnknownNameError) as info:
        model_from_config("l_diversity", {"attribute": "s", "l": 2})
    assert "distinct_l_diversity" in str(info.value) and "average_risk" in str(info.value)
    assert info.value.kind == "privacy model"
    # dashes and case are forgiven
    assert model_from_config("Distinct-L-Diversity", {"attribute": "s", "l": 2}).l == 2


def test_missing_unknown_and_bad_parameters_are_named() -> None:
    with pytest.raises(ParameterError) as info:
        model_from_config("distinct_l_diversity", {"attribute": "s"})
    assert info.value.parameter == "l" and "required" in str(info.value)
    with pytest.raises(ParameterError) as info:
        model_from_config("distinct_l_diversity", {"attribute": "s", "l": 2, "c": 3})
    assert info.value.parameter == "c"
    assert "takes only 'attribute', 'l'" in str(info.value)
    with pytest.raises(ParameterError) as info:
        model_from_config("distinct_l_diversity", {"attribute": "s", "l": 2.5})
    assert info.value.parameter == "l"
    with pytest.raises(ParameterError) as info:
        model_from_config("k_anonymity", [("k", 2)])  # type: ignore[arg-type]
    assert info.value.parameter == "params"


def test_hierarchy_path(tmp_path) -> None:
    path = tmp_path / "disease.csv"
    TREE.to_csv(path)
    model = model_from_config(
        "hierarchical_t_closeness", {"attribute": "s", "t": 0.2, "hierarchy": str(path)}
    )
    assert model.hierarchy == TREE
    assert (
        model_from_config(
            "hierarchical_t_closeness", {"attribute": "s", "t": 0.2, "hierarchy": path}
        ).hierarchy
        == TREE
    )
