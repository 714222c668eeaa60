"""Parameter checks shared by the estimators, the privacy models, the evaluator and the
TOML loader: one place that says what a valid value is and how a bad one is reported.

Constraints are small declarative objects (after scikit-learn's
``sklearn/utils/_param_validation.py``): :class:`Interval` (an int or a real number within
bounds), :class:`Options` (one of a few values), :class:`Boolean`, :class:`Name` (a
non-empty column name), :class:`Names` (a column name or a list of them) and :class:`Keyed`
(a mapping). :func:`check` tests one value, :func:`validate` a mapping of them;
``check_int``, ``check_real``, ``check_choice``, ``check_bool``, ``check_name`` and
``check_names`` are the one-line forms, and :func:`check_items` checks a sequence of
objects of given types. Every failed check
raises :class:`~anonkit.exceptions.ParameterError`, whose ``expected`` is the constraint's
description, so the TOML loader can reword it with the key and the file.

:func:`lookup` takes a name out of a registry (an unknown name raises
:class:`~anonkit.exceptions.UnknownNameError`, listing the known ones).
:class:`Parameters` is the base of classes whose ``__init__`` stores each parameter
unchanged (scikit-learn's convention): it gives them ``get_params``, ``set_params`` (so
``sklearn.base.clone`` works) and a ``repr`` that shows the parameters.

Examples
--------
>>> check_int(3, "k", "KAnonymity", low=1)
3
>>> try:
...     check_int(0, "k", "KAnonymity", low=1)
... except ParameterError as exc:
...     print(exc)
The 'k' parameter of KAnonymity must be an int >= 1. Got 0 instead.
>>> validate({"suppressed": "drop"}, {"suppressed": Options(("mask", "drop"))}, "anonymize")
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, Self, TypeVar

import numpy as np

from anonkit.exceptions import ParameterError, UnknownNameError, did_you_mean

__all__ = [
    "Boolean",
    "Callback",
    "Constraint",
    "Interval",
    "Keyed",
    "Name",
    "Names",
    "Options",
    "SEED",
    "Parameters",
    "Separator",
    "check",
    "check_bool",
    "check_choice",
    "check_int",
    "check_items",
    "check_name",
    "check_names",
    "check_real",
    "init_parameters",
    "lookup",
    "validate",
]

T = TypeVar("T")
Closed = Literal["both", "left", "right", "neither"]


class Constraint(Protocol):
    """What a value must be: a test and the phrase that completes "must be ..."."""

    def accepts(self, value: object) -> bool:
        """Whether ``value`` satisfies the constraint."""
        ...

    def __str__(self) -> str:
        """The phrase after "must be", e.g. ``"an int >= 1"``."""
        ...


def _number(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class Interval:
    """An int (``kind=int``) or a finite real number (``kind=float``) within bounds.

    ``closed`` says which bounds belong to the interval; ``None`` leaves a side open-ended.
    Booleans are never numbers here. ``noun`` replaces "an int" / "a real number" in the
    description (``"a share"``).

    Examples
    --------
    >>> str(Interval(int, 1)), str(Interval(float, 0, 1)), str(Interval(float, 0, 1, "right"))
    ('an int >= 1', 'a real number between 0 and 1', 'a real number in (0, 1]')
    """

    kind: type[int] | type[float]
    low: float | None = None
    high: float | None = None
    closed: Closed = "both"
    noun: str | None = None

    def accepts(self, value: object) -> bool:
        if isinstance(value, (bool, np.bool_)):
            return False
        number: float
        if self.kind is int:
            if not isinstance(value, (int, np.integer)):
                return False
            number = int(value)  # exactly: an int past 1e308 has no float
        elif not isinstance(value, (int, float, np.integer, np.floating)):
            return False
        elif not math.isfinite(number := float(value)):
            return False
        if self.low is not None:
            low_in = self.closed in ("both", "left")
            if number < self.low or (number == self.low and not low_in):
                return False
        if self.high is not None:
            high_in = self.closed in ("both", "right")
            if number > self.high or (number == self.high and not high_in):
                return False
        return True

    def __str__(self) -> str:
        noun = self.noun or ("an int" if self.kind is int else "a real number")
        low_in = self.closed in ("both", "left")
        high_in = self.closed in ("both", "right")
        if self.low is None and self.high is None:
            return noun
        if self.high is None:
            assert self.low is not None
            return f"{noun} {'>=' if low_in else '>'} {_number(self.low)}"
        if self.low is None:
            return f"{noun} {'<=' if high_in else '<'} {_number(self.high)}"
        if low_in and high_in:
            return f"{noun} between {_number(self.low)} and {_number(self.high)}"
        left, right = "[" if low_in else "(", "]" if high_in else ")"
        return f"{noun} in {left}{_number(self.low)}, {_number(self.high)}{right}"


@dataclass(frozen=True)
class Options:
    """One of ``choices`` (compared with ``==``; strings are not stripped or lowered).

    Examples
    --------
    >>> str(Options(("equal", "ordered", "hierarchical")))
    "'equal', 'ordered' or 'hierarchical'"
    """

    choices: tuple[object, ...]

    def accepts(self, value: object) -> bool:
        return any(isinstance(value, type(c)) and value == c for c in self.choices)

    def __str__(self) -> str:
        shown = [repr(c) for c in self.choices]
        return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


@dataclass(frozen=True)
class Boolean:
    """``True`` or ``False`` (not 0 or 1)."""

    def accepts(self, value: object) -> bool:
        return isinstance(value, bool)

    def __str__(self) -> str:
        return "True or False"


@dataclass(frozen=True)
class Name:
    """A non-empty column name (a string that is not blank)."""

    def accepts(self, value: object) -> bool:
        return isinstance(value, str) and bool(value.strip())

    def __str__(self) -> str:
        return "a non-empty column name (str)"


@dataclass(frozen=True)
class Names:
    """A column name or a sequence of column names (strings)."""

    def accepts(self, value: object) -> bool:
        if isinstance(value, str):
            return True
        return (
            isinstance(value, Sequence)
            and not isinstance(value, bytes)
            and all(isinstance(v, str) for v in value)
        )

    def __str__(self) -> str:
        return "a column name or a list of column names"


@dataclass(frozen=True)
class Separator:
    """A CSV field separator: one ASCII character other than a quote or a line break.

    Examples
    --------
    >>> Separator().accepts(";"), Separator().accepts(";;"), Separator().accepts('"')
    (True, False, False)
    """

    def accepts(self, value: object) -> bool:
        return (
            isinstance(value, str) and len(value) == 1 and value.isascii() and value not in '"\r\n'
        )

    def __str__(self) -> str:
        return "one ASCII character other than a quote or line break"


@dataclass(frozen=True)
class Callback:
    """A callable, such as a progress callback (``True``/``False`` are not)."""

    def accepts(self, value: object) -> bool:
        return callable(value)

    def __str__(self) -> str:
        return "a callable such as progress(done, total)"


@dataclass(frozen=True)
class Keyed:
    """A mapping (a ``dict`` of options or weights); ``noun`` describes it.

    Examples
    --------
    >>> Keyed().accepts({"aggregate": "geometric"}), Keyed().accepts(3)
    (True, False)
    """

    noun: str = "a mapping"

    def accepts(self, value: object) -> bool:
        return isinstance(value, Mapping)

    def __str__(self) -> str:
        return self.noun


@dataclass(frozen=True)
class OrNone:
    """``None``, or a value ``inner`` accepts (an optional parameter)."""

    inner: Constraint

    def accepts(self, value: object) -> bool:
        return value is None or self.inner.accepts(value)

    def __str__(self) -> str:
        return f"None or {self.inner}"


#: A random generator's seed: ``None`` (fresh entropy) or an int >= 0.
SEED: Constraint = OrNone(Interval(int, 0))


_INIT_PARAMETERS: dict[type, tuple[str, ...]] = {}


def init_parameters(cls: type) -> tuple[str, ...]:
    """The parameter names of ``cls``'s ``__init__`` but ``self``, read once per class
    (reading a signature takes 0.1 to 0.4 ms, and every fit asks).

    Examples
    --------
    >>> class Box:
    ...     def __init__(self, width: int, *, depth: int = 1) -> None: ...
    >>> init_parameters(Box)
    ('width', 'depth')
    """
    names = _INIT_PARAMETERS.get(cls)
    if names is None:
        names = _INIT_PARAMETERS[cls] = tuple(inspect.signature(cls).parameters)
    return names


class Parameters:
    """``get_params``, ``set_params`` and ``repr`` of a class whose ``__init__`` stores
    every parameter unchanged under its own name (scikit-learn's convention, so
    ``sklearn.base.clone`` and parameter grids work on it).

    A parameter whose value has parameters of its own (an object with ``get_params``, or
    a frozen dataclass such as :class:`~anonkit.estimators.Privacy`) is reached as
    ``outer__inner``: ``set_params(privacy__suppression_limit=0.05)`` replaces the
    ``privacy`` value with a copy holding the new field. Values are checked when the
    estimator runs, not here.

    Examples
    --------
    >>> class Box(Parameters):
    ...     def __init__(self, width: int = 1) -> None:
    ...         self.width = width
    >>> Box().set_params(width=3)
    Box(width=3)
    >>> try:
    ...     Box().set_params(height=3)
    ... except UnknownNameError as exc:
    ...     print(exc)
    Unknown parameter 'height' of Box; choose one of: width.
    """

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The parameters of ``__init__`` and their values; with ``deep``, also those of
        the values that have parameters, as ``outer__inner``."""
        pairs = [(name, getattr(self, name)) for name in init_parameters(type(self))]
        return _with_inner(pairs) if deep else dict(pairs)

    def set_params(self, **params: Any) -> Self:
        """Set parameters (``outer__inner`` for a value's own), unchecked until the
        estimator runs; returns the estimator.

        Raises
        ------
        UnknownNameError
            For a name that is not a parameter, listing the parameters (before any is
            set).
        """
        valid = list(init_parameters(type(self)))
        direct, nested = _split_params(params, valid, type(self).__name__)
        for name, value in direct.items():
            setattr(self, name, value)
        for name, inner in nested.items():
            setattr(self, name, _with_params(getattr(self, name), inner, name))
        return self

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.get_params(deep=False).items())
        return f"{type(self).__name__}({shown})"


def _inner_params(value: object) -> dict[str, Any] | None:
    """The parameters of a parameter's value (see :class:`Parameters`), or ``None``."""
    if isinstance(value, type):
        return None
    if isinstance(value, Parameters):
        return value.get_params(deep=True)
    if dataclasses.is_dataclass(value):
        return _with_inner(
            [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value) if f.init]
        )
    get_params = getattr(value, "get_params", None)
    return dict(get_params(deep=True)) if callable(get_params) else None


def _with_params(value: Any, params: Mapping[str, Any], owner: str) -> Any:
    """``value`` with ``params`` set: in place when it has ``set_params``, else a frozen
    dataclass replaced by a copy.

    Raises
    ------
    UnknownNameError
        For a name ``value`` does not have (``owner``: the parameter holding it).
    """
    if isinstance(value, Parameters) or callable(getattr(value, "set_params", None)):
        return value.set_params(**params)
    if value is None:  # nothing to set a part of: say what to give instead
        raise ParameterError(
            owner, "set_params", f"set as a whole first ({owner}=...), then in parts", None
        )
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        raise UnknownNameError("parameter", next(iter(params)), [], f" of {owner}")
    fields = [f.name for f in dataclasses.fields(value) if f.init]
    direct, nested = _split_params(params, fields, owner)
    for name, inner in nested.items():
        direct[name] = _with_params(direct.get(name, getattr(value, name)), inner, name)
    return dataclasses.replace(value, **direct)


def _with_inner(pairs: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    """Each parameter with its value, preceded by the value's own parameters (if any) as
    ``name__inner``."""
    out: dict[str, Any] = {}
    for name, value in pairs:
        inner = _inner_params(value)
        if inner:
            out.update((f"{name}__{k}", v) for k, v in inner.items())
        out[name] = value
    return out


def _split_params(
    params: Mapping[str, Any], valid: list[str], owner: str
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """``params`` as the values to set directly and, per parameter, the ``inner`` names
    to set on its value (``name__inner``).

    Raises
    ------
    UnknownNameError
        For a name not in ``valid`` (``owner``: what holds the parameters).
    """
    direct: dict[str, Any] = {}
    nested: dict[str, dict[str, Any]] = {}
    for key, value in params.items():
        name, sub, rest = key.partition("__")
        if name not in valid:
            raise UnknownNameError("parameter", name, valid, f" of {owner}")
        if sub:
            nested.setdefault(name, {})[rest] = value
        else:
            direct[name] = value
    return direct, nested


def check(value: T, constraint: Constraint, name: str, owner: str) -> T:
    """``value`` unchanged if it satisfies ``constraint``.

    Raises
    ------
    ParameterError
        Naming ``name``, ``owner``, the constraint and the value.
    """
    if not constraint.accepts(value):
        hint = ""
        if isinstance(constraint, Options) and isinstance(value, str):
            names = [c for c in constraint.choices if isinstance(c, str)]
            hint = did_you_mean(value, names, template=" Did you mean {}?")
        elif isinstance(constraint, Interval) and constraint.noun == "a share":
            hint = _percentage_hint(value)
        elif isinstance(constraint, Names):
            hint = _text_names_hint(value)
        raise ParameterError(name, owner, str(constraint), value, hint)
    return value


def _percentage_hint(value: object) -> str:
    """`` Did you mean 0.05?`` for a share written as a percentage (``5``, ``"5%"``)."""
    low = 1.0  # 0.5 is a share already; "0.5%" is not
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            value, low = float(value.strip()[:-1]), 0.0
        except ValueError:
            return ""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low < value <= 100:
        return ""
    return f" Did you mean {value / 100:g}?"


def _text_names_hint(value: object) -> str:
    """`` Column names are text: write '0'.`` for column names given as numbers (pandas
    frames read without a header name their columns 0, 1, ...; anonkit reads them '0')."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
        return ""
    numbers = [v for v in value if isinstance(v, (int, np.integer)) and not isinstance(v, bool)]
    return f" Column names are text: write {str(numbers[0])!r}." if numbers else ""


def validate(
    params: Mapping[str, object], constraints: Mapping[str, Constraint], owner: str
) -> None:
    """Check every parameter of ``params`` that ``constraints`` names, in its order.

    Parameters missing from ``params`` are not checked (their defaults are valid).

    Raises
    ------
    ParameterError
        For the first parameter that violates its constraint.
    """
    for name, constraint in constraints.items():
        if name in params:
            check(params[name], constraint, name, owner)


def lookup(registry: Mapping[str, T], name: str, kind: str) -> T:
    """``registry[name]``.

    Raises
    ------
    UnknownNameError
        If ``name`` is not in ``registry`` (or is not a string: ``None``, a list),
        listing its names (``kind``: what it holds, e.g. ``"metric"``).
    """
    if isinstance(name, str) and name in registry:
        return registry[name]
    raise UnknownNameError(kind, name, list(registry)) from None


def check_int(
    value: object, name: str, owner: str, *, low: int | None = None, high: int | None = None
) -> int:
    """``value`` as an int, if it is an int (not bool) in ``[low, high]``."""
    check(value, Interval(int, low, high), name, owner)
    assert isinstance(value, (int, np.integer))
    return int(value)


def check_real(
    value: object,
    name: str,
    owner: str,
    *,
    low: float | None = None,
    high: float | None = None,
    closed: Closed = "both",
    noun: str | None = None,
) -> float:
    """``value`` as a float, if it is a finite real number (not bool) within the bounds."""
    check(value, Interval(float, low, high, closed, noun), name, owner)
    assert isinstance(value, (int, float, np.integer, np.floating))
    return float(value)


def check_choice(value: T, name: str, owner: str, choices: Sequence[T]) -> T:
    """``value`` unchanged, if it is one of ``choices``."""
    return check(value, Options(tuple(choices)), name, owner)


def check_bool(value: object, name: str, owner: str) -> bool:
    """``value``, if it is ``True`` or ``False``."""
    check(value, Boolean(), name, owner)
    return bool(value)


def check_name(value: object, name: str, owner: str) -> str:
    """``value``, if it is a non-empty column name."""
    check(value, Name(), name, owner)
    return str(value)


def check_names(value: object, name: str, owner: str) -> tuple[str, ...]:
    """``value`` as a tuple of column names (a single name gives a 1-tuple, never one
    name per character); any iterable of names but a mapping (a pandas ``Index``, a numpy
    array, a generator) is read as a sequence of them.

    Examples
    --------
    >>> check_names("age", "sensitive", "X"), check_names(iter(["a", "b"]), "sensitive", "X")
    (('age',), ('a', 'b'))
    """
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, Sequence, Mapping)):
        value = tuple(value)
    check(value, Names(), name, owner)
    if isinstance(value, str):
        return (value,)
    assert isinstance(value, Sequence)
    return tuple(str(v) for v in value)


def check_items(
    items: Iterable[T],
    name: str,
    owner: str,
    kinds: type | tuple[type, ...],
    noun: str,
    *,
    allow_empty: bool = False,
) -> list[T]:
    """``items`` as a list, if every item is an instance of ``kinds`` (and, unless
    ``allow_empty``, there is at least one).

    Raises
    ------
    ParameterError
        Expecting "a (non-empty) sequence of ``noun``" and showing the items' type names.

    Examples
    --------
    >>> check_items([1, 2], "sizes", "X", int, "ints")
    [1, 2]
    >>> try:
    ...     check_items([1, "2"], "sizes", "X", int, "ints")
    ... except ParameterError as exc:
    ...     print(exc)
    The 'sizes' parameter of X must be a non-empty sequence of ints. Got ['int', 'str'] instead.
    """
    values = list(items)
    if (values or allow_empty) and all(isinstance(v, kinds) for v in values):
        return values
    expected = f"a sequence of {noun}" if allow_empty else f"a non-empty sequence of {noun}"
    raise ParameterError(name, owner, expected, [type(v).__name__ for v in values])
