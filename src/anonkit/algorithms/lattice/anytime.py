"""What the anytime heuristic searches share: a budget, the best node so far, its history.

A heuristic full-domain search (:class:`~anonkit.algorithms.lattice.lightning.Lightning`,
:class:`~anonkit.algorithms.lattice.genetic.Genetic`) only *chooses* nodes: the
:class:`~anonkit.algorithms.lattice.evaluator.Evaluator` judges and prices them, and a node
becomes the incumbent only when the evaluator found it private. So every privacy model and
metric of the exact searches works unchanged, and a heuristic never returns a node that
is not private, however early it stops.

The search runs until it has nothing left to try, its time or node budget runs out, or
the user presses Ctrl-C; it then returns the best private node found so far. The budget
is checked before each new node is evaluated, keeping back twice the longest of the last
16 evaluations (for that node and the final check below), so a search ends within its
time limit unless one evaluation takes far longer than those before it.

Nodes are evaluated through :class:`~anonkit.algorithms.lattice.quick_eval.QuickEvaluator`
when the models read class sizes alone (hashed roll-ups from nearby nodes, several times
cheaper than the evaluator's general path on wide tables), else through the evaluator.
Either way the judging and pricing are the evaluator's; before the search returns, its
incumbent is evaluated again through the evaluator's exact path, which must agree (a
hash collision, about ``10^-11`` per node, could only make it disagree; the search then
falls back on its previous incumbent).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from anonkit._validation import check_int, check_real
from anonkit.algorithms.lattice.cost import CostModel
from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.node_result import NodeResult
from anonkit.algorithms.lattice.quick_eval import QuickEvaluator, kernel_loaded
from anonkit.algorithms.lattice.search import SearchResult, no_solution, rank, to_result
from anonkit.exceptions import PrivacyUnattainableError

#: Default time limit of the heuristics, in seconds.
DEFAULT_TIME_LIMIT = 10.0
#: Progress units of a second of a time budget (milliseconds).
TIME_STEPS = 1000
#: Shortest time limit for which a search loads the quick evaluator's compiled roll-up
#: (numba: about 0.6 s of CPU once per process); shorter searches use it only when it is
#: loaded already.
QUICK_MIN_SECONDS = 3.0
#: The clock of budgets and convergence traces (a module attribute, so that tests can
#: run a search on a clock of their own).
_clock = time.perf_counter


def check_budget(
    owner: str, time_limit: float | None, max_nodes: int | None, seed: int | None
) -> None:
    """Check a search's budget and seed, each optional: seconds > 0, an int >= 1, an
    int >= 0.

    Raises
    ------
    ParameterError
        Naming ``owner`` and the first parameter out of range.
    """
    if time_limit is not None:
        check_real(time_limit, "time_limit", owner, low=0, closed="neither", noun="seconds")
    if max_nodes is not None:
        check_int(max_nodes, "max_nodes", owner, low=1)
    if seed is not None:
        check_int(seed, "seed", owner, low=0)


class BudgetExhausted(Exception):
    """Raised inside a search when its time or node budget runs out (never escapes)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class AnytimeSearch:
    """Base of the anytime heuristics: budget, incumbent, convergence and Ctrl-C.

    Parameters
    ----------
    time_limit
        Seconds the search may run (default :data:`DEFAULT_TIME_LIMIT`); ``None`` for no
        limit (the search then ends when it has nothing left to try, or at ``max_nodes``).
    max_nodes
        Largest number of distinct nodes to evaluate (``None``: no limit).
    seed
        Seed of the random choices (``None``: fixed default seed 0, so runs repeat).

    Notes
    -----
    Progress: :attr:`progress_total` and :meth:`progress_done` measure the budget (per mille
    of the time limit, else nodes out of ``max_nodes``), and :attr:`best_cost` is the cost of
    the best private node so far (``inf`` before the first).
    """

    name = "anytime"

    def __init__(
        self,
        *,
        time_limit: float | None = DEFAULT_TIME_LIMIT,
        max_nodes: int | None = None,
        seed: int | None = None,
    ) -> None:
        check_budget(type(self).__name__, time_limit, max_nodes, seed)
        self.time_limit = None if time_limit is None else float(time_limit)
        self.max_nodes = None if max_nodes is None else int(max_nodes)
        self.seed = seed
        self.best: NodeResult | None = None
        self._start = _clock()
        self._evaluated = 0
        self._trace: list[tuple[float, float]] = []
        self._history: list[tuple[float, NodeResult]] = []
        self._seen: dict[int, NodeResult] = {}
        self._recent = [0.0] * 16  # wall seconds of the last evaluations (a ring)
        self._spent = False  # whether the budget ran out (the progress is then full)
        self._quick: QuickEvaluator | None = None
        self._evaluator: Evaluator | None = None

    # ------------------------------------------------------------------ progress hooks
    @property
    def progress_total(self) -> int:
        """Units of the budget: ``max_nodes`` when set, else the time limit in
        milliseconds (0 when the search has no budget)."""
        if self.progress_unit == "ms":
            assert self.time_limit is not None
            return max(1, round(self.time_limit * TIME_STEPS))
        return self.max_nodes or 0

    @property
    def progress_unit(self) -> str:
        """What :attr:`progress_total` counts: ``"nodes"``, or ``"ms"`` of a time limit
        without a node budget."""
        return "ms" if self.max_nodes is None and self.time_limit is not None else "nodes"

    def progress_done(self) -> int:
        """Units of the budget used so far."""
        if self._spent:
            return self.progress_total
        if self.progress_unit == "ms":
            elapsed = int((_clock() - self._start) * TIME_STEPS)
            return min(self.progress_total, elapsed)
        return self._evaluated

    @property
    def best_cost(self) -> float:
        """Cost of the best private node found so far (``inf`` before the first)."""
        return math.inf if self.best is None else self.best.cost

    @property
    def history(self) -> tuple[tuple[float, int], ...]:
        """``(seconds since the search started, node)`` each time a better private node
        was found (the nodes of :attr:`SearchResult.convergence`)."""
        return tuple((t, res.index) for t, res in self._history)

    @property
    def seen(self) -> dict[int, NodeResult]:
        """What the search learned about each node it evaluated (O(nodes visited))."""
        return self._seen

    # ------------------------------------------------------------------ the search
    def search(self, evaluator: Evaluator) -> SearchResult:
        """Run the heuristic on ``evaluator``'s lattice and return the best private node.

        Raises
        ------
        PrivacyUnattainableError
            When no private node was found (none exists, or none within the budget).
        KeyboardInterrupt
            When interrupted before any private node was found.
        """
        self._evaluator = evaluator
        self.best = None
        self._trace = []
        self._history = []
        self._seen = {}
        self._evaluated = 0
        self._recent = [0.0] * 16
        self._spent = False
        self._start = _clock()
        self._quick = None
        if self._quick_pays() and QuickEvaluator.applies(evaluator):
            self._quick = QuickEvaluator(evaluator, seed=0 if self.seed is None else self.seed)
        stopped = "finished"
        try:
            self.run(evaluator)
        except BudgetExhausted as stop:
            stopped = stop.reason
            self._spent = True
        except KeyboardInterrupt:
            if self.best is None:
                raise
            stopped = "interrupted"
        try:
            confirmed = self._confirm(evaluator)
        except KeyboardInterrupt:  # once more: the check is short and must finish
            stopped = "interrupted"
            confirmed = self._confirm(evaluator)
        self._quick = None  # its snapshots are not needed any more
        if confirmed is None:
            if stopped == "finished":
                raise no_solution(evaluator, self.name)
            raise PrivacyUnattainableError(
                f"The {self.name} search found no private transformation within its budget "
                f"({self._budget_text()}); raise time_limit or max_nodes, or the "
                "suppression limit.",
                requirement=", ".join(m.describe() for m in evaluator.models),
            )
        self.best = confirmed
        return to_result(
            self.name,
            confirmed,
            self._evaluated,
            convergence=tuple(self._trace),
            stopped=stopped,
        )

    def _quick_pays(self) -> bool:
        """Whether to evaluate through the quick evaluator: when its compiled roll-up is
        loaded already, or the budget leaves time to load it (:data:`QUICK_MIN_SECONDS`)."""
        if kernel_loaded():
            return True
        return self.time_limit is None or self.time_limit >= QUICK_MIN_SECONDS

    def _confirm(self, evaluator: Evaluator) -> NodeResult | None:
        """The incumbent as the evaluator's exact path judges it.

        Incumbents are taken newest first until the evaluator agrees with what the
        search saw (private, the same suppression and cost); a node the evaluator finds
        private but judged differently (a hash collision) is kept as a candidate, so the
        result is the best node the evaluator itself found private.
        """
        found: NodeResult | None = None
        for _, seen in reversed(self._history):
            exact = evaluator.evaluate(seen.index)
            if exact.anonymous and (found is None or rank(exact) < rank(found)):
                found = exact
            agrees = (
                exact.anonymous
                and exact.suppressed == seen.suppressed
                and math.isclose(exact.cost, seen.cost, rel_tol=1e-9, abs_tol=1e-12)
            )
            if agrees:
                return found
        return found

    def run(self, evaluator: Evaluator) -> None:
        """The search proper: evaluate nodes through :meth:`evaluate` (subclasses)."""
        raise NotImplementedError

    def _budget_text(self) -> str:
        parts = []
        if self.time_limit is not None:
            parts.append(f"{self.time_limit:g} s")
        if self.max_nodes is not None:
            parts.append(f"{self.max_nodes} nodes")
        return ", ".join(parts) or "no limit"

    def elapsed(self) -> float:
        return _clock() - self._start

    def evaluate(self, node: int) -> NodeResult:
        """Evaluate ``node`` through the evaluator, within the budget; keep the best.

        Raises :class:`BudgetExhausted` instead when evaluating a new node would exceed
        the budget (nodes already evaluated are free).
        """
        evaluator = self._evaluator
        assert evaluator is not None
        known = self._seen.get(node)
        if known is not None:
            return known
        known = evaluator.results.get(node)  # e.g. the nodes auto timed before choosing
        if known is not None:
            self._keep(known)
            return known
        if self.max_nodes is not None and self._evaluated >= self.max_nodes:
            raise BudgetExhausted("max_nodes")
        started = self.elapsed()
        if self.time_limit is not None and started + self._reserve() >= self.time_limit:
            raise BudgetExhausted("time_limit")
        quick = self._quick
        if quick is not None:
            res = quick.evaluate(node, evaluator.lattice.node(node))
        else:
            res = evaluator.evaluate(node)
        self._recent[self._evaluated % len(self._recent)] = self.elapsed() - started
        self._evaluated += 1
        self._keep(res)
        return res

    def _reserve(self) -> float:
        """Seconds kept back at the end of a time limit: twice the longest of the last
        evaluations (the next node's and the final check's)."""
        return 2.0 * max(self._recent)

    def _keep(self, res: NodeResult) -> None:
        self._seen[res.index] = res
        if res.anonymous and (self.best is None or rank(res) < rank(self.best)):
            improved = self.best is None or res.cost < self.best.cost
            self.best = res
            now = self.elapsed()
            self._history.append((now, res))
            if improved:
                self._trace.append((now, float(res.cost)))


def level_costs(evaluator: Evaluator) -> list[npt.NDArray[np.float64]] | None:
    """Per column, the cost of each level without suppression, for additive metrics
    (``None`` for class-based metrics): a node's sum is a lower bound on its cost and on
    the cost of every node above it."""
    model = evaluator.cost_model
    if not model.additive:
        return None
    return [np.asarray(c, dtype=np.float64) for c in model.table_cost]


def steering(evaluator: Evaluator) -> list[npt.NDArray[np.float64]]:
    """Per column, a price of each level that steers the heuristics: the additive
    metric's level cost; for class-based metrics (which have no per-level price) the
    level cost of the ``loss`` metric, whose coarser levels merge more records, as class
    sizes do; for ``loss`` with the geometric aggregate the logarithms of the per-column
    factors, whose sum orders nodes exactly as their no-suppression cost does."""
    costs = level_costs(evaluator)
    if costs is not None:
        return costs
    model = evaluator.cost_model
    if model.geometric and model.aggregation is not None:
        # F = prod(1 + v_j)^a_j - 1 orders nodes as sum_j a_j log(1 + v_j) does
        weights = model.aggregation.weights
        return [weights[j] * np.log1p(np.asarray(c)) for j, c in enumerate(model.table_cost)]
    stand_in = CostModel(evaluator.table, "loss", evaluator.k)
    return [np.asarray(c, dtype=np.float64) for c in stand_in.table_cost]


def node_bound(evaluator: Evaluator, levels: Sequence[int]) -> float:
    """Lower bound on the cost of the node at ``levels`` and every node above it, from
    its levels alone (the cost without suppression); ``-inf`` when the metric has none
    (class-based metrics)."""
    model = evaluator.cost_model
    if not model.levels_bound:
        return -math.inf
    return float(model.bound(levels, np.zeros(0, dtype=np.int64)))


def price(costs: Sequence[npt.NDArray[np.float64]], levels: Sequence[int]) -> float:
    """Sum of the per-column prices of a level vector."""
    total = 0.0
    for c, lv in zip(costs, levels, strict=True):
        total += float(c[lv])
    return total


def greedy_path(
    heights: Sequence[int], prices: Sequence[npt.NDArray[np.float64]], start: Sequence[int]
) -> list[tuple[int, ...]]:
    """From ``start`` to the top, each step raising the column whose next level adds
    least to ``prices`` (ties: the first column)."""
    cur = list(start)
    path = [tuple(cur)]
    while True:
        step, pick = math.inf, -1
        for j, h in enumerate(heights):
            if cur[j] + 1 < h:
                d = float(prices[j][cur[j] + 1] - prices[j][cur[j]])
                if d < step:
                    step, pick = d, j
        if pick < 0:
            return path
        cur[pick] += 1
        path.append(tuple(cur))
