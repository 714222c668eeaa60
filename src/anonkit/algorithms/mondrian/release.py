"""What Mondrian releases: per-class labels, and the frozen :class:`MondrianResult`.

Each final partition is released as one label per quasi-identifier:

* numeric: ``[min-max]`` of the partition's values (the value itself when min = max), or
  the partition mean (``numeric_release="mean"``, 10 significant digits);
* ordered: ``[first-last]`` of the labels present (the label itself when one);
* hierarchical: the label of the lowest common ancestor of the values present.

Numbers print like the hierarchy builders print them: whole numbers without decimals,
others as Python's shortest round-trip ``repr``.

The released equivalence classes are the groups of records with identical labels. In
strict mode two partitions never share all labels, so classes and partitions coincide; in
relaxed mode (or with ``"mean"`` release, or a hierarchy that reuses a label on several
levels) partitions with identical labels form one class, whose statistics are re-checked
against the models.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from anonkit._arrays import FloatArray, IntArray
from anonkit.algorithms.mondrian.attributes import Axis, AxisKind, NumericQI, QuasiIdentifier
from anonkit.algorithms.mondrian.partition import Partitioning
from anonkit.exceptions import UnknownColumnError

ObjectArray = npt.NDArray[np.object_]


def format_number(x: float) -> str:
    """A number as the release prints it.

    Examples
    --------
    >>> format_number(39.0), format_number(2.5), format_number(-0.125)
    ('39', '2.5', '-0.125')
    """
    x = float(x)
    if x.is_integer() and abs(x) < 2.0**53:
        return str(int(x))
    return repr(x)


def range_label(low: str, high: str) -> str:
    """``[low-high]``, or ``low`` when both ends are equal.

    Examples
    --------
    >>> range_label("17", "25"), range_label("40", "40")
    ('[17-25]', '40')
    """
    return low if low == high else f"[{low}-{high}]"


@dataclass(frozen=True, eq=False)
class ReleasedAttribute:
    """One quasi-identifier of the release, per class.

    Attributes
    ----------
    name, kind
        Column name; ``"numeric"``, ``"ordered"`` or ``"hierarchical"``.
    table, codes
        The distinct released labels, and each class's label as an index into ``table``
        (:attr:`labels` spells them out per class).
    low, high
        Numeric: smallest and largest value of each class. Ordered: smallest and largest
        position in the declared order. ``None`` for hierarchical attributes.
    mean
        Numeric: the mean of each class (``None`` otherwise).
    level, node
        Hierarchical: each class's released node, as its level and its code at that
        level (an index into ``hierarchy.labels(level)``); ``None`` otherwise.
    """

    name: str
    kind: AxisKind
    table: tuple[str, ...]
    codes: IntArray
    low: FloatArray | None = None
    high: FloatArray | None = None
    mean: FloatArray | None = None
    level: IntArray | None = None
    node: IntArray | None = None

    @functools.cached_property
    def labels(self) -> tuple[str, ...]:
        """The released label of each class."""
        table = self.table
        return tuple([table[i] for i in self.codes.tolist()])


@dataclass(frozen=True, eq=False)
class MondrianResult:
    """The outcome of a Mondrian run.

    Attributes
    ----------
    class_of
        ``(n,)`` equivalence class of each record (``0 .. n_classes - 1``): records with
        the same class share every released label.
    partition_of
        ``(n,)`` final partition of each record. Equal to ``class_of`` unless partitions
        with identical labels were merged into one class (see the module docstring).
    sizes
        Records per class.
    attributes
        One :class:`ReleasedAttribute` per quasi-identifier, in input order.
    population
        Per class, population records inside the class's released box (when a
        population table was given).
    mode, split, numeric_release
        The settings of the run.
    privacy
        The models the release satisfies, described.
    n_partitions, n_cuts, rounds
        Final partitions, accepted cuts and vectorized rounds.
    timing
        Seconds per stage: ``prepare`` (rank encoding), ``partition``, ``release``
        (labels and classes) and ``total``.
    """

    class_of: IntArray
    partition_of: IntArray
    sizes: IntArray
    attributes: tuple[ReleasedAttribute, ...]
    population: IntArray | None
    mode: str
    split: str
    numeric_release: str
    privacy: tuple[str, ...]
    n_partitions: int
    n_cuts: int
    rounds: int
    timing: Mapping[str, float]

    @property
    def n_records(self) -> int:
        return int(self.class_of.shape[0])

    @property
    def n_classes(self) -> int:
        return int(self.sizes.shape[0])

    @property
    def min_size(self) -> int:
        """The achieved k: the smallest class."""
        return int(self.sizes.min())

    @property
    def seconds(self) -> float:
        """Total time of the run (``timing["total"]``)."""
        return float(self.timing["total"])

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes)

    def attribute(self, name: str) -> ReleasedAttribute:
        for a in self.attributes:
            if a.name == name:
                return a
        raise UnknownColumnError([name], self.columns)

    def labels(self, name: str) -> tuple[str, ...]:
        """Released label of each class for quasi-identifier ``name``."""
        return self.attribute(name).labels

    def released(self, name: str) -> ObjectArray:
        """Released label of each record (an object array of ``str``)."""
        attribute = self.attribute(name)
        table = np.asarray(attribute.table, dtype=object)
        out: ObjectArray = table[attribute.codes[self.class_of]]
        return out

    def figures(self) -> dict[str, Any]:
        """How the partitioning ran (an estimator's ``details["mondrian"]``): mode, split,
        numeric release, partitions, cuts and rounds."""
        return {
            "mode": self.mode,
            "split": self.split,
            "numeric_release": self.numeric_release,
            "partitions": self.n_partitions,
            "cuts": self.n_cuts,
            "rounds": self.rounds,
        }

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary; never contains records or labels."""
        return {
            "algorithm": "mondrian",
            "mode": self.mode,
            "split": self.split,
            "numeric_release": self.numeric_release,
            "privacy": list(self.privacy),
            "n_records": self.n_records,
            "n_classes": self.n_classes,
            "n_partitions": self.n_partitions,
            "n_cuts": self.n_cuts,
            "rounds": self.rounds,
            "min_size": self.min_size,
            "max_size": int(self.sizes.max()),
            "timing_seconds": dict(self.timing),
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def __repr__(self) -> str:
        return (
            f"MondrianResult(mode={self.mode!r}, split={self.split!r}, "
            f"classes={self.n_classes}, min_size={self.min_size}, "
            f"seconds={self.seconds:.4f})"
        )


def _factorize(keys: npt.NDArray[Any], render: Any) -> tuple[IntArray, list[str]]:
    """Label id per partition from per-partition keys; ``render(unique keys)`` -> strings.

    Distinct keys that render to the same string get the same id.
    """
    uniq, inverse = np.unique(keys, return_inverse=True)
    strings: list[str] = render(uniq)
    ids: dict[str, int] = {}
    per_key = np.array([ids.setdefault(s, len(ids)) for s in strings], dtype=np.int64)
    return per_key[inverse.reshape(-1)], list(ids)


def _partition_labels(
    axis: Axis,
    qi: QuasiIdentifier,
    part: Partitioning,
    d: int,
    numeric_release: str,
) -> tuple[IntArray, list[str]]:
    """Per partition: label id, and the label strings (indexed by label id)."""
    low, high = part.low[:, d], part.high[:, d]
    if isinstance(qi, NumericQI):
        assert axis.values is not None
        if numeric_release == "mean":
            sums = np.bincount(part.partition_of, weights=qi.values, minlength=part.n_partitions)
            return _factorize(
                sums / part.sizes,
                lambda u: [format_number(float(f"{x:.10g}")) for x in u.tolist()],
            )
        values = axis.values

        def render_range(u: IntArray) -> list[str]:
            ends = np.unique(np.concatenate([u // axis.size, u % axis.size]))
            text = {
                e: format_number(x)
                for e, x in zip(ends.tolist(), values[ends].tolist(), strict=True)
            }
            return [range_label(text[k // axis.size], text[k % axis.size]) for k in u.tolist()]

        return _factorize(low * axis.size + high, render_range)
    if axis.kind == "ordered":

        def render_order(u: IntArray) -> list[str]:
            labels = axis.labels
            return [range_label(labels[k // axis.size], labels[k % axis.size]) for k in u.tolist()]

        return _factorize(low * axis.size + high, render_order)
    nodes = axis.lca_node(low, high)
    return _factorize(nodes, lambda u: [axis.labels[k] for k in u.tolist()])


def _group_rows(ids: IntArray, cardinalities: Sequence[int]) -> tuple[IntArray, IntArray]:
    """Group identical rows of ``ids``: each group's first row, and each row's group.

    Columns are folded into one int64 key (mixed radix), re-factorized whenever the next
    column would overflow it.
    """
    key = np.zeros(ids.shape[0], dtype=np.int64)
    span = 1
    for d, card in enumerate(cardinalities):
        if span * max(card, 1) >= 1 << 62:
            _, key = np.unique(key, return_inverse=True)
            key = key.reshape(-1).astype(np.int64)
            span = int(key.max()) + 1
        key = key * max(card, 1) + ids[:, d]
        span *= max(card, 1)
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first.astype(np.int64), inverse.reshape(-1).astype(np.int64)


def build_release(
    axes: Sequence[Axis],
    qis: Sequence[QuasiIdentifier],
    part: Partitioning,
    numeric_release: str,
) -> tuple[IntArray, IntArray, tuple[ReleasedAttribute, ...], IntArray | None]:
    """Label the partitions and group them into released classes.

    Returns ``class_of`` (per record), the class sizes, the released attributes and the
    population count per class (the largest among merged partitions; exact whenever the
    merged partitions have the same box, which is always the case for ranges).
    """
    n_part = part.n_partitions
    label_ids = np.empty((n_part, len(axes)), dtype=np.int64)
    strings: list[list[str]] = []
    for d, (axis, qi) in enumerate(zip(axes, qis, strict=True)):
        ids, text = _partition_labels(axis, qi, part, d, numeric_release)
        label_ids[:, d] = ids
        strings.append(text)
    first, inverse = _group_rows(label_ids, [len(t) for t in strings])
    rank = np.empty(first.shape[0], dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.shape[0])
    class_of_part = rank[inverse]  # classes numbered by their first partition
    n_classes = int(first.shape[0])
    rep = np.sort(first)  # representative (first) partition of each class
    class_of = class_of_part[part.partition_of]
    sizes = np.bincount(class_of_part, weights=part.sizes, minlength=n_classes).astype(np.int64)

    def per_class_min(x: FloatArray) -> FloatArray:
        out = np.full(n_classes, np.inf)
        np.minimum.at(out, class_of_part, x)
        return out

    def per_class_max(x: FloatArray) -> FloatArray:
        out = np.full(n_classes, -np.inf)
        np.maximum.at(out, class_of_part, x)
        return out

    released: list[ReleasedAttribute] = []
    for d, (axis, qi) in enumerate(zip(axes, qis, strict=True)):
        table = tuple(strings[d])
        codes = label_ids[rep, d]
        low, high = part.low[:, d], part.high[:, d]
        if axis.kind in ("numeric", "ordered"):
            mean = None
            if axis.kind == "numeric":
                assert axis.values is not None and isinstance(qi, NumericQI)
                mean = np.bincount(class_of, weights=qi.values, minlength=n_classes) / sizes
                low_values, high_values = axis.values[low], axis.values[high]
            else:
                low_values, high_values = low.astype(np.float64), high.astype(np.float64)
            released.append(
                ReleasedAttribute(
                    axis.name,
                    axis.kind,
                    table,
                    codes,
                    low=per_class_min(low_values),
                    high=per_class_max(high_values),
                    mean=mean,
                )
            )
        else:
            assert axis.node_level is not None and axis.hierarchy is not None
            node = axis.lca_node(low[rep], high[rep])
            level = axis.node_level[node]
            offsets = np.cumsum(
                [0] + [len(axis.hierarchy.labels(lv)) for lv in range(axis.hierarchy.height)]
            )
            released.append(
                ReleasedAttribute(
                    axis.name, axis.kind, table, codes, level=level, node=node - offsets[level]
                )
            )
    population = None
    if part.population is not None:
        population = np.zeros(n_classes, dtype=np.int64)
        np.maximum.at(population, class_of_part, part.population)
    return class_of, sizes, tuple(released), population
