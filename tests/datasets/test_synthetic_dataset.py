"""The generated census-like dataset: determinism, schema, hierarchies, model and signal."""

from __future__ import annotations

import re
import time

import numpy as np
import numpy.typing as npt
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import anonkit
from anonkit.core.hierarchy_builders import intervals, masking
from anonkit.core.values import as_text
from anonkit.datasets import synthetic as syn
from anonkit.datasets import synthetic_model
from anonkit.datasets.synthetic import (
    SYNTHETIC_COLUMNS,
    SYNTHETIC_NUMERIC,
    SYNTHETIC_QUASI_IDENTIFIERS,
    SYNTHETIC_TARGET,
    load_synthetic,
    synthetic_hierarchies,
    synthetic_probability,
)
from anonkit.exceptions import ParameterError, UnknownColumnError, ValuesNotInHierarchyError

CATEGORICAL = [c for c in SYNTHETIC_QUASI_IDENTIFIERS if c not in SYNTHETIC_NUMERIC]


@pytest.fixture(scope="module")
def big() -> pl.DataFrame:
    """The default table (50,000 records, seed 0)."""
    frame, _ = load_synthetic()
    return frame


def _index(frame: pl.DataFrame, column: str, labels: tuple[str, ...]) -> npt.NDArray[np.int64]:
    return frame[column].replace_strict(list(labels), list(range(len(labels)))).to_numpy()


# --------------------------------------------------------------------------- shape
def test_same_seed_gives_the_same_table() -> None:
    a, ha = load_synthetic(n=2000, seed=3)
    b, hb = load_synthetic(n=2000, seed=3)
    assert a.equals(b)
    assert ha == hb


def test_another_seed_gives_another_table() -> None:
    a, _ = load_synthetic(n=500, seed=0)
    b, _ = load_synthetic(n=500, seed=1)
    assert not a.equals(b)


def test_default_shape_columns_and_dtypes(big: pl.DataFrame) -> None:
    assert big.shape == (50_000, 9)
    assert tuple(big.columns) == SYNTHETIC_COLUMNS
    assert SYNTHETIC_QUASI_IDENTIFIERS == SYNTHETIC_COLUMNS[:-1]
    assert SYNTHETIC_TARGET == SYNTHETIC_COLUMNS[-1]
    for column in SYNTHETIC_COLUMNS:
        expected = pl.Int64 if column in SYNTHETIC_NUMERIC else pl.String
        assert big.schema[column] == expected, column
    assert big.null_count().row(0) == (0,) * 9
    assert set(big[SYNTHETIC_TARGET].unique()) == {"<=50K", ">50K"}
    # documented: about 28 % positive, almost every record unique on the QIs
    assert 0.26 < (big[SYNTHETIC_TARGET] == ">50K").mean() < 0.30  # type: ignore[operator]
    assert big.select(SYNTHETIC_QUASI_IDENTIFIERS).n_unique() > 0.99 * big.height


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"n": 0}, "n"),
        ({"n": -5}, "n"),
        ({"n": 1.5}, "n"),
        ({"n": True}, "n"),
        ({"n": "10"}, "n"),
        ({"seed": -1}, "seed"),
        ({"seed": 1.0}, "seed"),
        ({"seed": None}, "seed"),
    ],
)
def test_bad_parameters_are_refused(kwargs: dict[str, object], parameter: str) -> None:
    with pytest.raises(ParameterError) as info:
        load_synthetic(**kwargs)  # type: ignore[arg-type]
    assert info.value.parameter == parameter
    assert "load_synthetic" in str(info.value)


def test_one_record() -> None:
    frame, _ = load_synthetic(n=1)
    assert frame.shape == (1, 9)


# --------------------------------------------------------------------- hierarchies
@given(n=st.integers(1, 300), seed=st.integers(0, 2**32 - 1))
def test_every_value_is_a_leaf_of_its_hierarchy(n: int, seed: int) -> None:
    frame, hierarchies = load_synthetic(n=n, seed=seed)
    assert set(hierarchies) == set(SYNTHETIC_QUASI_IDENTIFIERS)
    for column in SYNTHETIC_QUASI_IDENTIFIERS:
        leaves = set(hierarchies[column].leaves)
        values = set(as_text(frame[column]).to_list())
        assert values <= leaves, column


def test_hierarchies_cover_the_whole_domain() -> None:
    h = synthetic_hierarchies()
    assert list(h) == list(SYNTHETIC_QUASI_IDENTIFIERS)
    assert h["age"].leaves == tuple(str(a) for a in range(17, 91))
    assert h["hours-per-week"].leaves == tuple(str(x) for x in range(1, 100))
    zips = h["zip"].leaves
    assert len(zips) == len(set(zips)) == 288
    assert all(len(z) == 5 and z.isdigit() and z[0] in "123456" for z in zips)
    assert h["sex"].leaves == ("Female", "Male")
    assert len(h["education"].leaves) == 10
    assert len(h["occupation"].leaves) == 12
    heights = {c: x.height for c, x in h.items()}
    assert heights == {
        "age": 5,
        "sex": 2,
        "zip": 6,
        "marital-status": 3,
        "education": 4,
        "occupation": 3,
        "workclass": 3,
        "hours-per-week": 5,
    }
    for column, hierarchy in h.items():
        assert hierarchy.name == column
        assert hierarchy.labels(hierarchy.max_level) == ("*",)


def test_numeric_hierarchies_are_intervals_and_zip_is_masked() -> None:
    h = synthetic_hierarchies()
    assert h["age"] == intervals(range(17, 91), [5, 10, 20], start=0)
    assert h["hours-per-week"] == intervals(range(1, 100), [5, 10, 20], start=0)
    assert h["zip"] == masking(h["zip"].leaves, levels=4)
    assert h["age"].rows[30] == ("47", "[45-50[", "[40-50[", "[40-60[", "*")
    assert h["zip"].generalize("64678", 2) == "646**"


def test_categorical_groupings() -> None:
    h = synthetic_hierarchies()
    assert h["education"].generalize("Bachelors", 1) == "Undergraduate"
    assert h["education"].generalize("Bachelors", 2) == "Tertiary"
    assert h["education"].generalize("Vocational", 2) == "Non-tertiary"
    assert h["occupation"].generalize("Protective-service", 1) == "Service"
    assert h["marital-status"].generalize("Cohabiting", 1) == "Partnered"
    assert h["workclass"].generalize("Self-emp-inc", 1) == "Self-employed"
    assert h["occupation"].leaf_counts(1).tolist() == [3, 3, 3, 3]


# ----------------------------------------------------------- the documented model
def _doc_table(header: str) -> dict[str, list[str]]:
    """Rows of the model's RST table (docstring of :mod:`anonkit.datasets.synthetic_model`)
    whose header starts with ``header``."""
    lines = [line.strip() for line in (synthetic_model.__doc__ or "").splitlines()]
    top = next(
        i
        for i, line in enumerate(lines[1:], start=1)
        if re.match(rf"{re.escape(header)}\s", line) and lines[i - 1].startswith("=")
    )
    rows: dict[str, list[str]] = {}
    for line in lines[top + 2 :]:
        if line.startswith("="):
            break
        if header == "age":  # "17 - 24  0.05 ..." : the band is three tokens
            fields = line.split()
            rows[" ".join(fields[:3])] = fields[3:]
        else:
            name, *rest = line.split()
            rows[name] = rest
    return rows


def test_docstring_tables_match_the_parameters() -> None:
    education = _doc_table("education")
    assert list(education) == list(syn.EDUCATION)
    for i, (level, share, beta) in enumerate(education.values()):
        assert (level, float(share), float(beta)) == (
            syn.EDUCATION_LEVEL[i],
            syn.EDUCATION_P[i],
            syn.BETA_EDUCATION[i],
        )
    occupation = _doc_table("occupation")
    assert list(occupation) == list(syn.OCCUPATION)
    for i, (group, share, skill, beta) in enumerate(occupation.values()):
        assert (group, float(share), float(skill), float(beta)) == (
            syn.OCCUPATION_GROUPS[i // 3],
            syn.OCCUPATION_P[i],
            syn.OCCUPATION_SKILL[i],
            syn.BETA_OCCUPATION[i],
        )
    workclass = _doc_table("workclass")
    assert list(workclass) == list(syn.WORKCLASS)
    for i, (sector, share, beta) in enumerate(workclass.values()):
        assert (sector, float(share), float(beta)) == (
            syn.WORKCLASS_SECTOR[i],
            syn.WORKCLASS_P[i],
            syn.BETA_WORKCLASS[i],
        )
    marital = _doc_table("age")
    assert list(marital) == ["17 - 24", "25 - 34", "35 - 49", "50 - 64", "65 - 90"]
    assert [tuple(float(x) for x in row) for row in marital.values()] == list(syn.MARITAL_P)
    for p in (syn.EDUCATION_P, syn.OCCUPATION_P, syn.WORKCLASS_P, syn.REGION_P, syn.AREA_P):
        assert sum(p) == pytest.approx(1.0)
    assert all(sum(row) == pytest.approx(1.0) for row in syn.MARITAL_P)


def test_marginals_follow_the_model(big: pl.DataFrame) -> None:
    assert (big["sex"] == "Male").mean() == pytest.approx(0.5, abs=0.01)
    region = big["zip"].str.slice(0, 1).cast(pl.Int64).to_numpy()
    shares = np.bincount(region, minlength=7)[1:] / big.height
    np.testing.assert_allclose(shares, syn.REGION_P, atol=0.01)
    assert set(big["zip"].str.slice(1, 2).unique()) == set(syn.AREA_CODES)
    age = big["age"].to_numpy()
    assert age.min() >= 17 and age.max() <= 90
    assert 40 < age.mean() < 44  # documented "mean about 42"
    hours = big["hours-per-week"].to_numpy()
    assert hours.min() >= 1 and hours.max() <= 99
    assert (hours == 40).mean() > 0.4
    education = _index(big, "education", syn.EDUCATION)
    assert education[age <= 21].max() <= 4
    assert education[(age >= 22) & (age <= 24)].max() <= 6
    marital = _index(big, "marital-status", syn.MARITAL)
    band = np.searchsorted(np.asarray(syn.MARITAL_BAND_EDGES), age, side="right")
    for b, row in enumerate(syn.MARITAL_P):
        observed = np.bincount(marital[band == b], minlength=6) / (band == b).sum()
        np.testing.assert_allclose(observed, row, atol=0.03)


def test_probability_is_calibrated(big: pl.DataFrame) -> None:
    p = synthetic_probability(big)
    y = (big[SYNTHETIC_TARGET] == ">50K").to_numpy()
    assert p.shape == (big.height,)
    assert abs(p.mean() - y.mean()) < 0.01
    bins = np.minimum((p * 10).astype(int), 9)
    for b in range(10):
        chosen = bins == b
        if chosen.sum() >= 500:
            assert abs(y[chosen].mean() - p[chosen].mean()) < 0.03, b
    bayes = np.maximum(p, 1 - p).mean()
    assert bayes == pytest.approx(0.867, abs=0.005)  # the documented figure


def test_probability_depends_on_fine_levels() -> None:
    frame, _ = load_synthetic(n=1, seed=0)
    base = synthetic_probability(frame)[0]
    # two zips of the same area, other sub-area: only nu differs
    row = frame.row(0, named=True)
    z = row["zip"]
    other = next(
        x for x in synthetic_hierarchies()["zip"].leaves if x[:3] == z[:3] and x[3] != z[3]
    )
    moved = frame.with_columns(pl.lit(other).alias("zip"))
    assert synthetic_probability(moved)[0] != base
    # same education level, other degree: only beta_e differs
    swap = {"Some-college": "Bachelors", "Bachelors": "Some-college", "Associate": "Bachelors"}
    degree = swap.get(row["education"], row["education"])
    changed = frame.with_columns(pl.lit(degree).alias("education"))
    assert (synthetic_probability(changed)[0] != base) == (degree != row["education"])


def test_probability_rejects_foreign_tables() -> None:
    frame, _ = load_synthetic(n=20, seed=0)
    with pytest.raises(UnknownColumnError):
        synthetic_probability(frame.drop("zip"))
    with pytest.raises(ValuesNotInHierarchyError):
        synthetic_probability(frame.with_columns(pl.lit("Astronaut").alias("occupation")))
    with pytest.raises(ValuesNotInHierarchyError):
        synthetic_probability(frame.with_columns(pl.lit(120).alias("age")))


# ------------------------------------------------------------------------- signal
def _one_hot_accuracy(frame: pl.DataFrame, levels: dict[str, int]) -> float:
    """5-fold accuracy of a logistic regression on the QIs one-hot at the given levels."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.preprocessing import OneHotEncoder

    hierarchies = synthetic_hierarchies()
    columns = []
    for c in SYNTHETIC_QUASI_IDENTIFIERS:
        h = hierarchies[c]
        level = levels.get(c, 0)
        labels = [h.generalize(leaf, level) for leaf in h.leaves]
        columns.append(as_text(frame[c]).replace_strict(list(h.leaves), labels).to_numpy())
    x = OneHotEncoder(handle_unknown="ignore").fit_transform(np.column_stack(columns))
    y = (frame[SYNTHETIC_TARGET] == ">50K").to_numpy()
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    scores = cross_val_score(LogisticRegression(solver="liblinear"), x, y, cv=cv)
    return float(scores.mean())


def test_signal_survives_coarse_levels_and_is_lost_by_generalization() -> None:
    pytest.importorskip("sklearn")
    frame, hierarchies = load_synthetic(n=3000, seed=0)
    y = (frame[SYNTHETIC_TARGET] == ">50K").to_numpy()
    majority = max(y.mean(), 1 - y.mean())
    original = _one_hot_accuracy(frame, {})
    coarse = _one_hot_accuracy(frame, {c: h.max_level - 1 for c, h in hierarchies.items()})
    assert original >= majority + 0.08  # clearly above the majority class
    assert coarse >= majority + 0.04  # coarse levels keep signal ...
    assert original >= coarse + 0.01  # ... but generalizing costs accuracy


# --------------------------------------------------------------------- algorithms
@pytest.mark.parametrize(
    ("algorithm", "options"),
    [
        ("flash", {}),
        ("mondrian", {"numeric": list(SYNTHETIC_NUMERIC)}),
        ("greedy_merge", {}),
        ("microaggregation", {"method": "mdav"}),
    ],
)
def test_every_algorithm_runs(algorithm: str, options: dict[str, object]) -> None:
    frame, hierarchies = load_synthetic(n=600, seed=0)
    k = 10
    # microaggregation aggregates every quasi-identifier: the numeric ones are the QIs
    qi = SYNTHETIC_NUMERIC if algorithm == "microaggregation" else SYNTHETIC_QUASI_IDENTIFIERS
    result = anonkit.anonymize(
        frame,
        quasi_identifiers=list(qi),
        hierarchies=hierarchies,
        k=k,
        algorithm=algorithm,
        others="keep",
        **options,  # type: ignore[arg-type]
    )
    release = result.release
    assert isinstance(release, pl.DataFrame)
    assert release.shape == frame.shape
    assert release[SYNTHETIC_TARGET].equals(frame[SYNTHETIC_TARGET])
    if algorithm == "microaggregation":
        # the numeric QIs are aggregated: groups of at least k on them
        sizes = release.group_by(list(SYNTHETIC_NUMERIC)).len()["len"]
        assert sizes.min() >= k  # type: ignore[operator]
        assert release.select(CATEGORICAL).equals(frame.select(CATEGORICAL))
    else:
        assert result.classes.min_size >= k
        sizes = release.group_by(list(SYNTHETIC_QUASI_IDENTIFIERS)).len()["len"]
        assert sizes.min() >= k  # type: ignore[operator]


@pytest.mark.slow
def test_generation_is_fast() -> None:
    load_synthetic(n=1000)  # warm the hierarchy cache and imports
    best = min(_timed() for _ in range(3))
    assert best <= 1.0


def _timed() -> float:
    t0 = time.perf_counter()
    load_synthetic(n=50_000, seed=0)
    return time.perf_counter() - t0
