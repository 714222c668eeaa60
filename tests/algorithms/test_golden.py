"""Golden results on the hand-checkable toy tables of /work/shared/data/toy.

The pinned transformations were derived by hand (the reasoning is in the comments) and
confirmed with the exhaustive search.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import polars as pl
import pytest

from anonkit import anonymize, read_table

TEST_QI = ["age", "gender", "zipcode"]


def _hierarchies(toy: Path, prefix: str, columns: list[str]) -> dict[str, Path]:
    return {c: toy / f"{prefix}_hierarchy_{c}.csv" for c in columns}


def _assert_k(release: pl.DataFrame, qi: list[str], k: int) -> None:
    rows = list(zip(*(release[c].to_list() for c in qi), strict=True))
    sizes = Counter(r for r in rows if not all(v == "*" for v in r))
    assert sizes and min(sizes.values()) >= k


@pytest.fixture(scope="module")
def test_table(toy_dir: Path) -> pl.DataFrame:
    return read_table(toy_dir / "test.csv")


@pytest.fixture(scope="module")
def test2_table(toy_dir: Path) -> pl.DataFrame:
    return read_table(toy_dir / "test2.csv")


# test.csv: (34,m,81667) (45,f,81675) (66,m,81925) (70,f,81931) (34,f,81931) (70,m,81931)
# (45,m,81931). Loss per cell (LM): age <50 = 48/99, >=50 = 50/99, * = 1; gender * = 1;
# zipcode has 10,000 leaves: 8166* = 9/9999, 816** = 99/9999, 81*** = 999/9999, 8****/* = 1.
# Without suppression, 2-anonymity needs age generalized (34/45/66/70 are split by sex
# and zip otherwise). age=<50/>=50 with gender kept leaves (>=50, female) = 1 record, so it
# needs gender=* too: LM >= (0.49 + 1) / 3. age=* with gender kept needs zip at 81***
# (zip 816**/819** leaves (male, 816**) alone): LM = (1 + 0 + 999/9999) / 3 = 0.3666,
# and the classes (male: 4, female: 3) are 3-anonymous as well, so k=2 and k=3 agree.
@pytest.mark.parametrize("algorithm", ["flash", "exhaustive"])
@pytest.mark.parametrize("k", [2, 3])
def test_toy_test_csv(toy_dir: Path, test_table: pl.DataFrame, algorithm: str, k: int) -> None:
    res = anonymize(
        test_table,
        quasi_identifiers=TEST_QI,
        hierarchies=_hierarchies(toy_dir, "test", TEST_QI),
        k=k,
        algorithm=algorithm,
        metric="loss",
        others="keep",
    )
    assert dict(res.transformation) == {"age": 2, "gender": 0, "zipcode": 3}
    assert res.suppressed == 0
    assert res.metrics["loss"] == pytest.approx((1 + 999 / 9999) / 3)
    assert res.release.rows() == [
        ("*", "male", "81***"),
        ("*", "female", "81***"),
        ("*", "male", "81***"),
        ("*", "female", "81***"),
        ("*", "female", "81***"),
        ("*", "male", "81***"),
        ("*", "male", "81***"),
    ]
    assert sorted(res.classes.to_dict()["histogram"].items())
    assert res.classes.min_size == 3 and res.classes.n_classes == 2
    _assert_k(res.release, TEST_QI, k)


# With up to 2 records suppressed (limit 0.3 of 7), k=2 keeps age at <50/>=50 and gender,
# suppressing the lone (>=50, female, 81***) record:
# age (4*48/99 + 2*50/99 + 1)/7, gender 1/7, zip (6*999/9999 + 1)/7, averaged over 3.
@pytest.mark.parametrize("algorithm", ["flash", "exhaustive"])
def test_toy_test_csv_with_suppression(toy_dir: Path, test_table, algorithm: str) -> None:
    res = anonymize(
        test_table,
        quasi_identifiers=TEST_QI,
        hierarchies=_hierarchies(toy_dir, "test", TEST_QI),
        k=2,
        algorithm=algorithm,
        suppression_limit=0.3,
        others="keep",
    )
    assert dict(res.transformation) == {"age": 1, "gender": 0, "zipcode": 3}
    assert res.suppressed == 1
    expected = ((4 * 48 / 99 + 2 * 50 / 99 + 1) / 7 + 1 / 7 + (6 * 999 / 9999 + 1) / 7) / 3
    assert res.metrics["loss"] == pytest.approx(expected)
    assert res.release.row(3) == ("*", "*", "*")
    _assert_k(res.release, TEST_QI, 2)
    # k=3 cannot use the suppression budget profitably: the unsuppressed optimum wins
    res3 = anonymize(
        test_table,
        quasi_identifiers=TEST_QI,
        hierarchies=_hierarchies(toy_dir, "test", TEST_QI),
        k=3,
        algorithm=algorithm,
        suppression_limit=0.3,
        others="keep",
    )
    assert dict(res3.transformation) == {"age": 2, "gender": 0, "zipcode": 3}


# test2.csv: ZIPCode has 9 leaves: 4767*/4760*/4790* hold 3 each (LM 2/8), 476** holds 6
# (5/8), 479** holds 3 (2/8); Age groups [20,30[, [30,40[, >=40 hold 3 leaves each (2/8).
# (zip 476**/479**, age groups) gives three classes of 3 records:
# LM = ((6*5/8 + 3*2/8)/9 + 2/8) / 2 = 0.375. Cheaper candidates fail: zip kept makes
# every record unique; (4767*, age group) leaves 47673/[30,40[ alone; (zip level 1,
# age *) costs (2/8 + 1)/2 = 0.625.
@pytest.mark.parametrize("algorithm", ["flash", "exhaustive"])
@pytest.mark.parametrize("k", [2, 3])
def test_toy_test2_csv(toy_dir: Path, test2_table, algorithm: str, k: int) -> None:
    qi = ["ZIPCode", "Age"]
    res = anonymize(
        test2_table,
        quasi_identifiers=qi,
        hierarchies=_hierarchies(toy_dir, "test2", qi),
        sensitive=["Disease"],
        k=k,
        algorithm=algorithm,
        metric="loss",
        others="keep",
    )
    assert dict(res.transformation) == {"ZIPCode": 2, "Age": 1}
    assert res.metrics["loss"] == pytest.approx(0.375)
    assert res.suppressed == 0
    assert res.release["ZIPCode"].to_list() == ["476**"] * 3 + ["479**"] * 3 + ["476**"] * 3
    assert res.release["Age"].to_list() == ["[20,30["] * 3 + [">=40"] * 3 + ["[30,40["] * 3
    # other columns unchanged
    assert res.release["Disease"].to_list() == test2_table["Disease"].to_list()
    assert res.release["Salary"].to_list() == test2_table["Salary"].to_list()
    assert sorted(res.classes.to_dict()["histogram"].items()) and res.classes.min_size == 3
    _assert_k(res.release, qi, k)


# With Disease as a third quasi-identifier, Disease at levels 1-2 (stomach / respiratory)
# splits the >=40 class (gastritis vs flu, bronchitis) and every cheaper zip/age choice
# fails, so Disease goes to the root: LM = (0.5 + 0.25 + 1) / 3.
@pytest.mark.parametrize("algorithm", ["flash", "exhaustive"])
@pytest.mark.parametrize("k", [2, 3])
def test_toy_test2_csv_three_qis(toy_dir: Path, test2_table, algorithm: str, k: int) -> None:
    qi = ["ZIPCode", "Age", "Disease"]
    res = anonymize(
        test2_table,
        quasi_identifiers=qi,
        hierarchies=_hierarchies(toy_dir, "test2", qi),
        k=k,
        algorithm=algorithm,
        metric="loss",
        others="keep",
    )
    assert dict(res.transformation) == {"ZIPCode": 2, "Age": 1, "Disease": 3}
    assert res.metrics["loss"] == pytest.approx(1.75 / 3)
    _assert_k(res.release, qi, k)
