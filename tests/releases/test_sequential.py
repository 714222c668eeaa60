"""Successive releases: the linkage attack of seed 001 succeeds on two naive k-anonymous
releases and fails on m-invariant and τ-safe ones; the history round-trips a file."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from anonkit import anonymize
from anonkit.exceptions import InputFormatError, ParameterError, PrivacyUnattainableError
from anonkit.models import KAnonymity
from anonkit.releases import ReleaseHistory, covers, linkage_attack, publish
from anonkit.releases._buckets import Classes, Pool, assign
from anonkit.verify import verify_release

QI = ["age", "zip"]
DISEASES = ["flu", "hiv", "cancer", "gastritis", "asthma", "diabetes"]
T1 = pl.DataFrame(
    {
        "pid": [f"p{i}" for i in range(1, 13)],
        "age": list(range(21, 33)),
        "zip": [10 + i % 3 for i in range(12)],
        "disease": [DISEASES[i % 6] for i in range(12)],
    }
)
# one record leaves, one arrives
T2 = pl.concat(
    [T1.slice(1), pl.DataFrame({"pid": ["p13"], "age": [33], "zip": [11], "disease": ["flu"]})]
)
# p5's value changes to one outside the signature it was published with
T3 = T2.with_columns(
    pl.when(pl.col("pid") == "p5").then(pl.lit("flu")).otherwise(pl.col("disease")).alias("disease")
)
KW = {"id_column": "pid", "quasi_identifiers": QI, "sensitive": "disease", "numeric": QI}


def _first(allowed: list[int], need: int) -> list[int]:
    """Counterfeits as the paper's statement reads step 3: the first values allowed
    (:func:`publish` draws them at random)."""
    return allowed[:need]


def _present(*tables: pl.DataFrame) -> pl.DataFrame:
    """The records of the last table present in every table (the adversary's targets)."""
    out = tables[-1]
    for t in tables[:-1]:
        out = out.join(t.select("pid"), on="pid", how="semi")
    return out


def _m_unique(release: pl.DataFrame, m: int) -> bool:
    """Every class holds at least m rows, all with different sensitive values."""
    per = release.group_by("class").agg(
        pl.len().alias("n"), pl.col("disease").n_unique().alias("d")
    )
    return bool(((per["n"] >= m) & (per["n"] == per["d"])).all())


def test_linkage_attack_discloses_values_across_naive_k_anonymous_releases() -> None:
    kw = {
        "quasi_identifiers": QI,
        "k": 2,
        "algorithm": "mondrian",
        "numeric": QI,
        "sensitive": ["disease"],
        "identifying": ["pid"],
    }
    releases = [anonymize(t, **kw).release for t in (T1, T2)]
    for t, rel in zip((T1, T2), releases, strict=True):  # each release alone is 2-anonymous
        verify_release(
            rel,
            quasi_identifiers=QI,
            models=[KAnonymity(2)],
            n_records=t.height,
            suppression_limit=0.0,
            numeric=QI,
        )
    targets = _present(T1, T2)
    left = linkage_attack(releases, targets, quasi_identifiers=QI, sensitive="disease")
    disclosed = [s for s in left if len(s) == 1]
    assert disclosed, "the attack of the slides must succeed on naive releases"
    truth = targets["disease"].to_list()
    assert all(next(iter(s)) == v for s, v in zip(left, truth, strict=True) if len(s) == 1)


@pytest.mark.parametrize("m", [2, 3])
def test_m_invariant_releases_defeat_the_attack(m: int) -> None:
    first = publish(T1, m=m, **KW)
    second = publish(T2, m=m, history=first.history, **KW)
    for rel in (first, second):
        assert _m_unique(rel.table, m)
        assert "pid" not in rel.table.columns
        n_fake = int(rel.counterfeits["counterfeits"].sum())
        assert rel.table.height == n_fake + (T1.height if rel is first else T2.height)
        assert f"{m}-invariant" in rel.guarantee
    targets = _present(T1, T2)
    left = linkage_attack(
        [first.table, second.table], targets, quasi_identifiers=QI, sensitive="disease"
    )
    for s, v in zip(left, targets["disease"].to_list(), strict=True):
        assert len(s) >= m and v in s
    # invariance: every record present in both kept its signature
    for pid in targets["pid"].to_list():
        assert first.history.latest(pid) == second.history.latest(pid)


def test_m_invariance_refuses_a_value_that_left_its_signature() -> None:
    first = publish(T1, m=2, **KW)
    second = publish(T2, m=2, history=first.history, **KW)
    if "flu" in (second.history.latest("p5") or ()):
        pytest.skip("the changed value happens to stay within the signature")
    with pytest.raises(PrivacyUnattainableError, match="tau_safety"):
        publish(T3, m=2, history=second.history, **KW)


def test_tau_safe_releases_defeat_the_attack_with_updated_values() -> None:
    a = publish(T1, m=2, model="tau_safety", tau=3, **KW)
    b = publish(T2, m=2, model="tau_safety", tau=3, history=a.history, **KW)
    c = publish(T3, m=2, model="tau_safety", tau=3, history=b.history, **KW)
    for rel in (a, b, c):
        assert _m_unique(rel.table, 2)
    sigs = c.history.signatures("p5")
    assert len(sigs) == 3 and not set(sigs[-1]) & set(sigs[-2])  # disjoint after the update
    for pid, entries in c.history.records.items():  # equal or disjoint within the window
        for i, (_, s) in enumerate(entries):
            for _, t in entries[i + 1 :]:
                assert s == t or not set(s) & set(t), pid
    targets = _present(T1, T2, T3)
    left = linkage_attack(
        [a.table, b.table, c.table], targets, quasi_identifiers=QI, sensitive="disease"
    )
    now = dict(zip(targets["pid"].to_list(), targets["disease"].to_list(), strict=True))
    for pid, s in zip(targets["pid"].to_list(), left, strict=True):
        assert s != frozenset({now[pid]}), pid  # no current value is singled out


def test_history_round_trips_a_file_atomically(tmp_path) -> None:
    rel = publish(T1, m=2, **KW)
    path = tmp_path / "history.json"
    rel.history.save(path)
    again = ReleaseHistory.load(path)
    assert again == rel.history
    assert "age" not in path.read_text()  # only ids and signatures are kept
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    path.write_text("{}")
    with pytest.raises(InputFormatError):
        ReleaseHistory.load(path)


def test_window_keeps_only_the_last_releases() -> None:
    h = ReleaseHistory(window=2)
    for sig in (("a", "b"), ("c", "d"), ("e", "f")):
        h.record({"r": sig})
    assert h.signatures("r") == [("c", "d"), ("e", "f")] and h.releases == 3


def test_covers_reads_labels_like_an_adversary() -> None:
    assert covers("[1-3]", 3) and not covers("[1-3[", 3) and covers("{x,y}", "y")
    assert covers("*", "anything") and covers("abc", "abc") and not covers("[1-3]", "z")


def test_releases_are_verified_independently_and_a_broken_one_is_caught() -> None:
    from anonkit.exceptions import ReleaseVerificationError
    from anonkit.models.m_uniqueness import MUniqueness

    rel = publish(T1, m=3, **KW)
    assert rel.verified
    check = {
        "quasi_identifiers": ["class", *QI],
        "n_records": rel.table.height,
        "suppression_limit": 0.0,
    }
    verify_release(rel.table, models=[MUniqueness("disease", 3)], **check)
    broken = rel.table.with_columns(
        pl.when(pl.int_range(pl.len()) == 0)
        .then(pl.col("disease").shift(-1))
        .otherwise(pl.col("disease"))
        .alias("disease")
    )
    with pytest.raises(ReleaseVerificationError):
        verify_release(broken, models=[MUniqueness("disease", 3)], **check)


@pytest.mark.parametrize("seed", range(20))
def test_free_assignment_forms_the_classes_of_ranking_anew_for_each(seed: int) -> None:
    """The heap gives the classes of the paper's step 3 as first written: rank every value
    by the records it has left (ties by value) for each class, take the first record of
    each of the first m."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 5))
    values = [f"v{i}" for i in range(int(rng.integers(1, 7)))]
    rows_of = {v: [] for v in values}
    for row, v in enumerate(rng.choice(values, int(rng.integers(1, 80)))):
        rows_of[str(v)].append(row)
    all_values = [*values, "spare1", "spare2", "spare3", "spare4"]
    got = _assign_freely(rows_of, all_values, m)

    left = {v: list(r) for v, r in rows_of.items()}
    expected = []
    while any(left.values()):
        ranked = sorted((v for v in left if left[v]), key=lambda v: (-len(left[v]), v))[:m]
        taken = [(left[v].pop(0), v) for v in ranked]
        fake = [v for v in all_values if v not in ranked][: m - len(ranked)]
        expected.append(([r for r, _ in taken], ranked, fake))
    assert got == expected


def _assign_freely(
    rows_of: dict[str, list[int]], all_values: list[str], m: int
) -> list[tuple[list[int], list[str], list[str]]]:
    """Step 3 as :func:`publish` runs it (:func:`anonkit.releases._buckets.assign`) on the
    pool ``rows_of`` (each value's rows, in order): per class its rows, their values and
    its counterfeit values."""
    names = sorted(set(rows_of) | set(all_values))
    code = {v: i for i, v in enumerate(names)}
    value = np.asarray([code[v] for v, rows in rows_of.items() for _ in rows], dtype=np.int64)
    row_at = [row for rows in rows_of.values() for row in rows]
    n = len(value)
    pool = Pool(np.arange(n), value, np.zeros(n, dtype=np.int64), [0], len(code))
    out = Classes()
    assign(
        pool, [code[v] for v in all_values], m, out, lambda: AssertionError("too few"), pick=_first
    )
    groups: list[tuple[list[int], list[str], list[str]]] = [
        ([], [], []) for _ in range(out.n_classes)
    ]
    pos, cls, rank = (Classes.joined(a) for a in (out.pos, out.cls, out.rank))
    for i in np.lexsort((rank, cls)).tolist():
        groups[cls[i]][0].append(row_at[pos[i]])
        groups[cls[i]][1].append(names[value[pos[i]]])
    fake_cls, fake_value, fake_rank = (
        Classes.joined(a) for a in (out.fake_cls, out.fake_value, out.fake_rank)
    )
    for i in np.lexsort((fake_rank, fake_cls)).tolist():
        groups[fake_cls[i]][2].append(names[fake_value[i]])
    return groups


def test_a_history_of_another_sensitive_attribute_is_refused(tmp_path) -> None:
    """A history kept the signatures without saying of which attribute: reused on
    another one, tau-safety published against signatures of other values without a word
    (m-invariance refused it, blaming updated values)."""
    table = T1.with_columns(pl.col("disease").alias("other"))
    first = publish(table, m=2, **KW)
    path = tmp_path / "history.json"
    first.history.save(path)
    again = ReleaseHistory.load(path)
    assert again.sensitive == "disease"
    for model in ("m_invariance", "tau_safety"):
        with pytest.raises(ParameterError, match="'disease'"):
            publish(table, m=2, history=again, model=model, **{**KW, "sensitive": "other"})
    assert publish(table, m=2, history=again, **KW).history.sensitive == "disease"


def test_counterfeit_values_do_not_tell_which_value_is_real() -> None:
    """A new class of one real record is completed with counterfeits drawn at random
    among the values it may take: had they been the domain's first values, a class
    showing {asthma, hiv} would give hiv away as the real one (with asthma real, the
    counterfeit would have been flu)."""
    frame = pl.DataFrame({"pid": ["p1"], "zip": [500], "disease": ["hiv"]})
    kw = {"id_column": "pid", "quasi_identifiers": ["zip"], "sensitive": "disease", "m": 2}
    domain = ["asthma", "flu", "hiv"]
    fakes = [
        publish(frame, domain=domain, seed=seed, **kw)
        .table.filter(pl.col("disease") != "hiv")["disease"]
        .item()
        for seed in range(200)
    ]
    assert 60 < fakes.count("asthma") < 140 and fakes.count("asthma") + fakes.count("flu") == 200


def test_a_seed_makes_the_counterfeits_reproducible() -> None:
    kw = {**KW, "m": 4, "domain": [*DISEASES, "measles", "mumps"]}
    one = publish(T1.head(3), seed=7, **kw)  # type: ignore[arg-type]
    assert one.table.equals(publish(T1.head(3), seed=7, **kw).table)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="seed"):
        publish(T1, seed=-1, **kw)  # type: ignore[arg-type]


def test_tau_defaults_to_two_under_tau_safety_only() -> None:
    """tau=None (the default) is a window of 2 under τ-safety; m-invariance keeps one
    signature per record; a tau given with tau_safety is kept as before."""
    for tau in (None, 2):
        safe = publish(T1, m=2, model="tau_safety", tau=tau, **KW)
        assert safe.history.window == 2 and "τ=2" in safe.guarantee
    assert publish(T1, m=2, model="tau_safety", tau=5, **KW).history.window == 5
    assert publish(T1, m=2, **KW).history.window == 1
    with pytest.raises(ParameterError, match="'tau' parameter of publish"):
        publish(T1, m=2, model="tau_safety", tau=0, **KW)


def test_tau_is_refused_under_m_invariance() -> None:
    """m-invariance keeps no window: tau=7 was accepted and ignored."""
    with pytest.raises(ParameterError, match="'tau'.*tau_safety"):
        publish(T1, m=2, tau=7, **KW)  # type: ignore[arg-type]
