"""Recode held-out test records with the transformation that produced a train release.

To score a classifier trained on a release on data it has not seen, the test records must
be written the way the release writes its records (Iyengar 2002 and LeFevre et al. 2006
evaluate anonymized training data this way). :func:`recode_test` does it for every kind of
anonkit release:

* **full-domain** (``transformation`` non-empty; flash, incognito, ...): each column's
  hierarchy level is applied to the test values;
* **local recoding** (Mondrian, greedy class merging): each test record takes the labels of
  the most specific release class containing it, else of the nearest class; the share of
  such uncovered records is reported as ``uncovered_share``;
* **microaggregation**: each test record takes the aggregates of the nearest group on the
  numeric quasi-identifiers, and its other quasi-identifiers the level the release writes
  them at (the study releases them at the root: :mod:`anonkit.study.microaggregation`).

The recodings themselves live in :mod:`anonkit.estimators.recoding` (the estimators'
``transform`` uses them too); this module reads the release against the train split and
picks the recoding.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import polars as pl

from anonkit._frozen import FrozenDict
from anonkit._validation import check_int
from anonkit.core.hierarchy import Hierarchy
from anonkit.estimators.recoding import apply_levels, assign_classes, nearest_groups
from anonkit.exceptions import DataError, UnknownColumnError
from anonkit.metrics.release import Release
from anonkit.study.features import read_release, setup_hierarchies
from anonkit.study.setup import UtilitySetup

__all__ = ["METHODS", "RecodedTest", "recode_test"]

#: How a test split can be recoded.
METHODS = ("identity", "full_domain", "local", "microaggregation")
_OWNER = "recode_test"


@dataclass(frozen=True, eq=False)
class RecodedTest:
    """The test split written the way the train release writes its records.

    Attributes
    ----------
    frame
        The test split with every quasi-identifier replaced by its released form (other
        columns unchanged), row-aligned with the test split.
    uncovered_share
        Share of test records that no release class contains (local recoding only; 0
        otherwise).
    method
        One of :data:`METHODS`.
    levels
        The full-domain levels applied (``{}`` unless ``method == "full_domain"``); the
        level hint for reading the frame.
    """

    frame: pl.DataFrame
    uncovered_share: float
    method: str
    levels: Mapping[str, int]


def recode_test(
    setup: UtilitySetup,
    train: pl.DataFrame,
    release: pl.DataFrame,
    test: pl.DataFrame,
    *,
    transformation: Mapping[str, int] | None = None,
    algorithm: str | None = None,
) -> RecodedTest:
    """Recode ``test`` with the transformation that turned ``train`` into ``release``.

    Parameters
    ----------
    setup
        Quasi-identifiers, hierarchies and numeric columns.
    train, release
        The original train split and its release, row-aligned (suppressed records as
        ``*``).
    test
        The held-out records, original values.
    transformation
        ``AnonymizationResult.transformation``: the hierarchy level of each
        quasi-identifier of a full-domain release; empty or ``None`` for local recodings.
    algorithm
        ``AnonymizationResult.algorithm``; ``"microaggregation"`` selects the nearest-group
        recoding. When neither ``transformation`` nor ``algorithm`` is given, the method is
        inferred from the release: every hierarchy attribute at one level and numeric
        attributes unchanged -> full-domain; hierarchy attributes unchanged and numeric
        attributes exact numbers -> microaggregation; otherwise local recoding.

    Returns
    -------
    RecodedTest

    Raises
    ------
    UnknownColumnError
        If a quasi-identifier is missing from a frame.
    ValuesNotInHierarchyError
        If a test value is not in its column's hierarchy.
    DataError
        If ``train`` and ``release`` differ in length or a cell cannot be read.

    Examples
    --------
    >>> from anonkit.study.setup import UtilitySetup
    >>> h = Hierarchy([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]])
    >>> setup = UtilitySetup(target="y", quasi_identifiers=("x",), hierarchies={"x": h})
    >>> train = pl.DataFrame({"x": ["a", "b", "c", "c"]})
    >>> release = pl.DataFrame({"x": ["ab", "ab", "c", "c"]})
    >>> test = pl.DataFrame({"x": ["b", "c"]})
    >>> recode_test(setup, train, release, test, transformation={"x": 1}).frame["x"].to_list()
    ['ab', 'c']
    >>> local = pl.DataFrame({"x": ["ab", "ab", "*", "*"]})
    >>> recode_test(setup, train, local, test, algorithm="mondrian").frame["x"].to_list()
    ['ab', '*']
    """
    qi = list(setup.quasi_identifiers)
    for frame in (train, release, test):
        missing = [c for c in qi if c not in frame.columns]
        if missing:
            raise UnknownColumnError(missing, frame.columns)
    if train.height != release.height:
        raise DataError(
            f"The release has {release.height} rows but the train split {train.height}; "
            "they must be row-aligned."
        )
    hierarchies = setup_hierarchies(setup, train, test, release=release)
    levels = dict(transformation or {})
    if levels:
        return _full_domain(setup, hierarchies, test, levels)
    if algorithm == "microaggregation":
        return _microaggregation(setup, hierarchies, train, release, test)
    if algorithm is None:
        method, inferred = _infer(setup, hierarchies, train, release)
        if method == "full_domain":
            return _full_domain(setup, hierarchies, test, inferred)
        if method == "microaggregation":
            return _microaggregation(setup, hierarchies, train, release, test)
    return _local(setup, hierarchies, train, release, test)


# ----------------------------------------------------------------------- full domain
def _full_domain(
    setup: UtilitySetup,
    hierarchies: Mapping[str, Hierarchy],
    test: pl.DataFrame,
    levels: Mapping[str, int],
) -> RecodedTest:
    wanted = {
        c: check_int(levels.get(c, 0), "transformation", _OWNER, low=0)
        for c in setup.quasi_identifiers
    }
    known = {c: hierarchies.get(c, setup.hierarchies.get(c)) for c in setup.quasi_identifiers}
    frame, changed = apply_levels(test, wanted, known)
    levels_out = {c: int(levels.get(c, 0)) for c in hierarchies}
    method = "full_domain" if changed else "identity"
    return RecodedTest(frame, 0.0, method, FrozenDict(levels_out))


# ------------------------------------------------------------------------- inference
def _infer(
    setup: UtilitySetup,
    hierarchies: Mapping[str, Hierarchy],
    train: pl.DataFrame,
    release: pl.DataFrame,
) -> tuple[str, dict[str, int]]:
    """Guess how ``release`` was made: full-domain (with its levels), microaggregation or
    local recoding (see :func:`recode_test`)."""
    read = read_release(setup, hierarchies, train, release)
    levels, mixed = _column_levels(read)
    numbers_kept = True
    numbers_exact = True
    kept = ~read.suppressed
    for col in read.columns:
        if col.kind != "hierarchy":
            assert col.original is not None
            value = col.value[col.cell]
            numbers_exact &= bool(np.isfinite(value[kept]).all())
            numbers_kept &= bool((value[kept] == col.original[kept]).all())
    if not mixed and numbers_kept:
        return "full_domain", levels
    if numbers_exact and setup.numeric and not mixed:
        return "microaggregation", {}
    return "local", {}


def _column_levels(read: Release) -> tuple[dict[str, int], list[str]]:
    """The one level each hierarchy column of ``read`` is released at, and the columns
    that have none (several levels, or labels that are not the values' ancestors)."""
    levels: dict[str, int] = {}
    mixed: list[str] = []
    kept = ~read.suppressed
    for col in read.columns:
        if col.kind != "hierarchy":
            continue
        assert col.hierarchy is not None
        lv = np.unique(col.level[col.cell[kept]])
        # a node label at that level, equal to the value's ancestor
        if lv.size > 1 or not bool(col.truthful[kept].all()):
            mixed.append(col.name)
        else:
            levels[col.name] = int(lv[0]) if lv.size else col.hierarchy.max_level
    return levels, mixed


# ---------------------------------------------------------------------- local recoding
def _local(
    setup: UtilitySetup,
    hierarchies: Mapping[str, Hierarchy],
    train: pl.DataFrame,
    release: pl.DataFrame,
    test: pl.DataFrame,
) -> RecodedTest:
    read = read_release(setup, hierarchies, train, release)
    frame, uncovered = assign_classes(read, release, test)
    share = uncovered / test.height if test.height else 0.0
    return RecodedTest(frame, share, "local", FrozenDict({}))


def _microaggregation(
    setup: UtilitySetup,
    hierarchies: Mapping[str, Hierarchy],
    train: pl.DataFrame,
    release: pl.DataFrame,
    test: pl.DataFrame,
) -> RecodedTest:
    """Numeric quasi-identifiers to the nearest group's aggregates, the others (read
    through a hierarchy) to the one level the release writes each at (the root, for the
    study's microaggregation); without declared numeric columns every quasi-identifier is
    microaggregated."""
    qi = list(setup.quasi_identifiers)
    numbers = [c for c in qi if c in setup.numeric and c not in hierarchies]
    if not numbers:
        return RecodedTest(
            nearest_groups(train, release, test, qi), 0.0, "microaggregation", FrozenDict({})
        )
    frame = test
    if any(c in hierarchies for c in qi):
        levels, mixed = _column_levels(read_release(setup, hierarchies, train, release))
        if mixed:
            raise DataError(
                f"The microaggregation release writes column {mixed[0]!r} at several levels "
                "of its hierarchy (or with labels that are not its values' ancestors); "
                "its test records cannot be recoded the same way."
            )
        frame, _ = apply_levels(test, levels, hierarchies)
    frame = nearest_groups(train, release, frame, numbers)
    return RecodedTest(frame, 0.0, "microaggregation", FrozenDict({}))
