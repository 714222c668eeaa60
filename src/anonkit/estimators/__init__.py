"""Estimators in the scikit-learn sense, one per algorithm family.

Each stores its parameters unchanged, checks them (declared as data) when :meth:`fit`
runs, returns itself fitted (``result_``, ``transformation_``, ``hierarchies_``) and
writes new records the way the release writes its own with ``transform``:

* :class:`FullDomain` (``search="flash"``, ``metric=...``): one hierarchy level per
  quasi-identifier, found by a lattice search;
* :class:`Mondrian` (``mode``, ``split``, ``numeric_release``), :class:`GreedyMerge`
  (``cost``), :class:`Microaggregation` (``method``, ``aggregate``): local recoding.

What must hold is a :class:`Privacy` value (models, suppression limit, population).
:func:`anonkit.anonymize` maps its flat keywords onto these classes and accepts one as
``algorithm``. ``Mondrian``, ``GreedyMerge`` and ``Microaggregation`` here take a frame and
the column roles; the classes of the same names in :mod:`anonkit.algorithms` are the
algorithms they wrap, working on one table of quasi-identifiers.

Examples
--------
>>> import polars as pl
>>> from anonkit.models import KAnonymity
>>> df = pl.DataFrame({"age": [30, 31, 40, 41], "zip": ["1", "1", "2", "2"]})
>>> est = Mondrian(privacy=Privacy(KAnonymity(2))).fit(
...     df, quasi_identifiers=["age", "zip"], numeric=["age"])
>>> est.transform(pl.DataFrame({"age": [40], "zip": ["2"]}))["age"].to_list()
['[40-41]']
"""

from anonkit.estimators.base import Estimator, Privacy
from anonkit.estimators.full_domain import FullDomain
from anonkit.estimators.local import GreedyMerge, Microaggregation, Mondrian

__all__ = ["Estimator", "FullDomain", "GreedyMerge", "Microaggregation", "Mondrian", "Privacy"]
