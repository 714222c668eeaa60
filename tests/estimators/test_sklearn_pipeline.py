"""scikit-learn's calling convention: ``fit(X, y)`` and ``fit_transform(X, y)`` with ``y``
None, so that an estimator can be the last step of a ``Pipeline``, its column roles passed
as the step's fit parameters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

from anonkit.estimators import FullDomain, Mondrian, Privacy
from anonkit.estimators.safepub import SafePub
from anonkit.exceptions import ParameterError
from anonkit.models import KAnonymity

pipeline = pytest.importorskip("sklearn.pipeline")
preprocessing = pytest.importorskip("sklearn.preprocessing")

ZIPS = pl.DataFrame({"zip": np.random.default_rng(0).choice(["100", "101", "110", "111"], 100)})


def _full_domain() -> FullDomain:
    return FullDomain(search="flash", privacy=Privacy(KAnonymity(5)))


def test_fit_and_fit_transform_take_y_none_positionally() -> None:
    """fit(X, None) and fit_transform(X, None) raised TypeError: too many positional
    arguments."""
    est = _full_domain()
    assert est.fit(ZIPS, None, quasi_identifiers=["zip"]) is est
    released = _full_domain().fit_transform(ZIPS, None, quasi_identifiers=["zip"])
    assert released.equals(est.result_.release)
    assert _full_domain().fit(ZIPS, y=None, quasi_identifiers=["zip"]).result_.verified


@pytest.mark.parametrize("y", [np.zeros(100), ZIPS["zip"], [0] * 100])
def test_a_target_is_refused_naming_y(y: object) -> None:
    with pytest.raises(ParameterError, match=r"'y' parameter of FullDomain.fit must be None"):
        _full_domain().fit(ZIPS, y, quasi_identifiers=["zip"])
    with pytest.raises(ParameterError, match=r"'y' parameter of FullDomain.fit_transform"):
        _full_domain().fit_transform(ZIPS, y, quasi_identifiers=["zip"])
    with pytest.raises(ParameterError, match=r"'y' parameter of SafePub.fit"):
        SafePub().fit(ZIPS.head(4), y, quasi_identifiers=["zip"])  # before its own checks


def test_an_estimator_is_the_last_step_of_a_pipeline() -> None:
    """The roles pass as the step's fit parameters (``<step>__quasi_identifiers``), with
    scikit-learn's metadata routing off (its default)."""
    alone = _full_domain().fit(ZIPS, quasi_identifiers=["zip"])
    pipe = pipeline.Pipeline([("anon", _full_domain())])
    assert pipe.fit(ZIPS, anon__quasi_identifiers=["zip"]) is pipe
    assert pipe.named_steps["anon"].result_.release.equals(alone.result_.release)
    assert pipe.transform(ZIPS).equals(alone.transform(ZIPS))
    released = pipeline.Pipeline([("anon", _full_domain())]).fit_transform(
        ZIPS, anon__quasi_identifiers=["zip"]
    )
    assert released.equals(alone.result_.release)


def test_a_pipeline_feeds_an_estimator_a_pandas_frame() -> None:
    """A transformer before the estimator, set to give pandas frames (set_output)."""
    frame = pd.DataFrame({"age": [21.0, 23.0, 25.0, 27.0, 41.0, 43.0, 45.0, 47.0]})
    scale = preprocessing.FunctionTransformer(lambda x: x + 1).set_output(transform="pandas")
    pipe = pipeline.Pipeline([("shift", scale), ("anon", Mondrian(privacy=Privacy(KAnonymity(4))))])
    out = pipe.fit_transform(frame, anon__quasi_identifiers=["age"], anon__numeric=["age"])
    assert isinstance(out, pd.DataFrame)
    assert out["age"].tolist() == ["[22-28]"] * 4 + ["[42-48]"] * 4
