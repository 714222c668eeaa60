"""A release agrees with itself, read by independent paths: the history, the release table
and the counterfeit table describe the same classes; and step 3 forms the classes that a
class-by-class reading of its statement forms, records barred from values included."""

from __future__ import annotations

from collections import Counter

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_sequential_properties import table_of

from anonkit.exceptions import PrivacyUnattainableError
from anonkit.releases import publish
from anonkit.releases._buckets import Classes, Pool, assign

VALUES = [f"v{i}" for i in range(7)]


def _first(allowed: list[int], need: int) -> list[int]:
    """Counterfeits as the paper's statement reads step 3: the first values allowed
    (:func:`publish` draws them at random)."""
    return allowed[:need]


@st.composite
def sequences(draw: st.DrawFn) -> tuple[list[pl.DataFrame], int, str]:
    """2 to 4 states of a table: deletions, insertions and (τ-safety) updated values,
    drawn from a few values so that some dominate."""
    m = draw(st.integers(2, 4))
    model = draw(st.sampled_from(["m_invariance", "tau_safety"]))
    values = draw(st.lists(st.sampled_from(VALUES), min_size=1, max_size=12))
    rows: dict[str, tuple[int, str, str]] = {}
    for i in range(draw(st.integers(0, 40))):
        rows[f"r{i}"] = (
            draw(st.integers(18, 30)),
            draw(st.sampled_from("ab")),
            values[i % len(values)],
        )
    tables = []
    for step in range(draw(st.integers(2, 4))):
        tables.append(table_of(rows))
        for rid in draw(st.lists(st.sampled_from(sorted(rows) or ["-"]), max_size=6, unique=True)):
            rows.pop(rid, None)
        for i in range(draw(st.integers(0, 8))):
            rows[f"n{step}_{i}"] = (draw(st.integers(18, 30)), "a", draw(st.sampled_from(values)))
        if model == "tau_safety" and rows:
            for rid in draw(st.lists(st.sampled_from(sorted(rows)), max_size=4, unique=True)):
                rows[rid] = (*rows[rid][:2], draw(st.sampled_from(VALUES)))
    return tables, m, model


@given(case=sequences())
def test_history_release_and_counterfeits_describe_the_same_classes(case) -> None:
    tables, m, model = case
    history = None
    for t in tables:
        if t.height == 0:
            return
        try:
            rel = publish(
                t,
                id_column="pid",
                quasi_identifiers=["age", "zip"],
                sensitive="s",
                m=m,
                history=history,
                model=model,
                tau=3 if model == "tau_safety" else None,
                numeric=["age"],
                domain=VALUES,
            )
        except PrivacyUnattainableError:
            return
        history = rel.history
        classes = rel.table.group_by("class").agg(
            pl.len().alias("rows"), pl.col("s").unique().sort().alias("sig")
        )
        classes = classes.join(rel.counterfeits, on="class", how="full", coalesce=True)
        n = rel.counterfeits.height
        assert sorted(classes["class"].to_list()) == list(range(1, n + 1))
        classes = classes.with_columns(real=pl.col("rows") - pl.col("counterfeits"))
        assert (classes["real"] >= 1).all()  # every class publishes a record
        # the records this release published, by the history: each with the signature of
        # a class holding its current value, as many per signature as those classes hold
        now = {
            rid: entries[-1][1]
            for rid, entries in history.records.items()
            if entries and entries[-1][0] == history.releases
        }
        assert len(now) == t.height - rel.withheld
        value = dict(zip(t["pid"].to_list(), t["s"].to_list(), strict=True))
        assert all(value[rid] in sig for rid, sig in now.items())
        by_class: Counter[tuple[str, ...]] = Counter()
        for sig, real in classes.select("sig", "real").iter_rows():
            by_class[tuple(sig)] += real
        assert Counter(now.values()) == by_class
        assert model == "tau_safety" or rel.withheld == 0


def _classes_as_stated(
    value: list[int], barred: list[frozenset[int]], domain: list[int], m: int
) -> list[tuple[list[int], list[int], list[int]]] | None:
    """Step 3 class by class, as the module docstring states it: rank the values by the
    records they have left (ties by value), take from each in turn its first record
    allowed with the class's values, skip values barred by the records taken; complete
    with the first domain values neither taken nor barred. None when one cannot be."""
    left = {v: [r for r, x in enumerate(value) if x == v] for v in sorted(set(value))}
    out = []
    while any(left.values()):
        ranked = sorted((v for v in left if left[v]), key=lambda v: (-len(left[v]), v))
        rows: list[int] = []
        vals: list[int] = []
        banned: set[int] = set()
        for v in ranked:
            if len(vals) == m:
                break
            if v in banned:
                continue
            pick = next((r for r in left[v] if not barred[r] & {*vals, v}), None)
            if pick is None:
                continue
            left[v].remove(pick)
            rows.append(pick)
            vals.append(v)
            banned |= barred[pick]
        if not rows:
            pick = left[ranked[0]].pop(0)
            rows, vals, banned = [pick], [ranked[0]], set(barred[pick])
        spare = [d for d in domain if d not in vals and d not in banned]
        if m - len(vals) > len(spare):
            return None
        out.append((rows, vals, spare[: m - len(vals)]))
    return out


@pytest.mark.parametrize("barred_share", [0.0, 0.05, 0.3])
@given(
    counts=st.lists(st.integers(0, 40), min_size=1, max_size=7),
    m=st.integers(2, 4),
    spares=st.integers(0, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_step_3_forms_the_classes_of_its_statement(
    barred_share: float, counts: list[int], m: int, spares: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    value = rng.permutation(np.repeat(np.arange(len(counts)), counts)).tolist()
    n_values = len(counts) + spares
    barred = [
        frozenset(int(x) for x in rng.choice(n_values, min(2, n_values), replace=False) if x != v)
        if rng.random() < barred_share
        else frozenset()
        for v in value
    ]
    masks = sorted({0} | {sum(1 << x for x in b) for b in barred})  # code 0: none barred
    code = {mask: i for i, mask in enumerate(masks)}
    forbidden = [code[sum(1 << x for x in b)] for b in barred]
    domain = list(range(n_values))
    expected = _classes_as_stated(value, barred, domain, m)
    pool = Pool(
        np.arange(len(value)),
        np.asarray(value, dtype=np.int64),
        np.asarray(forbidden, dtype=np.int64),
        masks,
        n_values,
    )
    out = Classes()
    if expected is None:
        with pytest.raises(ValueError):
            assign(pool, domain, m, out, lambda: ValueError("too few values"), pick=_first)
        return
    assign(pool, domain, m, out, lambda: ValueError("too few values"), pick=_first)
    got: list[tuple[list[int], list[int], list[int]]] = [([], [], []) for _ in range(out.n_classes)]
    pos, cls, rank = (Classes.joined(a) for a in (out.pos, out.cls, out.rank))
    for i in np.lexsort((rank, cls)).tolist():
        got[cls[i]][0].append(int(pos[i]))
        got[cls[i]][1].append(value[pos[i]])
    fake_cls, fake_value, fake_rank = (
        Classes.joined(a) for a in (out.fake_cls, out.fake_value, out.fake_rank)
    )
    for i in np.lexsort((fake_rank, fake_cls)).tolist():
        got[fake_cls[i]][2].append(int(fake_value[i]))
    assert got == expected
    sigs = list(out.signatures)
    assert [sigs[s] for s in Classes.joined(out.sig_of_class).tolist()] == [
        tuple(sorted([*vals, *fakes])) for _, vals, fakes in expected
    ]
