"""Cheap necessary conditions for privacy, from two-column projections.

Projecting the table onto a subset of its quasi-identifiers merges equivalence classes,
so with a monotone privacy model a record that violates it in the projection also
violates it in the full table (the subset property behind Incognito). Hence a node whose
projection onto some pair of columns already needs more suppression than allowed cannot
be private. Each pair table holds only the value pairs that occur, so every node of the lattice is
screened at the cost of a few hundred small array reductions.
"""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt

from anonkit.algorithms.lattice.evaluator import Evaluator
from anonkit.core.snapshot import FrequencySnapshot

BoolArray = npt.NDArray[np.bool_]


def pair_screen(evaluator: Evaluator) -> BoolArray:
    """Mask of lattice nodes that pass every single- and two-column projection test.

    Nodes outside the mask are certainly not private. Only valid for privacy models that
    are monotone (the caller checks ``evaluator.privacy_monotone``).
    """
    table, lat = evaluator.table, evaluator.lattice
    snap = table.snapshot
    q = lat.width
    passes = np.ones(lat.size, dtype=bool)
    maps, cards = table.level_maps, table.cardinalities
    empty = np.zeros((0, 0), dtype=np.int64)
    for a, b in itertools.combinations(range(q), 2):
        # distinct (a, b) value pairs with their record counts: at most the snapshot size
        cb0 = cards[b][0]
        pair_keys, inverse = np.unique(snap.codes[a] * cb0 + snap.codes[b], return_inverse=True)
        pair_counts = np.bincount(inverse.reshape(-1), weights=snap.counts)
        va, vb = pair_keys // cb0, pair_keys % cb0
        ok = np.zeros((lat.heights[a], lat.heights[b]), dtype=bool)
        for la in range(lat.heights[a]):
            for lb in range(lat.heights[b]):
                key = maps[a][0][la][va] * cards[b][lb] + maps[b][0][lb][vb]
                counts = np.bincount(key, weights=pair_counts)
                sizes = np.rint(counts[counts > 0]).astype(np.int64)
                ok[la, lb], _ = evaluator.judge(FrequencySnapshot((la, lb), empty, sizes))
        passes &= ok[lat.nodes[:, a], lat.nodes[:, b]]
    return passes
