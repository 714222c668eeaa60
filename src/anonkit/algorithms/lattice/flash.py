"""Optimal full-domain search with monotonicity pruning, in the style of Flash/OLA."""

from __future__ import annotations

import itertools
import math

import numpy as np
import numpy.typing as npt

from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.node_result import NodeResult
from anonkit.algorithms.lattice.prefilter import pair_screen
from anonkit.algorithms.lattice.search import (
    ANONYMOUS,
    NOT_ANONYMOUS,
    POSSIBLE,
    UNKNOWN,
    SearchResult,
    best_among,
    rank,
    slack,
    tag,
    to_result,
)
from anonkit.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    EqualDistanceTCloseness,
    HierarchicalTCloseness,
    KAnonymity,
    OrderedDistanceTCloseness,
    RecursiveCLDiversity,
)

#: Models whose projection screening the vectorized pair screen already does well enough
#: (class sizes, distinct sensitive values, the convexity bounds of convex.py): judging
#: projection nodes one by one through the evaluator costs more evaluations than it
#: saves (measured on Adult with occupation sensitive, with and without suppression).
_SCREENED = (
    KAnonymity,
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
    EqualDistanceTCloseness,
    OrderedDistanceTCloseness,
    HierarchicalTCloseness,
)


class Flash:
    """Find the optimal transformation while evaluating as few nodes as possible.

    Two phases:

    1. **Privacy frontier.** When every privacy model is monotone (k-anonymity is, with
       and without suppression), a private node makes every node above it private and a
       failing node makes every node below it fail (predictive tagging). Nodes are taken
       bottom-up; from each untagged node a greedy path climbs through untagged
       successors (cheapest lower bound first) and is binary-searched for its lowest
       private node, as in Flash (Kohlmayer et al. 2012) and OLA (El Emam et al. 2009).
       If a model is not monotone, only the failing side is tagged, and only when a
       node's classes force more suppression than allowed at every finer node
       (convex.py). With per-node cost bounds, the climb then stops at the first private
       node, and the open nodes whose bound does not exceed its cost are probed from
       above (:func:`_probe_from_above`), where one failing node rules out many.
    2. **Optimum.** Among private nodes, :func:`~anonkit.algorithms.lattice.search.best_among`
       skips only nodes whose lower bound proves they cannot win. Utility is not assumed
       monotone once records may be suppressed, so the result equals the exhaustive
       search for every metric.

    Snapshots are rolled up from the smallest cached finer snapshot.

    References
    ----------
    F. Kohlmayer, F. Prasser, C. Eckert, A. Kemper, K. A. Kuhn. Flash: efficient, stable
    and optimal k-anonymity. PASSAT/SocialCom 2012.
    K. El Emam et al. A globally optimal k-anonymity method for the de-identification of
    health data. JAMIA 16(5), 2009.
    """

    name = "flash"

    def search(self, evaluator: Evaluator) -> SearchResult:
        lat = evaluator.lattice
        status = np.zeros(lat.size, dtype=np.int8)
        bounds = evaluator.cost_model.node_bounds(lat)
        # lower[i]: a lower bound on the cost of node i, from the bounds learned so far
        lower = bounds.copy() if bounds is not None else np.full(lat.size, -np.inf)
        if (
            evaluator.screen_models
            or evaluator.implied_min_size > 1
            or evaluator.implied_distinct
            or evaluator.share_models
        ):
            # the size-only monotone models (k-anonymity), and the least class size the
            # others need, alone rule nodes out and put a floor under their suppression
            # cost, whatever the other models do
            screen = pair_screen(evaluator)
            status[~screen.passes] = NOT_ANONYMOUS
            lower += screen.suppression_floor
        monotone = evaluator.privacy_monotone
        if not monotone:
            evaluator.track_forced = True
        # Below a node, at least ``forced_below`` records are suppressed (convex.py), each
        # adding at least the least per-record suppression extra there.
        forced_floor = None
        if not monotone and bounds is not None and evaluator.cost_model.suppression_priced:
            forced_floor = evaluator.cost_model.min_extra(lat)
        steer = bounds if bounds is not None else lat.levels.astype(np.float64)
        # Without suppression a private node's cost and loss follow from its levels: the
        # nodes that tie with an incumbent but rank after it are left alone
        exact = bounds if bounds is not None and evaluator.max_suppressed == 0 else None
        incumbent: NodeResult | None = None
        # a node is relevant while its lower bound does not exceed this (the incumbent's
        # cost, with float slack)
        threshold = math.inf

        def visit(node: int) -> None:
            nonlocal incumbent, threshold
            res = evaluator.evaluate(node)
            if monotone:
                tag(status, evaluator, res)
            elif res.forced_below > evaluator.max_suppressed:
                # too many records must go at every finer node: none of them is private
                status[lat.downset(node)] = NOT_ANONYMOUS
            else:
                status[node] = POSSIBLE
                if forced_floor is not None and res.forced_below > 0:
                    down = lat.downset(node)
                    np.maximum(
                        lower,
                        np.where(down, forced_floor * res.forced_below, -np.inf) + bounds,
                        out=lower,
                    )
            if bounds is None:
                up = lat.upset(node)
                lower[up] = np.maximum(lower[up], res.bound)
            if res.anonymous and (incumbent is None or rank(res) < rank(incumbent)):
                incumbent = res
                threshold = res.cost + slack(res)
                if exact is not None:
                    _drop_losing_ties(evaluator, exact, lower, status, res)

        if evaluator.detailed:
            evaluator.track_forced = True
        covered = all(isinstance(m, _SCREENED) for m in evaluator.models)
        if evaluator.detailed and not evaluator.screen_models and not covered:
            # The projections onto two columns are the nodes whose other columns sit at
            # the top. For models reading sensitive or population data they are judged
            # through the evaluator (cheap: few classes, rolled up from one finer pair
            # node); a projection that forces too much suppression rules out every node
            # below it (see convex.py), the subset property behind Incognito. (With
            # k-anonymity among the models the size screen above does this job cheaper.)
            top = [h - 1 for h in lat.heights]
            for a, b in itertools.combinations(range(lat.width), 2):
                grid = [(la, lb) for la in range(lat.heights[a]) for lb in range(lat.heights[b])]
                for la, lb in [grid[0], *reversed(grid[1:])]:
                    levels = list(top)
                    levels[a], levels[b] = la, lb
                    node = lat.index(levels)
                    if status[node] == UNKNOWN:
                        visit(node)
                        res = evaluator.results[node]
                        if res.forced_below > evaluator.max_suppressed:
                            status[lat.downset(node)] = NOT_ANONYMOUS

        # Without monotonicity, once a private node bounds the search the rest is probed
        # from above (see _probe_from_above); that needs per-node bounds to steer by.
        from_above = not monotone and bounds is not None
        order = lat.by_height()
        start = 0
        while True:
            if from_above and incumbent is not None:
                break
            # the next node by height that is still open, read as each path begins
            start = _next_open(order, start, status, lower, threshold)
            if start < 0:
                break
            s0 = int(order[start])
            start += 1
            path = [s0]
            while True:
                nxt = [
                    s
                    for s in lat.successors(path[-1])
                    if status[s] == UNKNOWN and lower[s] <= threshold
                ]
                if not nxt:
                    break
                path.append(min(nxt, key=lambda s: (steer[s], s)))
            lo, hi = 0, len(path) - 1
            if (
                not monotone
                and hi >= 2
                and lat.levels[s0] > 0
                and evaluator.rolls_up_from_bottom(path[hi // 2])
            ):
                # Every node the binary search visits lies above the path's first node:
                # roll that one up first, and they roll up from it instead of from the
                # bottom. (Measured on Adult: no gain when every model is monotone.)
                evaluator.snapshot(s0)
            if monotone and incumbent is not None and hi > 0:
                # With an incumbent the path stops at the threshold, and most such paths
                # hold no private node at all: judging their top first settles the whole
                # path when it fails (its downset fails), where bisection judged about
                # log2 of its nodes. (Adult, 9 columns, 4 % suppression: 294 instead of
                # 566 nodes at k = 5; 8 columns, hierarchical t without suppression: 26
                # instead of 46.)
                if status[path[hi]] == UNKNOWN:
                    visit(path[hi])
                if status[path[hi]] in (ANONYMOUS, POSSIBLE):
                    hi -= 1
                else:
                    lo = hi + 1
            while lo <= hi:
                mid = (lo + hi) // 2
                node = path[mid]
                if status[node] == UNKNOWN:
                    visit(node)
                if status[node] in (ANONYMOUS, POSSIBLE):
                    hi = mid - 1
                else:
                    lo = mid + 1
            if status[s0] == UNKNOWN:  # the path ended below the private region
                visit(s0)
        if from_above:
            while True:
                # Descend from the incumbent first: a cheaper private node just below it
                # lowers the threshold, and with it the candidates the probes must settle.
                while incumbent is not None:
                    below = [
                        p
                        for p in lat.predecessors(incumbent.index)
                        if status[p] == UNKNOWN and lower[p] <= threshold
                    ]
                    if not below:
                        break
                    before = incumbent
                    for p in sorted(below, key=lambda n: (lower[n], n)):
                        if status[p] == UNKNOWN and lower[p] <= threshold:
                            visit(p)
                        if incumbent is not before:
                            break
                    if incumbent is before:
                        break
                probe = _probe_from_above(evaluator, status, lower, threshold)
                if probe is None:
                    break
                visit(probe)
        floor = lower if bounds is not None else None
        if monotone:
            best = best_among(evaluator, status == ANONYMOUS, lower=floor)
        else:  # evaluated nodes are cached; the rest are visited cheapest bound first
            best = best_among(evaluator, status != NOT_ANONYMOUS, lower=floor, known_private=False)
        return to_result(self.name, best, evaluator.evaluations)


def _drop_losing_ties(
    evaluator: Evaluator,
    bounds: npt.NDArray[np.float64],
    lower: npt.NDArray[np.float64],
    status: npt.NDArray[np.int8],
    incumbent: NodeResult,
) -> None:
    """Raise out of reach the lower bound of every open node whose cost ties with the
    ``incumbent``'s but which would rank after it were it private.

    Only without suppression: a private node then suppresses nothing, and its cost (its
    no-suppression bound) and loss follow from its levels
    (:meth:`~anonkit.algorithms.lattice.evaluator.Evaluator.unsuppressed_result`, which
    :func:`~anonkit.algorithms.lattice.search.best_among` reads too), so it cannot win and
    need not be judged. (Adult, 8 quasi-identifiers, height metric: the nodes of the
    optimum's height are many.)"""
    best = rank(incumbent)
    tied = (np.abs(bounds - incumbent.cost) <= slack(incumbent)) & (status == UNKNOWN)
    for node in np.flatnonzero(tied & (lower < math.inf)).tolist():
        if rank(evaluator.unsuppressed_result(node, float(bounds[node]))) > best:
            lower[node] = math.inf


#: Nodes :func:`_next_open` reads at a time.
_OPEN_CHUNK = 4096


def _next_open(
    order: npt.NDArray[np.int64],
    start: int,
    status: npt.NDArray[np.int8],
    lower: npt.NDArray[np.float64],
    threshold: float,
) -> int:
    """The first position from ``start`` on in ``order`` whose node is unknown and whose
    lower bound does not exceed ``threshold``, or -1: a chunk of nodes at a time in numpy
    rather than node by node in Python (Adult's 12,960 nodes: about 2.5 ms a search)."""
    while start < order.size:
        chunk = order[start : start + _OPEN_CHUNK]
        hits = np.flatnonzero((status[chunk] == UNKNOWN) & ~(lower[chunk] > threshold))
        if hits.size:
            return start + int(hits[0])
        start += chunk.size
    return -1


#: Candidates this close (sum of level differences) to a probed node share its source.
_HUB_RADIUS = 2


def _probe_from_above(
    evaluator: Evaluator,
    status: npt.NDArray[np.int8],
    lower: npt.NDArray[np.float64],
    threshold: float,
) -> int | None:
    """The next node to evaluate in a search whose models are not monotone, once a
    private node bounds it; ``None`` when no open candidate is left.

    Every node whose lower bound does not exceed ``threshold`` must be evaluated or ruled
    out, and a node whose classes force too much suppression rules out every node below
    it. So rather than climbing from the bottom, this takes the open candidate with the
    cheapest bound and returns the coarsest open candidate above it (the cheapest bound
    among those): either it rules the cheap one out with everything below, or it is a
    candidate that had to be evaluated anyway. On Adult with entropy l-diversity and 5 %
    suppression this halves the nodes evaluated (135 to 58).

    When that node would be rolled up from the bottom snapshot, the meet of the open
    candidates near it is rolled up first, so that they roll up from that instead.
    """
    lat = evaluator.lattice
    cand = np.flatnonzero((status == UNKNOWN) & (lower <= threshold))
    if cand.size == 0:
        return None
    cheapest = cand[np.argmin(lower[cand])]
    above = cand[(lat.nodes[cand] >= lat.nodes[cheapest]).all(axis=1)]
    coarsest = above[lat.levels[above] == lat.levels[above].max()]
    node = int(coarsest[np.argmin(lower[coarsest])])
    if lat.levels[node] > 0 and evaluator.rolls_up_from_bottom(node):
        gaps = np.abs(lat.nodes[cand].astype(np.int64) - lat.nodes[node]).sum(axis=1)
        hub = lat.index(lat.nodes[cand[gaps <= _HUB_RADIUS]].min(axis=0).tolist())
        if hub != node and lat.levels[hub] > 0:
            evaluator.snapshot(hub)
    return node
