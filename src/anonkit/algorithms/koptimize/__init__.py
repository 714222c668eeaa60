"""k-OPTIMIZE (Bayardo & Agrawal 2005): optimal k-anonymity over ordered interval
generalizations, by set enumeration with pruning."""

from __future__ import annotations

from anonkit.algorithms.koptimize.search import (
    METRICS,
    KOptimizeResult,
    class_ids,
    k_optimize,
    node_cost,
)

__all__ = ["METRICS", "KOptimizeResult", "class_ids", "k_optimize", "node_cost"]
