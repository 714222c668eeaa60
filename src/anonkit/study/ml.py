"""Machine-learning utility of a release: train on the anonymized split, test on held-out data.

The question of seed 000 (entropy-based information loss vs. classifier utility, in the
line of Iyengar 2002 and LeFevre, DeWitt & Ramakrishnan 2006 "Workload-aware
anonymization") is answered by measuring, for every release of a study grid, how well
classifiers trained on it predict a target attribute:

1. the train split is anonymized (by the study runner); its release is encoded into a
   float matrix by :class:`~anonkit.study.features.FeatureEncoder` (multi-level one-hot for
   hierarchy attributes, midpoint + width for numeric ones);
2. each classifier of :data:`CLASSIFIERS` is fitted on that matrix and the (unchanged)
   target;
3. it is scored twice: on the test split recoded with the train transformation
   (``"anonymized_test"``, :func:`~anonkit.study.recode.recode_test`) and on the test
   split as it is (``"original_test"``), both encoded in the same feature space.

:func:`baseline_scores` gives the two reference points of every fold: the same classifiers
trained on the original train split, and the majority class.

Scores are accuracy and balanced accuracy (mean recall over the target classes; Brodersen
et al. 2010), with the seconds spent fitting and predicting. scikit-learn is an optional
dependency (``pip install 'anonkit[study]'``): it is imported only when a classifier is
built.

One study cell, as the runner does it::

    result = anonkit.anonymize(train, ..., k=k, algorithm=algorithm)
    recoded = recode_test(setup, train, result.release, test,
                          transformation=result.transformation,
                          algorithm=result.algorithm)        # recoded.uncovered_share
    scores = utility_scores(setup, train, result.release, test, recoded=recoded)

On Adult (24,129 train rows, k = 10) a cell takes 2 to 3.5 s of one core for the three
classifiers and both evaluations, recoding included; :func:`baseline_scores` about 4.5 s.

References
----------
Brodersen, K. H., Ong, C. S., Stephan, K. E., Buhmann, J. M. (2010). The balanced
accuracy and its posterior distribution. ICPR.
Iyengar, V. S. (2002). Transforming data to satisfy privacy constraints. KDD.
LeFevre, K., DeWitt, D. J., Ramakrishnan, R. (2006). Workload-aware anonymization. KDD.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit._frozen import FrozenDict
from anonkit.exceptions import (
    DataError,
    EmptyDataError,
    MissingValuesError,
    UnknownColumnError,
    UnknownNameError,
)
from anonkit.study.features import FeatureEncoder, Features
from anonkit.study.recode import RecodedTest, recode_test
from anonkit.study.setup import CLASSIFIERS, EVALUATIONS, UtilitySetup

__all__ = [
    "CLASSIFIERS",
    "EVALUATIONS",
    "LAYOUTS",
    "SPARSE",
    "TUNING_GRIDS",
    "UtilityScore",
    "UtilitySetup",
    "baseline_scores",
    "make_classifier",
    "utility_scores",
]

_EXTRA_HINT = "scikit-learn is needed for machine-learning utility: pip install 'anonkit[study]'"


@dataclass(frozen=True)
class UtilityScore:
    """One classifier scored on one test set.

    Attributes
    ----------
    classifier
        A name of :data:`CLASSIFIERS`, or ``"majority"``.
    evaluation
        ``"anonymized_test"`` (test split recoded like the train release) or
        ``"original_test"`` (test split as it is).
    accuracy, balanced_accuracy
        Share of correct predictions; mean per-class recall.
    seconds_fit, seconds_predict
        Wall time of fitting (shared by both evaluations of a classifier) and of
        predicting this test set.
    roc_auc
        Area under the ROC curve of the predicted class probabilities (binary target:
        of the second class in sort order; more classes: one-vs-rest macro average); NaN
        when the test set holds one class or the classifier gives no probabilities.
    single_class
        Whether every test record got the same prediction (a *degenerate* release: the
        classifier fell back on one class, usually the majority, and its accuracy says
        nothing about which release kept more information).
    """

    classifier: str
    evaluation: str
    accuracy: float
    balanced_accuracy: float
    seconds_fit: float
    seconds_predict: float
    roc_auc: float = float("nan")
    single_class: bool = False


# ------------------------------------------------------------------------- classifiers
def _sklearn() -> Any:
    try:
        import sklearn
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(_EXTRA_HINT) from exc
    return sklearn


#: Which layout of :class:`~anonkit.study.features.Features` each classifier reads.
LAYOUTS: Mapping[str, str] = FrozenDict(
    {
        "logistic_regression": "onehot",
        "random_forest": "onehot",
        "hist_gradient_boosting": "codes",
    }
)
#: Classifiers that read their layout as a sparse (CSR) matrix: the one-hot blocks hold
#: one set column per block, so lbfgs's products cost the set cells only (on Adult's
#: 15,000-record halves about 18 of 394 columns per record: a tuned logistic regression
#: 0.3 s of CPU instead of 1.6 s dense).
SPARSE: frozenset[str] = frozenset({"logistic_regression"})


#: The small grid each classifier is tuned on when a study sets ``tuning``.
TUNING_GRIDS: Mapping[str, Mapping[str, tuple[float | int, ...]]] = FrozenDict(
    {
        "logistic_regression": FrozenDict({"C": (0.1, 1.0, 10.0)}),
        "random_forest": FrozenDict({"max_depth": (8, 16)}),
        "hist_gradient_boosting": FrozenDict({"max_leaf_nodes": (15, 63)}),
    }
)
#: Inner folds of the tuning (cross-validation inside the training split).
TUNING_FOLDS = 2


def make_classifier(
    name: str,
    *,
    seed: int = 0,
    n_jobs: int = 1,
    categorical: Sequence[bool] | None = None,
    tuned: bool = False,
) -> Any:
    """A fresh, unfitted scikit-learn classifier with the study's settings.

    The settings are modest so that one study cell (three classifiers, about 24,000
    training rows of Adult, two test sets) takes a few seconds of one core:

    * ``logistic_regression``: L2 (``C=1``), lbfgs, ``max_iter=1000``, on the one-hot
      features, which the encoder already puts on a [0, 1] scale fixed by the train
      domain (no scaler is fitted on the generalized matrix: one would inflate the
      near-constant columns of a heavily generalized release; on Adult the fixed scale
      scores as well or better, on both test sets);
    * ``random_forest``: 100 trees on the one-hot features, ``max_depth=12``,
      ``min_samples_leaf=5``, ``max_features="sqrt"``, each tree on a bootstrap sample of
      half the rows (``max_samples=0.5``: half the time of full bootstrap samples, same
      accuracy on Adult);
    * ``hist_gradient_boosting``: scikit-learn's defaults (100 iterations, early stopping
      on 10 % of the rows above 10,000 rows) on the codes layout, hierarchy levels as
      native categories (``categorical``, a mask over its columns).

    With ``tuned=True`` the classifier is chosen on its grid of :data:`TUNING_GRIDS` by
    stratified :data:`TUNING_FOLDS`-fold cross-validation inside the training split
    (accuracy), then refitted on the whole split: logistic regression as a
    ``LogisticRegressionCV`` (the C path fitted with warm starts, the cheapest exact way
    to cross-validate C), the others in a ``GridSearchCV``; the tuned boosting also stops
    early on 10 % of its training rows (its number of iterations is tuned that way, and
    each fit takes about half the time of the fixed 100 iterations on small tables). The
    grids are small on purpose (2 or 3 values of the one parameter that moved accuracy
    most in trial runs on Adult): a study trains thousands of models, and tuning
    multiplies each fit by about ``grid size * folds + 1``.

    Raises
    ------
    UnknownNameError
        For a name not in :data:`CLASSIFIERS`.
    ImportError
        If scikit-learn is missing (install the ``study`` extra).

    Examples
    --------
    >>> make_classifier("random_forest", seed=1).get_params()["n_estimators"]
    100
    """
    if name not in CLASSIFIERS:
        raise UnknownNameError("classifier", name, CLASSIFIERS)
    _sklearn()
    if tuned:
        from sklearn.model_selection import GridSearchCV, StratifiedKFold

        inner = StratifiedKFold(n_splits=TUNING_FOLDS, shuffle=True, random_state=seed)
        grid = {key: list(values) for key, values in TUNING_GRIDS[name].items()}
        if name == "logistic_regression":
            from sklearn.linear_model import LogisticRegressionCV

            return LogisticRegressionCV(
                Cs=grid["C"], cv=inner, scoring="accuracy", max_iter=1000, random_state=seed
            )
        base = make_classifier(name, seed=seed, n_jobs=n_jobs, categorical=categorical)
        if name == "hist_gradient_boosting":
            base.set_params(early_stopping=True)
        return GridSearchCV(base, grid, cv=inner, scoring="accuracy", n_jobs=1, refit=True)
    if name == "logistic_regression":
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(max_iter=1000, random_state=seed)
    if name == "random_forest":
        from sklearn.ensemble import RandomForestClassifier

        return RandomForestClassifier(
            n_estimators=100,
            max_depth=12,
            min_samples_leaf=5,
            max_features="sqrt",
            max_samples=0.5,
            n_jobs=n_jobs,
            random_state=seed,
        )
    from sklearn.ensemble import HistGradientBoostingClassifier

    mask = None if categorical is None or not any(categorical) else np.asarray(categorical)
    return HistGradientBoostingClassifier(
        max_iter=100, categorical_features=mask, random_state=seed
    )


@contextmanager
def _threads(n_jobs: int) -> Iterator[None]:
    """Limit BLAS / OpenMP threads (HGB, lbfgs) to ``n_jobs`` while fitting."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn
        yield
        return
    with threadpool_limits(limits=n_jobs):
        yield


# ------------------------------------------------------------------------------ scoring
def _target(setup: UtilitySetup, frame: pl.DataFrame, what: str) -> npt.NDArray[np.str_]:
    if setup.target not in frame.columns:
        raise UnknownColumnError([setup.target], frame.columns)
    series = frame[setup.target]
    nulls = series.null_count()
    if nulls:
        raise MissingValuesError(setup.target, nulls)
    if frame.height == 0:
        raise EmptyDataError(what)
    out: npt.NDArray[np.str_] = np.asarray(series.cast(pl.String).to_list(), dtype=np.str_)
    return out


def _scores(y_true: npt.NDArray[Any], y_pred: npt.NDArray[Any]) -> tuple[float, float]:
    """Accuracy and balanced accuracy (mean recall over the classes present in ``y_true``)."""
    accuracy = float(np.mean(y_true == y_pred))
    classes, inverse = np.unique(y_true, return_inverse=True)
    hits = np.bincount(inverse, weights=(y_true == y_pred).astype(np.float64))
    totals = np.bincount(inverse)
    balanced = float(np.mean(hits / totals)) if classes.size else float("nan")
    return accuracy, balanced


def _matrix(features: Features, name: str) -> Any:
    """The layout of ``features`` classifier ``name`` reads (:data:`LAYOUTS`; CSR for
    :data:`SPARSE`); a release that leaves no varying column (everything ``*``) gets one
    zero column, on which every classifier predicts the majority."""
    x: npt.NDArray[np.float32] = getattr(features, LAYOUTS[name])
    if x.shape[1] == 0:
        x = np.zeros((x.shape[0], 1), dtype=np.float32)
    if name in SPARSE:
        from scipy.sparse import csr_matrix

        return csr_matrix(x)
    return x


def _fit_and_score(
    setup: UtilitySetup,
    categorical: Sequence[bool],
    x_train: Features,
    y_train: npt.NDArray[np.str_],
    tests: Sequence[tuple[str, Features, npt.NDArray[np.str_]]],
) -> list[UtilityScore]:
    """Fit every classifier of ``setup`` once and score it on every test set."""
    classes, y_codes = np.unique(y_train, return_inverse=True)
    out: list[UtilityScore] = []
    if classes.size < 2:
        raise DataError(
            f"The target {setup.target!r} has a single value in the train split; "
            "a classifier cannot be trained on it."
        )
    for name in setup.classifiers:
        model = make_classifier(
            name,
            seed=setup.seed,
            n_jobs=setup.n_jobs,
            categorical=categorical,
            tuned=setup.tuning and _tunable(y_codes),
        )
        with _threads(setup.n_jobs), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence chatter; the scores tell
            t0 = time.perf_counter()
            model.fit(_matrix(x_train, name), y_codes)
            fit_s = time.perf_counter() - t0
            for evaluation, x_features, y_test in tests:
                x_test = _matrix(x_features, name)
                t1 = time.perf_counter()
                predicted = model.predict(x_test)
                pred_s = time.perf_counter() - t1
                pred = classes[np.asarray(predicted, dtype=np.int64)]
                acc, bal = _scores(y_test, pred)
                auc = _roc_auc(model, x_test, y_test, classes)
                single = bool(np.unique(predicted).size == 1)
                out.append(UtilityScore(name, evaluation, acc, bal, fit_s, pred_s, auc, single))
    return out


def _tunable(y_codes: npt.NDArray[Any]) -> bool:
    """Whether every class has a member in each inner fold of the tuning."""
    return int(np.bincount(y_codes).min()) >= TUNING_FOLDS


def _roc_auc(model: Any, x: Any, y_true: npt.NDArray[Any], classes: npt.NDArray[Any]) -> float:
    """ROC AUC of ``model``'s class probabilities on ``x`` (NaN when undefined)."""
    present = np.unique(y_true)
    if present.size < 2 or not hasattr(model, "predict_proba"):
        return float("nan")
    from sklearn.metrics import roc_auc_score

    proba = np.asarray(model.predict_proba(x), dtype=np.float64)
    if classes.size == 2:
        return float(roc_auc_score(y_true == classes[1], proba[:, 1]))
    if not np.isin(classes, present).all() or not np.isin(present, classes).all():
        return float("nan")  # one-vs-rest needs every trained class in the test set
    return float(roc_auc_score(y_true, proba, multi_class="ovr", labels=classes))


def utility_scores(
    setup: UtilitySetup,
    train: pl.DataFrame,
    release: pl.DataFrame,
    test: pl.DataFrame,
    *,
    recoded: RecodedTest | None = None,
    transformation: Mapping[str, int] | None = None,
    algorithm: str | None = None,
) -> list[UtilityScore]:
    """Train every classifier on ``release`` and score it on the test split, twice.

    Parameters
    ----------
    setup
        Target, features, classifiers.
    train, release
        The original train split and its release, row-aligned (suppressed records
        written ``*``); the target column of the release (of ``train`` if the release
        lacks it) is the label.
    test
        The held-out split, original values.
    recoded
        The test split recoded like the release (:func:`~anonkit.study.recode.recode_test`);
        computed here when not given (the runner passes it to record its
        ``uncovered_share``).
    transformation, algorithm
        ``AnonymizationResult.transformation`` and ``.algorithm``, used to recode the test
        split when ``recoded`` is not given (inferred from the release if absent too).

    Returns
    -------
    list of UtilityScore
        For each classifier, ``"anonymized_test"`` then ``"original_test"``.

    Raises
    ------
    UnknownColumnError, DataError, MissingValuesError
        For columns missing from a frame, mismatched frames or missing values.

    Examples
    --------
    >>> import polars as pl
    >>> from anonkit.core.hierarchy import Hierarchy
    >>> h = Hierarchy([["a", "*"], ["b", "*"]])
    >>> train = pl.DataFrame({"x": ["a", "b"] * 20, "y": ["0", "1"] * 20})
    >>> setup = UtilitySetup(target="y", quasi_identifiers=("x",), hierarchies={"x": h},
    ...                      classifiers=("logistic_regression",))
    >>> [(s.evaluation, s.accuracy) for s in utility_scores(setup, train, train, train)]
    [('anonymized_test', 1.0), ('original_test', 1.0)]
    """
    y_train = _target(
        setup, release if setup.target in release.columns else train, "The train split"
    )
    if train.height != release.height:
        raise DataError(
            f"The release has {release.height} rows but the train split {train.height}; "
            "they must be row-aligned."
        )
    y_test = _target(setup, test, "The test split")
    if recoded is None:
        recoded = recode_test(
            setup, train, release, test, transformation=transformation, algorithm=algorithm
        )
    encoder, x_train = FeatureEncoder.fit(
        setup, train, release, levels=recoded.levels or None, extra=(test,)
    )
    x_anon = encoder.transform(recoded.frame, test)
    x_orig = encoder.transform(test)
    return _fit_and_score(
        setup,
        encoder.code_categorical,
        x_train,
        y_train,
        [("anonymized_test", x_anon, y_test), ("original_test", x_orig, y_test)],
    )


def baseline_scores(
    setup: UtilitySetup, train: pl.DataFrame, test: pl.DataFrame
) -> list[UtilityScore]:
    """The reference points of a fold: classifiers on the original data, and the majority.

    Every classifier of ``setup`` is trained on the original train split (the identity
    release, encoded like any other) and scored on the original test split
    (``"original_test"``); the majority class of the train split is scored as classifier
    ``"majority"`` (``"original_test"``).

    Examples
    --------
    >>> import polars as pl
    >>> from anonkit.core.hierarchy import Hierarchy
    >>> h = Hierarchy([["a", "*"], ["b", "*"]])
    >>> train = pl.DataFrame({"x": ["a", "b", "b"] * 10, "y": ["0", "1", "1"] * 10})
    >>> setup = UtilitySetup(target="y", quasi_identifiers=("x",), hierarchies={"x": h},
    ...                      classifiers=("logistic_regression",))
    >>> [(s.classifier, round(s.accuracy, 3)) for s in baseline_scores(setup, train, train)]
    [('logistic_regression', 1.0), ('majority', 0.667)]
    """
    y_train = _target(setup, train, "The train split")
    y_test = _target(setup, test, "The test split")
    encoder, x_train = FeatureEncoder.fit(setup, train, train, extra=(test,))
    x_test = encoder.transform(test)
    out = _fit_and_score(
        setup, encoder.code_categorical, x_train, y_train, [("original_test", x_test, y_test)]
    )
    t0 = time.perf_counter()
    classes, counts = np.unique(y_train, return_counts=True)
    majority = classes[int(np.argmax(counts))]  # ties: the first in sort order
    fit_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    pred = np.full(y_test.shape[0], majority)
    pred_s = time.perf_counter() - t1
    acc, bal = _scores(y_test, pred)
    auc = 0.5 if np.unique(y_test).size > 1 else float("nan")  # a constant score
    out.append(UtilityScore("majority", "original_test", acc, bal, fit_s, pred_s, auc, True))
    return out
