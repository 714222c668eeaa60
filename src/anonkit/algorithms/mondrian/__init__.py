"""Mondrian multidimensional partitioning (LeFevre, DeWitt & Ramakrishnan 2006).

Public surface:

* :class:`Mondrian` / :func:`mondrian`: the algorithm on encoded columns
  (:class:`NumericQI`, :class:`HierarchicalQI`, :class:`OrderedQI`,
  :class:`SensitiveAttribute`); returns a :class:`MondrianResult`.
* :func:`fit_frame` / :func:`release_frame`: the same from and to a polars DataFrame.
"""

from __future__ import annotations

from anonkit.algorithms.mondrian.attributes import (
    HierarchicalQI,
    NumericQI,
    OrderedQI,
    QuasiIdentifier,
    SensitiveAttribute,
)
from anonkit.algorithms.mondrian.estimator import NUMERIC_RELEASES, Mondrian, mondrian
from anonkit.algorithms.mondrian.frame import fit_frame, release_frame
from anonkit.algorithms.mondrian.partition import IMPLEMENTATIONS, MODES, SPLITS
from anonkit.algorithms.mondrian.release import MondrianResult, ReleasedAttribute

__all__ = [
    "IMPLEMENTATIONS",
    "MODES",
    "NUMERIC_RELEASES",
    "SPLITS",
    "HierarchicalQI",
    "Mondrian",
    "MondrianResult",
    "NumericQI",
    "OrderedQI",
    "QuasiIdentifier",
    "ReleasedAttribute",
    "SensitiveAttribute",
    "fit_frame",
    "mondrian",
    "release_frame",
]
