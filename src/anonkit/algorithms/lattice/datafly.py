"""Datafly: greedy generalization of the attribute with most distinct values (Sweeney 1997)."""

from __future__ import annotations

import numpy as np

from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.search import SearchResult, no_solution, to_result


class Datafly:
    """Generalize, one step at a time, the quasi-identifier with the most distinct values.

    Starting from the original data, while more records violate the privacy models than
    the suppression limit allows, the attribute with the most distinct values at its
    current level (ties: the first in column order) goes up one level; the remaining
    violating records are then suppressed. Fast, not optimal.

    References
    ----------
    L. Sweeney. Guaranteeing anonymity when sharing medical data, the Datafly system.
    Proc. AMIA Annual Fall Symposium, 1997.
    """

    name = "datafly"

    def search(self, evaluator: Evaluator) -> SearchResult:
        lat = evaluator.lattice
        node = lat.bottom
        while True:
            res = evaluator.evaluate(node)
            if res.anonymous:
                return to_result(self.name, res, evaluator.evaluations)
            snap = evaluator.snapshot(node)
            levels = lat.nodes[node]
            best_j, best_distinct = -1, -1
            for j in range(lat.width):
                if levels[j] + 1 >= lat.heights[j]:
                    continue
                distinct = int(np.unique(snap.codes[j]).size)
                if distinct > best_distinct:
                    best_j, best_distinct = j, distinct
            if best_j < 0:
                raise no_solution(evaluator, self.name)
            node += int(lat.strides[best_j])
