"""Tests of anonkit.models.judge: the one path from classes to a violation mask."""

from __future__ import annotations

import numpy as np

from anonkit.models import KAnonymity
from anonkit.models.judge import (
    SensitiveSource,
    class_histograms,
    first_violated,
    summarize_classes,
    value_totals,
    violations,
)
from anonkit.models.l_diversity import DistinctLDiversity


def test_value_totals_counts_weighted_rows() -> None:
    assert value_totals(np.array([0, 2, 2]), 4).tolist() == [1, 0, 2, 0]
    assert value_totals(np.array([0, 2]), 3, weights=np.array([3, 2])).tolist() == [3, 0, 2]


def test_class_histograms() -> None:
    class_of = np.array([0, 1, 1, 0], dtype=np.int64)
    codes = np.array([1, 0, 1, 1], dtype=np.int64)
    hist = class_histograms(class_of, codes, 2, 2)
    assert hist.dtype == np.int64
    assert hist.tolist() == [[0, 2], [1, 1]]
    weighted = class_histograms(class_of, codes, 2, 2, weights=np.array([1, 2, 3, 4]))
    assert weighted.tolist() == [[0, 5], [2, 3]]


def test_summary_carries_table_totals_and_population() -> None:
    source = SensitiveSource("s", ("x", "y"), np.array([5, 5], dtype=np.int64))
    hist = np.array([[1, 1]], dtype=np.int64)
    summary = summarize_classes(
        np.array([2]), 10, [source], [hist], population=np.array([7]), population_size=20
    )
    column = summary.sensitive["s"]
    assert column.totals.tolist() == [5, 5] and column.histogram is hist
    assert summary.population is not None and summary.population.tolist() == [7]
    assert summary.population_size == 20 and summary.n_records == 10


def test_violations_or_the_models_and_first_violated_keeps_order() -> None:
    source = SensitiveSource("s", ("x", "y"), np.array([3, 2], dtype=np.int64))
    hist = np.array([[2, 0], [1, 1], [0, 1]], dtype=np.int64)
    summary = summarize_classes(np.array([2, 2, 1]), 5, [source], [hist])
    models = [KAnonymity(2), DistinctLDiversity("s", 2)]
    assert violations(models, summary).tolist() == [True, False, True]
    assert violations([], summary).tolist() == [False, False, False]
    assert first_violated(models, summary) is models[0]
    assert first_violated(models[1:], summary) is models[1]
    fine = summarize_classes(np.array([2]), 2, [source], [np.array([[1, 1]])])
    assert first_violated(models, fine) is None
