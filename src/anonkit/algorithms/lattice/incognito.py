"""Incognito: bottom-up search over quasi-identifier subsets (LeFevre et al. 2005)."""

from __future__ import annotations

import itertools

import numpy as np

from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.algorithms.lattice.search import SearchResult, best_among, to_result
from anonkit.core.encoding import subset_snapshot
from anonkit.exceptions import ParameterError

Node = tuple[int, ...]


class Incognito:
    """Find every minimal private full-domain generalization, then the optimum.

    For subsets of the quasi-identifiers of growing size, candidate level vectors are
    generated a-priori (every projection onto a smaller subset must be private: a
    projection merges classes, so it cannot fail where the full table passes), checked
    bottom-up, and generalizations of a private node are marked private without checking.
    The last round, over all quasi-identifiers, yields the private nodes of the full
    lattice; the metric then picks the optimum among them exactly as Flash does.

    Requires monotone privacy models (k-anonymity is).

    References
    ----------
    K. LeFevre, D. J. DeWitt, R. Ramakrishnan. Incognito: efficient full-domain
    k-anonymity. SIGMOD 2005.
    """

    name = "incognito"

    def search(self, evaluator: Evaluator) -> SearchResult:
        if not evaluator.privacy_monotone:
            raise ParameterError(
                "algorithm",
                "anonymize",
                "an algorithm other than 'incognito' for privacy models that are not monotone",
                "incognito",
            )
        table, lat = evaluator.table, evaluator.lattice
        q = lat.width
        private: dict[tuple[int, ...], set[Node]] = {}
        checks = 0
        for size in range(1, q + 1):
            for subset in itertools.combinations(range(q), size):
                parents = [subset[:i] + subset[i + 1 :] for i in range(size)] if size > 1 else []
                if any(not private.get(p) for p in parents):
                    private[subset] = set()
                    continue
                ranges = [range(lat.heights[c]) for c in subset]
                nodes = sorted(itertools.product(*ranges), key=lambda v: (sum(v), v))
                passed: set[Node] = set()
                for node in nodes:
                    if any(
                        tuple(node[:i] + node[i + 1 :]) not in private[p]
                        for i, p in enumerate(parents)
                    ):
                        continue  # a projection fails, so this node fails
                    if any(
                        node[i] > 0 and node[:i] + (node[i] - 1,) + node[i + 1 :] in passed
                        for i in range(size)
                    ):
                        passed.add(node)  # generalizes a private node
                        continue
                    if size == q:
                        ok = evaluator.evaluate(lat.index(node)).anonymous
                    elif evaluator.detailed:
                        # a projection has the classes of the full node whose other
                        # columns sit at their top level; that node's snapshot carries
                        # the sensitive and population data the models read
                        lifted = [lat.heights[c] - 1 for c in range(q)]
                        for c, lv in zip(subset, node, strict=True):
                            lifted[c] = lv
                        checks += 1
                        _, summary, bad = evaluator.node_classes(lat.index(lifted))
                        ok = int(summary.sizes[bad].sum()) <= evaluator.max_suppressed
                    else:
                        checks += 1
                        ok, _ = evaluator.judge(subset_snapshot(table, subset, node))
                    if ok:
                        passed.add(node)
                private[subset] = passed
        full = private[tuple(range(q))]
        anonymous = np.zeros(lat.size, dtype=bool)
        for node in full:
            anonymous[lat.index(node)] = True
        minimal = tuple(
            sorted(
                node
                for node in full
                if not any(
                    node[i] > 0 and node[:i] + (node[i] - 1,) + node[i + 1 :] in full
                    for i in range(q)
                )
            )
        )
        best = best_among(evaluator, anonymous)
        return to_result(self.name, best, evaluator.evaluations + checks, minimal=minimal)
