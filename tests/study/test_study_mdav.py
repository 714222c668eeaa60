"""The study's MDAV setting: numeric quasi-identifiers microaggregated, categorical ones
released at the root of their hierarchy, so that the release is k-anonymous over all of
them; test records recoded the same way."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import DataError, ParameterError
from anonkit.study.cells import LOSS_NAMES, CellWorker
from anonkit.study.config import AlgorithmSpec, StudyConfig
from anonkit.study.grid import Cell
from anonkit.study.microaggregation import group_spans
from anonkit.study.recode import recode_test
from anonkit.study.setup import UtilitySetup

MDAV = AlgorithmSpec("microaggregation", "mdav")


def _worker(tmp_path: Path, **changes: object) -> CellWorker:
    settings: dict[str, object] = {
        "sample": 600,
        "k_values": [3, 25],
        "folds": 2,
        "algorithms": [{"algorithm": "microaggregation"}],
        "classifiers": ["logistic_regression"],
        "workers": 1,
        "output": tmp_path,
        **changes,
    }
    return CellWorker(StudyConfig(**settings))  # type: ignore[arg-type]


def _recount(release: pl.DataFrame, columns: list[str]) -> int:
    """The smallest class of ``release`` over ``columns``, counted here, not by anonkit."""
    counts: dict[tuple[object, ...], int] = {}
    for row in release.select(columns).iter_rows():
        counts[row] = counts.get(row, 0) + 1
    return min(counts.values())


@pytest.mark.parametrize("dataset", ["adult", "synthetic"])
@pytest.mark.parametrize("k", [3, 25])
def test_mdav_cell_release_is_k_anonymous_over_all_quasi_identifiers(
    tmp_path: Path, dataset: str, k: int
) -> None:
    worker = _worker(tmp_path, dataset=dataset)
    qi = list(worker.qi)
    numeric = list(worker.numeric)
    categorical = [c for c in qi if c not in numeric]
    assert numeric and categorical
    train = worker.fold(0).train
    release = worker.anonymized(Cell(0, k, MDAV)).release
    assert release.height == train.height
    assert _recount(release, qi) >= k
    for c in categorical:  # one value per column: the hierarchy's root
        h = worker.data.hierarchies[c]
        assert release[c].unique().to_list() == [h.labels(h.max_level)[0]]
    # each numeric value released is the mean of its group's original values
    groups = (
        train.select(numeric)
        .with_columns(release.select(pl.col(c).alias(f"_{c}") for c in numeric))
        .group_by([f"_{c}" for c in numeric])
        .agg([pl.col(c).mean().alias(f"mean_{c}") for c in numeric])
    )
    for c in numeric:
        assert (groups[f"_{c}"] - groups[f"mean_{c}"]).abs().max() < 1e-9  # type: ignore[operator]
    # the outcome's effective k is the class count above, and the cell succeeds
    outcome = worker.run(Cell(0, k, MDAV))
    assert outcome.status == "ok"
    assert {r["effective_k"] for r in outcome.rows} == {_recount(release, qi)}
    assert all(r["cell"] == "microaggregation:mdav" for r in outcome.rows)
    # every loss is defined: the means are measured as their groups' ranges
    row = outcome.rows[0]
    assert all(math.isfinite(row[f"loss_{n}"]) for n in LOSS_NAMES), row


def test_group_spans_keep_the_classes_and_write_each_groups_range() -> None:
    original = pl.DataFrame({"x": ["a", "b", "c", "d", "a"], "n": [20, 24, 30, 31, 40]})
    release = pl.DataFrame({"x": ["*"] * 5, "n": [22.0, 22.0, 33.67, 33.67, 33.67]})
    spans = group_spans(original, release, quasi_identifiers=["x", "n"], numeric=["n"])
    assert spans["n"].to_list() == ["[20-24]", "[20-24]", "[30-40]", "[30-40]", "[30-40]"]
    assert spans["x"].to_list() == release["x"].to_list()


# ------------------------------------------------------------------------------ recoding
H = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]], name="x")


def test_recoding_sends_categorical_to_the_root_and_numeric_to_the_nearest_group() -> None:
    setup = UtilitySetup(
        target="y", quasi_identifiers=("x", "n"), hierarchies={"x": H}, numeric=("n",)
    )
    train = pl.DataFrame({"x": ["a", "b", "c", "d", "a", "c"], "n": [1, 2, 3, 10, 11, 12]})
    release = pl.DataFrame({"x": ["*"] * 6, "n": [2.0, 2.0, 2.0, 11.0, 11.0, 11.0]})
    test = pl.DataFrame({"x": ["d", "a", "b"], "n": [0, 9, 100], "y": [1, 2, 3]})
    out = recode_test(setup, train, release, test, algorithm="microaggregation")
    assert out.method == "microaggregation" and out.uncovered_share == 0.0
    assert out.frame["x"].to_list() == ["*", "*", "*"]
    assert out.frame["n"].to_list() == [2.0, 11.0, 11.0]
    assert out.frame["y"].to_list() == [1, 2, 3]
    # the same release is recognized without being told
    inferred = recode_test(setup, train, release, test)
    assert inferred.method == "microaggregation"
    assert inferred.frame.equals(out.frame)


def test_recoding_keeps_the_release_level_of_each_categorical_column() -> None:
    setup = UtilitySetup(
        target="y", quasi_identifiers=("x", "n"), hierarchies={"x": H}, numeric=("n",)
    )
    train = pl.DataFrame({"x": ["a", "b", "c", "d"], "n": [1, 3, 10, 12]})
    release = pl.DataFrame({"x": ["ab", "ab", "cd", "cd"], "n": [2.0, 2.0, 11.0, 11.0]})
    test = pl.DataFrame({"x": ["d", "b"], "n": [1, 12]})
    out = recode_test(setup, train, release, test, algorithm="microaggregation")
    assert out.frame.rows() == [("cd", 2.0), ("ab", 11.0)]
    mixed = release.with_columns(pl.Series("x", ["ab", "*", "cd", "cd"]))
    with pytest.raises(DataError, match="'x'.*several levels"):
        recode_test(setup, train, mixed, test, algorithm="microaggregation")


# -------------------------------------------------------------------------- configuration
def test_config_accepts_mdav_with_a_numeric_quasi_identifier_and_refuses_it_without() -> None:
    cfg = StudyConfig(numeric=("age",), algorithms=[{"algorithm": "microaggregation"}])
    assert [s.cell for s in cfg.algorithms or ()] == ["microaggregation:mdav"]
    with pytest.raises(ParameterError, match="microaggregation only with numeric") as err:
        StudyConfig(numeric=(), algorithms=[{"algorithm": "microaggregation"}])
    assert "released at the root" in str(err.value)


def test_seed000_grid_has_mdav_where_a_quasi_identifier_is_numeric(
    tmp_path: Path, shared_data: Path
) -> None:
    from anonkit.study import seed000

    for quick in (False, True):
        configs = seed000.study_configs(tmp_path, quick=quick, data=shared_data)
        for name in ("adult", "synthetic"):
            assert "microaggregation:mdav" in [s.cell for s in configs[name].algorithms or ()]
        # the credit-card codes of AGE and LIMIT_BAL are random integers, not numbers
        credit = configs["creditcard"]
        assert credit.numeric == ()
        assert "microaggregation" not in [s.algorithm for s in credit.algorithms or ()]
