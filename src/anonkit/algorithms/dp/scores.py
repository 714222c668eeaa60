"""SafePub's score functions: data quality models rewritten with a bounded sensitivity.

The exponential mechanism needs a score whose change, when one record is added to or
removed from the (sampled) table, is bounded. Bild, Kuhn and Prasser (2018, Section 5)
rewrite common quality models as such scores, computed on the sampled table after every
class of fewer than ``k`` records is suppressed, and divide each by its sensitivity so
that the mechanism runs with ``Δ = 1``. Higher is better. With ``m`` quasi-identifiers,
``S`` suppressed and ``U`` released records:

* ``granularity`` (Section 5.1): ``-Σ_records Σ_j share_j / (m · max(k - 1, 1))``, where
  ``share_j`` is the number of leaves under the released value of attribute ``j`` divided by
  the leaves of its hierarchy, and 1 for a suppressed cell (raw sensitivity ``m (k - 1)``:
  one added record can turn a suppressed class of ``k - 1`` records into a released one);
* ``intensity`` (Section 5.1, generalization intensity, "precision"):
  ``-Σ_j (U · level_j / height_j + S) / (m · max(k - 1, 1))``;
* ``discernibility`` (Section 5.2): ``-(Σ_released |E|² + n · S) / (n · (k² / (k - 1) + 1))``
  (``5 n`` for ``k = 1``), ``n`` the number of records of the input table;
* ``group_size`` (Section 5.3, the number of classes behind the average class size): the
  released classes plus one when any record is suppressed (all ``*`` records read as one
  class); raw sensitivity 1.

Where the implementation had to choose: the scores are computed over the sample only (the
reference implementation also counts the records left out by sampling as suppressed, which
adds the same constant to every candidate and does not change the mechanism's choice);
``n`` of the discernibility score is the input's size, as in the reference implementation.
The paper's non-uniform entropy and classification scores are not implemented.

References
----------
Bild, R., Kuhn, K. A., Prasser, F. (2018). SafePub: A truthful data anonymization algorithm
with strong privacy guarantees. Proceedings on Privacy Enhancing Technologies 2018(1), 67-87.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from anonkit._arrays import BoolArray, IntArray
from anonkit._validation import lookup
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import UnknownNameError

__all__ = ["SCORES", "NodeClasses", "get_score", "raw_sensitivity"]


@dataclass(frozen=True, eq=False)
class NodeClasses:
    """The classes of one lattice node on the sample, as the scores read them.

    Attributes
    ----------
    levels
        The node's level per quasi-identifier.
    codes
        ``(m, n_classes)`` each class's code per quasi-identifier at its level.
    sizes
        Records per class.
    suppressed
        Classes suppressed (fewer than ``k`` records).
    hierarchies
        One hierarchy per quasi-identifier.
    k
        The class size SafePub derived from ε and δ.
    n_records
        Records of the input table (before sampling).
    """

    levels: tuple[int, ...]
    codes: IntArray
    sizes: IntArray
    suppressed: BoolArray
    hierarchies: tuple[Hierarchy, ...]
    k: int
    n_records: int

    @property
    def width(self) -> int:
        return len(self.levels)


def raw_sensitivity(name: str, *, k: int, m: int, n: int) -> float:
    """The sensitivity the paper gives for score ``name`` before normalization."""
    if name in ("granularity", "intensity"):
        return float(m * max(k - 1, 1))
    if name == "discernibility":
        return float(n * (5.0 if k == 1 else k * k / (k - 1) + 1.0))
    if name == "group_size":
        return 1.0
    raise UnknownNameError("score", name, tuple(SCORES))


def granularity_score(c: NodeClasses) -> float:
    """Granularity (share of each released value's leaves), normalized."""
    kept = ~c.suppressed
    total = float(c.sizes[c.suppressed].sum()) * c.width  # every suppressed cell costs 1
    for j, (h, lv) in enumerate(zip(c.hierarchies, c.levels, strict=True)):
        share = h.leaf_counts(lv).astype(np.float64) / len(h.leaves)
        total += float((share[c.codes[j, kept]] * c.sizes[kept]).sum())
    return -total / raw_sensitivity("granularity", k=c.k, m=c.width, n=c.n_records)


def intensity_score(c: NodeClasses) -> float:
    """Generalization intensity (level over height per attribute), normalized."""
    released = float(c.sizes[~c.suppressed].sum())
    suppressed = float(c.sizes[c.suppressed].sum())
    total = 0.0
    for h, lv in zip(c.hierarchies, c.levels, strict=True):
        frac = lv / h.max_level if h.max_level else 0.0
        total += released * frac + suppressed
    return -total / raw_sensitivity("intensity", k=c.k, m=c.width, n=c.n_records)


def discernibility_score(c: NodeClasses) -> float:
    """Discernibility (squared class sizes, ``n`` per suppressed record), normalized."""
    kept = c.sizes[~c.suppressed].astype(np.float64)
    suppressed = float(c.sizes[c.suppressed].sum())
    total = float(kept @ kept) + c.n_records * suppressed
    return -total / raw_sensitivity("discernibility", k=c.k, m=c.width, n=c.n_records)


def group_size_score(c: NodeClasses) -> float:
    """The number of released classes, plus one when records are suppressed."""
    n_classes = int((~c.suppressed).sum())
    return float(n_classes + (1 if bool(c.sizes[c.suppressed].sum()) else 0))


ScoreFunction = Callable[[NodeClasses], float]

#: SafePub's score functions by name (higher is better, sensitivity 1).
SCORES: dict[str, ScoreFunction] = {
    "granularity": granularity_score,
    "intensity": intensity_score,
    "discernibility": discernibility_score,
    "group_size": group_size_score,
}


def get_score(name: str) -> ScoreFunction:
    """The score function called ``name``."""
    return lookup(SCORES, name, "score")


def names() -> Sequence[str]:
    """The score names."""
    return tuple(SCORES)
