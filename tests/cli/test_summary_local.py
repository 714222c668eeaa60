"""The summary table of a local recoding says what the algorithm did, not lattice fields."""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl
import pytest
from rich.console import Console

import anonkit
from anonkit.cli.common import summary_table
from anonkit.result import AnonymizationResult


def render(result: AnonymizationResult) -> str:
    console = Console(record=True, width=300, color_system=None)
    console.print(summary_table(result))
    return console.export_text()


def row(text: str, item: str) -> str:
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if cells and cells[0] == item:
            return cells[1]
    raise AssertionError(f"no row {item!r} in\n{text}")


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    rng = np.random.default_rng(0)
    return pl.DataFrame(
        {
            "age": rng.integers(20, 70, 200),
            "height": rng.integers(150, 200, 200),
            "zip": [str(z) for z in rng.integers(0, 8, 200)],
        }
    )


def test_mondrian_summary_shows_partitions(frame: pl.DataFrame) -> None:
    res = anonkit.anonymize(
        frame,
        quasi_identifiers=["age", "zip"],
        numeric=["age"],
        k=5,
        algorithm="mondrian",
        others="keep",
    )
    text = render(res)
    assert "nodes evaluated" not in text and "transformation" not in text
    d = res.details["mondrian"]
    assert row(text, "recoding") == "local: Mondrian, strict mode, split widest, numbers as range"
    assert row(text, "partitioning") == (
        f"{d['partitions']:,} partitions from {d['cuts']:,} cuts in {d['rounds']:,} rounds"
    )


def test_greedy_merge_summary_shows_merges(frame: pl.DataFrame) -> None:
    res = anonkit.anonymize(
        frame, quasi_identifiers=["zip", "age"], k=5, algorithm="greedy_merge", others="keep"
    )
    text = render(res)
    assert "nodes evaluated" not in text and "transformation" not in text
    d = res.details["greedy_merge"]
    assert row(text, "recoding") == "local: greedy merging, cost nllm, small class first"
    assert row(text, "merging") == (
        f"{d['n_merges']:,} merges ({d['n_fused']:,} fused), {d['n_initial_classes']:,} "
        f"→ {d['n_classes']:,} classes, effective k {d['effective_k']:,}"
    )


def test_microaggregation_summary_shows_groups(frame: pl.DataFrame) -> None:
    res = anonkit.anonymize(
        frame,
        quasi_identifiers=["age", "height"],
        k=4,
        algorithm="microaggregation",
        others="keep",
    )
    text = render(res)
    assert "nodes evaluated" not in text and "transformation" not in text
    d = res.details["microaggregation"]
    assert row(text, "recoding") == "local: microaggregation, mdav, mean"
    assert row(text, "grouping") == (
        f"{d['n_groups']:,} groups of {d['min_group_size']:,}-{d['max_group_size']:,} records"
    )


def test_full_domain_summary_keeps_lattice_rows(frame: pl.DataFrame) -> None:
    res = anonkit.anonymize(frame, quasi_identifiers=["zip"], k=5, others="keep")
    text = render(res)
    assert row(text, "transformation").startswith("zip=")
    assert row(text, "search").endswith("nodes evaluated")
    assert "recoding" not in text


def test_heuristic_summary_says_the_release_is_not_proven_optimal(frame: pl.DataFrame) -> None:
    """A wide table's run (auto picks Lightning) printed 'lightning / loss' and the nodes
    evaluated, nothing about the release not being the best one or how to search longer;
    the JSON summary alone said so."""
    res = anonkit.anonymize(
        frame,
        quasi_identifiers=["age", "height", "zip"],
        hierarchies={
            "age": {"type": "intervals", "widths": [5, 10, 20]},
            "height": {"type": "intervals", "widths": [5, 10, 20]},
        },
        k=5,
        suppression_limit=0.1,
        algorithm="lightning",
        others="keep",
        max_nodes=2,
    )
    assert res.details["search"]["optimal"] is False
    flat = " ".join(render(res).replace("│", " ").split())
    assert "not proven optimal: lightning stopped at its node budget (a larger max_nodes" in flat
    assert res.search_note is not None and res.search_note in flat


def test_exact_summary_says_nothing_of_optimality(frame: pl.DataFrame) -> None:
    res = anonkit.anonymize(frame, quasi_identifiers=["zip"], k=5, others="keep")
    assert res.details["search"]["optimal"] is True
    assert res.search_note is None and "optimal" not in render(res)


@pytest.mark.parametrize(
    ("stopped", "says"),
    [
        ("time_limit", "lightning stopped at its time limit (a larger time_limit"),
        ("interrupted", "lightning was interrupted: the best release found until then"),
        ("finished", 'lightning is a heuristic (algorithm="flash" proves the optimum)'),
    ],
)
def test_search_note_names_why_the_search_stopped(
    frame: pl.DataFrame, stopped: str, says: str
) -> None:
    res = anonkit.anonymize(frame, quasi_identifiers=["zip"], k=5, others="keep")
    search = {"algorithm": "lightning", "optimal": False, "stopped": stopped}
    heuristic = dataclasses.replace(res, details={**res.details, "search": search})
    assert heuristic.search_note is not None
    assert heuristic.search_note.startswith(f"not proven optimal: {says}")
