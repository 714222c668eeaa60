"""The driver's side of Mondrian on Spark, without Spark: blocks judged by every model
against the whole table, and the models a block may judge."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.algorithms.mondrian import HierarchicalQI, Mondrian, SensitiveAttribute
from anonkit.algorithms.mondrian.attributes import Axis
from anonkit.algorithms.mondrian.blocks import snapshot_blocks
from anonkit.algorithms.mondrian.spark_blocks import (
    AgainstTable,
    SnapshotDetail,
    block_models,
    judged_blocks,
)
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ParameterError
from anonkit.models import (
    DeltaDisclosure,
    DistinctLDiversity,
    EqualDistanceTCloseness,
    KAnonymity,
    PrivacyModel,
)
from anonkit.models.judge import SensitiveSource, summarize_classes, violations

H = Hierarchy(
    [[str(v), f"g{v // 4}", f"h{v // 8}", "*"] for v in range(16)],
    name="x",
)


def _table(seed: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random records: two hierarchical quasi-identifiers and a sensitive code (0..4)."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 16, n), rng.integers(0, 16, n), rng.integers(0, 5, n)


def _snapshot(
    x: np.ndarray, y: np.ndarray, s: np.ndarray
) -> tuple[list[Axis], np.ndarray, SnapshotDetail, np.ndarray]:
    """The snapshot of the records (rows, weights), its detail, and each record's row."""
    keys = x * 16 + y
    uniq, row = np.unique(keys, return_inverse=True)
    weights = np.bincount(row)
    axes = [
        Axis.of(HierarchicalQI("x", uniq // 16, H)),
        Axis.of(HierarchicalQI("y", uniq % 16, H)),
    ]
    pairs, counts = np.unique(row * 5 + s, return_counts=True)
    source = SensitiveSource("s", tuple("abcde"), np.bincount(s, minlength=5).astype(np.int64))
    detail = SnapshotDetail.build([source], [pairs // 5], [pairs % 5], [counts], uniq.shape[0])
    return axes, weights, detail, row


def _block_summary(block: np.ndarray, row: np.ndarray, s: np.ndarray, detail: SnapshotDetail):
    b = block[row]
    n_blocks = int(block.max()) + 1
    hist = np.zeros((n_blocks, 5), dtype=np.int64)
    np.add.at(hist, (b, s), 1)
    return summarize_classes(hist.sum(axis=1), int(s.shape[0]), detail.sources, [hist])


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 20), limit=st.integers(40, 400))
def test_judged_blocks_with_k_only_are_snapshot_blocks(seed: int, k: int, limit: int) -> None:
    x, y, s = _table(seed, 600)
    axes, weights, detail, _ = _snapshot(x, y, s)
    expected = snapshot_blocks(axes, weights, k=k, max_records=limit)
    got = judged_blocks(axes, weights, [KAnonymity(k)], detail, max_records=limit)
    assert got.tolist() == expected.tolist()


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), limit=st.integers(40, 400))
def test_every_block_satisfies_the_models_against_the_table(seed: int, limit: int) -> None:
    x, y, s = _table(seed, 600)
    axes, weights, detail, row = _snapshot(x, y, s)
    models: list[PrivacyModel] = [
        KAnonymity(3),
        DistinctLDiversity("s", 3),
        EqualDistanceTCloseness("s", 0.35),
    ]
    block = judged_blocks(axes, weights, models, detail, max_records=limit)
    summary = _block_summary(block, row, s, detail)
    assert not violations(models, summary).any()
    assert int(block.max()) + 1 >= 2  # 600 records, blocks of at most 400, cut where allowed


def test_a_block_judges_against_the_whole_table() -> None:
    """t-closeness in a block compares its classes with the table's distribution: a
    block of one value, uniform over the table, is far from it, however it is cut."""
    h = Hierarchy([[str(v), "*"] for v in range(4)], name="x")
    table_totals = np.array([50, 50], dtype=np.int64)
    qi = HierarchicalQI("x", np.array([0, 0, 1, 1, 2, 2, 3, 3]), h)
    sens = SensitiveAttribute("s", np.zeros(8, dtype=np.int64), ("a", "b"))
    model = EqualDistanceTCloseness("s", 0.2)
    Mondrian().fit([qi], [model], sensitive=[sens])  # alone, the block is its own table
    with pytest.raises(Exception, match="closeness"):
        Mondrian().fit([qi], [AgainstTable(model, {"s": table_totals}, 100)], sensitive=[sens])


def test_block_models_refuses_what_a_block_cannot_judge() -> None:
    assert block_models([KAnonymity(2), DistinctLDiversity("s", 2)])
    with pytest.raises(ParameterError, match="different blocks"):
        block_models([DeltaDisclosure("s", 1.0)])
