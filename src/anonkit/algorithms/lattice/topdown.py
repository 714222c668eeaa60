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
   restarts, alternately from the top and from the incumbent with a few columns raised
   (a kick, as in iterated local search), with each candidate's gain (how much its bound
   falls below the current node's) multiplied by a random factor (seeded) whose spread
   grows with each descent that found nothing new. The search ends when its budget runs
   out, or after :data:`STALE_RESTARTS` descents in a row evaluated no new node.

Only nodes the evaluator found private become the incumbent, so the result is private
for every model, however early the search stops.

References
----------
B. C. M. Fung, K. Wang, P. S. Yu. Top-down specialization for information and privacy
preservation. ICDE 2005.
"""

from __future__ import annotations

import math
import random

import numpy as np

from anonkit.algorithms.lattice.anytime import AnytimeSearch, steering
from anonkit.algorithms.lattice.evaluator import Evaluator

#: Descents in a row that evaluate no new node before the search ends.
STALE_RESTARTS = 20
#: Spread (standard deviation of the log factor) of the candidates' gains in a restart,
#: times one plus the number of stale descents before it.
_NOISE = 0.5


class Descent:
    """Top-down descents through an anytime search's evaluations (see the module).

    It keeps the nodes found not private (with monotone models everything below one
    fails too), so several descents, and the searches that mix them with others
    (:class:`~anonkit.algorithms.lattice.combined.Combined`), share what they learned.
    """

    def __init__(self, search: AnytimeSearch, evaluator: Evaluator, rng: random.Random) -> None:
        self.search = search
        self.lat = evaluator.lattice
        self.rng = rng
        self.monotone = evaluator.privacy_monotone
        # per column and level, the order's terms: the bound's (the metric's cost without
        # suppression; the geometric aggregate: a_j log(1 + v_j), which orders nodes as
        # the bound does) or the steering prices for class-based metrics
        self.terms = [[float(x) for x in t] for t in steering(evaluator)]
        self.failing = np.zeros((16, self.lat.width), dtype=np.int16)
        self.n_failing = 0

    def key(self, levels: tuple[int, ...]) -> float:
        return sum(t[lv] for t, lv in zip(self.terms, levels, strict=True))

    def open_nodes(self, candidates: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        """The candidates not below a failing node (one array test for them all)."""
        if not (self.monotone and self.n_failing and candidates):
            return candidates
        cand = np.asarray(candidates, dtype=np.int16)
        fails = self.failing[None, : self.n_failing, :]
        below = (cand[:, None, :] <= fails).all(axis=2).any(axis=1)
        return [c for c, b in zip(candidates, below.tolist(), strict=True) if not b]

    def run(self, node: int, spread: float) -> int:
        """Specialize from the private node ``node`` until no predecessor is private,
        trying predecessors by their gain (how much their bound falls below the current
        node's) times a random factor ``exp(N(0, spread))``; returns the node reached."""
        lat, rng = self.lat, self.rng
        while True:
            here = self.key(lat.node(node))
            keyed = []
            for lv in self.open_nodes([lat.node(p) for p in lat.predecessors(node)]):
                gain = here - self.key(lv)
                noise = math.exp(rng.gauss(0.0, spread)) if spread else 1.0
                keyed.append((-gain * noise, lv))
            keyed.sort()
            moved = False
            for _, levels in keyed:
                cand = lat.index(levels)
                got = self.search.evaluate(cand)
                if got.anonymous:
                    node, moved = cand, True
                    break
                if self.monotone:
                    if self.n_failing == self.failing.shape[0]:
                        self.failing = np.concatenate([self.failing, np.zeros_like(self.failing)])
                    self.failing[self.n_failing] = got.levels
                    self.n_failing += 1
            if not moved:
                return node

    def kick_up(self, levels: tuple[int, ...]) -> tuple[int, ...]:
        """``levels`` with 2 to ``min(8, width / 3)`` random columns raised to a random
        higher level (a restart above the incumbent, as in iterated local search)."""
        rng, heights = self.rng, self.lat.heights
        width = len(levels)
        kicked = list(levels)
        count = min(width, rng.randint(2, max(2, min(8, width // 3))))
        for j in rng.sample(range(width), count):
            kicked[j] = rng.randint(kicked[j], heights[j] - 1)
        return tuple(kicked)


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
        descent = Descent(self, evaluator, random.Random(0 if self.seed is None else self.seed))
        stale, rounds = 0, 0
        while stale < STALE_RESTARTS:
            before = self._evaluated
            node = lat.top
            if rounds % 2 == 1 and self.best is not None:
                node = lat.index(descent.kick_up(self.best.levels))
            res = self.evaluate(node)
            if not res.anonymous:
                if rounds == 0:
                    return  # the top is not private: nothing below it is either (monotone)
                rounds += 1
                continue
            # the first descent follows the order; later ones perturb it, more after
            # descents that found nothing new
            descent.run(node, 0.0 if rounds == 0 else _NOISE * (1 + stale))
            rounds += 1
            stale = stale + 1 if self._evaluated == before else 0


__all__ = ["STALE_RESTARTS", "Descent", "TopDown"]
