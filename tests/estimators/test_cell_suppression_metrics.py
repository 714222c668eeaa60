"""The loss metrics of a full-domain run with local suppression describe the release.

They described the search's node: its suppressed records cost the whole record, while the
release blanks single cells of them, so ``result.metrics`` (the CLI summary, the app's
loss table) disagreed with ``anonkit.evaluate`` (the HTML report) on the same release.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

import anonkit
from anonkit.core.hierarchy import Hierarchy
from anonkit.evaluate import evaluate

FRAME = pl.DataFrame({"a": list("xxxyyyxxx"), "b": list("pppqqqrst")})
HIERARCHIES = {
    "a": Hierarchy([["x", "*"], ["y", "*"]], name="a"),
    "b": Hierarchy([[v, "*"] for v in "pqrst"], name="b"),
}
QI = ["a", "b"]


def _run(**options: object) -> anonkit.AnonymizationResult:
    return anonkit.anonymize(
        FRAME,
        quasi_identifiers=QI,
        hierarchies=HIERARCHIES,
        k=3,
        suppression_limit=0.34,
        algorithm="flash",
        local_suppression=True,
        **options,
    )


def _measured(result: anonkit.AnonymizationResult) -> dict[str, float]:
    ev = evaluate(FRAME, result.release, quasi_identifiers=QI, hierarchies=HIERARCHIES, k=3)
    return {e["name"]: e["value"] for e in ev.to_dict()["loss"]}


@pytest.mark.filterwarnings("ignore")
def test_local_suppression_reports_the_loss_of_the_cells_it_blanked() -> None:
    result = _run()
    assert result.suppressed == 0  # three cells of b blanked, no record
    measured = _measured(result)
    # three cells of 18 at cost 1: LM 1/6; classes of 3, 3, 3: discernibility 27
    assert result.metrics["loss"] == pytest.approx(1 / 6)
    assert result.metrics["discernibility"] == pytest.approx(27)
    for name in (
        "height",
        "relative_distance",
        "precision",
        "loss",
        "discernibility",
        "average_class_size",
        "nonuniform_entropy",
    ):
        assert result.metrics[name] == pytest.approx(measured[name]), name
    assert result.metrics["precision_score"] == pytest.approx(1 - measured["precision"])


@pytest.mark.filterwarnings("ignore")
def test_local_suppression_aggregates_the_loss_as_metric_options_ask() -> None:
    result = _run(metric="loss", metric_options={"aggregate": "geometric", "weights": {"a": 1}})
    # per attribute LM: a 0, b 1/3; weights a 1, b 1 (the default): geometric mean - 1
    assert result.metrics["loss"] == pytest.approx(math.sqrt(1 + 1 / 3) - 1)
