"""allMin: every minimal private full-domain generalization (Samarati 2001)."""

from __future__ import annotations

import numpy as np

from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.node_result import NodeResult
from anonkit.algorithms.lattice.samarati import lowest_private_height
from anonkit.algorithms.lattice.search import (
    NOT_ANONYMOUS,
    SearchResult,
    no_solution,
    rank,
    tag,
    to_result,
)


class AllMin:
    """Find all minimal private generalizations, then the best of them by the metric.

    A node (a level per quasi-identifier) is *private* when its classes satisfy every
    model once the violating classes are suppressed within the limit (Samarati's
    MaxSup). It is *minimal* when no node it generalizes is private. Samarati (2001,
    Section 4) shows that minimal generalizations may sit at different heights, and that
    her binary search on height only finds those at the lowest height; allMin enumerates
    all of them:

    1. Samarati's binary search (:func:`~.samarati.lowest_private_height`, the one
       :class:`~.samarati.Samarati` runs) finds the lowest height ``h*`` holding a
       private node (with predictive tagging: below a failing node every node fails,
       above a private one every node is private).
    2. Heights ``h*, h* + 1, ...`` are then visited in turn. A node that generalizes an
       already found minimal node is private but not minimal and is skipped; a node
       below a failing node fails and is skipped. Every other node is evaluated, and a
       private one is minimal: any private node below it would lie above a minimal node
       found at a lower height.

    ``SearchResult.minimal`` lists the minimal nodes (level vectors, sorted), and
    ``node`` is the best of them by the evaluator's metric (:func:`~.search.rank`: cost,
    then fewer suppressed records, lower loss, height, node number). For a metric that
    grows with generalization the optimum is always minimal; for others, the best
    minimal node may cost more than the global optimum (Flash finds that one). This is
    the choice the paper implies: its preferences among minimal generalizations are
    left to the user.

    Models that are not monotone (t-closeness with suppression, for instance): a private
    node may lie above a failing one and below another private one, so no tagging is
    sound. Then every node is evaluated and *minimal* means: private, with no private
    node anywhere in its down-set (the nodes it generalizes). For monotone models the
    two definitions coincide.

    References
    ----------
    P. Samarati. Protecting respondents' identities in microdata release. IEEE TKDE
    13(6), 2001 (Section 4: minimal generalizations; the binary search on height).
    """

    name = "allmin"

    def search(self, evaluator: Evaluator) -> SearchResult:
        if evaluator.privacy_monotone:
            minimal = self._monotone(evaluator)
        else:
            minimal = self._any(evaluator)
        if not minimal:
            raise no_solution(evaluator)
        lat = evaluator.lattice
        results = [evaluator.results[i] for i in minimal]
        best: NodeResult = min(results, key=rank)
        levels = tuple(sorted(lat.node(i) for i in minimal))
        return to_result(self.name, best, evaluator.evaluations, minimal=levels)

    def _monotone(self, evaluator: Evaluator) -> list[int]:
        lat = evaluator.lattice
        lowest, by_height, status = lowest_private_height(evaluator)
        if lowest is None:
            return []
        covered = np.zeros(lat.size, dtype=bool)  # generalizes a minimal node found so far
        minimal: list[int] = []
        for height in range(lowest, lat.max_height + 1):
            for node in by_height[height]:
                if covered[node] or status[node] == NOT_ANONYMOUS:
                    continue
                res = evaluator.results.get(node) or evaluator.evaluate(node)
                tag(status, evaluator, res)
                if res.anonymous:
                    minimal.append(node)
                    covered |= lat.upset(node)
        return minimal

    def _any(self, evaluator: Evaluator) -> list[int]:
        lat = evaluator.lattice
        private = np.zeros(lat.size, dtype=bool)
        for idx in lat.by_height().tolist():
            private[int(idx)] = evaluator.evaluate(int(idx)).anonymous
        return [
            i
            for i in np.flatnonzero(private).tolist()
            if int(np.count_nonzero(private & lat.downset(i))) == 1
        ]
