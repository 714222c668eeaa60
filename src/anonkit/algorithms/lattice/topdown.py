"""Top-down specialization: an anytime search that starts from the most general release.

After Fung, Wang and Yu (2005): start with every quasi-identifier fully generalized (the
top of the lattice, the release most likely private) and specialize one attribute at a
time while the release stays private, keeping the best private release seen. The paper
scores a specialization by information gain per privacy loss on a classification target;
this module has no target, so it scores by the metric the search minimizes.

Choices made here:

1. **First improvement, cheapest bound first.** At a node, its predecessors (one attribute
   one level finer) are tried in the order of their lower bound (the metric's cost without
   suppression, or the steering price of :func:`.anytime.steering`); the first one found
   private becomes the current node. A full scan of all predecessors per step (the paper's
   best-score rule) costs a node evaluation per attribute and step, too slow on wide
   tables (24 attributes, depth 60 on the credit table).
2. **Predictive tagging.** With monotone models, a predecessor below a node found not
   private is skipped without evaluation.
3. **Restarts.** When no predecessor is private (a minimal private node), the descent
   restarts from the top with the predecessor order perturbed at random (seeded): with
   probability 1/2 per step the first two candidates are swapped. The search ends when its
   budget runs out, or after :data:`STALE_RESTARTS` descents in a row evaluated no new node.

Only nodes the evaluator found private become the incumbent, so the result is private
for every model, however early the search stops.

References
----------
B. C. M. Fung, K. Wang, P. S. Yu. Top-down specialization for information and privacy
preservation. ICDE 2005.
"""

from __future__ import annotations

import random

from anonkit.algorithms.lattice.anytime import AnytimeSearch, node_bound, price, steering
from anonkit.algorithms.lattice.evaluator import Evaluator

#: Descents in a row that evaluate no new node before the search ends.
STALE_RESTARTS = 20


class TopDown(AnytimeSearch):
    """Top-down specialization from the most general node, anytime (see the module).

    Parameters
    ----------
    time_limit, max_nodes, seed
        See :class:`~anonkit.algorithms.lattice.anytime.AnytimeSearch`.
    """

    name = "topdown"

    def run(self, evaluator: Evaluator) -> None:
        lat = evaluator.lattice
        rng = random.Random(0 if self.seed is None else self.seed)
        prices = steering(evaluator)
        bounded = evaluator.cost_model.levels_bound
        monotone = evaluator.privacy_monotone
        failing: list[tuple[int, ...]] = []

        def order_key(levels: tuple[int, ...]) -> float:
            return node_bound(evaluator, levels) if bounded else price(prices, levels)

        def hopeless(levels: tuple[int, ...]) -> bool:
            return monotone and any(
                all(a <= b for a, b in zip(levels, f, strict=True)) for f in failing
            )

        stale, first = 0, True
        while stale < STALE_RESTARTS:
            before = self._evaluated
            node = lat.top
            res = self.evaluate(node)
            if not res.anonymous:
                return  # the top is not private: nothing below it is either (monotone)
            while True:
                preds = [lat.node(p) for p in lat.predecessors(node)]
                preds = [p for p in preds if not hopeless(p)]
                preds.sort(key=lambda lv: (order_key(lv), lv))
                if not first:
                    for i in range(len(preds) - 1):
                        if rng.random() < 0.5:
                            preds[i], preds[i + 1] = preds[i + 1], preds[i]
                moved = False
                for levels in preds:
                    cand = lat.index(levels)
                    got = self.evaluate(cand)
                    if got.anonymous:
                        node, moved = cand, True
                        break
                    if monotone:
                        failing.append(got.levels)
                if not moved:
                    break
            first = False
            stale = stale + 1 if self._evaluated == before else 0


__all__ = ["STALE_RESTARTS", "TopDown"]
