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
    violate the models are suppressed up to the limit (Samarati's MaxSup). With models
    that are not monotone a private height may have heights above it that are not, so the
    heights are tried from the bottom instead: the answer is the same lowest private
    height, found by more evaluations.

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
        if not evaluator.privacy_monotone:
            # a private height need not have private heights above it: bisection would
            # miss the lowest, so the heights are tried from the bottom
            lo = next((h for h in range(hi + 1) if satisfiable(h)), -1)
            if lo < 0:
                raise no_solution(evaluator)
        elif not satisfiable(hi):
            raise no_solution(evaluator)
        while lo < hi and evaluator.privacy_monotone:
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
