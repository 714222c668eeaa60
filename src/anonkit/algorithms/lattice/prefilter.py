"""Cheap necessary conditions for privacy, from two-column projections.

Projecting the table onto a subset of its quasi-identifiers merges equivalence classes,
so with a monotone privacy model a record that violates it in the projection also
violates it in the full table (the subset property behind Incognito). Hence a node whose
projection onto some pair of columns already needs more suppression than allowed cannot
be private. The pair tables are tiny (values x values), so every node of the lattice is
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
    # one-hot aggregation matrices: onehot[j][l] @ x sums level-0 entries into level l
    onehot = []
    for j in range(q):
        mats = []
        for lv in range(lat.heights[j]):
            m = np.zeros((cards[j][lv], cards[j][0]))
            m[maps[j][0][lv], np.arange(cards[j][0])] = 1.0
            mats.append(m)
        onehot.append(mats)
    empty = np.zeros((0, 0), dtype=np.int64)
    pairs = list(itertools.combinations(range(q), 2)) if q > 1 else []
    for a, b in pairs:
        ca, cb = cards[a][0], cards[b][0]
        base = np.bincount(
            snap.codes[a] * cb + snap.codes[b], weights=snap.counts, minlength=ca * cb
        ).reshape(ca, cb)
        ok = np.zeros((lat.heights[a], lat.heights[b]), dtype=bool)
        for la in range(lat.heights[a]):
            rows = onehot[a][la] @ base
            for lb in range(lat.heights[b]):
                counts = (rows @ onehot[b][lb].T).ravel()
                sizes = np.rint(counts[counts > 0]).astype(np.int64)
                ok[la, lb], _ = evaluator.judge(FrequencySnapshot((la, lb), empty, sizes))
        passes &= ok[lat.nodes[:, a], lat.nodes[:, b]]
    return passes
