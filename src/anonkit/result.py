"""The immutable result of an anonymization."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from anonkit._frozen import FrozenDict
from anonkit.metrics.classes import ClassProfile


@dataclass(frozen=True)
class AnonymizationResult:
    """What :func:`anonkit.anonymize` returns.

    Attributes
    ----------
    release
        The released table, of the caller's frame type (pandas or polars): quasi-identifiers
        generalized, identifying columns removed, no row index.
    transformation
        Generalization level chosen for each quasi-identifier (0 = original values).
    algorithm, metric
        What ran and the name (a key of ``metrics``) of what it minimized: the search's
        metric for a full-domain run, ``"cost_<cost>"`` for greedy merging, ``"sse"`` for
        microaggregation, ``"none"`` for Mondrian (its cuts follow a rule).
    privacy
        The privacy models the release satisfies, described.
    n_records
        Records in the input.
    suppressed
        Records suppressed (written with ``*`` or dropped).
    suppression_limit
        The largest share of records the run could suppress.
    classes
        Equivalence classes of the released (not suppressed) records.
    metrics
        Full-domain: every information-loss metric of the chosen transformation (lower
        is better; ``precision`` is one minus Sweeney's precision), plus
        ``precision_score`` (Sweeney's precision itself, higher is better); with local
        suppression, measured on the release its blanked cells made. Local recoding: the
        algorithm's own figures (cost and alteration of greedy merging, SSE and IL of
        microaggregation) and the losses :func:`anonkit.evaluate.evaluate` measures.
    nodes_evaluated, lattice_size
        Lattice nodes whose classes were computed, and the lattice's number of nodes.
    timing
        Seconds per stage (``encode``, ``search``, ``release``, ``total``).
    minimal_transformations
        For Incognito: every minimal private transformation.
    details
        Algorithm-specific figures (effective k of greedy merging, SSE/IL of
        microaggregation, cells blanked by local suppression, ...), JSON-ready.
    verified
        The release passed the independent re-check (:func:`anonkit.verify.verify_release`):
        its classes, recounted from the released labels, satisfy every model.
    risk
        Re-identification risk of the released records (:func:`anonkit.verify.release_risk`):
        prosecutor (highest, average), journalist (with a population table), marketer,
        sample uniques, records at risk.
    checks
        The columns of each role, undeclared columns dropped, whether the leak check ran
        and its warnings, and each model's verdict on the released classes.
    family
        ``"full_domain"`` (a lattice search: ``transformation``, ``nodes_evaluated``,
        ``lattice_size`` and ``minimal_transformations`` describe it) or ``"local"``
        (Mondrian, greedy merging, microaggregation: those fields are empty or 0 and
        ``details`` holds the algorithm's own figures).
    """

    release: Any
    transformation: Mapping[str, int]
    algorithm: str
    metric: str
    privacy: tuple[str, ...]
    n_records: int
    suppressed: int
    suppression_limit: float
    classes: ClassProfile
    metrics: Mapping[str, float]
    nodes_evaluated: int
    lattice_size: int
    timing: Mapping[str, float]
    minimal_transformations: tuple[Mapping[str, int], ...] = ()
    details: Mapping[str, Any] = field(default_factory=lambda: FrozenDict({}))
    verified: bool = False
    risk: Mapping[str, float | None] = field(default_factory=lambda: FrozenDict({}))
    checks: Mapping[str, Any] = field(default_factory=lambda: FrozenDict({}))
    family: str = "full_domain"

    @property
    def suppressed_share(self) -> float:
        return self.suppressed / self.n_records if self.n_records else 0.0

    @property
    def search_note(self) -> str | None:
        """Why a search's release is not proven optimal (a heuristic, or an exact search
        stopped early: a full-domain search's ``details["search"]``, k-Optimize's
        ``details["k_optimize"]``), for people; ``None`` when it is proven optimal or the
        result does not say."""
        bounded = self.details.get("k_optimize")
        if isinstance(bounded, Mapping) and bounded.get("optimal") is False:
            return f"not proven optimal: k_optimize {_STOPPED['time_limit']}"
        search = self.details.get("search")
        if not isinstance(search, Mapping) or search.get("optimal", True):
            return None
        why = _STOPPED.get(
            str(search.get("stopped")), 'is a heuristic (algorithm="flash" proves the optimum)'
        )
        return f"not proven optimal: {search.get('algorithm', self.algorithm)} {why}"

    def to_dict(self) -> dict[str, Any]:
        """Everything but the release, as plain JSON-ready values."""
        return {
            "algorithm": self.algorithm,
            "family": self.family,
            "metric": self.metric,
            "privacy": list(self.privacy),
            "transformation": dict(self.transformation),
            "n_records": self.n_records,
            "suppressed": self.suppressed,
            "suppressed_share": self.suppressed_share,
            "suppression_limit": self.suppression_limit,
            "classes": self.classes.to_dict(),
            "metrics": dict(self.metrics),
            "nodes_evaluated": self.nodes_evaluated,
            "lattice_size": self.lattice_size,
            "timing_seconds": dict(self.timing),
            "minimal_transformations": [dict(m) for m in self.minimal_transformations],
            "details": dict(self.details),
            "verified": self.verified,
            "search_note": self.search_note,
            "risk": dict(self.risk),
            "checks": _plain(self.checks),
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """The summary (:meth:`to_dict`) as JSON; never contains records."""
        return json.dumps(self.to_dict(), indent=indent)

    def __repr__(self) -> str:
        return (
            f"AnonymizationResult(algorithm={self.algorithm!r}, "
            f"transformation={dict(self.transformation)}, suppressed={self.suppressed}, "
            f"classes={self.classes.n_classes}, achieved_k={self.classes.min_size})"
        )


#: Why a search stopped before it proved its release optimal (``details["search"]
#: ["stopped"]``), and how to search on.
_STOPPED = {
    "time_limit": "stopped at its time limit (a larger time_limit searches longer)",
    "max_nodes": "stopped at its node budget (a larger max_nodes searches further)",
    "interrupted": "was interrupted: the best release found until then",
}


def _plain(value: Any) -> Any:
    """Mappings and tuples of ``value`` as dicts and lists (for JSON)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
