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
   distinct values is completed with counterfeits, their values drawn at random among
   those the class may hold (a fixed choice, such as the domain's first values, would
   tell which of a class's values are real);
4. *split*: a bucket whose values are each held ``c`` times becomes ``c`` classes of one
   record per value, records of each value taken in quasi-identifier order so that
   neighbours share a class;
5. each class's quasi-identifiers are released as the range of its values (numeric
   columns, ``[lo-hi]``) or the set of its values (other columns, ``{a,b}``; a value
   holding a comma, a brace or a quote in double quotes, ``{"Austin, TX",Paris}``, as
   :mod:`anonkit.releases._labels` writes and reads them).

Sensitive values are written one way whatever type the column was read with, as are the
history's and ``domain=``'s (:mod:`anonkit.releases._values`): 3 and 3.0 are one value,
and a counterfeit is written as a real record's value would be.

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
without an optimization; classes are given fresh numbers in each release. The steps run
on integer codes (records as positions in quasi-identifier order, sensitive values as
codes, signatures as sorted code tuples) and never record by record: step 3's classes are
laid out in phases of the greedy (:mod:`anonkit.releases._buckets`).

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
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from anonkit._validation import SEED, check, check_choice, check_int, check_name, check_names
from anonkit.core.values import as_text
from anonkit.exceptions import (
    DataError,
    MissingValuesError,
    ParameterError,
    PrivacyUnattainableError,
    ReleaseVerificationError,
    UnknownColumnError,
)
from anonkit.models.m_uniqueness import MUniqueness
from anonkit.progress import Progress, start_stage
from anonkit.releases._buckets import Classes, Ints, Pool, assign, balance_and_split, random_pick
from anonkit.releases._inputs import check_history, check_roles
from anonkit.releases._labels import class_labels
from anonkit.releases._values import Spelling, value_key, value_keys
from anonkit.releases.history import ReleaseHistory, Signature
from anonkit.verify import verify_release

__all__ = ["MODELS", "SequentialRelease", "publish"]

#: The models :func:`publish` enforces.
MODELS = ("m_invariance", "tau_safety")
#: Name of the class column of a release.
CLASS_COLUMN = "class"
#: Name of the column marking counterfeit rows.
COUNTERFEIT_COLUMN = "counterfeit"
#: Division's outcome for a record: a bucket (its number), the pool, or withheld.
_POOL, _WITHHELD = -1, -2


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


@dataclass(frozen=True)
class _Coded:
    """The table as :func:`publish` works on it: ``order`` (row of each position in
    quasi-identifier order), record ids and sensitive values as strings, the values'
    codes (``universe`` sorted, so codes sort like values), and each row's window of
    earlier signatures (an index of ``windows``, -1 for none)."""

    order: Ints
    ids: pl.Series
    values: pl.Series
    universe: list[str]
    window_of: Ints
    windows: list[tuple[Signature, ...]]


def publish(
    frame: pl.DataFrame,
    *,
    id_column: str,
    quasi_identifiers: Sequence[str],
    sensitive: str,
    m: int,
    history: ReleaseHistory | None = None,
    model: str = "m_invariance",
    tau: int | None = None,
    numeric: Sequence[str] = (),
    domain: Sequence[object] | None = None,
    seed: int | None = None,
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
        τ-safety's window: releases within which signatures must be equal or disjoint
        (``None``: 2).
    numeric
        Quasi-identifiers released as ``[lo-hi]`` ranges (others as value sets).
    domain
        The values counterfeit records may take (the sensitive attribute's domain, as in
        the paper); by default the values of the current table and of the signatures the
        history holds. Read as the column's values: in a column of numbers, 1, 1.0 and
        "1" are one value (and a value that is no number is refused).
    seed
        Seed of the random choice of counterfeit values for new classes (drawn at random
        so that a class's values do not tell which are real); ``None`` draws fresh
        entropy. A fixed seed makes releases reproducible, which is for tests: a published
        seed lets anyone repeat the draw.
    progress
        Told each step as it starts (dividing the records, forming the classes,
        releasing them): ``stage(name)`` of a :class:`~anonkit.progress.StagedProgress`.

    Raises
    ------
    PrivacyUnattainableError
        Under m-invariance, when a published record's sensitive value left its signature
        (use ``model="tau_safety"``).
    DataError
        When one value is written two ways in a text column, the history or ``domain=``
        (``1`` and ``1.0``): a counterfeit would be told by its spelling, or be a second
        copy of a real value.
    """
    owner = "publish"
    check_name(id_column, "id_column", owner)
    qi = list(check_names(list(quasi_identifiers), "quasi_identifiers", owner))
    if not qi:
        raise ParameterError("quasi_identifiers", owner, "at least one column name", qi)
    check_name(sensitive, "sensitive", owner)
    check_int(m, "m", owner, low=2)
    check_choice(model, "model", owner, MODELS)
    check(seed, SEED, "seed", owner)
    if tau is not None and model != "tau_safety":  # m-invariance keeps no window
        raise ParameterError("tau", owner, "None unless model='tau_safety'", tau)
    window = (
        check_int(2 if tau is None else tau, "tau", owner, low=1) if model == "tau_safety" else 1
    )
    missing = [c for c in [id_column, *qi, sensitive, *numeric] if c not in frame.columns]
    if missing:
        raise UnknownColumnError(missing, frame.columns)
    check_roles(id_column, qi, sensitive, numeric, CLASS_COLUMN)
    # a class's labels are written from its records' values: none may be missing
    for c in [id_column, *qi, sensitive]:
        nulls = frame[c].null_count()
        if nulls:
            raise MissingValuesError(c, nulls)
    frame = _numbers(frame, [c for c in qi if c in numeric])
    spelling = Spelling.of(frame[sensitive])
    given = spelling.domain(domain) if domain is not None else None
    # ids as the other columns' values are read (a float id 10.0 is '10', as written;
    # 'p1 ' is 'p1'), so duplicates are those of the ids the history keeps
    ids = as_text(frame[id_column])
    if ids.n_unique() != frame.height:
        raise PrivacyUnattainableError(
            f"Column {id_column!r} must identify each record once; it holds duplicates (as "
            "read: spaces around a value are not part of it), so signatures cannot be "
            "tracked across releases.",
            requirement=f"{m}-invariance",
        )
    past = history if history is not None else ReleaseHistory(window=window)
    past = past.serving(sensitive, window, owner)
    check_history(past, ids, id_column, m)

    start_stage(progress, "Dividing the records")
    row = "__anonkit_row__"  # a reserved name (core.schema.RESERVED_PREFIX)
    order = frame.select(qi).with_row_index(row).sort(qi, maintain_order=True)[row].to_numpy()
    # one value written one way: the table's, the history's and the domain's (3 and 3.0
    # as 3 in a column of numbers), so a counterfeit reads as a real record would
    values = spelling.values(frame[sensitive])
    windows, window_of = _past_windows(past, ids)
    windows, known = spelling.windows(windows, f"{m}-invariance")
    present = set(values.unique().to_list())
    spelling.check({"the table": present, "the history": known, "domain=": given or ()})
    all_values = sorted(set(given) | present if given is not None else present | known)
    universe = sorted(set(all_values) | known)
    code = {v: i for i, v in enumerate(universe)}
    coded = _Coded(order.astype(np.int64), ids, values, universe, window_of, windows)
    value_of = values.cast(pl.Enum(universe)).to_physical().to_numpy().astype(np.int64)

    # 1. division: published records to the bucket of their signature, new or changed
    # records to the pool (barred from the values of their window), or withheld
    to, barred, buckets, masks = _divide(coded, value_of, code, model, sensitive, m)
    value_at = value_of[coded.order]

    start_stage(progress, "Forming the classes")
    in_pool = np.flatnonzero(to == _POOL)
    pool = Pool(in_pool, value_at[in_pool], barred[in_pool], masks, len(universe))
    out = Classes()
    held = np.flatnonzero(to >= 0)
    # 2. balancing and 4. split of the buckets of known signatures
    balance_and_split(held, to[held], value_at[held], buckets, pool, out)
    # 3. assignment of the pool: classes of m distinct values, most frequent values first
    domain_codes = [code[v] for v in all_values]
    pick = random_pick(np.random.default_rng(seed))
    assign(pool, domain_codes, m, out, lambda: _too_few_values(sensitive, m), pick=pick)

    start_stage(progress, "Releasing the classes")
    result = _release(frame, qi, sensitive, numeric, out, coded, past, model, m, window)
    return dataclasses.replace(result, withheld=int(np.count_nonzero(to == _WITHHELD)))


def _numbers(frame: pl.DataFrame, columns: Sequence[str]) -> pl.DataFrame:
    """``frame`` with the numeric quasi-identifiers ``columns`` read as numbers (a file's
    text): ranges are written from their order, which text would give as ``[100-7]``.

    Raises
    ------
    DataError
        Naming the column and how many values are not numbers.
    """
    parsed = []
    for c in columns:
        if frame[c].dtype.is_numeric():
            number = frame[c].cast(pl.Float64)
        else:
            number = frame[c].cast(pl.String).str.strip_chars().cast(pl.Float64, strict=False)
        # NaN, inf and 1e400 parse as floats but are no numbers a range can hold
        bad = int((number.is_null() | ~number.is_finite()).sum()) - frame[c].null_count()
        if bad:
            raise DataError(
                f"Column {c!r} is declared numeric but {bad} of its values are not finite "
                "numbers; fix them, or leave the column out of numeric (released as sets "
                "of values)."
            )
        if frame[c].dtype.is_numeric():
            continue
        whole = number.cast(pl.Int64, strict=False)
        same = whole.null_count() == number.null_count() and (whole == number).all()
        parsed.append((whole if same else number).alias(c))
    return frame.with_columns(parsed) if parsed else frame


def _divide(
    coded: _Coded, value_of: Ints, code: dict[str, int], model: str, sensitive: str, m: int
) -> tuple[Ints, Ints, list[tuple[int, ...]], list[int]]:
    """Step 1, decided once per distinct (window of signatures, value) and spread to the
    records (by position): each record's bucket (a number), :data:`_POOL` or
    :data:`_WITHHELD`, and its forbidden set (a number); the buckets' signatures and the
    forbidden sets' masks (0: none)."""
    n_codes = len(coded.universe)
    pairs, inverse = np.unique((coded.window_of + 1) * n_codes + value_of, return_inverse=True)
    buckets: dict[tuple[int, ...], int] = {}
    masks: dict[int, int] = {0: 0}
    outcome, barred = [], []
    for key in pairs.tolist():
        w, v = divmod(key, n_codes)
        sigs = [tuple(code[x] for x in sig) for sig in coded.windows[w - 1]] if w else []
        dest, bar = _POOL, 0
        if sigs and v in sigs[-1]:
            dest = buckets.setdefault(sigs[-1], len(buckets))
        elif sigs and model == "m_invariance":
            raise PrivacyUnattainableError(
                f"A record's sensitive value in column {sensitive!r} left the signature an "
                "earlier release gave it, which m-invariance cannot publish; use model "
                "tau_safety (--model tau_safety; model='tau_safety' in Python) for releases "
                "with updated values.",
                requirement=f"{m}-invariance",
            )
        elif sigs:
            # the value returned to an earlier signature that is disjoint from the others
            back = [s for s in sigs if v in s and all(t == s or not set(t) & set(s) for t in sigs)]
            if back:
                dest = buckets.setdefault(back[-1], len(buckets))
            elif any(v in s for s in sigs):  # no signature can be equal or disjoint
                dest = _WITHHELD
            else:
                mask = sum(1 << x for x in {x for s in sigs for x in s})
                bar = masks.setdefault(mask, len(masks))
        outcome.append(dest)
        barred.append(bar)
    at = inverse[coded.order]
    to = np.asarray(outcome, dtype=np.int64)[at]
    forbidden = np.asarray(barred, dtype=np.int64)[at]
    return to, forbidden, list(buckets), list(masks)


def _past_windows(past: ReleaseHistory, ids: pl.Series) -> tuple[list[tuple[Signature, ...]], Ints]:
    """The distinct windows of signatures the history holds (oldest first, as
    :meth:`ReleaseHistory.signatures` gives them), and the index of each row's (-1 for a
    record no earlier release published)."""
    found: dict[tuple[tuple[int, Signature], ...], int] = {}  # entries, release numbers too
    index = [found.setdefault(tuple(e), len(found)) for e in past.records.values()]
    table = pl.DataFrame(
        {"_id": list(past.records), "_w": index}, schema={"_id": pl.String, "_w": pl.Int64}
    )
    w = (
        ids.alias("_id")
        .to_frame()
        .join(table, on="_id", how="left", maintain_order="left")["_w"]
        .fill_null(-1)
        .to_numpy()
        .astype(np.int64)
    )
    if () in found:  # a record with no entry left counts as never published
        w[w == found[()]] = -1
    return [tuple(sig for _, sig in entries) for entries in found], w


def _too_few_values(sensitive: str, m: int) -> PrivacyUnattainableError:
    """The error of a class that cannot be completed to ``m`` distinct values."""
    return PrivacyUnattainableError(
        f"Column {sensitive!r} has too few distinct values (outside the records' earlier "
        f"signatures) to form classes of {m}; give the full sensitive domain for "
        "counterfeits (domain= in Python), lower m or publish fewer changed records.",
        requirement=f"{m}-invariance",
    )


def _release(
    frame: pl.DataFrame,
    qi: list[str],
    sensitive: str,
    numeric: Sequence[str],
    out: Classes,
    coded: _Coded,
    past: ReleaseHistory,
    model: str,
    m: int,
    window: int,
) -> SequentialRelease:
    """The release table, the counterfeit table and the updated history."""
    pos, cls, rank = (Classes.joined(a) for a in (out.pos, out.cls, out.rank))
    first = np.lexsort((rank, cls))
    rows, real_class = coded.order[pos[first]], cls[first] + 1
    fake_cls, fake_value, fake_rank = (
        Classes.joined(a) for a in (out.fake_cls, out.fake_value, out.fake_rank)
    )
    first = np.lexsort((fake_rank, fake_cls))
    fake_class, fake_value = fake_cls[first] + 1, fake_value[first]
    real = (
        frame[rows]
        .select(qi)
        .with_columns(
            pl.Series(CLASS_COLUMN, real_class, dtype=pl.Int64),
            coded.values.gather(rows).alias(sensitive),
        )
    )
    labels = class_labels(real, qi, numeric, CLASS_COLUMN)
    fakes = pl.DataFrame(
        {
            CLASS_COLUMN: pl.Series(fake_class, dtype=pl.Int64),
            sensitive: pl.Series(coded.universe, dtype=pl.String).gather(fake_value),
        }
    )
    columns = [CLASS_COLUMN, *qi, sensitive]
    table = (
        pl.concat(
            [
                real.select(CLASS_COLUMN, sensitive).join(
                    labels, on=CLASS_COLUMN, how="left", maintain_order="left"
                ),
                fakes.join(labels, on=CLASS_COLUMN, how="left", maintain_order="left"),
            ],
            how="diagonal",
        )
        .select(columns)
        .sort(CLASS_COLUMN, maintain_order=True)
    )
    counterfeits = pl.DataFrame(
        {
            CLASS_COLUMN: np.arange(1, out.n_classes + 1),
            "counterfeits": np.bincount(fake_class - 1, minlength=out.n_classes),
        },
        schema={CLASS_COLUMN: pl.Int64, "counterfeits": pl.Int64},
    )
    history = past.serving(sensitive, past.window)
    window_of = coded.window_of[rows]
    _verify(table, qi, sensitive, m, real_class, window_of, coded.windows, model)
    history.record_many(
        coded.ids.gather(rows).to_list(),
        Classes.joined(out.sig_of_class)[real_class - 1].tolist(),
        [tuple(coded.universe[c] for c in sig) for sig in out.signatures],
    )
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
    # within a class, rows by sensitive value: written real rows first, the counterfeits
    # (whose count per class is published) were the last rows, and gave the real values away
    table = table.sort([CLASS_COLUMN, sensitive], maintain_order=True)
    return SequentialRelease(table, counterfeits, history, model, guarantee, verified=True)


def _verify(
    table: pl.DataFrame,
    qi: list[str],
    sensitive: str,
    m: int,
    record_class: Ints,
    record_window: Ints,
    windows: list[tuple[Signature, ...]],
    model: str,
) -> None:
    """Re-check the release from the published table: m-uniqueness of every class
    (:func:`anonkit.verify.verify_release`, classes read from the labels and the class
    number), and each record's signature, recounted from its class's published values,
    against what earlier releases gave it (once per distinct pair of the two). Values are
    compared as the values they denote (:func:`~anonkit.releases._values.value_key`): a
    class holding ``1`` and ``1.0`` holds one value."""
    table = table.with_columns(value_keys(table[sensitive]).alias(sensitive))
    verify_release(
        table,
        quasi_identifiers=[CLASS_COLUMN, *qi],
        models=[MUniqueness(sensitive, m)],
        n_records=table.height,
        suppression_limit=0.0,
    )
    published = table.group_by(CLASS_COLUMN).agg(pl.col(sensitive).unique().sort().alias("_s"))
    distinct = published.select("_s").unique(maintain_order=True).with_row_index("_k")
    pairs = (
        pl.DataFrame(
            {CLASS_COLUMN: record_class, "_w": record_window},
            schema={CLASS_COLUMN: pl.Int64, "_w": pl.Int64},
        )
        .join(published.join(distinct, on="_s").select(CLASS_COLUMN, "_k"), on=CLASS_COLUMN)
        .select("_w", "_k")
        .unique()
    )
    sig_of = [tuple(str(v) for v in s) for s in distinct["_s"].to_list()]
    keyed = [[tuple(sorted({value_key(v) for v in s})) for s in w] for w in windows]
    failures = []
    for w, k in pairs.iter_rows():
        now, before = sig_of[k], keyed[w] if w >= 0 else []
        if model == "m_invariance" and before and before[-1] != now:
            failures.append("a record's signature changed between releases")
        if model == "tau_safety" and any(s != now and set(s) & set(now) for s in before):
            failures.append("a record's signature overlaps an earlier one of the window")
    if failures:
        raise ReleaseVerificationError(sorted(set(failures)))
