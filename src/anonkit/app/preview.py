"""The hierarchy editor's preview: a hierarchy being edited, shown on the column's real
values before it is applied.

:func:`draft_spec` reads the editor's fields (a builder and its parameters, or a file);
:func:`builder_example` proposes parameters for a builder from the column's values, so
that choosing a builder shows a working preview at once; :func:`preview_hierarchy`
resolves the hierarchy as :func:`anonkit.anonymize` does
(:func:`anonkit.core.resolve.resolve_hierarchy`), encodes the column against it as the run
does (a missing or uncovered value raises the run's error) and describes every level:
how many groups the records fall into, the smallest group, and the most frequent values
generalized to each level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from anonkit.app.fields import parse_builder
from anonkit.app.files import file_of, without_content
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import HierarchySpec, resolve_hierarchy
from anonkit.core.values import as_text, encode_column
from anonkit.exceptions import HierarchyError, ParameterError
from anonkit.safety.profile import date_format
from anonkit.safety.starter import dates_table

__all__ = ["HierarchyPreview", "builder_example", "draft_spec", "preview_hierarchy"]

#: Values listed in a proposed ``order`` of the ordered-groups builder, at most.
ORDER_LIMIT = 12
LEVEL_COLUMNS = ("level", "groups", "smallest group", "examples")


@dataclass(frozen=True)
class HierarchyPreview:
    """A hierarchy on a column's values.

    Attributes
    ----------
    hierarchy
        The resolved hierarchy.
    values
        The most frequent values (ties by value), one column per level (``level 0``,
        ``level 1``, ...): each value generalized to that level.
    levels
        One row per level: ``groups`` (distinct labels the column's records take at that
        level), ``smallest group`` (records in the smallest of them) and ``examples`` (a
        few of its labels). Counts only, never a record.
    """

    hierarchy: Hierarchy
    values: pl.DataFrame
    levels: pl.DataFrame


def draft_spec(kind: str, params: str, path: str) -> HierarchySpec:
    """The hierarchy the editor's fields describe: ``kind`` is ``"file"`` (then ``path``)
    or a builder name (then ``params``, ``key = value, ...``).

    Raises
    ------
    ParameterError
        If ``kind`` is ``"file"`` and ``path`` is blank.
    UnknownNameError, ConfigError
        From :func:`anonkit.app.fields.parse_builder`.

    Examples
    --------
    >>> draft_spec("masking", "levels = 2", "")
    {'type': 'masking', 'levels': 2}
    """
    if kind == "file":
        if not path.strip():
            raise ParameterError(
                "path", "the hierarchy editor", "the path of a hierarchy file (or upload one)", ""
            )
        # absolute: the export writes it, and the CLI would read a relative path from
        # the configuration's folder, not the app's
        return Path(path.strip()).expanduser().resolve()
    return parse_builder(kind, params)


def builder_example(kind: str, values: pl.Series) -> dict[str, Any]:
    """Parameters of builder ``kind`` that suit ``values`` (a starting point to edit).

    intervals: three widths, each twice the previous, the first the least round number (1,
    2 or 5 times a power of ten) of at least a sixteenth of the range of the finite
    values (1 when that range is empty or wider than a float holds); dates: month, year
    (day first for timestamps), in the format the values are written in;
    ordered: groups of 2, then 2, with the order listed when the column has at most
    :data:`ORDER_LIMIT` distinct values; masking and suppression: their defaults.

    Examples
    --------
    >>> builder_example("intervals", pl.Series(["17", "90", "45"]))
    {'type': 'intervals', 'widths': [5, 10, 20]}
    >>> builder_example("dates", pl.Series(["31.12.2024 08:15", "01.01.2025 17:40"]))
    {'type': 'dates', 'levels': ['day', 'month', 'year'], 'format': '%d.%m.%Y %H:%M'}
    """
    spec: dict[str, Any] = {"type": kind}
    text = as_text(values.drop_nulls())
    if kind == "intervals":
        found = text.cast(pl.Float64, strict=False).drop_nulls().to_numpy()
        found = found[np.isfinite(found)]  # 'inf' reads as a number; its span is no width
        with np.errstate(over="ignore"):
            span = float(found.max() - found.min()) if found.size else 0.0
        first = _round_width(span / 8) if 0 < span < math.inf else 1
        spec["widths"] = [first, first * 2, first * 4]
    elif kind == "dates":
        distinct = text.unique()  # (as_text strips strings)
        spec = dates_table(values.dtype, date_format(distinct.filter(distinct != "")))
    elif kind == "ordered":
        distinct = text.unique()
        if 0 < distinct.len() <= ORDER_LIMIT:
            numbers = distinct.cast(pl.Float64, strict=False)
            key = numbers if numbers.null_count() == 0 else distinct
            spec["order"] = distinct.gather(key.arg_sort()).to_list()
        spec["fanouts"] = [2, 2]
    return spec


def _round_width(raw: float) -> int | float:
    """The least of 1, 2, 5 times a power of ten that is at least ``raw / 2``."""
    power = 10.0 ** math.floor(math.log10(raw))
    width = next(m * power for m in (1, 2, 5, 10) if m * power >= raw / 2)
    return int(width) if width >= 1 else width


def preview_hierarchy(
    frame: pl.DataFrame, column: str, spec: HierarchySpec | None, *, rows: int = 8
) -> HierarchyPreview:
    """``column``'s hierarchy from ``spec`` and how its values look at every level.

    Raises
    ------
    HierarchyError, ValuesNotInHierarchyError, MissingValuesError, ParameterError
        What :func:`anonkit.anonymize` would raise for this hierarchy (a hierarchy file
        that is not one told by its name and line, never its labels).
    """
    values = frame.get_column(column)
    try:
        hierarchy = resolve_hierarchy(column, spec, values)
    except HierarchyError as err:  # a file's labels are not shown: its name and line
        path = file_of(spec)
        if path is None:
            raise
        raise without_content(err, path) from None
    codes = encode_column(values, hierarchy, column).to_numpy()
    leaves = np.bincount(codes, minlength=len(hierarchy.leaves))
    levels: dict[str, list[Any]] = {name: [] for name in LEVEL_COLUMNS}
    for level in range(hierarchy.height):
        per_group = np.bincount(hierarchy.codes(level), weights=leaves)
        present = np.flatnonzero(per_group)
        labels = hierarchy.labels(level)
        levels["level"].append(level)
        levels["groups"].append(int(present.size))
        levels["smallest group"].append(int(per_group[present].min()) if present.size else 0)
        shown = [labels[i] for i in present[np.argsort(-per_group[present], kind="stable")][:3]]
        levels["examples"].append(", ".join(shown) + (", ..." if present.size > 3 else ""))
    return HierarchyPreview(hierarchy, _top_values(values, hierarchy, rows), pl.DataFrame(levels))


def _top_values(values: pl.Series, hierarchy: Hierarchy, rows: int) -> pl.DataFrame:
    """The ``rows`` most frequent values (ties by value) at every level."""
    # renamed: a column named like the count's own column ("count") would clash with it
    top = (
        as_text(values.drop_nulls())
        .alias("value")
        .value_counts(sort=True, name="count")
        .sort(["count", "value"], descending=[True, False])
        .head(rows)
    )
    shown = top.get_column("value").to_list()
    data: dict[str, list[str]] = {"level 0": shown}
    for level in range(1, hierarchy.height):
        data[f"level {level}"] = [
            hierarchy.generalize(v, level) if v in hierarchy else "?" for v in shown
        ]
    return pl.DataFrame(data, schema=dict.fromkeys(data, pl.String))
