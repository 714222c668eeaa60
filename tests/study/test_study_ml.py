"""Machine-learning utility: classifiers on releases, baselines, setup validation."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import numpy as np
import polars as pl
import pytest

from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import DataError, ParameterError, UnknownNameError
from anonkit.study.ml import (
    CLASSIFIERS,
    UtilityScore,
    UtilitySetup,
    baseline_scores,
    make_classifier,
    utility_scores,
)
from anonkit.study.recode import recode_test

H = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]], name="x")
S = Hierarchy([["m", "*"], ["f", "*"]], name="s")


def _toy(n: int, seed: int) -> pl.DataFrame:
    """y is 'yes' for x in {a, b} (35 % of the rows) and, sometimes, for large n."""
    rng = np.random.default_rng(seed)
    x = rng.choice(list("abcd"), size=n, p=[0.2, 0.15, 0.35, 0.3])
    s = rng.choice(["m", "f"], size=n)
    num = rng.integers(0, 100, size=n)
    y = np.where(np.isin(x, ["a", "b"]) | (num > 95), "yes", "no")
    return pl.DataFrame({"x": x, "s": s, "n": num, "y": y})


SETUP = UtilitySetup(
    target="y", quasi_identifiers=("x", "s", "n"), hierarchies={"x": H, "s": S}, numeric=("n",)
)
TRAIN = _toy(240, 1)
TEST = _toy(120, 2)


def _figures(scores: list[UtilityScore]) -> list[tuple[str, str, float, float]]:
    return [(s.classifier, s.evaluation, s.accuracy, s.balanced_accuracy) for s in scores]


def test_utility_on_a_learnable_release_beats_the_majority() -> None:
    # a full-domain release: x to level 1, s suppressed, n kept
    release = TRAIN.with_columns(
        pl.col("x").replace({"a": "ab", "b": "ab", "c": "cd", "d": "cd"}),
        pl.lit("*").alias("s"),
    )
    scores = utility_scores(SETUP, TRAIN, release, TEST, transformation={"x": 1, "s": 1})
    assert [(s.classifier, s.evaluation) for s in scores] == [
        (c, e) for c in CLASSIFIERS for e in ("anonymized_test", "original_test")
    ]
    majority = next(s for s in baseline_scores(SETUP, TRAIN, TEST) if s.classifier == "majority")
    assert majority.balanced_accuracy == 0.5
    for s in scores:
        assert s.accuracy > majority.accuracy + 0.15, s
        assert s.balanced_accuracy > 0.8, s
        assert s.seconds_fit >= 0 and s.seconds_predict >= 0


def test_original_baseline_equals_training_on_the_identity_release() -> None:
    base = [s for s in baseline_scores(SETUP, TRAIN, TEST) if s.classifier != "majority"]
    assert [s.evaluation for s in base] == ["original_test"] * len(CLASSIFIERS)
    same = utility_scores(SETUP, TRAIN, TRAIN, TEST)
    copy = utility_scores(SETUP, TRAIN, TRAIN.clone(), TEST)
    for scores in (same, copy):
        for evaluation in ("anonymized_test", "original_test"):
            got = [s for s in scores if s.evaluation == evaluation]
            assert [(s.classifier, s.accuracy, s.balanced_accuracy) for s in got] == [
                (s.classifier, s.accuracy, s.balanced_accuracy) for s in base
            ]


def test_local_release_and_recoded_test_passed_in() -> None:
    # Mondrian-like local recoding: x at mixed levels, n as ranges
    release = TRAIN.with_columns(
        pl.when(pl.col("s") == "m").then(pl.col("x")).otherwise(pl.lit("*")).alias("x"),
        pl.when(pl.col("n") < 50).then(pl.lit("[0-49]")).otherwise(pl.lit("[50-99]")).alias("n"),
    )
    recoded = recode_test(SETUP, TRAIN, release, TEST, algorithm="mondrian")
    assert recoded.method == "local"
    given = utility_scores(SETUP, TRAIN, release, TEST, recoded=recoded)
    inferred = utility_scores(SETUP, TRAIN, release, TEST)
    assert _figures(given) == _figures(inferred)


def test_scores_are_deterministic_for_a_seed() -> None:
    setup = replace(SETUP, classifiers=("random_forest", "hist_gradient_boosting"), seed=3)
    first = utility_scores(setup, TRAIN, TRAIN, TEST)
    assert _figures(first) == _figures(utility_scores(setup, TRAIN, TRAIN, TEST))


def test_majority_baseline() -> None:
    setup = replace(SETUP, classifiers=("logistic_regression",))
    scores = baseline_scores(setup, TRAIN, TEST)
    assert [s.classifier for s in scores] == ["logistic_regression", "majority"]
    majority = scores[-1]
    expected = float((TEST["y"] == "no").mean())  # 'no' is the train majority
    assert majority.evaluation == "original_test"
    assert majority.accuracy == pytest.approx(expected)


def test_unknown_classifier() -> None:
    with pytest.raises(UnknownNameError, match="svm"):
        make_classifier("svm")
    with pytest.raises(UnknownNameError):
        replace(SETUP, classifiers=("logistic_regression", "svm"))


@pytest.mark.parametrize(
    "change",
    [
        {"target": "x"},
        {"numeric": ("z",)},
        {"features": ("x",)},
        {"classifiers": ()},
        {"seed": -1},
        {"n_jobs": 0},
        {"quasi_identifiers": "x"},
    ],
)
def test_setup_validation(change: dict[str, object]) -> None:
    with pytest.raises(ParameterError):
        replace(SETUP, **change)  # type: ignore[arg-type]


def test_single_class_target_is_a_data_error() -> None:
    train = TRAIN.with_columns(pl.lit("no").alias("y"))
    with pytest.raises(DataError, match="single value"):
        utility_scores(replace(SETUP, classifiers=("logistic_regression",)), train, train, TEST)


def test_missing_scikit_learn_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sklearn", None)
    with pytest.raises(ImportError, match=r"anonkit\[study\]"):
        make_classifier("logistic_regression")


def test_importing_the_study_modules_does_not_import_scikit_learn() -> None:
    code = (
        "import sys, anonkit.study.ml, anonkit.study.features, anonkit.study.recode; "
        "print('sklearn' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.benchmark
def test_adult_cell_timings() -> None:
    """Seconds of recoding + utility per cell on Adult (k = 10), printed with ``-s``.

    Run: ``PYTHONPATH=src .venv/bin/python -m pytest -p no:cacheprovider -s -m benchmark
    tests/study/test_study_ml.py``.
    """
    import time

    import anonkit
    from anonkit.datasets import load_adult

    sklearn_split = pytest.importorskip("sklearn.model_selection")
    data, paths = load_adult()
    data = data.with_columns(pl.col("age").cast(pl.Int64))
    target = "salary-class"
    qi = tuple(c for c in data.columns if c != target)
    hierarchies = {c: Hierarchy.from_csv(paths[c], name=c) for c in qi}
    rows = list(range(data.height))
    tr, te = sklearn_split.train_test_split(
        rows, test_size=0.2, random_state=0, stratify=data[target].to_list()
    )
    train, test = data[tr], data[te]
    base = UtilitySetup(target=target, quasi_identifiers=qi, hierarchies=hierarchies)
    w0, c0 = time.perf_counter(), time.process_time()
    baseline_scores(base, train, test)
    print(
        f"\nbaseline: {time.perf_counter() - w0:.2f} s wall, {time.process_time() - c0:.2f} s cpu"
    )
    no_age = {c: h for c, h in hierarchies.items() if c != "age"}
    cells = [
        ("flash", base, hierarchies, {}),
        ("mondrian", replace(base, numeric=("age",)), no_age, {"numeric": ["age"]}),
        ("greedy_merge", base, hierarchies, {"cost": "nllm"}),
        ("microaggregation", replace(base, numeric=("age",)), no_age, {"numeric": ["age"]}),
    ]
    for algorithm, setup, hier, extra in cells:
        result = anonkit.anonymize(
            train, quasi_identifiers=list(qi), hierarchies=hier, k=10, algorithm=algorithm, **extra
        )
        w0, c0 = time.perf_counter(), time.process_time()
        recoded = recode_test(
            setup,
            train,
            result.release,
            test,
            transformation=result.transformation,
            algorithm=result.algorithm,
        )
        w1, c1 = time.perf_counter(), time.process_time()
        scores = utility_scores(setup, train, result.release, test, recoded=recoded)
        w2, c2 = time.perf_counter(), time.process_time()
        fits = ", ".join(
            f"{s.classifier} {s.seconds_fit:.2f}" for s in scores if s.evaluation == "original_test"
        )
        acc = ", ".join(f"{s.accuracy:.3f}" for s in scores)
        print(
            f"{algorithm}: recode {w1 - w0:.2f} s wall / {c1 - c0:.2f} cpu; utility "
            f"{w2 - w1:.2f} s wall / {c2 - c1:.2f} cpu (fit: {fits}); "
            f"uncovered {recoded.uncovered_share:.3f}; accuracies {acc}"
        )
        assert c2 - c0 < 30


def test_release_without_information_predicts_the_majority() -> None:
    release = TRAIN.with_columns(pl.lit("*").alias(c) for c in ("x", "s", "n"))
    scores = utility_scores(SETUP, TRAIN, release, TEST, transformation={"x": 2, "s": 1})
    majority = float((TEST["y"] == "no").mean())
    assert [s.accuracy for s in scores] == pytest.approx([majority] * len(scores))
