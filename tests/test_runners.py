"""The local-recoding algorithms and local suppression through anonkit.anonymize."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import polars as pl
import pytest

import anonkit
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ParameterError, UnknownNameError
from anonkit.io.frames import from_polars, to_polars
from anonkit.models import DistinctLDiversity, KAnonymity

SEX = Hierarchy([["m", "*"], ["f", "*"]], name="sex")
ZIP = Hierarchy(
    [["1301", "130*", "*"], ["1302", "130*", "*"], ["1401", "140*", "*"], ["1402", "140*", "*"]],
    name="zip",
)


def _frame(n: int = 60, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "name": [f"p{i}" for i in range(n)],
            "age": rng.integers(18, 90, n).tolist(),
            "sex": rng.choice(["m", "f"], n).tolist(),
            "zip": rng.choice(["1301", "1302", "1401", "1402"], n).tolist(),
            "disease": rng.choice(["flu", "cold", "asthma", "ulcer"], n).tolist(),
        }
    )


def _min_class(release: pl.DataFrame, qi: list[str]) -> int:
    return min(Counter(release.select(qi).iter_rows()).values())


def test_greedy_merge_through_the_api() -> None:
    df = _frame().with_columns(pl.col("age").cast(pl.String))
    ages = sorted(set(df["age"].to_list()))
    res = anonkit.anonymize(
        df,
        quasi_identifiers=["sex", "zip", "age"],
        hierarchies={"sex": SEX, "zip": ZIP, "age": {"type": "intervals", "widths": [10, 30]}},
        identifying=["name"],
        k=4,
        algorithm="greedy_merge",
        cost="ncp",
        others="keep",
    )
    assert ages and "name" not in res.release.columns
    assert _min_class(res.release, ["sex", "zip", "age"]) >= 4
    assert res.classes.min_size >= 4 and res.transformation == {}
    assert res.details["greedy_merge"]["effective_k"] >= 4
    assert "cost_ncp" in res.metrics and "loss" in res.metrics
    with pytest.raises(ParameterError, match="k-anonymity only"):
        anonkit.anonymize(
            df,
            quasi_identifiers=["sex", "zip"],
            hierarchies={"sex": SEX, "zip": ZIP},
            privacy=[KAnonymity(2), DistinctLDiversity("disease", 2)],
            algorithm="greedy_merge",
            others="keep",
        )


def test_mondrian_through_the_api_with_l_diversity() -> None:
    df = _frame(120)
    res = anonkit.anonymize(
        from_polars(df, "pandas"),
        quasi_identifiers=["age", "sex", "zip"],
        hierarchies={"sex": SEX, "zip": ZIP},
        numeric=["age"],
        privacy=[KAnonymity(5), DistinctLDiversity("disease", 2)],
        algorithm="mondrian",
        mode="relaxed",
        others="keep",
    )
    assert isinstance(res.release, pd.DataFrame)
    rel, _ = to_polars(res.release)
    groups = rel.group_by(["age", "sex", "zip"]).agg(
        pl.len().alias("n"), pl.col("disease").n_unique().alias("l")
    )
    assert groups["n"].min() >= 5 and groups["l"].min() >= 2
    # truthful: every released age range holds the original age
    for orig, label in zip(df["age"].to_list(), rel["age"].to_list(), strict=True):
        lo, hi = (float(x) for x in label.strip("[]").split("-"))
        assert lo <= orig <= hi


def test_microaggregation_through_the_api() -> None:
    rng = np.random.default_rng(1)
    df = pl.DataFrame({"x": rng.normal(size=50), "y": rng.normal(size=50), "tag": ["a"] * 50})
    res = anonkit.anonymize(
        df, quasi_identifiers=["x", "y"], k=5, algorithm="microaggregation", others="keep"
    )
    assert res.classes.min_size >= 5
    assert 0 <= res.metrics["il"] <= 100 and res.metrics["sse"] >= 0
    assert res.release["tag"].to_list() == ["a"] * 50


def test_local_suppression_blanks_cells_not_records() -> None:
    df = _frame(80, seed=3).with_columns(pl.col("age").cast(pl.String))
    common = dict(
        quasi_identifiers=["sex", "zip", "age"],
        hierarchies={"sex": SEX, "zip": ZIP, "age": {"type": "intervals", "widths": [20]}},
        identifying=["name"],
        k=3,
        suppression_limit=0.2,
    )
    whole = anonkit.anonymize(df, **common, others="keep")
    cells = anonkit.anonymize(df, local_suppression=True, **common, others="keep")
    assert cells.transformation == whole.transformation
    info = cells.details.get("local_suppression")
    if whole.suppressed:
        assert info is not None and info["cells"] >= 1
        assert cells.suppressed <= whole.suppressed
        assert sum(info["cells_per_attribute"].values()) == info["cells"]
    kept = cells.release.filter(
        ~pl.all_horizontal([pl.col(c) == "*" for c in ["sex", "zip", "age"]])
    )
    if kept.height:
        assert _min_class(kept, ["sex", "zip", "age"]) >= 3


def test_unknown_algorithm_and_misused_options() -> None:
    df = _frame(10)
    with pytest.raises(UnknownNameError, match="mondrain"):
        anonkit.anonymize(df, quasi_identifiers=["sex"], k=2, algorithm="mondrain", others="keep")
    with pytest.raises(ParameterError, match="local_suppression"):
        anonkit.anonymize(
            df,
            quasi_identifiers=["sex"],
            k=2,
            algorithm="mondrian",
            local_suppression=True,
            others="keep",
        )
