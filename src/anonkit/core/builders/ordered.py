"""The ``ordered`` builder: sorted values into consecutive groups of given fan-outs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

from anonkit.core.builders.values import (
    ROOT,
    collect,
    numeric_value,
    positive_ints,
    render,
    unique_labels,
)
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ParameterError


def ordered_groups(
    values: Iterable[object],
    fanouts: Sequence[int] | int,
    *,
    order: Sequence[object] | None = None,
    name: str | None = None,
) -> Hierarchy:
    """Group sorted values into consecutive runs, then runs of runs, up to the root.

    The distinct values are sorted (by ``order`` if given, else numerically when all are
    numbers or numeric strings, else as strings). Level 1 groups consecutive runs of
    ``fanouts[0]`` values, level 2 consecutive runs of ``fanouts[1]`` level-1 groups, and
    so on; the last run of a level may be shorter. The root ``*`` comes last.

    A group is labelled ``first-last`` with the labels of its first and last leaves
    (``Bachelors-Masters``, ``20-29``); a group of a single value keeps that value's label.
    In the unlikely case two groups of a level get the same label (values that contain
    ``-``), the clashing labels are suffixed with `` #<position>``.

    Parameters
    ----------
    values
        Values to group. Leaves are listed in sort order.
    fanouts
        Group size per level, finest first; each an int >= 2. A single int means one
        level.
    order
        The order of the values: a list holding every value (rendered like the values;
        entries that are not among the values are ignored).
    name
        Name of the hierarchy (usually the column).

    Returns
    -------
    Hierarchy
        Height ``len(fanouts) + 2``.

    Raises
    ------
    ParameterError
        If ``values`` is empty or holds a missing value, if ``fanouts`` is not a list of
        ints >= 2, or if ``order`` lacks a value (the first one is named) or repeats one.

    Examples
    --------
    >>> h = ordered_groups(["Masters", "HS-grad", "Bachelors"], [2],
    ...                    order=["HS-grad", "Bachelors", "Masters", "Doctorate"])
    >>> h.rows[0]
    ('HS-grad', 'HS-grad-Bachelors', '*')
    >>> h.generalize("Masters", 1)
    'Masters'
    """
    owner = "ordered_groups()"
    sizes = positive_ints(fanouts, "fanouts", owner, "a non-empty list of ints >= 2")
    leaves = collect(values, owner)
    ordered = _sort_leaves(leaves, order, owner)
    n = len(ordered)
    ranges = [(i, i + 1) for i in range(n)]  # leaf index ranges [a, b) of the groups
    columns: list[list[str]] = []
    for size in sizes:
        ranges = [
            (ranges[j][0], ranges[min(j + size, len(ranges)) - 1][1])
            for j in range(0, len(ranges), size)
        ]
        labels = unique_labels(
            [ordered[a] if b - a == 1 else f"{ordered[a]}-{ordered[b - 1]}" for a, b in ranges],
            name,
        )
        column: list[str] = []
        for (a, b), label in zip(ranges, labels, strict=True):
            column.extend([label] * (b - a))
        columns.append(column)
    rows = [[leaf, *(column[i] for column in columns), ROOT] for i, leaf in enumerate(ordered)]
    return Hierarchy(rows, name=name)


def _sort_leaves(
    leaves: dict[str, object], order: Sequence[object] | None, owner: str
) -> list[str]:
    if order is None:
        keys = {label: numeric_value(original, label) for label, original in leaves.items()}
        numeric: list[tuple[Fraction, str]] = []
        for label, key in keys.items():
            if key is None:
                return sorted(leaves)
            numeric.append((key, label))
        return [label for _, label in sorted(numeric)]
    if isinstance(order, str | bytes) or not isinstance(order, Iterable):
        raise ParameterError("order", owner, "a list holding every value", order)
    rank: dict[str, int] = {}
    for item in order:
        label = render(item, owner, "order")
        if label in rank:
            raise ParameterError("order", owner, "a list without repeated values", item)
        rank[label] = len(rank)
    for label, original in leaves.items():
        if label not in rank:
            raise ParameterError("order", owner, "a list holding every value", original)
    return sorted(leaves, key=rank.__getitem__)
