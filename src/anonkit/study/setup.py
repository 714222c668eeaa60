"""What a utility study predicts from what: :class:`UtilitySetup`, the classifiers and
the two evaluations.

The types shared by :mod:`anonkit.study.features`, :mod:`anonkit.study.recode` and
:mod:`anonkit.study.ml` live here, so that none of them imports another to name them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from anonkit._validation import check_int
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ParameterError, UnknownNameError

__all__ = ["CLASSIFIERS", "EVALUATIONS", "UtilitySetup"]

#: Classifiers a study can train, in report order.
CLASSIFIERS: tuple[str, ...] = ("logistic_regression", "random_forest", "hist_gradient_boosting")
#: What a score was measured on.
EVALUATIONS: tuple[str, ...] = ("anonymized_test", "original_test")

_OWNER = "UtilitySetup"


@dataclass(frozen=True)
class UtilitySetup:
    """What to predict from what, and with which classifiers.

    Attributes
    ----------
    target
        The column to predict (e.g. ``"salary-class"``); released unchanged.
    quasi_identifiers
        Released (generalized) columns used as features.
    hierarchies
        Hierarchy of each categorical quasi-identifier, and of numeric quasi-identifiers
        that have one (used to recode test records under a full-domain transformation).
        A categorical quasi-identifier without one is read with a suppression-only
        hierarchy (its values or ``*``).
    numeric
        Quasi-identifiers read as numbers (exact values, ``[lo-hi]`` ranges, means, ``*``)
        and encoded as midpoint and width.
    features
        Extra non-quasi-identifier columns, used as they are (numbers) or one-hot (text).
    classifiers
        Names from :data:`CLASSIFIERS`.
    seed
        Random state of every classifier.
    n_jobs
        Threads per classifier (the runner parallelizes cells over processes).
    tuning
        Tune each classifier on its small grid (:data:`anonkit.study.ml.TUNING_GRIDS`) by
        cross-validation inside the training split before the final fit.

    Raises
    ------
    ParameterError, UnknownNameError
        At construction, for invalid values or unknown classifier names.

    Examples
    --------
    >>> UtilitySetup(target="y", quasi_identifiers=("age",), hierarchies={}, numeric=("age",))
    ... # doctest: +ELLIPSIS
    UtilitySetup(target='y', quasi_identifiers=('age',), ...)
    >>> UtilitySetup(target="y", quasi_identifiers=("age",), hierarchies={},
    ...              classifiers=("svm",))
    Traceback (most recent call last):
    ...
    anonkit.exceptions.UnknownNameError: Unknown classifier 'svm'; choose one of: ...
    """

    target: str
    quasi_identifiers: tuple[str, ...]
    hierarchies: Mapping[str, Hierarchy]
    numeric: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    classifiers: tuple[str, ...] = CLASSIFIERS
    seed: int = 0
    n_jobs: int = 1
    tuning: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.target, str) or not self.target:
            raise ParameterError("target", _OWNER, "a column name", self.target)
        for name in ("quasi_identifiers", "numeric", "features", "classifiers"):
            value = getattr(self, name)
            if isinstance(value, str) or not all(isinstance(v, str) for v in value):
                raise ParameterError(name, _OWNER, "a tuple of names", value)
        if not self.quasi_identifiers and not self.features:
            raise ParameterError("quasi_identifiers", _OWNER, "non-empty (or extra 'features')", ())
        used = [*self.quasi_identifiers, *self.features]
        if self.target in used:
            raise ParameterError("target", _OWNER, "a column that is not a feature", self.target)
        if len(set(used)) != len(used):
            raise ParameterError("features", _OWNER, "distinct from the quasi-identifiers", used)
        stray = [c for c in self.numeric if c not in self.quasi_identifiers]
        if stray:
            raise ParameterError("numeric", _OWNER, "quasi-identifiers", stray[0])
        if not isinstance(self.hierarchies, Mapping) or not all(
            isinstance(h, Hierarchy) for h in self.hierarchies.values()
        ):
            raise ParameterError(
                "hierarchies", _OWNER, "a mapping of column -> Hierarchy", self.hierarchies
            )
        if not self.classifiers:
            raise ParameterError("classifiers", _OWNER, "non-empty", self.classifiers)
        for c in self.classifiers:
            if c not in CLASSIFIERS:
                raise UnknownNameError("classifier", c, CLASSIFIERS)
        check_int(self.seed, "seed", _OWNER, low=0)
        check_int(self.n_jobs, "n_jobs", _OWNER, low=1)
        if not isinstance(self.tuning, bool):
            raise ParameterError("tuning", _OWNER, "True or False", self.tuning)
