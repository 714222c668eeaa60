"""The linkage attack on successive releases (seed 001, "linkage attack using successive
k-anonymous releases"; Xiao & Tao 2007, Section 1).

An adversary knows a target's quasi-identifier values and that the target is in every
release. In each release, the target can be any record of any class whose labels cover
those values, so its sensitive value is one of those classes' values; intersecting these
sets over the releases can leave a single value: the value is disclosed although every
release alone is k-anonymous.

Labels are read as an adversary reads them: ``*`` covers everything, ``[lo-hi]`` or
``[lo-hi[`` a numeric range (closed, or half-open), ``{a,b}`` a set of values (members
quoted as :mod:`anonkit.releases._labels` writes them: ``{"Austin, TX",Paris}``), anything
else only itself. Sensitive values are read as the values they denote, not as their
spelling: 3, 3.0 and "3" are one value (:func:`anonkit.releases._values.value_key`), as
they are to whoever reads releases from files that gave their columns other types.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import polars as pl

from anonkit.core.values import as_text
from anonkit.exceptions import UnknownColumnError
from anonkit.releases._labels import set_members
from anonkit.releases._values import value_keys

__all__ = ["covers", "linkage_attack"]

_RANGE = re.compile(r"^\[\s*(-?[\d.]+)\s*-\s*(-?[\d.]+)\s*([\]\[])$")


def covers(label: str, value: object) -> bool:
    """Whether a released label covers an original value.

    Examples
    --------
    >>> covers("[30-39]", 35), covers("[30-40[", 40), covers("{a,b}", "b"), covers("*", 1)
    (True, False, True, True)
    >>> covers('{"Austin, TX",Paris}', "Austin, TX"), covers('{"Austin, TX",Paris}', "Austin")
    (True, False)
    """
    text = str(value)
    if label == "*" or label == text:
        return True
    found = _RANGE.match(label)
    if found:
        try:
            x = float(text)
        except ValueError:
            return False
        lo, hi = float(found.group(1)), float(found.group(2))
        return lo <= x <= hi if found.group(3) == "]" else lo <= x < hi
    members = set_members(label)
    return members is not None and text in members


def linkage_attack(
    releases: Sequence[pl.DataFrame],
    targets: pl.DataFrame,
    *,
    quasi_identifiers: Sequence[str],
    sensitive: str,
) -> list[frozenset[str]]:
    """For each target, the sensitive values left after intersecting the releases.

    Parameters
    ----------
    releases
        The successive releases (quasi-identifier labels and the sensitive attribute).
    targets
        The adversary's knowledge: one row per target with its original quasi-identifier
        values (each target is assumed present in every release).
    quasi_identifiers, sensitive
        The columns.

    Returns
    -------
    list of frozenset
        Per target, the values consistent with every release; a set of one value is a
        disclosure.
    """
    qi = list(quasi_identifiers)
    for frame, needed in [*((r, [*qi, sensitive]) for r in releases), (targets, qi)]:
        missing = [c for c in needed if c not in frame.columns]
        if missing:
            raise UnknownColumnError(missing, frame.columns)
    people = targets.select(qi).rows()
    out: list[frozenset[str]] = []
    # distinct label rows of each release with their sensitive values
    catalogs = []
    for rel in releases:
        values = value_keys(as_text(rel[sensitive])).alias(sensitive)
        grouped = rel.with_columns(values).group_by(qi, maintain_order=True).agg(sensitive)
        catalogs.append([(tuple(row[:-1]), frozenset(row[-1])) for row in grouped.rows()])
    for person in people:
        left: frozenset[str] | None = None
        for catalog in catalogs:
            seen: set[str] = set()
            for labels, vals in catalog:
                if all(covers(str(lab), v) for lab, v in zip(labels, person, strict=True)):
                    seen |= vals
            left = frozenset(seen) if left is None else left & seen
        out.append(left if left is not None else frozenset())
    return out
