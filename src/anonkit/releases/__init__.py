"""Successive releases of a changing table, safe against linkage with earlier releases.

* :class:`ReleaseHistory`: what earlier releases published (signatures by record id),
  saved atomically;
* :func:`publish`: a release under m-invariance (Xiao & Tao 2007) or τ-safety (Anjum et
  al. 2017), with counterfeit records and their count per class;
* :func:`linkage_attack`: the intersection attack of seed 001 on successive releases.

This package sits above the algorithms and estimators: it imports downward only.
"""

from anonkit.releases.attack import covers, linkage_attack
from anonkit.releases.history import ReleaseHistory
from anonkit.releases.sequential import MODELS, SequentialRelease, publish

__all__ = ["MODELS", "ReleaseHistory", "SequentialRelease", "covers", "linkage_attack", "publish"]
