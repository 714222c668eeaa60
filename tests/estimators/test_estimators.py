"""The estimators: fit returns the fitted estimator, transform recodes new records like the
release, parameters are checked as declared, anonymize accepts an estimator."""

from __future__ import annotations

import inspect

import pandas as pd
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import anonkit
from anonkit.core.hierarchy import Hierarchy
from anonkit.estimators import (
    Estimator,
    FullDomain,
    GreedyMerge,
    Microaggregation,
    Mondrian,
    Privacy,
)
from anonkit.exceptions import (
    NotFittedError,
    ParameterError,
    UnknownColumnError,
    UnknownNameError,
)
from anonkit.io.frames import from_polars
from anonkit.models import DistinctLDiversity, KAnonymity

ZIP = Hierarchy(
    [[z, z[:2] + "*", "*"] for z in ("1301", "1302", "1303", "1401", "1402", "1403")], name="zip"
)
AGES = {"type": "intervals", "widths": [10, 20]}


def _people(n: int = 48) -> pl.DataFrame:
    """Distinct (age, zip) tuples, one outlier, a sensitive and an identifying column."""
    zips = ZIP.leaves
    rows = [(20 + (i * 7) % 30, zips[i % 6]) for i in range(n - 1)]
    rows = list(dict.fromkeys(rows)) + [(90, "1403")]
    return pl.DataFrame(
        {
            "name": [f"p{i}" for i in range(len(rows))],
            "age": [a for a, _ in rows],
            "zip": [z for _, z in rows],
            "disease": [("flu", "cold", "hiv")[i % 3] for i in range(len(rows))],
        }
    )


ROLES = {
    "quasi_identifiers": ["age", "zip"],
    "identifying": ["name"],
    "sensitive": ["disease"],
}


def _fitted(estimator: Estimator, frame: pl.DataFrame) -> Estimator:
    if isinstance(estimator, (Mondrian, Microaggregation)):
        return estimator.fit(frame, hierarchies={"zip": ZIP}, numeric=["age"], **ROLES)
    if isinstance(estimator, GreedyMerge):
        return estimator.fit(frame, hierarchies={"zip": ZIP, "age": AGES}, **ROLES)
    return estimator.fit(frame, hierarchies={"zip": ZIP, "age": AGES}, **ROLES)


K2 = Privacy(KAnonymity(3), suppression_limit=0.05)
FAMILIES = [
    FullDomain(privacy=K2),
    FullDomain("samarati", "height", privacy=K2, suppressed="drop"),
    Mondrian(privacy=Privacy(KAnonymity(3))),
    Mondrian(numeric_release="mean", split="distinct", privacy=Privacy(KAnonymity(3))),
    GreedyMerge(privacy=Privacy(KAnonymity(3))),
    Microaggregation(privacy=Privacy(KAnonymity(3))),
]


def _numbers_only(frame: pl.DataFrame, estimator: Estimator) -> pl.DataFrame:
    """Microaggregation aggregates every quasi-identifier: zip as a number."""
    if isinstance(estimator, Microaggregation):
        return frame.with_columns(pl.col("zip").cast(pl.Int64))
    return frame


@pytest.mark.parametrize("estimator", FAMILIES, ids=repr)
def test_fit_returns_the_fitted_estimator_and_transform_of_train_is_the_release(
    estimator: Estimator,
) -> None:
    frame = _numbers_only(_people(), estimator)
    if isinstance(estimator, Microaggregation):
        fitted = estimator.fit(frame, **ROLES)
    else:
        fitted = _fitted(estimator, frame)
    assert fitted is estimator
    assert fitted.result_.verified
    assert_frame_equal(fitted.transform(frame), fitted.result_.release)
    assert "name" not in fitted.transform(frame).columns


def test_full_domain_suppresses_new_records_of_suppressed_classes() -> None:
    est = _fitted(FullDomain(privacy=K2), _people())
    assert est.result_.suppressed == 1
    levels = dict(est.transformation_)
    new = pl.DataFrame(
        {"name": ["x", "y"], "age": [95, 23], "zip": ["1403", "1302"], "disease": ["flu", "flu"]}
    )
    out = est.transform(new)
    assert out.row(0)[:2] == ("*", "*")
    assert out["zip"][1] == ZIP.generalize("1302", levels["zip"])


def test_full_domain_transform_drops_what_the_release_drops() -> None:
    est = _fitted(FullDomain(privacy=K2, suppressed="drop"), _people())
    new = pl.DataFrame(
        {"name": ["x", "y"], "age": [95, 23], "zip": ["1403", "1302"], "disease": ["flu", "flu"]}
    )
    assert est.transform(new).height == 1


def test_mondrian_puts_new_records_in_the_box_that_contains_them() -> None:
    df = pl.DataFrame({"age": [20, 22, 24, 40, 42, 44], "zip": ["1301"] * 3 + ["1402"] * 3})
    est = Mondrian(privacy=Privacy(KAnonymity(3))).fit(
        df, quasi_identifiers=["age", "zip"], hierarchies={"zip": ZIP}, numeric=["age"]
    )
    # unseen records: ages inside the boxes, and one outside every box (the nearest)
    out = est.transform(pl.DataFrame({"age": [43, 21, 50], "zip": ["1402", "1301", "1402"]}))
    release = est.result_.release
    assert out.row(0) == release.row(3)
    assert out.row(1) == release.row(0)
    assert out.row(2) == release.row(3)


def test_greedy_merge_gives_unseen_records_a_class_that_contains_them() -> None:
    est = _fitted(GreedyMerge(privacy=Privacy(KAnonymity(3))), _people())
    out = est.transform(
        pl.DataFrame({"name": ["x"], "age": [33], "zip": ["1301"], "disease": ["flu"]})
    )
    zip_label = out["zip"][0]
    assert zip_label in ("1301", "13*", "*")
    assert (out.select("age", "zip").row(0)) in set(est.result_.release.select("age", "zip").rows())


def test_microaggregation_gives_new_records_the_nearest_group() -> None:
    df = pl.DataFrame({"age": [20, 21, 22, 60, 61, 62]})
    est = Microaggregation(privacy=Privacy(KAnonymity(3))).fit(df, quasi_identifiers=["age"])
    out = est.transform(pl.DataFrame({"age": [19, 70]}))
    assert out["age"].to_list() == [21.0, 61.0]


def test_transform_keeps_the_frame_type() -> None:
    est = _fitted(FullDomain(privacy=K2), _people())
    out = est.transform(from_polars(_people(), "pandas"))
    assert isinstance(out, pd.DataFrame)
    assert out["zip"].tolist() == est.result_.release["zip"].to_list()


def test_transform_before_fit_says_to_fit() -> None:
    with pytest.raises(NotFittedError, match="not fitted yet"):
        Mondrian().transform(_people())


@pytest.mark.parametrize(
    ("estimator", "message"),
    [
        (
            Mondrian(mode="loose", privacy=K2),
            "The 'mode' parameter of Mondrian must be 'strict' or 'relaxed'. Got 'loose'",
        ),
        (
            Microaggregation(aggregate="max", privacy=K2),
            "The 'aggregate' parameter of Microaggregation must be 'mean', 'median' or 'mode'",
        ),
        (FullDomain(search="fast", privacy=K2), "The 'search' parameter of FullDomain"),
        (
            GreedyMerge(),
            "The 'privacy' parameter of GreedyMerge must be a Privacy(models, "
            "suppression_limit, population). Got None",
        ),
        (FullDomain(leak_check="yes", privacy=K2), "The 'leak_check' parameter of FullDomain"),
        (
            FullDomain(privacy=Privacy(KAnonymity(2), suppression_limit=2)),
            "The 'suppression_limit' parameter of Privacy must be a share between 0 and 1",
        ),
        (
            FullDomain(privacy=Privacy()),
            "The 'models' parameter of Privacy must be a privacy model or a list of them.",
        ),
        # a TypeError ('int' object is not iterable) before
        (
            FullDomain(metric_options=3, privacy=K2),
            "The 'metric_options' parameter of FullDomain must be None or a mapping",
        ),
        # these named 'Auto', a class the user never made
        (
            FullDomain(time_limit=-1, privacy=K2),
            "The 'time_limit' parameter of FullDomain must be None or seconds > 0. Got -1",
        ),
        (
            FullDomain(max_nodes=1.5, privacy=K2),
            "The 'max_nodes' parameter of FullDomain must be None or an int >= 1. Got 1.5",
        ),
        (
            FullDomain(seed=True, privacy=K2),
            "The 'seed' parameter of FullDomain must be None or an int >= 0. Got True",
        ),
    ],
    ids=repr,
)
def test_parameter_constraints_are_checked_when_fit_runs(
    estimator: Estimator, message: str
) -> None:
    with pytest.raises(ParameterError) as info:
        _fitted(estimator, _people())
    assert message in str(info.value)


def test_parameters_are_stored_unchanged() -> None:
    est = Mondrian("relaxed", "distinct", privacy=K2)
    assert est.get_params(deep=False) == {
        "mode": "relaxed",
        "split": "distinct",
        "numeric_release": "range",
        "engine": "polars",
        "memory_share": 0.25,
        "max_block_records": 1_000_000,
        "output": None,
        "output_separator": None,
        "privacy": K2,
        "leak_check": True,
        "progress": None,
    }
    assert repr(est).startswith("Mondrian(mode='relaxed', split='distinct'")
    deep = est.get_params()
    assert deep["privacy__suppression_limit"] == 0.05 and deep["privacy__models__k"] == 3


def _every_estimator() -> list[Estimator]:
    from anonkit.estimators import BangA, Hilbert, KEpsilon, KOptimize, SafePub

    lazy = [Hilbert(), BangA(4), KOptimize(), SafePub(epsilon=1.0), KEpsilon(noisy="x")]
    return [*FAMILIES, *lazy]


@pytest.mark.parametrize("estimator", _every_estimator(), ids=repr)
def test_sklearn_clone_and_set_params(estimator: Estimator) -> None:
    # get_params took no ``deep`` and set_params did not exist: sklearn.base.clone and
    # parameter grids failed with TypeError / AttributeError.
    from sklearn.base import clone

    copy = clone(estimator)
    assert type(copy) is type(estimator) and copy is not estimator
    assert copy.get_params(deep=False) == estimator.get_params(deep=False)
    assert repr(copy) == repr(estimator)
    assert copy.set_params(leak_check=False) is copy
    assert copy.leak_check is False and estimator.leak_check is True
    with pytest.raises(UnknownNameError, match="Unknown parameter 'unknown' of "):
        copy.set_params(unknown=1)


@pytest.mark.parametrize("estimator", _every_estimator(), ids=repr)
def test_sklearn_check_is_fitted_and_tags(estimator: Estimator) -> None:
    # check_is_fitted raised AttributeError: no __sklearn_tags__ in the class's MRO.
    from sklearn.exceptions import NotFittedError as SklearnNotFitted
    from sklearn.utils import get_tags
    from sklearn.utils.validation import check_is_fitted

    copy = clone_of(estimator)
    with pytest.raises(SklearnNotFitted):
        check_is_fitted(copy)
    tags = get_tags(copy)
    assert tags.requires_fit and tags.input_tags.string and tags.input_tags.categorical
    assert not tags.target_tags.required
    copy.result_ = object()  # what a fit leaves
    check_is_fitted(copy)


def test_set_params_reaches_the_privacy_fields_and_is_checked_at_fit() -> None:
    est = FullDomain(privacy=K2)
    est.set_params(privacy__suppression_limit=0.0, privacy__models__k=2)
    assert est.privacy == Privacy(KAnonymity(2)) and K2.suppression_limit == 0.05
    with pytest.raises(UnknownNameError, match="'size' of models"):
        est.set_params(privacy__models__size=2)
    est.set_params(privacy__suppression_limit=2)  # stored unchecked, like scikit-learn
    with pytest.raises(ParameterError, match="'suppression_limit' parameter of Privacy"):
        _fitted(est, _people())
    est.set_params(privacy=K2, leak_check="yes")
    with pytest.raises(ParameterError, match="'leak_check' parameter of FullDomain"):
        _fitted(est, _people())
    fitted = _fitted(est.set_params(leak_check=True), _people())
    assert not hasattr(clone_of(fitted), "result_")


def clone_of(estimator: Estimator) -> Estimator:
    from sklearn.base import clone

    return clone(estimator)


def test_anonymize_accepts_an_estimator() -> None:
    frame = _people()
    keywords = {"hierarchies": {"zip": ZIP}, "numeric": ["age"], **ROLES}
    flat = anonkit.anonymize(frame, k=3, algorithm="mondrian", mode="relaxed", **keywords)
    given = anonkit.anonymize(frame, k=3, algorithm=Mondrian("relaxed"), **keywords)
    held = anonkit.anonymize(
        frame, algorithm=Mondrian("relaxed", privacy=Privacy(KAnonymity(3))), **keywords
    )
    for res in (given, held):
        assert_frame_equal(res.release, flat.release)
        assert res.to_dict()["details"] == flat.to_dict()["details"]


def test_anonymize_refuses_privacy_in_two_places() -> None:
    with pytest.raises(ParameterError, match="give it in one place"):
        anonkit.anonymize(_people(), k=2, algorithm=Mondrian(privacy=K2), numeric=["age"], **ROLES)


def test_privacy_takes_one_model_or_several() -> None:
    p = Privacy([KAnonymity(2), DistinctLDiversity("disease", 2)], suppression_limit=0.1)
    assert p.describe() == [m.describe() for m in p.models]  # type: ignore[union-attr]
    assert len(p.model_list) == 2
    assert Privacy(KAnonymity(2)).model_list == [KAnonymity(2)]


def test_anonymizer_maps_onto_an_estimator() -> None:
    est = anonkit.Anonymizer(
        quasi_identifiers=["age"], k=2, algorithm="microaggregation", method="univariate"
    ).estimator()
    assert isinstance(est, Microaggregation) and est.method == "univariate"


def test_the_result_says_which_family_ran() -> None:
    local = _fitted(Mondrian(privacy=Privacy(KAnonymity(3))), _people()).result_
    full = _fitted(FullDomain(privacy=K2), _people()).result_
    assert (local.family, full.family) == ("local", "full_domain")
    assert local.to_dict()["family"] == "local" and local.to_dict()["lattice_size"] == 0


def test_anonymize_declares_the_keywords_of_anonymizer() -> None:
    params = inspect.signature(anonkit.anonymize).parameters
    assert list(params)[:3] == ["frame", "quasi_identifiers", "hierarchies"]
    assert params["algorithm"].default == "auto" and "mode" in params
    assert "Examples" in (anonkit.anonymize.__doc__ or "")


def test_metric_names_what_the_algorithm_minimized() -> None:
    frame = _people()
    merged = _fitted(GreedyMerge("llm", privacy=Privacy(KAnonymity(3))), frame).result_
    assert merged.metric == "cost_llm" and "cost_llm" in merged.metrics
    numbers = frame.with_columns(pl.col("zip").cast(pl.Int64))
    aggregated = Microaggregation(privacy=Privacy(KAnonymity(3))).fit(numbers, **ROLES).result_
    assert aggregated.metric == "sse" and "sse" in aggregated.metrics
    assert _fitted(Mondrian(privacy=Privacy(KAnonymity(3))), frame).result_.metric == "none"


@pytest.mark.parametrize("estimator", FAMILIES[:1] + FAMILIES[2:3] + FAMILIES[4:], ids=repr)
def test_transform_of_no_records_is_empty(estimator: Estimator) -> None:
    frame = _numbers_only(_people(), estimator)
    if isinstance(estimator, Microaggregation):
        fitted = estimator.fit(frame, **ROLES)
    else:
        fitted = _fitted(estimator, frame)
    out = fitted.transform(frame.head(0))
    assert out.height == 0 and out.columns == fitted.result_.release.columns


def test_greedy_merge_estimator_takes_a_seeded_random_order() -> None:
    """The estimator passes ``order``, ``seed`` and ``fuse`` to the merging: the same seed
    gives the same (verified) release; a bad order names the parameter."""
    privacy = Privacy(KAnonymity(3))
    runs = [
        _fitted(GreedyMerge(order="random", seed=seed, privacy=privacy), _people()).result_
        for seed in (7, 7)
    ]
    assert runs[0].verified and runs[0].release.equals(runs[1].release)
    assert runs[0].details["greedy_merge"]["order"] == "random"
    unfused = _fitted(GreedyMerge(fuse=False, privacy=privacy), _people()).result_
    assert unfused.verified
    with pytest.raises(ParameterError, match="The 'order' parameter of GreedyMerge"):
        _fitted(GreedyMerge(order="shuffled", privacy=privacy), _people())


@pytest.mark.parametrize("estimator", FAMILIES, ids=repr)
def test_a_fitted_estimator_pickles_and_copies_and_transforms_as_before(
    estimator: Estimator,
) -> None:
    """Saved with pickle (joblib uses it) or deep-copied, a fitted estimator keeps its
    result and transforms new records as the original does."""
    import copy
    import pickle

    frame = _numbers_only(_people(), estimator)
    frame = frame.with_columns(("Quixote-" + pl.col("name")).alias("name"))
    if isinstance(estimator, Microaggregation):
        fitted = copy.deepcopy(estimator).fit(frame, **ROLES)
    else:
        fitted = _fitted(copy.deepcopy(estimator), frame)
    new = frame.sample(12, seed=3)
    saved = pickle.dumps(fitted)
    assert b"Quixote" not in saved  # the identifying column is not kept
    for twin in (pickle.loads(saved), copy.deepcopy(fitted)):
        assert_frame_equal(twin.transform(new), fitted.transform(new))
        assert_frame_equal(twin.result_.release, fitted.result_.release)
        assert dict(twin.result_.details) == dict(fitted.result_.details)
        assert twin.result_.checks == fitted.result_.checks


@pytest.mark.parametrize("estimator", FAMILIES, ids=repr)
def test_a_fitted_estimator_keeps_no_pandas_categories_of_columns_it_drops(
    estimator: Estimator,
) -> None:
    """The pandas types a fit remembers for its release held the categories of every
    column, an identifying one's names too, in the fitted (pickled) estimator."""
    import copy
    import pickle

    frame = _numbers_only(_people(), estimator)
    frame = frame.with_columns(("Quixote-" + pl.col("name")).alias("name"))
    frame = pd.DataFrame({c: frame[c].to_list() for c in frame.columns})
    frame["name"] = frame["name"].astype("category")
    if isinstance(estimator, Microaggregation):
        fitted = copy.deepcopy(estimator).fit(frame, **ROLES)
    else:
        fitted = _fitted(copy.deepcopy(estimator), frame)
    assert b"Quixote" not in pickle.dumps(fitted)


def test_an_anonymization_result_pickles() -> None:
    import pickle

    result = anonkit.anonymize(_people(), hierarchies={"zip": ZIP, "age": AGES}, k=3, **ROLES)
    again = pickle.loads(pickle.dumps(result))
    assert_frame_equal(again.release, result.release)
    assert again.transformation == result.transformation and again.risk == result.risk


@pytest.mark.parametrize("estimator", FAMILIES, ids=repr)
def test_transform_refuses_columns_the_fit_never_saw(estimator: Estimator) -> None:
    """A column of the new frame that was not in the training table has no role: it is an
    error, as in fit, not a column published as is (it was, unchecked)."""
    from anonkit.exceptions import UndeclaredColumnsError

    frame = _numbers_only(_people(), estimator)
    if isinstance(estimator, Microaggregation):
        fitted = estimator.fit(frame, **ROLES)
    else:
        fitted = _fitted(estimator, frame)
    new = frame.head(6).with_columns(pl.lit("123-45-6789").alias("ssn"))
    with pytest.raises(UndeclaredColumnsError, match="'ssn'") as err:
        fitted.transform(new)
    assert "fitted on" in str(err.value)
    assert fitted.transform(frame.head(6)).height == 6  # the training columns still pass


def test_transform_drops_unseen_columns_when_the_fit_dropped_undeclared_ones() -> None:
    frame = _people().with_columns(pl.lit("x").alias("note"))
    fitted = FullDomain(privacy=K2).fit(
        frame, hierarchies={"zip": ZIP, "age": AGES}, others="drop", **ROLES
    )
    new = frame.head(6).with_columns(pl.lit("123-45-6789").alias("ssn"))
    out = fitted.transform(new)
    assert "ssn" not in out.columns and "note" not in out.columns


@pytest.mark.parametrize(
    "algorithm", ["mondrian", "greedy_merge", "hilbert", "banga", "k_optimize"]
)
def test_a_decimal_column_with_a_hierarchy_is_released_and_measured(algorithm: str) -> None:
    """Decimal quasi-identifiers generalized on a hierarchy: the loss measured on the
    release read them as numbers of object dtype and failed inside polars."""
    frame = pl.DataFrame(
        {
            "age": pl.Series([21, 22, 23, 35, 36, 37, 50, 51]).cast(pl.Decimal(10, 2)),
            "zip": ["1301", "1302", "1301", "1401", "1402", "1401", "1301", "1402"],
        }
    )
    result = anonkit.anonymize(
        frame,
        quasi_identifiers=["age", "zip"],
        hierarchies={"age": AGES, "zip": ZIP},
        k=2,
        algorithm=algorithm,
    )
    assert result.verified and result.release.height == 8
    assert result.release.group_by(["age", "zip"]).len()["len"].min() >= 2
    assert 0.0 <= result.metrics["loss"] <= 1.0


@pytest.mark.parametrize(
    ("weights", "match"),
    [
        ({"age": -1.0}, "finite numbers > 0"),
        ({"age": float("nan")}, "finite numbers > 0"),
        ({"age": "high"}, "finite numbers > 0"),
        ({"agee": 2.0}, "quasi-identifiers"),
        ({"disease": 2.0}, "quasi-identifiers"),
    ],
)
def test_local_suppression_weights_are_checked_even_when_nothing_is_suppressed(
    weights: dict[str, object], match: str
) -> None:
    """Bad importance weights were accepted whenever the search suppressed no record (they
    were read only by the cell suppression), and otherwise named 'importance', a parameter
    the caller never gave."""
    frame = _people()
    keywords = {"hierarchies": {"zip": ZIP, "age": AGES}, "k": 2, **ROLES}
    with pytest.raises(ParameterError, match=f"'local_suppression'.*{match}"):
        anonkit.anonymize(frame, local_suppression=weights, **keywords)
    with pytest.raises(ParameterError, match=f"'local_suppression'.*{match}"):
        anonkit.anonymize(frame, local_suppression=weights, suppression_limit=0.5, **keywords)
    fine = anonkit.anonymize(frame, local_suppression={"age": 2.0}, **keywords)
    assert fine.verified


@pytest.mark.parametrize("algorithm", ["mondrian", "hilbert", "banga", "k_optimize"])
def test_numeric_columns_outside_the_quasi_identifiers_are_named_as_such(algorithm: str) -> None:
    """'numeric' naming a column of the data that is not a quasi-identifier was reported
    as an unknown column, with the quasi-identifiers listed as what "the data has"."""
    frame = _people().drop("name")
    keywords = {"hierarchies": {"zip": ZIP}, "k": 2, "algorithm": algorithm}
    with pytest.raises(ParameterError, match=r"'numeric'.*quasi-identifiers.*\['age'\]"):
        anonkit.anonymize(
            frame,
            quasi_identifiers=["zip"],
            insensitive=["age", "disease"],
            numeric=["age"],
            **keywords,
        )
    with pytest.raises(UnknownColumnError, match=r"'agee' \(did you mean 'age'\?\).*'disease'"):
        anonkit.anonymize(
            frame,
            quasi_identifiers=["zip", "age"],
            sensitive=["disease"],
            numeric=["agee"],
            **keywords,
        )


@pytest.mark.parametrize(
    ("algorithm", "options"),
    [
        ("flash", {}),
        ("exhaustive", {}),
        ("greedy_merge", {}),
        ("safepub", {"options": {"epsilon": 2.0}}),
        ("k_epsilon", {"options": {"epsilon": 2.0, "noisy": ["age"]}}),
    ],
)
def test_numeric_is_refused_by_the_algorithms_that_would_ignore_it(
    algorithm: str, options: dict[str, object]
) -> None:
    """'numeric' with an algorithm that generalizes every column by its hierarchy was
    ignored without a word: with flash, age went out generalized as if never named."""
    frame = _people().drop("name")
    privacy = {} if algorithm == "safepub" else {"k": 2}
    with pytest.raises(ParameterError, match=rf"'numeric'.*algorithm='{algorithm}'.*\['age'\]"):
        anonkit.anonymize(
            frame,
            quasi_identifiers=["zip", "age"],
            hierarchies={"zip": ZIP, "age": AGES},
            sensitive=["disease"],
            numeric=["age"],
            algorithm=algorithm,
            **privacy,
            **options,
        )


@pytest.mark.parametrize(
    "algorithm", ["greedy_merge", "microaggregation", "hilbert", "banga", "k_optimize"]
)
@pytest.mark.parametrize("engine", ["streaming", "spark"])
def test_an_engine_is_refused_by_the_algorithms_that_would_ignore_it(
    algorithm: str, engine: str
) -> None:
    """engine='streaming' with Hilbert, BangA or k-Optimize was ignored without a word:
    the table was read into memory and a DataFrame came back."""
    with pytest.raises(ParameterError, match=rf"'engine'.*'polars' or 'auto' with {algorithm}"):
        anonkit.anonymize(
            _people().drop("name"),
            quasi_identifiers=["zip", "age"],
            hierarchies={"zip": ZIP, "age": AGES},
            sensitive=["disease"],
            algorithm=algorithm,
            engine=engine,
            k=2,
        )


@pytest.mark.parametrize(
    "estimator", [FullDomain(privacy=K2), GreedyMerge(privacy=Privacy(KAnonymity(3)))], ids=repr
)
def test_an_estimator_that_ignores_numbers_refuses_numeric(estimator: Estimator) -> None:
    with pytest.raises(ParameterError, match=rf"'numeric' parameter of {type(estimator).__name__}"):
        estimator.fit(_people(), hierarchies={"zip": ZIP, "age": AGES}, numeric=["age"], **ROLES)


def test_the_estimators_named_as_reading_numbers_are_those_that_do() -> None:
    from anonkit import estimators
    from anonkit.estimators.base import NUMBER_ESTIMATORS

    classes = {name: getattr(estimators, name) for name in estimators.__all__}
    readers = {
        n for n, c in classes.items() if isinstance(c, type) and getattr(c, "reads_numbers", False)
    }
    assert readers == set(NUMBER_ESTIMATORS)


def test_a_refit_keeps_nothing_of_the_fit_before(
    adult_frame: pl.DataFrame, adult_hierarchies
) -> None:
    """A refit through the streaming engine kept the in-memory fit's release (``_masked``,
    its records in every pickle), FullDomain's node evaluator over the first table
    (evaluate_levels answered with the first table's counts) and Mondrian's first
    hierarchies; a refit now starts from the parameters alone."""
    import pickle

    first, second = adult_frame.head(3000), adult_frame.slice(3000, 2000)
    qa, qb = ["sex", "age", "race"], ["marital-status", "workclass"]
    for make in (
        lambda: FullDomain(privacy=Privacy(KAnonymity(3)), engine="auto"),
        lambda: Mondrian(privacy=Privacy(KAnonymity(3)), engine="auto"),
    ):
        est = make().fit(
            first,
            quasi_identifiers=qa,
            hierarchies={c: adult_hierarchies[c] for c in qa},
            others="drop",
        )
        if isinstance(est, FullDomain):
            est.evaluate_levels(dict.fromkeys(qa, 0))
        est.fit(
            second.lazy(),
            quasi_identifiers=qb,
            hierarchies={c: adult_hierarchies[c] for c in qb},
            others="drop",
        )
        fresh = make().fit(
            second.lazy(),
            quasi_identifiers=qb,
            hierarchies={c: adult_hierarchies[c] for c in qb},
            others="drop",
        )
        assert sorted(vars(est)) == sorted(vars(fresh))
        assert list(getattr(est, "hierarchies_", qb)) == qb  # the first fit's were kept
        assert len(pickle.dumps(est)) < 2 * len(pickle.dumps(fresh))
    in_memory = FullDomain(privacy=Privacy(KAnonymity(3)))
    in_memory.fit(
        first,
        quasi_identifiers=qa,
        hierarchies={c: adult_hierarchies[c] for c in qa},
        others="drop",
    )
    in_memory.evaluate_levels(dict.fromkeys(qa, 0))
    in_memory.fit(
        second,
        quasi_identifiers=qa,
        hierarchies={c: adult_hierarchies[c] for c in qa},
        others="drop",
    )
    again = in_memory.evaluate_levels(dict.fromkeys(qa, 0))
    assert int(again.class_sizes.sum()) + again.suppressed == second.height


def test_transform_recodes_as_the_fit_did_until_the_next_fit(
    adult_frame: pl.DataFrame, adult_hierarchies
) -> None:
    """set_params(suppressed="drop") after the fit made transform drop records, and
    set_params(local_suppression=True) stopped it masking those of suppressed classes:
    transform read the parameters of now, not those of the fit."""
    qi = ["sex", "age", "race", "education"]
    train, new = adult_frame.head(2000), adult_frame.slice(2000, 2000)
    fd = FullDomain(privacy=Privacy(KAnonymity(5), suppression_limit=0.05))
    fd.fit(
        train,
        quasi_identifiers=qi,
        hierarchies={c: adult_hierarchies[c] for c in qi},
        others="drop",
    )
    assert fd.result_.suppressed  # classes were suppressed, so transform masks some records
    before = fd.transform(new)
    for change in ({"suppressed": "drop"}, {"local_suppression": True}):
        fd.set_params(**change)
        assert fd.transform(new).equals(before)


@pytest.mark.parametrize(
    "keyword",
    [{"suppressed": "drop"}, {"leak_check": False}, {"time_limit": 3.0}, {"mode": "relaxed"}],
)
def test_an_estimator_as_algorithm_refuses_keywords_it_would_ignore(
    keyword: dict[str, object],
) -> None:
    """anonymize(frame, algorithm=Mondrian(...), suppressed="drop") dropped the keyword
    without a word: the estimator's own parameter was used."""
    with pytest.raises(ParameterError, match=f"'{next(iter(keyword))}'.*on the estimator"):
        anonkit.anonymize(
            _people().drop("name"),
            quasi_identifiers=["zip", "age"],
            hierarchies={"zip": ZIP, "age": AGES},
            sensitive=["disease"],
            algorithm=Mondrian(privacy=Privacy(KAnonymity(2))),
            **keyword,
        )


def test_evaluate_levels_after_a_streamed_fit_names_itself_and_the_engine(
    adult_frame: pl.DataFrame, adult_hierarchies
) -> None:
    """It said 'not fitted yet; call its fit(frame, ...) before transform' of an
    estimator fitted on the streaming engine."""
    qi = ["sex", "race"]
    fd = FullDomain(privacy=Privacy(KAnonymity(3)), engine="streaming")
    fd.fit(adult_frame.head(500).lazy(), quasi_identifiers=qi,
           hierarchies={c: adult_hierarchies[c] for c in qi}, others="drop")  # fmt: skip
    with pytest.raises(NotFittedError, match="engine='streaming'.*evaluate_levels"):
        fd.evaluate_levels(dict.fromkeys(qi, 0))
    with pytest.raises(NotFittedError, match="before evaluate_levels"):
        FullDomain().evaluate_levels({"sex": 0})
