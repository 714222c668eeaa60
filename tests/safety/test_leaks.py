"""The leak check: dependencies on quasi-identifiers, near-unique and identifier columns."""

from __future__ import annotations

import json
import time

import numpy as np
import polars as pl
import pytest

from anonkit.exceptions import DataError, LeakError, ParameterError, UnknownColumnError
from anonkit.safety.codes import _hash_ranks as hash_ranks
from anonkit.safety.leaks import (
    ColumnCodes,
    Leak,
    TallyCodes,
    check_leaks,
    dependency_strength,
    find_dependencies,
    find_leaks,
    identifier_kind,
    in_order,
    value_leaks,
)

ADULT9_QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]


def kinds(leaks: list[Leak]) -> list[tuple[str, str, str | None]]:
    return [(leak.column, leak.kind, leak.related) for leak in leaks]


# ------------------------------------------------------------------- real data
def test_education_num_gives_education_back(adult_full: pl.DataFrame) -> None:
    leaks = find_leaks(
        adult_full, quasi_identifiers=["age", "sex", "education"], released=["education-num"]
    )
    assert kinds(leaks) == [("education-num", "dependency", "education")]
    leak = leaks[0]
    assert leak.severity == "error" and leak.share == 1.0
    assert leak.reason == (
        "Column 'education-num' determines the quasi-identifier 'education' (one value each), "
        "so releasing it undoes the generalization of 'education'; declare it a "
        "quasi-identifier, mark it identifying (removed), or drop it."
    )
    with pytest.raises(LeakError) as err:
        check_leaks(adult_full, quasi_identifiers=["education"], released=["education-num"])
    assert isinstance(err.value, DataError) and err.value.exit_code == 1
    assert err.value.leaks == leaks
    assert str(err.value) == leak.reason


def test_adult9_sensitive_columns_do_not_leak(adult9: pl.DataFrame) -> None:
    released = ["occupation", "salary-class"]
    assert find_leaks(adult9, quasi_identifiers=ADULT9_QI, released=released) == []
    assert check_leaks(adult9, quasi_identifiers=ADULT9_QI, released=released) == []


def test_relationship_is_no_exact_dependency(adult_full: pl.DataFrame) -> None:
    leaks = find_leaks(
        adult_full, quasi_identifiers=["sex", "marital-status"], released=["relationship"]
    )
    assert leaks == []


def test_only_education_pair_depends_on_adult_full(adult_full: pl.DataFrame) -> None:
    pairs = {(d.determinant, d.dependent) for d in find_dependencies(adult_full)}
    assert pairs == {("education", "education-num"), ("education-num", "education")}


def test_fnlwgt_is_a_unique_warning(adult_full: pl.DataFrame) -> None:
    leaks = check_leaks(
        adult_full, quasi_identifiers=["age", "sex", "race"], released=["fnlwgt", "salary-class"]
    )
    assert kinds(leaks) == [("fnlwgt", "unique", None)]
    assert leaks[0].severity == "warning"
    assert leaks[0].share == pytest.approx(21648 / 32561)
    assert "distinct values for 66% of the records, a value of its own for 47%" in leaks[0].reason


def test_adult_check_is_fast(adult_full: pl.DataFrame) -> None:
    qi = ["age", "sex", "race", "marital-status", "education"]
    released = [c for c in adult_full.columns if c not in qi][:5]
    find_leaks(adult_full, quasi_identifiers=qi, released=released)  # warm up polars
    start = time.perf_counter()
    find_leaks(adult_full, quasi_identifiers=qi, released=released)
    assert time.perf_counter() - start < 0.5


# ------------------------------------------------------------------- dependencies
def _zip_state(n: int = 400, noise: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(0)
    zips = rng.integers(0, 40, n)
    states = zips // 10
    flip = rng.choice(n, size=noise, replace=False)
    states[flip] = (states[flip] + 1) % 4
    return pl.DataFrame({"zip": [f"{1000 + z}" for z in zips], "state": [f"S{s}" for s in states]})


def test_zip_determines_state_but_not_back() -> None:
    frame = _zip_state()
    assert kinds(find_leaks(frame, quasi_identifiers=["state"], released=["zip"])) == [
        ("zip", "dependency", "state")
    ]
    assert find_leaks(frame, quasi_identifiers=["zip"], released=["state"]) == []


def test_dependency_tolerates_a_few_dirty_records() -> None:
    leaks = find_leaks(_zip_state(noise=2), quasi_identifiers=["state"], released=["zip"])
    assert kinds(leaks) == [("zip", "dependency", "state")]
    assert leaks[0].share is not None and 0.99 <= leaks[0].share < 1
    assert "one value each for 99.5%" in leaks[0].reason


def test_dependency_breaks_with_many_dirty_records() -> None:
    frame = _zip_state(noise=40)
    assert find_leaks(frame, quasi_identifiers=["state"], released=["zip"]) == []


def test_near_unique_and_constant_columns_are_no_dependency() -> None:
    n = 200
    frame = pl.DataFrame(
        {
            "serial": [str(i) for i in range(n)],
            "sex": ["F", "M"] * (n // 2),
            "country": ["US"] * n,
            "group": [str((i // 2) % 20) for i in range(n)],
        }
    )
    leaks = find_leaks(frame, quasi_identifiers=["sex", "country"], released=["serial", "group"])
    assert kinds(leaks) == [("serial", "unique", None)]


def test_a_skewed_qi_is_not_determined_by_chance() -> None:
    rng = np.random.default_rng(1)
    n = 2000
    rare = np.zeros(n, dtype=np.int64)
    rare[rng.choice(n, 6, replace=False)] = 1  # 99.7 % one value
    frame = pl.DataFrame(
        {"qi": [f"v{v}" for v in rare], "x": [str(v) for v in rng.integers(0, 300, n)]}
    )
    assert find_leaks(frame, quasi_identifiers=["qi"], released=["x"]) == []


def test_nulls_are_a_value_of_their_own() -> None:
    frame = pl.DataFrame(
        {
            "x": ["a", "a", None, None, "b", "b", "a", None],
            "q": ["1", "1", "2", "2", "3", "3", "1", "2"],
        }
    )
    assert kinds(find_leaks(frame, quasi_identifiers=["q"], released=["x"])) == [
        ("x", "dependency", "q")
    ]


def test_sparse_and_dense_counting_agree() -> None:
    rng = np.random.default_rng(2)
    x = rng.integers(0, 3000, 20000)
    y = x // 3 + (rng.random(20000) < 0.003)
    dense = dependency_strength(x, 3000, y, 1001)
    from anonkit.safety import codes as module

    original = module._DENSE_CELLS
    module._DENSE_CELLS = 10
    try:
        sparse = dependency_strength(x, 3000, y, 1001)
    finally:
        module._DENSE_CELLS = original
    assert dense is not None and sparse is not None
    assert dense == pytest.approx(sparse)


def test_codes_are_dense_and_keep_equal_values_equal() -> None:
    frame = pl.DataFrame({"a": ["x", None, "y", "x", None]})
    coded = ColumnCodes(frame)
    codes, distinct = coded.codes("a"), coded.distinct["a"]
    assert distinct == 3 and coded.singles("a") == 1
    assert sorted(set(codes.tolist())) == [0, 1, 2]
    assert codes[0] == codes[3] and codes[1] == codes[4] and codes[0] != codes[2]


@pytest.mark.parametrize("size", [1, 2, 14, 255, 256, 5000])
def test_hash_ranks_equal_binary_search(size: int) -> None:
    rng = np.random.default_rng(size)
    keys = np.unique(rng.integers(0, 2**63, size=size, dtype=np.uint64) * np.uint64(2))
    hashes = keys[rng.integers(0, keys.size, size=3000)]
    assert np.array_equal(hash_ranks(keys, hashes), np.searchsorted(keys, hashes))


def test_hash_ranks_fall_back_when_no_field_tells_keys_apart() -> None:
    # in every 8-bit field two of the three keys agree: 0 and 256 in the lowest, 0 and 1
    # in the next, all three in the others
    keys = np.array([0, 1, 256], dtype=np.uint64)
    hashes = np.array([256, 1, 0, 0], dtype=np.uint64)
    assert hash_ranks(keys, hashes).tolist() == [2, 1, 0, 0]


# ------------------------------------------------------------------- identifiers
@pytest.mark.parametrize(
    ("values", "kind"),
    [
        (["ann@example.org", "b.smith+x@mail.co.uk", "c_d@uni-x.edu"], "e-mail addresses"),
        # accented, international and named addresses went out unseen
        (
            ["jonas.müller22@example.de", "Ann Smith <ann@example.org>", "zoë@bücher.example"],
            "e-mail addresses",
        ),
        (["DE89-3704-0044-0532-0130-00", "GB29-NWBK-6016-1331-9268-19"], "IBANs"),
        (
            ["+1 (555) 123-4567 x560", "555-123-4567 ext. 12", "06 12 34 56 78"],
            "phone or ID numbers",
        ),
        (["123-45-6789", "987-65-4321", "555-12-3456"], "social security numbers"),
        (
            [
                "DE89 3704 0044 0532 0130 00",
                "GB29NWBK60161331926819",
                "FR1420041010050500013M02606",
            ],
            "IBANs",
        ),
        (["4111 1111 1111 1111", "5500-0000-0000-0004", "340000000000009"], "payment card numbers"),
        (
            ["+1 (555) 123-4567", "555-123-4567", "06 12 34 56 78", "+44 20 7946 0958"],
            "phone or ID numbers",
        ),
        (["12.345.678-9", "98.765.432-1", "11.222.333-4"], "phone or ID numbers"),
        # dotted: read as an amount whose decimal point was its thousands separator
        (["555.123.4567", "555.987.6543", "1.555.123.4567"], "phone or ID numbers"),
    ],
)
def test_identifier_patterns(values: list[str], kind: str) -> None:
    found = identifier_kind(pl.Series(values))
    assert found is not None and found[0] == kind


@pytest.mark.parametrize(
    "values",
    [
        ["1", "2", "3", "12", "7"],  # small integers
        ["17", "39", "50", "90"],  # ages
        ["77516", "83311", "215646", "1484705"],  # fnlwgt-like weights
        ["2024-03-05", "1999-12-31", "05/03/2024", "05.03.2024"],  # dates
        ["13053", "02134", "90210"],  # zip codes
        ["[20-25[", "]20-40]", "1305*", "<=50K", "*"],  # hierarchy labels
        ["1,234,567.89", "12 345 678", "1234567.89", "-1234567890.5"],  # amounts
        ["1.234.567,89", "12.345.678", "1'234'567.50", "123.456.789"],  # European amounts
        ["Bachelors", "HS-grad", "Some-college"],  # categories
        ["10000-20000", "20000-30000"],  # ranges
        # refused as card numbers (13 to 19 digits, no checksum) or phone numbers
        ["4006381333931", "9780306406157", "5901234123457", "4012345678901"],  # EAN-13
        ["1700000000000", "1704067200000", "1735689600000"],  # epoch milliseconds
        ["2023-01-01 - 2023-12-31", "2024-01-01 - 2024-12-31"],  # date ranges
        ["2023-01 - 2023-12", "2024-01 - 2024-06"],  # month ranges
        ["10.000 - 20.000", "20.000 - 30.000", "10 000 - 20 000"],  # income brackets
    ],
)
def test_no_identifier_pattern(values: list[str]) -> None:
    assert identifier_kind(pl.Series(values)) is None


def test_identifier_needs_half_the_values() -> None:
    emails = ["a@example.org", "b@example.org", "c@example.org"]
    assert identifier_kind(pl.Series([*emails, "x", "y", "z", None, None])) is not None
    assert identifier_kind(pl.Series([*emails, "w", "x", "y", "z"])) is None


def test_identifier_on_a_large_column_uses_the_screen() -> None:
    n = 10_000
    values = pl.Series([f"user{i}@example.org" for i in range(n)])
    assert identifier_kind(values) == ("e-mail addresses", 1.0)
    assert identifier_kind(pl.Series([str(i) for i in range(n)])) is None


def test_identifier_screen_needs_a_digit_or_an_at() -> None:
    assert identifier_kind(pl.Series(["Sales", "Tech-support", None] * 3000)) is None
    assert identifier_kind(pl.Series([1234567890123, 4111111111111111])) is not None
    arabic = "\u0661\u0662\u0663-\u0664\u0665-\u0666\u0667\u0668\u0669"  # ١٢٣-٤٥-٦٧٨٩
    assert identifier_kind(pl.Series([arabic, arabic])) == ("social security numbers", 1.0)
    assert identifier_kind(pl.Series(["a@b.org"] * 5000 + ["x"] * 100)) is not None


def test_identifier_leak_is_an_error_without_values() -> None:
    frame = pl.DataFrame(
        {
            "mail": ["ann@example.org", "bob@example.org"] * 10,
            "age": ["30", "40"] * 10,
        }
    )
    leaks = find_leaks(frame, quasi_identifiers=["age"], released=["mail"])
    assert [leak.kind for leak in leaks] == ["identifier", "dependency"]
    for leak in leaks:
        assert leak.severity == "error"
        assert "example" not in leak.reason and "30" not in leak.reason
    with pytest.raises(LeakError) as err:
        check_leaks(frame, quasi_identifiers=["age"], released=["mail"])
    assert len(err.value.leaks) == 2


# ------------------------------------------------------------------- API details
def test_leak_to_dict_is_json_ready() -> None:
    leak = Leak("c", "unique", "warning", "Column 'c' ...", share=0.8)
    assert json.loads(json.dumps(leak.to_dict())) == {
        "column": "c",
        "kind": "unique",
        "severity": "warning",
        "reason": "Column 'c' ...",
        "related": None,
        "share": 0.8,
    }


def test_unknown_columns_and_bad_share() -> None:
    frame = pl.DataFrame({"a": ["1", "2"]})
    with pytest.raises(UnknownColumnError):
        find_leaks(frame, quasi_identifiers=["a"], released=["b"])
    with pytest.raises(ParameterError):
        find_leaks(frame, quasi_identifiers=["a"], released=["a"], unique_share=0)


def test_empty_frame_and_nothing_released() -> None:
    frame = pl.DataFrame({"a": pl.Series([], dtype=pl.String)})
    assert find_leaks(frame, quasi_identifiers=["a"], released=["a"]) == []
    assert find_leaks(pl.DataFrame({"a": ["1"]}), quasi_identifiers=["a"], released=[]) == []


@pytest.mark.slow
def test_million_records_take_seconds() -> None:
    rng = np.random.default_rng(0)
    n = 1_000_000
    data = {f"q{i}": rng.integers(0, 10 * (i + 1), n).astype(str) for i in range(5)}
    data |= {f"r{i}": rng.integers(0, 1000, n).astype(str) for i in range(4)}
    data["serial"] = np.arange(n).astype(str)
    frame = pl.DataFrame(data)
    start = time.perf_counter()
    leaks = find_leaks(
        frame,
        quasi_identifiers=[f"q{i}" for i in range(5)],
        released=[*(f"r{i}" for i in range(4)), "serial"],
    )
    elapsed = time.perf_counter() - start
    assert kinds(leaks) == [("serial", "unique", None)]
    assert elapsed < 10


# ------------------------------------------------------------------- from a count
def _tallied(frame: pl.DataFrame, extra_rows: int = 0) -> TallyCodes:
    """A TallyCodes of ``frame``'s grouped count (``extra_rows`` rows of no records
    appended, as a population's combinations are)."""
    counted = frame.group_by(frame.columns).len().sort(frame.columns)  # rows in one order
    codes, cards = {}, {}
    for c in frame.columns:
        values = sorted(set(counted[c].to_list()), key=str)
        index = {v: i for i, v in enumerate(values)}
        col = np.array([index[v] for v in counted[c].to_list()], dtype=np.int64)
        spare = len(values) + 3  # codes no record holds, used only by the empty rows
        codes[c] = np.concatenate([col, np.full(extra_rows, spare, dtype=np.int64)])
        cards[c] = spare + 1
    weights = np.concatenate([counted["len"].to_numpy(), np.zeros(extra_rows, dtype=np.int64)])
    return TallyCodes(codes, cards, weights.astype(np.int64))


@pytest.mark.parametrize("seed", range(12))
def test_a_count_finds_what_the_records_do(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    qi = rng.integers(0, int(rng.integers(2, 30)), n)
    frame = pl.DataFrame(
        {
            "qi": qi.astype(str),
            "other": rng.integers(0, 4, n).astype(str),
            # determines qi, with a few slips on some seeds
            "dep": np.where(rng.random(n) < 0.005 * (seed % 3), "slip", (qi // 1).astype(str)),
            "wide": rng.integers(0, n, n).astype(str),  # near-unique on most seeds
            "loose": rng.integers(0, 3, n).astype(str),
        }
    )
    qis, released = ["qi", "other"], ["dep", "wide", "loose"]
    from_records = value_leaks(ColumnCodes(frame), quasi_identifiers=qis, released=released)
    for extra in (0, 5):
        from_count = value_leaks(_tallied(frame, extra), quasi_identifiers=qis, released=released)
        assert [(x.column, x.kind, x.related, x.share) for x in from_count] == [
            (x.column, x.kind, x.related, x.share) for x in from_records
        ]
        assert [x.reason for x in from_count] == [x.reason for x in from_records]


@pytest.mark.parametrize("seed", range(12))
def test_the_compiled_count_reads_as_numpy_does(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled kernels read a count's columns in their own code ranges, without
    renumbering them; every distinct count and dependency measure is numpy's (issue 19)."""
    from anonkit.safety import codes as module

    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    qi = rng.integers(0, int(rng.integers(2, 30)), n)
    frame = pl.DataFrame(
        {
            "qi": qi.astype(str),
            "dep": np.where(rng.random(n) < 0.01 * (seed % 3), "slip", (qi // 2).astype(str)),
            "loose": rng.integers(0, 3, n).astype(str),
            "one": ["x"] * n,
        }
    )
    measured = []
    for compiled in (False, True):
        monkeypatch.setattr(module, "compiled_ready", lambda on=compiled: on)
        coded = _tallied(frame, extra_rows=seed % 4)
        pairs = [(a, b) for a in frame.columns for b in frame.columns]
        measured.append(
            (dict(coded.distinct), [coded.dependency(a, b) for a, b in pairs], coded.codes("qi"))
        )
    (distinct, deps, codes), (distinct_c, deps_c, codes_c) = measured
    assert distinct == distinct_c and deps == deps_c and np.array_equal(codes, codes_c)
    assert any(d is not None for d in deps)


def test_tallied_columns_are_left_to_the_count() -> None:
    frame = pl.DataFrame(
        {
            "mail": [f"p{i}@example.org" for i in range(8)],
            "edu": ["BA", "BA", "MA", "MA", "HS", "HS", "BA", "MA"],
            "years": ["13", "13", "14", "14", "9", "9", "13", "14"],
        }
    )
    # the identifier patterns are matched still; the dependency is not looked for
    leaks = find_leaks(
        frame, quasi_identifiers=["edu"], released=["years", "mail"], tallied=["years"]
    )
    assert kinds(leaks) == [("mail", "identifier", None), ("mail", "unique", None)]
    everything = find_leaks(frame, quasi_identifiers=["edu"], released=["years", "mail"])
    assert kinds(everything) == [("years", "dependency", "edu"), *kinds(leaks)]
    assert kinds(in_order(everything[::-1], ["years", "mail"])) == kinds(everything)


def test_a_copy_of_a_quasi_identifier_with_missing_values_still_determines_it() -> None:
    """2 % of missing values, counted as one more value, pulled the agreement under its
    threshold: the copy went out and gave the exact education back."""
    rng = np.random.default_rng(0)
    edu = rng.choice(["a", "b", "c", "d", "e"], 5000)
    copy = [None if rng.random() < 0.02 else v for v in edu]
    frame = pl.DataFrame({"edu": edu, "prev_edu": copy})
    leaks = find_leaks(frame, quasi_identifiers=["edu"], released=["prev_edu"])
    assert [(x.column, x.kind, x.related) for x in leaks] == [("prev_edu", "dependency", "edu")]
