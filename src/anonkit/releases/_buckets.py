"""Steps 2-4 of :func:`anonkit.releases.publish` on integer codes: balancing and splitting
the buckets of known signatures, and assigning the pool to new classes.

Records are *positions* in quasi-identifier order (``0..n-1``), sensitive values are codes
that sort like the values themselves, signatures are sorted tuples of codes and forbidden
sets are bit masks of codes. Nothing here loops over records: the loops run over
signatures, sensitive values, or *phases* of the assignment (see :func:`assign`).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

Ints = NDArray[np.int64]
_EMPTY: Ints = np.zeros(0, dtype=np.int64)


#: Chooses a new class's counterfeit values: ``need`` of the ``allowed`` ones (codes).
Pick = Callable[[list[int], int], list[int]]


def _ints(values: Sequence[int] | Ints) -> Ints:
    return np.asarray(values, dtype=np.int64)


def random_pick(rng: np.random.Generator) -> Pick:
    """Counterfeit values drawn uniformly, without replacement, among those allowed.

    Why at random: whichever real values a class holds, every choice of counterfeits is
    then equally likely, so the values a class shows do not tell which of them are real.
    A fixed rule does: with the domain's first values, a class showing {asthma, hiv}
    with one counterfeit holds hiv (with asthma real, the counterfeit would be flu).

    Examples
    --------
    >>> pick = random_pick(np.random.default_rng(0))
    >>> sorted(pick([0, 2, 5, 7], 2)) in ([0, 2], [0, 5], [0, 7], [2, 5], [2, 7], [5, 7])
    True
    """

    def pick(allowed: list[int], need: int) -> list[int]:
        return sorted(rng.choice(allowed, size=need, replace=False).tolist()) if need else []

    return pick


class Pool:
    """The pool records of each sensitive value, taken in quasi-identifier order.

    A value's records are kept in groups of one forbidden set (τ-safety: the values of a
    changed record's window; mask 0 for none). A group's records are allowed in a class or
    barred from it together, so every take empties a group from its front: taking the first
    ``n`` allowed records is a merge of the allowed groups' fronts, never a scan. The
    fronts of a value's barred groups wait in a heap, first position first.
    """

    def __init__(
        self, positions: Ints, values: Ints, forbidden: Ints, masks: Sequence[int], n_values: int
    ) -> None:
        free = forbidden == 0
        idx = np.lexsort((positions[free], values[free]))
        #: Positions of the free records, by value then position; the jumps of
        #: :func:`assign` take runs of it.
        self.free_all: Ints = positions[free][idx]
        bounds = np.searchsorted(values[free][idx], np.arange(n_values + 1))
        self.free_start: list[int] = bounds.tolist()
        self.free_taken: list[int] = [0] * n_values
        #: Records not taken yet, per value.
        self.left: list[int] = np.bincount(values, minlength=n_values).tolist()
        #: Per value, its barred groups: (mask, positions, [records taken]).
        self.groups: dict[int, list[tuple[int, Ints, list[int]]]] = {}
        self._fronts: dict[int, list[tuple[int, int]]] = {}  # heap of (position, group)
        if not free.all():
            barred = ~free
            idx = np.lexsort((positions[barred], forbidden[barred], values[barred]))
            pos, val, code = positions[barred][idx], values[barred][idx], forbidden[barred][idx]
            cut = np.flatnonzero((np.diff(val) != 0) | (np.diff(code) != 0)) + 1
            for lo, hi in itertools.pairwise([0, *cut.tolist(), len(pos)]):
                v = int(val[lo])
                groups = self.groups.setdefault(v, [])
                self._fronts.setdefault(v, []).append((int(pos[lo]), len(groups)))
                groups.append((masks[int(code[lo])], pos[lo:hi], [0]))
            for heap in self._fronts.values():
                heapq.heapify(heap)

    def _free(self, v: int) -> Ints:
        return self.free_all[self.free_start[v] + self.free_taken[v] : self.free_start[v + 1]]

    def _advance(self, v: int, g: int, n: int) -> None:
        """``n`` more records of ``v``'s barred group ``g`` taken; its new front waits."""
        _, pos, taken = self.groups[v][g]
        taken[0] += n
        if taken[0] < len(pos):
            heapq.heappush(self._fronts[v], (int(pos[taken[0]]), g))

    def _front(self, v: int) -> list[tuple[int, int]]:
        """The heap of ``v``'s barred fronts, its first entry current."""
        heap = self._fronts.get(v, [])
        groups = self.groups.get(v, [])
        while heap and not self._current(groups, heap[0]):
            heapq.heappop(heap)
        return heap

    @staticmethod
    def _current(groups: list[tuple[int, Ints, list[int]]], entry: tuple[int, int]) -> bool:
        _, pos, taken = groups[entry[1]]
        return taken[0] < len(pos) and int(pos[taken[0]]) == entry[0]

    def take(self, v: int, n: int, chosen: int) -> Ints:
        """The first ``n`` (at most) records of ``v`` whose forbidden set misses the
        values of mask ``chosen``, taken out, in order."""
        fronts = [self._free(v)[:n]]
        allowed = [
            (g, pos[taken[0] : taken[0] + n])
            for g, (mask, pos, taken) in enumerate(self.groups.get(v, ()))
            if not mask & chosen and taken[0] < len(pos)
        ]
        fronts += [front for _, front in allowed]
        merged = np.concatenate(fronts)
        got = np.sort(merged)[:n] if allowed else merged
        if allowed and len(got):
            last = got[-1]
            for g, front in allowed:
                if took := int(np.count_nonzero(front <= last)):
                    self._advance(v, g, took)
            self.free_taken[v] += int(np.count_nonzero(fronts[0] <= last))
        else:
            self.free_taken[v] += len(got)
        self.left[v] -= len(got)
        return got

    def take_one(self, v: int, chosen: int, anyhow: bool = False) -> tuple[int, int] | None:
        """The first record of ``v`` allowed with ``chosen`` (any record if ``anyhow``),
        taken out, with its forbidden mask."""
        heap, groups = self._front(v), self.groups.get(v, [])
        passed, found = [], None
        while heap:
            entry = heapq.heappop(heap)
            if not self._current(groups, entry):
                continue
            if anyhow or not groups[entry[1]][0] & chosen:
                found = entry
                break
            passed.append(entry)
        for entry in passed:
            heapq.heappush(heap, entry)
        free = self._free(v)
        if len(free) and (found is None or free[0] < found[0]):
            if found is not None:
                heapq.heappush(heap, found)
            self.free_taken[v] += 1
            self.left[v] -= 1
            return int(free[0]), 0
        if found is None:
            return None
        self._advance(v, found[1], 1)
        self.left[v] -= 1
        return found[0], groups[found[1]][0]

    def free_run(self, v: int) -> int:
        """How many of ``v``'s next records are free (before its first barred one)."""
        heap, free = self._front(v), self._free(v)
        return int(np.searchsorted(free, heap[0][0])) if heap else len(free)


@dataclass
class Classes:
    """Classes under construction: real records by position, counterfeits by value, each
    with its class and its rank in the class; and each class's signature."""

    pos: list[Ints] = field(default_factory=list)
    cls: list[Ints] = field(default_factory=list)
    rank: list[Ints] = field(default_factory=list)
    fake_cls: list[Ints] = field(default_factory=list)
    fake_value: list[Ints] = field(default_factory=list)
    fake_rank: list[Ints] = field(default_factory=list)
    sig_of_class: list[Ints] = field(default_factory=list)
    n_classes: int = 0
    signatures: dict[tuple[int, ...], int] = field(default_factory=dict)

    def signature(self, values: Sequence[int]) -> int:
        """The number of the signature holding ``values``."""
        key = tuple(sorted(values))
        return self.signatures.setdefault(key, len(self.signatures))

    def real(self, pos: Ints, cls: Ints, rank: Ints) -> None:
        self.pos.append(pos)
        self.cls.append(cls)
        self.rank.append(rank)

    def fakes(self, cls: Ints, value: Ints, rank: Ints) -> None:
        self.fake_cls.append(cls)
        self.fake_value.append(value)
        self.fake_rank.append(rank)

    @staticmethod
    def joined(parts: list[Ints]) -> Ints:
        return np.concatenate(parts) if parts else _EMPTY


def balance_and_split(
    pos: Ints, sig: Ints, val: Ints, sigs: Sequence[tuple[int, ...]], pool: Pool, out: Classes
) -> None:
    """Steps 2 and 4 for the buckets of known signatures (``sig`` indexes ``sigs``), in
    signature order: fill each value's deficit with the first allowed pool records, then
    make class ``i`` of a bucket from the ``i``-th record of each value (counterfeits for
    the values short of records)."""
    n_values = len(pool.left)
    key = sig * n_values + val
    keys, counts = np.unique(key, return_counts=True)
    held = dict(zip(keys.tolist(), counts.tolist(), strict=True))
    extra_pos, extra_sig, extra_val = [pos], [sig], [val]
    offsets = np.zeros(len(sigs), dtype=np.int64)
    fake_runs: list[tuple[int, int, int]] = []  # (first class, count, value)
    for s in sorted(set(sig.tolist()), key=sigs.__getitem__):
        values = sigs[s]
        have = [held.get(s * n_values + v, 0) for v in values]
        target = max(have)
        mask = sum(1 << v for v in values)
        offsets[s] = out.n_classes
        for v, h in zip(values, have, strict=True):
            if target > h and pool.left[v]:
                got = pool.take(v, target - h, mask)
                extra_pos.append(got)
                extra_sig.append(np.full(len(got), s, dtype=np.int64))
                extra_val.append(np.full(len(got), v, dtype=np.int64))
                h += len(got)
            if target > h:
                fake_runs.append((out.n_classes + h, target - h, v))
        out.sig_of_class.append(np.full(target, out.signature(values), dtype=np.int64))
        out.n_classes += target
    pos, sig, val = (np.concatenate(a) for a in (extra_pos, extra_sig, extra_val))
    order = np.lexsort((pos, val, sig))
    pos, sig, val = pos[order], sig[order], val[order]
    start = np.flatnonzero(np.r_[True, (np.diff(sig) != 0) | (np.diff(val) != 0)])
    nth = np.arange(len(pos)) - np.repeat(start, np.diff(np.r_[start, len(pos)]))
    out.real(pos, offsets[sig] + nth, val)
    if fake_runs:
        first, count, value = (_ints(c) for c in zip(*fake_runs, strict=True))
        out.fakes(_spread(first, count), np.repeat(value, count), np.repeat(value, count))


def _spread(first: Ints, count: Ints) -> Ints:
    """``first[i], first[i] + 1, ..., first[i] + count[i] - 1`` for every ``i``, joined."""
    return _ints(np.repeat(first - np.cumsum(count) + count, count) + np.arange(int(count.sum())))


class _FreeRuns(dict[int, int]):
    """The free records ahead of each value's first barred one, read when asked."""

    def __init__(self, pool: Pool) -> None:
        super().__init__()
        self.pool = pool

    def __missing__(self, v: int) -> int:
        self[v] = run = self.pool.free_run(v)
        return run


#: How many records each value may give a phase (its records left, or its free run).
Runs = Sequence[int] | Mapping[int, int]


@dataclass
class _Plan:
    """``steps`` classes, each of the values ``top`` (in rank order) and ``s`` values of
    ``plateau`` taken cyclically from index ``ptr`` on."""

    steps: int
    top: list[int]
    plateau: list[int]
    ptr: int = 0
    s: int = 0


def _limit(plan: _Plan, level: int, below: int, height: list[int], run: Runs) -> int:
    """How many steps ``plan`` is the greedy's choice: the plateau's values stand on
    ``level`` (from ``ptr`` on) and ``level - 1`` (before ``ptr``), the others below it at
    ``below`` or less; ``top`` stays strictly above the plateau, the plateau's chosen
    values strictly above ``below``, and no value takes more than its ``run`` of free
    records."""
    p, ptr, s = len(plan.plateau), plan.ptr, plan.s
    j = ((level - below) * p - ptr) // s
    for k, v in enumerate(plan.plateau):
        j = min(j, ((k if k >= ptr else k + p) + run[v] * p - ptr) // s)
    if plan.top:
        low = height[plan.top[-1]]
        j = min(j, low - below, *(run[v] for v in plan.top))
        need = 1 + level - low  # the top's lowest stays above the plateau's next value

        def above(i: int) -> bool:
            return (ptr + i * s) // p - i >= need

        if j > 0 and not above(j - 1):
            if not above(0):
                return 0
            ok, bad = 0, j - 1
            while bad - ok > 1:
                mid = (ok + bad) // 2
                ok, bad = (mid, bad) if above(mid) else (ok, mid)
            j = ok + 1
    return max(j, 0)


def _plan(ranked: list[int], height: list[int], run: Runs, m: int) -> _Plan:
    """The longest run of classes whose composition follows from the heights alone: the
    greedy (``m`` values with the most records left, ties by value) takes the values above
    a plateau every time and the plateau's values in turn.

    Why the turns are exact: let the plateau's ``p`` values (sorted) stand on two adjacent
    levels, the upper one holding those from index ``ptr`` on. Ranked by records left then
    by value, they read cyclically from ``ptr``: the upper level by value, then the lower
    one by value. Taking the first ``s`` of them leaves the same shape with ``ptr``
    advanced by ``s`` modulo ``p`` (the upper level exhausted, the lower becomes the upper
    one), so class ``i`` takes the values at cyclic indices ``ptr + i*s .. ptr + i*s + s - 1``.
    The candidates: every value above the ``m``-th ranked one's level ``lam`` on top and
    the plateau either that level alone, or that level over ``lam - 1`` or ``lam + 1``
    over it when the upper values follow the lower ones by value; or the first ``m``
    values taken together while they stay above the rest. :func:`_limit` counts the
    classes for which the conditions hold."""
    if len(ranked) <= m:
        return _Plan(min(min(height[v], run[v]) for v in ranked), ranked, [])
    levels = [(h, list(vs)) for h, vs in itertools.groupby(ranked, key=height.__getitem__)]
    lam = height[ranked[m - 1]]
    e = next(i for i, (h, _) in enumerate(levels) if h == lam)

    def under(i: int) -> int:
        return levels[i][0] if i < len(levels) else 0

    top = [v for _, vs in levels[:e] for v in vs]
    first = ranked[:m]
    best = _Plan(min(lam - height[ranked[m]], *(run[v] for v in first)), first, [])
    flat = levels[e][1]
    options = [(_Plan(0, top, flat, 0, m - len(top)), lam, under(e + 1))]
    low = levels[e + 1][1] if e + 1 < len(levels) and levels[e + 1][0] == lam - 1 else []
    if low and low[-1] < flat[0]:
        options.append((_Plan(0, top, low + flat, len(low), m - len(top)), lam, under(e + 2)))
    high = levels[e - 1][1] if e and levels[e - 1][0] == lam + 1 else []
    if high and flat[-1] < high[0]:
        rest = top[: len(top) - len(high)]
        options.append(
            (_Plan(0, rest, flat + high, len(flat), m - len(rest)), lam + 1, under(e + 1))
        )
    for plan, level, below in options:
        plan.steps = _limit(plan, level, below, height, run)
        if plan.steps > best.steps:
            best = plan
    return best


@dataclass
class _Steps:
    """Step 3's classes as they are laid out: runs of free records (a value's next
    ``count`` records; the ``t``-th goes to class ``step + (off + t * p) // s`` at rank
    ``rank + (off + t * p) % s``), runs of counterfeits (the same values for ``steps``
    classes from ``step`` on), and the records and counterfeits of single classes."""

    runs: list[tuple[int, int, int, int, int, int, int]] = field(default_factory=list)
    fake_runs: list[tuple[int, int, list[int]]] = field(default_factory=list)
    single: list[tuple[int, int, int]] = field(default_factory=list)  # position, class, rank
    single_fakes: list[tuple[int, int, int]] = field(default_factory=list)  # class, value, rank

    def flush(self, pool: Pool, out: Classes) -> None:
        """Hand the records and counterfeits to ``out``."""
        if self.runs:
            start, size, step, off, p, s, rank = (_ints(c) for c in zip(*self.runs, strict=True))
            which = np.repeat(np.arange(len(self.runs)), size)
            t = np.arange(int(size.sum())) - np.repeat(np.cumsum(size) - size, size)
            a = off[which] + t * p[which]
            out.real(
                pool.free_all[start[which] + t],
                step[which] + a // s[which],
                rank[which] + a % s[which],
            )
        for first, steps, values in self.fake_runs:
            cls = np.repeat(np.arange(first, first + steps), len(values))
            out.fakes(cls, np.tile(_ints(values), steps), np.tile(np.arange(len(values)), steps))
        for rows, add in ((self.single, out.real), (self.single_fakes, out.fakes)):
            if rows:
                add(*(_ints(c) for c in zip(*rows, strict=True)))


def assign(
    pool: Pool,
    domain: Sequence[int],
    m: int,
    out: Classes,
    too_few: Callable[[], Exception],
    *,
    pick: Pick,
) -> None:
    """Step 3: the pool forms classes of ``m`` distinct values, each taking the first
    allowed record of the values with the most records left (ties by value), completed
    with counterfeits of the ``domain`` values it may hold, as ``pick`` chooses them
    (:func:`random_pick`).

    The greedy is computed in phases rather than class by class: while the classes' values
    follow from the counts alone (values above a plateau taken every time, the plateau's
    values in turn, its upper level a suffix of it by value; every record involved free of
    forbidden values), a whole phase is laid out by arithmetic; otherwise one class is
    formed as the paper's step states it (skipping records and values barred by the
    class's values so far)."""
    height, fakes = pool.left, _Fakes(domain, pick, too_few)
    steps = _Steps()
    while live := [v for v, h in enumerate(height) if h]:
        ranked = sorted(live, key=lambda v: (-height[v], v))
        plan = _plan(ranked, height, _FreeRuns(pool) if pool.groups else height, m)
        if plan.steps:
            _lay_out(plan, pool, fakes, m, steps, out)
        else:
            _one(pool, ranked, fakes, m, steps, out)
    steps.flush(pool, out)


@dataclass(frozen=True)
class _Fakes:
    """How step 3 completes a class: ``need`` counterfeits of the ``domain`` values it may
    hold, as ``pick`` chooses them, or ``too_few()`` raised when fewer are allowed."""

    domain: Sequence[int]
    pick: Pick
    too_few: Callable[[], Exception]

    def choose(self, need: int, allowed: Callable[[int], bool]) -> list[int]:
        spare = [d for d in self.domain if allowed(d)]
        if need > len(spare):
            raise self.too_few()
        return self.pick(spare, need) if need > 0 else []


def _lay_out(plan: _Plan, pool: Pool, fakes: _Fakes, m: int, steps: _Steps, out: Classes) -> None:
    """The classes of one phase: runs of each value's free records and counterfeits."""
    j, p, s, step = plan.steps, len(plan.plateau), plan.s, out.n_classes
    for r, v in enumerate(plan.top):
        steps.runs.append((pool.free_start[v] + pool.free_taken[v], j, step, 0, 1, 1, r))
        pool.free_taken[v] += j
        pool.left[v] -= j
    for k, v in enumerate(plan.plateau):
        off = (k if k >= plan.ptr else k + p) - plan.ptr
        count = max(0, -((off - j * s) // p))  # tokens off, off + p, ... below j * s
        start = pool.free_start[v] + pool.free_taken[v]
        steps.runs.append((start, count, step, off, p, s, len(plan.top)))
        pool.free_taken[v] += count
        pool.left[v] -= count
    spare = fakes.choose(m - len(plan.top) - s, lambda d: d not in plan.top)
    if spare:
        steps.fake_runs.append((step, j, spare))
    if s in (0, p):
        sig = out.signature([*plan.top, *plan.plateau[:s], *spare])
        out.sig_of_class.append(np.full(j, sig, dtype=np.int64))
    else:
        cyclic = plan.plateau * 2
        sig_at = _ints([out.signature([*plan.top, *cyclic[i : i + s]]) for i in range(p)])
        out.sig_of_class.append(sig_at[(plan.ptr + np.arange(j) * s) % p])
    out.n_classes += j


def _one(pool: Pool, ranked: list[int], fakes: _Fakes, m: int, steps: _Steps, out: Classes) -> None:
    """One class as step 3 states it: in rank order, each value not barred by the
    records taken so far gives its first record allowed with the class's values."""
    step, chosen = out.n_classes, list[int]()
    mask = banned = 0
    for v in ranked:
        if len(chosen) == m:
            break
        if banned >> v & 1:
            continue
        got = pool.take_one(v, mask | 1 << v)
        if got is None:
            continue
        steps.single.append((got[0], step, len(chosen)))
        chosen.append(v)
        mask |= 1 << v
        banned |= got[1]
    if not chosen:  # only records whose forbidden sets block each other: one per class
        v = ranked[0]
        got = pool.take_one(v, 0, anyhow=True)
        assert got is not None
        steps.single.append((got[0], step, 0))
        chosen.append(v)
        banned |= got[1]
    spare = fakes.choose(m - len(chosen), lambda d: d not in chosen and not banned >> d & 1)
    steps.single_fakes += [(step, v, i) for i, v in enumerate(spare)]
    out.sig_of_class.append(_ints([out.signature([*chosen, *spare])]))
    out.n_classes += 1
