"""Microaggregation: MDAV, univariate and Gaussian-mixture grouping, aggregates, SSE/IL.

What is proven here:

* MDAV reproduces a hand computation (groups and IL) step by step, and the published
  information loss on the CASC Tarragona and Census sets (all three sets, k in
  {3, 4, 5, 10}, in the slow test);
* the fast MDAV (every code path: exact, float64 scores, float32 scores) forms exactly the
  groups of a naive textbook loop written below, on tie-heavy integer data (hypothesis)
  and on standardized random data;
* groups always hold at least k records (and fewer than 2k for MDAV and univariate);
  IL lies in [0, 100]; the runs are deterministic;
* aggregates, the pure loss functions, the parameter/data validation and the frame
  adapter behave as documented.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from anonkit.algorithms.microaggregation import (
    Microaggregation,
    MicroaggregationResult,
    aggregate,
    gmm_groups,
    group_aggregates,
    information_loss,
    mdav_groups,
    microaggregate,
    repair_small_groups,
    sse,
    sst,
    standardize,
    univariate_groups,
)
from anonkit.algorithms.microaggregation.mdav import _Mdav
from anonkit.exceptions import (
    DataError,
    EmptyDataError,
    MissingValuesError,
    ParameterError,
    UnknownColumnError,
    UnknownNameError,
)

Array = npt.NDArray[np.float64]
Labels = npt.NDArray[np.int64]
Case = tuple[Array, int]

# -- a naive textbook MDAV, the reference for the fast implementation ---------------------


def _sq(points: Array, q: Array) -> Array:
    """Squared Euclidean distances, attributes summed left to right."""
    out = np.zeros(len(points))
    for j in range(points.shape[1]):
        out += (points[:, j] - q[j]) ** 2
    return out


def naive_mdav(z: Array, k: int) -> Labels:
    """MDAV exactly as stated in the literature, recomputing everything at every step.

    Ties go to the lowest record index; ``s`` is the record farthest from ``r`` among
    those left after ``r``'s group is removed.
    """
    n = len(z)
    groups = np.full(n, -1)
    left = np.arange(n)
    label = 0

    def farthest(q: Array, pool: Labels) -> int:
        d = _sq(z[pool], q)
        return int(pool[np.flatnonzero(d == d.max())[0]])

    def group_of(c: int, pool: Labels) -> Labels:
        others = pool[pool != c]
        d = _sq(z[others], z[c])
        return np.concatenate(([c], others[np.lexsort((others, d))[: k - 1]]))

    while len(left) >= 3 * k:
        r = farthest(z[left].mean(axis=0), left)
        group_r = group_of(r, left)
        left = np.setdiff1d(left, group_r)
        s = farthest(z[r], left)
        group_s = group_of(s, left)
        left = np.setdiff1d(left, group_s)
        groups[group_r], groups[group_s] = label, label + 1
        label += 2
    if len(left) >= 2 * k:
        r = farthest(z[left].mean(axis=0), left)
        group_r = group_of(r, left)
        left = np.setdiff1d(left, group_r)
        groups[group_r] = label
        label += 1
    if len(left):
        groups[left] = label
    return groups


#: (exact-formula threshold, float32 threshold) forcing each code path of the fast MDAV.
PATHS = {
    "exact": (10**9, 10**9),
    "float64 scores": (0, 10**9),
    "float32 scores": (0, 0),
}


def fast_mdav(z: Array, k: int, path: str) -> Labels:
    small, float32_from = PATHS[path]
    state = _Mdav(np.array(z, dtype=np.float64), k, small=small, float32_from=float32_from)
    result: Labels = state.run()
    return result


@st.composite
def tables_and_k(draw: st.DrawFn, max_records: int = 40, max_value: int = 4) -> Case:
    """Small integer tables (many exact ties and duplicates) and a valid k."""
    n = draw(st.integers(1, max_records))
    p = draw(st.integers(1, 3))
    table = draw(hnp.arrays(np.int64, (n, p), elements=st.integers(0, max_value)))
    k = draw(st.integers(1, n))
    return table.astype(np.float64), k


# -- MDAV: the hand computation -----------------------------------------------------------

#: Nine records; the second attribute is a permutation of the first, so both have the same
#: mean and standard deviation and standardizing scales all distances alike: the hand
#: computation below can use the raw values.
HAND = np.array(
    [[0, 1], [1, 0], [2, 2], [8, 9], [9, 8], [10, 16], [16, 10], [15, 15], [3, 3]],
    dtype=np.float64,
)


def test_mdav_hand_computation() -> None:
    # k = 2, n = 9 >= 3k: one round of the main loop.
    #   Centroid (64/9, 64/9). Squared distances times 81, (9x - 64)^2 + (9y - 64)^2:
    #   P0 7121, P1 7121, P2 4232, P3 353, P4 353, P5 7076, P6 7076, P7 10082, P8 2738.
    #   r = P7 (15, 15). Its nearest: P5 (10, 16) at 25 + 1 = 26, tied with P6 (16, 10) at
    #   1 + 25 = 26 -> the lower index, P5. Group 0 = {P7, P5}.
    #   s = farthest from P7 among the rest: P0 (0, 1) at 225 + 196 = 421, tied with
    #   P1 (1, 0) -> P0. Its nearest: P1 at 1 + 1 = 2 (next: P2 at 4 + 1 = 5).
    #   Group 1 = {P0, P1}.
    # n = 5 left, 2k <= 5 < 3k: centroid (38/5, 32/5); squared distances times 25:
    #   P2 1268, P3 173, P4 113, P6 2088, P8 818 -> r = P6 (16, 10). Nearest: P4 (9, 8) at
    #   49 + 4 = 53 (P3 65, P8 218, P2 260). Group 2 = {P6, P4}; the rest is group 3.
    expected = [1, 1, 3, 3, 2, 0, 2, 0, 3]
    assert mdav_groups(HAND, 2).tolist() == expected
    assert mdav_groups(HAND, 2, standardize=False).tolist() == expected
    for path in PATHS:
        assert fast_mdav(standardize(HAND), 2, path).tolist() == expected
    # SSE per group (raw units): {P7, P5} mean (12.5, 15.5): 2 * (2.5^2 + 0.5^2) = 13;
    # {P0, P1}: 4 * 0.5^2 = 1; {P6, P4} mean (12.5, 9): 2 * (3.5^2 + 1^2) = 26.5;
    # {P2, P3, P8} mean (13/3, 14/3): (49 + 64 + 121 + 169 + 16 + 25) / 9 = 444/9.
    # SSE = 539/6. SST per attribute: 740 - 64^2/9 = 2564/9; both: 5128/9.
    sse_hand = Fraction(13) + 1 + Fraction(53, 2) + Fraction(444, 9)
    assert sse_hand == Fraction(539, 6)
    il_hand = 100 * sse_hand / Fraction(5128, 9)  # = 40425/2564, about 15.7664 %
    assert sse(HAND, expected, standardize=False) == pytest.approx(float(sse_hand), rel=1e-12)
    assert sst(HAND, standardize=False) == pytest.approx(5128 / 9, rel=1e-12)
    assert information_loss(HAND, expected) == pytest.approx(float(il_hand), rel=1e-12)
    result = Microaggregation(k=2).fit(HAND)
    assert result.il == pytest.approx(float(il_hand), rel=1e-12)
    assert result.groups.tolist() == expected
    assert result.values[7].tolist() == [12.5, 15.5]
    assert (result.n_groups, result.min_group_size, result.max_group_size) == (4, 2, 3)


# -- MDAV: identical to the naive loop ----------------------------------------------------


@pytest.mark.parametrize("path", list(PATHS))
@given(case=tables_and_k())
def test_fast_mdav_equals_naive_loop_on_ties(path: str, case: Case) -> None:
    table, k = case
    assert fast_mdav(table, k, path).tolist() == naive_mdav(table, k).tolist()


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("seed", range(6))
def test_fast_mdav_equals_naive_loop_on_standardized_data(path: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(20, 400)), int(rng.integers(1, 7))
    table = rng.standard_normal((n, p)) * rng.choice([1e-3, 1.0, 1e4], size=p)
    if seed % 2:
        table[rng.integers(0, n, size=3)] *= 50.0  # a few outliers
    z = standardize(table)
    k = int(rng.integers(2, 8))
    assert fast_mdav(z, k, path).tolist() == naive_mdav(z, k).tolist()


def test_mdav_default_path_on_a_larger_table_equals_naive_loop() -> None:
    # Large enough for float64 scores, compaction and the one-BLAS-thread context.
    table = np.random.default_rng(7).integers(0, 30, size=(2500, 3)).astype(np.float64)
    assert mdav_groups(table, 3, standardize=False).tolist() == naive_mdav(table, 3).tolist()


# -- group sizes, bounds, determinism -----------------------------------------------------


@given(case=tables_and_k())
def test_mdav_groups_have_k_to_2k_minus_1_records(case: Case) -> None:
    table, k = case
    sizes = np.bincount(mdav_groups(table, k))
    assert sizes.min() >= k
    assert sizes.max() <= max(k, 2 * k - 1)
    # All but the last group have exactly k records.
    assert np.count_nonzero(sizes != k) <= 1


@given(case=tables_and_k())
def test_univariate_groups_have_k_to_2k_minus_1_records(case: Case) -> None:
    table, k = case
    sizes = np.bincount(univariate_groups(table, k))
    assert sizes.min() >= k
    assert sizes.max() <= max(k, 2 * k - 1)


@given(case=tables_and_k(max_records=30, max_value=50), seed=st.integers(0, 3))
def test_gmm_groups_have_at_least_k_records(case: Case, seed: int) -> None:
    table, k = case
    groups = gmm_groups(table, k, n_components=max(1, len(table) // 3), random_state=seed)
    sizes = np.bincount(groups)
    assert sizes.min() >= k
    assert sorted(set(groups.tolist())) == list(range(sizes.size))


@given(case=tables_and_k(), method=st.sampled_from(["mdav", "univariate"]))
def test_information_loss_is_between_0_and_100(case: Case, method: str) -> None:
    table, k = case
    result = Microaggregation(k=k, method=method).fit(table)
    assert 0.0 <= result.il <= 100.0 + 1e-9
    assert result.min_group_size >= k


def test_extreme_k_give_il_0_and_100() -> None:
    table = np.random.default_rng(3).standard_normal((25, 3))
    assert Microaggregation(k=1).fit(table).il == pytest.approx(0.0, abs=1e-12)
    assert Microaggregation(k=1).fit(table).n_groups == 25
    assert Microaggregation(k=25).fit(table).il == pytest.approx(100.0)
    assert Microaggregation(k=13).fit(table).n_groups == 1  # n < 2k: one group


def test_il_grows_with_k() -> None:
    table = np.random.default_rng(11).standard_normal((600, 3))
    losses = [Microaggregation(k=k).fit(table).il for k in (2, 5, 20, 100)]
    assert losses == sorted(losses)
    assert losses[0] < losses[-1] / 5


@pytest.mark.parametrize("method", ["mdav", "univariate", "gmm"])
def test_runs_are_deterministic(method: str) -> None:
    table = np.random.default_rng(5).standard_normal((200, 4))
    first = Microaggregation(k=4, method=method, random_state=1).fit(table)
    again = Microaggregation(k=4, method=method, random_state=1).fit(table.copy())
    assert np.array_equal(first.groups, again.groups)
    assert np.array_equal(first.values, again.values)
    assert first.il == again.il


# -- CASC benchmarks ----------------------------------------------------------------------

EIA_COLUMNS = [
    "UTILITYID",
    "RESREVENUE",
    "RESSALES",
    "COMREVENUE",
    "COMSALES",
    "INDREVENUE",
    "INDSALES",
    "OTHREVENUE",
    "OTHRSALES",
    "TOTREVENUE",
    "TOTSALES",
]

#: MDAV information loss (IL = 100 SSE/SST, %) as published for the CASC sets (e.g.
#: Domingo-Ferrer, Martinez-Balleste, Mateo-Sanz & Sebe, VLDB J. 15(4), 2006, and the
#: later microaggregation literature), and the 4-decimal values this implementation gives.
CASC_IL = {
    ("Tarragona.csv", 3): (16.93, 16.9326),
    ("Tarragona.csv", 4): (19.55, 19.5460),
    ("Tarragona.csv", 5): (22.46, 22.4619),
    ("Tarragona.csv", 10): (33.19, 33.1929),
    ("CASCrefmicrodata.csv", 3): (5.69, 5.6922),
    ("CASCrefmicrodata.csv", 4): (7.49, 7.4947),
    ("CASCrefmicrodata.csv", 5): (9.09, 9.0884),
    ("CASCrefmicrodata.csv", 10): (14.16, 14.1559),
    ("EIA.csv", 3): (0.48, 0.4829),
    ("EIA.csv", 4): (0.67, 0.6713),
    ("EIA.csv", 5): (1.67, 1.6667),
    ("EIA.csv", 10): (3.84, 3.8397),
}


def _casc(shared_data: Path, name: str) -> pl.DataFrame:
    path = shared_data / "casc" / name
    if not path.is_file():
        pytest.skip(f"CASC data not found at {path}")
    frame = pl.read_csv(path)
    return frame.select(EIA_COLUMNS) if name == "EIA.csv" else frame


@pytest.mark.parametrize("name", ["Tarragona.csv", "CASCrefmicrodata.csv"])
def test_mdav_matches_published_il_at_k3(shared_data: Path, name: str) -> None:
    frame = _casc(shared_data, name)
    result = Microaggregation(k=3).fit(frame)
    published, pinned = CASC_IL[(name, 3)]
    assert result.il == pytest.approx(published, abs=0.005)
    assert result.il == pytest.approx(pinned, abs=5e-5)
    assert result.min_group_size == 3


@pytest.mark.slow
@pytest.mark.parametrize(("name", "k"), list(CASC_IL))
def test_mdav_matches_published_il_on_casc(shared_data: Path, name: str, k: int) -> None:
    frame = _casc(shared_data, name)
    result = Microaggregation(k=k).fit(frame)
    published, pinned = CASC_IL[(name, k)]
    assert result.il == pytest.approx(published, abs=0.005)
    assert result.il == pytest.approx(pinned, abs=5e-5)
    z = standardize(frame.to_numpy())
    assert result.groups.tolist() == naive_mdav(z, k).tolist()


# -- univariate ---------------------------------------------------------------------------


def test_univariate_golden_case() -> None:
    # Sorted: 1 (#1), 2 (#3), 3 (#4) | 4 (#2), 5 (#0), 7 (#6), 9 (#5): the remainder of
    # 7 mod 3 = 1 joins the last group.
    result = Microaggregation(k=3, method="univariate").fit([5, 1, 4, 2, 3, 9, 7])
    assert result.groups.tolist() == [1, 0, 1, 0, 0, 1, 1]
    assert result.values.ravel().tolist() == [6.25, 2.0, 6.25, 2.0, 2.0, 6.25, 6.25]
    assert (result.n_groups, result.min_group_size, result.max_group_size) == (2, 3, 4)


def test_univariate_is_stable_and_breaks_ties_with_later_columns() -> None:
    assert univariate_groups([1, 1, 1, 1], 2).tolist() == [0, 0, 1, 1]
    table = [[1, 9], [1, 0], [0, 5], [1, 5]]
    # Order by first column, then second: #2 (0,5), #1 (1,0), #3 (1,5), #0 (1,9).
    assert univariate_groups(table, 1).tolist() == [3, 1, 0, 2]


# -- GMM ----------------------------------------------------------------------------------


def test_repair_moves_small_groups_to_the_nearest_centroid() -> None:
    z = np.array([[0.0], [0.1], [0.2], [5.0], [9.0], [9.1], [9.2], [4.0]])
    # Group 1 = {5.0, 4.0} is too small for k = 3: 5.0 is nearer 9.1, 4.0 nearer 0.1.
    assert repair_small_groups(z, [0, 0, 0, 1, 2, 2, 2, 1], 3).tolist() == [
        0,
        0,
        0,
        1,
        1,
        1,
        1,
        0,
    ]
    # A record equally near two centroids goes to the lower group id.
    z = np.array([[0.0], [0.0], [1.0], [2.0], [2.0]])
    assert repair_small_groups(z, [0, 0, 1, 2, 2], 2).tolist() == [0, 0, 0, 1, 1]
    # Groups dissolve one after the other; one group left stops the repair.
    z = np.array([[0.0], [2.0], [1.0]])
    assert repair_small_groups(z, [0, 1, 2], 2).tolist() == [0, 0, 0]
    assert repair_small_groups(np.zeros((2, 1)), [0, 1], 5).tolist() == [0, 0]


def test_gmm_separates_clear_clusters() -> None:
    rng = np.random.default_rng(0)
    centers = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    table = np.repeat(centers, 20, axis=0) + rng.normal(scale=0.1, size=(60, 2))
    result = Microaggregation(k=5, method="gmm", n_components=3).fit(table)
    assert result.n_groups == 3
    assert sorted(result.group_sizes.tolist()) == [20, 20, 20]
    assert result.il < 1.0


def test_gmm_without_scikit_learn_names_the_study_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.mixture", None)
    with pytest.raises(ImportError, match=r"anonkit\[study\]"):
        Microaggregation(k=2, method="gmm").fit(np.arange(10.0))


def test_importing_microaggregation_does_not_import_scikit_learn() -> None:
    code = (
        "import sys, anonkit.algorithms.microaggregation as m; "
        "m.microaggregate([[1.0], [2.0], [3.0]], k=2); "
        "print('sklearn' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"


# -- aggregates and loss functions --------------------------------------------------------


def test_aggregates() -> None:
    x = np.array([[3, 1.0], [1, 1.0], [1, 2.0], [2, 8.0], [2, 3.0], [5, 0.0]])
    groups = [0, 0, 0, 0, 0, 1]
    # Group 0, column 0: 3, 1, 1, 2, 2 -> mode 1 (1 and 2 tie: smallest), lower median 2.
    assert group_aggregates(x, groups, "mode").tolist() == [[1.0, 1.0], [5.0, 0.0]]
    assert group_aggregates(x, groups, "median").tolist() == [[2.0, 2.0], [5.0, 0.0]]
    assert group_aggregates(x, groups, ["mean", "median"]).tolist() == [[1.8, 2.0], [5.0, 0.0]]
    # Lower median of an even-sized group is a value of the group.
    assert group_aggregates([4, 1, 3, 2], [0, 0, 0, 0], "median").tolist() == [[2.0]]
    assert aggregate([1, 2, 6, 10], [0, 0, 1, 1]).ravel().tolist() == [1.5, 1.5, 8.0, 8.0]
    with pytest.raises(UnknownNameError, match="'max'"):
        group_aggregates(x, groups, "max")


def test_loss_functions() -> None:
    x = [[0.0], [2.0], [10.0], [14.0]]
    assert sse(x, [0, 0, 1, 1], standardize=False) == 10.0
    assert sst(x, standardize=False) == 131.0
    assert information_loss(x, [0, 0, 1, 1]) == pytest.approx(1000 / 131)
    assert information_loss(x, [0, 1, 2, 3]) == 0.0
    assert information_loss(x, [0, 0, 0, 0]) == pytest.approx(100.0)
    # Standardized IL ignores the units of each attribute.
    table = np.random.default_rng(1).standard_normal((30, 3))
    groups = np.arange(30) % 7
    scaled = table * [1.0, 1e3, 1e-2] + [5.0, -7.0, 0.0]
    assert information_loss(scaled, groups) == pytest.approx(information_loss(table, groups))
    # Constant records: SST = 0 and IL is defined as 0.
    assert information_loss(np.ones((4, 2)), [0, 0, 1, 1]) == 0.0
    # sst of standardized data is n times the number of non-constant attributes.
    assert sst(np.column_stack([table, np.ones(30)])) == pytest.approx(90.0)
    with pytest.raises(ParameterError, match="'groups'"):
        sse(x, [0, 1])


# -- the estimator: validation, frames, result --------------------------------------------


@pytest.mark.parametrize("k", [0, -1, True, 2.5, "3", None])
def test_bad_k_is_a_parameter_error(k: Any) -> None:
    with pytest.raises(ParameterError, match="'k' parameter of Microaggregation") as info:
        Microaggregation(k=k).fit(np.arange(10.0))
    assert info.value.parameter == "k"


def test_k_larger_than_the_table_is_a_parameter_error() -> None:
    with pytest.raises(ParameterError, match=r"'k' .* <= the number of records \(4\)"):
        Microaggregation(k=5).fit(np.arange(4.0))


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"method": "kmeans"}, UnknownNameError, "microaggregation method 'kmeans'"),
        ({"aggregate": "max"}, UnknownNameError, "aggregate 'max'"),
        ({"aggregate": {"x0": "sum"}}, UnknownNameError, "aggregate 'sum'"),
        ({"aggregate": {"nope": "mode"}}, UnknownColumnError, "'nope'"),
        ({"aggregate": 3}, ParameterError, "'aggregate'"),
        ({"standardize": "yes"}, ParameterError, "'standardize'"),
        ({"random_state": 1.5}, ParameterError, "'random_state'"),
        ({"n_components": 0}, ParameterError, "'n_components'"),
        ({"n_components": 50}, ParameterError, "'n_components'"),
        ({"covariance_type": "round"}, UnknownNameError, "covariance type 'round'"),
    ],
)
def test_bad_parameters(params: dict[str, object], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        Microaggregation(k=2, **params).fit(np.arange(10.0))


def test_bad_data() -> None:
    frame = pl.DataFrame({"a": [1.0, None, 3.0, float("nan")], "b": ["x", "y", "z", "w"]})
    with pytest.raises(MissingValuesError, match="'a' has 2 missing") as info:
        Microaggregation(k=2).fit(frame, columns=["a"])
    assert (info.value.column, info.value.count) == ("a", 2)
    with pytest.raises(DataError, match="Column 'b' is not numeric"):
        Microaggregation(k=2).fit(frame, columns=["b"])
    with pytest.raises(DataError, match="Column 'b' is not numeric"):
        Microaggregation(k=2).fit(pd.DataFrame({"b": ["x", "y"]}), columns=["b"])
    with pytest.raises(DataError, match="Column 'x1' is not numeric"):
        Microaggregation(k=2).fit(np.array([[1, "a"], [2, "b"]], dtype=object))
    with pytest.raises(MissingValuesError, match="'x0' has 1 missing"):
        Microaggregation(k=2).fit(np.array([[1, 2], [None, 3]], dtype=object))
    with pytest.raises(UnknownColumnError, match="'c'"):
        Microaggregation(k=2).fit(frame, columns=["c"])
    with pytest.raises(DataError, match="infinite"):
        Microaggregation(k=1).fit(np.array([1.0, np.inf]))
    with pytest.raises(EmptyDataError):
        Microaggregation(k=1).fit(np.zeros((0, 2)))
    with pytest.raises(ParameterError, match="'columns'"):
        Microaggregation(k=1).fit(np.zeros((3, 2)), columns=["only_one"])
    pandas_nullable = pd.DataFrame({"a": pd.array([1, 1, 3], dtype="Int64")})
    mode = Microaggregation(k=3, aggregate="mode").fit(pandas_nullable)
    assert mode.release(pandas_nullable)["a"].tolist() == [1, 1, 1]
    assert str(mode.release(pandas_nullable)["a"].dtype) == "Int64"
    pandas_missing = pd.DataFrame({"a": pd.array([1, None, 3], dtype="Int64")})
    with pytest.raises(MissingValuesError, match="'a' has 1 missing"):
        Microaggregation(k=1).fit(pandas_missing)


@pytest.mark.parametrize("kind", ["polars", "polars-unsigned", "pandas", "numpy", "object"])
def test_integers_beyond_float_precision_are_refused(kind: str) -> None:
    """Distances and aggregates are computed in float64, where integers past 2**53 are
    rounded: groups would be formed on rounded values, and a median or mode released as
    a value of the data could be a value no record holds (2**62 - 5 shown as 2**62)."""
    big = [2**62 - i for i in range(6)]
    data: Any = {
        "polars": pl.DataFrame({"x": pl.Series(big, dtype=pl.Int64)}),
        "polars-unsigned": pl.DataFrame({"x": pl.Series(big, dtype=pl.UInt64)}),
        "pandas": pd.DataFrame({"x": np.array(big, dtype=np.int64)}),
        "numpy": np.array(big, dtype=np.int64),
        "object": np.array([*big[:-1], 1.5], dtype=object),
    }[kind]
    name = "x0" if kind in ("numpy", "object") else "x"
    with pytest.raises(DataError, match=rf"'{name}'.*2\*\*53") as caught:
        Microaggregation(k=3, aggregate="median").fit(data)
    assert str(big[0]) not in str(caught.value)  # no record value in the message
    negative = np.array([-(2**53) - 2, 0, 1], dtype=np.int64)
    with pytest.raises(DataError, match=r"2\*\*53"):
        Microaggregation(k=1).fit(negative)
    # integers a float64 holds exactly are aggregated as before, medians staying data values
    ok = pl.DataFrame({"x": pl.Series([2**53 - i for i in range(6)], dtype=pl.Int64)})
    res = Microaggregation(k=3, aggregate="median").fit(ok)
    assert res.release(ok)["x"].to_list() == [2**53 - 1] * 3 + [2**53 - 4] * 3


@pytest.mark.parametrize("method", ["mdav", "univariate"])
def test_values_whose_sums_would_overflow_are_refused(method: str) -> None:
    """Means of 1e308 and 1e308 were released as inf, the loss measured as nan."""
    frame = pl.DataFrame({"x": [1e308, -1e308] * 4, "y": [1.0, 2, 3, 4, 5, 6, 7, 8]})
    with pytest.raises(DataError, match=r"'x'.*overflow") as caught:
        Microaggregation(k=2, method=method).fit(frame)
    assert "1e+308" not in str(caught.value)
    # values far from the bound are aggregated as before
    res = Microaggregation(k=2, method=method).fit(frame.with_columns(pl.col("x") * 1e-200))
    assert np.isfinite(res.values).all() and np.isfinite(res.il)


def test_frames_in_frames_out() -> None:
    frame = pl.DataFrame(
        {
            "id": ["a", "b", "c", "d", "e", "f"],
            "age": [20, 22, 21, 50, 52, 51],
            "level": [1, 1, 2, 3, 3, 3],
        }
    )
    model = Microaggregation(k=3, aggregate={"level": "mode"})
    result = model.fit(frame, columns=["age", "level"])
    assert result.aggregates == ("mean", "mode")
    released = result.release(frame)
    assert isinstance(released, pl.DataFrame)
    assert released["id"].to_list() == frame["id"].to_list()
    assert released["age"].to_list() == [21.0] * 3 + [51.0] * 3
    assert released["level"].to_list() == [1, 1, 1, 3, 3, 3]
    assert released.schema["level"] == pl.Int64
    pandas_frame = pd.DataFrame({c: frame[c].to_list() for c in frame.columns})
    same = model.fit(pandas_frame, columns=["age", "level"])
    assert np.array_equal(same.groups, result.groups)
    out = same.release(pandas_frame)
    assert isinstance(out, pd.DataFrame)
    assert out["level"].tolist() == [1, 1, 1, 3, 3, 3]
    assert out["level"].dtype == pandas_frame["level"].dtype
    assert pandas_frame["age"].tolist() == [20, 22, 21, 50, 52, 51]  # input untouched
    array = np.array([[20.0], [22.0], [21.0]])
    assert Microaggregation(k=3).fit(array).release(array).ravel().tolist() == [21.0] * 3


def test_result_is_frozen_and_serializable() -> None:
    result = microaggregate(HAND, k=2, columns=["a", "b"])
    assert isinstance(result, MicroaggregationResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(result, "il", 0.0)  # noqa: B010
    with pytest.raises(ValueError, match="read-only"):
        result.groups[0] = 5
    with pytest.raises(ValueError, match="read-only"):
        result.values[0, 0] = 5.0
    data = json.loads(json.dumps(result.to_dict()))
    assert data["columns"] == ["a", "b"]
    assert data["metrics"]["il"] == pytest.approx(result.il)
    assert data["min_group_size"] == 2
    assert set(data["timing"]) == {"partition", "aggregate", "metrics", "total"}
    assert result.group_sizes.tolist() == [2, 2, 2, 3]
    assert result.metrics == {"sse": result.sse, "sst": result.sst, "il": result.il}


def test_parameters_are_stored_unchanged() -> None:
    model = Microaggregation(k=0, method="nope", aggregate={"a": "mode"})
    assert model.get_params()["k"] == 0
    assert model.get_params()["aggregate"] == {"a": "mode"}
    assert "method='nope'" in repr(model)


@pytest.mark.parametrize("method", ["mdav", "gmm"])
def test_methods_refuse_tables_beyond_their_size_limit(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anonkit.algorithms.microaggregation import estimator as module

    values = np.arange(40, dtype=np.float64).reshape(20, 2)
    monkeypatch.setitem(module.SIZE_LIMITS, method, 19)
    with pytest.raises(ParameterError, match="'univariate' for a table of 20 records") as info:
        Microaggregation(k=2, method=method, random_state=0).fit(values)
    assert str(info.value).count(". ") <= 1  # one sentence
    monkeypatch.setitem(module.SIZE_LIMITS, method, 20)
    fitted = Microaggregation(k=2, method=method, random_state=0).fit(values)
    assert np.bincount(fitted.groups).min() >= 2
    univariate = Microaggregation(k=2, method="univariate").fit(values[:, :1])
    assert np.bincount(univariate.groups).min() >= 2
