"""Greedy merging of equivalence classes with cost matrices (Mauger et al. 2020, Algorithm 1).

The table starts as its equivalence classes (the distinct quasi-identifier combinations,
counted once, never row by row). While some class is smaller than ``k``, a small class
``C_small`` is merged with the small class ``C`` of minimal merge cost::

    MC(C_small, C) = sum_i Cost_Qi(x_i, y_i) |C_small| + Cost_Qi(y_i, x_i) |C|

(see :mod:`anonkit.metrics.cost_matrix`): both classes are generalized to the lowest common
ancestors of their values, attribute by attribute. The result is a local recoding, each
class released at its own LCA values.

Choices the paper leaves open, and what this implementation does:

* ``C(T)`` is ordered by the classes' original value codes (hierarchy row order,
  lexicographic in column order), the order a group-by produces. ``small_class="first"``
  (the paper: "we simply use the first element of C(T)") takes the first small class and
  keeps merging into it, in place, until it reaches ``k``; then the next first small class
  is taken. ``small_class="smallest"`` takes a smallest small class instead (ties: first).
  ``small_class="queue"`` reads ``C(T)`` as a queue: the first small class merges once and,
  if still small, goes to the end of ``C(T)`` (so several classes grow in turn, as when a
  merged class is re-inserted into a set that is iterated again).
* Candidates ``C`` are the other small classes (``Cmk(T) \\ C_small``, as in the paper).
  When ``C_small`` is the only small class left, it merges with the class of minimal
  merge cost among all classes.
* Ties of the merge cost (within a relative ``1e-9``) go to the class that comes first in
  ``C(T)``; a merged class takes the earlier position of the classes it joins.
  ``order="random"`` (with ``seed``) lists ``C(T)`` in a seeded random order instead,
  which changes both the first small class and every tie-break; the result records per
  merge how many candidates tied (``tie_counts``).
* Equivalence classes are sets of records with identical released values: when a merge
  yields the values of another existing class, the two become one class (counted in
  ``n_fused``), so released classes never share their labels. ``fuse=False`` keeps them
  apart while merging and joins them only in the release.

The classes are ordered as a group-by of the codes in column order, so the order of the
quasi-identifiers matters (:data:`PAPER_ADULT_COLUMNS` is the paper's order for Adult).

The merge cost of ``C_small`` against every candidate is computed at once with numpy. A
class is a vector of hierarchy-node ids; since every weight telescopes
(``w(n -> m) = phi(m) - phi(n)``), ``MC = (|C_small| + |C|) phi(LCA) - |C_small| phi(x) -
|C| phi(y)``. For the fixed ``x = C_small``, ``phi(LCA(x, y))`` is a lookup table over the
nodes of each attribute; attributes are packed into a few groups whose joint node space is
small, so a candidate costs one table lookup per group. The summed lookups are kept while
``C_small``'s values do not change, which is most merges for large ``k``.

References
----------
C. Mauger, G. Le Mahec, G. Dequen. Modeling and evaluation of k-anonymization metrics.
PPAI workshop at AAAI 2020. hal-03236397.
"""

from anonkit.algorithms.greedy_merge.estimator import (
    ORDER_CHOICES,
    PAPER_ADULT_COLUMNS,
    PAPER_K_VALUES,
    SMALL_CLASS_CHOICES,
    GreedyMerge,
    greedy_merge,
)
from anonkit.algorithms.greedy_merge.merge import TIE_TOLERANCE
from anonkit.algorithms.greedy_merge.result import GreedyMergeResult
from anonkit.algorithms.greedy_merge.rows import JOINT_CACHE, JOINT_SPACE

__all__ = [
    "JOINT_CACHE",
    "JOINT_SPACE",
    "ORDER_CHOICES",
    "PAPER_ADULT_COLUMNS",
    "PAPER_K_VALUES",
    "SMALL_CLASS_CHOICES",
    "TIE_TOLERANCE",
    "GreedyMerge",
    "GreedyMergeResult",
    "greedy_merge",
]
