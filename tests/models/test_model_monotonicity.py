"""The declared monotonicity flags hold, and every False flag is needed.

``monotone_generalization``: merging classes that all satisfy the model gives a class that
satisfies it (a generalization merges classes; without suppression every class satisfies).
``monotone_suppression``: after merging, the records in violating classes never grow; for a
class-local model, a merged class violates only if all its parts did.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from model_helpers import single_column_summary

from anonkit.core.hierarchy import Hierarchy
from anonkit.models import (
    MODELS,
    BasicBetaLikeness,
    DeltaDisclosure,
    DeltaPresence,
    DistinctLDiversity,
    EnhancedBetaLikeness,
    EntropyLDiversity,
    EqualDistanceTCloseness,
    HierarchicalTCloseness,
    KAnonymity,
    KMap,
    MUniqueness,
    OrderedDistanceTCloseness,
    RecursiveCLDiversity,
)
from anonkit.models.base import ClassSummary, SensitiveColumn

M = 5
TREE = Hierarchy([[f"v{i}", f"g{i // 2}", f"h{i // 4}", "*"] for i in range(M)])

#: instances of every model that reads a sensitive histogram, across their parameters
SENSITIVE_MODELS = [
    *(DistinctLDiversity("s", l) for l in (2, 3)),  # noqa: E741
    *(EntropyLDiversity("s", l) for l in (1.5, 3)),  # noqa: E741
    *(RecursiveCLDiversity("s", c, l) for c, l in ((1, 2), (2, 3), (3, 2))),  # noqa: E741
    *(EqualDistanceTCloseness("s", t) for t in (0.2, 0.4)),
    *(OrderedDistanceTCloseness("s", t) for t in (0.2, 0.4)),
    *(HierarchicalTCloseness("s", t, TREE) for t in (0.2, 0.4)),
    *(DeltaDisclosure("s", d) for d in (0.5, 2)),
    *(BasicBetaLikeness("s", b) for b in (0.5, 3)),
    *(EnhancedBetaLikeness("s", b) for b in (0.5, 3)),
    *(MUniqueness("s", m) for m in (2, 3)),
]

rows = st.lists(st.integers(0, 6), min_size=M, max_size=M).filter(lambda r: sum(r) > 0)


def summary_of(histogram: np.ndarray, totals: np.ndarray) -> ClassSummary:
    return single_column_summary(histogram, totals, labels=[f"v{i}" for i in range(M)])


@pytest.mark.parametrize(
    "model", [m for m in SENSITIVE_MODELS if m.monotone_generalization], ids=repr
)
@given(a=rows, b=rows, rest=st.lists(st.integers(0, 8), min_size=M, max_size=M))
def test_merging_satisfying_classes_satisfies(model, a, b, rest) -> None:
    a, b = np.array(a), np.array(b)
    totals = a + b + np.array(rest)  # the table holds both classes and others
    bad = model.violations(summary_of(np.stack([a, b, a + b]), totals))
    if not bad[0] and not bad[1]:
        assert not bad[2]


@pytest.mark.parametrize("model", [m for m in SENSITIVE_MODELS if m.monotone_suppression], ids=repr)
@given(fine=st.lists(rows, min_size=2, max_size=8), data=st.data())
def test_merged_class_violates_only_if_all_parts_did(model, fine, data) -> None:
    hist = np.array(fine)
    groups = np.array(
        data.draw(st.lists(st.integers(0, len(fine) - 1), min_size=len(fine), max_size=len(fine)))
    )
    coarse = np.zeros((len(fine), M), dtype=np.int64)
    np.add.at(coarse, groups, hist)
    used = np.unique(groups)
    totals = hist.sum(axis=0)
    bad_fine = model.violations(summary_of(hist, totals))
    bad_coarse = model.violations(summary_of(coarse[used], totals))
    for g, bad in zip(used, bad_coarse, strict=True):
        if bad:
            assert bad_fine[groups == g].all()


@given(
    sizes=st.lists(st.integers(1, 9), min_size=2, max_size=8),
    pop_extra=st.lists(st.integers(0, 9), min_size=8, max_size=8),
    orphans=st.lists(st.integers(0, 9), min_size=8, max_size=8),
    k=st.integers(1, 15),
    data=st.data(),
)
def test_k_anonymity_and_k_map_are_monotone(sizes, pop_extra, orphans, k, data) -> None:
    n = len(sizes)
    groups = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n)))
    sizes_arr = np.array(sizes)
    population = sizes_arr + np.array(pop_extra[:n])
    used = np.unique(groups)
    coarse_sizes = np.bincount(groups, weights=sizes_arr, minlength=n).astype(np.int64)[used]
    # merged classes also take in population records of classes without sample records
    coarse_pop = (
        np.bincount(groups, weights=population, minlength=n).astype(np.int64)
        + np.array(orphans[:n])
    )[used]
    fine = ClassSummary(sizes_arr, int(sizes_arr.sum()), population=population)
    coarse = ClassSummary(coarse_sizes, int(sizes_arr.sum()), population=coarse_pop)
    for model in (KAnonymity(k), KMap(k)):
        assert model.monotone_generalization and model.monotone_suppression
        bad_fine, bad_coarse = model.violations(fine), model.violations(coarse)
        for g, bad in zip(used, bad_coarse, strict=True):
            if bad:
                assert bad_fine[groups == g].all()


def _more_suppressed(model, fine: ClassSummary, coarse: ClassSummary) -> bool:
    before = int(fine.sizes[model.violations(fine)].sum())
    after = int(coarse.sizes[model.violations(coarse)].sum())
    return after > before


def _pair(fine_rows, totals) -> tuple[ClassSummary, ClassSummary]:
    fine = np.array(fine_rows)
    col = SensitiveColumn("s", ("a", "b", "c"), fine, np.array(totals))
    merged = SensitiveColumn(
        "s", ("a", "b", "c"), fine.sum(axis=0, keepdims=True), np.array(totals)
    )
    return (
        ClassSummary(fine.sum(axis=1), int(fine.sum()), {"s": col}),
        ClassSummary(merged.histogram.sum(axis=1), int(fine.sum()), {"s": merged}),
    )


@pytest.mark.parametrize(
    "model",
    [
        EntropyLDiversity("s", 3),
        RecursiveCLDiversity("s", 2, 2),
        EqualDistanceTCloseness("s", 0.3),
        OrderedDistanceTCloseness("s", 0.3),
        BasicBetaLikeness("s", 0.5),
        EnhancedBetaLikeness("s", 0.5),
        DeltaDisclosure("s", 1.0),
    ],
    ids=repr,
)
def test_false_suppression_flags_are_needed(model) -> None:
    # a diverse class close to the table merged with a large homogeneous one that was
    # suppressed: the merged class violates, so generalizing suppresses more records
    fine, coarse = _pair([[1, 1, 1], [10, 0, 0]], [11, 11, 11])
    assert model.violations(fine).tolist() == [False, True]
    assert _more_suppressed(model, fine, coarse)
    assert model.monotone_suppression is False


def test_delta_presence_flags_are_needed() -> None:
    model = DeltaPresence(0.4, 0.9)
    # generalization merges two satisfying classes (1 of 2 each) with population records
    # of a class holding no sample record: 2 of 10 < 0.4
    fine = ClassSummary(np.array([1, 1]), 2, population=np.array([2, 2]))
    coarse = ClassSummary(np.array([2]), 2, population=np.array([10]))
    assert not model.violations(fine).any() and model.violations(coarse).all()
    # suppression: a violating class (1 of 10) merged with a satisfying one (2 of 4)
    fine = ClassSummary(np.array([1, 2]), 3, population=np.array([10, 4]))
    coarse = ClassSummary(np.array([3]), 3, population=np.array([14]))
    assert _more_suppressed(model, fine, coarse)
    assert not model.monotone_generalization and not model.monotone_suppression


def test_every_registered_model_is_covered() -> None:
    covered = {type(m) for m in SENSITIVE_MODELS} | {KAnonymity, KMap, DeltaPresence}
    from anonkit.models import AverageRisk  # tested in test_risk_model.py

    assert set(MODELS.values()) == covered | {AverageRisk}
