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

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from anonkit.core.builders.dates import DATE_LEVELS as DATE_LEVELS
from anonkit.core.builders.dates import dates
from anonkit.core.builders.intervals import default_start, intervals
from anonkit.core.builders.masking import masking, suppression
from anonkit.core.builders.ordered import ordered_groups
from anonkit.core.builders.values import ROOT
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ConfigError, ParameterError, UnknownNameError, did_you_mean

__all__ = [
    "BUILDERS",
    "ROOT",
    "build_hierarchy",
    "check_spec_keys",
    "dates",
    "intervals",
    "masking",
    "ordered_groups",
    "pinned_spec",
    "suppression",
]


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
        raise UnknownNameError("hierarchy builder", str(kind), list(BUILDERS), where)
    check_spec_keys(spec, *_SPEC_KEYS[kind], name=name)
    kwargs = {key: value for key, value in spec.items() if key != "type"}
    try:
        return BUILDERS[kind](values, name=name, **kwargs)
    except ParameterError as err:  # among many columns, say which one
        if name is None:
            raise
        owner = f"{err.owner} for column {name!r}"
        raise ParameterError(err.parameter, owner, err.expected, err.got, err.hint) from None


def check_spec_keys(
    spec: Mapping[str, Any],
    required: Sequence[str],
    optional: Sequence[str],
    *,
    name: str | None = None,
) -> None:
    """Refuse a hierarchy table of kind ``spec["type"]`` with a key it does not take or
    without one it needs (``name``: the column, for the message).

    Raises
    ------
    ConfigError
        Naming the key and the keys allowed.
    """
    kind, where = spec["type"], f" for column {name!r}" if name else ""
    allowed = ("type", *required, *optional)
    for key in spec:
        if key not in allowed:
            raise ConfigError(
                f"Unknown key {key!r}{did_you_mean(key, allowed)} in the {kind!r} hierarchy "
                f"spec{where}; allowed keys are {', '.join(repr(k) for k in sorted(allowed))}."
            )
    for key in required:
        if key not in spec:
            raise ConfigError(
                f"The {kind!r} hierarchy spec{where} is missing the required key {key!r}."
            )


def pinned_spec(spec: Mapping[str, Any], fitted: Hierarchy) -> Mapping[str, Any] | None:
    """``spec`` with what its builder chose from the values ``fitted`` was built over
    made fixed, so that building it again over more values gives those values the labels
    they have in ``fitted``; ``None`` when no such spec exists.

    Intervals are anchored where ``fitted``'s are (the anchor otherwise follows the
    smallest value); masks, dates and suppression label each value on its own. Ordered
    groups are runs of the sorted values, which a new value would shift: ``None``.

    Examples
    --------
    >>> h = intervals([31, 47], [10, 20])
    >>> pinned_spec({"type": "intervals", "widths": [10, 20]}, h)["start"]
    Fraction(30, 1)
    """
    kind = spec.get("type")
    if kind == "ordered":
        return None
    if kind == "intervals" and spec.get("start") is None:
        return {**spec, "start": default_start(fitted.leaves, spec["widths"])}
    return spec
