"""SafePub: (ε, δ)-differential privacy by sampling, k-anonymization and a private search.

Bild, Kuhn and Prasser (2018) publish a random sample of the records, generalized with one
full-domain transformation, with every class of fewer than ``k`` records suppressed. The
steps (Algorithm 1 and 2 of the paper):

1. ``ε = ε_anon + ε_search``. Draw every record independently with probability
   ``β = 1 - e^{-ε_anon}`` (:func:`sample_mask`);
2. ``k`` is the smallest value with ``d(k, β, ε_anon) <= δ``
   (:func:`~anonkit.algorithms.dp.parameters.k_for`): sampling followed by any
   data-independent generalization with suppression of the classes below ``k`` is
   ``(ε_anon, δ)``-differentially private (Li, Qardaji, Su 2012);
3. the transformation is chosen by :func:`safepub_search`: starting at the top of the
   lattice (the pivot), for ``steps`` rounds the pivot's predecessors join the candidate
   set, the pivot leaves it, and the next pivot is drawn from the candidates by the
   exponential mechanism with budget ``ε_search / steps`` on a score of
   :mod:`~anonkit.algorithms.dp.scores` (sensitivity 1); the result is the pivot with the
   best score (the top included), as in the paper's Algorithm 2 and ARX.

By sequential composition the release is ``(ε_anon + ε_search, δ)``-differentially private.

Where the implementation had to choose: when the candidate set runs empty before
``steps`` rounds (the whole lattice was visited) the search stops early, spending less of
``ε_search``. ``select="last"`` returns the last pivot instead of the best one: it reads
nothing but the mechanism's outputs (pure post-processing), for users who prefer not to
rely on the paper's argument for the final comparison of true scores.

References
----------
Bild, R., Kuhn, K. A., Prasser, F. (2018). SafePub: A truthful data anonymization algorithm
with strong privacy guarantees. Proceedings on Privacy Enhancing Technologies 2018(1), 67-87.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from anonkit._arrays import BoolArray
from anonkit._validation import check_choice, check_int, check_real
from anonkit.algorithms.dp.exponential import exponential_choice
from anonkit.algorithms.dp.scores import NodeClasses, ScoreFunction
from anonkit.algorithms.lattice.evaluator import Evaluator

__all__ = ["SELECT_MODES", "SafePubSearch", "node_classes", "safepub_search", "sample_mask"]


#: Which pivot the search returns.
SELECT_MODES = ("best", "last")


@dataclass(frozen=True)
class SafePubSearch:
    """What :func:`safepub_search` found.

    Attributes
    ----------
    node, levels, score
        The chosen transformation, its levels and its (normalized) score.
    pivots
        The pivots in the order drawn, starting with the top.
    steps_run
        Rounds of the exponential mechanism actually run.
    epsilon_spent
        The share of ``ε_search`` the rounds spent.
    nodes_evaluated
        Distinct lattice nodes scored.
    """

    node: int
    levels: tuple[int, ...]
    score: float
    pivots: tuple[int, ...]
    steps_run: int
    epsilon_spent: float
    nodes_evaluated: int


def sample_mask(n_records: int, beta: float, rng: np.random.Generator) -> BoolArray:
    """Draw each of ``n_records`` records independently with probability ``beta``."""
    check_int(n_records, "n_records", "sample_mask", low=0)
    check_real(beta, "beta", "sample_mask", low=0, high=1)
    mask: BoolArray = rng.random(n_records) < beta
    return mask


def node_classes(evaluator: Evaluator, index: int, n_records: int) -> NodeClasses:
    """The classes of node ``index`` as the score functions read them."""
    cls, _, bad = evaluator.node_classes(index)
    return NodeClasses(
        levels=tuple(int(v) for v in evaluator.lattice.nodes[index]),
        codes=np.asarray(cls.codes, dtype=np.int64),
        sizes=np.asarray(cls.counts, dtype=np.int64),
        suppressed=np.asarray(bad, dtype=bool),
        hierarchies=evaluator.table.hierarchies,
        k=evaluator.k,
        n_records=n_records,
    )


def safepub_search(
    evaluator: Evaluator,
    score: ScoreFunction,
    *,
    epsilon: float,
    steps: int,
    rng: np.random.Generator,
    n_records: int,
    select: str = "best",
    on_step: Callable[[int, int], None] | None = None,
) -> SafePubSearch:
    """SafePub's search over the lattice (Algorithm 2 of Bild et al. 2018).

    Parameters
    ----------
    evaluator
        Evaluates nodes on the *sampled* table with k-anonymity and suppression limit 1
        (every class below ``k`` suppressed).
    score
        The score function (sensitivity 1).
    epsilon
        ``ε_search``; each round spends ``ε_search / steps``.
    steps
        Rounds of the exponential mechanism (``>= 0``).
    rng
        The random generator.
    n_records
        Records of the input table (the discernibility score reads it).
    select
        ``"best"``: the pivot with the best score (the paper); ``"last"``: the last pivot.
    on_step
        Called with ``(round, steps)`` after each round (progress).
    """
    owner = "safepub_search"
    eps = check_real(epsilon, "epsilon", owner, low=0, closed="neither")
    check_int(steps, "steps", owner, low=0)
    check_choice(select, "select", owner, SELECT_MODES)
    lattice = evaluator.lattice
    scores: dict[int, float] = {}

    def scored(index: int) -> float:
        if index not in scores:
            scores[index] = float(score(node_classes(evaluator, index, n_records)))
        return scores[index]

    pivot = lattice.top
    best, best_score = pivot, scored(pivot)
    candidates: dict[int, float] = {pivot: best_score}
    pivots = [pivot]
    per_step = eps / steps if steps else 0.0
    run = 0
    for step in range(1, steps + 1):
        for p in lattice.predecessors(pivot):
            if p not in candidates:  # the paper's set union: a former pivot may return
                candidates[p] = scored(p)
        candidates.pop(pivot, None)
        if not candidates:
            break
        ids = list(candidates)
        chosen = ids[exponential_choice([candidates[i] for i in ids], epsilon=per_step, rng=rng)]
        pivot = chosen
        pivots.append(pivot)
        run = step
        if candidates[pivot] > best_score:
            best, best_score = pivot, candidates[pivot]
        if on_step is not None:
            on_step(step, steps)
    if select == "last":
        best, best_score = pivot, scored(pivot)
    return SafePubSearch(
        node=best,
        levels=lattice.node(best),
        score=best_score,
        pivots=tuple(pivots),
        steps_run=run,
        epsilon_spent=per_step * run,
        nodes_evaluated=len(scores),
    )
