"""Local recoding on large tables: Mondrian's release from a per-class label table, its
tally-based profile and verification, and what large tables skip (issue 17).

"Large" is lowered to a few records here, so that the large-table path runs on Adult and
is compared with the ordinary one; the verification of the tally is checked independently
with verify_release on the release itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import anonkit.estimators.base as estimator_base
import anonkit.estimators.local as local
from anonkit.algorithms.mondrian.frame import (
    distinct_index,
    fit_frame,
    release_frame,
    release_tally,
)
from anonkit.core.hierarchy import Hierarchy
from anonkit.engines.counting import COUNT
from anonkit.estimators import Mondrian, Privacy
from anonkit.exceptions import MissingValuesError, ValuesNotInHierarchyError
from anonkit.models import DistinctLDiversity, KAnonymity, PrivacyModel
from anonkit.verify import verify_release

QI = ["age", "sex", "race", "marital-status", "education"]
SENSITIVE = "occupation"


def _fit(
    frame: pl.DataFrame,
    hierarchies: dict[str, Path],
    models: list[PrivacyModel],
    mode: str,
) -> Mondrian:
    return Mondrian(mode=mode, privacy=Privacy(models)).fit(
        frame,
        quasi_identifiers=QI,
        hierarchies={c: hierarchies[c] for c in QI if c != "age"},
        numeric=["age"],
        sensitive=[SENSITIVE],
        others="drop",
    )


@pytest.mark.parametrize("mode", ["strict", "relaxed"])
@pytest.mark.parametrize(
    "models", [[KAnonymity(10)], [KAnonymity(5), DistinctLDiversity(SENSITIVE, 3)]]
)
def test_large_table_path_gives_the_same_release(
    adult_frame: pl.DataFrame,
    adult_hierarchies: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    models: list[PrivacyModel],
) -> None:
    frame = adult_frame.head(6000)
    weights: list[str | None] = []
    verify = estimator_base.verify_release

    def spy(released: pl.DataFrame, **options: Any) -> Any:
        weights.append(options["weight"])
        return verify(released, **options)

    monkeypatch.setattr(estimator_base, "verify_release", spy)
    small = _fit(frame, adult_hierarchies, models, mode)
    monkeypatch.setattr(local, "LARGE_TABLE", 100)
    large = _fit(frame, adult_hierarchies, models, mode)
    assert weights == [None, COUNT]  # the large path's verification read its tally
    assert large.result_.verified
    assert_frame_equal(large.result_.release, small.result_.release)
    assert large.result_.classes == small.result_.classes
    assert "loss" in large.result_.details and "ncp" not in large.result_.metrics
    assert "ncp" in small.result_.metrics
    assert small.result_.checks["models"] == large.result_.checks["models"]
    # the independent check, on the release itself
    verify_release(
        large.result_.release,
        quasi_identifiers=QI,
        models=models,
        n_records=frame.height,
        suppression_limit=0.0,
    )


def test_tally_counts_the_release(
    adult_frame: pl.DataFrame, adult_hierarchies: dict[str, Path]
) -> None:
    frame = adult_frame.head(3000)
    hierarchies = {c: Hierarchy.from_csv(adult_hierarchies[c]) for c in QI if c != "age"}
    part = fit_frame(
        frame,
        [KAnonymity(4)],
        quasi_identifiers=QI,
        hierarchies=hierarchies,
        numeric=["age"],
        mode="relaxed",
    )
    released = release_frame(frame, part)
    by_hand = released.group_by([*QI, SENSITIVE]).len("n").sort([*QI, SENSITIVE])
    tally = release_tally(frame, part, sensitive=[SENSITIVE], weight="n")
    merged = tally.group_by([*QI, SENSITIVE]).agg(pl.col("n").sum()).sort([*QI, SENSITIVE])
    assert_frame_equal(merged, by_hand, check_dtypes=False)
    sizes = release_tally(frame, part, weight="n").group_by(QI).agg(pl.col("n").sum())
    assert sorted(sizes["n"].to_list()) == sorted(released.group_by(QI).len()["len"].to_list())


def test_distinct_index_keeps_the_order_of_appearance() -> None:
    for series in (
        pl.Series(["b", "a", "b", "c"]),
        pl.Series([3, 1, 3, 2]),
        pl.Series([2.5, float("nan"), 2.5]),
        pl.Series([True, False, True]),
    ):
        uniq, index = distinct_index(series)
        assert (
            uniq.to_list() == series.unique(maintain_order=True).to_list()
            or series.dtype.is_float()
        )
        back = uniq.gather(index.astype(np.int64))
        assert back.cast(pl.String).to_list() == series.cast(pl.String).to_list()


def test_encoding_errors_name_the_column() -> None:
    h = Hierarchy([["a", "*"], ["b", "*"]])
    frame = pl.DataFrame({"x": ["a", None, "b"], "y": ["a", "c", "b"]})
    with pytest.raises(MissingValuesError, match="'x'"):
        fit_frame(frame, [KAnonymity(1)], quasi_identifiers=["x"], hierarchies={"x": h})
    with pytest.raises(ValuesNotInHierarchyError, match="'y'"):
        fit_frame(frame, [KAnonymity(1)], quasi_identifiers=["y"], hierarchies={"y": h})


def test_greedy_merging_refuses_tables_beyond_its_size_limit(
    adult_frame: pl.DataFrame, adult_hierarchies: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import anonkit
    from anonkit.exceptions import ParameterError

    frame = adult_frame.select(QI).head(500)
    combinations = frame.n_unique()
    monkeypatch.setattr(local, "GREEDY_MERGE_COMBINATIONS", combinations - 1)
    with pytest.raises(ParameterError, match=f"{combinations:,}") as info:
        anonkit.anonymize(
            frame,
            algorithm="greedy_merge",
            quasi_identifiers=QI,
            hierarchies={c: adult_hierarchies[c] for c in QI},
            k=5,
        )
    assert str(info.value).count(". ") <= 1  # one sentence
    monkeypatch.setattr(local, "GREEDY_MERGE_COMBINATIONS", combinations)
    result = anonkit.anonymize(
        frame,
        algorithm="greedy_merge",
        quasi_identifiers=QI,
        hierarchies={c: adult_hierarchies[c] for c in QI},
        k=5,
    )
    assert result.verified


def test_the_greedy_merging_class_refuses_tables_beyond_its_limit_too(
    adult_frame: pl.DataFrame, adult_hierarchies: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Called directly (not through anonymize), greedy merging checks the same limit."""
    from anonkit.algorithms.greedy_merge import estimator as merging
    from anonkit.algorithms.greedy_merge import greedy_merge
    from anonkit.exceptions import ParameterError

    assert merging.MAX_COMBINATIONS == local.GREEDY_MERGE_COMBINATIONS
    frame = adult_frame.select(QI).head(300)
    combinations = frame.n_unique()
    monkeypatch.setattr(merging, "MAX_COMBINATIONS", combinations - 1)
    with pytest.raises(ParameterError, match=f"{combinations:,} combinations"):
        greedy_merge(frame, {c: adult_hierarchies[c] for c in QI}, k=5)
