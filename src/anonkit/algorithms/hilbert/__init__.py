"""Hilbert-curve k-anonymization (Ghinita et al. 2007): the curve, the optimal 1-D
grouping and the partition they give."""

from __future__ import annotations

from anonkit.algorithms.hilbert.curve import bits_for, hilbert_keys, hilbert_order
from anonkit.algorithms.hilbert.grouping import group_costs, optimal_groups, split_sizes
from anonkit.algorithms.hilbert.partition import Grouping, groups_to_partitioning, hilbert_groups

__all__ = [
    "Grouping",
    "bits_for",
    "group_costs",
    "groups_to_partitioning",
    "hilbert_groups",
    "hilbert_keys",
    "hilbert_order",
    "optimal_groups",
    "split_sizes",
]
