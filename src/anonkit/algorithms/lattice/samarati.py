"""Samarati's binary search on lattice height (Samarati 2001)."""

from __future__ import annotations

import numpy as np

from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.node_result import NodeResult
from anonkit.algorithms.lattice.search import (
    ANONYMOUS,
    UNKNOWN,
    SearchResult,
    no_solution,
    rank,
    tag,
    to_result,
)


class Samarati:
    """Binary search for the lowest lattice height holding a private node.

    If some node at height ``h`` is private, a node at every greater height is (one of its
    generalizations), so the lowest such height can be found by bisection. Among the
    private nodes at that height the metric picks the result; records of classes that
    violate the models are suppressed up to the limit (Samarati's MaxSup).

    References
    ----------
    P. Samarati. Protecting respondents' identities in microdata release. IEEE TKDE
    13(6), 2001.
    """

    name = "samarati"

    def search(self, evaluator: Evaluator) -> SearchResult:
        lat = evaluator.lattice
        status = np.zeros(lat.size, dtype=np.int8)
        by_height: list[list[int]] = [[] for _ in range(lat.max_height + 1)]
        for idx in range(lat.size):
            by_height[int(lat.levels[idx])].append(idx)

        def satisfiable(height: int) -> bool:
            for node in by_height[height]:
                if status[node] == UNKNOWN:
                    res = evaluator.evaluate(node)
                    if evaluator.privacy_monotone:
                        tag(status, evaluator, res)
                    else:
                        status[node] = ANONYMOUS if res.anonymous else -1
                if status[node] == ANONYMOUS:
                    return True
            return False

        lo, hi = 0, lat.max_height
        if not satisfiable(hi):
            raise no_solution(evaluator)
        while lo < hi:
            mid = (lo + hi) // 2
            if satisfiable(mid):
                hi = mid
            else:
                lo = mid + 1
        best: NodeResult | None = None
        for node in by_height[lo]:
            res = evaluator.evaluate(node)
            if res.anonymous and (best is None or rank(res) < rank(best)):
                best = res
        if best is None:  # only possible for models that are not monotone
            raise no_solution(evaluator)
        return to_result(self.name, best, evaluator.evaluations)
