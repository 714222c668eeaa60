"""A genetic search over full-domain transformations, anytime and seeded.

After the genetic algorithm of ARX (Prasser, Eicher, Bild, Spengler, Kuhn): individuals
are level vectors, two sub-populations evolve side by side by elitism, crossover and
mutation, take in random immigrants and exchange their best individuals now and then. The
evaluator judges each individual; a private one is ranked by its cost, a non-private one
below every private one (fewer suppressed records first, then the cheaper levels), so
selection pushes the population onto the privacy frontier and along it towards cheap
releases.

Choices made here (ARX's code was read for the design only):

* **Initial population** on the "triangle" below the lattice's diagonal: individual ``i``
  of ``m`` draws every column's level uniformly below ``f_i * height`` with ``f_i``
  spread evenly over (0, 1], so the population covers every height of the lattice; the
  top node (the most private one) is always included, so a private individual exists
  from the first generation whenever the models allow one; so is the lowest private node
  of the greedy path that Lightning starts from (found by binary search, a handful of
  evaluations), so that the population holds a good release within the first second on
  wide tables (without it, the 24-column credit table had only the top node after 1 s).
* **Selection** by binary tournament; **crossover** uniform per column; **mutation** moves
  each column one level up or down with probability ``1/width`` (at least one column).
* **Immigration**: each generation the worst fifth of a sub-population is replaced by
  fresh triangle individuals; every 5 generations the best individual of each
  sub-population replaces the worst of the other.
* The search ends with its budget, when every node of the lattice has been evaluated,
  after 50 generations that evaluate no new node, or (without a time limit) after 50
  generations without a better private node.

References
----------
F. Prasser, J. Eicher, R. Bild, H. Spengler, K. A. Kuhn. A Tool for Optimizing
De-Identified Health Data for Use in Statistical Classification. IEEE CBMS 2017 (ARX's
genetic algorithm); benchmark tables: arx-deidentifier/genetic-benchmark.
"""

from __future__ import annotations

import math
import random

from anonkit.algorithms.lattice.anytime import AnytimeSearch, greedy_path, price, steering
from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.node_result import NodeResult

Levels = tuple[int, ...]

#: Individuals per sub-population.
_SUBPOPULATION = 24
#: Share of each sub-population carried over unchanged (the best ones).
_ELITE = 0.2
#: Share of each sub-population replaced by immigrants every generation.
_IMMIGRANTS = 0.2
#: Generations between exchanges of the best individuals.
_MIGRATION_EVERY = 5
#: Generations without improvement after which a search without time limit ends.
_PATIENCE = 50


class Genetic(AnytimeSearch):
    """Two sub-populations, elitism, crossover, mutation, immigration; anytime.

    Parameters
    ----------
    time_limit
        Seconds the search may run (default 10); ``None``: until 50 generations bring no
        improvement (or ``max_nodes``).
    max_nodes
        Largest number of nodes to evaluate (``None``: no limit).
    seed
        Seed of the random choices (``None``: 0). Equal seeds give equal results when the
        budget is ``max_nodes`` (a time limit stops wherever the clock says).
    """

    name = "genetic"

    def run(self, evaluator: Evaluator) -> None:
        lat = evaluator.lattice
        self._rng = random.Random(0 if self.seed is None else self.seed)
        self._heights = lat.heights
        self._prices = steering(evaluator)
        self._lat = lat
        m = _SUBPOPULATION
        populations = [self._triangle(m, with_top=(p == 0)) for p in range(2)]
        seed = self._path_seed()
        if seed is not None:
            populations[1][0] = seed
        populations = [self._ranked(pop) for pop in populations]
        generation, last_gain, best_cost = 0, 0, math.inf
        idle = 0
        while True:
            generation += 1
            before = self._evaluated
            populations = [self._next(pop) for pop in populations]
            idle = idle + 1 if self._evaluated == before else 0
            if idle >= _PATIENCE or (lat.explicit and len(self.seen) >= lat.size):
                return  # nothing new to try
            if generation % _MIGRATION_EVERY == 0:
                a, b = populations
                populations = [self._ranked(a[:-1] + b[:1]), self._ranked(b[:-1] + a[:1])]
            if self.best_cost < best_cost:
                best_cost, last_gain = self.best_cost, generation
            if self.time_limit is None and generation - last_gain >= _PATIENCE:
                return

    def _path_seed(self) -> Levels | None:
        """The lowest private node on the greedy path from the bottom (cheapest next
        level first), found by binary search: one good individual from the start."""
        path = greedy_path(self._heights, self._prices, (0,) * len(self._heights))
        lo, hi, found = 0, len(path) - 1, None
        while lo <= hi:
            mid = (lo + hi) // 2
            if self.evaluate(self._lat.index(path[mid])).anonymous:
                found, hi = path[mid], mid - 1
            else:
                lo = mid + 1
        return found

    # ------------------------------------------------------------------ operators
    def _triangle(self, m: int, *, with_top: bool = False) -> list[Levels]:
        rng, heights = self._rng, self._heights
        out: list[Levels] = []
        if with_top:
            out.append(tuple(h - 1 for h in heights))
        for i in range(len(out), m):
            f = (i + 1) / m
            out.append(tuple(rng.randint(0, int(round(f * (h - 1)))) for h in heights))
        return out

    def _key(self, res: NodeResult) -> tuple[int, float, float]:
        if res.anonymous:
            return (0, res.cost, float(sum(res.levels)))
        return (1, float(res.suppressed), price(self._prices, res.levels))

    def _ranked(self, pop: list[Levels]) -> list[Levels]:
        judged = [(self._key(self.evaluate(self._lat.index(ind))), ind) for ind in pop]
        judged.sort()
        return [ind for _, ind in judged]

    def _next(self, pop: list[Levels]) -> list[Levels]:
        """One generation: ``pop`` is ranked best first; so is the result."""
        rng, m = self._rng, len(pop)
        n_elite = max(1, int(_ELITE * m))
        n_immigrants = int(_IMMIGRANTS * m)
        children = list(pop[:n_elite])
        seen = set(children)
        tries = 0
        while len(children) < m - n_immigrants and tries < 20 * m:
            tries += 1
            a = pop[min(rng.randrange(m), rng.randrange(m))]  # binary tournament on rank
            b = pop[min(rng.randrange(m), rng.randrange(m))]
            child = self._mutate(
                tuple(x if rng.random() < 0.5 else y for x, y in zip(a, b, strict=True))
            )
            if child not in seen:
                seen.add(child)
                children.append(child)
        children += self._triangle(m - len(children))
        return self._ranked(children)

    def _mutate(self, ind: Levels) -> Levels:
        rng, heights = self._rng, self._heights
        width = len(ind)
        out = list(ind)
        picks = [j for j in range(width) if rng.random() < 1.0 / width] or [rng.randrange(width)]
        for j in picks:
            step = rng.choice((-1, 1))
            out[j] = min(max(out[j] + step, 0), heights[j] - 1)
        return tuple(out)


__all__ = ["Genetic"]
