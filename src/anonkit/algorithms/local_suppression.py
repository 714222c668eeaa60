"""Local suppression: blank single quasi-identifier cells until the privacy models hold.

After a global recoding some equivalence classes are still too small (or not diverse
enough). Global suppression removes their records entirely; *local* suppression (seed 002;
the ``localSuppression`` method of the R package sdcMicro) instead replaces individual
quasi-identifier cells of those records by ``*``, as few cells as it can, so that the
records fall into classes that satisfy the privacy models.

Semantics of ``*``
------------------
A suppressed cell is written ``*`` and counts as **one more literal value of its column**
when equivalence classes are formed: ``(male, *, 40)`` is in the same class as another
``(male, *, 40)`` but not as ``(male, 10115, 40)``. The release is therefore k-anonymous
(ℓ-diverse, ...) by a plain group-by over the released columns, which is how
``anonkit check`` and pycanon verify it. This is more conservative than sdcMicro, whose
frequency counts (``freqCalc``, ``kAnon`` with the default ``alpha = 1``) let a missing key
value *match every category* of its column: a record ``(male, NA, 40)`` counts towards the
frequency of every ``(male, z, 40)`` and they towards its. There fewer cells are needed,
but the guarantee holds only for an attacker who reads a blank as "could be anything",
and a plain group-by over the release does not confirm it.

Records whose quasi-identifiers are all ``*`` are *suppressed records*. By default they are
not judged, exactly as ``anonkit check`` and the full-domain algorithms treat the records
they suppress: a record with no quasi-identifier left cannot be linked through them.
With ``judge_suppressed=True`` they form one more class that must satisfy the models too.

The heuristic
-------------
Finding the fewest cells is NP-hard (Meyerson & Williams 2004), so a greedy runs in rounds
over the *distinct* rows of the table (identical records share their fate, so it works on a
frequency snapshot: quasi-identifier and sensitive codes with counts). In every round:

1. Group the rows into classes; the models name the violating classes ``V``.
2. For each class ``c`` in ``V`` and each set ``S`` of its unsuppressed attributes with at
   most ``D`` members, the *target* is ``c`` with the attributes of ``S`` set to ``*``
   (``D`` keeps the candidates within a budget: at most 256 sets per class, and 2 million
   candidates per round; nine quasi-identifiers give ``D = 4``, or 3 with more than about
   7,800 violating classes).
   Its cost is ``sum_{j in S} w_j`` per record, ``w_j`` the importance of attribute ``j``
   (default 1, so the cost counts cells).
3. A move is *solo-safe* when the target already exists as a non-violating class and the
   merged class satisfies the models. A target is *pool-safe* when the existing class plus
   every violating class that could move there satisfies them; a violating class holding
   ``*`` cells may also *stay* (cost 0) if its own class is pool-safe.
4. Every class takes its cheapest safe option (ties: fewer cells, then a pool before a
   solo move, as a pool fixes other classes too, then the larger target). Pools are then
   checked with the classes that actually chose them; a class whose pool falls short
   takes its best solo move into an existing class, else waits a round (the others have
   moved by then, so its options are clearer).
5. A class with no safe option at all loses one more cell, of its least important
   attribute (ties: the one whose target gathers the most records), and tries again in
   the next round.

Cells only ever become ``*`` and every round changes some class, so the rounds end. When
adding records to a class never breaks a model (k-anonymity, distinct ℓ-diversity), only
records of classes that violate a model in the input change, so the cell count never
exceeds ``q`` times the records in violating classes: the cost of suppressing those
records globally. (A model such as entropy ℓ-diversity can be broken by a merge; the class
that broke then moves in a later round, so records outside the violating classes may
change too.) Records whose quasi-identifiers are all ``*`` in the input never change.

When ``judge_suppressed=True`` and the class of suppressed records is the last violating
class, whole classes (of records that need not have violated anything) are added to it,
cheapest first (records times unsuppressed importance), until it satisfies the models.
That succeeds unless the whole table, as one class, violates them (for k-anonymity: fewer
than ``k`` records; for distinct ℓ-diversity: fewer than ℓ sensitive values); then
:class:`PrivacyUnattainableError` is raised.

References
----------
M. Templ, A. Kowarik, B. Meindl. Statistical disclosure control for micro-data using the R
package sdcMicro. Journal of Statistical Software 67(4), 2015 (``localSuppression``).

A. Meyerson, R. Williams. On the complexity of optimal k-anonymity. PODS 2004.

L. Sweeney. Achieving k-anonymity privacy protection using generalization and
suppression. IJUFKS 10(5), 2002.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit.core.snapshot import first_of_runs
from anonkit.core.transform import SUPPRESSED
from anonkit.exceptions import (
    EmptyDataError,
    MissingValuesError,
    ParameterError,
    PrivacyUnattainableError,
    UnknownColumnError,
)
from anonkit.models.base import (
    POPULATION_COUNT,
    SENSITIVE_HISTOGRAM,
    ClassSummary,
    PrivacyModel,
    SensitiveColumn,
)
from anonkit.models.k_anonymity import KAnonymity

if TYPE_CHECKING:
    from anonkit.core.hierarchy import Hierarchy

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

_OWNER = "local suppression"
#: Candidate moves (class, attribute set) evaluated per round at most.
_CANDIDATE_BUDGET = 2_000_000
#: Attribute sets tried per class at most (all sets of up to D attributes).
_COMBO_BUDGET = 256
#: Histogram cells (classes x sensitive values) built at once when judging.
_CHUNK_CELLS = 1 << 21
_KEY_LIMIT = 2**62


@dataclass(frozen=True, eq=False)
class SensitiveCodes:
    """A sensitive attribute given to :func:`suppress_codes` as integer codes.

    Attributes
    ----------
    codes
        ``(n_records,)`` non-negative int codes, one per input row.
    labels
        The values the codes stand for (``labels[i]`` for code ``i``); by default the codes
        as text, one per code up to the largest.
    hierarchy
        The attribute's hierarchy, for models that need one (hierarchical distance).
    """

    codes: npt.ArrayLike
    labels: Sequence[str] | None = None
    hierarchy: Hierarchy | None = None


@dataclass(frozen=True, eq=False)
class LocalSuppressionResult:
    """What local suppression did.

    Cell and record counts are weighted by the input counts when the input was a frequency
    snapshot (``weights``), so they always count records.

    Attributes
    ----------
    quasi_identifiers
        Names of the columns, in input order.
    codes
        ``(n_rows, n_qi)`` the released codes: the input with suppressed cells set to the
        column's ``*`` code.
    suppressed
        ``(n_rows, n_qi)`` mask of the cells this run suppressed (cells that were ``*``
        already are not included).
    cells_per_attribute
        Cells suppressed in each quasi-identifier.
    cells
        Cells suppressed in total.
    cost
        Cells weighted by the importance of their attribute.
    records_touched
        Records with at least one suppressed cell.
    records_suppressed
        Records whose quasi-identifiers became all ``*`` in this run.
    rounds
        Greedy rounds run.
    privacy
        The privacy models the release satisfies, described.
    """

    quasi_identifiers: tuple[str, ...]
    codes: IntArray
    suppressed: BoolArray
    cells_per_attribute: Mapping[str, int]
    cells: int
    cost: float
    records_touched: int
    records_suppressed: int
    rounds: int
    privacy: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """The counts as plain JSON-ready values (the arrays are left out)."""
        return {
            "quasi_identifiers": list(self.quasi_identifiers),
            "cells_per_attribute": dict(self.cells_per_attribute),
            "cells": self.cells,
            "cost": self.cost,
            "records_touched": self.records_touched,
            "records_suppressed": self.records_suppressed,
            "rounds": self.rounds,
            "privacy": list(self.privacy),
        }


# --------------------------------------------------------------------------- validation


def _resolve_models(
    k: int | None, models: Sequence[PrivacyModel], n_records: int
) -> list[PrivacyModel]:
    if isinstance(models, PrivacyModel):
        models = [models]
    resolved: list[PrivacyModel] = [] if k is None else [KAnonymity(k)]
    for m in models:
        if not isinstance(m, PrivacyModel):
            raise ParameterError("models", _OWNER, "privacy model objects", type(m).__name__)
        if POPULATION_COUNT in m.requires or not m.class_local:
            raise ParameterError(
                "models",
                _OWNER,
                "class-local models that need no population table",
                m.describe(),
            )
        resolved.append(m)
    if not resolved:
        raise ParameterError("k", _OWNER, "given (or a list of privacy models in 'models')", None)
    for m in resolved:
        if isinstance(m, KAnonymity) and m.k > n_records:
            raise ParameterError(
                "k", "KAnonymity", f"at most the number of records ({n_records})", m.k
            )
    return resolved


def _importance(importance: Sequence[float] | None, q: int) -> FloatArray:
    if importance is None:
        return np.ones(q)
    values = list(importance)
    ok = len(values) == q and all(
        isinstance(v, (int, float, np.integer, np.floating))
        and not isinstance(v, bool)
        and math.isfinite(float(v))
        and float(v) > 0
        for v in values
    )
    if not ok:
        raise ParameterError(
            "importance", _OWNER, f"{q} finite numbers > 0, one per quasi-identifier", importance
        )
    return np.asarray(values, dtype=np.float64)


def _int_array(values: npt.ArrayLike, parameter: str, ndim: int) -> IntArray:
    arr = np.asarray(values)
    if arr.ndim != ndim or (arr.size and arr.dtype.kind not in "iu"):
        shape = "a 2-D int array (records x quasi-identifiers)" if ndim == 2 else "a 1-D int array"
        raise ParameterError(parameter, _OWNER, shape, f"{arr.dtype} array of shape {arr.shape}")
    return arr.astype(np.int64, copy=False)


# --------------------------------------------------------------------------- keys


def _strides(bases: Sequence[int]) -> IntArray | None:
    """Mixed-radix strides for ``bases``, or ``None`` when keys would overflow int64."""
    strides = np.ones(len(bases), dtype=np.int64)
    space = 1
    for j in range(len(bases) - 1, -1, -1):
        strides[j] = space
        space *= max(int(bases[j]), 1)
        if space >= _KEY_LIMIT:
            return None
    return strides


def _group_rows(matrix: IntArray, strides: IntArray | None) -> tuple[IntArray, IntArray, IntArray]:
    """Distinct rows of ``matrix``: ``(keys, first_index, inverse)``; keys sorted."""
    if strides is not None:
        keys, first, inverse = np.unique(matrix @ strides, return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(matrix, axis=0, return_index=True, return_inverse=True)
        keys = np.arange(first.size, dtype=np.int64)
    return keys.astype(np.int64), first.astype(np.int64), inverse.reshape(-1).astype(np.int64)


@lru_cache(maxsize=32)
def _combos(q: int, depth: int) -> tuple[BoolArray, IntArray]:
    """Every set of 1..depth of ``q`` attributes as a mask row, and its size."""
    rows = [c for d in range(1, depth + 1) for c in itertools.combinations(range(q), d)]
    mask = np.zeros((len(rows), q), dtype=bool)
    for i, c in enumerate(rows):
        mask[i, list(c)] = True
    mask.setflags(write=False)
    sizes = mask.sum(axis=1).astype(np.int64)
    sizes.setflags(write=False)
    return mask, sizes


def _depth(q: int, n_classes: int, budget: int) -> int:
    depth, total = 1, q
    while depth < q:
        more = total + math.comb(q, depth + 1)
        if more > _COMBO_BUDGET or more * n_classes > budget:
            break
        depth, total = depth + 1, more
    return depth


def _first_per_group(group: IntArray, order_keys: Sequence[npt.NDArray[Any]]) -> IntArray:
    """Index of the best item per group: smallest by ``order_keys`` (first key first)."""
    order: IntArray = np.asarray(
        np.lexsort(tuple(reversed([*order_keys])) + (group,)), dtype=np.int64
    )
    g = group[order]
    first = first_of_runs(g)
    picked: IntArray = order[first]
    return picked


# --------------------------------------------------------------------------- the judge


class _Judge:
    """Evaluate the models on classes formed as unions of current classes."""

    def __init__(
        self,
        models: Sequence[PrivacyModel],
        sensitive: Sequence[tuple[str, IntArray, int, tuple[str, ...], Hierarchy | None]],
        weights: IntArray,
        n_records: int,
    ) -> None:
        self.models = list(models)
        self.weights = weights
        self.n_records = n_records
        needed = {
            str(getattr(m, "attribute", "")) for m in models if SENSITIVE_HISTOGRAM in m.requires
        }
        self.sensitive = [s for s in sensitive if s[0] in needed]
        self.totals = [
            np.bincount(codes, weights=weights, minlength=nv).astype(np.int64)
            for _, codes, nv, _, _ in self.sensitive
        ]
        self.min_size = max([m.k for m in models if isinstance(m, KAnonymity)], default=1)
        widest = max([s[2] for s in self.sensitive], default=1)
        self.chunk = max(1, _CHUNK_CELLS // widest)
        empty = np.zeros(0, dtype=np.int64)
        # the current classes, set by set_classes()
        self.sizes = self.row_order = self.class_start = self.rows_per_class = empty

    def set_classes(self, class_of_row: IntArray, n_classes: int) -> None:
        """Remember the current classes (rows sorted by class, for expansion)."""
        self.sizes = np.bincount(class_of_row, weights=self.weights, minlength=n_classes).astype(
            np.int64
        )
        self.row_order = np.argsort(class_of_row, kind="stable").astype(np.int64)
        rows_per_class = np.bincount(class_of_row, minlength=n_classes)
        self.class_start = np.r_[0, np.cumsum(rows_per_class)[:-1]].astype(np.int64)
        self.rows_per_class = rows_per_class.astype(np.int64)

    def _violations(self, sizes: IntArray, hists: Sequence[IntArray]) -> BoolArray:
        sensitive = {
            name: SensitiveColumn(name, labels, hist, total, hierarchy)
            for (name, _, _, labels, hierarchy), hist, total in zip(
                self.sensitive, hists, self.totals, strict=True
            )
        }
        summary = ClassSummary(sizes, self.n_records, sensitive)
        bad = np.zeros(sizes.shape[0], dtype=bool)
        for m in self.models:
            bad |= np.asarray(m.violations(summary), dtype=bool)
        return bad

    def violations(self) -> BoolArray:
        """Which current classes violate a model."""
        n = self.sizes.shape[0]
        return ~self.judge(np.arange(n, dtype=np.int64), np.arange(n, dtype=np.int64), n)

    def judge(self, item_group: IntArray, item_class: IntArray, n_groups: int) -> BoolArray:
        """Whether each group (the union of the classes of its items) satisfies the models."""
        sizes = np.bincount(item_group, weights=self.sizes[item_class], minlength=n_groups).astype(
            np.int64
        )
        ok = sizes >= self.min_size
        todo = np.flatnonzero(ok)
        if not todo.size:
            return ok
        if not self.sensitive:
            ok[todo] = ~self._violations(sizes[todo], [])
            return ok
        local = np.full(n_groups, -1, dtype=np.int64)
        for lo in range(0, todo.size, self.chunk):
            part = todo[lo : lo + self.chunk]
            local[part] = np.arange(part.size)
            sel = local[item_group] >= 0
            rows, owner = self._expand(item_class[sel])
            slot = local[item_group[sel]][owner]
            hists = []
            for _, codes, nv, _, _ in self.sensitive:
                flat = np.bincount(
                    slot * nv + codes[rows], weights=self.weights[rows], minlength=part.size * nv
                )
                hists.append(flat.astype(np.int64).reshape(part.size, nv))
            ok[part] = ~self._violations(sizes[part], hists)
            local[part] = -1
        return ok

    def first_ok_prefix(self, head: int, order: IntArray) -> int:
        """Smallest ``p`` such that ``head`` with ``order[: p + 1]`` satisfies the models.

        -1 when no prefix does. Histograms are accumulated chunk by chunk.
        """
        sizes = self.sizes[head] + np.cumsum(self.sizes[order])
        start = int(np.searchsorted(sizes, self.min_size))
        running = self._hists(np.r_[head, order[:start]].astype(np.int64), total=True)
        for lo in range(start, order.size, self.chunk):
            part = order[lo : lo + self.chunk]
            hists = self._hists(part)
            cums = [r[None, :] + np.cumsum(h, axis=0) for r, h in zip(running, hists, strict=True)]
            ok = ~self._violations(sizes[lo : lo + part.size], cums)
            if ok.any():
                return lo + int(np.argmax(ok))
            running = [c[-1] for c in cums]
        return -1

    def _hists(self, classes: IntArray, *, total: bool = False) -> list[IntArray]:
        """Per sensitive attribute, the histogram of each class (or of all of them)."""
        rows, owner = self._expand(classes)
        n = 1 if total else classes.size
        slot = np.zeros_like(owner) if total else owner
        out = []
        for _, codes, nv, _, _ in self.sensitive:
            flat = np.bincount(
                slot * nv + codes[rows], weights=self.weights[rows], minlength=n * nv
            )
            hist = flat.astype(np.int64).reshape(n, nv)
            out.append(hist[0] if total else hist)
        return out

    def _expand(self, classes: IntArray) -> tuple[IntArray, IntArray]:
        """Rows of each given class, and for each row the position of its class."""
        counts = self.rows_per_class[classes]
        owner = np.repeat(np.arange(classes.size, dtype=np.int64), counts)
        offsets = np.arange(owner.size, dtype=np.int64) - np.repeat(
            np.cumsum(counts) - counts, counts
        )
        rows = self.row_order[self.class_start[classes][owner] + offsets]
        return rows, owner


# --------------------------------------------------------------------------- the search


def _targets(
    class_rows: IntArray,
    class_keys: IntArray,
    strides: IntArray | None,
    star: IntArray,
    movers: IntArray,
    mask: BoolArray,
    cu: IntArray,
    cm: IntArray,
) -> tuple[IntArray, IntArray, int]:
    """Keys of the candidates' targets, keys of the classes, and the all-``*`` key.

    With mixed-radix keys the target key is the class key plus the change of the starred
    digits; otherwise the rows are built and numbered together with the classes.
    """
    if strides is not None:
        delta = (star[None, :] - class_rows[movers]) * strides[None, :]
        per_combo = (delta @ mask.T.astype(np.int64)) if mask.size else np.zeros((movers.size, 0))
        tkeys = class_keys[movers][cu] + per_combo[cu, cm].astype(np.int64)
        return tkeys.astype(np.int64), class_keys, int(star @ strides)
    target_rows = np.where(mask[cm], star[None, :], class_rows[movers][cu])
    stacked = np.vstack([class_rows, target_rows, star[None, :]])
    _, inverse = np.unique(stacked, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1).astype(np.int64)
    n = class_rows.shape[0]
    return inverse[n:-1], inverse[:n], int(inverse[-1])


def _min_per_run(run: IntArray, score: IntArray) -> tuple[IntArray, IntArray]:
    """For each run of equal, sorted ``run`` values: index of its first smallest score."""
    new_run = first_of_runs(run)
    starts = np.flatnonzero(new_run)
    mins = np.minimum.reduceat(score, starts) if run.size else score[:0]
    group = np.cumsum(new_run) - 1
    at_min = np.flatnonzero(score == mins[group])
    first = first_of_runs(group[at_min])
    return at_min[first].astype(np.int64), mins.astype(np.int64)


def _lookup(sorted_keys: IntArray, keys: IntArray) -> IntArray:
    """Position of each key in ``sorted_keys`` or -1."""
    if not sorted_keys.size:
        return np.full(keys.shape, -1, dtype=np.int64)
    pos = np.searchsorted(sorted_keys, keys)
    pos_c = np.minimum(pos, sorted_keys.size - 1)
    return np.where(sorted_keys[pos_c] == keys, pos_c, -1).astype(np.int64)


class _Search:
    """Greedy local suppression over distinct rows (see the module docstring)."""

    def __init__(
        self,
        rows: IntArray,
        star: IntArray,
        importance: FloatArray,
        judge: _Judge,
        strides: IntArray | None,
        judge_suppressed: bool,
    ) -> None:
        self.x = rows.copy()
        self.star = star
        self.importance = importance
        self.judge = judge
        self.strides = strides
        self.strict = judge_suppressed
        self.q = rows.shape[1]
        self.rounds = 0

    def run(self) -> IntArray:
        limit = self.x.shape[0] * self.q + 2
        while True:
            class_keys, first, class_of_row = _group_rows(self.x, self.strides)
            class_rows = self.x[first]
            self.judge.set_classes(class_of_row, class_keys.size)
            viol = self.judge.violations()
            all_star = (class_rows == self.star[None, :]).all(axis=1)
            if not self.strict:
                viol &= ~all_star
            if not viol.any():
                return self.x
            self.rounds += 1
            if self.rounds > limit:  # pragma: no cover - each round adds a '*' somewhere
                raise RuntimeError("local suppression did not converge")
            if self.strict and all_star.any() and viol[all_star].all() and viol.sum() == 1:
                new_rows = self._fill(class_rows, np.flatnonzero(all_star)[0])
            else:
                new_rows = self._round(class_rows, class_keys, viol, all_star)
            self.x = new_rows[class_of_row]

    # one round -------------------------------------------------------------------------
    def _round(
        self, class_rows: IntArray, class_keys: IntArray, viol: BoolArray, all_star: BoolArray
    ) -> IntArray:
        """New codes of every class after this round's moves."""
        judge, q, star, strict = self.judge, self.q, self.star, self.strict
        sizes = judge.sizes
        movers = np.flatnonzero(viol & ~all_star)
        budget = _CANDIDATE_BUDGET if self.strides is not None else _CANDIDATE_BUDGET // 10
        mask, combo_size = _combos(q, _depth(q, movers.size, budget))
        combo_cost = mask.astype(np.float64) @ self.importance
        # rank of each attribute set by (cost, cells): the first two sort keys in one
        pairs = np.stack([combo_cost, combo_size.astype(np.float64)], axis=1)
        combo_rank = np.unique(pairs, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)
        starred = (class_rows[movers] == star[None, :]).astype(np.int64)
        cu, cm = np.nonzero((starred @ mask.T.astype(np.int64)) == 0)
        cu, cm = cu.astype(np.int64), cm.astype(np.int64)  # sorted by cu
        tkeys, ckeys, star_key = _targets(
            class_rows, class_keys, self.strides, star, movers, mask, cu, cm
        )
        mover_class = movers[cu]
        key_order = np.argsort(ckeys, kind="stable").astype(np.int64)
        sorted_ckeys = ckeys[key_order]

        # every distinct target: the class already there (or -1)
        uniq_t, tid = np.unique(tkeys, return_inverse=True)
        tid = tid.reshape(-1).astype(np.int64)
        n_t = uniq_t.size
        t_exist = _lookup(sorted_ckeys, uniq_t)
        t_exist = np.where(t_exist >= 0, key_order[np.maximum(t_exist, 0)], -1)
        t_star = uniq_t == star_key
        t_class = t_exist[tid]

        # solo moves: into an existing class that satisfies the models now, and still does
        solo = ((t_exist >= 0) & ~viol[np.maximum(t_exist, 0)])[tid]
        free = t_star[tid] if not strict else np.zeros(tid.size, dtype=bool)
        idx = np.flatnonzero(solo & ~free)
        if idx.size:
            pairs = np.arange(idx.size, dtype=np.int64)
            solo[idx] = judge.judge(
                np.r_[pairs, pairs], np.r_[mover_class[idx], t_class[idx]], idx.size
            )
        solo |= free

        # pools: the class there plus every violator that could move there
        has = np.flatnonzero(t_exist >= 0)
        items_g = np.r_[tid, has]
        items_c = np.r_[mover_class, t_exist[has]]
        pool_ok = judge.judge(items_g, items_c, n_t)
        pool_ok |= t_star & (not strict)
        pool_size = np.bincount(items_g, weights=sizes[items_c], minlength=n_t).astype(np.int64)

        # the best option of each mover: cheapest, fewest cells, pool before solo, biggest
        target_size = np.where(solo & (t_class >= 0), sizes[np.maximum(t_class, 0)], 0)
        target_size = np.where(solo, target_size, pool_size[tid])
        big = np.int64(1) << 40
        score = (combo_rank[cm] * 2 + solo) * big + (big - 1 - np.minimum(target_size, big - 1))
        never = np.iinfo(np.int64).max
        score = np.where(solo | pool_ok[tid], score, never)
        best, best_score = _min_per_run(cu, score)
        has_option = best_score < never
        chosen_combo = np.full(class_rows.shape[0], -2, dtype=np.int64)  # -2 none, -1 stay
        chosen_key = np.zeros(class_rows.shape[0], dtype=np.int64)
        chosen_pool = np.zeros(class_rows.shape[0], dtype=bool)
        pick = best[has_option]
        chosen_combo[mover_class[pick]] = cm[pick]
        chosen_key[mover_class[pick]] = tkeys[pick]
        chosen_pool[mover_class[pick]] = ~solo[pick]
        # staying put costs nothing: a violator whose own class is a safe pool stays
        violators = np.flatnonzero(viol)
        own_t = _lookup(uniq_t, ckeys[violators])
        stays = violators[own_t >= 0][pool_ok[own_t[own_t >= 0]]]
        chosen_combo[stays] = -1
        chosen_key[stays] = ckeys[stays]
        chosen_pool[stays] = True

        # check the pools with the classes that actually chose them
        deciders = np.flatnonzero(chosen_combo > -2)
        uniq_d, did = np.unique(chosen_key[deciders], return_inverse=True)
        did = did.reshape(-1).astype(np.int64)
        d_exist = _lookup(sorted_ckeys, uniq_d)
        d_exist = np.where(d_exist >= 0, key_order[np.maximum(d_exist, 0)], -1)
        base = np.flatnonzero((d_exist >= 0) & ~viol[np.maximum(d_exist, 0)])
        real_ok = judge.judge(np.r_[did, base], np.r_[deciders, d_exist[base]], uniq_d.size)
        real_ok |= (uniq_d == star_key) & (not strict)
        failed = deciders[chosen_pool[deciders] & ~real_ok[did]]
        chosen_combo[failed] = -2
        if failed.size:  # fall back to the best certain move into an existing class
            certain = solo & ~free
            solo_best, solo_score = _min_per_run(cu, np.where(certain, score, never))
            fallback = solo_best[(solo_score < never) & np.isin(mover_class[solo_best], failed)]
            chosen_combo[mover_class[fallback]] = cm[fallback]

        new_rows = class_rows.copy()
        moving = np.flatnonzero(chosen_combo >= 0)
        new_rows[moving] = np.where(mask[chosen_combo[moving]], star[None, :], class_rows[moving])

        # movers with no safe option give up one more cell; movers whose pool fell short
        # wait a round, unless nothing else changed
        descend = movers[~has_option]  # every mover has candidates: one run each, in order
        descend = descend[chosen_combo[descend] == -2]
        if not moving.size and not descend.size:
            descend = movers[chosen_combo[movers] == -2]
        if descend.size:
            self._descend(new_rows, descend, movers, cu, cm, mask, combo_size, pool_size[tid])
        return new_rows

    def _descend(
        self,
        new_rows: IntArray,
        classes: IntArray,
        movers: IntArray,
        cu: IntArray,
        cm: IntArray,
        mask: BoolArray,
        combo_size: IntArray,
        cand_pool: IntArray,
    ) -> None:
        """Suppress one more cell of each class: least important, then biggest pool."""
        single = np.flatnonzero((combo_size[cm] == 1) & np.isin(movers[cu], classes))
        attr = np.argmax(mask[cm[single]], axis=1).astype(np.int64)
        best = _first_per_group(
            movers[cu[single]], [self.importance[attr], -cand_pool[single], attr]
        )
        chosen = attr[best]
        new_rows[movers[cu[single[best]]], chosen] = self.star[chosen]

    # the class of suppressed records, when judged --------------------------------------
    def _fill(self, class_rows: IntArray, star_class: int) -> IntArray:
        """Move whole classes, cheapest first, into the class of suppressed records."""
        judge = self.judge
        donors = np.flatnonzero(np.arange(class_rows.shape[0]) != star_class)
        open_cost = ((class_rows[donors] != self.star[None, :]) * self.importance).sum(axis=1)
        cost = open_cost * judge.sizes[donors]
        donors = donors[np.lexsort((donors, cost))]
        found = judge.first_ok_prefix(star_class, donors)
        if found < 0:
            described = "; ".join(m.describe() for m in judge.models)
            raise PrivacyUnattainableError(
                "Local suppression cannot satisfy "
                f"{described}: even with every quasi-identifier of every record suppressed, "
                "the one class of suppressed records violates it.",
                requirement=described,
            )
        new_rows = class_rows.copy()
        new_rows[donors[: found + 1]] = self.star
        return new_rows


# --------------------------------------------------------------------------- public API


def suppress_codes(
    codes: npt.ArrayLike,
    *,
    k: int | None = None,
    models: Sequence[PrivacyModel] = (),
    weights: npt.ArrayLike | None = None,
    sensitive: Mapping[str, SensitiveCodes] | None = None,
    cardinalities: Sequence[int] | None = None,
    star: Sequence[int] | None = None,
    importance: Sequence[float] | None = None,
    names: Sequence[str] | None = None,
    judge_suppressed: bool = False,
) -> LocalSuppressionResult:
    """Suppress quasi-identifier cells, few and unimportant ones first, until models hold.

    The pure core of local suppression, over integer codes; see the module docstring for
    the semantics of ``*`` (a literal value of its column) and the greedy heuristic.

    Parameters
    ----------
    codes
        ``(n_rows, n_qi)`` non-negative int codes of the quasi-identifiers after a global
        recoding. Rows may be records or distinct combinations with ``weights``.
    k
        Shortcut for ``KAnonymity(k)`` among ``models``.
    models
        Class-local privacy models (k-anonymity, ℓ-diversity, t-closeness, ...); every
        released class must satisfy all of them. Models needing population counts are
        not supported.
    weights
        Records each row stands for (a frequency snapshot); positive ints, default 1.
    sensitive
        Per sensitive attribute named by a model, its :class:`SensitiveCodes`.
    cardinalities
        Size of each column's code space; default: largest code + 1.
    star
        Code of ``*`` in each column; default ``cardinalities[j]`` (one extra code). Input
        cells holding it are already suppressed.
    importance
        Weight of each quasi-identifier, > 0; higher means kept longer (default all 1).
    names
        Column names for the report; default ``"0"``, ``"1"``, ...
    judge_suppressed
        Also require the class of records whose quasi-identifiers are all ``*`` to satisfy
        the models (default: those records are suppressed and not judged, as in
        ``anonkit check``).

    Returns
    -------
    LocalSuppressionResult

    Raises
    ------
    ParameterError
        On invalid parameters.
    PrivacyUnattainableError
        With ``judge_suppressed=True`` only: when the whole table, as one class, violates
        the models.

    Examples
    --------
    Two records are alone in their class; blanking their age puts them together:

    >>> import numpy as np
    >>> codes = np.array([[0, 0], [0, 0], [1, 0], [1, 1], [1, 2]])
    >>> res = suppress_codes(codes, k=2, names=["sex", "age"])
    >>> res.codes.tolist()
    [[0, 0], [0, 0], [1, 3], [1, 3], [1, 3]]
    >>> dict(res.cells_per_attribute), res.records_touched
    ({'sex': 0, 'age': 3}, 3)
    """
    x = _int_array(codes, "codes", 2)
    n, q = x.shape
    if n == 0:
        raise EmptyDataError()
    if q == 0:
        raise ParameterError("codes", _OWNER, "at least one quasi-identifier column", x.shape)
    if not isinstance(judge_suppressed, (bool, np.bool_)):
        raise ParameterError("judge_suppressed", _OWNER, "True or False", judge_suppressed)
    if weights is None:
        w = np.ones(n, dtype=np.int64)
    else:
        w = _int_array(weights, "weights", 1)
        if w.shape[0] != n or (w < 1).any():
            raise ParameterError("weights", _OWNER, f"{n} positive ints", weights)
    n_records = int(w.sum())
    labels = [str(j) for j in range(q)] if names is None else [str(c) for c in names]
    if len(labels) != q or len(set(labels)) != q:
        raise ParameterError("names", _OWNER, f"{q} distinct column names", names)
    if x.size and x.min() < 0:
        raise ParameterError("codes", _OWNER, "non-negative int codes", int(x.min()))
    if cardinalities is None:
        card = x.max(axis=0) + 1 if star is None else None
    else:
        card = np.asarray(cardinalities, dtype=np.int64)
        if card.shape != (q,):
            raise ParameterError("cardinalities", _OWNER, f"{q} ints", cardinalities)
    if star is None:
        assert card is not None
        star_code = card.astype(np.int64)
    else:
        star_code = np.asarray(star, dtype=np.int64)
        if star_code.shape != (q,) or (star_code < 0).any():
            raise ParameterError("star", _OWNER, f"{q} non-negative ints", star)
    if card is None:
        card = np.maximum(np.where(x == star_code, -1, x).max(axis=0) + 1, star_code)
    out_of_range = (x >= card) & (x != star_code)
    if out_of_range.any():
        j = int(np.flatnonzero(out_of_range.any(axis=0))[0])
        raise ParameterError(
            "codes",
            _OWNER,
            f"codes below {int(card[j])} in column {labels[j]!r}",
            int(x[out_of_range[:, j], j].max()),
        )
    weights_imp = _importance(importance, q)
    resolved = _resolve_models(k, models, n_records)
    sens = _sensitive(resolved, sensitive, n)

    # dense codes per column, '*' last; then group identical (qi, sensitive) rows
    dense = np.empty_like(x)
    bases = []
    for j in range(q):
        col = x[:, j]
        is_star = col == star_code[j]
        values = np.unique(col[~is_star])
        dense[:, j] = np.where(is_star, values.size, np.searchsorted(values, col))
        bases.append(values.size + 1)
    internal_star = np.asarray(bases, dtype=np.int64) - 1
    full = np.hstack([dense, *(s[1][:, None] for s in sens)]) if sens else dense
    full_bases = bases + [s[2] for s in sens]
    _, first, inverse = _group_rows(full, _strides(full_bases))
    row_w = np.bincount(inverse, weights=w, minlength=first.size).astype(np.int64)
    row_sens = [(name, c[first], nv, lab, h) for name, c, nv, lab, h in sens]
    judge = _Judge(resolved, row_sens, row_w, n_records)
    search = _Search(
        dense[first], internal_star, weights_imp, judge, _strides(bases), bool(judge_suppressed)
    )
    final = search.run()

    newly = (final == internal_star[None, :]) & (dense[first] != internal_star[None, :])
    mask = newly[inverse]
    out = np.where(mask, star_code[None, :], x)
    per_attr = (newly * row_w[:, None]).sum(axis=0)
    touched = newly.any(axis=1)
    was_all = (dense[first] == internal_star[None, :]).all(axis=1)
    now_all = (final == internal_star[None, :]).all(axis=1)
    return LocalSuppressionResult(
        quasi_identifiers=tuple(labels),
        codes=out,
        suppressed=mask,
        cells_per_attribute=MappingProxyType(
            {c: int(v) for c, v in zip(labels, per_attr, strict=True)}
        ),
        cells=int(per_attr.sum()),
        cost=float(per_attr @ weights_imp),
        records_touched=int(row_w[touched].sum()),
        records_suppressed=int(row_w[now_all & ~was_all].sum()),
        rounds=search.rounds,
        privacy=tuple(m.describe() for m in resolved),
    )


def _sensitive(
    models: Sequence[PrivacyModel], sensitive: Mapping[str, SensitiveCodes] | None, n: int
) -> list[tuple[str, IntArray, int, tuple[str, ...], Hierarchy | None]]:
    given = dict(sensitive or {})
    out = []
    for name in dict.fromkeys(
        str(getattr(m, "attribute", "")) for m in models if SENSITIVE_HISTOGRAM in m.requires
    ):
        if name not in given:
            raise ParameterError(
                "sensitive", _OWNER, f"the codes of sensitive attribute {name!r}", sorted(given)
            )
        spec = given[name]
        codes = _int_array(spec.codes, f"sensitive[{name!r}]", 1)
        if codes.shape[0] != n or (codes.size and codes.min() < 0):
            raise ParameterError(
                f"sensitive[{name!r}]", _OWNER, f"{n} non-negative int codes", codes.shape
            )
        top = int(codes.max()) + 1 if codes.size else 0
        labels = tuple(str(i) for i in range(top)) if spec.labels is None else tuple(spec.labels)
        if len(labels) < top:
            raise ParameterError(
                f"sensitive[{name!r}]", _OWNER, f"codes below {len(labels)}", top - 1
            )
        out.append((name, codes, len(labels), labels, spec.hierarchy))
    return out


def _text(series: pl.Series) -> pl.Series:
    if series.dtype == pl.String:
        return series
    from anonkit.engines.polars_engine import as_text

    return as_text(series)


def suppress_cells(
    frame: Any,
    quasi_identifiers: Sequence[str],
    *,
    k: int | None = None,
    models: Sequence[PrivacyModel] = (),
    importance: Mapping[str, float] | Sequence[float] | None = None,
    judge_suppressed: bool = False,
    sensitive_hierarchies: Mapping[str, Hierarchy] | None = None,
) -> tuple[Any, LocalSuppressionResult]:
    """Local suppression of a released table: write ``*`` into as few cells as it can.

    A thin adapter over :func:`suppress_codes` for a polars (or pandas) frame of released
    values, typically the output of a global recoding. Quasi-identifier columns come back
    as text with ``*`` in the suppressed cells; other columns are untouched. Cells holding
    ``*`` already count as suppressed. Sensitive attributes are the columns named by the
    models' ``attribute``; a missing sensitive value is a value of its own.

    Parameters
    ----------
    frame
        polars or pandas DataFrame; the same type is returned.
    quasi_identifiers
        Columns whose cells may be suppressed.
    k, models, judge_suppressed
        As in :func:`suppress_codes`.
    importance
        Per quasi-identifier (name -> weight, missing names weigh 1, or one weight per
        column in order); higher means kept longer.
    sensitive_hierarchies
        Hierarchies of sensitive attributes, for models that need one (hierarchical
        distance t-closeness); handed to the models in :class:`SensitiveColumn`.

    Returns
    -------
    frame, LocalSuppressionResult
        The released frame and what was suppressed.

    Raises
    ------
    UnknownColumnError
        If a quasi-identifier or a sensitive attribute is not a column.
    MissingValuesError
        If a quasi-identifier holds nulls.
    ParameterError
        On invalid parameters.

    Examples
    --------
    >>> import polars as pl
    >>> frame = pl.DataFrame({"sex": ["m", "m", "f", "f", "f", "f"],
    ...                       "zip": ["10", "10", "10", "20", "30", "30"]})
    >>> release, res = suppress_cells(frame, ["sex", "zip"], k=2)
    >>> release["zip"].to_list()
    ['10', '10', '*', '*', '30', '30']
    >>> dict(res.cells_per_attribute), res.records_touched
    ({'sex': 0, 'zip': 2}, 2)
    """
    from anonkit.io.frames import from_polars, to_polars

    data, kind = to_polars(frame)
    qi = [quasi_identifiers] if isinstance(quasi_identifiers, str) else list(quasi_identifiers)
    if not qi or len(set(qi)) != len(qi) or not all(isinstance(c, str) for c in qi):
        raise ParameterError(
            "quasi_identifiers", _OWNER, "distinct column names, at least one", quasi_identifiers
        )
    missing = [c for c in qi if c not in data.columns]
    if missing:
        raise UnknownColumnError(missing, data.columns)
    if data.height == 0:
        raise EmptyDataError()
    if isinstance(importance, Mapping):
        unknown = [c for c in importance if c not in qi]
        if unknown:
            raise ParameterError(
                "importance", _OWNER, "weights of quasi-identifiers only", unknown[0]
            )
        weights: Sequence[float] | None = [importance.get(c, 1.0) for c in qi]
    else:
        weights = importance
    model_list = [models] if isinstance(models, PrivacyModel) else list(models)
    wanted = list(
        dict.fromkeys(
            str(getattr(m, "attribute", ""))
            for m in model_list
            if isinstance(m, PrivacyModel) and SENSITIVE_HISTOGRAM in m.requires
        )
    )
    absent = [c for c in wanted if c not in data.columns]
    if absent:
        raise UnknownColumnError(absent, data.columns)
    clash = [c for c in wanted if c in qi]
    if clash:
        raise ParameterError(
            "models", _OWNER, "sensitive attributes that are not quasi-identifiers", clash[0]
        )

    codes = np.empty((data.height, len(qi)), dtype=np.int64)
    texts: list[pl.Series] = []
    star = []
    for j, c in enumerate(qi):
        series = data[c]
        nulls = series.null_count() + (int(series.is_nan().sum()) if series.dtype.is_float() else 0)
        if nulls:
            raise MissingValuesError(c, nulls)
        text = _text(series)
        texts.append(text)
        values = text.unique().sort().to_list()
        if SUPPRESSED in values:
            values.remove(SUPPRESSED)
        lookup = {v: i for i, v in enumerate(values)}
        lookup[SUPPRESSED] = len(values)
        codes[:, j] = text.replace_strict(lookup, return_dtype=pl.Int64).to_numpy()
        star.append(len(values))
    sens: dict[str, SensitiveCodes] = {}
    for c in wanted:
        text = _text(data[c])
        labels = text.drop_nulls().unique().sort().to_list()
        lookup = {v: i for i, v in enumerate(labels)}
        scodes = text.replace_strict(lookup, default=len(labels), return_dtype=pl.Int64)
        if text.null_count():
            labels.append("null")
        hierarchy = (sensitive_hierarchies or {}).get(c)
        sens[c] = SensitiveCodes(scodes.to_numpy(), tuple(labels), hierarchy)

    res = suppress_codes(
        codes,
        k=k,
        models=model_list,
        sensitive=sens,
        cardinalities=star,
        star=star,
        importance=weights,
        names=qi,
        judge_suppressed=judge_suppressed,
    )
    columns = []
    for j, c in enumerate(qi):
        cell = pl.Series(res.suppressed[:, j])
        columns.append(
            pl.select(pl.when(pl.lit(cell)).then(pl.lit(SUPPRESSED)).otherwise(pl.lit(texts[j])))
            .to_series()
            .alias(c)
        )
    release = data.with_columns(columns)
    return from_polars(release, kind), res
