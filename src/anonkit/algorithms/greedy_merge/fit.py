"""One run of greedy class merging on codes: group, merge, measure, build the result."""

from __future__ import annotations

import time

import numpy as np

from anonkit._arrays import IntArray
from anonkit._frozen import FrozenDict
from anonkit.algorithms.greedy_merge.merge import merge_loop
from anonkit.algorithms.greedy_merge.result import GreedyMergeResult
from anonkit.algorithms.greedy_merge.rows import CostRows
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.snapshot import group_codes
from anonkit.metrics.cost_matrix import (
    COST_FUNCTIONS,
    alteration_percentage,
    cost_loss,
    deleted_of_modified_percentage,
    deleted_percentage,
    effective_k,
    hierarchy_nodes,
    modified_percentage,
    node_costs,
)
from anonkit.progress import Progress


def fit_codes(
    codes: IntArray,
    hierarchies: tuple[Hierarchy, ...],
    columns: tuple[str, ...],
    k: int,
    cost: str,
    small_class: str,
    t0: float,
    progress: Progress | None = None,
    order: str = "codes",
    seed: int = 0,
    fuse: bool = True,
) -> GreedyMergeResult:
    all_nodes = [hierarchy_nodes(h) for h in hierarchies]
    rows = CostRows(all_nodes, node_costs(hierarchies, cost))
    uniq, counts, inverse = group_codes(
        list(codes), [len(h.leaves) for h in hierarchies], with_inverse=True
    )
    assert inverse is not None
    start = uniq + rows.offsets[:, None]  # leaves are nodes 0..n_leaves-1 of each hierarchy
    positions = None
    if order == "random":  # C(T) listed in a seeded random order
        positions = np.random.default_rng(seed).permutation(uniq.shape[1]).astype(np.int64)
    t1 = time.perf_counter()

    parent, final_nodes, final_size, n_merges, n_fused, tie_counts = merge_loop(
        start, counts, rows, k, small_class, progress, positions, fuse
    )
    t2 = time.perf_counter()

    while True:  # path compression: every initial class to its final class
        up = parent[parent]
        if np.array_equal(up, parent):
            break
        parent = up
    finals = np.flatnonzero(parent == np.arange(parent.shape[0]))  # in group-by order
    class_id = np.full(parent.shape[0], -1, dtype=np.int64)
    class_id[finals] = np.arange(finals.shape[0])
    if not fuse:  # classes that share their values are one released class
        _, first, joined = np.unique(
            final_nodes[:, finals], axis=1, return_index=True, return_inverse=True
        )
        rank = np.empty(first.shape[0], dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(first.shape[0])
        class_id[finals] = rank[joined.ravel()]
        finals = finals[np.sort(first)]
        final_size = final_size.copy()
        final_size[finals] = np.bincount(class_id[parent], weights=counts).astype(np.int64)
    class_of_initial = class_id[parent]
    class_of_record = class_of_initial[inverse]
    local = final_nodes[:, finals] - rows.offsets[:, None]
    class_levels = np.stack([nd.level[local[a]] for a, nd in enumerate(all_nodes)])
    class_codes = np.stack([nd.code[local[a]] for a, nd in enumerate(all_nodes)])
    class_sizes = final_size[finals]

    # Measures on the initial classes (weights = their counts): each is one cell pattern.
    init_levels = class_levels[:, class_of_initial]
    w = counts.astype(np.float64)
    losses: dict[str, float] = {}
    alteration: dict[str, float] = {}
    for name in COST_FUNCTIONS:
        losses[name] = cost_loss(uniq, init_levels, hierarchies, cost=name, weights=w)
        alteration[name] = alteration_percentage(
            uniq, init_levels, hierarchies, cost=name, weights=w
        )
    levels = class_levels[:, class_of_record].astype(np.int8)
    for arr in (class_of_record, class_sizes, class_levels, class_codes, levels, tie_counts):
        arr.setflags(write=False)
    modified = modified_percentage(uniq, init_levels, hierarchies, weights=w)
    deleted = deleted_percentage(init_levels, hierarchies, weights=w)
    deleted_mod = deleted_of_modified_percentage(uniq, init_levels, hierarchies, weights=w)
    eff = effective_k(uniq, init_levels, hierarchies, weights=w)
    t3 = time.perf_counter()
    return GreedyMergeResult(
        k=k,
        cost=cost,
        small_class=small_class,
        columns=tuple(columns),
        hierarchies=tuple(hierarchies),
        class_of_record=class_of_record,
        class_sizes=class_sizes,
        class_levels=class_levels,
        class_codes=class_codes,
        levels=levels,
        losses=FrozenDict(losses),
        alteration=FrozenDict(alteration),
        modified_percentage=modified,
        deleted_percentage=deleted,
        deleted_of_modified_percentage=deleted_mod,
        effective_k=eff,
        n_initial_classes=int(counts.shape[0]),
        n_merges=n_merges,
        n_fused=n_fused,
        timing=FrozenDict(
            {"group": t1 - t0, "merge": t2 - t1, "metrics": t3 - t2, "total": t3 - t0}
        ),
        order=order,
        seed=seed,
        fuse=fuse,
        tie_counts=tie_counts,
    )
