"""Privacy models: small frozen value objects judged on equivalence-class summaries."""

from anonkit.models.base import ClassSummary, PrivacyModel
from anonkit.models.k_anonymity import KAnonymity

__all__ = ["ClassSummary", "KAnonymity", "PrivacyModel"]
