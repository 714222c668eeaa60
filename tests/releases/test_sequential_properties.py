"""Random sequences of insertions, deletions and value updates: every release is m-unique,
signatures stay invariant (m-invariance) or equal-or-disjoint within τ (τ-safety), and the
intersection attack never narrows a record below its signature."""

from __future__ import annotations

import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from anonkit.exceptions import PrivacyUnattainableError
from anonkit.releases import linkage_attack, publish

VALUES = ["v0", "v1", "v2", "v3", "v4", "v5"]
QI = ["age", "zip"]
KW = {
    "id_column": "pid",
    "quasi_identifiers": QI,
    "sensitive": "s",
    "numeric": ["age"],
    "domain": VALUES,
}


def table_of(rows: dict[str, tuple[int, str, str]]) -> pl.DataFrame:
    """The table of ``rows``: per record id, its age, zip and sensitive value."""
    return pl.DataFrame(
        {
            "pid": list(rows),
            "age": [r[0] for r in rows.values()],
            "zip": [r[1] for r in rows.values()],
            "s": [r[2] for r in rows.values()],
        },
        schema={"pid": pl.String, "age": pl.Int64, "zip": pl.String, "s": pl.String},
    )


@st.composite
def sequences(draw: st.DrawFn) -> tuple[list[pl.DataFrame], int, bool]:
    m = draw(st.integers(2, 3))
    updates = draw(st.booleans())
    n = draw(st.integers(m, 20))
    next_id = 0
    rows: dict[str, tuple[int, str, str]] = {}
    for _ in range(n):
        rows[f"r{next_id}"] = (
            draw(st.integers(18, 60)),
            draw(st.sampled_from("abc")),
            draw(st.sampled_from(VALUES)),
        )
        next_id += 1
    tables = []
    for _ in range(draw(st.integers(2, 4))):
        tables.append(table_of(rows))
        for rid in draw(st.lists(st.sampled_from(sorted(rows)), max_size=3, unique=True)):
            if len(rows) > m:
                del rows[rid]
        for _ in range(draw(st.integers(0, 3))):
            rows[f"r{next_id}"] = (
                draw(st.integers(18, 60)),
                draw(st.sampled_from("abc")),
                draw(st.sampled_from(VALUES)),
            )
            next_id += 1
        if updates and rows:
            rid = draw(st.sampled_from(sorted(rows)))
            age, zip_, _ = rows[rid]
            rows[rid] = (age, zip_, draw(st.sampled_from(VALUES)))
    return tables, m, updates


def _m_unique(table: pl.DataFrame, m: int) -> bool:
    per = table.group_by("class").agg(pl.len().alias("n"), pl.col("s").n_unique().alias("d"))
    return bool(((per["n"] >= m) & (per["n"] == per["d"])).all())


@given(case=sequences())
def test_random_update_sequences(case) -> None:
    tables, m, updates = case
    model = "tau_safety" if updates else "m_invariance"
    history = None
    releases = []
    for t in tables:
        try:
            rel = publish(
                t,
                m=m,
                history=history,
                model=model,
                tau=len(tables) if model == "tau_safety" else None,
                **KW,
            )
        except PrivacyUnattainableError:
            assert updates  # only changed values can make a release impossible
            return
        assert _m_unique(rel.table, m)
        n_fake = int(rel.counterfeits["counterfeits"].sum())
        assert rel.table.height == t.height - rel.withheld + n_fake
        assert updates or rel.withheld == 0
        history = rel.history
        releases.append(rel)
    assert history is not None
    for pid, entries in history.records.items():
        sigs = [s for _, s in entries]
        for i, a in enumerate(sigs):
            for b in sigs[i + 1 :]:
                assert a == b or not set(a) & set(b), pid
            if not updates:
                assert a == sigs[0], pid
    if (
        not updates
    ):  # values never change: the attack leaves at least m values, the true one among them
        targets = tables[-1]
        for t in tables[:-1]:
            targets = targets.join(t.select("pid"), on="pid", how="semi")
        left = linkage_attack(
            [r.table for r in releases], targets, quasi_identifiers=QI, sensitive="s"
        )
        for s, v in zip(left, targets["s"].to_list(), strict=True):
            assert len(s) >= m and v in s
