"""Sensitive values as :func:`anonkit.releases.publish` reads and writes them.

A counterfeit must read as a real record would: a value written otherwise than the
column writes it (``1`` among ``1.0``, ``2.0``) is told as a counterfeit, and a value
written two ways (``1`` beside ``1.0``) is one value twice, so a class that holds both is
homogeneous although it looks m-unique. So every value a release holds is written one
way, however it came: the table's values as :func:`anonkit.core.values.as_text` writes
them (a float 3.0 as ``3``, as an integer column writes it; text stripped), and in a
column of numbers or booleans also the history's values and ``domain=``'s as the value
they denote (:func:`value_key`: ``3.0``, ``03`` and ``3`` are ``3``; ``true`` is
``True``), so a column read as integers once and as floats later keeps its signatures.
A text column cannot be rewritten: one number written two ways there, or in the history
or ``domain=`` beside it, is refused (:meth:`Spelling.check`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

import polars as pl

from anonkit.core.values import as_text
from anonkit.exceptions import DataError, ParameterError, PrivacyUnattainableError
from anonkit.releases.history import Signature

__all__ = ["Spelling", "value_key", "value_keys"]

_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
_TRUTH = {"true": "True", "false": "False"}
#: Whole numbers up to this many digits are written in full (``100000``), larger ones as
#: Python writes the float (``1e+40``); as_text writes whole floats in full below 1.7e38.
_FULL_DIGITS = 40


def value_key(text: str) -> str:
    """The value ``text`` denotes, written one way: a number as its shortest exact form
    (``3.0``, ``03``, ``3e0`` -> ``3``; ``2.50`` -> ``2.5``; ``1e-05`` as Python writes
    it), a boolean as ``True``/``False``, other text stripped.

    Examples
    --------
    >>> [value_key(t) for t in ["3.0", " 03", "2.50", "1e-5", "true", "flu "]]
    ['3', '3', '2.5', '1e-05', 'True', 'flu']
    """
    text = text.strip()
    if text.lower() in _TRUTH:
        return _TRUTH[text.lower()]
    if not _NUMBER.match(text):
        return text
    # the digits and exponent read exactly (no decimal context: it rounds and overflows)
    negative, digits, power = Decimal(text).as_tuple()
    exponent = int(power)  # a finite number's: _NUMBER matched
    shown = "".join(map(str, digits)).lstrip("0")
    if not shown:
        return "0"
    sign, kept = "-" if negative else "", shown.rstrip("0")
    exponent += len(shown) - len(kept)
    adjusted = exponent + len(kept) - 1
    if exponent >= 0 and adjusted < _FULL_DIGITS:
        return sign + kept + "0" * exponent
    close = repr(float(text))
    if Decimal(close) == Decimal(text):
        return close
    return f"{sign}{kept[0]}{'.' if kept[1:] else ''}{kept[1:]}E{adjusted:+d}"


def value_keys(series: pl.Series) -> pl.Series:
    """:func:`value_key` of every text of ``series`` (computed once per distinct value;
    missing values stay missing)."""
    text = series.cast(pl.String)
    distinct = text.drop_nulls().unique().to_list()
    keys = [value_key(t) for t in distinct]
    return text.replace_strict(distinct, keys, default=None, return_dtype=pl.String)


@dataclass(frozen=True)
class Spelling:
    """How the values of one sensitive column are written in a release.

    Parameters
    ----------
    column
        The sensitive column's name (for messages).
    kind
        ``"numbers"`` or ``"booleans"`` for a column of those (every value written as
        :func:`value_key` writes it), ``""`` for text (values stripped, never rewritten).
    """

    column: str
    kind: str

    @classmethod
    def of(cls, series: pl.Series) -> Spelling:
        """The spelling of the column ``series``."""
        dtype = series.dtype
        numbers = dtype.is_numeric() or isinstance(dtype, pl.Decimal)
        kind = "numbers" if numbers else "booleans" if dtype == pl.Boolean else ""
        return cls(series.name, kind)

    def values(self, series: pl.Series) -> pl.Series:
        """The column's values as the release writes them (text)."""
        text = as_text(series)
        # as_text writes integers as value_key does: only floats and decimals are read
        return value_keys(text) if self.kind and not series.dtype.is_integer() else text

    def texts(self, texts: Iterable[str]) -> dict[str, str]:
        """Texts kept by the history (written by earlier releases, perhaps of a column
        read with another type), each as the release writes it."""
        read = value_key if self.kind else str.strip
        return {t: read(t) for t in texts}

    def domain(self, domain: Sequence[object]) -> list[str]:
        """``domain=`` as the release writes its values.

        Raises
        ------
        ParameterError
            Naming a missing value, or one that is no number (no boolean) in a column of
            numbers (booleans): a counterfeit holding it would be told at a glance.
        """
        if any(v is None for v in domain):
            raise ParameterError(
                "domain", "publish", "values without None (a counterfeit is never missing)", None
            )
        texts = [v.strip() if isinstance(v, str) else as_text(pl.Series([v]))[0] for v in domain]
        if not self.kind:
            return texts
        keys = [value_key(t) for t in texts]
        alien = [t for t, k in zip(texts, keys, strict=True) if _kind(k) != self.kind]
        if alien:
            raise ParameterError(
                "domain",
                "publish",
                f"{self.kind}, as column {self.column!r} holds (a counterfeit of another "
                "kind would be told from the real records)",
                alien[:5],
            )
        return keys

    def check(self, sources: Mapping[str, Iterable[str]]) -> None:
        """Refuse one value written two ways among the values of ``sources`` (the table,
        the history, ``domain=``, by name), which a release writes as they come.

        Raises
        ------
        DataError
            Naming the two spellings and where each comes from.
        """
        seen: dict[str, tuple[str, str]] = {}
        for source, texts in sources.items():
            for t in sorted(set(texts)):
                first = seen.setdefault(value_key(t), (t, source))
                if first[0] != t:
                    (a, at), (b, bt) = sorted([first, (t, source)])
                    raise DataError(
                        f"One value of column {self.column!r} is written two ways: {a!r} "
                        f"({at}) and {b!r} ({bt}). A counterfeit written one way would be "
                        "told from the real records written the other, or stand beside one "
                        "as a second value; write each value one way (read the column as "
                        "numbers, or pass domain= as the column writes its values)."
                    )

    def windows(
        self, windows: Sequence[tuple[Signature, ...]], requirement: str
    ) -> tuple[list[tuple[Signature, ...]], set[str]]:
        """The history's windows of signatures with their values as the release writes
        them (:meth:`signature`), and those values."""
        texts = self.texts({v for w in windows for sig in w for v in sig})
        out = [tuple(self.signature(sig, texts, requirement) for sig in w) for w in windows]
        return out, set(texts.values())

    def signature(self, raw: Signature, texts: Mapping[str, str], requirement: str) -> Signature:
        """A history's signature with its values as the release writes them.

        Raises
        ------
        PrivacyUnattainableError
            If two of its values are one value written two ways: the class that gave it
            held that value twice, so it disclosed its records' value.
        """
        written = tuple(sorted({texts[v] for v in raw}))
        if len(written) < len(raw):
            twice = [v for v in raw if [texts[u] for u in raw].count(texts[v]) > 1]
            raise PrivacyUnattainableError(
                f"A signature of the history holds one value of column {self.column!r} "
                f"written two ways ({', '.join(map(repr, twice))}): an earlier release "
                "published that value twice in a class. Its records cannot be kept safe "
                "by this history; start a new history.",
                requirement=requirement,
            )
        return written


def _kind(key: str) -> str:
    """``"numbers"``, ``"booleans"`` or ``""``: what a :func:`value_key` denotes."""
    if key in _TRUTH.values():
        return "booleans"
    return "numbers" if _NUMBER.match(key) else ""
