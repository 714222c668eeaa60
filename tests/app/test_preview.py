"""The hierarchy editor's preview: what a builder or a file gives on the column's real
values, level by level, before it is applied."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from anonkit.app import preview, workflow
from anonkit.core.hierarchy_builders import build_hierarchy
from anonkit.exceptions import ConfigError, ParameterError, ValuesNotInHierarchyError

FRAME = pl.DataFrame(
    {
        "age": [str(17 + (i * 7) % 60) for i in range(60)],
        "zip": [f"021{i % 7}{i % 3}" for i in range(60)],
        "born": [f"2020-{1 + i % 12:02d}-{1 + i % 28:02d}" for i in range(60)],
        "grade": [["low", "mid", "high", "top"][i % 4] for i in range(60)],
    }
)


def _levels_by_hand(column: str, spec: dict[str, object]) -> list[tuple[int, int]]:
    """Groups and smallest group per level, counted from the built hierarchy's labels."""
    values = FRAME[column].to_list()
    hierarchy = build_hierarchy(spec, values, name=column)
    out = []
    for level in range(hierarchy.height):
        counts: dict[str, int] = {}
        for v in values:
            label = hierarchy.generalize(v, level)
            counts[label] = counts.get(label, 0) + 1
        out.append((len(counts), min(counts.values())))
    return out


@pytest.mark.parametrize("column, kind", [
    ("age", "intervals"), ("zip", "masking"), ("born", "dates"), ("grade", "ordered"),
])  # fmt: skip
def test_each_builder_is_previewed_on_the_values_at_every_level(column: str, kind: str) -> None:
    spec = preview.builder_example(kind, FRAME[column])
    assert spec["type"] == kind
    shown = preview.preview_hierarchy(FRAME, column, spec, rows=4)
    h = shown.hierarchy
    assert shown.levels.columns == list(preview.LEVEL_COLUMNS)
    assert shown.levels["level"].to_list() == list(range(h.height))
    got = list(zip(shown.levels["groups"], shown.levels["smallest group"], strict=True))
    assert got == _levels_by_hand(column, spec)
    assert got[-1] == (1, FRAME.height)  # the root holds every record
    assert shown.values.columns == [f"level {i}" for i in range(h.height)]
    first = shown.values.row(0)
    assert all(h.generalize(first[0], i) == first[i] for i in range(h.height))


def test_builder_examples_fit_the_values() -> None:
    assert preview.builder_example("intervals", FRAME["age"]) == {
        "type": "intervals", "widths": [5, 10, 20]
    }  # fmt: skip
    ordered = preview.builder_example("ordered", FRAME["grade"])
    assert ordered["order"] == ["high", "low", "mid", "top"] and ordered["fanouts"] == [2, 2]
    many = pl.Series([str(i) for i in range(40)])
    assert "order" not in preview.builder_example("ordered", many)
    assert preview.builder_example("suppression", many) == {"type": "suppression"}


@pytest.mark.parametrize(
    "values",
    [["17", "inf", "90"], ["-inf", "17", "90"], ["1e308", "-1e308"], [1.5, float("inf")]],
)
def test_an_intervals_example_on_infinite_or_huge_numbers_does_not_fail(
    values: list[object],
) -> None:
    """Choosing the intervals builder for a column holding 'inf' (or a range wider than a
    float) raised OverflowError in the page's effect, which ended the user's session;
    the example is now drawn from the finite values, and is a plain 1 when none span a
    finite range."""
    example = preview.builder_example("intervals", pl.Series(values))
    assert example["type"] == "intervals"
    widths = example["widths"]
    assert len(widths) == 3 and all(w > 0 for w in widths)
    if "17" in values:
        assert widths == [5, 10, 20]


def test_draft_spec_reads_the_editor_fields(tmp_path: Path) -> None:
    assert preview.draft_spec("intervals", "widths = [5, 10]", "") == {
        "type": "intervals", "widths": [5, 10]
    }  # fmt: skip
    assert preview.draft_spec("file", "", f" {tmp_path}/h.csv ") == tmp_path / "h.csv"
    with pytest.raises(ParameterError, match="path"):
        preview.draft_spec("file", "", "  ")
    with pytest.raises(ConfigError, match="masking parameters"):
        preview.draft_spec("masking", "levels = ", "")


def test_a_draft_that_misses_values_raises_the_run_error(tmp_path: Path) -> None:
    path = tmp_path / "grade.csv"
    path.write_text("low;*\nmid;*\n", encoding="utf-8")
    with pytest.raises(ValuesNotInHierarchyError, match="grade"):
        preview.preview_hierarchy(FRAME, "grade", path)
    with pytest.raises(ParameterError, match="widths"):
        preview.preview_hierarchy(FRAME, "age", {"type": "intervals", "widths": [10, 15]})


def test_adult_previews_are_the_workflow_previews() -> None:
    loaded = workflow.load_adult()
    specs = workflow.default_hierarchies(loaded, workflow.propose(loaded))
    shown = preview.preview_hierarchy(loaded.frame, "age", specs["age"])
    hierarchy, values = workflow.hierarchy_preview(loaded.frame, "age", specs["age"])
    assert values.equals(shown.values) and hierarchy.height == shown.hierarchy.height
    assert shown.levels["groups"][0] == loaded.frame["age"].n_unique()


@pytest.mark.parametrize("name", ["count", "level 0", "value"])
def test_a_column_named_like_the_preview_s_own_columns_is_previewed(name: str) -> None:
    """A quasi-identifier named 'count' made the preview's value count clash with its
    own column (polars DuplicateError): the page's effects, the run's own hierarchy check
    among them, failed on it and the session ended."""
    frame = pl.DataFrame({name: ["021", "022", "021", "031"]})
    shown = preview.preview_hierarchy(frame, name, {"type": "masking"}, rows=8)
    assert shown.values["level 0"].to_list() == ["021", "022", "031"]
    assert shown.levels["groups"].to_list()[0] == 3
