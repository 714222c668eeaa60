"""Class sizes of a release and of its tally (metrics/classes.py)."""

from __future__ import annotations

import polars as pl

from anonkit.metrics.classes import class_profile, tally_sizes


def test_tally_of_numbers_and_stars() -> None:
    """A tally may hold a column released as numbers (Mondrian's means): the records at
    '*' in every quasi-identifier are still told apart, without comparing numbers with
    text."""
    tally = pl.DataFrame(
        {"age": [30.5, 30.5, None], "zip": ["1*", "2*", "*"], "n": [3, 2, 4]},
        schema_overrides={"age": pl.Float64},
    )
    sizes, suppressed = tally_sizes(tally, ["age", "zip"], "n")
    assert sorted(sizes.tolist()) == [2, 3, 4] and suppressed == 0
    starred = pl.DataFrame({"age": ["30", "*"], "zip": ["1*", "*"], "n": [3, 4]})
    sizes, suppressed = tally_sizes(starred, ["age", "zip"], "n")
    assert sizes.tolist() == [3] and suppressed == 4


def test_profile_of_numbers() -> None:
    frame = pl.DataFrame({"age": [30.5, 30.5, 41.0], "zip": ["1*", "1*", "*"]})
    profile = class_profile(frame, ["age", "zip"], k=2)
    assert profile.classes_below_k == 1 and profile.suppressed == 0
