"""Releases of a changing table that stay safe against linkage with the earlier ones.

Two models, one publishing routine (:func:`publish`):

**m-invariance** (Xiao & Tao, SIGMOD 2007), for insertions and deletions between releases.
Every release is *m-unique*: each class holds at least ``m`` records, all with different
sensitive values; and every record keeps, over all the releases that publish it, the same
*signature* (its class's set of sensitive values). The intersection of a record's classes
across releases is then its signature, ``m`` values, whatever an adversary links. The
paper's steps, as implemented here:

1. *division*: records published before go to the bucket of their signature, new records
   to a pool;
2. *balancing*: in each bucket every signature value must be held equally often; the
   deficit of a value is filled with pool records holding it, else with **counterfeit**
   records (no real person; the release states how many each class has, as the paper's
   auxiliary counterfeit table does);
3. *assignment*: the pool forms new buckets of ``m`` distinct values (the most frequent
   values first, which keeps the rest m-eligible); a remainder with fewer than ``m``
   distinct values is completed with counterfeits;
4. *split*: a bucket whose values are each held ``c`` times becomes ``c`` classes of one
   record per value, records of each value taken in quasi-identifier order so that
   neighbours share a class;
5. each class's quasi-identifiers are released as the range of its values (numeric
   columns, ``[lo-hi]``) or the set of its values (other columns, ``{a,b}``).

**τ-safety** (Anjum et al., Computers & Security 2017), for arbitrary updates, sensitive
values included. Our reading, as far as the paper can be consulted: within any τ
consecutive releases, each record's signatures are pairwise either *equal* or *disjoint*
(the property the paper's successors state as "signatures keep consistency or have no
intersection"). A record whose new value lies in its last signature keeps it (the
intersection is still that signature); a record whose value left it is published in a
class whose signature is disjoint from every signature it had within the window (the
intersection with any earlier class is then empty, which reveals only that the value
changed, not which it is); a record whose value returned to an earlier signature of the
window that is disjoint from the others gets that signature back, and one for which no
signature can be equal to or disjoint from all of the window's is withheld from the
release (counted in ``withheld``), as a deletion would be. τ is the window the history
keeps; what the paper leaves open (how counterfeits are drawn for a changed record, and
whether releases older than τ still constrain) is settled here by drawing counterfeit
values from the sensitive domain outside the forbidden signatures, and by forgetting
signatures older than τ.

Where the implementation had to choose: the paper's split phase partitions buckets to
minimize the quasi-identifier ranges; here the records of each value are ordered by their
quasi-identifiers and the i-th of each value share a class, which keeps classes local
without an optimization; classes are given fresh numbers in each release.

References
----------
Xiao, X., Tao, Y. (2007). m-invariance: towards privacy preserving re-publication of
dynamic datasets. SIGMOD, 689-700.

Anjum, A., Ahmad, N., Malik, S. U. R., Zubair, S., Shahzad, B. (2017). An efficient approach
for publishing microdata for multiple sensitive attributes / τ-safety: A privacy model for
sequential publication with arbitrary updates. Computers & Security 66, 20-39.
"""

from __future__ import annotations

import dataclasses
import heapq
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from anonkit._validation import check_choice, check_int, check_name, check_names
from anonkit.exceptions import (
    MissingValuesError,
    PrivacyUnattainableError,
    ReleaseVerificationError,
    UnknownColumnError,
)
from anonkit.models.m_uniqueness import MUniqueness
from anonkit.progress import Progress, start_stage
from anonkit.releases.history import ReleaseHistory, Signature
from anonkit.verify import verify_release

__all__ = ["MODELS", "SequentialRelease", "publish"]

#: The models :func:`publish` enforces.
MODELS = ("m_invariance", "tau_safety")
#: Name of the class column of a release.
CLASS_COLUMN = "class"
#: Name of the column marking counterfeit rows.
COUNTERFEIT_COLUMN = "counterfeit"


@dataclass(frozen=True)
class SequentialRelease:
    """One release of a sequence and what it states.

    Attributes
    ----------
    table
        The release: ``class``, the quasi-identifiers as labels, the sensitive attribute
        (counterfeit rows included, as the paper publishes them; no record ids).
    counterfeits
        Per class, the number of counterfeit rows it holds (``class``, ``counterfeits``):
        the paper's auxiliary table.
    history
        The updated history (signatures by record id), to keep for the next release.
    model
        ``"m_invariance"`` or ``"tau_safety"``, with ``m`` (and τ) in ``guarantee``.
    guarantee
        One sentence stating what the release satisfies.
    verified
        The release passed its independent re-check (m-uniqueness by
        :func:`anonkit.verify.verify_release`, signatures recounted from the published
        classes).
    withheld
        τ-safety: records left out of this release because their value returned to a
        signature that overlaps another one of the window (no signature could be equal to
        or disjoint from all of them); they are published again once the window allows.
    """

    table: pl.DataFrame
    counterfeits: pl.DataFrame
    history: ReleaseHistory
    model: str
    guarantee: str
    withheld: int = 0
    verified: bool = False


@dataclass
class _Group:
    """A class under construction: its records' row numbers and counterfeit values."""

    rows: list[int]
    values: list[str]
    fake: list[str]


class _Queue:
    """The pool records of one sensitive value, in order, taken from anywhere in it.

    Taking the first eligible records and skipping the others is what the balancing and
    the assignment do; a list and ``list.remove`` made that quadratic in the pool's size
    (300,000 records: 0.7 s in ``remove`` alone). Taken records are marked and skipped;
    the head moves past them."""

    __slots__ = ("_rows", "_taken", "_head", "remaining")

    def __init__(self) -> None:
        self._rows: list[int] = []
        self._taken: set[int] = set()
        self._head = 0
        self.remaining = 0

    def append(self, row: int) -> None:
        self._rows.append(row)
        self.remaining += 1

    def take(self, n: int, ok: Callable[[int], bool]) -> list[int]:
        """The first ``n`` records (at most) that ``ok`` accepts, taken out, in order."""
        out: list[int] = []
        rows, taken = self._rows, self._taken
        for i in range(self._head, len(rows)):
            if len(out) == n:
                break
            if i in taken or not ok(rows[i]):
                continue
            taken.add(i)
            out.append(rows[i])
        while self._head < len(rows) and self._head in taken:
            self._head += 1
        self.remaining -= len(out)
        return out

    def take_first(self) -> int:
        """The first record still in the queue, taken out (the head is never taken)."""
        rows, taken = self._rows, self._taken
        head = self._head
        if head >= len(rows):
            raise IndexError("take_first from an empty queue")
        head += 1
        while head < len(rows) and head in taken:
            head += 1
        row, self._head = rows[self._head], head
        self.remaining -= 1
        return row


def _allowed(forbidden: dict[int, set[str]], values: set[str]) -> Callable[[int], bool]:
    """Whether a record may join a class holding ``values``: none of them is forbidden to
    it (τ-safety's signatures of its window)."""
    return lambda row: not (forbidden.get(row, _NOTHING) & values)


_NOTHING: frozenset[str] = frozenset()


def publish(
    frame: pl.DataFrame,
    *,
    id_column: str,
    quasi_identifiers: Sequence[str],
    sensitive: str,
    m: int,
    history: ReleaseHistory | None = None,
    model: str = "m_invariance",
    tau: int = 2,
    numeric: Sequence[str] = (),
    domain: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> SequentialRelease:
    """Publish the current state of a table under m-invariance or τ-safety.

    Parameters
    ----------
    frame
        The table now (polars): one row per record, ``id_column`` unique.
    id_column
        The column identifying a record across releases (never released).
    quasi_identifiers
        Columns released as class ranges or sets.
    sensitive
        The sensitive attribute, released as is.
    m
        Least number of distinct sensitive values per class (``>= 2``).
    history
        What earlier releases published (None for the first release).
    model
        ``"m_invariance"`` (insertions and deletions) or ``"tau_safety"`` (any update).
    tau
        τ-safety's window: releases within which signatures must be equal or disjoint.
    numeric
        Quasi-identifiers released as ``[lo-hi]`` ranges (others as value sets).
    domain
        The values counterfeit records may take (the sensitive attribute's domain, as in
        the paper); by default the values of the current table and of the signatures the
        history holds.
    progress
        Told each step as it starts (dividing the records, forming the classes,
        releasing them): ``stage(name)`` of a :class:`~anonkit.progress.StagedProgress`.

    Raises
    ------
    PrivacyUnattainableError
        Under m-invariance, when a published record's sensitive value left its signature
        (use ``model="tau_safety"``).
    """
    owner = "publish"
    check_name(id_column, "id_column", owner)
    qi = list(check_names(list(quasi_identifiers), "quasi_identifiers", owner))
    check_name(sensitive, "sensitive", owner)
    check_int(m, "m", owner, low=2)
    check_choice(model, "model", owner, MODELS)
    window = check_int(tau, "tau", owner, low=1) if model == "tau_safety" else 1
    missing = [c for c in [id_column, *qi, sensitive] if c not in frame.columns]
    if missing:
        raise UnknownColumnError(missing, frame.columns)
    for c in [id_column, sensitive]:
        nulls = frame[c].null_count()
        if nulls:
            raise MissingValuesError(c, nulls)
    if frame[id_column].n_unique() != frame.height:
        raise PrivacyUnattainableError(
            f"Column {id_column!r} must identify each record once; it holds duplicates, so "
            "signatures cannot be tracked across releases.",
            requirement=f"{m}-invariance",
        )
    past = history if history is not None else ReleaseHistory(window=window)
    if past.window < window:
        past = ReleaseHistory(window=window, releases=past.releases, records=dict(past.records))

    start_stage(progress, "Dividing the records")
    order = frame.with_row_index("_row").sort([*qi, "_row"])["_row"].to_list()
    position = {row: i for i, row in enumerate(order)}
    ids = [str(v) for v in frame[id_column].cast(pl.String).to_list()]
    values = [str(v) for v in frame[sensitive].cast(pl.String).to_list()]
    known = {v for entries in past.records.values() for _, sig in entries for v in sig}
    all_values = sorted(
        {str(v) for v in domain} | set(values) if domain is not None else set(values) | known
    )

    # 1. division: published records by signature; new or changed records to the pool
    buckets: dict[Signature, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    pool: list[int] = []
    forbidden: dict[int, set[str]] = {}
    withheld: list[int] = []
    for row in order:
        sig = past.latest(ids[row])
        if sig is not None and values[row] in sig:
            buckets[sig][values[row]].append(row)
            continue
        if sig is not None and model == "m_invariance":
            raise PrivacyUnattainableError(
                f"A record's sensitive value in column {sensitive!r} left the signature an "
                "earlier release gave it, which m-invariance cannot publish; use "
                "model='tau_safety' for releases with updated values.",
                requirement=f"{m}-invariance",
            )
        if sig is not None:
            window_sigs = past.signatures(ids[row])
            # the value returned to an earlier signature that is disjoint from the others
            back = [
                s
                for s in window_sigs
                if values[row] in s and all(t == s or not set(t) & set(s) for t in window_sigs)
            ]
            if back:
                buckets[back[-1]][values[row]].append(row)
                continue
            forbidden[row] = {v for s in window_sigs for v in s}
            if values[row] in forbidden[row]:  # no signature can be equal or disjoint
                withheld.append(row)
                continue
        pool.append(row)

    start_stage(progress, "Forming the classes")
    pool_by_value: dict[str, _Queue] = defaultdict(_Queue)
    for row in pool:
        pool_by_value[values[row]].append(row)

    groups: list[_Group] = []
    # 2. balancing and 4. split of the buckets of known signatures
    for sig in sorted(buckets):
        held = buckets[sig]
        target = max(len(held.get(v, [])) for v in sig)
        fakes: dict[str, int] = {}
        values_of_sig = set(sig)
        for v in sig:
            rows = held.setdefault(v, [])
            queue = pool_by_value.get(v)
            if queue is not None and target > len(rows):
                rows.extend(
                    queue.take(
                        target - len(rows),
                        _allowed(forbidden, values_of_sig),
                    )
                )
            rows.sort(key=position.__getitem__)
            fakes[v] = target - len(rows)
        for i in range(target):
            g = _Group([], [], [])
            for v in sig:
                rows = held[v]
                if i < len(rows):
                    g.rows.append(rows[i])
                    g.values.append(v)
                else:
                    g.fake.append(v)
            groups.append(g)

    # 3. assignment of the pool: classes of m distinct values, most frequent values first
    if not forbidden:  # no record is barred from any value: the ranking alone decides
        groups += _assign_freely(pool_by_value, all_values, m, sensitive)
    while forbidden and any(q.remaining for q in pool_by_value.values()):
        ranked = sorted(
            (v for v in pool_by_value if pool_by_value[v].remaining),
            key=lambda v: (-pool_by_value[v].remaining, v),
        )
        g = _Group([], [], [])
        banned: set[str] = set()
        for v in ranked:
            if len(g.values) == m:
                break
            if v in banned:
                continue
            chosen = {*g.values, v}
            picked = pool_by_value[v].take(1, _allowed(forbidden, chosen))
            if not picked:
                continue
            pick = picked[0]
            g.rows.append(pick)
            g.values.append(v)
            banned |= forbidden.get(pick, set())
        if not g.rows:  # only records whose forbidden sets block each other: one per class
            v = ranked[0]
            pick = pool_by_value[v].take_first()
            g.rows.append(pick)
            g.values.append(v)
            banned |= forbidden.get(pick, set())
        spare = [v for v in all_values if v not in g.values and v not in banned]
        need = m - len(g.values)
        if need > len(spare):
            raise _too_few_values(sensitive, m)
        g.fake.extend(spare[:need])
        groups.append(g)

    start_stage(progress, "Releasing the classes")
    out = _release(frame, qi, sensitive, numeric, groups, ids, values, past, model, m, window)
    return dataclasses.replace(out, withheld=len(withheld))


def _assign_freely(
    pool_by_value: Mapping[str, _Queue], all_values: Sequence[str], m: int, sensitive: str
) -> list[_Group]:
    """Step 3 when no pool record is barred from any value: each class takes the first
    record of each of the ``m`` values with the most records left (ties by value), and
    counterfeits of the first other values of ``all_values`` when fewer are left.

    The same classes as ranking every value anew for each class, from a heap: the values
    that lose a record go back in, so the heap's first ``m`` are the ranking's first
    ``m`` (the loop sorted all values once per class: a million records, half a million
    sorts)."""
    heap = [(-q.remaining, v) for v, q in pool_by_value.items() if q.remaining]
    heapq.heapify(heap)
    groups: list[_Group] = []
    while heap:
        top = [heapq.heappop(heap) for _ in range(min(m, len(heap)))]
        g = _Group([], [], [])
        for count, v in top:
            g.rows.append(pool_by_value[v].take_first())
            g.values.append(v)
            if count + 1 < 0:
                heapq.heappush(heap, (count + 1, v))
        need = m - len(g.values)
        if need:
            spare = [v for v in all_values if v not in g.values]
            if need > len(spare):
                raise _too_few_values(sensitive, m)
            g.fake.extend(spare[:need])
        groups.append(g)
    return groups


def _too_few_values(sensitive: str, m: int) -> PrivacyUnattainableError:
    """The error of a class that cannot be completed to ``m`` distinct values."""
    return PrivacyUnattainableError(
        f"Column {sensitive!r} has too few distinct values (outside the records' earlier "
        f"signatures) to form classes of {m}; pass its full domain= for counterfeits, lower "
        "m or publish fewer changed records.",
        requirement=f"{m}-invariance",
    )


def _label_expr(column: str, numeric: bool) -> pl.Expr:
    """A class's label in one column: ``[lo-hi]`` for numbers, ``{a,b}`` for the rest."""
    if numeric:
        lo, hi = pl.col(column).min().cast(pl.String), pl.col(column).max().cast(pl.String)
        return pl.concat_str([pl.lit("["), lo, pl.lit("-"), hi, pl.lit("]")]).alias(column)
    joined = pl.col(column).cast(pl.String).unique().sort().str.join(",")
    return pl.concat_str([pl.lit("{"), joined, pl.lit("}")]).alias(column)


def _release(
    frame: pl.DataFrame,
    qi: list[str],
    sensitive: str,
    numeric: Sequence[str],
    groups: list[_Group],
    ids: list[str],
    values: list[str],
    past: ReleaseHistory,
    model: str,
    m: int,
    window: int,
) -> SequentialRelease:
    """The release table, the counterfeit table and the updated history."""
    real_rows: list[int] = []
    real_class: list[int] = []
    fake_class: list[int] = []
    fake_values: list[str] = []
    counts: list[int] = []
    signatures: dict[str, Signature] = {}
    for number, g in enumerate(groups, start=1):
        sig = tuple(sorted([*g.values, *g.fake]))
        for row in g.rows:
            signatures[ids[row]] = sig
        real_rows.extend(g.rows)
        real_class.extend([number] * len(g.rows))
        fake_class.extend([number] * len(g.fake))
        fake_values.extend(g.fake)
        counts.append(len(g.fake))
    real = (
        frame[real_rows]
        .select(qi)
        .with_columns(
            pl.Series(CLASS_COLUMN, real_class, dtype=pl.Int64),
            pl.Series(sensitive, [values[r] for r in real_rows], dtype=pl.String),
        )
    )
    labels = real.group_by(CLASS_COLUMN).agg([_label_expr(c, c in numeric) for c in qi])
    fakes = pl.DataFrame(
        {CLASS_COLUMN: fake_class, sensitive: fake_values},
        schema={CLASS_COLUMN: pl.Int64, sensitive: pl.String},
    )
    columns = [CLASS_COLUMN, *qi, sensitive]
    table = (
        pl.concat(
            [
                real.select(CLASS_COLUMN, sensitive).join(labels, on=CLASS_COLUMN, how="left"),
                fakes.join(labels, on=CLASS_COLUMN, how="left"),
            ],
            how="diagonal",
        )
        .select(columns)
        .sort(CLASS_COLUMN, maintain_order=True)
    )
    counterfeits = pl.DataFrame(
        {CLASS_COLUMN: list(range(1, len(groups) + 1)), "counterfeits": counts},
        schema={CLASS_COLUMN: pl.Int64, "counterfeits": pl.Int64},
    )
    history = ReleaseHistory(
        window=past.window,
        releases=past.releases,
        records={k: list(v) for k, v in past.records.items()},
    )
    _verify(table, qi, sensitive, m, real_class, [ids[r] for r in real_rows], past, model)
    history.record(signatures)
    if model == "m_invariance":
        guarantee = (
            f"{m}-invariant (Xiao & Tao 2007): every class holds at least {m} distinct "
            "sensitive values, and every record keeps its signature across releases"
        )
    else:
        guarantee = (
            f"τ-safe with τ={window} and m={m} (Anjum et al. 2017, as read here): every "
            f"class holds at least {m} distinct sensitive values, and within {window} "
            "releases each record's signatures are equal or disjoint"
        )
    return SequentialRelease(table, counterfeits, history, model, guarantee, verified=True)


def _verify(
    table: pl.DataFrame,
    qi: list[str],
    sensitive: str,
    m: int,
    record_class: list[int],
    record_ids: list[str],
    past: ReleaseHistory,
    model: str,
) -> None:
    """Re-check the release from the published table: m-uniqueness of every class
    (:func:`anonkit.verify.verify_release`, classes read from the labels and the class
    number), and each record's signature, recounted from its class's published values,
    against what earlier releases gave it."""
    verify_release(
        table,
        quasi_identifiers=[CLASS_COLUMN, *qi],
        models=[MUniqueness(sensitive, m)],
        n_records=table.height,
        suppression_limit=0.0,
    )
    published = table.group_by(CLASS_COLUMN).agg(pl.col(sensitive).unique().sort())
    sig_of = {int(c): tuple(str(v) for v in vals) for c, vals in published.iter_rows()}
    failures = []
    for rid, cls in zip(record_ids, record_class, strict=True):
        now = sig_of[cls]
        before = past.signatures(rid)
        if model == "m_invariance" and before and before[-1] != now:
            failures.append("a record's signature changed between releases")
        if model == "tau_safety" and any(s != now and set(s) & set(now) for s in before):
            failures.append("a record's signature overlaps an earlier one of the window")
    if failures:
        raise ReleaseVerificationError(sorted(set(failures)))
