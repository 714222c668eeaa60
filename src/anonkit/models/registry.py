"""Privacy models by configuration name.

The TOML config and the CLI name models as in :data:`MODELS` and give their parameters by
the model's field names, e.g. ``{"attribute": "occupation", "l": 3}`` for
``distinct_l_diversity``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ParameterError, UnknownNameError
from anonkit.models.base import PrivacyModel
from anonkit.models.disclosure import BasicBetaLikeness, DeltaDisclosure, EnhancedBetaLikeness
from anonkit.models.k_anonymity import KAnonymity
from anonkit.models.l_diversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from anonkit.models.m_uniqueness import MUniqueness
from anonkit.models.population import DeltaPresence, KMap
from anonkit.models.risk import AverageRisk
from anonkit.models.t_closeness import (
    EqualDistanceTCloseness,
    HierarchicalTCloseness,
    OrderedDistanceTCloseness,
)

#: Configuration name -> model class.
MODELS: dict[str, type] = {
    "k_anonymity": KAnonymity,
    "distinct_l_diversity": DistinctLDiversity,
    "entropy_l_diversity": EntropyLDiversity,
    "recursive_cl_diversity": RecursiveCLDiversity,
    "equal_t_closeness": EqualDistanceTCloseness,
    "ordered_t_closeness": OrderedDistanceTCloseness,
    "hierarchical_t_closeness": HierarchicalTCloseness,
    "delta_disclosure": DeltaDisclosure,
    "basic_beta_likeness": BasicBetaLikeness,
    "enhanced_beta_likeness": EnhancedBetaLikeness,
    "k_map": KMap,
    "delta_presence": DeltaPresence,
    "average_risk": AverageRisk,
    "m_uniqueness": MUniqueness,
}


def model_parameters(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The required and the optional parameter names of model ``name``.

    Examples
    --------
    >>> model_parameters("ordered_t_closeness")
    (('attribute', 't'), ('order',))
    """
    cls = _lookup(name)
    fields = [f for f in dataclasses.fields(cls) if f.init]
    required = tuple(
        f.name
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    )
    optional = tuple(f.name for f in fields if f.name not in required)
    return required, optional


def model_from_config(name: str, params: Mapping[str, object]) -> PrivacyModel:
    """Build the privacy model configured as ``name`` with ``params``.

    A ``hierarchy`` parameter of ``hierarchical_t_closeness`` may be a path to a hierarchy
    file (read with :meth:`Hierarchy.from_csv`; a relative path is taken from the current
    directory, so a config loader should resolve it against the config file first).

    Raises
    ------
    UnknownNameError
        If ``name`` is not in :data:`MODELS` (the message lists them).
    ParameterError
        If a parameter is missing, unknown or invalid (the message names it).

    Examples
    --------
    >>> model_from_config("distinct_l_diversity", {"attribute": "occupation", "l": 3})
    DistinctLDiversity(attribute='occupation', l=3)
    >>> try:
    ...     model_from_config("k_map", {"k": 5, "l": 2})
    ... except ParameterError as exc:
    ...     print(exc)
    The 'l' parameter of KMap must be left out: KMap takes only 'k'. Got 2 instead.
    """
    cls = _lookup(name)
    owner = cls.__name__
    if not isinstance(params, Mapping):
        raise ParameterError("params", "model_from_config", "a mapping of names to values", params)
    required, optional = model_parameters(name)
    known = required + optional
    for key, value in params.items():
        if key not in known:
            takes = ", ".join(repr(k) for k in known)
            raise ParameterError(str(key), owner, f"left out: {owner} takes only {takes}", value)
    for key in required:
        if key not in params:
            raise ParameterError(key, owner, "given (it is required)", None)
    kwargs = dict(params)
    hierarchy = kwargs.get("hierarchy")
    if cls is HierarchicalTCloseness and isinstance(hierarchy, (str, os.PathLike)):
        attribute = kwargs.get("attribute")
        kwargs["hierarchy"] = Hierarchy.from_csv(
            os.fspath(hierarchy), name=attribute if isinstance(attribute, str) else None
        )
    model = cls(**kwargs)
    assert isinstance(model, PrivacyModel)
    return model


def _lookup(name: str) -> type:
    if not isinstance(name, str):
        raise UnknownNameError("privacy model", repr(name), list(MODELS))
    cls = MODELS.get(name.strip().lower().replace("-", "_"))
    if cls is None:
        raise UnknownNameError("privacy model", name, list(MODELS))
    return cls
