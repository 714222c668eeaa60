"""MinGen: evaluate every node, keep the best private one (Sweeney 2002)."""

from __future__ import annotations

from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.node_result import NodeResult
from anonkit.algorithms.lattice.search import SearchResult, no_solution, rank, to_result


class Exhaustive:
    """Evaluate every node of the lattice and return the minimum-cost private one.

    Correct by construction, and the oracle the other searches are tested against. Nodes
    are visited by height so each snapshot is rolled up from a cached predecessor.

    References
    ----------
    L. Sweeney. Achieving k-anonymity privacy protection using generalization and
    suppression. IJUFKS 10(5), 2002 (algorithm MinGen).
    """

    name = "exhaustive"

    def search(self, evaluator: Evaluator) -> SearchResult:
        best: NodeResult | None = None
        for idx in evaluator.lattice.by_height():
            res = evaluator.evaluate(int(idx))
            if res.anonymous and (best is None or rank(res) < rank(best)):
                best = res
        if best is None:
            raise no_solution(evaluator)
        return to_result(self.name, best, evaluator.evaluations)
