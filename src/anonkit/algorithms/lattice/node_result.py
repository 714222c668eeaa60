"""What the evaluator learns about one lattice node (:class:`NodeResult`)."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class NodeResult:
    """What the evaluator learned about one node.

    ``cost`` is the metric value of the release this node would give (violating classes
    suppressed); ``bound`` is a lower bound on ``cost`` of this node and every node above it.
    ``forced_below`` (computed when ``Evaluator.track_forced`` is set) is a lower bound on
    the records suppressed at every node below, see :mod:`.convex`. With ``track_forced``,
    a node whose size-only screens already force more suppression than allowed is not
    judged further: its ``suppressed`` is then that lower bound. ``loss`` is the plain
    ``loss`` metric of a private node's release (the tie-break of
    :func:`~anonkit.algorithms.lattice.search.rank`; ``inf`` when not private).
    """

    index: int
    levels: tuple[int, ...]
    anonymous: bool
    suppressed: int
    n_classes: int
    cost: float
    bound: float
    forced_below: float = 0.0
    loss: float = math.inf
