"""Sensitive values and labels as a reader of the release reads them: one value is one
value however its column or ``domain=`` writes it (1, 1.0 and "1"), so that a counterfeit
is neither told by its spelling nor a second copy of a real value; and a set label is read
back as written, commas in its values included. Found by an independent review."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import polars as pl
import pytest

from anonkit.exceptions import (
    DataError,
    ParameterError,
    PrivacyUnattainableError,
    ReleaseVerificationError,
)
from anonkit.releases import ReleaseHistory, covers, linkage_attack, publish
from anonkit.releases.sequential import _verify

KW = {"id_column": "id", "quasi_identifiers": ["age"], "sensitive": "code", "numeric": ["age"]}
IDS = [f"p{i}" for i in range(8)]
# release 1 reads the codes as integers, release 2 as floats (a new record holds 2.5)
DRIFT1 = pl.DataFrame(
    {"id": IDS, "age": [21, 22, 23, 24, 31, 32, 33, 34], "code": [1, 2, 1, 2, 3, 4, 3, 4]}
)
DRIFT2 = pl.DataFrame(
    {
        "id": [*IDS, "p8"],
        "age": [21, 22, 23, 24, 31, 32, 33, 34, 35],
        "code": [1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0, 2.5],
    }
)


def _number(text: str) -> Decimal:
    return Decimal(text).normalize()


def _classes_hold_distinct_numbers(table: pl.DataFrame, m: int) -> None:
    """Every class holds at least m rows whose codes are different numbers."""
    for _, rows in table.group_by("class"):
        codes = rows["code"].to_list()
        assert len(codes) >= m and len({_number(c) for c in codes}) == len(codes), codes


def _written_alike(table: pl.DataFrame) -> None:
    """Every code is written as the number's shortest form (no 1.0 beside a 1)."""
    for c in table["code"].to_list():
        assert c == str(int(_number(c))) if _number(c) == int(_number(c)) else "." in c, c


def test_a_domain_written_otherwise_is_no_second_value() -> None:
    """Float codes 1.0 beside domain=[1, 2, 3]: classes held a real '1.0' and a
    counterfeit '1', one value twice, yet the release said 2-invariant and verified."""
    t = pl.DataFrame({"id": list("abcd"), "age": [20, 21, 22, 23], "code": [1.0, 1.0, 1.0, 2.0]})
    rel = publish(t, m=2, domain=[1, 2, 3], **KW)  # type: ignore[arg-type]
    _classes_hold_distinct_numbers(rel.table, 2)
    _written_alike(rel.table)
    assert rel.verified


def test_counterfeits_are_written_as_the_real_values() -> None:
    """The counterfeit '1' among real '1.0', '2.0', '3.0' was told by its spelling."""
    t = pl.DataFrame(
        {"id": list("abcde"), "age": [20, 21, 22, 40, 41], "code": [1.0, 1.0, 2.0, 3.0, 3.0]}
    )
    for domain in ([1, 2, 3, 4], [1.0, 2.0, 3.0, 4.0], ["1", "2.0", " 3", "4"]):
        rel = publish(t, m=2, domain=domain, **KW)  # type: ignore[arg-type]
        assert int(rel.counterfeits["counterfeits"].sum()) >= 1
        _written_alike(rel.table)
        _classes_hold_distinct_numbers(rel.table, 2)


def test_a_domain_of_another_kind_than_the_column_is_refused() -> None:
    """A counterfeit 'x' among numbers is told at a glance."""
    t = pl.DataFrame({"id": list("abcd"), "age": [20, 21, 22, 23], "code": [1.0, 1.0, 1.0, 2.0]})
    with pytest.raises(ParameterError, match="'domain' parameter of publish.*'x'"):
        publish(t, m=2, domain=[1, 2, "x"], **KW)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="'domain'"):
        publish(t, m=2, domain=[1, None, 3], **KW)  # type: ignore[arg-type]


def test_one_number_written_two_ways_in_a_text_column_is_refused() -> None:
    """A text column cannot be rewritten: '1.0' beside a domain's '1' is refused, naming
    both spellings and where each comes from."""
    t = pl.DataFrame(
        {"id": list("abcd"), "age": [20, 21, 22, 23], "code": ["1.0", "1.0", "1.0", "2.0"]}
    )
    with pytest.raises(DataError, match=r"'code'.*'1' \(domain=\).*'1\.0' \(the table\)"):
        publish(t, m=2, domain=[1, 2, 3], **KW)  # type: ignore[arg-type]
    # written as the column writes them, the domain is taken
    rel = publish(t, m=2, domain=["1.0", "2.0", "3.0"], **KW)  # type: ignore[arg-type]
    _classes_hold_distinct_numbers(rel.table, 2)


def test_verification_reads_one_number_written_two_ways_as_one_value() -> None:
    """The independent check compared texts, so '1' and '1.0' passed as two values."""
    table = pl.DataFrame(
        {
            "class": [1, 1, 2, 2],
            "age": ["[20-21]"] * 2 + ["[22-23]"] * 2,
            "code": ["1", "2", "1", "1.0"],
        }
    )
    record_class = np.asarray([1, 2], dtype=np.int64)
    window = np.asarray([-1, -1], dtype=np.int64)
    _verify(table.head(2), ["age"], "code", 2, record_class[:1], window[:1], [], "m_invariance")
    with pytest.raises(ReleaseVerificationError):
        _verify(table, ["age"], "code", 2, record_class, window, [], "m_invariance")


@pytest.mark.parametrize("model", ["m_invariance", "tau_safety"])
def test_a_column_read_as_floats_after_integers_keeps_its_values(model: str) -> None:
    """Codes read as Int64 then as Float64: m-invariance stopped ('left the signature')
    though no value changed; τ-safety published 3.0 apart from 3, which the intersection
    attack and the counterfeits' integer spelling gave away."""
    first = publish(DRIFT1, m=2, model=model, **KW)  # type: ignore[arg-type]
    second = publish(DRIFT2, m=2, model=model, history=first.history, **KW)  # type: ignore[arg-type]
    assert second.withheld == 0
    for pid in IDS:  # no value changed: every record keeps its signature
        assert second.history.latest(pid) == first.history.latest(pid), pid
    _written_alike(second.table)
    _classes_hold_distinct_numbers(second.table, 2)
    # an adversary who reads numbers as numbers, each release as its file gives it
    releases = [
        first.table.with_columns(pl.col("code").cast(pl.Int64)),
        second.table.with_columns(pl.col("code").cast(pl.Float64)),
    ]
    left = linkage_attack(releases, DRIFT1, quasi_identifiers=["age"], sensitive="code")
    for s, v in zip(left, DRIFT1["code"].to_list(), strict=True):
        assert len(s) >= 2 and str(v) in s, s


def test_the_attack_reads_numbers_as_numbers() -> None:
    """An adversary intersects 3 and 3.0 as one value: the attack read them apart and
    found nothing where a value was disclosed."""
    r1 = pl.DataFrame({"age": ["[1-2]", "[1-2]"], "code": [3, 4]})
    r2 = pl.DataFrame({"age": ["[1-2]", "[1-2]"], "code": [3.0, 5.0]})
    left = linkage_attack([r1, r2], pl.DataFrame({"age": [1]}), quasi_identifiers=["age"],
                          sensitive="code")  # fmt: skip
    assert left == [frozenset({"3"})]


def test_a_history_written_with_float_spellings_is_read_as_numbers() -> None:
    """A history saved while float codes were written '1.0' serves the next release."""
    first = publish(DRIFT2, m=2, **KW)  # type: ignore[arg-type]
    old = ReleaseHistory(
        window=first.history.window,
        releases=1,
        records={
            rid: [(n, tuple(sorted(f"{float(v)}" for v in sig))) for n, sig in entries]
            for rid, entries in first.history.records.items()
        },
        sensitive="code",
    )
    assert old.latest("p0") != first.history.latest("p0")  # '1.0', not '1'
    again = publish(DRIFT2, m=2, history=old, **KW)  # type: ignore[arg-type]
    for rid in first.history.records:
        assert again.history.latest(rid) == first.history.latest(rid), rid


def test_a_history_signature_holding_one_value_twice_is_refused() -> None:
    """A signature ('1', '1.0') is one value: the record it published was disclosed."""
    old = ReleaseHistory(records={"p0": [(1, ("1", "1.0"))]}, releases=1, sensitive="code")
    with pytest.raises(PrivacyUnattainableError, match="'code'.*'1'.*'1.0'"):
        publish(DRIFT2, m=2, history=old, **KW)  # type: ignore[arg-type]


# ------------------------------------------------------------------- set labels
CITIES = pl.DataFrame(
    {
        "id": ["1", "2", "3", "4"],
        "city": ["Paris", "Austin, TX", "Lyon", "Nice"],
        "s": ["flu", "hiv", "flu", "cancer"],
    }
)


def test_a_value_with_a_comma_is_quoted_in_its_set_and_found_by_the_attack() -> None:
    """'{Austin, TX,Paris}' read as three cities: the attack found no class for the
    target from Austin, TX."""
    rel = publish(CITIES, id_column="id", quasi_identifiers=["city"], sensitive="s", m=2)
    labels = set(rel.table["city"].to_list())
    assert '{"Austin, TX",Paris}' in labels and "{Lyon,Nice}" in labels
    left = linkage_attack([rel.table], CITIES, quasi_identifiers=["city"], sensitive="s")
    truth = CITIES["s"].to_list()
    for s, v in zip(left, truth, strict=True):
        assert len(s) >= 2 and v in s, s


@pytest.mark.parametrize(
    "value", ['say "hi"', "{a}", "a}", "{", "x,y,z", "", " lead", "two\nlines", '"']
)
def test_set_labels_read_back_every_value(value: str) -> None:
    frame = pl.DataFrame(
        {
            "id": ["1", "2", "3", "4"],
            "city": [value, "Paris", "Lyon", "Nice"],
            "s": ["flu", "hiv", "flu", "cancer"],
        }
    )
    rel = publish(frame, id_column="id", quasi_identifiers=["city"], sensitive="s", m=2)
    labels = rel.table["city"].unique().to_list()
    for city in (value, "Paris", "Lyon", "Nice"):  # each in the one class that holds it
        assert sum(covers(lab, city) for lab in labels) == 1, (city, labels)


def test_covers_reads_quoted_members() -> None:
    label = '{"Austin, TX",Paris,"say ""hi""",""}'
    assert covers(label, "Austin, TX") and covers(label, "Paris") and covers(label, 'say "hi"')
    assert covers(label, "") and not covers(label, "Austin") and not covers(label, " TX")
    assert not covers("{}", "") and covers("{a,b}", "a") and not covers("{a,b}", "a,b")


def test_value_key_folds_spellings_and_keeps_numbers_apart() -> None:
    """One number however written; two numbers never one, however close."""
    from anonkit.releases._values import value_key

    assert {value_key(t) for t in ["3", "3.0", " 03", "+3", "3e0", "3.000"]} == {"3"}
    assert value_key("-0.0") == value_key("0") and value_key("2.50") == "2.5"
    big = ["12345678901234567890", "12345678901234567891", "0.1", "0.1000000000000000000001"]
    assert len({value_key(t) for t in big}) == 4
    assert value_key("1e400000000") == "1E+400000000" and value_key("1e300") == "1e+300"
    assert value_key("TRUE") == "True" and value_key("flu ") == "flu"
