"""What every hierarchy builder shares: leaf labels of values, exact numbers, checks.

Leaf labels follow the rules listed in :mod:`anonkit.core.hierarchy_builders`.
"""

from __future__ import annotations

import math
import numbers
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Final

from anonkit.core.values import FLOAT_DIGITS, INT128
from anonkit.exceptions import HierarchyError, ParameterError

#: Label of the root of every hierarchy built here.
ROOT: Final = "*"
#: A number written with a decimal comma (``49,4``, ``-0,5``): not a number to the
#: builders, which say so; :func:`anonkit.io.cells.decimal_points` reads it as one.
DECIMAL_COMMA: Final = r"^([+-]?[0-9]+),([0-9]+)$"
#: A number written in ASCII digits, as the builders read numeric strings.
NUMBER: Final = r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"


def as_number(value: object) -> numbers.Real | Decimal | None:
    """``value`` if it is a real number (not a bool), else None."""
    if isinstance(value, numbers.Real | Decimal) and not isinstance(value, bool):
        return value
    return None


def render(value: object, owner: str, parameter: str = "values") -> str:
    """The leaf label of ``value`` (see the module docstring)."""
    if value is None:
        raise ParameterError(parameter, owner, "free of missing values (None)", value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise ParameterError(parameter, owner, "free of empty strings", value)
        return text
    number = as_number(value)
    if number is not None:
        if isinstance(number, numbers.Integral):
            return str(int(number))
        if not math.isfinite(float(number)):
            raise ParameterError(parameter, owner, "free of NaN and infinite numbers", value)
        whole = math.floor(number)
        # a whole float in full digits up to Int128's range, as the data's text is
        # (anonkit.core.values.text_expr); beyond it, as Python writes the float
        if number == whole and (not isinstance(number, float) or abs(number) < INT128):
            return str(whole)
        if isinstance(number, Decimal):
            return _decimal_text(number)
        return str(number)
    text = str(value).strip()
    if not text:
        raise ParameterError(parameter, owner, "free of values that render as ''", value)
    return text


def _decimal_text(number: Decimal) -> str:
    """A decimal that is not whole as the data reads it (:func:`~anonkit.core.values.
    text_expr`): as a float, when one holds its digits (``1.50`` as ``1.5``, ``1E-7`` as
    ``1e-07``); else every digit but the trailing zeros."""
    digits = format(number.normalize(), "f")
    significant = digits.replace("-", "").replace(".", "").lstrip("0")
    return repr(float(number)) if len(significant) <= FLOAT_DIGITS else digits


def collect(values: Iterable[object], owner: str) -> dict[str, object]:
    """Distinct leaf labels in first-appearance order, each with its first original value."""
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise ParameterError(
            "values", owner, "a collection (list, tuple, Series, ...) of values", values
        )
    out: dict[str, object] = {}
    for value in values:
        out.setdefault(render(value, owner), value)
    if not out:
        raise ParameterError("values", owner, "a non-empty collection of values", [])
    return out


def to_fraction(value: object) -> Fraction | None:
    """Exact value of a finite real number (floats by their shortest repr), else None."""
    number = as_number(value)
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


def numeric_value(original: object, label: str) -> Fraction | None:
    """Numeric value of a value (numbers, and strings that write a number in ASCII
    digits, ``-12``, ``2.5``, ``1e3``), else None: ``78/2``, ``3_9`` or full-width
    digits are not numbers here, though ``Fraction`` reads them.

    A number's value is the one its leaf ``label`` (:func:`render`) writes, so that the
    leaf lies in the bins computed from it: a whole float its exact value (``1e20 + 1e5``
    is ``100000000000000098304``, not its shortest repr ``1.000000000000001e+20``), other
    floats their shortest repr.

    Examples
    --------
    >>> numeric_value("2.5", "2.5"), numeric_value("78/2", "78/2"), numeric_value("3_9", "3_9")
    (Fraction(5, 2), None, None)
    >>> numeric_value(1e20 + 1e5, render(1e20 + 1e5, "x"))
    Fraction(100000000000000098304, 1)
    """
    number = isinstance(original, str) or as_number(original) is not None
    if number and re.fullmatch(NUMBER, label) is not None:
        return Fraction(label)
    # a number its label does not write in digits (a Fraction's '1/3'), else not one
    return None if isinstance(original, str) else to_fraction(original)


def format_number(x: Fraction) -> str:
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


def positive_ints(param: object, parameter: str, owner: str, expected: str) -> list[int]:
    items: object = [param] if isinstance(param, int) and not isinstance(param, bool) else param
    if not isinstance(items, Sequence) or isinstance(items, str) or not items:
        raise ParameterError(parameter, owner, expected, param)
    out: list[int] = []
    for item in items:
        if not isinstance(item, numbers.Integral) or isinstance(item, bool) or int(item) < 2:
            raise ParameterError(parameter, owner, expected, param)
        out.append(int(item))
    return out


def unique_labels(labels: list[str], name: str | None) -> list[str]:
    """Make group labels distinct by suffixing clashing ones with `` #<position>``."""
    counts = Counter(labels)
    if len(counts) == len(labels):
        return labels
    out = [lab if counts[lab] == 1 else f"{lab} #{i + 1}" for i, lab in enumerate(labels)]
    if len(set(out)) != len(out):  # pragma: no cover - needs adversarial labels
        raise HierarchyError("cannot build distinct group labels.", column=name)
    return out
