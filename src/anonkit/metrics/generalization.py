"""Information-loss metrics for full-domain (global recoding) transformations.

Pure functions of a :class:`NodeSummary`: the transformation's levels, its equivalence
classes and which of them are suppressed. All are losses (lower is better). Suppressed
records are written with every quasi-identifier ``*``, so wherever a metric looks at cells
a suppressed record counts as generalized to the root of every hierarchy.

These functions are the reference definitions (and the test oracle): the search in
:mod:`anonkit.algorithms.lattice` prices nodes from the metric definitions of
:mod:`anonkit.metrics.node_metrics` (per-column cost tables, flags, lower bounds), computed
independently; the tests check both paths agree.

Names: every metric here is a loss. ``"precision"`` is ``1 - Prec`` (a loss);
the API reports Sweeney's precision itself as ``precision_score`` next to it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from anonkit._arrays import BoolArray, IntArray
from anonkit._validation import lookup
from anonkit.core.hierarchy import Hierarchy


@dataclass(frozen=True, eq=False)
class NodeSummary:
    """A full-domain transformation and its equivalence classes.

    Attributes
    ----------
    levels
        Generalization level of each quasi-identifier.
    hierarchies
        One hierarchy per quasi-identifier.
    codes
        ``(n_classes, n_qi)``: each class's code at ``levels`` per quasi-identifier.
    sizes
        Records per class.
    suppressed
        Which classes are suppressed.
    value_counts
        Per quasi-identifier, records holding each original (level-0) value.
    k
        The k of the k-anonymity requirement (1 if there is none); used by C_avg.
    """

    levels: tuple[int, ...]
    hierarchies: tuple[Hierarchy, ...]
    codes: IntArray
    sizes: IntArray
    suppressed: BoolArray
    value_counts: tuple[IntArray, ...]
    k: int = 1

    @property
    def n_records(self) -> int:
        return int(self.sizes.sum())

    @property
    def n_suppressed(self) -> int:
        return int(self.sizes[self.suppressed].sum())


def height_loss(s: NodeSummary) -> float:
    """Generalization height (absolute distance, Samarati & Sweeney 1998).

    ``sum_j d_j``, the sum of the levels. A property of the transformation only; suppressed
    records do not change it.
    """
    return float(sum(s.levels))


def relative_distance_loss(s: NodeSummary) -> float:
    """Relative distance (Samarati & Sweeney 1998): ``sum_j d_j / |DGH_j|``.

    ``|DGH_j|`` is the highest level of hierarchy ``j``; each term lies in [0, 1].
    Suppressed records do not change it.
    """
    return float(
        sum(lv / h.max_level for lv, h in zip(s.levels, s.hierarchies, strict=True) if h.max_level)
    )


def precision_loss(s: NodeSummary) -> float:
    """One minus Sweeney's precision (Sweeney 2002, "Achieving k-anonymity ...").

    ``Prec = 1 - (sum over records i and QIs j of h_ij / |DGH_j|) / (N * Q)``; this
    function returns ``1 - Prec`` in [0, 1]. A suppressed record has ``h_ij = |DGH_j|``.
    """
    n, q = s.n_records, len(s.levels)
    kept = n - s.n_suppressed
    total = 0.0
    for lv, h in zip(s.levels, s.hierarchies, strict=True):
        frac = lv / h.max_level if h.max_level else 0.0
        total += kept * frac + s.n_suppressed * (1.0 if h.max_level else 0.0)
    return total / (n * q)


def generalized_loss(s: NodeSummary) -> float:
    """Iyengar's loss metric LM (generalized information loss), normalized to [0, 1].

    For a cell generalized to hierarchy node ``x``: ``(M - 1) / (|A| - 1)`` with ``M`` the
    leaves of the hierarchy under ``x`` and ``|A|`` all leaves of the hierarchy. The loss of
    an attribute is the mean over records; this returns the mean over attributes as well.
    A suppressed cell costs 1.

    References
    ----------
    V. S. Iyengar. Transforming data to satisfy privacy constraints. KDD 2002.
    """
    n, q = s.n_records, len(s.levels)
    kept = ~s.suppressed
    total = 0.0
    for j, (lv, h) in enumerate(zip(s.levels, s.hierarchies, strict=True)):
        a = len(h.leaves)
        if a <= 1:
            continue
        cell = (h.leaf_counts(lv) - 1) / (a - 1)
        total += float((cell[s.codes[kept, j]] * s.sizes[kept]).sum()) + s.n_suppressed
    return total / (n * q)


def discernibility_loss(s: NodeSummary) -> float:
    """Discernibility metric (Bayardo & Agrawal 2005).

    ``C_DM = sum over kept classes of f^2 + (suppressed records) * N``: every record is
    charged the size of its class, a suppressed record the size of the table.
    """
    kept = s.sizes[~s.suppressed].astype(np.float64)
    return float((kept * kept).sum() + s.n_suppressed * float(s.n_records))


def average_class_size_loss(s: NodeSummary) -> float:
    """Normalized average equivalence-class size (LeFevre et al. 2006).

    ``C_avg = N / (n_classes * k)``. Suppressed records all read ``*`` and so form one
    class together. Ideal value 1; larger is worse.
    """
    n_classes = int((~s.suppressed).sum()) + (1 if s.n_suppressed else 0)
    return s.n_records / (n_classes * s.k)


def nonuniform_entropy_loss(s: NodeSummary) -> float:
    """Non-uniform entropy (Gionis & Tassa 2009), in bits.

    ``sum over records i and QIs j of -log2 P(X_j = x_ij | X'_j = x'_ij)`` where the
    probability is the share, among records whose value generalizes to ``x'_ij``, of those
    holding ``x_ij``. A suppressed cell generalizes to the root: ``-log2(c(x) / N)``.

    References
    ----------
    A. Gionis, T. Tassa. k-Anonymization with minimal loss of information. IEEE TKDE
    21(2), 2009.
    """
    n = s.n_records
    kept = ~s.suppressed
    total = 0.0
    for j, (lv, h) in enumerate(zip(s.levels, s.hierarchies, strict=True)):
        counts = s.value_counts[j].astype(np.float64)
        present = counts[counts > 0]
        base = -float((present * np.log2(present)).sum())  # sum_x c(x) * -log2 c(x)
        anc = np.bincount(h.codes(lv), weights=counts, minlength=len(h.labels(lv)))
        kept_part = float((s.sizes[kept] * np.log2(anc[s.codes[kept, j]])).sum())
        total += base + kept_part + s.n_suppressed * float(np.log2(n))
    return max(total, 0.0)


MetricFunction = Callable[[NodeSummary], float]

#: Metric names of the API and the configuration, mapped to their definitions.
METRICS: dict[str, MetricFunction] = {
    "height": height_loss,
    "relative_distance": relative_distance_loss,
    "precision": precision_loss,
    "loss": generalized_loss,
    "discernibility": discernibility_loss,
    "average_class_size": average_class_size_loss,
    "nonuniform_entropy": nonuniform_entropy_loss,
}


def get_metric(name: str) -> MetricFunction:
    """Look up a metric by name; the error lists the known names."""
    return lookup(METRICS, name, "metric")


def all_metrics(s: NodeSummary) -> dict[str, float]:
    """Every metric of :data:`METRICS` for one transformation, all losses.

    ``"precision"`` is the loss ``1 - Prec``; callers that report Sweeney's precision
    itself add it as ``precision_score`` (the API does).
    """
    out = {name: fn(s) for name, fn in METRICS.items()}
    return out
