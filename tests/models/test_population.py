"""k-map and δ-presence: the seed-001 population/sample example and Adult."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from model_helpers import HOSPITAL_QI, hospital_frame, summary_from_frame

from anonkit.exceptions import DataError, ParameterError
from anonkit.models import DeltaPresence, KMap, achieved_k_map, achieved_presence
from anonkit.models.base import ClassSummary


@pytest.fixture
def seed_sample():
    """Seed 001: the 4-anonymous release of population U (13 records) and of the sample
    D = records 01, 06, 08, 09..13."""
    population = hospital_frame()
    sample = population.iloc[[0, 5, 7, 8, 9, 10, 11, 12]].reset_index(drop=True)
    summary, keys = summary_from_frame(sample, HOSPITAL_QI, population=population)
    assert [k.split("\x1f")[1] for k in keys] == ["<30", "[30,40)", ">40"]
    return summary


def test_seed_k_map(seed_sample) -> None:
    assert seed_sample.sizes.tolist() == [1, 5, 2]
    assert seed_sample.population.tolist() == [4, 5, 4]
    assert achieved_k_map(seed_sample) == 4  # the sample release is 4-map (only 1-anonymous)
    assert not KMap(4).violations(seed_sample).any()
    assert KMap(5).violations(seed_sample).tolist() == [True, False, True]


def test_seed_delta_presence(seed_sample) -> None:
    assert achieved_presence(seed_sample) == (0.25, 1.0)
    assert DeltaPresence(0.25, 1.0).violations(seed_sample).tolist() == [False] * 3
    assert DeltaPresence(0.3, 0.9).violations(seed_sample).tolist() == [True, True, False]
    assert DeltaPresence(0.0, 0.5).violations(seed_sample).tolist() == [False, True, False]


def test_adult_sample_against_pandas(shared_data) -> None:
    folder = shared_data / "adult"
    population = pd.read_csv(folder / "adult.csv", sep=";", dtype=str)
    sample = pd.read_csv(folder / "adult_subset.csv", sep=";", dtype=str)
    for frame in (population, sample):
        frame["age"] = (frame["age"].astype(int) // 20 * 20).astype(str)
    qi = ["sex", "age", "race"]
    summary, keys = summary_from_frame(sample, qi, population=population)
    pop_counts = population.groupby(qi).size()
    sample_counts = sample.groupby(qi).size()
    expected_pop = [int(pop_counts[tuple(k.split("\x1f"))]) for k in keys]
    assert summary.population.tolist() == expected_pop
    share = sample_counts.to_numpy() / pop_counts.loc[sample_counts.index].to_numpy()
    assert achieved_k_map(summary) == int(pop_counts.loc[sample_counts.index].min())
    assert achieved_presence(summary) == pytest.approx((share.min(), share.max()))
    for k in (1, 5, 50, 500):
        bad = KMap(k).violations(summary)
        assert bad.tolist() == [p < k for p in expected_pop]
    dp = DeltaPresence(0.05, 0.15).violations(summary)
    by_key = dict(zip(keys, dp.tolist(), strict=True))
    for key, value in zip(sample_counts.index, share, strict=True):
        assert by_key["\x1f".join(key)] == (not 0.05 <= value <= 0.15)


def test_population_required() -> None:
    summary = ClassSummary(np.array([2, 3]), 5)
    with pytest.raises(DataError, match="KMap needs the population"):
        KMap(2).violations(summary)
    with pytest.raises(DataError, match="DeltaPresence needs the population"):
        DeltaPresence(0.1, 0.5).violations(summary)


def test_empty_population_class_is_infinite_share() -> None:
    summary = ClassSummary(np.array([2]), 2, population=np.array([0]))
    assert DeltaPresence(0.0, 1.0).violations(summary).tolist() == [True]
    assert KMap(1).violations(summary).tolist() == [True]


@pytest.mark.parametrize(
    ("args", "parameter"),
    [
        ((-0.1, 0.5), "delta_min"),
        ((0.1, 1.5), "delta_max"),
        ((0.6, 0.5), "delta_max"),
        (("0", 1), "delta_min"),
    ],
)
def test_bad_presence_parameters(args, parameter) -> None:
    with pytest.raises(ParameterError) as info:
        DeltaPresence(*args)
    assert info.value.parameter == parameter


def test_bad_k() -> None:
    with pytest.raises(ParameterError, match="'k' parameter of KMap"):
        KMap(0)


def test_describe() -> None:
    assert KMap(5).describe() == "5-map"
    assert DeltaPresence(0.1, 0.5).describe() == "(0.1, 0.5)-presence"
