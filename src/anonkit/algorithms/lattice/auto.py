"""``algorithm="auto"``: the exact search when it can finish quickly, Lightning otherwise.

Beyond the explicit lattice's cap the exact search is
:class:`~anonkit.algorithms.lattice.sparse_flash.SparseFlash` (Flash's optimum with node
state kept sparsely).

Flash proves its result optimal but its work grows with the lattice; the heuristics
return a good release within any budget. :func:`choose_search` estimates how long Flash
would take on the evaluator's lattice and picks it when that fits the budget; :class:`Auto`
runs the choice. The result's ``algorithm`` names the search that ran and ``optimal``
says whether the release is proven optimal.

The estimate (a choice made here, calibrated on Adult, not a guarantee): Flash evaluates
about ``0.5 * size^0.75`` nodes (on the 9-column Adult, 12,960 nodes, it evaluates 5 to
670 depending on k and suppression; the formula gives 606), each costing what the
evaluator takes on three nodes along the lattice's diagonal, timed before choosing (they
stay cached, so Flash does not evaluate them again).
"""

from __future__ import annotations

import math
import time
from typing import Any

from anonkit.algorithms.lattice.anytime import DEFAULT_TIME_LIMIT, check_budget
from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.flash import Flash
from anonkit.algorithms.lattice.lightning import Lightning
from anonkit.algorithms.lattice.search import SearchResult
from anonkit.algorithms.lattice.sparse_flash import BYTES_PER_NODE, SparseFlash, available_memory

#: How many more nodes the sparse exact search evaluates than Flash (on Adult, 9 columns,
#: loss and precision with k in 2, 5, 50 and 0 or 4 % suppression: 1.0 to 1.5 times).
SPARSE_OVERHEAD = 1.5
#: Seconds the exact search may be expected to take for ``auto`` to choose it.
EXACT_SECONDS = 60.0
#: A cost per node no table of up to :data:`SMALL_SNAPSHOT` classes exceeds: when the
#: expected nodes fit the budget even at this cost, Flash is chosen without timing nodes
#: (so a small table pays nothing for ``auto``).
PESSIMISTIC_SECONDS_PER_NODE = 0.05
SMALL_SNAPSHOT = 100_000


def estimated_flash_nodes(size: int) -> float:
    """Nodes Flash is expected to evaluate on a lattice of ``size`` nodes."""
    estimate: float = 0.5 * float(size) ** 0.75
    return min(float(size), estimate)


def seconds_per_node(evaluator: Evaluator, samples: int = 3) -> float:
    """Mean seconds the evaluator takes on ``samples`` nodes spread along the diagonal
    of its lattice (evaluated for real: they stay in the evaluator's results)."""
    lat = evaluator.lattice
    spent, timed = 0.0, 0
    for s in range(1, samples + 1):
        levels = [(s * (h - 1)) // (samples + 1) for h in lat.heights]
        node = lat.index(levels)
        if node in evaluator.results:
            continue
        start = time.perf_counter()
        evaluator.evaluate(node)
        spent += time.perf_counter() - start
        timed += 1
    return spent / timed if timed else 0.0


def choose_search(
    evaluator: Evaluator,
    *,
    seconds: float = EXACT_SECONDS,
    max_nodes: int | None = None,
) -> str:
    """``"flash"`` when the exact search is expected to finish within ``seconds`` (and
    ``max_nodes`` evaluations), else ``"lightning"``.

    Lattices beyond :data:`~anonkit.core.lattice.MAX_NODES` are searched exactly by
    :class:`~anonkit.algorithms.lattice.sparse_flash.SparseFlash` (``"sparse_flash"``)
    when the metric prices levels alone, its state surely fits in memory (a node's worth
    for every node of the lattice) and :data:`SPARSE_OVERHEAD` times Flash's expected
    nodes, timed as above, fit the budget.
    """
    lat = evaluator.lattice
    if not lat.explicit:
        return _beyond_the_cap(evaluator, seconds, max_nodes)
    nodes = estimated_flash_nodes(lat.size)
    if max_nodes is not None and nodes > max_nodes:
        return "lightning"
    small = evaluator.table.snapshot.n_classes <= SMALL_SNAPSHOT
    if small and nodes * PESSIMISTIC_SECONDS_PER_NODE <= seconds:
        return "flash"
    if nodes * seconds_per_node(evaluator) > seconds:
        return "lightning"
    return "flash"


def _beyond_the_cap(evaluator: Evaluator, seconds: float, max_nodes: int | None) -> str:
    lat = evaluator.lattice
    if not SparseFlash.applies(evaluator):
        return "lightning"
    if lat.size * BYTES_PER_NODE > available_memory():
        return "lightning"
    nodes = SPARSE_OVERHEAD * estimated_flash_nodes(lat.size)
    if max_nodes is not None and nodes > max_nodes:
        return "lightning"
    if nodes * seconds_per_node(evaluator) > seconds:
        return "lightning"
    return "sparse_flash"


class Auto:
    """Flash when it is expected to finish within the budget, else :class:`Lightning`.

    Parameters
    ----------
    time_limit
        Seconds the search may take (default 10 for Lightning); Flash is chosen only when
        expected within ``min(time_limit, 60)`` seconds.
    max_nodes
        Largest number of nodes to evaluate; Flash is chosen only when expected within it.
    seed
        Seed of Lightning's random choices.
    """

    name = "auto"

    def __init__(
        self,
        *,
        time_limit: float | None = None,
        max_nodes: int | None = None,
        seed: int | None = None,
    ) -> None:
        check_budget("Auto", time_limit, max_nodes, seed)
        self.time_limit = time_limit
        self.max_nodes = max_nodes
        self.seed = seed
        #: The search that ran (after :meth:`search`).
        self.chosen: Any = None

    def search(self, evaluator: Evaluator) -> SearchResult:
        budget = EXACT_SECONDS if self.time_limit is None else min(self.time_limit, EXACT_SECONDS)
        name = choose_search(evaluator, seconds=budget, max_nodes=self.max_nodes)
        if name == "flash":
            self.chosen = Flash()
        elif name == "sparse_flash":
            self.chosen = SparseFlash()
        else:
            limit = DEFAULT_TIME_LIMIT if self.time_limit is None else self.time_limit
            self.chosen = Lightning(time_limit=limit, max_nodes=self.max_nodes, seed=self.seed)
        result: SearchResult = self.chosen.search(evaluator)
        return result

    @property
    def progress_total(self) -> int:
        """The chosen heuristic's budget units (0 for Flash or before choosing)."""
        return int(getattr(self.chosen, "progress_total", 0))

    @property
    def progress_unit(self) -> str:
        """What the chosen heuristic counts (``"nodes"`` for Flash or before choosing)."""
        return str(getattr(self.chosen, "progress_unit", "nodes"))

    def progress_done(self) -> int:
        done = getattr(self.chosen, "progress_done", None)
        return int(done()) if done is not None else 0

    @property
    def best_cost(self) -> float:
        """The chosen heuristic's best cost so far (``inf`` for Flash or before choosing)."""
        return float(getattr(self.chosen, "best_cost", math.inf))


__all__ = ["EXACT_SECONDS", "Auto", "choose_search"]
