"""The :class:`Mondrian` estimator and the :func:`mondrian` function."""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from anonkit._frozen import FrozenDict
from anonkit._validation import check_items
from anonkit.algorithms.mondrian.attributes import (
    Axis,
    HierarchicalQI,
    NumericQI,
    OrderedQI,
    QuasiIdentifier,
    SensitiveAttribute,
    check_lengths,
    same_kind,
)
from anonkit.algorithms.mondrian.judge import Judge
from anonkit.algorithms.mondrian.partition import IMPLEMENTATIONS, MODES, SPLITS, Partitioner
from anonkit.algorithms.mondrian.release import MondrianResult, build_release
from anonkit.exceptions import (
    DataError,
    EmptyDataError,
    ParameterError,
    PrivacyUnattainableError,
    UnknownNameError,
)
from anonkit.models.base import PrivacyModel
from anonkit.progress import Progress

#: How numeric quasi-identifiers are released.
NUMERIC_RELEASES = ("range", "mean")
_QI_TYPES = (NumericQI, HierarchicalQI, OrderedQI)


def _choice(value: object, parameter: str, options: Sequence[str]) -> str:
    if not isinstance(value, str):
        raise ParameterError(parameter, "Mondrian", f"one of {', '.join(options)}", value)
    if value not in options:
        raise UnknownNameError(f"Mondrian {parameter}", value, options)
    return value


def renamed_engine(implementation: str, engine: str | None, owner: str) -> str:
    """The implementation chosen by ``implementation=`` or its deprecated name ``engine=``.

    ``engine`` (``None`` when not passed) wins over the default ``implementation`` with a
    :class:`DeprecationWarning` attributed to the caller of ``owner``.

    Raises
    ------
    ParameterError
        If both are passed (``engine`` and an ``implementation`` other than ``"auto"``).
    """
    if engine is None:
        return implementation
    if implementation != "auto":
        raise ParameterError(
            "engine",
            owner,
            "left out when 'implementation' is given (it is the deprecated name of "
            "'implementation')",
            engine,
        )
    warnings.warn(
        f"The 'engine' parameter of {owner} is deprecated; use implementation={engine!r}.",
        DeprecationWarning,
        stacklevel=3,
    )
    return engine


class Mondrian:
    """Greedy multidimensional k-anonymization (Mondrian), strict or relaxed.

    The table is viewed as points in the space of its quasi-identifiers. Starting from
    one partition holding every record, Mondrian repeatedly picks a quasi-identifier of a
    partition (by default the one with the widest normalized range), cuts the partition
    at the median of that attribute (numeric or ordered) or into the children of the
    values' lowest common ancestor (hierarchical), and keeps the cut if every privacy
    model accepts every part; otherwise it tries the other quasi-identifiers, and a
    partition without an allowable cut is released as one equivalence class. Mondrian
    never suppresses records.

    Parameters are stored unchanged and validated when :meth:`fit` runs.

    Parameters
    ----------
    mode
        ``"strict"`` (default): every record equal to the median goes left, partitions
        never overlap. ``"relaxed"``: records equal to the median are divided so both
        halves have ``floor(n/2)`` and ``ceil(n/2)`` records; released ranges may
        overlap. Hierarchical attributes are cut into whole subtrees in both modes.
    split
        Which quasi-identifier to cut first: ``"widest"`` (default; largest normalized
        width, see :meth:`Axis.width`), ``"distinct"`` (most distinct values in the
        partition) or ``"round_robin"`` (the one after the attribute that created the
        partition, cyclically). Ties go to the earlier quasi-identifier. If the chosen
        attribute has no allowable cut, the others are tried in the same order.
    numeric_release
        ``"range"`` (default): ``[min-max]`` of the class; ``"mean"``: the class mean.
    implementation
        ``"auto"`` (default): when every privacy model is k-anonymity and no population
        table is given, the recursion runs as one compiled function (numba; compiled on
        first use and cached on disk), otherwise as vectorized numpy rounds.
        ``"numpy"``: always the vectorized rounds. ``"compiled"``: the compiled
        function, or :class:`~anonkit.exceptions.ParameterError` where it does not
        apply. Both implementations give the same partitions.
    engine
        Deprecated name of ``implementation`` (a :class:`DeprecationWarning`; passing
        both is a :class:`~anonkit.exceptions.ParameterError`).

    Notes
    -----
    *Allowable cuts.* A cut is allowable when every class-local model finds no violation
    in the summary of the parts it creates (sensitive histograms carry the whole table's
    histogram as ``totals``), and every table-level model (``class_local`` False) finds
    none in the summary of all partitions as they would be after the cut. Partitions are
    cut breadth first, in partition order, which fixes the order in which table-level
    models see the cuts. The whole table must satisfy the models (Mondrian never
    suppresses), else :class:`~anonkit.exceptions.PrivacyUnattainableError`.

    *Widths* (``split="widest"``): numeric, ``(max - min) / (table max - table min)``;
    ordered, the same on positions in the order; hierarchical, ``(leaves under the
    values' lowest common ancestor - 1) / (leaves of the hierarchy - 1)``.

    *Class sizes.* With k-anonymity alone: in strict mode partitions are disjoint boxes,
    and a partition of ``2k`` or more records stays uncut only when no median cut leaves
    ``k`` records on each side (ties at the median) and no hierarchical cut leaves ``k``
    in every subtree. In relaxed mode with numeric or ordered attributes only, every
    partition of ``2k`` or more records holds identical quasi-identifier values, so
    partitions have ``k .. 2k - 1`` records otherwise. Hierarchical cuts are multi-way
    in both modes, so no such bound holds for them. Released classes are groups of
    identical labels: in relaxed mode (or with mean release) several partitions may
    share their labels and form one class, which is checked against the models again.

    References
    ----------
    K. LeFevre, D. J. DeWitt, R. Ramakrishnan. Mondrian multidimensional k-anonymity.
    ICDE 2006 (Algorithm 1; strict and relaxed multidimensional partitioning, Sec. 3-4).

    Examples
    --------
    >>> from anonkit.models import KAnonymity
    >>> res = Mondrian().fit([NumericQI("x", [1, 2, 3, 3, 4, 5])], [KAnonymity(2)])
    >>> res.released("x").tolist()
    ['[1-2]', '[1-2]', '3', '3', '[4-5]', '[4-5]']
    >>> Mondrian(mode="relaxed").fit([NumericQI("x", [1, 2, 3, 3, 4, 5])],
    ...                              [KAnonymity(2)]).released("x").tolist()
    ['[1-3]', '[1-3]', '[1-3]', '[3-5]', '[3-5]', '[3-5]']
    """

    def __init__(
        self,
        *,
        mode: str = "strict",
        split: str = "widest",
        numeric_release: str = "range",
        implementation: str = "auto",
        progress: Progress | None = None,
        engine: str | None = None,
    ) -> None:
        self.mode = mode
        self.split = split
        self.numeric_release = numeric_release
        self.implementation = renamed_engine(implementation, engine, "Mondrian")
        self.progress = progress

    def _validate(self) -> None:
        _choice(self.mode, "mode", MODES)
        _choice(self.split, "split", SPLITS)
        _choice(self.numeric_release, "numeric_release", NUMERIC_RELEASES)
        _choice(self.implementation, "implementation", IMPLEMENTATIONS)

    def fit(
        self,
        quasi_identifiers: Sequence[QuasiIdentifier],
        models: Sequence[PrivacyModel],
        *,
        sensitive: Sequence[SensitiveAttribute] = (),
        population: Mapping[str, QuasiIdentifier] | None = None,
    ) -> MondrianResult:
        """Partition the records and return the release.

        Parameters
        ----------
        quasi_identifiers
            One :class:`NumericQI`, :class:`HierarchicalQI` or :class:`OrderedQI` per
            quasi-identifier, all of the same length.
        models
            Privacy models (at least one); a cut is allowable when all accept its parts.
        sensitive
            Sensitive attributes read by models requiring sensitive histograms.
        population
            For models requiring population counts (k-map, delta-presence): the
            population table, one column per quasi-identifier name, of the same kind
            (and hierarchy or order) as the table's. A class's population count is the
            number of population records inside its released box.

        Returns
        -------
        MondrianResult

        Raises
        ------
        ParameterError, UnknownNameError
            For invalid settings or inputs.
        EmptyDataError
            If the table has no records.
        PrivacyUnattainableError
            If the whole table, as one class, does not satisfy the models.
        """
        t0 = time.perf_counter()
        self._validate()
        qis = self._check_inputs(quasi_identifiers, models, sensitive, population)
        n = check_lengths([*qis, *sensitive])
        if n == 0:
            raise EmptyDataError()
        pop_size = None
        if population is not None and self.numeric_release == "mean":
            if any(isinstance(q, NumericQI) for q in qis):
                raise ParameterError(
                    "numeric_release",
                    "Mondrian",
                    "'range' with a model that counts population records (k-map, "
                    "delta-presence): a class's count is of the records inside its box, "
                    "which a mean, one point, does not publish",
                    self.numeric_release,
                )
        if population is not None:
            pop_size = check_lengths([population[q.name] for q in qis])
            if pop_size == 0:
                raise EmptyDataError("The population table")
        judge = Judge(models, n, {s.name: s for s in sensitive}, pop_size)
        axes = [Axis.of(q) for q in qis]
        coords = None
        if population is not None:
            coords = np.stack([a.coordinates(population[a.name]) for a in axes])
        t1 = time.perf_counter()

        partitioner = Partitioner(
            axes,
            judge,
            relaxed=self.mode == "relaxed",
            split=self.split,
            population=coords,
            implementation=self.implementation,
            progress=self.progress,
        )
        if self.implementation == "compiled" and not partitioner.compiled_applies():
            raise ParameterError(
                "implementation",
                "Mondrian",
                "'auto' or 'numpy' unless every privacy model is KAnonymity, no population "
                "table is given and numba is installed",
                self.implementation,
            )
        root_check = partitioner.root_stats()
        failed = judge.first_violated(root_check)
        if failed is not None:
            raise PrivacyUnattainableError(
                f"The whole table, taken as one equivalence class, does not satisfy "
                f"{failed.describe()}; Mondrian never suppresses records, so no release "
                "satisfies the privacy models.",
                requirement=failed.describe(),
            )
        part = partitioner.run()
        t2 = time.perf_counter()

        class_of, sizes, attributes, pop_counts = build_release(
            axes, qis, part, self.numeric_release
        )
        if sizes.shape[0] < part.n_partitions:  # partitions with identical labels merged
            stats = judge.part_stats(np.arange(n, dtype=np.int64), class_of, sizes, pop_counts)
            failed = judge.first_violated(stats)
            if failed is not None:
                raise PrivacyUnattainableError(
                    f"Partitions released with identical labels form classes that violate "
                    f"{failed.describe()}; use mode='strict' and numeric_release='range'.",
                    requirement=failed.describe(),
                )
        arrays: list[npt.NDArray[Any] | None] = [class_of, part.partition_of, sizes, pop_counts]
        for a in attributes:
            arrays += [a.codes, a.low, a.high, a.mean, a.level, a.node]
        for arr in arrays:
            if arr is not None:
                arr.setflags(write=False)
        t3 = time.perf_counter()
        return MondrianResult(
            class_of=class_of,
            partition_of=part.partition_of,
            sizes=sizes,
            attributes=attributes,
            population=pop_counts,
            mode=self.mode,
            split=self.split,
            numeric_release=self.numeric_release,
            privacy=tuple(m.describe() for m in models),
            n_partitions=part.n_partitions,
            n_cuts=part.n_cuts,
            rounds=part.rounds,
            timing=FrozenDict(
                {"prepare": t1 - t0, "partition": t2 - t1, "release": t3 - t2, "total": t3 - t0}
            ),
        )

    @staticmethod
    def _check_inputs(
        quasi_identifiers: Sequence[QuasiIdentifier],
        models: Sequence[PrivacyModel],
        sensitive: Sequence[SensitiveAttribute],
        population: Mapping[str, QuasiIdentifier] | None,
    ) -> list[QuasiIdentifier]:
        if isinstance(quasi_identifiers, _QI_TYPES):
            quasi_identifiers = [quasi_identifiers]
        qis: list[QuasiIdentifier] = check_items(
            quasi_identifiers,
            "quasi_identifiers",
            "Mondrian",
            _QI_TYPES,
            "NumericQI, HierarchicalQI or OrderedQI",
        )
        names = [q.name for q in qis] + [s.name for s in sensitive]
        if len(set(names)) != len(names):
            raise ParameterError("quasi_identifiers", "Mondrian", "distinct column names", names)
        if isinstance(models, PrivacyModel):
            raise ParameterError("models", "Mondrian", "a sequence of privacy models", models)
        check_items(models, "models", "Mondrian", PrivacyModel, "privacy models")
        check_items(
            sensitive,
            "sensitive",
            "Mondrian",
            SensitiveAttribute,
            "SensitiveAttribute",
            allow_empty=True,
        )
        if population is not None:
            if not isinstance(population, Mapping):
                raise ParameterError(
                    "population", "Mondrian", "a mapping of column name to column", population
                )
            for q in qis:
                if q.name not in population:
                    raise DataError(f"The population table has no column {q.name!r}.")
                if not same_kind(q, population[q.name]):
                    raise ParameterError(
                        "population",
                        "Mondrian",
                        f"column {q.name!r} of kind {type(q).__name__} (same order)",
                        type(population[q.name]).__name__,
                    )
        return qis


def mondrian(
    quasi_identifiers: Sequence[QuasiIdentifier],
    models: Sequence[PrivacyModel],
    *,
    mode: str = "strict",
    split: str = "widest",
    numeric_release: str = "range",
    implementation: str = "auto",
    sensitive: Sequence[SensitiveAttribute] = (),
    population: Mapping[str, QuasiIdentifier] | None = None,
    progress: Progress | None = None,
    engine: str | None = None,
) -> MondrianResult:
    """Run :class:`Mondrian` once; see there for the parameters (``engine`` is the
    deprecated name of ``implementation``).

    Examples
    --------
    >>> from anonkit.models import KAnonymity
    >>> mondrian([NumericQI("x", [5, 1, 9, 7])], [KAnonymity(2)]).labels("x")
    ('[1-5]', '[7-9]')
    """
    return Mondrian(
        mode=mode,
        split=split,
        numeric_release=numeric_release,
        implementation=renamed_engine(implementation, engine, "mondrian"),
        progress=progress,
    ).fit(quasi_identifiers, models, sensitive=sensitive, population=population)
