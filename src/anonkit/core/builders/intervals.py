"""The ``intervals`` builder: numbers into nested bins of fixed widths."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from fractions import Fraction

from anonkit.core.builders.values import (
    DECIMAL_COMMA,
    ROOT,
    as_number,
    collect,
    format_number,
    numeric_value,
    to_fraction,
)
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ParameterError


def intervals(
    values: Iterable[object],
    widths: Sequence[float] | float,
    *,
    start: float | None = None,
    closed: str = "left",
    name: str | None = None,
) -> Hierarchy:
    """Generalize numbers to nested intervals of growing width.

    Level ``i`` (``1 <= i <= len(widths)``) holds bins ``widths[i - 1]`` wide whose edges
    are ``start + k * widths[i - 1]`` for every integer ``k``; the last level is the root
    ``*``. Arithmetic is exact: a value is taken as its leaf label writes it, so each leaf
    lies in its bins (a whole float by its exact value, ``1e20 + 1e5`` as
    ``100000000000000098304``; other floats by their shortest repr); ``widths`` and
    ``start`` are taken by their shortest repr, so widths of ``0.1`` behave as one tenth.

    Labels are ``[lo-hi[`` when ``closed="left"`` (``lo <= v < hi``; for integer data
    ``[20-25[`` holds 20..24) and ``]lo-hi]`` when ``closed="right"`` (``lo < v <= hi``).
    Bounds are printed as integers or exact decimals, negative ones with their sign
    (``[-10--5[``).

    Parameters
    ----------
    values
        Numbers or numeric strings (``"21"``, ``"21.5"``). Leaves are listed in numeric
        order.
    widths
        Bin width per level, finest first; each width must be an integer multiple (at
        least twice) of the previous one so that bins nest. A single number means one
        level.
    start
        Anchor of the bin edges. Default: ``floor(min(values) / widths[0]) * widths[0]``.
    closed
        ``"left"`` (default) or ``"right"``: which bound of a bin is inclusive.
    name
        Name of the hierarchy (usually the column).

    Returns
    -------
    Hierarchy
        Height ``len(widths) + 2``.

    Raises
    ------
    ParameterError
        If ``values`` is empty, holds a missing (None/NaN), infinite or non-numeric value
        (the first one is named), if ``widths`` is not a list of positive numbers each a
        multiple of the previous one, if ``start`` is not a finite number or ``closed`` is
        neither ``"left"`` nor ``"right"``.

    Examples
    --------
    >>> h = intervals([21, 28, 33], [5, 10])
    >>> h.rows[0]
    ('21', '[20-25[', '[20-30[', '*')
    >>> h.generalize("33", 2)
    '[30-40['
    """
    owner = "intervals()"
    if closed not in ("left", "right"):
        raise ParameterError("closed", owner, "'left' or 'right'", closed)
    steps = _check_widths(widths, owner)
    numeric: list[tuple[Fraction, str]] = []
    for label, original in collect(values, owner).items():
        x = numeric_value(original, label)
        if x is None:
            hint = _comma_hint(original)
            raise ParameterError("values", owner, "numbers or numeric strings", original, hint)
        numeric.append((x, label))
    numeric.sort()
    if start is None:
        anchor = _default_start(numeric[0][0], steps[0])
    else:
        given = to_fraction(start)
        if given is None:
            raise ParameterError("start", owner, "a finite number or None", start)
        anchor = given
    rows: list[list[str]] = []
    for x, label in numeric:
        row = [label]
        for width in steps:
            if closed == "left":
                lo = anchor + math.floor((x - anchor) / width) * width
                row.append(f"[{format_number(lo)}-{format_number(lo + width)}[")
            else:
                lo = anchor + (math.ceil((x - anchor) / width) - 1) * width
                row.append(f"]{format_number(lo)}-{format_number(lo + width)}]")
        row.append(ROOT)
        rows.append(row)
    return Hierarchy(rows, name=name)


#: A number whose commas may separate thousands: ``1,200``, ``-12,000``, ``1,234,567``.
_THOUSANDS = r"^[+-]?[0-9]{1,3}(,[0-9]{3})+$"


def _comma_hint(original: object) -> str:
    """How to read a number written with a comma as a number: a decimal comma (``49,4``)
    by the reading option; one that may separate thousands (``1,200``) not so, since that
    option would read it as 1.2."""
    if not isinstance(original, str):
        return ""
    text = original.strip()
    if re.match(_THOUSANDS, text):
        return (
            " It is written with a comma that may separate thousands: remove the thousands "
            "separators from the file (1,200 -> 1200); decimal_comma = true in [read] would "
            "read 1,200 as 1.2. Only if the comma is a decimal one, read the file with "
            "decimal_comma = true."
        )
    if re.match(DECIMAL_COMMA, text):
        return (
            " It is written with a decimal comma: read the file with "
            "decimal_comma = true in [read] (read_table(..., decimal_comma=True))."
        )
    return ""


def _default_start(low: Fraction, width: Fraction) -> Fraction:
    """The anchor of the bin edges when none is given: ``low`` rounded down to a multiple
    of the finest ``width``."""
    return math.floor(low / width) * width


def default_start(leaves: Iterable[str], widths: Sequence[float] | float) -> Fraction:
    """The anchor :func:`intervals` chose for a hierarchy whose leaves are ``leaves`` and
    was built without ``start`` (given to build it again over more values, so that the
    first values keep their bins).

    Examples
    --------
    >>> default_start(["31", "47"], [10, 20])
    Fraction(30, 1)
    """
    steps = _check_widths(widths, "intervals()")
    low = min(Fraction(leaf) for leaf in leaves)
    return _default_start(low, steps[0])


def _check_widths(widths: object, owner: str) -> list[Fraction]:
    expected = (
        "a non-empty list of positive numbers, each an integer multiple (at least twice) "
        "of the previous one"
    )
    items: object = [widths] if as_number(widths) is not None else widths
    if not isinstance(items, Sequence) or isinstance(items, str) or not items:
        raise ParameterError("widths", owner, expected, widths)
    steps: list[Fraction] = []
    for item in items:
        w = to_fraction(item)
        if w is None or w <= 0:
            raise ParameterError("widths", owner, expected, widths)
        if steps:
            ratio = w / steps[-1]
            if ratio.denominator != 1 or ratio < 2:
                raise ParameterError("widths", owner, expected, widths)
        steps.append(w)
    return steps
