"""FullDomain.evaluate_levels: other transformations of a fitted table, judged like the search."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from anonkit.estimators import FullDomain, Privacy
from anonkit.exceptions import NotFittedError, ParameterError
from anonkit.models import KAnonymity

QI = ["age", "sex", "race"]


@pytest.fixture(scope="module")
def fitted(adult: tuple[pl.DataFrame, dict[str, Path]]) -> FullDomain:
    est = FullDomain("flash", privacy=Privacy(KAnonymity(10), suppression_limit=0.02))
    return est.fit(
        adult[0], quasi_identifiers=QI, hierarchies={c: adult[1][c] for c in QI}, others="drop"
    )


def test_the_chosen_node_judges_as_the_result(fitted: FullDomain) -> None:
    judged = fitted.evaluate_levels(dict(fitted.transformation_))
    result = fitted.result_
    assert judged.private and judged.suppressed == result.suppressed
    assert int(judged.class_sizes.min()) == result.classes.min_size
    assert judged.class_sizes.size == result.classes.n_classes


def test_the_bottom_is_not_private_and_the_top_is(fitted: FullDomain) -> None:
    assert not fitted.evaluate_levels(dict.fromkeys(QI, 0)).private
    top = {c: fitted.hierarchies_[c].height - 1 for c in QI}
    judged = fitted.evaluate_levels(top)
    assert judged.private and judged.class_sizes.size == 1


def test_bad_levels_and_unfitted_estimators_are_refused(fitted: FullDomain) -> None:
    with pytest.raises(ParameterError, match="age: 0.."):
        fitted.evaluate_levels({"age": 99, "sex": 0, "race": 0})
    with pytest.raises(ParameterError, match="levels"):
        fitted.evaluate_levels({"age": 0})
    with pytest.raises(NotFittedError):
        FullDomain().evaluate_levels({"age": 0})
