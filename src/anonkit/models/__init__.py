"""Privacy models: small frozen value objects judged on equivalence-class summaries.

Each model declares the per-class statistics it reads and whether it is monotone under
generalization (with and without suppression); :meth:`violations` returns the classes that
violate it. :mod:`anonkit.models.measure` measures the levels a release achieves, and
:mod:`anonkit.models.registry` builds models from configuration names.
"""

from anonkit.models import measure
from anonkit.models.base import (
    CLASS_SIZE,
    POPULATION_COUNT,
    SENSITIVE_HISTOGRAM,
    ClassSummary,
    PrivacyModel,
    SensitiveColumn,
)
from anonkit.models.disclosure import BasicBetaLikeness, DeltaDisclosure, EnhancedBetaLikeness
from anonkit.models.k_anonymity import KAnonymity, split_k_anonymity
from anonkit.models.l_diversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from anonkit.models.m_uniqueness import MUniqueness
from anonkit.models.measure import *  # noqa: F403 (the measures, named once in measure.__all__)
from anonkit.models.population import DeltaPresence, KMap
from anonkit.models.registry import MODELS, model_from_config
from anonkit.models.risk import AverageRisk
from anonkit.models.t_closeness import (
    EqualDistanceTCloseness,
    HierarchicalTCloseness,
    OrderedDistanceTCloseness,
)

__all__ = [
    "CLASS_SIZE",
    "MODELS",
    "POPULATION_COUNT",
    "SENSITIVE_HISTOGRAM",
    "AverageRisk",
    "BasicBetaLikeness",
    "ClassSummary",
    "DeltaDisclosure",
    "DeltaPresence",
    "DistinctLDiversity",
    "EnhancedBetaLikeness",
    "EntropyLDiversity",
    "EqualDistanceTCloseness",
    "HierarchicalTCloseness",
    "KAnonymity",
    "KMap",
    "MUniqueness",
    "OrderedDistanceTCloseness",
    "PrivacyModel",
    "RecursiveCLDiversity",
    "SensitiveColumn",
    "model_from_config",
    "split_k_anonymity",
]
__all__ += measure.__all__
