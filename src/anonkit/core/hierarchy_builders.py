"""Builders that derive a :class:`~anonkit.core.hierarchy.Hierarchy` from a column's values.

Every builder is a pure function taking the original values (strings or numbers) and
returning a validated hierarchy whose leaves are exactly the distinct input values,
rendered as text:

* whole numbers (``21``, ``21.0``, ``np.int64(21)``) as ``str(int(v))``, i.e. ``"21"``;
* other numbers as ``str(v)`` (``"21.5"``);
* strings as given, without surrounding whitespace (``"021"`` stays ``"021"``);
* anything else (dates, ...) as ``str(v)``.

Missing values (``None``, NaN), infinities and empty strings are rejected with
:class:`~anonkit.exceptions.ParameterError`. Leaves are listed in numeric order for
:func:`intervals`, in sort order for :func:`ordered_groups` and in order of first
appearance otherwise. The last level is always the single root ``*``.

Label formats
-------------
=================  =====================================================================
builder            labels
=================  =====================================================================
``intervals``      ``[20-25[`` (``closed="left"``: 20 <= v < 25) or ``]20-25]``
                   (``closed="right"``: 20 < v <= 25); bounds printed as integers or
                   exact decimals (``[2.5-5[``); negative bounds keep their sign
                   (``[-10--5[``)
``masking``        ``1305*``, ``130**``, ... (trailing characters replaced by ``char``)
``dates``          week ``2024-W09`` (ISO), month ``2024-03``, quarter ``2024-Q1``,
                   year ``2024``, decade ``2020s``
``ordered``        ``first-last`` of the group's leaves (``Bachelors-Masters``,
                   ``20-29``); a one-value group keeps the value's label
``suppression``    ``*``
=================  =====================================================================

:func:`build_hierarchy` builds a hierarchy from a configuration table such as
``{"type": "intervals", "widths": [5, 10, 20]}``; :data:`BUILDERS` maps the ``type``
names to the builder functions.
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Final

from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ConfigError, HierarchyError, ParameterError, UnknownNameError

__all__ = [
    "BUILDERS",
    "ROOT",
    "build_hierarchy",
    "dates",
    "intervals",
    "masking",
    "ordered_groups",
    "suppression",
]

#: Label of the root of every hierarchy built here.
ROOT: Final = "*"

#: Supported ``dates`` level names, finest first.
DATE_LEVELS: Final = ("week", "month", "quarter", "year", "decade")


# --------------------------------------------------------------------------- helpers
def _as_number(value: object) -> numbers.Real | Decimal | None:
    """``value`` if it is a real number (not a bool), else None."""
    if isinstance(value, numbers.Real | Decimal) and not isinstance(value, bool):
        return value
    return None


def _render(value: object, owner: str, parameter: str = "values") -> str:
    """The leaf label of ``value`` (see the module docstring)."""
    if value is None:
        raise ParameterError(parameter, owner, "free of missing values (None)", value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise ParameterError(parameter, owner, "free of empty strings", value)
        return text
    number = _as_number(value)
    if number is not None:
        if isinstance(number, numbers.Integral):
            return str(int(number))
        if not math.isfinite(float(number)):
            raise ParameterError(parameter, owner, "free of NaN and infinite numbers", value)
        whole = math.floor(number)
        return str(whole) if number == whole else str(number)
    text = str(value).strip()
    if not text:
        raise ParameterError(parameter, owner, "free of values that render as ''", value)
    return text


def _collect(values: Iterable[object], owner: str) -> dict[str, object]:
    """Distinct leaf labels in first-appearance order, each with its first original value."""
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise ParameterError(
            "values", owner, "a collection (list, tuple, Series, ...) of values", values
        )
    out: dict[str, object] = {}
    for value in values:
        out.setdefault(_render(value, owner), value)
    if not out:
        raise ParameterError("values", owner, "a non-empty collection of values", [])
    return out


def _to_fraction(value: object) -> Fraction | None:
    """Exact value of a finite real number (floats by their shortest repr), else None."""
    number = _as_number(value)
    if number is None:
        return None
    if isinstance(number, numbers.Integral):
        return Fraction(int(number))
    if not math.isfinite(float(number)):
        return None
    try:
        return Fraction(str(number))
    except (ValueError, ZeroDivisionError):
        return Fraction(float(number))


def _numeric(original: object, label: str) -> Fraction | None:
    """Numeric value of a value (numbers and numeric strings), else None."""
    if isinstance(original, str):
        try:
            return Fraction(label)
        except (ValueError, ZeroDivisionError):
            return None
    return _to_fraction(original)


def _format_number(x: Fraction) -> str:
    """An exact decimal (``20``, ``2.5``, ``-0.25``); ``p/q`` if it does not terminate."""
    if x.denominator == 1:
        return str(x.numerator)
    den, twos, fives = x.denominator, 0, 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den != 1:
        return f"{x.numerator}/{x.denominator}"
    k = max(twos, fives)
    digits = str(abs(x.numerator) * 10**k // x.denominator).rjust(k + 1, "0")
    sign = "-" if x < 0 else ""
    return f"{sign}{digits[:-k]}.{digits[-k:]}"


def _positive_ints(param: object, parameter: str, owner: str, expected: str) -> list[int]:
    items: object = [param] if isinstance(param, int) and not isinstance(param, bool) else param
    if not isinstance(items, Sequence) or isinstance(items, str) or not items:
        raise ParameterError(parameter, owner, expected, param)
    out: list[int] = []
    for item in items:
        if not isinstance(item, numbers.Integral) or isinstance(item, bool) or int(item) < 2:
            raise ParameterError(parameter, owner, expected, param)
        out.append(int(item))
    return out


def _unique_labels(labels: list[str], name: str | None) -> list[str]:
    """Make group labels distinct by suffixing clashing ones with `` #<position>``."""
    counts = Counter(labels)
    if len(counts) == len(labels):
        return labels
    out = [lab if counts[lab] == 1 else f"{lab} #{i + 1}" for i, lab in enumerate(labels)]
    if len(set(out)) != len(out):  # pragma: no cover - needs adversarial labels
        raise HierarchyError("cannot build distinct group labels.", column=name)
    return out


# -------------------------------------------------------------------------- builders
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
    ``*``. Arithmetic is exact (floats are taken by their shortest repr, so widths of
    ``0.1`` behave as one tenth).

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
    for label, original in _collect(values, owner).items():
        x = _numeric(original, label)
        if x is None:
            raise ParameterError("values", owner, "numbers or numeric strings", original)
        numeric.append((x, label))
    numeric.sort()
    if start is None:
        anchor = math.floor(numeric[0][0] / steps[0]) * steps[0]
    else:
        given = _to_fraction(start)
        if given is None:
            raise ParameterError("start", owner, "a finite number or None", start)
        anchor = given
    rows: list[list[str]] = []
    for x, label in numeric:
        row = [label]
        for width in steps:
            if closed == "left":
                lo = anchor + math.floor((x - anchor) / width) * width
                row.append(f"[{_format_number(lo)}-{_format_number(lo + width)}[")
            else:
                lo = anchor + (math.ceil((x - anchor) / width) - 1) * width
                row.append(f"]{_format_number(lo)}-{_format_number(lo + width)}]")
        row.append(ROOT)
        rows.append(row)
    return Hierarchy(rows, name=name)


def _check_widths(widths: object, owner: str) -> list[Fraction]:
    expected = (
        "a non-empty list of positive numbers, each an integer multiple (at least twice) "
        "of the previous one"
    )
    items: object = [widths] if _as_number(widths) is not None else widths
    if not isinstance(items, Sequence) or isinstance(items, str) or not items:
        raise ParameterError("widths", owner, expected, widths)
    steps: list[Fraction] = []
    for item in items:
        w = _to_fraction(item)
        if w is None or w <= 0:
            raise ParameterError("widths", owner, expected, widths)
        if steps:
            ratio = w / steps[-1]
            if ratio.denominator != 1 or ratio < 2:
                raise ParameterError("widths", owner, expected, widths)
        steps.append(w)
    return steps


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
        If ``values`` is empty, holds a missing value or values of different lengths (the
        first one differing from the first value is named), or if ``levels`` or ``char``
        is invalid.

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
    leaves = _collect(values, owner)
    first = next(iter(leaves))
    length = len(first)
    for label, original in leaves.items():
        if len(label) != length:
            raise ParameterError(
                "values",
                owner,
                f"values of equal length ({length} characters, like {first!r})",
                original,
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


def dates(
    values: Iterable[object],
    *,
    format: str = "%Y-%m-%d",  # noqa: A002 - mirrors datetime.strptime's vocabulary
    levels: Sequence[str] | str = ("month", "year"),
    name: str | None = None,
) -> Hierarchy:
    """Generalize dates to calendar periods: by default day -> month -> year -> ``*``.

    Supported levels, which must be given finest first and may skip periods:

    * ``"week"``: ISO week, ``2024-W09``;
    * ``"month"``: ``2024-03``;
    * ``"quarter"``: ``2024-Q1``;
    * ``"year"``: ``2024``;
    * ``"decade"``: ``2020s``.

    A week does not nest in a month or a quarter, so ``"week"`` may only be followed by
    ``"year"`` and/or ``"decade"``; when ``"week"`` is present those use the ISO year
    (``2024-12-30`` is in week ``2025-W01``, hence in year ``2025``), so that every week
    has exactly one parent. Without ``"week"`` years are calendar years.

    Parameters
    ----------
    values
        Date strings in ``format``, or :class:`datetime.date` / :class:`datetime.datetime`
        objects (whose leaf label is ``str(value)``). Other values are rendered to text
        and parsed (``20240305`` with ``format="%Y%m%d"``). Leaves are listed in order of
        first appearance.
    format
        :func:`datetime.datetime.strptime` format of the strings.
    levels
        Level names, finest first (a single name is allowed). An empty list gives
        day -> ``*``.
    name
        Name of the hierarchy (usually the column).

    Returns
    -------
    Hierarchy
        Height ``len(levels) + 2``.

    Raises
    ------
    ParameterError
        If ``values`` is empty, holds a missing value or a value that does not parse (the
        first one is named), or if ``levels`` or ``format`` is invalid.

    Examples
    --------
    >>> dates(["2024-03-05", "2023-12-31"]).rows[0]
    ('2024-03-05', '2024-03', '2024', '*')
    >>> dates(["2024-12-30"], levels=["week", "year"]).rows[0]
    ('2024-12-30', '2025-W01', '2025', '*')
    """
    owner = "dates()"
    if not isinstance(format, str) or not format:
        raise ParameterError("format", owner, "a non-empty strptime format string", format)
    names = _check_date_levels(levels, owner)
    iso = "week" in names
    rows: list[list[str]] = []
    for label, original in _collect(values, owner).items():
        if isinstance(original, datetime):
            day = original.date()
        elif isinstance(original, date):
            day = original
        else:
            try:
                day = datetime.strptime(label, format).date()
            except ValueError:
                raise ParameterError(
                    "values", owner, f"dates in the format {format!r}", original
                ) from None
        rows.append([label, *(_date_label(day, level, iso) for level in names), ROOT])
    return Hierarchy(rows, name=name)


def _check_date_levels(levels: object, owner: str) -> list[str]:
    expected = (
        f"a list of distinct names among {', '.join(DATE_LEVELS)}, finest first, with "
        "'week' followed only by 'year' or 'decade'"
    )
    names: object = [levels] if isinstance(levels, str) else levels
    if not isinstance(names, Sequence):
        raise ParameterError("levels", owner, expected, levels)
    out: list[str] = []
    rank = -1
    for item in names:
        if not isinstance(item, str) or item not in DATE_LEVELS:
            raise ParameterError("levels", owner, expected, levels)
        new_rank = DATE_LEVELS.index(item)
        if new_rank <= rank or (out and out[0] == "week" and item in ("month", "quarter")):
            raise ParameterError("levels", owner, expected, levels)
        rank = new_rank
        out.append(item)
    return out


def _date_label(day: date, level: str, iso: bool) -> str:
    year = day.isocalendar().year if iso else day.year
    if level == "week":
        iso_date = day.isocalendar()
        return f"{iso_date.year:04d}-W{iso_date.week:02d}"
    if level == "month":
        return f"{day.year:04d}-{day.month:02d}"
    if level == "quarter":
        return f"{day.year:04d}-Q{(day.month - 1) // 3 + 1}"
    if level == "year":
        return f"{year:04d}"
    return f"{year // 10 * 10}s"


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
    sizes = _positive_ints(fanouts, "fanouts", owner, "a non-empty list of ints >= 2")
    leaves = _collect(values, owner)
    ordered = _sort_leaves(leaves, order, owner)
    n = len(ordered)
    ranges = [(i, i + 1) for i in range(n)]  # leaf index ranges [a, b) of the groups
    columns: list[list[str]] = []
    for size in sizes:
        ranges = [
            (ranges[j][0], ranges[min(j + size, len(ranges)) - 1][1])
            for j in range(0, len(ranges), size)
        ]
        labels = _unique_labels(
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
        keys = {label: _numeric(original, label) for label, original in leaves.items()}
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
        label = _render(item, owner, "order")
        if label in rank:
            raise ParameterError("order", owner, "a list without repeated values", item)
        rank[label] = len(rank)
    for label, original in leaves.items():
        if label not in rank:
            raise ParameterError("order", owner, "a list holding every value", original)
    return sorted(leaves, key=rank.__getitem__)


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
    return Hierarchy([[label, ROOT] for label in _collect(values, "suppression()")], name=name)


# ------------------------------------------------------------------------ dispatcher
#: Builder functions by the ``type`` name used in configuration files.
BUILDERS: Final[dict[str, Callable[..., Hierarchy]]] = {
    "intervals": intervals,
    "masking": masking,
    "dates": dates,
    "ordered": ordered_groups,
    "suppression": suppression,
}

# type -> (required keys, optional keys), besides "type"
_SPEC_KEYS: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "intervals": (("widths",), ("start", "closed")),
    "masking": ((), ("levels", "char")),
    "dates": ((), ("format", "levels")),
    "ordered": (("fanouts",), ("order",)),
    "suppression": ((), ()),
}


def build_hierarchy(
    spec: Mapping[str, object], values: Iterable[object], name: str | None = None
) -> Hierarchy:
    """Build a hierarchy from a configuration table.

    Parameters
    ----------
    spec
        A mapping with a ``type`` key naming a builder of :data:`BUILDERS` and that
        builder's keyword parameters, for example ``{"type": "intervals", "widths": [5,
        10, 20]}``, ``{"type": "masking", "levels": 3}``, ``{"type": "dates", "format":
        "%d/%m/%Y", "levels": ["month", "year"]}``, ``{"type": "ordered", "fanouts": [2,
        2], "order": [...]}`` or ``{"type": "suppression"}``.
    values
        The column's values.
    name
        Name of the hierarchy (usually the column), also used in error messages.

    Returns
    -------
    Hierarchy
        The built hierarchy.

    Raises
    ------
    UnknownNameError
        If ``type`` is not a known builder.
    ConfigError
        If ``spec`` is not a mapping, lacks ``type`` or a required key, or holds a key
        the builder does not know.
    ParameterError
        If a parameter value or the values are invalid (see the builders).

    Examples
    --------
    >>> build_hierarchy({"type": "intervals", "widths": [10]}, [21, 28]).rows
    (('21', '[20-30[', '*'), ('28', '[20-30[', '*'))
    """
    where = f" for column {name!r}" if name else ""
    if not isinstance(spec, Mapping):
        raise ConfigError(f"The hierarchy spec{where} must be a table, not {spec!r}.")
    if "type" not in spec:
        raise ConfigError(f"The hierarchy spec{where} is missing the required key 'type'.")
    kind = spec["type"]
    if not isinstance(kind, str) or kind not in BUILDERS:
        raise UnknownNameError("hierarchy builder", str(kind), list(BUILDERS))
    required, optional = _SPEC_KEYS[kind]
    allowed = ("type", *required, *optional)
    for key in spec:
        if key not in allowed:
            raise ConfigError(
                f"Unknown key {key!r} in the {kind!r} hierarchy spec{where}; allowed keys "
                f"are {', '.join(repr(k) for k in sorted(allowed))}."
            )
    for key in required:
        if key not in spec:
            raise ConfigError(
                f"The {kind!r} hierarchy spec{where} is missing the required key {key!r}."
            )
    kwargs = {key: value for key, value in spec.items() if key != "type"}
    return BUILDERS[kind](values, name=name, **kwargs)
