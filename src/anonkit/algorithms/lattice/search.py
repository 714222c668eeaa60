"""What every full-domain search returns, and the optimum-finding step they share."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.node_result import NodeResult
from anonkit.exceptions import PrivacyUnattainableError

#: Node status codes used by the searches (POSSIBLE: evaluated, not ruled out, for models
#: without predictive tagging).
UNKNOWN, ANONYMOUS, NOT_ANONYMOUS, POSSIBLE = 0, 1, -1, 2


@dataclass(frozen=True)
class SearchResult:
    """The transformation a full-domain algorithm chose and how it got there.

    Attributes
    ----------
    algorithm
        Name of the algorithm.
    node
        The chosen node (an index of the lattice).
    levels
        Its generalization level per quasi-identifier.
    cost
        The optimized metric's value for the release.
    suppressed
        Records the release suppresses.
    nodes_evaluated
        Nodes whose equivalence classes were computed (Incognito also counts the nodes of
        quasi-identifier subsets it checked).
    minimal
        For Incognito: every minimal privacy-preserving full-domain generalization.
    optimal
        Whether the node is proven optimal for the metric (the exact searches, Flash and
        the exhaustive search; a heuristic never claims it).
    convergence
        For the anytime heuristics: ``(seconds since the search started, best cost so
        far)`` each time a better private node was found.
    stopped
        Why the search ended: ``"finished"`` (it ran its course), ``"time_limit"``,
        ``"max_nodes"`` (its budget ran out) or ``"interrupted"`` (Ctrl-C; the best node
        found before it).
    """

    algorithm: str
    node: int
    levels: tuple[int, ...]
    cost: float
    suppressed: int
    nodes_evaluated: int
    minimal: tuple[tuple[int, ...], ...] = field(default=())
    optimal: bool = False
    convergence: tuple[tuple[float, float], ...] = field(default=())
    stopped: str = "finished"


#: The searches whose result is the exact optimum of the metric.
PROVEN_OPTIMAL = frozenset({"flash", "exhaustive"})


#: Significant digits of a cost that count in :func:`rank` (the rest is float noise).
COST_DIGITS = 12


def rank(result: NodeResult) -> tuple[float, int, float, int, int]:
    """Order of preference between private nodes, the one every search uses.

    1. the cost (the optimized metric), compared to :data:`COST_DIGITS` significant
       digits, so that sums taken in another order tie;
    2. fewer suppressed records;
    3. lower ``loss`` (Iyengar's LM, the arithmetic mean over cells, whatever the
       optimized metric; compared to the same digits);
    4. the lower node: lower height (sum of levels), then lower node number.

    ARX's users expect the first two (among equally good transformations ARX's choice
    suppresses fewer records); the loss then prefers the more useful of two equally
    suppressing ones, and the node order makes the choice deterministic. Because every
    search ranks by this one key and skips a node only when its lower bound exceeds the
    incumbent's cost (with :func:`slack`), Flash and the exhaustive search return the
    same node.
    """
    return (
        _digits(result.cost),
        result.suppressed,
        _digits(result.loss),
        sum(result.levels),
        result.index,
    )


def _digits(value: float) -> float:
    return float(f"{value:.{COST_DIGITS}g}") if math.isfinite(value) else value


def slack(result: NodeResult) -> float:
    """Float tolerance when comparing a lower bound with ``result.cost``.

    Bounds sum the same terms in another order than the cost, so a node whose bound
    equals the incumbent's cost is kept (it may tie and win on suppression, loss, height
    or number). The slack is wider than the digits :func:`rank` ignores.
    """
    return 1e-9 * max(1.0, abs(result.cost))


def to_result(algorithm: str, best: NodeResult, evaluations: int, **extra: object) -> SearchResult:
    return SearchResult(
        algorithm=algorithm,
        node=best.index,
        levels=best.levels,
        cost=best.cost,
        suppressed=best.suppressed,
        nodes_evaluated=evaluations,
        **{"optimal": algorithm in PROVEN_OPTIMAL, **extra},  # type: ignore[arg-type]
    )


def no_solution(evaluator: Evaluator, heuristic: str | None = None) -> PrivacyUnattainableError:
    """The error of a search that found no private node. A ``heuristic`` that did not
    judge every node proves nothing when the models are not monotone (a private node may
    lie off its path): its message says so and points to an exact search."""
    names = ", ".join(m.describe() for m in evaluator.models) or "the privacy models"
    within = f"with at most {evaluator.max_suppressed} suppressed record(s)"
    if (
        heuristic is not None
        and not evaluator.privacy_monotone
        and evaluator.evaluations < evaluator.lattice.size
    ):
        return PrivacyUnattainableError(
            f"The {heuristic} search found no generalization that satisfies {names} "
            f"{within}; these models are not monotone, so one may lie off its path: "
            'algorithm = "flash" searches them all; or raise the suppression limit.',
            requirement=names,
        )
    return PrivacyUnattainableError(
        f"No generalization satisfies {names} {within}; raise the suppression limit or "
        "use deeper hierarchies.",
        requirement=names,
    )


def tag(status: npt.NDArray[np.int8], evaluator: Evaluator, result: NodeResult) -> None:
    """Predictive tagging: nodes above a private node are private, below a failing one fail."""
    lat = evaluator.lattice
    if result.anonymous:
        box, value = lat.upset_box(result.index), ANONYMOUS
    else:
        box, value = lat.downset_box(result.index), NOT_ANONYMOUS
    if status.flags.c_contiguous:  # the level grid is a view: the box is written in place
        status.reshape(lat.heights)[box] = value
    else:
        grid = status.reshape(lat.heights)
        grid[box] = value
        status[:] = grid.reshape(-1)


def best_among(
    evaluator: Evaluator,
    candidates_mask: npt.NDArray[np.bool_],
    *,
    lower: npt.NDArray[np.float64] | None = None,
    known_private: bool = True,
) -> NodeResult:
    """The optimum among the nodes marked in ``candidates_mask``.

    Exact for every metric: nodes are skipped only when a lower bound proves they cannot
    win. Additive metrics have a bound for every node without evaluation (the cost without
    suppression, exact when nothing is suppressed), which ``lower`` may tighten (a caller's
    per-node lower bounds for additive metrics); class-based metrics learn bounds from
    evaluated nodes and pass them to every node above.

    With ``known_private`` (the default) every candidate is known to be private, as the
    monotone searches establish; otherwise candidates are only possibly private and each
    is evaluated before it can win.
    """
    lat = evaluator.lattice
    candidates = np.flatnonzero(candidates_mask)
    if candidates.size == 0:
        raise no_solution(evaluator)
    bounds = evaluator.cost_model.node_bounds(lat)
    best: NodeResult | None = None
    # Above a private node that suppresses nothing, nothing is suppressed either and the
    # node is private, when every model is monotone under generalization.
    spread = all(bool(getattr(m, "monotone_generalization", False)) for m in evaluator.models)
    zero_supp = np.zeros(lat.size, dtype=bool)
    if evaluator.max_suppressed == 0 and known_private:
        zero_supp[:] = True
    if bounds is not None:
        floor = bounds if lower is None else np.maximum(bounds, lower)
        order = np.lexsort((candidates, lat.levels[candidates], floor[candidates]))
        for idx in candidates[order]:
            i = int(idx)
            if best is not None and floor[i] > best.cost + slack(best):
                break
            known = evaluator.results.get(i)
            if known is None and zero_supp[i]:
                known = evaluator.unsuppressed_result(i, float(bounds[i]))
            if known is None:
                known = evaluator.evaluate(i)
                if known.anonymous and known.suppressed == 0 and spread:
                    zero_supp[lat.upset(i)] = True
            if known.anonymous and (best is None or rank(known) < rank(best)):
                best = known
    else:
        floor = np.full(lat.size, -np.inf)
        order = np.lexsort((candidates, lat.levels[candidates]))
        for idx in candidates[order]:
            i = int(idx)
            if best is not None and floor[i] > best.cost + slack(best):
                continue
            res = evaluator.evaluate(i)
            up = lat.upset(i)
            np.maximum(floor, np.where(up, res.bound, -np.inf), out=floor)
            if res.anonymous and (best is None or rank(res) < rank(best)):
                best = res
    if best is None:
        raise no_solution(evaluator)
    return best
