"""The study's microaggregation setting on a table with categorical quasi-identifiers.

anonkit's microaggregation (:class:`anonkit.estimators.Microaggregation`) replaces every
quasi-identifier it is given by its group's aggregate, so it refuses categorical ones, and
a release that microaggregated the numeric quasi-identifiers and left the categorical ones
as they are would not be k-anonymous. The study tables mix both kinds. In a study, the
microaggregation setting (``microaggregation:mdav``) therefore

* releases each categorical quasi-identifier at the root of its hierarchy: one value for
  the whole column, which tells nobody apart, and
* microaggregates the numeric quasi-identifiers (the study's ``numeric`` list) with
  :func:`anonkit.anonymize` (``algorithm="microaggregation"``).

Every record of an MDAV group then shares all its released quasi-identifiers, so each
class of the release is a group of at least k records (or several groups whose aggregates
coincide) and the release is k-anonymous over all the quasi-identifiers. The cell measures
this like every other cell (``effective_k``), and the analysis leaves out any release
below its k. Test records are recoded the same way
(:func:`anonkit.study.recode.recode_test`: the categorical quasi-identifiers at the level
the release writes them, the numeric ones to the aggregates of the nearest group).

The loss metrics read a released number as an exact value: a group mean then costs
nothing under the interval metrics (Iyengar's loss, NCP) and, when no original value
equals it, makes the entropies infinite or undefined. So the study measures those
metrics on :func:`group_spans`, the release with each mean written as the range of its
group's original values (the range Mondrian would publish for the same partition, and the
span on which Xu et al. define NCP); SSE and IL, defined on the means, and the classes
(effective k, risk) are measured on the release itself.

References
----------
J. Domingo-Ferrer, J. M. Mateo-Sanz. Practical data-oriented microaggregation for
statistical disclosure control. IEEE TKDE 14(1), 2002.

J. Xu, W. Wang, J. Pei, X. Wang, B. Shi, A. W.-C. Fu. Utility-based anonymization using
local recoding. KDD 2006 (NCP on a class's span).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from anonkit.algorithms.mondrian.release import format_number, range_label
from anonkit.api import anonymize
from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import ParameterError

if TYPE_CHECKING:
    from anonkit.result import AnonymizationResult

__all__ = ["at_root", "group_spans", "microaggregate", "root_label"]


def root_label(hierarchy: Hierarchy) -> str:
    """The single label of the hierarchy's last level.

    Examples
    --------
    >>> root_label(Hierarchy([["a", "ab", "*"], ["b", "ab", "*"]]))
    '*'
    """
    return hierarchy.labels(hierarchy.max_level)[0]


def at_root(
    frame: pl.DataFrame, hierarchies: Mapping[str, Hierarchy], columns: Sequence[str]
) -> pl.DataFrame:
    """``frame`` with each of ``columns`` replaced by its hierarchy's root (text).

    Examples
    --------
    >>> h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"]])
    >>> at_root(pl.DataFrame({"x": ["a", "b"], "n": [1, 2]}), {"x": h}, ["x"]).rows()
    [('*', 1), ('*', 2)]
    """
    return frame.with_columns(
        pl.lit(root_label(hierarchies[c]), dtype=pl.String).alias(c) for c in columns
    )


def microaggregate(
    train: pl.DataFrame,
    *,
    quasi_identifiers: Sequence[str],
    numeric: Sequence[str],
    hierarchies: Mapping[str, Hierarchy],
    k: int,
    options: Mapping[str, Any],
) -> AnonymizationResult:
    """Release ``train`` with the categorical quasi-identifiers at their root and the
    ``numeric`` ones microaggregated to groups of at least ``k`` records.

    ``options`` are the microaggregation keywords of :func:`anonkit.anonymize`
    (``method``, ``aggregate``). The other columns (target, features) are kept as they
    are: the release is measured by the study, never published.

    Raises
    ------
    ParameterError
        If no quasi-identifier is numeric (there would be nothing to microaggregate).
    """
    numbers = [c for c in quasi_identifiers if c in numeric]
    if not numbers:
        raise ParameterError(
            "numeric",
            "the study's microaggregation",
            "at least one of the quasi-identifiers",
            list(numeric),
        )
    categorical = [c for c in quasi_identifiers if c not in numeric]
    return anonymize(
        at_root(train, hierarchies, categorical),
        quasi_identifiers=numbers,
        hierarchies={},
        k=k,
        algorithm="microaggregation",
        numeric=numbers,
        # the categorical quasi-identifiers, at their root, go along with the other columns
        others="keep",
        leak_check=False,
        **dict(options),
    )


def group_spans(
    original: pl.DataFrame,
    release: pl.DataFrame,
    *,
    quasi_identifiers: Sequence[str],
    numeric: Sequence[str],
) -> pl.DataFrame:
    """``release`` with each ``numeric`` quasi-identifier written as ``[lo-hi]``, the range
    of the original values of the record's class (records with equal released
    quasi-identifiers), or as the one value when the class has one.

    ``original`` and ``release`` are row-aligned. The classes, and so every class-based
    figure, are those of ``release``: only the numeric labels change.

    Examples
    --------
    >>> original = pl.DataFrame({"x": ["a", "b", "a"], "n": [20, 24, 30]})
    >>> release = pl.DataFrame({"x": ["*"] * 3, "n": [22.0, 22.0, 30.0]})
    >>> group_spans(original, release, quasi_identifiers=["x", "n"], numeric=["n"]).rows()
    [('*', '[20-24]'), ('*', '[20-24]'), ('*', '30')]
    """
    qi = list(quasi_identifiers)
    numbers = [c for c in qi if c in numeric]
    keys = [f"__class_{j}" for j in range(len(qi))]
    work = release.select(pl.col(c).alias(key) for c, key in zip(qi, keys, strict=True))
    columns = []
    for c in numbers:
        value = original[c].cast(pl.Float64)
        span = work.with_columns(value.alias("__value")).select(
            pl.col("__value").min().over(keys).alias("lo"),
            pl.col("__value").max().over(keys).alias("hi"),
        )
        pairs = span.unique(maintain_order=True)
        names = [range_label(format_number(lo), format_number(hi)) for lo, hi in pairs.rows()]
        labelled = pairs.with_columns(pl.Series(c, names, dtype=pl.String))
        columns.append(span.join(labelled, on=["lo", "hi"], how="left", maintain_order="left")[c])
    return release.with_columns(columns)
