"""The ``dates`` builder: dates (or timestamps) into days, weeks, months, quarters, years,
decades."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from typing import Final

from anonkit.core.builders.values import ROOT, collect
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ParameterError

#: Supported ``dates`` level names, finest first.
DATE_LEVELS: Final = ("day", "week", "month", "quarter", "year", "decade")

#: The default ``format``.
_DAY = "%Y-%m-%d"
#: A timestamp as a timestamp column prints it (:func:`anonkit.core.values.text_expr`).
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}:\d{2})?")


def dates(
    values: Iterable[object],
    *,
    format: str = _DAY,  # noqa: A002 - mirrors datetime.strptime's vocabulary
    levels: Sequence[str] | str = ("month", "year"),
    name: str | None = None,
) -> Hierarchy:
    """Generalize dates to calendar periods: by default day -> month -> year -> ``*``.

    Supported levels, which must be given finest first and may skip periods:

    * ``"day"``: ``2024-03-05``, for timestamps (``2024-03-05 14:32`` with ``format="%Y-%m-%d
      %H:%M"``); a date is its own day;
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
        objects (whose leaf label is ``str(value)``); with the default ``format``, also
        timestamps as that label prints them (``2024-03-05 08:00:00``, what a timestamp
        column's values read as). Other values are rendered to text
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
        first one is named), or if ``levels`` or ``format`` is invalid; a ``format`` must
        hold the parts its levels label (a year for every level, a month for months and
        quarters, a day for days and weeks: ``%Y`` alone labels years only).

    Examples
    --------
    >>> dates(["2024-03-05", "2023-12-31"]).rows[0]
    ('2024-03-05', '2024-03', '2024', '*')
    >>> dates(["2024-12-30"], levels=["week", "year"]).rows[0]
    ('2024-12-30', '2025-W01', '2025', '*')
    >>> dates(["2024-03-05 14:32"], format="%Y-%m-%d %H:%M", levels=["day", "month"]).rows[0]
    ('2024-03-05 14:32', '2024-03-05', '2024-03', '*')
    """
    owner = "dates()"
    if not isinstance(format, str) or not format:
        raise ParameterError("format", owner, "a non-empty strptime format string", format)
    names = _check_date_levels(levels, owner)
    _check_format_parts(format, names, owner)
    iso = "week" in names
    rows: list[list[str]] = []
    for label, original in collect(values, owner).items():
        day: date | None
        if isinstance(original, datetime):
            day = original.date()
        elif isinstance(original, date):
            day = original
        else:
            day = _parse_day(label, format)
        if day is None:
            raise ParameterError("values", owner, f"dates in the format {format!r}", original)
        rows.append([label, *(_date_label(day, level, iso) for level in names), ROOT])
    return Hierarchy(rows, name=name)


def _parse_day(label: str, format: str) -> date | None:  # noqa: A002
    """The day of ``label`` in ``format``; with the default format, a timestamp as a
    timestamp column prints it (``2024-03-05 08:00:00``) gives its day too: the engines
    that count files hand the builders each column's distinct values as text."""
    try:
        return datetime.strptime(label, format).date()
    except ValueError:
        pass
    if format == _DAY and _TIMESTAMP.fullmatch(label):
        return datetime.fromisoformat(label).date()
    return None


#: What a format must hold for a level's label to cover its values: strptime fills a
#: missing year, month or day with 1900-01-01, which would label ``2024`` (``%Y``) as
#: January and ``03/05`` (``%m/%d``) as 1900. A weekday with a week number gives the day.
_YEAR: Final = frozenset("YyG")
_WEEK: Final = frozenset("UWV")
_WEEKDAY: Final = frozenset("aAwu")
_NEEDS: Final = {
    "day": ("year", "month", "day"),
    "week": ("year", "month", "day"),
    "month": ("year", "month"),
    "quarter": ("year", "month"),
    "year": ("year",),
    "decade": ("year",),
}


def _check_format_parts(format: str, levels: Sequence[str], owner: str) -> None:  # noqa: A002
    """Refuse a ``format`` that lacks the year, month or day the ``levels`` label."""
    directives = set(re.findall(r"%.", format.replace("%%", "")))
    codes = {d[1] for d in directives}
    day = bool(codes & {"d", "j", "c", "x"}) or bool(codes & _WEEK and codes & _WEEKDAY)
    has = {
        "year": bool(codes & (_YEAR | {"c", "x"})),
        "month": day or bool(codes & {"m", "b", "B"}),
        "day": day,
    }
    missing = [
        part
        for part in ("year", "month", "day")
        if any(part in _NEEDS[level] and not has[part] for level in levels)
    ]
    if missing:
        raise ParameterError(
            "format",
            owner,
            f"a strptime format with the {' and '.join(missing)} its levels {list(levels)!r} "
            "label (year %Y, month %m, day %d)",
            format,
        )


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
    if level == "day":
        return day.isoformat()
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
