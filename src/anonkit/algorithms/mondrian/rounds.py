"""The bookkeeping of Mondrian's rounds: the rows still being partitioned, what a round
decided, and the regrouping of cut partitions into the next round's partitions."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray, IntArray
from anonkit.algorithms.mondrian.cuts import RankArray
from anonkit.algorithms.mondrian.segments import ramp


@dataclass(eq=False)
class Active:
    """The rows still being partitioned, partition after partition.

    A row is a record or, in *weighted* mode, every record of one distinct
    quasi-identifier tuple (``weights`` records). Strict cuts depend on values only, so
    records with equal tuples always stay together and may be partitioned as one row.
    """

    idx: IntArray  # row ids (records, or distinct tuples in weighted mode)
    values: RankArray  # their ranks, (rows, n_qi)
    sizes: IntArray  # rows per partition
    counts: IntArray  # records per partition (``sizes`` unless weighted)
    weights: FloatArray | None  # records per row (weighted mode), in ``idx`` order
    rr: IntArray  # round robin: each partition's first axis
    witness: npt.NDArray[np.uint64] | None  # witness bits per record (see ``Partitioner._start``)
    witnessed: bool  # any witness bit set
    pop_idx: IntArray  # population records inside each partition's box
    pop_sizes: IntArray  # ... per partition


@dataclass(eq=False)
class Cuts:
    """What one round decided, per partition: parts (0 = final) and axis."""

    fan: IntArray
    axis: IntArray
    #: accepted proposals: partitions, their first part in the batch, then their records'
    #: positions and parts (numbered within the batch)
    moved: list[tuple[IntArray, IntArray, IntArray, IntArray]] = field(default_factory=list)
    #: records in the parts of the accepted proposals, in the order of ``moved``
    part_sizes: list[IntArray] = field(default_factory=list)
    #: population records inside accepted parts: ids, partition, part within it
    population: tuple[list[IntArray], list[IntArray], list[IntArray]] = field(
        default_factory=lambda: ([], [], [])
    )


def regroup(state: Active, cuts: Cuts, n_axes: int, with_population: bool) -> Active:
    """The parts of the cut partitions, each a segment, as the next partitions."""
    sizes = state.sizes
    cut = np.flatnonzero(cuts.fan > 0)
    base = np.zeros(sizes.shape[0], dtype=np.int64)
    base[cut] = np.cumsum(cuts.fan[cut]) - cuts.fan[cut]
    n_next = int(cuts.fan[cut].sum())
    shift = [np.repeat(base[parts] - first, sizes[parts]) for parts, first, _, _ in cuts.moved]
    segment = np.concatenate(shift) + np.concatenate([m[3] for m in cuts.moved])
    moved = np.concatenate([m[2] for m in cuts.moved])
    key = segment.astype(np.uint16) if n_next <= 1 << 16 else segment
    sel = moved[np.argsort(key, kind="stable")]
    pop_idx = state.pop_idx
    pop_sizes = np.zeros(n_next, dtype=np.int64)
    if with_population:
        recs, partition, part = (np.concatenate(x) for x in cuts.population)
        pseg = base[partition] + part
        pop_idx = recs[np.argsort(pseg, kind="stable")]
        pop_sizes = np.bincount(pseg, minlength=n_next).astype(np.int64)
    sizes = np.bincount(segment, minlength=n_next).astype(np.int64)
    weights = None if state.weights is None else state.weights[sel]
    if state.weights is None:
        counts = sizes
    else:  # new partitions are the accepted parts, numbered as in cuts.moved
        parts = np.concatenate([m[0] for m in cuts.moved])
        fans = cuts.fan[parts]
        counts = np.empty(n_next, dtype=np.int64)
        counts[np.repeat(base[parts], fans) + ramp(fans)] = np.concatenate(cuts.part_sizes)
    return Active(
        idx=state.idx[sel],
        values=np.take(state.values, sel, axis=0),
        sizes=sizes,
        counts=counts,
        weights=weights,
        rr=np.repeat((cuts.axis[cut] + 1) % n_axes, cuts.fan[cut]),
        witness=None if state.witness is None else state.witness[sel],
        witnessed=state.witnessed,
        pop_idx=pop_idx,
        pop_sizes=pop_sizes,
    )
