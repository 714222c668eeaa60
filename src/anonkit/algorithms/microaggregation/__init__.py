"""Microaggregation: k-anonymity by replacing small groups of records with their aggregates.

Records are partitioned into groups of at least ``k`` and every quasi-identifier value is
replaced by its group's mean, median or mode (seed 002; Domingo-Ferrer & Mateo-Sanz 2002).
Three ways to form the groups:

* ``univariate`` -- sort by one attribute, cut into runs of ``k``
  (:func:`univariate_groups`);
* ``mdav`` -- the multivariate MDAV heuristic on standardized attributes
  (:func:`mdav_groups`); it reproduces the published information loss on the CASC
  Census, Tarragona and EIA benchmarks;
* ``gmm`` -- Gaussian-mixture clusters repaired to at least ``k`` records
  (:func:`gmm_groups`, needs scikit-learn).

The loss is ``IL = 100 * SSE / SST`` on standardized attributes (:func:`information_loss`).
:class:`Microaggregation` (scikit-learn-style parameters) runs the whole pipeline and
returns a frozen :class:`MicroaggregationResult`.

Examples
--------
>>> import numpy as np
>>> result = microaggregate(np.array([[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]]), k=3)
>>> result.values.ravel().tolist(), result.min_group_size
([2.0, 2.0, 2.0, 11.0, 11.0, 11.0], 3)
"""

from __future__ import annotations

from anonkit.algorithms.microaggregation.aggregate import AGGREGATES, aggregate, group_aggregates
from anonkit.algorithms.microaggregation.estimator import (
    METHODS,
    Microaggregation,
    MicroaggregationResult,
    microaggregate,
    numeric_columns,
)
from anonkit.algorithms.microaggregation.gmm import gmm_groups, repair_small_groups
from anonkit.algorithms.microaggregation.loss import information_loss, sse, sst, standardize
from anonkit.algorithms.microaggregation.mdav import mdav_groups
from anonkit.algorithms.microaggregation.univariate import univariate_groups

__all__ = [
    "AGGREGATES",
    "METHODS",
    "Microaggregation",
    "MicroaggregationResult",
    "aggregate",
    "gmm_groups",
    "group_aggregates",
    "information_loss",
    "mdav_groups",
    "microaggregate",
    "numeric_columns",
    "repair_small_groups",
    "sse",
    "sst",
    "standardize",
    "univariate_groups",
]
