"""The character builders: ``masking`` (trailing characters replaced) and ``suppression``
(every value straight to the root)."""

from __future__ import annotations

import numbers
from collections.abc import Iterable

from anonkit.core.builders.values import ROOT, collect
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ParameterError


def masking(
    values: Iterable[object],
    *,
    levels: int | None = None,
    char: str = "*",
    name: str | None = None,
) -> Hierarchy:
    """Generalize strings by masking trailing characters, one more per level.

    ``"13053"`` becomes ``"1305*"``, ``"130**"``, ``"13***"``, ``"1****"``, ``"*****"``
    and finally the root ``*``. When the fully masked string already equals the root
    (one-character values masked with ``*``) no extra root level is added.

    Parameters
    ----------
    values
        Values that all render to strings of the same length (pass zip codes as strings
        to keep leading zeros). Leaves are listed in order of first appearance.
    levels
        How many characters to mask before the root, ``0 <= levels <= length``. Default:
        all of them. ``levels=2`` gives ``13053 -> 1305* -> 130** -> *``.
    char
        The masking character: one non-space character.
    name
        Name of the hierarchy (usually the column).

    Returns
    -------
    Hierarchy
        Height ``levels + 2`` (one less when the full mask equals the root).

    Raises
    ------
    ParameterError
        If ``values`` is empty, holds a missing value, values of different lengths (the
        first one differing from the first value is named) or a value holding ``char``,
        or if ``levels`` or ``char`` is invalid.

    Examples
    --------
    >>> masking(["13053", "13068"]).rows[0]
    ('13053', '1305*', '130**', '13***', '1****', '*****', '*')
    >>> masking(["13053", "13068"], levels=2).rows[1]
    ('13068', '1306*', '130**', '*')
    """
    owner = "masking()"
    if not isinstance(char, str) or len(char) != 1 or char.isspace():
        raise ParameterError("char", owner, "a single non-space character", char)
    leaves = collect(values, owner)
    first = next(iter(leaves))
    length = len(first)
    for label, original in leaves.items():
        if len(label) != length:
            raise ParameterError(
                "values",
                owner,
                f"values of equal length ({length} characters, like {first!r})",
                original,
                f" It has {len(label)} characters.",  # 'São' and 'Sa\u0303o' print alike
            )
        if char in label:  # '1305*' would read as a mask, 'cd' masked with 'a' as 'ca'
            raise ParameterError(
                "values",
                owner,
                f"free of the masking character {char!r}, which would make a label "
                "read as another value",
                original,
                ' Choose a masking character no value holds (char = "#").',
            )
    if levels is None:
        depth = length
    elif (
        not isinstance(levels, numbers.Integral)
        or isinstance(levels, bool)
        or not 0 <= int(levels) <= length
    ):
        raise ParameterError(
            "levels", owner, f"an int between 0 and the value length {length}", levels
        )
    else:
        depth = int(levels)
    rows: list[list[str]] = []
    for label in leaves:
        row = [label] + [label[: length - i] + char * i for i in range(1, depth + 1)]
        if row[-1] != ROOT or len(row) == 1:
            row.append(ROOT)
        rows.append(row)
    return Hierarchy(rows, name=name)


def suppression(values: Iterable[object], *, name: str | None = None) -> Hierarchy:
    """The flat hierarchy: every value generalizes directly to the root ``*``.

    Parameters
    ----------
    values
        Values, listed in order of first appearance.
    name
        Name of the hierarchy (usually the column).

    Returns
    -------
    Hierarchy
        Height 2.

    Raises
    ------
    ParameterError
        If ``values`` is empty or holds a missing value.

    Examples
    --------
    >>> suppression(["F", "M", "F"]).rows
    (('F', '*'), ('M', '*'))
    """
    return Hierarchy([[label, ROOT] for label in collect(values, "suppression()")], name=name)
