"""Estimators in the scikit-learn sense, one per algorithm family.

Each stores its parameters unchanged, checks them (declared as data) when :meth:`fit`
runs, returns itself fitted (``result_``, ``transformation_``, ``hierarchies_``) and
writes new records the way the release writes its own with ``transform``:

* :class:`FullDomain` (``search="auto"``, ``metric=...``): one hierarchy level per
  quasi-identifier, found by a lattice search;
* :class:`Mondrian` (``mode``, ``split``, ``numeric_release``), :class:`GreedyMerge`
  (``cost``), :class:`Microaggregation` (``method``, ``aggregate``), :class:`Hilbert`,
  :class:`BangA`, :class:`KOptimize`: local recoding;
* :class:`SafePub` ((ε, δ)-differential privacy by sampling and generalization) and
  :class:`KEpsilon` ((k, ε)-anonymity: generalization, then noise on numeric columns).

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

import importlib
from typing import Any

from anonkit.estimators.base import Estimator, Privacy
from anonkit.estimators.full_domain import FullDomain
from anonkit.estimators.local import GreedyMerge, Microaggregation, Mondrian

TYPE_CHECKING = False
if TYPE_CHECKING:
    from anonkit.estimators.banga import BangA
    from anonkit.estimators.hilbert import Hilbert
    from anonkit.estimators.k_epsilon import KEpsilon
    from anonkit.estimators.koptimize import KOptimize
    from anonkit.estimators.safepub import SafePub

#: Estimators loaded on first use (PEP 562): they pull in their algorithms' packages,
#: which the everyday full-domain and local runs do not need.
_LAZY = {
    "BangA": "anonkit.estimators.banga",
    "Hilbert": "anonkit.estimators.hilbert",
    "KEpsilon": "anonkit.estimators.k_epsilon",
    "KOptimize": "anonkit.estimators.koptimize",
    "SafePub": "anonkit.estimators.safepub",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BangA",
    "Estimator",
    "FullDomain",
    "GreedyMerge",
    "Hilbert",
    "KEpsilon",
    "KOptimize",
    "Microaggregation",
    "Mondrian",
    "Privacy",
    "SafePub",
]
