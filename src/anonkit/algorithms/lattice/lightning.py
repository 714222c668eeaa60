"""Lightning: a utility-driven anytime search for lattices no exact search can visit.

After Prasser, Bild, Eicher, Spengler, Kuhn (2016): climb from the bottom of the lattice
towards the cheapest generalization, check privacy on the way and keep the best private
node found, for as long as the budget lasts. This implementation keeps that idea and makes
its own choices where the paper's best-first expansion is slow on wide lattices (ARX's
bottom-up Lightning finds no solution within a second on the 24-column credit table):

1. **Greedy path, binary-searched.** From the bottom, the path always takes the successor
   that adds least to the metric's cost without suppression (its level-cost table; no
   evaluation needed). Privacy is monotone along the path for the usual models, so the
   lowest private node on it is found with a binary search: about ``log2(height)``
   evaluations for the first release.
2. **Descent.** From the incumbent, lower one attribute by one level while a private,
   cheaper predecessor exists (first improvement, cheapest predecessor tried first).
3. **Swaps.** At a local minimum, try every node that lowers one attribute and raises
   another, and move to the first private one that is cheaper, then descend again.
   Swaps lowering the column whose predecessor came closest to private (fewest records
   suppressed there) are tried first, then the cheapest lower bound (on the 24-column
   credit table this lowers the loss reached with 800 nodes from 0.705 to 0.691, median
   of 3 seeds, 5 % suppression).
4. **Restarts.** When no swap helps, the next round climbs a new greedy path with
   randomly perturbed column prices (seeded), alternately from the bottom and from the
   incumbent with a few columns lowered (a kick, as in iterated local search). The
   spread of the perturbation grows with each round in a row that found no new node,
   and the search ends after 8 such rounds (without the growth, one of five seeds ended
   after 1.7 s on creditcard without suppression, at 0.7905 where the others reached
   0.7631).
   When the local minimum suppresses records, its successors are tried before the
   swaps: coarser levels suppress fewer records, which can cost less (on Adult with
   discernibility and 4 % suppression this finds the optimum within 1 s for k = 5, 10
   and 100, instead of 18 % to 133 % above it).
5. **Top-down rounds.** The search starts with a top-down descent from the top node
   (:class:`~anonkit.algorithms.lattice.topdown.Descent`: the first private predecessor
   by bound, until none is private), and every third restart is such a descent instead
   of a greedy path, from the top or from the incumbent with a few columns raised, with
   the predecessors' order perturbed. Neither direction wins everywhere: from above the
   first releases are better where privacy needs many columns generalized (creditcard
   without suppression: 0.7631 against 0.7905 for the bottom-up rounds alone after 10 s,
   one seed, geometric loss), from below where suppression lets columns stay fine; with
   both, each of the four k = 5 cells of creditcard and mach2019 was at or below the
   better of the two (``benchmarks/RESULTS.md``, ``highdim``).
6. **Sweep.** On explicit lattices (at most 5M nodes), once restarts stop finding new
   nodes, every node whose lower bound does not exceed the incumbent's cost is evaluated,
   cheapest bound first: when the sweep completes the result is the exact optimum and
   ``SearchResult.optimal`` says so.

Pruning: with an additive metric a node whose no-suppression cost already reaches the
incumbent's cost is skipped; when the models are monotone, a node below a node found not
private is skipped (predictive tagging). Neither ever lets a non-private node through:
only nodes the evaluator found private become the incumbent.

References
----------
F. Prasser, R. Bild, J. Eicher, H. Spengler, K. A. Kuhn. Lightning: Utility-Driven
Anonymization of High-Dimensional Data. Transactions on Data Privacy 9(2), 2016.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from anonkit.algorithms.lattice.anytime import (
    AnytimeSearch,
    greedy_path,
    level_costs,
    steering,
)
from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.node_result import NodeResult
from anonkit.algorithms.lattice.search import SearchResult, slack
from anonkit.algorithms.lattice.topdown import Descent

#: Consecutive restarts that evaluate no new node before the search sweeps or ends.
_STALE_RESTARTS = 8
#: Spread (standard deviation of the log factor) of the column prices of a restart.
_NOISE = 0.6
#: Spread of the random factor on a predecessor's gain in the top-down rounds.
_DESCENT_NOISE = 0.5

Levels = tuple[int, ...]


class Lightning(AnytimeSearch):
    """Greedy path, descent, swaps and restarts; anytime (see the module docstring).

    Parameters
    ----------
    time_limit
        Seconds the search may run (default 10); ``None``: until nothing is left to try.
    max_nodes
        Largest number of nodes to evaluate (``None``: no limit).
    seed
        Seed of the restarts' random column prices (``None``: 0).
    """

    name = "lightning"

    def search(self, evaluator: Evaluator) -> SearchResult:
        self._proven = False
        result = super().search(evaluator)
        if self._proven and result.stopped == "finished":
            return replace(result, optimal=True)
        return result

    def run(self, evaluator: Evaluator) -> None:
        lat = evaluator.lattice
        self._lat = lat
        self._rng = random.Random(0 if self.seed is None else self.seed)
        self._bound_costs = level_costs(evaluator)
        self._levels_bound = evaluator.cost_model.levels_bound
        self._steer = steering(evaluator)
        self._heights = np.asarray(lat.heights, dtype=np.int64)
        # per column and level: the bound's terms (additive metrics: the cost without
        # suppression; the geometric aggregate: a_j log(1 + v_j), whose sum is log(1 + F))
        # and the order's prices, as nested lists for sums over one node
        self._geometric = evaluator.cost_model.geometric
        terms = self._steer if self._geometric else self._bound_costs
        self._bound_terms = None if terms is None else [[float(x) for x in t] for t in terms]
        self._order_terms = [[float(x) for x in t] for t in (self._bound_costs or self._steer)]
        self._monotone = evaluator.privacy_monotone
        self._fails = np.zeros((16, lat.width), dtype=np.int16)
        self._n_fails = 0
        self._descent = Descent(self, evaluator, random.Random(self._rng.random()))
        top = self.evaluate(lat.top)
        if self._monotone and not top.anonymous:
            return  # nothing is private (the top is the most private node)
        if top.anonymous:  # a first release from above
            self._descent.run(lat.top, 0.0)
        stale = self._stale = 0
        prices = self._steer
        start: Levels = (0,) * lat.width
        rounds = 0
        while stale < _STALE_RESTARTS:
            before = self._evaluated
            if not self._other_round(rounds):
                found = self._first_on_path(self._path(prices, start))
                if found is not None:
                    self._improve(found)
            if self.best is not None:
                self._improve(self.best)
            stale = stale + 1 if self._evaluated == before else 0
            rounds += 1
            # rounds that found nothing new perturb more (the search ends only when even
            # widely perturbed rounds keep finding nothing)
            self._stale = stale
            noise = _NOISE * (1 + stale)
            prices = [c * math.exp(self._rng.gauss(0.0, noise)) for c in self._steer]
            # alternate restarts from the bottom with kicks from the incumbent
            best = self.best
            start = (0,) * lat.width if best is None or rounds % 2 == 0 else self._kick(best.levels)
        if lat.explicit:
            self._sweep(evaluator)
            self._proven = True

    # ------------------------------------------------------------------ pieces
    def _other_round(self, rounds: int) -> bool:
        """Every third round, a top-down descent in place of the greedy path: from the
        top node or (alternately) from the incumbent with a few columns raised, the
        predecessors' order perturbed at random."""
        if rounds % 3 != 2:
            return False
        lat = self._lat
        node = lat.top
        best = self.best
        if best is not None and (rounds // 3) % 2 == 1:
            node = lat.index(self._descent.kick_up(best.levels))
        if self.evaluate(node).anonymous:
            self._descent.run(node, _DESCENT_NOISE * (1 + self._stale))
        return True

    def _bound_sum(self, levels: Levels) -> float:
        """The bound of ``levels`` in the additive scale of :meth:`_limit`."""
        terms = self._bound_terms
        assert terms is not None
        return sum(t[lv] for t, lv in zip(terms, levels, strict=True))

    def _limit(self) -> float:
        """The largest bound (in the scale of :meth:`_bound_sum`) of a node that may still
        beat the incumbent (``inf`` without incumbent or without a bound)."""
        best = self.best
        if best is None or self._bound_terms is None:
            return math.inf
        limit = best.cost + slack(best)
        return math.log1p(limit) if self._geometric else limit

    def _hopeless(self, levels: Levels) -> bool:
        """Whether a node cannot beat the incumbent (bound) or cannot be private (below
        a failing node, monotone models)."""
        if self._bound_terms is not None and self._bound_sum(levels) > self._limit():
            return True
        return self._monotone and self._hopeless_privacy(levels)

    def _judge(self, levels: Levels) -> NodeResult:
        res = self.evaluate(self._lat.index(levels))
        if not res.anonymous and self._monotone:
            if self._n_fails == self._fails.shape[0]:
                self._fails = np.concatenate([self._fails, np.zeros_like(self._fails)])
            self._fails[self._n_fails] = levels
            self._n_fails += 1
        return res

    def _kick(self, levels: Levels) -> Levels:
        """``levels`` with 2 to ``min(8, width / 3)`` random columns lowered to a random
        level (a restart near the incumbent: the path from there climbs back with new
        prices). Up to 8 rather than 4 columns lowers the loss reached on the credit table
        (800 nodes, 5 % suppression, 3 seeds) from 0.691 to 0.684."""
        width = len(levels)
        kicked = list(levels)
        for j in self._rng.sample(
            range(width), min(width, self._rng.randint(2, max(2, min(8, width // 3))))
        ):
            kicked[j] = self._rng.randint(0, kicked[j])
        return tuple(kicked)

    def _path(self, prices: list[npt.NDArray[np.float64]], start: Levels) -> list[Levels]:
        return greedy_path(self._lat.heights, prices, start)

    def _first_on_path(self, path: list[Levels]) -> Levels | None:
        """The lowest private node of ``path`` by binary search (exact when privacy is
        monotone along it), skipping what cannot win."""
        lo, hi = 0, len(path) - 1
        found: Levels | None = None
        while lo <= hi:
            mid = (lo + hi) // 2
            levels = path[mid]
            if self._monotone and self._hopeless_privacy(levels):
                lo = mid + 1
                continue
            if self._judge(levels).anonymous:
                found, hi = levels, mid - 1
            else:
                lo = mid + 1
        return found

    def _hopeless_privacy(self, levels: Levels) -> bool:
        """Whether ``levels`` lies below a node found not private (monotone models)."""
        if not self._n_fails:
            return False
        fails = self._fails[: self._n_fails]
        return bool((fails >= np.asarray(levels, dtype=np.int16)).all(axis=1).any())

    def _improve(self, start: Levels | NodeResult) -> None:
        """Descent and swaps from ``start`` until neither finds a cheaper private node."""
        cur = start.levels if isinstance(start, NodeResult) else start
        cur_res = self._judge(cur)
        while True:
            nxt = self._descend(cur, cur_res)
            if nxt is None:
                nxt = self._swap(cur, cur_res)
            if nxt is None:
                return
            cur, cur_res = nxt

    def _neighbours(self, cur: Levels, cur_res: NodeResult, *, swaps: bool) -> list[Levels]:
        """Predecessors of ``cur`` (``swaps=False``), or the nodes that lower one column
        and raise another, in the order to try them: cheapest lower bound first; swaps
        lowering a column whose predecessor came closest to private first (fewest
        records suppressed), then by bound. Nodes whose bound exceeds the incumbent's
        cost are left out (priced for all candidates at once, from the per-column
        changes of the bound); the callers skip those below a failing node."""
        c = np.asarray(cur, dtype=np.int64)
        lower = np.flatnonzero(c > 0)
        raise_ = np.flatnonzero(c + 1 < self._heights)
        order = [np.asarray(t) for t in self._order_terms]
        down_step = np.array([order[i][c[i] - 1] - order[i][c[i]] for i in lower])
        up_step = np.array([order[j][c[j] + 1] - order[j][c[j]] for j in raise_])
        if self._bound_terms is not None:
            bt = self._bound_terms
            base = self._bound_sum(cur)
            bound_down = np.array([bt[i][c[i] - 1] - bt[i][c[i]] for i in lower])
            bound_up = np.array([bt[j][c[j] + 1] - bt[j][c[j]] for j in raise_])
        else:
            base, bound_down, bound_up = 0.0, np.zeros(lower.size), np.zeros(raise_.size)
        limit = self._limit()
        firsts: list[npt.NDArray[np.float64]] = []
        seconds: list[npt.NDArray[np.float64]] = []
        lows: list[npt.NDArray[np.int64]] = []
        highs: list[npt.NDArray[np.int64]] = []
        if not swaps:
            keep = base + bound_down <= limit
            firsts.append(np.zeros(int(keep.sum())))
            seconds.append(down_step[keep])
            lows.append(lower[keep])
            highs.append(np.full(int(keep.sum()), -1))
        else:
            if cur_res.suppressed and raise_.size:
                # a coarser node suppresses fewer records, which may cost less
                keep = base + bound_up <= limit
                firsts.append(np.full(int(keep.sum()), -1.0))
                seconds.append(up_step[keep])
                lows.append(np.full(int(keep.sum()), -1))
                highs.append(raise_[keep])
            if lower.size and raise_.size:
                seen = self.seen
                lat = self._lat
                closeness = np.array(
                    [
                        float(pred.suppressed) if pred is not None else math.inf
                        for pred in (
                            seen.get(lat.index(cur[:i] + (cur[i] - 1,) + cur[i + 1 :]))
                            for i in lower.tolist()
                        )
                    ]
                )
                ii, jj = np.meshgrid(np.arange(lower.size), np.arange(raise_.size), indexing="ij")
                ii, jj = ii.ravel(), jj.ravel()
                keep = (lower[ii] != raise_[jj]) & (base + bound_down[ii] + bound_up[jj] <= limit)
                ii, jj = ii[keep], jj[keep]
                firsts.append(closeness[ii])
                seconds.append(down_step[ii] + up_step[jj])
                lows.append(lower[ii])
                highs.append(raise_[jj])
        if not firsts:
            return []
        first, second = np.concatenate(firsts), np.concatenate(seconds)
        low, high = np.concatenate(lows), np.concatenate(highs)
        out: list[Levels] = []
        for k in np.lexsort((high, low, second, first)).tolist():
            cand = list(cur)
            if low[k] >= 0:
                cand[low[k]] -= 1
            if high[k] >= 0:
                cand[high[k]] += 1
            out.append(tuple(cand))
        return out

    def _better(self, res: NodeResult, than: NodeResult) -> bool:
        return res.anonymous and res.cost < than.cost - slack(than)

    def _descend(self, cur: Levels, cur_res: NodeResult) -> tuple[Levels, NodeResult] | None:
        for cand in self._neighbours(cur, cur_res, swaps=False):
            if self._hopeless(cand):  # below a failing node, or the incumbent moved
                continue
            res = self._judge(cand)
            if self._better(res, cur_res):
                return cand, res
        return None

    def _swap(self, cur: Levels, cur_res: NodeResult) -> tuple[Levels, NodeResult] | None:
        for cand in self._neighbours(cur, cur_res, swaps=True):
            if self._hopeless(cand):  # the incumbent or the failing set may have moved
                continue
            res = self._judge(cand)
            if self._better(res, cur_res):
                return cand, res
        return None

    def _sweep(self, evaluator: Evaluator) -> None:
        """Evaluate every node that could still beat the incumbent, cheapest bound first
        (explicit lattices): afterwards the incumbent is the optimum."""
        lat = self._lat
        # the metric's no-suppression cost (additive metrics and the geometric aggregate)
        known = evaluator.cost_model.node_bounds(lat)
        bounds = np.zeros(lat.size) if known is None else known
        order = np.lexsort((np.arange(lat.size), lat.levels, bounds))
        for idx in order.tolist():
            best = self.best
            if best is not None and bounds[idx] > best.cost + slack(best):
                break
            if idx in self.seen:
                continue
            levels = lat.node(idx)
            if self._monotone and self._hopeless_privacy(levels):
                continue
            self._judge(levels)


__all__ = ["Lightning"]
