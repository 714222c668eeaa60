"""The greedy of local suppression, round by round (see the package docstring)."""

from __future__ import annotations

import numpy as np

from anonkit._arrays import BoolArray, FloatArray, IntArray
from anonkit.algorithms.local_suppression.judge import Judge
from anonkit.algorithms.local_suppression.keys import (
    combos,
    depth,
    first_per_group,
    group_rows,
    lookup,
    min_per_run,
    targets,
)
from anonkit.exceptions import PrivacyUnattainableError

#: Candidate moves (class, attribute set) evaluated per round at most.
_CANDIDATE_BUDGET = 2_000_000


class Search:
    """Greedy local suppression over distinct rows (see the module docstring)."""

    def __init__(
        self,
        rows: IntArray,
        star: IntArray,
        importance: FloatArray,
        judge: Judge,
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
            class_keys, first, class_of_row = group_rows(self.x, self.strides)
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
        mask, combo_size = combos(q, depth(q, movers.size, budget))
        combo_cost = mask.astype(np.float64) @ self.importance
        # rank of each attribute set by (cost, cells): the first two sort keys in one
        pairs = np.stack([combo_cost, combo_size.astype(np.float64)], axis=1)
        combo_rank = np.unique(pairs, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)
        starred = (class_rows[movers] == star[None, :]).astype(np.int64)
        cu, cm = np.nonzero((starred @ mask.T.astype(np.int64)) == 0)
        cu, cm = cu.astype(np.int64), cm.astype(np.int64)  # sorted by cu
        tkeys, ckeys, star_key = targets(
            class_rows, class_keys, self.strides, star, movers, mask, cu, cm
        )
        mover_class = movers[cu]
        key_order = np.argsort(ckeys, kind="stable").astype(np.int64)
        sorted_ckeys = ckeys[key_order]

        # every distinct target: the class already there (or -1)
        uniq_t, tid = np.unique(tkeys, return_inverse=True)
        tid = tid.reshape(-1).astype(np.int64)
        n_t = uniq_t.size
        t_exist = lookup(sorted_ckeys, uniq_t)
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
        best, best_score = min_per_run(cu, score)
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
        own_t = lookup(uniq_t, ckeys[violators])
        stays = violators[own_t >= 0][pool_ok[own_t[own_t >= 0]]]
        chosen_combo[stays] = -1
        chosen_key[stays] = ckeys[stays]
        chosen_pool[stays] = True

        # check the pools with the classes that actually chose them
        deciders = np.flatnonzero(chosen_combo > -2)
        uniq_d, did = np.unique(chosen_key[deciders], return_inverse=True)
        did = did.reshape(-1).astype(np.int64)
        d_exist = lookup(sorted_ckeys, uniq_d)
        d_exist = np.where(d_exist >= 0, key_order[np.maximum(d_exist, 0)], -1)
        base = np.flatnonzero((d_exist >= 0) & ~viol[np.maximum(d_exist, 0)])
        real_ok = judge.judge(np.r_[did, base], np.r_[deciders, d_exist[base]], uniq_d.size)
        real_ok |= (uniq_d == star_key) & (not strict)
        failed = deciders[chosen_pool[deciders] & ~real_ok[did]]
        chosen_combo[failed] = -2
        if failed.size:  # fall back to the best certain move into an existing class
            certain = solo & ~free
            solo_best, solo_score = min_per_run(cu, np.where(certain, score, never))
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
        best = first_per_group(
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
