"""Samarati's binary search on lattice height (Samarati 2001)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.node_result import NodeResult
from anonkit.algorithms.lattice.search import (
    ANONYMOUS,
    NOT_ANONYMOUS,
    UNKNOWN,
    SearchResult,
    no_solution,
    rank,
    tag,
    to_result,
)

__all__ = ["Samarati", "lowest_private_height"]


def lowest_private_height(
    evaluator: Evaluator,
) -> tuple[int | None, list[list[int]], npt.NDArray[np.int8]]:
    """Samarati's search for the lowest lattice height holding a private node: by
    bisection when the models are monotone, else height by height from the bottom.

    :class:`Samarati` picks its answer among that height's nodes, and
    :class:`~.allmin.AllMin` walks up from it, reusing what the search tagged; one search
    serves both so that they evaluate the same nodes in the same order.

    Returns
    -------
    lowest, by_height, status
        The lowest private height (``None`` when no node is private); each height's
        nodes, in numeric order; the status (:data:`~.search.ANONYMOUS` and its
        siblings) of every node the search evaluated, or tagged from one it evaluated
        when the models are monotone.
    """
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
                    status[node] = ANONYMOUS if res.anonymous else NOT_ANONYMOUS
            if status[node] == ANONYMOUS:
                return True
        return False

    hi = lat.max_height
    if not evaluator.privacy_monotone:
        # a private height need not have private heights above it: bisection would miss
        # the lowest, so the heights are tried from the bottom
        lowest = next((h for h in range(hi + 1) if satisfiable(h)), None)
        return lowest, by_height, status
    if not satisfiable(hi):
        return None, by_height, status
    lo = 0
    while lo < hi:
        mid = (lo + hi) // 2
        if satisfiable(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo, by_height, status


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
        lowest, by_height, _ = lowest_private_height(evaluator)
        if lowest is None:
            raise no_solution(evaluator)
        best: NodeResult | None = None
        for node in by_height[lowest]:
            res = evaluator.evaluate(node)
            if res.anonymous and (best is None or rank(res) < rank(best)):
                best = res
        if best is None:  # only possible for models that are not monotone
            raise no_solution(evaluator)
        return to_result(self.name, best, evaluator.evaluations)
