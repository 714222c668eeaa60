"""Parameter checks of local suppression: models, importance, int arrays, sensitive codes."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray, IntArray
from anonkit.algorithms.local_suppression.result import SensitiveArray
from anonkit.exceptions import ParameterError
from anonkit.models.base import POPULATION_COUNT, SENSITIVE_HISTOGRAM, PrivacyModel
from anonkit.models.k_anonymity import KAnonymity, split_k_anonymity

if TYPE_CHECKING:
    from anonkit.core.hierarchy import Hierarchy

OWNER = "local suppression"
#: A sensitive attribute as the judge reads it: name, codes, number of values, labels,
#: hierarchy.
SensitiveSpec = tuple[str, IntArray, int, tuple[str, ...], "Hierarchy | None"]


def resolve_models(
    k: int | None, models: Sequence[PrivacyModel], n_records: int
) -> list[PrivacyModel]:
    if isinstance(models, PrivacyModel):
        models = [models]
    resolved: list[PrivacyModel] = [] if k is None else [KAnonymity(k)]
    for m in models:
        if not isinstance(m, PrivacyModel):
            raise ParameterError("models", OWNER, "privacy model objects", type(m).__name__)
        if POPULATION_COUNT in m.requires or not m.class_local:
            raise ParameterError(
                "models",
                OWNER,
                "class-local models that need no population table",
                m.describe(),
            )
        resolved.append(m)
    if not resolved:
        raise ParameterError("k", OWNER, "given (or a list of privacy models in 'models')", None)
    largest, _ = split_k_anonymity(resolved)
    if largest is not None and largest > n_records:
        raise ParameterError(
            "k", "KAnonymity", f"at most the number of records ({n_records})", largest
        )
    return resolved


def sensitive_names(models: Iterable[PrivacyModel]) -> list[str]:
    """The sensitive attributes whose histograms ``models`` read, each once, in order."""
    return list(
        dict.fromkeys(
            name
            for m in models
            if SENSITIVE_HISTOGRAM in m.requires
            for name in m.sensitive_attributes
        )
    )


def importance_weights(importance: Sequence[float] | None, q: int) -> FloatArray:
    if importance is None:
        return np.ones(q)
    values = list(importance)
    ok = len(values) == q and all(
        isinstance(v, (int, float, np.integer, np.floating))
        and not isinstance(v, bool)
        and math.isfinite(float(v))
        and float(v) > 0
        for v in values
    )
    if not ok:
        raise ParameterError(
            "importance", OWNER, f"{q} finite numbers > 0, one per quasi-identifier", importance
        )
    return np.asarray(values, dtype=np.float64)


def int_array(values: npt.ArrayLike, parameter: str, ndim: int) -> IntArray:
    arr = np.asarray(values)
    if arr.ndim != ndim or (arr.size and arr.dtype.kind not in "iu"):
        shape = "a 2-D int array (records x quasi-identifiers)" if ndim == 2 else "a 1-D int array"
        raise ParameterError(parameter, OWNER, shape, f"{arr.dtype} array of shape {arr.shape}")
    return arr.astype(np.int64, copy=False)


def sensitive_specs(
    models: Sequence[PrivacyModel], sensitive: Mapping[str, SensitiveArray] | None, n: int
) -> list[SensitiveSpec]:
    given = dict(sensitive or {})
    out = []
    for name in sensitive_names(models):
        if name not in given:
            raise ParameterError(
                "sensitive", OWNER, f"the codes of sensitive attribute {name!r}", sorted(given)
            )
        spec = given[name]
        codes = int_array(spec.codes, f"sensitive[{name!r}]", 1)
        if codes.shape[0] != n or (codes.size and codes.min() < 0):
            raise ParameterError(
                f"sensitive[{name!r}]", OWNER, f"{n} non-negative int codes", codes.shape
            )
        top = int(codes.max()) + 1 if codes.size else 0
        labels = tuple(str(i) for i in range(top)) if spec.labels is None else tuple(spec.labels)
        if len(labels) < top:
            raise ParameterError(
                f"sensitive[{name!r}]", OWNER, f"codes below {len(labels)}", top - 1
            )
        out.append((name, codes, len(labels), labels, spec.hierarchy))
    return out
