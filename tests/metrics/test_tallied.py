"""Loss metrics from counts (:mod:`anonkit.metrics.tallied`) equal the paired-record
metrics of :mod:`anonkit.metrics.loss` on the same release."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

from anonkit import anonymize
from anonkit.core.hierarchy import Hierarchy
from anonkit.metrics.loss import all_losses, attribute_losses
from anonkit.metrics.release import interpret_release
from anonkit.metrics.tallied import (
    tallied_attribute_losses,
    tallied_column,
    tallied_losses,
)

QI = ["age", "education", "marital-status", "sex"]


def _tallied(original: pl.DataFrame, release: pl.DataFrame, hs: dict[str, Hierarchy]) -> Any:
    columns = []
    for c in QI:
        o = original.group_by(c).len()
        r = release.group_by(c).len()
        columns.append(
            tallied_column(c, o[c], o["len"].to_numpy(), r[c], r["len"].to_numpy(), hierarchy=hs[c])
        )
    star = pl.all_horizontal([pl.col(c) == "*" for c in QI])
    sizes = release.filter(~star).group_by(QI).len()["len"].to_numpy()
    return columns, sizes, int(release.filter(star).height)


@pytest.mark.parametrize("algorithm", ["flash", "mondrian"])
def test_tallied_losses_equal_paired_losses(
    adult_frame: pl.DataFrame, adult_hierarchies: dict[str, Path], algorithm: str
) -> None:
    frame = adult_frame.head(3_000).select(QI)
    hs = {c: Hierarchy.from_csv(adult_hierarchies[c]) for c in QI}
    release = anonymize(
        frame,
        quasi_identifiers=QI,
        hierarchies=hs,
        k=10,
        suppression_limit=0.05 if algorithm == "flash" else 0.0,
        algorithm=algorithm,
        **({"mode": "relaxed"} if algorithm == "mondrian" else {}),
    ).release
    paired = interpret_release(frame, release, quasi_identifiers=QI, hierarchies=hs)
    expected = all_losses(paired, k=10)
    columns, sizes, suppressed = _tallied(frame, release, hs)
    got = tallied_losses(columns, sizes, n_suppressed=suppressed, k=10)
    for name, value in got.items():
        assert value == pytest.approx(expected[name]), name
    attributes = attribute_losses(paired)
    for name, entry in tallied_attribute_losses(columns).items():
        want = dict(attributes[name])
        assert entry.pop("untruthful_cells") is None
        want.pop("untruthful_cells")
        assert entry.pop("levels") == want.pop("levels")
        assert entry == pytest.approx(want)
    assert np.isfinite(got["nonuniform_entropy"])


@pytest.mark.parametrize("level", [None, 1])
def test_a_label_at_several_levels_is_read_from_counts_without_pairing(
    level: int | None,
) -> None:
    """'c' is a leaf and its own parent: the paired reading keeps the candidate levels
    that cover each record's original; the counts pair no record with a label, and the
    check indexed distinct originals by distinct labels (an IndexError on Spark)."""
    h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]], name="x")
    original = pl.DataFrame({"x": ["a", "b", "c", "c", "c"]})
    release = pl.DataFrame({"x": ["ab", "ab", "c", "c", "c"]})
    o, r = original.group_by("x").len().sort("x"), release.group_by("x").len().sort("x")
    column = tallied_column(
        "x", o["x"], o["len"].to_numpy(), r["x"], r["len"].to_numpy(), hierarchy=h, level=level
    )
    paired = interpret_release(original, release, quasi_identifiers=["x"], hierarchies={"x": h})
    got = tallied_losses([column], [2, 3], n_suppressed=0)
    expected = all_losses(paired)
    for name in got.keys() & expected.keys():
        assert got[name] == pytest.approx(expected[name], nan_ok=True), name
    assert got["height"] == pytest.approx(1.0)
