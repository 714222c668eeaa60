"""Study configuration, grid, keys and cache: parsing, defaults and clear errors."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from anonkit.algorithms.greedy_merge import PAPER_K_VALUES
from anonkit.exceptions import (
    ConfigError,
    InputFileError,
    ParameterError,
    UnknownColumnError,
    UnknownNameError,
)
from anonkit.metrics.cost_matrix import COST_FUNCTIONS
from anonkit.study.cache import CellCache, CellOutcome
from anonkit.study.config import AlgorithmSpec, StudyConfig, default_algorithms
from anonkit.study.grid import (
    Cell,
    cell_key,
    dataset_fingerprint,
    load_study_data,
    split_indices,
    study_cells,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- defaults
def test_adult_defaults() -> None:
    cfg = StudyConfig()
    assert cfg.dataset == "adult" and cfg.target == "salary-class"
    assert len(cfg.quasi_identifiers or ()) == 8 and "salary-class" not in (
        cfg.quasi_identifiers or ()
    )
    assert cfg.numeric == ("age",)
    assert cfg.k_values == PAPER_K_VALUES and len(PAPER_K_VALUES) == 21
    cells = [s.cell for s in cfg.algorithms or ()]
    assert cells == [
        "flash:loss",
        "mondrian:strict",
        *(f"greedy_merge:{c}" for c in COST_FUNCTIONS),
    ]  # no microaggregation: Adult has categorical quasi-identifiers
    assert cfg.classifiers == ("logistic_regression", "random_forest", "hist_gradient_boosting")
    assert cfg.folds == 1 and cfg.test_size == 0.2 and cfg.seed == 0
    assert cfg.cache_folder == Path("study") / "cache" and cfg.n_workers >= 1


def test_no_microaggregation_without_numeric_columns() -> None:
    assert "microaggregation" not in [s.algorithm for s in default_algorithms(())]
    assert "microaggregation" not in [s.algorithm for s in default_algorithms(["a"], ["a", "b"])]
    assert default_algorithms(["a", "b"], ["a", "b"])[-1].cell == "microaggregation:mdav"
    with pytest.raises(ParameterError, match="microaggregation only with numeric"):
        StudyConfig(numeric=(), algorithms=[{"algorithm": "microaggregation"}])


def test_algorithm_specs_expand_and_validate() -> None:
    cfg = StudyConfig(
        algorithms=[
            {"algorithm": "flash", "metric": ["loss", "height"]},
            {"algorithm": "mondrian", "mode": "relaxed", "split": "distinct"},
            {"algorithm": "greedy_merge", "cost": "all"},
            AlgorithmSpec("microaggregation", "mdav", {"aggregate": "median"}),
            {"algorithm": "flash"},  # a duplicate is run once
        ]
    )
    specs = cfg.algorithms or ()
    assert [s.cell for s in specs][:3] == ["flash:loss", "flash:height", "mondrian:relaxed"]
    assert len(specs) == 2 + 1 + 7 + 1
    assert specs[2].anonymize_options() == {"mode": "relaxed", "split": "distinct"}
    assert specs[-1].anonymize_options() == {"method": "mdav", "aggregate": "median"}
    with pytest.raises(UnknownNameError, match="Unknown algorithm 'simulated_annealing'"):
        AlgorithmSpec("simulated_annealing")
    with pytest.raises(UnknownNameError, match="Unknown cost of greedy_merge 'cheap'"):
        StudyConfig(algorithms=[{"algorithm": "greedy_merge", "cost": "cheap"}])
    with pytest.raises(ParameterError, match="'aggregate' parameter of the mondrian"):
        StudyConfig(algorithms=[{"algorithm": "mondrian", "aggregate": "mean"}])
    with pytest.raises(ParameterError, match="'algorithms' parameter of StudyConfig"):
        StudyConfig(algorithms=[{"metric": "loss"}])


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"folds": 0}, "The 'folds' parameter of StudyConfig must be an int >= 1. Got 0"),
        ({"test_size": 1.0}, "'test_size' parameter of StudyConfig must be a share in (0, 1"),
        ({"k_values": [2, 0]}, "'k_values' parameter of StudyConfig must be an int >= 1"),
        ({"k_values": []}, "'k_values' parameter of StudyConfig must be a non-empty list"),
        ({"suppression_limit": 2}, "'suppression_limit' parameter of StudyConfig"),
        ({"workers": 0}, "'workers' parameter of StudyConfig must be an int >= 1"),
        (
            {"target": "sex", "quasi_identifiers": ["sex", "age"]},
            "'target' parameter of StudyConfig must be a column that is not",
        ),
        ({"numeric": ["salary"]}, "'numeric' parameter of StudyConfig must be quasi-identifiers"),
        ({"features": ["sex"]}, "'features' parameter of StudyConfig"),
        ({"dataset": "table.csv"}, "'target' parameter of StudyConfig must be the name"),
        ({"sample": 1}, "'sample' parameter of StudyConfig must be an int >= 2"),
    ],
)
def test_invalid_settings(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ParameterError, match=message.replace("(", r"\(")):
        StudyConfig(**changes)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [-1, 2**32])
def test_seed_is_one_the_splitters_take(seed: int) -> None:
    # scikit-learn takes random_state in [0, 2**32 - 1]: outside it the split failed later,
    # blamed on test_size, or broke the process pool with a traceback
    with pytest.raises(ParameterError, match="'seed' parameter of StudyConfig must be an int"):
        StudyConfig(seed=seed)


def test_suppression_limit_and_its_grid_agree() -> None:
    # replace() kept the grid derived from the old limit: the new limit was never run
    cfg = StudyConfig(suppression_limit=0.1).replace(suppression_limit=0.2)
    assert cfg.suppression_limits == (0.2,)
    assert StudyConfig(suppression_limits=[0.0, 0.05]).suppression_limit == 0.0
    assert StudyConfig(suppression_limit=0.05, suppression_limits=[0.0, 0.05]).suppression_limits
    # both given, the single limit outside the grid: one of them would be ignored
    with pytest.raises(ParameterError, match="'suppression_limit' parameter of StudyConfig"):
        StudyConfig(suppression_limit=0.1, suppression_limits=[0.0, 0.05])


def test_unknown_classifier() -> None:
    with pytest.raises(UnknownNameError, match="Unknown classifier 'svm'; choose one of"):
        StudyConfig(classifiers=["svm"])


def test_pickle_and_replace() -> None:
    cfg = StudyConfig(
        k_values=[5, 2, 5],
        hierarchies={"age": {"type": "intervals", "widths": [10, 20]}},
        algorithms=[{"algorithm": "mondrian", "split": "distinct"}],
    )
    assert cfg.k_values == (5, 2)
    back = pickle.loads(pickle.dumps(cfg))
    assert back == cfg
    assert cfg.replace(workers=3).workers == 3
    with pytest.raises(ParameterError):
        cfg.replace(seed="x")


# ----------------------------------------------------------------------------- TOML
def test_examples_parse() -> None:
    adult = StudyConfig.from_toml(EXAMPLES / "study_adult.toml")
    assert adult == StudyConfig(output=EXAMPLES / "study-adult")
    synthetic = StudyConfig.from_toml(EXAMPLES / "study_synthetic.toml")
    assert synthetic.target == "income" and synthetic.numeric == ("age", "hours-per-week")
    assert synthetic.output == EXAMPLES / "study-synthetic"


def test_toml_relative_paths_and_hierarchies(tmp_path: Path) -> None:
    (tmp_path / "h").mkdir()
    write(tmp_path / "h" / "colour.csv", "red;warm;*\nblue;cold;*\n")
    write(tmp_path / "data.csv", "colour;size;y\nred;10;a\nblue;20;b\nred;;a\n")
    cfg = StudyConfig.from_toml(
        write(
            tmp_path / "study.toml",
            'dataset = "data.csv"\ntarget = "y"\nk = [2, 3]\nsample = 2\n'
            'algorithms = [{ algorithm = "mondrian" }]\n'
            '[attributes]\nquasi_identifiers = ["colour", "size"]\nnumeric = ["size"]\n'
            '[hierarchies]\ncolour = "h/colour.csv"\n',
        )
    )
    assert cfg.dataset == str(tmp_path / "data.csv") and cfg.name == "data"
    assert cfg.hierarchies["colour"] == tmp_path / "h" / "colour.csv"
    assert cfg.k_values == (2, 3) and cfg.sample == 2
    assert cfg.output == tmp_path / "study" and cfg.cache_folder == tmp_path / "study" / "cache"
    data = load_study_data(cfg)
    assert data.frame.schema["size"] == pl.Int64 and data.hierarchies["colour"].height == 3
    assert data.frame.height == 2  # a sample of the whole table takes it all
    big = cfg.replace(sample=3)
    with pytest.raises(ParameterError) as info:
        load_study_data(big)
    assert (info.value.parameter, info.value.got) == ("sample", 3)
    assert str(info.value).startswith(
        f"The 'sample' parameter of StudyConfig must be at most the 2 complete records of "
        f"{tmp_path / 'data.csv'} (1 row left out for missing values). Got 3 instead."
    )


def test_a_sample_larger_than_adult_names_its_size() -> None:
    with pytest.raises(ParameterError, match="at most the 30,162 complete records of the bundled"):
        load_study_data(StudyConfig(sample=1_000_000))


def test_toml_quasi_identifiers_default_to_hierarchies(tmp_path: Path) -> None:
    cfg = StudyConfig.from_toml(
        write(
            tmp_path / "s.toml",
            'dataset = "t.csv"\ntarget = "y"\n[hierarchies]\nzip = { type = "masking" }\n'
            'age = { type = "intervals", widths = [10] }\n',
        )
    )
    assert cfg.quasi_identifiers == ("zip", "age")
    assert dict(cfg.hierarchies["zip"]) == {"type": "masking"}


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("datset = 'adult'\n", ConfigError, "Unknown key 'datset'"),
        ("[attributes]\nqi = ['age']\n", ConfigError, "Unknown key 'qi' in section"),
        ("k = [2,\n", ConfigError, "is not valid TOML"),
        ("algorithms = 'flash'\n", ConfigError, "must be a list of tables"),
        ("output = 3\n", ConfigError, "The key 'output'"),
        ("[[algorithms]]\nalgorithm = 'magic'\n", UnknownNameError, "Unknown algorithm 'magic'"),
        ("folds = 'two'\n", ConfigError, "The key 'folds' in {path} must be an int >= 1"),
        ("[hierarchies]\nage = 3\n", ConfigError, "hierarchies.age"),
        # a bad value names the TOML key and the file, not StudyConfig's parameter
        ("k = [2, 0]\n", ConfigError, "The key 'k' in {path} must be an int >= 1, not 0."),
        ("k = []\n", ConfigError, "The key 'k' in {path} must be a non-empty list"),
        ("sample = 1\n", ConfigError, "The key 'sample' in {path} must be an int >= 2"),
        ("seed = -1\n", ConfigError, "The key 'seed' in {path} must be an int"),
        (
            "[attributes]\nnumeric = ['salary']\n",
            ConfigError,
            "The key 'attributes.numeric' in {path} must be quasi-identifiers, not 'salary'.",
        ),
        (
            "[attributes]\nfeatures = ['sex']\n",
            ConfigError,
            "The key 'attributes.features' in {path} must be columns other than",
        ),
        (
            "[[algorithms]]\nalgorithm = 'mondrian'\nmode = 3\n",
            ConfigError,
            "The key 'algorithms.mode' in {path} must be a string, not 3.",
        ),
        (
            "classifiers = ['svm']\n",
            UnknownNameError,
            "Unknown classifier 'svm' in the key 'classifiers' of {path}",
        ),
    ],
)
def test_toml_errors(tmp_path: Path, text: str, error: type[Exception], message: str) -> None:
    path = write(tmp_path / "bad.toml", text)
    with pytest.raises(error) as info:
        StudyConfig.from_toml(path)
    assert message.format(path=path.resolve()) in str(info.value)
    assert "parameter of" not in str(info.value)


def test_toml_errors_keep_the_parameter_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        StudyConfig.from_toml(write(tmp_path / "bad.toml", "folds = 0\n"))
    cause = info.value.__cause__
    assert isinstance(cause, ParameterError) and (cause.parameter, cause.got) == ("folds", 0)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no such file"):
        StudyConfig.from_toml(tmp_path / "none.toml")


# ----------------------------------------------------------------------------- data
def test_load_adult_sample_and_unknown_column() -> None:
    data = load_study_data(StudyConfig(sample=300, seed=1))
    assert data.frame.height == 300 and data.frame.schema["age"] == pl.Int64
    assert data.frame.columns == [*(StudyConfig().quasi_identifiers or ()), "salary-class"]
    assert data.fingerprint == load_study_data(StudyConfig(sample=300, seed=1)).fingerprint
    assert data.fingerprint != load_study_data(StudyConfig(sample=300, seed=2)).fingerprint
    with pytest.raises(UnknownColumnError, match="Unknown column\\(s\\) 'postcode'"):
        load_study_data(StudyConfig(quasi_identifiers=["sex", "postcode"], numeric=()))


def test_quasi_identifiers_without_hierarchy_are_named(tmp_path: Path) -> None:
    write(tmp_path / "d.csv", "colour;zip;y\nred;101;a\nblue;102;b\n")
    cfg = StudyConfig(
        dataset=str(tmp_path / "d.csv"),
        target="y",
        quasi_identifiers=["colour", "zip"],
        hierarchies={"zip": {"type": "masking"}},
    )
    assert load_study_data(cfg).without_hierarchy == ("colour",)
    starred = StudyConfig(sample=300, hierarchies={"race": {"type": "suppression"}})
    assert load_study_data(starred).without_hierarchy == ("race",)
    assert load_study_data(StudyConfig(sample=300)).without_hierarchy == ()


def test_numeric_column_with_text(tmp_path: Path) -> None:
    write(tmp_path / "d.csv", "size;y\n10;a\nbig;b\n")
    cfg = StudyConfig(
        dataset=str(tmp_path / "d.csv"),
        target="y",
        quasi_identifiers=["size"],
        numeric=["size"],
        algorithms=[{"algorithm": "mondrian"}],
    )
    with pytest.raises(ValueError, match="'size' is declared numeric but 1 of its values"):
        load_study_data(cfg)


def test_splits_are_stratified_and_reproducible() -> None:
    y = pl.Series(["a"] * 80 + ["b"] * 20)
    ((train, test),) = split_indices(y, folds=1, test_size=0.25, seed=3)
    assert len(test) == 25 and (y.to_numpy()[test] == "b").sum() == 5
    assert np.all(np.diff(train) > 0) and not set(train) & set(test)
    again = split_indices(y, folds=1, test_size=0.25, seed=3)[0][1]
    assert np.array_equal(test, again)
    folds = split_indices(y, folds=4, test_size=0.25, seed=0)
    assert sorted(np.concatenate([te for _, te in folds]).tolist()) == list(range(100))
    with pytest.raises(ParameterError, match="'folds' parameter of the study's train/test"):
        split_indices(pl.Series(["a"] * 10 + ["b"]), folds=3, test_size=0.2, seed=0)


# ----------------------------------------------------------------------------- grid
def test_cells_and_keys() -> None:
    cfg = StudyConfig(
        k_values=[2, 10],
        algorithms=[{"algorithm": "flash"}, {"algorithm": "greedy_merge", "cost": "ncp"}],
        folds=2,
    )
    cells = study_cells(cfg)
    assert len(cells) == 2 * (1 + 2 * 2)
    assert cells[0].is_baseline and cells[5].is_baseline and cells[5].fold == 1
    keys = {cell_key(c, cfg, "fp") for c in cells}
    assert len(keys) == len(cells)
    cell = cells[1]
    same = cell_key(cell, cfg.replace(workers=7, output=Path("elsewhere")), "fp")
    assert same == cell_key(cell, cfg, "fp")
    assert cell_key(cell, cfg, "other data") != cell_key(cell, cfg, "fp")
    assert cell_key(cell, cfg.replace(seed=1), "fp") != cell_key(cell, cfg, "fp")
    assert cell_key(Cell(0, 2, AlgorithmSpec("flash", "height")), cfg, "fp") != cell_key(
        cell, cfg, "fp"
    )


def test_fingerprint_sees_hierarchies() -> None:
    from anonkit.core.hierarchy import Hierarchy

    df = pl.DataFrame({"a": ["x", "y"]})
    h1 = Hierarchy([["x", "*"], ["y", "*"]])
    h2 = Hierarchy([["x", "A", "*"], ["y", "A", "*"]])
    assert dataset_fingerprint(df, {"a": h1}) != dataset_fingerprint(df, {"a": h2})


# ----------------------------------------------------------------------------- cache
def test_cache_round_trip_and_corruption(tmp_path: Path) -> None:
    cache = CellCache(tmp_path / "cache")
    outcome = CellOutcome(
        ({"k": 2, "loss_kl_divergence": float("inf"), "accuracy": float("nan")},),
        {"anonymize": 1.5, "metrics": 0.5, "utility": 2.0},
        status="error: something.",
    )
    cache.write("key1", outcome)
    back = cache.read("key1")
    assert back is not None and back.status == "error: something." and not back.ok
    assert back.rows[0]["loss_kl_divergence"] == float("inf")
    assert np.isnan(back.rows[0]["accuracy"]) and back.seconds["utility"] == 2.0
    write(tmp_path / "cache" / "key2.json", "{not json")
    assert cache.read("key2") is None
    cache.write("key3", CellOutcome((), {}, status="error: bug", cacheable=False))
    assert cache.read("key3") is None
    assert CellCache(None).read("key1") is None


def test_toml_reads_the_issue_21_design_keys(tmp_path: Path) -> None:
    path = tmp_path / "study.toml"
    path.write_text(
        "folds = 2\nrepeats = 5\nsuppression_limits = [0.0, 0.01, 0.05]\ntuning = true\n"
        'missing = ["", "?"]\nk = [2, 5]\n',
        encoding="utf-8",
    )
    cfg = StudyConfig.from_toml(path)
    assert (cfg.folds, cfg.repeats, cfg.n_splits) == (2, 5, 10)
    assert cfg.suppression_limits == (0.0, 0.01, 0.05) and cfg.tuning
    assert cfg.missing == ("", "?")
    again = pickle.loads(pickle.dumps(cfg))
    assert again == cfg and again.to_dict()["suppression_limits"] == [0.0, 0.01, 0.05]
