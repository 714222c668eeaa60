"""evaluate() announces its steps to a staged progress callback."""

from __future__ import annotations

import polars as pl

from anonkit.evaluate import evaluate


class Steps:
    def __init__(self) -> None:
        self.names: list[str] = []

    def __call__(self, done: int, total: int) -> None:
        assert 0 <= done <= total

    def stage(self, name: str, unit: str = "") -> None:
        self.names.append(name)


ORIGINAL = pl.DataFrame(
    {"age": [21, 23, 35, 38], "sex": ["m", "f", "m", "f"], "dx": ["a", "b", "a", "b"]}
)
RELEASE = pl.DataFrame(
    {"age": ["[20-30[", "[20-30[", "[30-40[", "[30-40["], "sex": ["*"] * 4, "dx": ["a", "b"] * 2}
)


def test_evaluate_announces_matching_loss_and_risk() -> None:
    steps = Steps()
    plain = evaluate(ORIGINAL, RELEASE, quasi_identifiers=["age", "sex"], numeric=["age"])
    ev = evaluate(
        ORIGINAL, RELEASE, quasi_identifiers=["age", "sex"], numeric=["age"], progress=steps
    )
    assert steps.names == ["Matching the release", "Measuring loss", "Measuring risk"]
    assert ev.loss == plain.loss


def test_evaluate_announces_diversity_when_sensitive() -> None:
    steps = Steps()
    evaluate(
        ORIGINAL,
        RELEASE,
        quasi_identifiers=["age", "sex"],
        numeric=["age"],
        sensitive=["dx"],
        progress=steps,
    )
    assert steps.names[-1] == "Measuring l-diversity"


def test_evaluate_accepts_a_plain_function() -> None:
    calls: list[tuple[int, int]] = []
    evaluate(
        ORIGINAL,
        RELEASE,
        quasi_identifiers=["age", "sex"],
        numeric=["age"],
        progress=lambda d, t: calls.append((d, t)),
    )
