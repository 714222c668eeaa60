"""Local suppression: releases checked by an independent pandas group-by with ``*`` literal.

A stand-in distinct ℓ-diversity model, written here against the model contract of
``anonkit.models.base``, keeps these tests independent of the real ℓ-diversity models.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar
from unittest import mock

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit._arrays import BoolArray
from anonkit.algorithms.local_suppression import (
    SensitiveArray,
    suppress_cells,
    suppress_codes,
)
from anonkit.algorithms.local_suppression import keys as local_suppression_keys
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import (
    EmptyDataError,
    MissingValuesError,
    ParameterError,
    PrivacyUnattainableError,
    UnknownColumnError,
)
from anonkit.models import KAnonymity
from anonkit.models.base import SENSITIVE_HISTOGRAM, ClassSummary

STAR = "*"


@dataclass(frozen=True)
class StandInDistinctL:
    """Distinct ℓ-diversity: every class holds at least ``l`` sensitive values."""

    attribute: str
    l: int  # noqa: E741 - the paper's name

    requires: ClassVar[frozenset[str]] = frozenset({SENSITIVE_HISTOGRAM})
    monotone_generalization: ClassVar[bool] = True
    monotone_suppression: ClassVar[bool] = True
    class_local: ClassVar[bool] = True

    def violations(self, classes: ClassSummary) -> BoolArray:
        hist = classes.sensitive[self.attribute].histogram
        return np.asarray((hist > 0).sum(axis=1) < self.l)

    def describe(self) -> str:
        return f"distinct {self.l}-diversity on {self.attribute}"

    @property
    def sensitive_attributes(self) -> tuple[str, ...]:
        return (self.attribute,)

    @property
    def min_class_size(self) -> int:
        return self.l


@dataclass(frozen=True)
class TableLevel:
    """A model whose verdict is not class-local (refused by local suppression)."""

    requires: ClassVar[frozenset[str]] = frozenset({"class_size"})
    monotone_generalization: ClassVar[bool] = False
    monotone_suppression: ClassVar[bool] = False
    class_local: ClassVar[bool] = False

    def violations(self, classes: ClassSummary) -> BoolArray:
        return np.zeros(classes.n_classes, dtype=bool)

    def describe(self) -> str:
        return "table level"

    @property
    def sensitive_attributes(self) -> tuple[str, ...]:
        return ()

    @property
    def min_class_size(self) -> int:
        return 1


# --------------------------------------------------------------------------- oracles


def _pandas(frame: pl.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({c: frame[c].to_list() for c in frame.columns})


def _class_stats(df: pd.DataFrame, qi: list[str], sensitive: str | None) -> pd.DataFrame:
    """Size (and distinct sensitive values) of each class, ``*`` a literal value."""
    grouped = df.groupby(qi, sort=False, dropna=False)
    out = grouped.size().to_frame("size")
    if sensitive is not None:
        out["distinct"] = grouped[sensitive].nunique(dropna=False)
    return out


def _violating_records(
    df: pd.DataFrame, qi: list[str], k: int, sensitive: str | None, ell: int | None
) -> np.ndarray:
    stats = _class_stats(df, qi, sensitive)
    bad = stats["size"] < k
    if sensitive is not None and ell is not None:
        bad |= stats["distinct"] < ell
    keys = pd.MultiIndex.from_frame(df[qi])
    return np.asarray(bad.reindex(keys).to_numpy(), dtype=bool)


def _all_star(df: pd.DataFrame, qi: list[str]) -> np.ndarray:
    return np.asarray((df[qi] == STAR).all(axis=1).to_numpy(), dtype=bool)


def _assert_private(
    release: pl.DataFrame,
    qi: list[str],
    k: int,
    sensitive: str | None = None,
    ell: int | None = None,
    *,
    judge_suppressed: bool = False,
) -> None:
    df = _pandas(release)
    if not judge_suppressed:
        df = df[~_all_star(df, qi)]
    if not len(df):
        return
    stats = _class_stats(df, qi, sensitive)
    assert int(stats["size"].min()) >= k
    if sensitive is not None and ell is not None:
        assert int(stats["distinct"].min()) >= ell


# --------------------------------------------------------------------------- strategies


@st.composite
def tables(draw: st.DrawFn) -> tuple[pl.DataFrame, list[str], int, int | None]:
    q = draw(st.integers(1, 4))
    n = draw(st.integers(1, 40))
    qi = [f"q{j}" for j in range(q)]
    columns: dict[str, list[str]] = {}
    for c in qi:
        alphabet = [f"{c}v{i}" for i in range(draw(st.integers(1, 4)))]
        cells = (
            st.one_of(st.sampled_from(alphabet), st.just(STAR))
            if draw(st.booleans())
            else st.sampled_from(alphabet)
        )
        columns[c] = draw(st.lists(cells, min_size=n, max_size=n))
    columns["s"] = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=n, max_size=n))
    columns["payload"] = [str(i) for i in range(n)]
    k = draw(st.integers(1, min(5, n)))
    ell = draw(st.sampled_from([None, None, 2, 3]))
    return pl.DataFrame(columns), qi, k, ell


def _models(ell: int | None) -> list[StandInDistinctL]:
    return [] if ell is None else [StandInDistinctL("s", ell)]


# --------------------------------------------------------------------------- properties


@given(tables(), st.booleans())
def test_release_is_private_and_only_violating_records_change(data, weighted) -> None:
    frame, qi, k, ell = data
    importance = {c: float(i + 1) for i, c in enumerate(qi)} if weighted else None
    release, res = suppress_cells(frame, qi, k=k, models=_models(ell), importance=importance)
    assert isinstance(release, pl.DataFrame)
    assert release.columns == frame.columns
    assert release.drop(qi).equals(frame.drop(qi))
    _assert_private(release, qi, k, "s" if ell else None, ell)

    before, after = _pandas(frame), _pandas(release)
    changed = (before[qi] != after[qi]).to_numpy()
    # only to '*', and only in records of classes that violated a model before
    assert (after[qi].to_numpy()[changed] == STAR).all()
    suppressed = _all_star(before, qi)
    violating = _violating_records(before, qi, k, "s" if ell else None, ell) & ~suppressed
    assert not changed[~violating].any()
    # the report counts exactly the cells that changed
    assert np.array_equal(res.suppressed, changed)
    assert dict(res.cells_per_attribute) == {c: int(changed[:, j].sum()) for j, c in enumerate(qi)}
    assert res.cells == int(changed.sum())
    assert res.records_touched == int(changed.any(axis=1).sum())
    assert res.records_suppressed == int((_all_star(after, qi) & ~suppressed).sum())
    # never worse than suppressing every quasi-identifier of every violating record
    assert res.cells <= len(qi) * int(violating.sum())
    if importance is None:
        assert res.cost == res.cells


@given(tables())
def test_row_keys_and_shallow_search_paths(data) -> None:
    """Keys by row sorting (no int64 room) decide alike; a depth-1 search stays correct."""
    frame, qi, k, ell = data
    release, res = suppress_cells(frame, qi, k=k, models=_models(ell))
    with mock.patch.object(local_suppression_keys, "_KEY_LIMIT", 1):
        by_rows, res_rows = suppress_cells(frame, qi, k=k, models=_models(ell))
    assert by_rows.equals(release)
    assert res_rows.cells == res.cells
    with mock.patch.object(local_suppression_keys, "_COMBO_BUDGET", 1):
        for judged in (False, True):
            try:
                shallow, _ = suppress_cells(
                    frame, qi, k=k, models=_models(ell), judge_suppressed=judged
                )
            except PrivacyUnattainableError:
                assert judged
                continue
            _assert_private(shallow, qi, k, "s" if ell else None, ell, judge_suppressed=judged)
            if not judged:
                before, after = _pandas(frame), _pandas(shallow)
                changed = (before[qi] != after[qi]).to_numpy()
                bad = _violating_records(before, qi, k, "s" if ell else None, ell)
                assert not changed[~(bad & ~_all_star(before, qi))].any()


@given(tables())
def test_judged_suppressed_class_is_private_or_unattainable(data) -> None:
    frame, qi, k, ell = data
    distinct = frame["s"].n_unique()
    attainable = frame.height >= k and (ell is None or distinct >= ell)
    if not attainable:
        with pytest.raises(PrivacyUnattainableError):
            suppress_cells(frame, qi, k=k, models=_models(ell), judge_suppressed=True)
        return
    release, res = suppress_cells(frame, qi, k=k, models=_models(ell), judge_suppressed=True)
    _assert_private(release, qi, k, "s" if ell else None, ell, judge_suppressed=True)
    before, after = _pandas(frame), _pandas(release)
    changed = (before[qi] != after[qi]).to_numpy()
    assert (after[qi].to_numpy()[changed] == STAR).all()
    assert res.cells == int(changed.sum())


@given(tables())
def test_frequency_snapshot_gives_the_same_release(data) -> None:
    frame, qi, k, ell = data
    codes = np.stack([frame[c].rank("dense").to_numpy().astype(np.int64) - 1 for c in qi], axis=1)
    s = frame["s"].rank("dense").to_numpy().astype(np.int64) - 1
    full = np.hstack([codes, s[:, None]])
    uniq, first, inverse, counts = np.unique(
        full, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    inverse = inverse.reshape(-1)
    kwargs = {"k": k, "models": _models(ell)}
    raw = suppress_codes(codes, sensitive={"s": SensitiveArray(s)}, **kwargs)
    snap = suppress_codes(
        uniq[:, :-1], weights=counts, sensitive={"s": SensitiveArray(uniq[:, -1])}, **kwargs
    )
    star = codes.max(axis=0) + 1
    assert np.array_equal(raw.codes, snap.codes[inverse])
    assert raw.cells == snap.cells
    assert dict(raw.cells_per_attribute) == dict(snap.cells_per_attribute)
    assert raw.records_touched == snap.records_touched
    assert ((raw.codes == star) | (raw.codes == codes)).all()


@given(tables())
def test_a_private_release_is_returned_unchanged(data) -> None:
    frame, qi, k, ell = data
    release, _ = suppress_cells(frame, qi, k=k, models=_models(ell))
    again, res = suppress_cells(release, qi, k=k, models=_models(ell))
    assert again.equals(release)
    assert res.cells == 0 and res.records_touched == 0 and res.rounds == 0
    assert set(res.cells_per_attribute.values()) == {0}


# --------------------------------------------------------------------------- golden cases

GOLDEN = pl.DataFrame(
    {
        "sex": ["m", "m", "m", "m", "f", "f", "f"],
        "zip": ["100", "100", "100", "100", "200", "200", "200"],
        "age": ["30", "30", "40", "50", "30", "30", "40"],
    }
)


def test_golden_hand_case() -> None:
    # (m,100,40) and (m,100,50) meet at (m,100,*) with one cell each; (f,200,40) differs
    # from every other violator in two attributes and has no class to join, so it is
    # suppressed: 5 cells, the fewest possible without touching the k-anonymous records.
    release, res = suppress_cells(GOLDEN, ["sex", "zip", "age"], k=2)
    assert release.rows() == [
        ("m", "100", "30"),
        ("m", "100", "30"),
        ("m", "100", "*"),
        ("m", "100", "*"),
        ("f", "200", "30"),
        ("f", "200", "30"),
        ("*", "*", "*"),
    ]
    assert dict(res.cells_per_attribute) == {"sex": 1, "zip": 1, "age": 3}
    assert (res.cells, res.records_touched, res.records_suppressed) == (5, 3, 1)
    assert res.privacy == ("2-anonymity",)
    assert res.to_dict()["cells"] == 5


def test_golden_hand_case_with_the_suppressed_class_judged() -> None:
    # the lone suppressed record needs a partner: the cheapest whole class, (m,100,*) with
    # 2 records x 2 open cells, joins it.
    release, res = suppress_cells(GOLDEN, ["sex", "zip", "age"], k=2, judge_suppressed=True)
    assert release.rows() == [
        ("m", "100", "30"),
        ("m", "100", "30"),
        ("*", "*", "*"),
        ("*", "*", "*"),
        ("f", "200", "30"),
        ("f", "200", "30"),
        ("*", "*", "*"),
    ]
    assert dict(res.cells_per_attribute) == {"sex": 3, "zip": 3, "age": 3}
    assert (res.cells, res.records_touched, res.records_suppressed) == (9, 3, 3)


def test_golden_l_diversity() -> None:
    # (a,x) and (a,y) are alone. Blanking p (importance 2) joins them to (*,x) and (*,y);
    # blanking r (importance 1) pools them at (a,*), which k=2 accepts. With distinct
    # 2-diversity on s, (a,*) would hold only 'flu': they join the diverse (*,x), (*,y).
    frame = pl.DataFrame(
        {
            "p": ["a", "a", "*", "*", "*", "*"],
            "r": ["x", "y", "x", "x", "y", "y"],
            "s": ["flu", "flu", "flu", "hiv", "flu", "hiv"],
        }
    )
    weights = {"p": 2.0}
    release, res = suppress_cells(frame, ["p", "r"], k=2, importance=weights)
    assert release["p"].to_list() == ["a", "a", "*", "*", "*", "*"]
    assert release["r"].to_list() == ["*", "*", "x", "x", "y", "y"]
    assert (res.cells, res.cost) == (2, 2.0)
    models = [StandInDistinctL("s", 2)]
    release, res = suppress_cells(frame, ["p", "r"], k=2, models=models, importance=weights)
    assert release["p"].to_list() == ["*"] * 6
    assert release["r"].to_list() == ["x", "y", "x", "x", "y", "y"]
    assert dict(res.cells_per_attribute) == {"p": 2, "r": 0}
    assert (res.cells, res.cost) == (2, 4.0)


def test_importance_moves_suppression_to_the_less_important_attribute() -> None:
    # (x1,y2) may join (*,y2) by blanking A or (x1,*) by blanking B: equally good.
    frame = pl.DataFrame(
        {
            "A": ["x1", "*", "*", "*", "x1", "x1", "x1"],
            "B": ["y2", "y2", "y2", "y2", "*", "*", "*"],
        }
    )
    _, keep_a = suppress_cells(frame, ["A", "B"], k=3, importance={"A": 5.0})
    assert dict(keep_a.cells_per_attribute) == {"A": 0, "B": 1}
    assert keep_a.cost == 1.0
    _, keep_b = suppress_cells(frame, ["A", "B"], k=3, importance=[1.0, 5.0])
    assert dict(keep_b.cells_per_attribute) == {"A": 1, "B": 0}


# --------------------------------------------------------------------------- Adult

ADULT_LEVELS = {
    "sex": 0,
    "age": 2,
    "race": 0,
    "marital-status": 1,
    "education": 1,
    "native-country": 1,
    "workclass": 1,
    "occupation": 1,
    "salary-class": 0,
}


@pytest.fixture(scope="module")
def adult_recoded(adult_frame, adult_hierarchies) -> pl.DataFrame:
    """Adult after a modest global recoding (released labels)."""
    columns = {}
    for c, level in ADULT_LEVELS.items():
        h = Hierarchy.from_csv(adult_hierarchies[c], name=c)
        leaf_to_label = dict(
            zip(h.leaves, (h.labels(level)[i] for i in h.codes(level)), strict=True)
        )
        columns[c] = [leaf_to_label[v] for v in adult_frame[c].to_list()]
    return pl.DataFrame(columns)


def test_adult_release_is_k_anonymous(adult_recoded) -> None:
    qi = list(ADULT_LEVELS)
    release, res = suppress_cells(adult_recoded, qi, k=5)
    _assert_private(release, qi, 5)
    before = _pandas(adult_recoded)
    violating = _violating_records(before, qi, 5, None, None)
    assert res.records_touched == int(violating.sum())  # every violating record, no other
    assert res.cells <= 2 * res.records_touched  # far below the q * records baseline
    pycanon = pytest.importorskip("pycanon.anonymity")
    kept = _pandas(release.filter(~pl.all_horizontal([pl.col(c) == STAR for c in qi])))
    assert pycanon.k_anonymity(kept.reset_index(drop=True), qi) >= 5


def test_adult_l_diverse_on_occupation(adult_recoded) -> None:
    qi = [c for c in ADULT_LEVELS if c != "occupation"]
    models = [StandInDistinctL("occupation", 2)]
    release, res = suppress_cells(adult_recoded, qi, k=3, models=models)
    _assert_private(release, qi, 3, "occupation", 2)
    before = _pandas(adult_recoded)
    violating = _violating_records(before, qi, 3, "occupation", 2)
    assert res.cells <= len(qi) * int(violating.sum())


def test_adult_importance_keeps_age(adult_recoded) -> None:
    qi = list(ADULT_LEVELS)
    _, plain = suppress_cells(adult_recoded, qi, k=5)
    _, keep_age = suppress_cells(adult_recoded, qi, k=5, importance={"age": 10.0})
    assert keep_age.cells_per_attribute["age"] < plain.cells_per_attribute["age"] / 2


# --------------------------------------------------------------------------- bad input


def test_pandas_in_pandas_out() -> None:
    frame = pd.DataFrame({"a": ["1", "1", "2"], "b": [1, 1, 2], "c": [0.5, 0.5, 0.5]})
    release, res = suppress_cells(frame, ["a", "b"], k=2)
    assert isinstance(release, pd.DataFrame)
    assert release["a"].tolist() == ["1", "1", "*"]
    assert release["b"].tolist() == ["1", "1", "*"]
    assert release["c"].tolist() == [0.5, 0.5, 0.5]
    assert res.cells == 2


def test_bad_parameters() -> None:
    frame = pl.DataFrame({"a": ["1", "2"], "s": ["x", "y"]})
    with pytest.raises(UnknownColumnError):
        suppress_cells(frame, ["nope"], k=1)
    with pytest.raises(UnknownColumnError):
        suppress_cells(frame, ["a"], models=[StandInDistinctL("nope", 2)])
    with pytest.raises(ParameterError, match="'k' parameter"):
        suppress_cells(frame, ["a"])
    with pytest.raises(ParameterError, match="'k' parameter of KAnonymity"):
        suppress_cells(frame, ["a"], k=0)
    with pytest.raises(ParameterError, match="at most the number of records"):
        suppress_cells(frame, ["a"], k=3)
    with pytest.raises(ParameterError, match="'importance'"):
        suppress_cells(frame, ["a"], k=1, importance={"a": 0.0})
    with pytest.raises(ParameterError, match="'importance'"):
        suppress_cells(frame, ["a"], k=1, importance={"s": 2.0})
    with pytest.raises(ParameterError, match="'importance'"):
        suppress_cells(frame, ["a"], k=1, importance=[1.0, 2.0])
    with pytest.raises(ParameterError, match="'models'"):
        suppress_cells(frame, ["a"], k=1, models=[TableLevel()])
    with pytest.raises(ParameterError, match="'models'"):
        suppress_cells(frame, ["a", "s"], k=1, models=[StandInDistinctL("s", 2)])
    with pytest.raises(ParameterError, match="'quasi_identifiers'"):
        suppress_cells(frame, ["a", "a"], k=1)
    with pytest.raises(MissingValuesError):
        suppress_cells(pl.DataFrame({"a": ["1", None]}), ["a"], k=1)
    with pytest.raises(EmptyDataError):
        suppress_cells(frame.head(0), ["a"], k=1)


def test_bad_codes() -> None:
    with pytest.raises(ParameterError, match="'codes'"):
        suppress_codes(np.array([1, 2]), k=1)
    with pytest.raises(ParameterError, match="'codes'"):
        suppress_codes(np.array([[0.5]]), k=1)
    with pytest.raises(ParameterError, match="'codes'"):
        suppress_codes(np.array([[-1]]), k=1)
    with pytest.raises(ParameterError, match="'codes'"):
        suppress_codes(np.array([[3]]), k=1, cardinalities=[2])
    with pytest.raises(ParameterError, match="'weights'"):
        suppress_codes(np.array([[0], [1]]), k=1, weights=[1, 0])
    with pytest.raises(ParameterError, match="'sensitive'"):
        suppress_codes(np.array([[0], [1]]), models=[StandInDistinctL("s", 1)])
    with pytest.raises(ParameterError, match="'names'"):
        suppress_codes(np.array([[0, 1]]), k=1, names=["x", "x"])


def test_star_code_inside_the_code_space() -> None:
    # code 0 is '*' (say, the root label of the column's top level): already suppressed
    codes = np.array([[0, 1], [0, 1], [1, 1], [2, 1], [2, 2]])
    res = suppress_codes(codes, k=2, cardinalities=[3, 3], star=[0, 0])
    assert res.codes.tolist() == [[0, 1], [0, 1], [0, 1], [2, 0], [2, 0]]
    assert dict(res.cells_per_attribute) == {"0": 1, "1": 2}


def test_models_and_k_combine() -> None:
    codes = np.array([[0], [0], [1], [1]])
    res = suppress_codes(
        codes,
        k=2,
        models=[KAnonymity(2), StandInDistinctL("s", 2)],
        sensitive={"s": SensitiveArray(np.array([0, 1, 0, 0]), labels=("x", "y"))},
    )
    assert res.codes.tolist() == [[0], [0], [2], [2]]
    assert res.privacy == ("2-anonymity", "2-anonymity", "distinct 2-diversity on s")
    assert math.isclose(res.cost, 2.0)


def test_sensitive_input_class_has_its_own_name() -> None:
    """Two different classes must not share the name SensitiveCodes (issue 16)."""
    import anonkit.algorithms.local_suppression as ls
    from anonkit.core.encoding import SensitiveCodes

    assert not hasattr(ls, "SensitiveCodes")
    assert SensitiveArray is not SensitiveCodes
