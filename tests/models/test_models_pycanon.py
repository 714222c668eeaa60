"""The measures agree with pycanon, an independent implementation.

Compared: achieved k, distinct ℓ, entropy ℓ and t for the equal and the ordered distance.
Differences in definition, documented rather than bent:

* pycanon's entropy ℓ is ``int(min exp(H))``, our value truncated to an int (ours is the
  real number ``exp(min H)``);
* pycanon picks the distance from the column's dtype: a text column gets the equal
  distance, a numeric column the ordered distance over its distinct values in numeric
  order with ``m`` = the number of distinct values (as ours does for numeric labels);
* pycanon's recursive (c, ℓ), δ-disclosure and enhanced β are not the textbook definitions
  and are not compared (see :mod:`anonkit.models.measure`).

pycanon is given a pandas frame with a fresh 0..n-1 index (it selects classes by label).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from model_helpers import generalize, summary_from_frame

from anonkit.models import (
    achieved_distinct_l,
    achieved_entropy_l,
    achieved_k,
    achieved_t,
)

anonymity = pytest.importorskip("pycanon.anonymity")

ADULT_QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]


def _entropy_matches(ours: float, theirs: int) -> bool:
    """pycanon truncates exp(H); at an integer, rounding may land on either side."""
    nearest = round(ours)
    if abs(ours - nearest) < 1e-9:
        return theirs in (nearest - 1, nearest)
    return theirs == math.floor(ours)


def _compare(frame: pd.DataFrame, qi: list[str], text: str, number: str | None) -> None:
    frame = frame.reset_index(drop=True)
    assert list(frame.index) == list(range(len(frame)))
    sensitive = [text] if number is None else [text, number]
    summary, _ = summary_from_frame(frame, qi, sensitive)
    assert achieved_k(summary) == anonymity.k_anonymity(frame, qi)
    assert achieved_distinct_l(summary, text) == anonymity.l_diversity(frame, qi, [text])
    assert _entropy_matches(
        achieved_entropy_l(summary, text), anonymity.entropy_l_diversity(frame, qi, [text])
    )
    assert achieved_t(summary, text, "equal") == pytest.approx(
        anonymity.t_closeness(frame, qi, [text]), abs=1e-12
    )
    if number is not None:
        assert pd.api.types.is_numeric_dtype(frame[number])
        assert achieved_t(summary, number, "ordered") == pytest.approx(
            anonymity.t_closeness(frame, qi, [number]), abs=1e-12
        )


@pytest.mark.parametrize("seed", range(4))
def test_random_tables(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 80
    frame = pd.DataFrame(
        {
            "q1": rng.choice(["a", "b"], n),
            "q2": rng.choice(["x", "y", "z"], n),
            "disease": rng.choice(
                ["flu", "cold", "ulcer", "cancer", "asthma"], n, p=[0.4, 0.3, 0.15, 0.1, 0.05]
            ),
            "salary": rng.choice([1, 2, 3, 10, 20, 35], n),
        }
    )
    _compare(frame, ["q1", "q2"], "disease", "salary")


def _adult(shared_data, rows: int | None, levels: dict[str, int]) -> pd.DataFrame:
    folder = shared_data / "adult"
    frame = pd.read_csv(folder / "adult.csv", sep=";", dtype=str)
    if rows is not None:
        frame = frame.iloc[:rows]
    hierarchies = {c: folder / f"adult_hierarchy_{c}.csv" for c in levels}
    return generalize(frame, hierarchies, levels)


def test_adult_release_occupation(shared_data) -> None:
    # all of Adult, generalized coarsely (80 classes), occupation sensitive
    levels = {"age": 3, "education": 3, "marital-status": 1, "native-country": 2, "workclass": 2}
    frame = _adult(shared_data, None, levels)
    _compare(frame, ADULT_QI, "occupation", None)


def test_adult_release_ordered_age(shared_data) -> None:
    # age (numeric) sensitive, the other columns generalized as quasi-identifiers
    frame = _adult(
        shared_data,
        3000,
        {"education": 3, "marital-status": 1, "native-country": 2, "workclass": 1},
    )
    frame["age"] = frame["age"].astype(int)
    qi = [c for c in ADULT_QI if c != "age"]
    _compare(frame, qi, "occupation", "age")


@pytest.mark.slow
def test_adult_finer_release(shared_data) -> None:
    levels = {"age": 2, "education": 2, "marital-status": 1, "native-country": 1, "workclass": 1}
    frame = _adult(shared_data, 4000, levels)
    _compare(frame, ADULT_QI, "occupation", None)
