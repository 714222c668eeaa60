"""Mondrian (LeFevre, DeWitt & Ramakrishnan 2006): golden cases and properties.

Releases are checked by an independent path: pandas group-bys over the released labels
(privacy), and parsing the labels back against the original values (truthfulness).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import FrozenInstanceError, dataclass, field
from pathlib import Path
from typing import ClassVar
from unittest import mock

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from anonkit.algorithms import _numba
from anonkit.algorithms.mondrian import (
    HierarchicalQI,
    Mondrian,
    NumericQI,
    OrderedQI,
    SensitiveAttribute,
    compiled,
    fit_frame,
    mondrian,
    release_frame,
)
from anonkit.algorithms.mondrian import partition as partition_module
from anonkit.algorithms.mondrian.release import format_number
from anonkit.core.hierarchy import Hierarchy
from anonkit.datasets import ADULT_COLUMNS
from anonkit.exceptions import (
    DataError,
    EmptyDataError,
    MissingValuesError,
    ParameterError,
    PrivacyUnattainableError,
    UnknownNameError,
)
from anonkit.models import KAnonymity
from anonkit.models.base import (
    CLASS_SIZE,
    POPULATION_COUNT,
    SENSITIVE_HISTOGRAM,
    BoolArray,
    ClassSummary,
)

# ----------------------------------------------------------------------------- stand-ins
# Small models following the contract of anonkit.models.base, so these tests do not
# depend on the l-diversity / risk / population models written elsewhere.


@dataclass(frozen=True)
class DistinctL:
    """Distinct l-diversity; also checks that ``totals`` is the whole table's histogram."""

    attribute: str
    l: int  # noqa: E741
    expected_totals: tuple[int, ...] | None = None

    requires: ClassVar[frozenset[str]] = frozenset({CLASS_SIZE, SENSITIVE_HISTOGRAM})
    monotone_generalization: ClassVar[bool] = True
    monotone_suppression: ClassVar[bool] = True
    class_local: ClassVar[bool] = True

    def violations(self, classes: ClassSummary) -> BoolArray:
        column = classes.sensitive[self.attribute]
        if self.expected_totals is not None:
            assert tuple(column.totals.tolist()) == self.expected_totals
        assert column.histogram.shape == (classes.n_classes, len(column.labels))
        assert (column.histogram.sum(axis=1) == classes.sizes).all()
        return (column.histogram > 0).sum(axis=1) < self.l

    def describe(self) -> str:
        return f"distinct {self.l}-diversity of {self.attribute}"

    @property
    def sensitive_attributes(self) -> tuple[str, ...]:
        return (self.attribute,)

    @property
    def min_class_size(self) -> int:
        return self.l


@dataclass(frozen=True)
class AverageRisk:
    """Table-level: mean prosecutor risk (classes / records) at most ``threshold``."""

    threshold: float

    requires: ClassVar[frozenset[str]] = frozenset({CLASS_SIZE})
    monotone_generalization: ClassVar[bool] = True
    monotone_suppression: ClassVar[bool] = False
    class_local: ClassVar[bool] = False

    def violations(self, classes: ClassSummary) -> BoolArray:
        risk = classes.n_classes / int(classes.sizes.sum())
        return np.full(classes.n_classes, risk > self.threshold)

    def describe(self) -> str:
        return f"average risk <= {self.threshold}"

    @property
    def sensitive_attributes(self) -> tuple[str, ...]:
        return ()

    @property
    def min_class_size(self) -> int:
        return 1


@dataclass(frozen=True)
class KMap:
    """Every class matches at least ``k`` population records."""

    k: int
    requires: ClassVar[frozenset[str]] = frozenset({CLASS_SIZE, POPULATION_COUNT})
    monotone_generalization: ClassVar[bool] = True
    monotone_suppression: ClassVar[bool] = True
    class_local: ClassVar[bool] = True
    seen_sizes: list[int] = field(default_factory=list, compare=False)

    def violations(self, classes: ClassSummary) -> BoolArray:
        assert classes.population is not None and classes.population_size is not None
        self.seen_sizes.append(classes.population_size)
        return classes.population < self.k

    def describe(self) -> str:
        return f"{self.k}-map"

    @property
    def sensitive_attributes(self) -> tuple[str, ...]:
        return ()

    @property
    def min_class_size(self) -> int:
        return 1


# ----------------------------------------------------------------------------- helpers
RANGE = re.compile(r"^\[(-?[0-9.]+)-(-?[0-9.]+)\]$")


def parse_range(label: str) -> tuple[float, float]:
    m = RANGE.match(label)
    if m:
        return float(m.group(1)), float(m.group(2))
    return float(label), float(label)


def parse_order(label: str, order: tuple[str, ...]) -> tuple[int, int]:
    if label.startswith("[") and label.endswith("]"):
        a, b = label[1:-1].split("-")
        return order.index(a), order.index(b)
    return order.index(label), order.index(label)


def leaves_under(h: Hierarchy, label: str) -> set[str]:
    """Leaves whose generalization at some level is ``label``."""
    return {row[0] for row in h.rows if label in row}


def release_table(res, qis, sensitive=()) -> pd.DataFrame:
    data = {q.name: res.released(q.name) for q in qis}
    for s in sensitive:
        data[s.name] = np.asarray(s.labels, dtype=object)[s.codes]
    return pd.DataFrame(data)


def original(q) -> list[object]:
    if isinstance(q, NumericQI):
        return q.values.tolist()
    if isinstance(q, HierarchicalQI):
        return [q.hierarchy.leaves[c] for c in q.codes.tolist()]
    return [q.order[c] for c in q.codes.tolist()]


def assert_truthful(res, qis) -> None:
    """Each released range contains the value; each node is an ancestor-or-self of it;
    each mean is the mean of its class."""
    for q in qis:
        labels = res.released(q.name).tolist()
        values = original(q)
        if isinstance(q, NumericQI) and res.numeric_release == "mean":
            frame = pd.DataFrame({"c": res.class_of, "v": values})
            means = frame.groupby("c")["v"].mean()
            for c, label in enumerate(res.labels(q.name)):
                assert label == format_number(float(f"{means[c]:.10g}"))
            continue
        for label, value in zip(labels, values, strict=True):
            if isinstance(q, NumericQI):
                lo, hi = parse_range(label)
                assert lo <= value <= hi, (label, value)
            elif isinstance(q, HierarchicalQI):
                ancestors = {q.hierarchy.generalize(value, lv) for lv in range(q.hierarchy.height)}
                assert label in ancestors, (label, value)
            else:
                lo, hi = parse_order(label, q.order)
                assert lo <= q.order.index(value) <= hi


def assert_tight(res, qis) -> None:
    """Ranges are the class's actual min and max; nodes the lowest common ancestor."""
    frame = pd.DataFrame({"c": res.class_of})
    for q in qis:
        frame[q.name] = original(q)
    for c, group in frame.groupby("c"):
        for q in qis:
            label = res.labels(q.name)[c]
            present = group[q.name].tolist()
            if isinstance(q, NumericQI) and res.numeric_release == "range":
                assert parse_range(label) == (min(present), max(present))
            elif isinstance(q, HierarchicalQI):
                h = q.hierarchy
                level = next(
                    lv for lv in range(h.height) if len({h.generalize(v, lv) for v in present}) == 1
                )
                assert label == h.generalize(present[0], level)


def assert_strict_disjoint(res, qis) -> None:
    """Strict partitions are disjoint boxes: any two differ on some cut dimension."""
    boxes = []
    frame = pd.DataFrame({"c": res.class_of})
    for q in qis:
        frame[q.name] = original(q)
    for c in range(res.n_classes):
        box = []
        for q in qis:
            label = res.labels(q.name)[c]
            if isinstance(q, NumericQI):
                vals = frame.loc[frame.c == c, q.name]
                box.append(("range", (vals.min(), vals.max())))
            elif isinstance(q, HierarchicalQI):
                box.append(("set", leaves_under(q.hierarchy, label)))
            else:
                box.append(("range", parse_order(label, q.order)))
        boxes.append(box)
    for a, b in itertools.combinations(boxes, 2):
        separated = False
        for (kind, x), (_, y) in zip(a, b, strict=True):
            if kind == "range":
                separated |= x[1] < y[0] or y[1] < x[0]
            else:
                separated |= not (x & y)
        assert separated, (a, b)


# ---------------------------------------------------------------------------- strategies
@st.composite
def hierarchies(draw, name: str) -> Hierarchy:
    """Random trees: leaves grouped into random (not consecutive) parents, level by level."""
    n_leaves = draw(st.integers(1, 7))
    levels = [[f"{name}{i}" for i in range(n_leaves)]]
    for depth in range(draw(st.integers(0, 2))):
        distinct = list(dict.fromkeys(levels[-1]))
        parent = draw(st.lists(st.integers(0, 2), min_size=len(distinct), max_size=len(distinct)))
        mapping = {lab: f"{name}@{depth + 1}:{p}" for lab, p in zip(distinct, parent, strict=True)}
        levels.append([mapping[x] for x in levels[-1]])
    levels.append(["*"] * n_leaves)
    return Hierarchy(list(zip(*levels, strict=True)), name=name)


@st.composite
def tables(draw, *, kinds=("numeric", "hierarchical", "ordered"), max_n=50):
    n = draw(st.integers(1, max_n))
    n_qi = draw(st.integers(1, 3))
    qis = []
    for j in range(n_qi):
        kind = draw(st.sampled_from(kinds))
        name = f"q{j}"
        if kind == "numeric":
            values = draw(
                st.lists(
                    st.one_of(st.integers(-5, 12), st.sampled_from([0.5, 2.25, -1.5])),
                    min_size=n,
                    max_size=n,
                )
            )
            qis.append(NumericQI(name, np.array(values, dtype=np.float64)))
        elif kind == "hierarchical":
            h = draw(hierarchies(name))
            codes = draw(st.lists(st.integers(0, len(h.leaves) - 1), min_size=n, max_size=n))
            qis.append(HierarchicalQI(name, np.array(codes, dtype=np.int64), h))
        else:
            m = draw(st.integers(1, 5))
            codes = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
            qis.append(OrderedQI(name, np.array(codes), tuple(f"o{i}" for i in range(m))))
    s_codes = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    sens = SensitiveAttribute("s", np.array(s_codes), ("a", "b", "c", "d"))
    return qis, sens


settings_modes = st.sampled_from(["strict", "relaxed"])
settings_splits = st.sampled_from(["widest", "distinct", "round_robin"])


# ------------------------------------------------------------------------------ golden
SEED_003 = [1, 2, 3, 3, 4, 5]


def test_seed_003_strict_puts_every_median_value_left() -> None:
    """Seed 003: [1,2,3,3,4,5] splits strictly into [1,2,3,3] | [4,5]; at k=2 the left
    half is cut again at its median 2 into [1,2] | [3,3]."""
    res = Mondrian().fit([NumericQI("x", SEED_003)], [KAnonymity(2)])
    assert res.released("x").tolist() == ["[1-2]", "[1-2]", "3", "3", "[4-5]", "[4-5]"]
    first = Mondrian().fit([NumericQI("x", SEED_003)], [KAnonymity(2)])
    assert first.n_cuts == 2 and first.n_partitions == 3
    # at k = 3 the strict cut [1,2,3,3] | [4,5] is not allowable: one class
    assert Mondrian().fit([NumericQI("x", SEED_003)], [KAnonymity(3)]).labels("x") == ("[1-5]",)


def test_seed_003_relaxed_divides_the_median_values() -> None:
    """Seed 003: relaxed partitioning gives [1,2,3] | [3,4,5] (overlapping ranges)."""
    for k in (2, 3):
        res = Mondrian(mode="relaxed").fit([NumericQI("x", SEED_003)], [KAnonymity(k)])
        assert res.released("x").tolist() == ["[1-3]"] * 3 + ["[3-5]"] * 3
        assert res.sizes.tolist() == [3, 3]


@pytest.fixture(scope="module")
def toy2(shared_data: Path) -> tuple[pl.DataFrame, Hierarchy]:
    folder = shared_data / "toy"
    frame = pl.read_csv(folder / "test2.csv", separator=";", infer_schema=False)
    return frame, Hierarchy.from_csv(folder / "test2_hierarchy_ZIPCode.csv", name="ZIPCode")


def test_golden_zip_age_table_by_hand(toy2: tuple[pl.DataFrame, Hierarchy]) -> None:
    """The 9-record ZIP/Age/Disease table (toy/test2.csv), k = 3, computed by hand.

    Root: ZIP spans 47*** (all 9 leaves, width 1) and Age 22..52 (width 1); the tie goes
    to ZIP, cut into 476** (6 records) and 479** (3). 476** (width 5/8) beats Age
    (14/30) and is cut into 4767* and 4760* (3 records each). Partitions of 3 < 2k stop.
    """
    frame, h = toy2
    expected = {
        "47677": ("4767*", "[27-36]"),
        "47678": ("4767*", "[27-36]"),
        "47673": ("4767*", "[27-36]"),
        "47602": ("4760*", "[22-32]"),
        "47605": ("4760*", "[22-32]"),
        "47607": ("4760*", "[22-32]"),
        "47905": ("4790*", "[43-52]"),
        "47909": ("4790*", "[43-52]"),
        "47906": ("4790*", "[43-52]"),
    }
    models = [KAnonymity(3), DistinctL("Disease", 3)]
    res = fit_frame(
        frame,
        models,
        quasi_identifiers=["ZIPCode", "Age"],
        hierarchies={"ZIPCode": h},
        numeric=["Age"],
        sensitive=["Disease"],
    )
    out = release_frame(frame, res)
    got = dict(zip(frame["ZIPCode"], zip(out["ZIPCode"], out["Age"], strict=True), strict=True))
    assert got == expected
    assert res.n_cuts == 2 and res.n_classes == 3
    # Age alone, strict: lower median 32 -> [22..32] (5) | [36..52] (4)
    ages = fit_frame(frame, [KAnonymity(3)], quasi_identifiers=["Age"], numeric=["Age"])
    assert sorted(ages.sizes.tolist()) == [4, 5] and set(ages.labels("Age")) == {
        "[22-32]",
        "[36-52]",
    }
    # relaxed: the 4 smallest | the 5 largest
    relaxed = fit_frame(
        frame, [KAnonymity(3)], quasi_identifiers=["Age"], numeric=["Age"], mode="relaxed"
    )
    assert set(relaxed.labels("Age")) == {"[22-30]", "[32-52]"}


def test_mean_release_and_ordered_attribute() -> None:
    qis = [
        NumericQI("x", [1, 2, 3, 10, 11, 13]),
        OrderedQI("size", [0, 1, 1, 2, 2, 3], ("XS", "S", "M", "L")),
    ]
    res = Mondrian(numeric_release="mean").fit(qis, [KAnonymity(3)])
    assert res.released("x").tolist() == ["2"] * 3 + ["11.33333333"] * 3
    assert res.released("size").tolist() == ["[XS-S]"] * 3 + ["[M-L]"] * 3
    np.testing.assert_allclose(res.attribute("x").mean, [2.0, 34 / 3])
    assert res.attribute("x").low.tolist() == [1.0, 10.0]


# -------------------------------------------------------------------------- properties
@given(tables(), st.integers(1, 6), settings_modes, settings_splits, st.booleans())
def test_release_is_k_anonymous_and_truthful(problem, k, mode, split, mean) -> None:
    qis, _ = problem
    n = len(qis[0])
    release = "mean" if mean else "range"
    m = Mondrian(mode=mode, split=split, numeric_release=release)
    if k > n:
        with pytest.raises(PrivacyUnattainableError):
            m.fit(qis, [KAnonymity(k)])
        return
    res = m.fit(qis, [KAnonymity(k)])
    table = release_table(res, qis)
    groups = table.groupby([q.name for q in qis]).size()
    assert groups.min() >= k
    assert len(groups) == res.n_classes == int(res.sizes.shape[0])
    assert int(res.sizes.sum()) == n  # nothing suppressed
    # class_of is exactly "same labels"
    keys = table.astype(str).agg("\x1f".join, axis=1)
    assert keys.groupby(res.class_of).nunique().max() == 1
    assert keys.groupby(keys).apply(lambda s: len(set(res.class_of[s.index]))).max() == 1
    assert_truthful(res, qis)
    if mode == "strict":
        assert res.n_partitions == res.n_classes
        if not mean:
            assert_tight(res, qis)
        assert_strict_disjoint(res, qis)


@given(tables(), st.integers(1, 4), st.integers(1, 3), settings_modes, settings_splits)
def test_release_satisfies_l_diversity_stand_in(problem, k, l, mode, split) -> None:  # noqa: E741
    qis, sens = problem
    totals = tuple(np.bincount(sens.codes, minlength=4).tolist())
    models = [KAnonymity(k), DistinctL("s", l, totals)]
    n = len(qis[0])
    whole_ok = k <= n and len(set(sens.codes.tolist())) >= l
    m = Mondrian(mode=mode, split=split)
    if not whole_ok:
        with pytest.raises(PrivacyUnattainableError):
            m.fit(qis, models, sensitive=[sens])
        return
    res = m.fit(qis, models, sensitive=[sens])
    table = release_table(res, qis, [sens])
    grouped = table.groupby([q.name for q in qis])
    assert grouped.size().min() >= k
    assert grouped["s"].nunique().min() >= l
    assert_truthful(res, qis)


@given(
    tables(kinds=("numeric", "ordered")),
    st.integers(1, 5),
    settings_splits,
)
def test_relaxed_partitions_are_below_2k_unless_constant(problem, k, split) -> None:
    """Relaxed cuts halve a partition, so with numeric/ordered attributes and k-anonymity
    alone every partition of 2k or more records has all quasi-identifiers constant."""
    qis, _ = problem
    assume(k <= len(qis[0]))
    res = Mondrian(mode="relaxed", split=split).fit(qis, [KAnonymity(k)])
    frame = pd.DataFrame({q.name: original(q) for q in qis})
    frame["p"] = res.partition_of
    for _, group in frame.groupby("p"):
        assert len(group) >= k
        if len(group) >= 2 * k:
            assert all(group[q.name].nunique() == 1 for q in qis)


@given(st.integers(1, 8), st.lists(st.integers(-1000, 1000), min_size=1, max_size=80, unique=True))
def test_strict_distinct_values_give_classes_below_2k(k, values) -> None:
    assume(k <= len(values))
    res = Mondrian().fit([NumericQI("x", values)], [KAnonymity(k)])
    assert res.sizes.min() >= k and res.sizes.max() <= max(2 * k - 1, k)


@given(tables(), st.sampled_from([0.2, 0.34, 0.5]), settings_modes)
def test_table_level_model_judges_the_whole_partition_set(problem, threshold, mode) -> None:
    qis, _ = problem
    models = [KAnonymity(1), AverageRisk(threshold)]
    if 1 / len(qis[0]) > threshold:
        with pytest.raises(PrivacyUnattainableError, match="average risk"):
            Mondrian(mode=mode).fit(qis, models)
        return
    res = Mondrian(mode=mode).fit(qis, models)
    table = release_table(res, qis)
    n_classes = table.groupby([q.name for q in qis]).ngroups
    assert n_classes / len(table) <= threshold + 1e-12


@given(
    tables(kinds=("numeric", "hierarchical", "ordered"), max_n=30),
    st.integers(1, 4),
    settings_modes,
)
def test_population_counts_match_the_released_boxes(problem, k, mode) -> None:
    """k-map stand-in: the population is the table plus extra records; each class's
    population count is the number of population records its labels match."""
    qis, _ = problem
    n = len(qis[0])
    rng = np.random.default_rng(n)
    extra = 3 * n
    pop = {}
    for q in qis:
        if isinstance(q, NumericQI):
            vals = np.concatenate([q.values, rng.integers(-6, 14, extra).astype(float)])
            pop[q.name] = NumericQI(q.name, vals)
        elif isinstance(q, HierarchicalQI):
            codes = np.concatenate([q.codes, rng.integers(0, len(q.hierarchy.leaves), extra)])
            pop[q.name] = HierarchicalQI(q.name, codes, q.hierarchy)
        else:
            codes = np.concatenate([q.codes, rng.integers(0, len(q.order), extra)])
            pop[q.name] = OrderedQI(q.name, codes, q.order)
    model = KMap(k)

    def matching(labels: dict[str, str]) -> int:
        inside = np.ones(n + extra, dtype=bool)
        for q in qis:
            label = labels[q.name]
            vals = original(pop[q.name])
            if isinstance(q, NumericQI):
                lo, hi = parse_range(label)
                inside &= np.array([lo <= v <= hi for v in vals])
            elif isinstance(q, HierarchicalQI):
                under = leaves_under(q.hierarchy, label)
                inside &= np.array([v in under for v in vals])
            else:
                lo, hi = parse_order(label, q.order)
                inside &= np.array([lo <= q.order.index(v) <= hi for v in vals])
        return int(inside.sum())

    whole = Mondrian().fit(qis, [KAnonymity(1)], population=pop)  # no population model
    root = Mondrian().fit(qis, [KAnonymity(n)])  # one class: the table's box
    if matching({q.name: root.labels(q.name)[0] for q in qis}) < k:
        with pytest.raises(PrivacyUnattainableError, match="map"):
            Mondrian(mode=mode).fit(qis, [model], population=pop)
        return
    assert whole.population is not None
    res = Mondrian(mode=mode).fit(qis, [model], population=pop)
    assert set(model.seen_sizes) == {n + extra}
    assert res.population is not None
    for c in range(res.n_classes):
        count = matching({q.name: res.labels(q.name)[c] for q in qis})
        assert count == int(res.population[c]) >= k


# ------------------------------------------------------------------ reference model
def partition_sets(res) -> set[frozenset[int]]:
    """The records of each partition of a Mondrian result, as sets."""
    return {
        frozenset(np.flatnonzero(res.partition_of == p).tolist()) for p in range(res.n_partitions)
    }


def reference_partitions(qis, sens, k, l, mode, split):  # noqa: E741
    """Mondrian as the paper writes it: a plain recursion over record lists.

    Same rules as the vectorized implementation (lower median, ties to the earlier attribute,
    children of the lowest common ancestor, relaxed halves by value then record order).
    """
    n_qi = len(qis)
    cols = []  # per attribute: (kind, value per record, normalizer, hierarchy)
    for q in qis:
        if isinstance(q, NumericQI):
            v = q.values.tolist()
            cols.append(("numeric", v, (max(v) - min(v)) or 1.0, None))
        elif isinstance(q, OrderedQI):
            v = q.codes.tolist()
            cols.append(("ordered", v, float(max(v) - min(v)) or 1.0, None))
        else:
            h = q.hierarchy
            cols.append(("hier", [h.leaves[c] for c in q.codes.tolist()], None, h))
    s_codes = sens.codes.tolist()

    def lca_level(h, leaves):
        return next(lv for lv in range(h.height) if len({h.generalize(x, lv) for x in leaves}) == 1)

    def allowed(part):
        return len(part) >= k and len({s_codes[i] for i in part}) >= l

    def cut(recs, d):
        kind, v, _, h = cols[d]
        if kind == "hier":
            level = lca_level(h, [v[i] for i in recs])
            groups = {}
            for i in recs:
                groups.setdefault(h.generalize(v[i], level - 1), []).append(i)
            return list(groups.values())
        if mode == "strict":
            ordered = sorted(v[i] for i in recs)
            med, top = ordered[(len(recs) - 1) // 2], ordered[-1]
            left = [i for i in recs if (v[i] < top if med == top else v[i] <= med)]
            return [left, [i for i in recs if i not in set(left)]]
        ordered = sorted(recs, key=lambda i: (v[i], i))
        return [ordered[: len(recs) // 2], ordered[len(recs) // 2 :]]

    def score(recs, d, rr):
        kind, v, norm, h = cols[d]
        vals = [v[i] for i in recs]
        if split == "distinct":
            return float(len(set(vals)))
        if split == "round_robin":
            return float(n_qi - (d - rr) % n_qi)
        if kind == "hier":
            level = lca_level(h, vals)
            node = h.generalize(vals[0], level)
            leaves = sum(1 for row in h.rows if row[level] == node)
            return (leaves - 1) / max(len(h.leaves) - 1, 1)
        return (max(vals) - min(vals)) / norm

    out = []
    stack = [(list(range(len(s_codes))), 0)]
    while stack:
        recs, rr = stack.pop()
        dims = [d for d in range(n_qi) if len({cols[d][1][i] for i in recs}) > 1]
        dims.sort(key=lambda d: -score(recs, d, rr))  # stable: ties keep attribute order
        for d in dims:
            parts = cut(recs, d)
            if all(allowed(p) for p in parts):
                stack.extend((p, (d + 1) % n_qi) for p in parts)
                break
        else:
            out.append(frozenset(recs))
    return set(out)


settings_implementations = st.sampled_from(["auto", "numpy"])


@given(
    st.one_of(tables(max_n=40), tables(max_n=300)),
    st.integers(1, 4),
    st.integers(1, 2),
    settings_modes,
    settings_splits,
    settings_implementations,
)
def test_implementation_matches_the_plain_recursion(
    problem,
    k,
    l,  # noqa: E741
    mode,
    split,
    implementation,
) -> None:
    """Both implementations (vectorized rounds; compiled recursion for k-anonymity alone) find
    exactly the partitions of the plain recursion."""
    qis, sens = problem
    n = len(qis[0])
    assume(k <= n and len(set(sens.codes.tolist())) >= l)
    models = [KAnonymity(k)] + ([DistinctL("s", l)] if l > 1 else [])
    res = Mondrian(mode=mode, split=split, implementation=implementation).fit(
        qis, models, sensitive=[sens]
    )
    got = partition_sets(res)
    assert got == reference_partitions(qis, sens, k, l, mode, split)


@pytest.mark.parametrize("mode", ["strict", "relaxed"])
@pytest.mark.parametrize("split", ["widest", "distinct", "round_robin"])
def test_implementation_matches_the_plain_recursion_on_adult(
    shared_data: Path, mode, split
) -> None:
    """Adult sample, all 9 attributes: many failed cuts, retries and witnesses."""
    folder = shared_data / "adult"
    frame = pl.read_csv(folder / "adult.csv", separator=";", infer_schema=False).head(700)
    qis = []
    for c in ADULT_COLUMNS:
        if c == "age":
            qis.append(NumericQI(c, frame[c].cast(pl.Float64).to_numpy()))
        else:
            h = Hierarchy.from_csv(folder / f"adult_hierarchy_{c}.csv", name=c)
            codes = np.array([h.leaf_index(v) for v in frame[c].to_list()])
            qis.append(HierarchicalQI(c, codes, h))
    sens = SensitiveAttribute("s", np.zeros(frame.height, dtype=np.int64), ("x",))
    for k in (2, 5):
        expected = reference_partitions(qis, sens, k, 1, mode, split)
        for implementation in ("compiled", "numpy"):
            res = Mondrian(mode=mode, split=split, implementation=implementation).fit(
                qis, [KAnonymity(k)]
            )
            got = partition_sets(res)
            assert got == expected, implementation


@pytest.mark.parametrize("share", [0.0, 1.0])
@given(st.one_of(tables(max_n=40), tables(max_n=300)), st.integers(1, 6), settings_splits)
def test_weighted_rows_match_the_plain_recursion(share, problem, k, split) -> None:
    """Strict k-anonymity partitions distinct tuples with weights (``share`` 1.0 forces
    it, 0.0 forbids it): the partitions are those of the recursion over records."""
    qis, sens = problem
    assume(k <= len(qis[0]))
    with mock.patch.object(partition_module, "_WEIGHTED_MAX_SHARE", share):
        res = Mondrian(mode="strict", split=split, implementation="numpy").fit(qis, [KAnonymity(k)])
    got = partition_sets(res)
    assert got == reference_partitions(qis, sens, k, 1, "strict", split)
    assert res.sizes.sum() == len(qis[0]) and res.sizes.min() >= k


def test_weighted_rows_on_adult_with_duplicates(shared_data: Path) -> None:
    """Adult, 3 attributes (many repeated tuples): weighted and per-record runs agree."""
    folder = shared_data / "adult"
    frame = pl.read_csv(folder / "adult.csv", separator=";", infer_schema=False).head(3000)
    qis = [NumericQI("age", frame["age"].cast(pl.Float64).to_numpy())]
    for c in ("sex", "education"):
        h = Hierarchy.from_csv(folder / f"adult_hierarchy_{c}.csv", name=c)
        qis.append(HierarchicalQI(c, np.array([h.leaf_index(v) for v in frame[c]]), h))
    for k in (2, 10):
        runs = []
        for share in (0.0, 1.0):
            with mock.patch.object(partition_module, "_WEIGHTED_MAX_SHARE", share):
                runs.append(
                    Mondrian(mode="strict", implementation="numpy").fit(qis, [KAnonymity(k)])
                )
        assert np.array_equal(runs[0].partition_of, runs[1].partition_of)
        assert np.array_equal(runs[0].sizes, runs[1].sizes)
        assert runs[1].sizes.min() >= k


# --------------------------------------------------------------------------- real data
def test_adult_frame_k10_strict_and_relaxed(shared_data: Path) -> None:
    folder = shared_data / "adult"
    frame = pl.read_csv(folder / "adult_subset.csv", separator=";", infer_schema=False)
    columns = ["sex", "age", "race", "marital-status", "education", "native-country"]
    hierarchies = {
        c: Hierarchy.from_csv(folder / f"adult_hierarchy_{c}.csv", name=c)
        for c in columns
        if c != "age"
    }
    for mode in ("strict", "relaxed"):
        res = fit_frame(
            frame,
            [KAnonymity(10)],
            quasi_identifiers=columns,
            hierarchies=hierarchies,
            numeric=["age"],
            mode=mode,
        )
        out = pd.DataFrame(release_frame(frame, res).to_dict(as_series=False))
        assert out.groupby(columns).size().min() >= 10
        assert res.n_classes > 50  # far finer than full-domain generalization
        for label, age in zip(out["age"], frame["age"].cast(pl.Float64), strict=True):
            lo, hi = parse_range(label)
            assert lo <= age <= hi
        for c, h in hierarchies.items():
            for label, value in set(zip(out[c], frame[c], strict=True)):
                assert label in h.rows[h.leaf_index(value)]


def test_runs_are_deterministic_and_results_immutable() -> None:
    rng = np.random.default_rng(0)
    qis = [NumericQI("a", rng.integers(0, 30, 200)), NumericQI("b", rng.normal(size=200))]
    one = Mondrian(split="distinct").fit(qis, [KAnonymity(4)])
    two = Mondrian(split="distinct").fit(qis, [KAnonymity(4)])
    assert one.class_of.tolist() == two.class_of.tolist()
    assert one.labels("b") == two.labels("b")
    with pytest.raises(ValueError):
        one.class_of[0] = 5
    with pytest.raises(FrozenInstanceError):
        one.mode = "relaxed"  # type: ignore[misc]
    assert one.to_dict()["n_classes"] == one.n_classes
    assert "class_of" not in one.to_json()


def test_round_robin_cycles_through_the_attributes() -> None:
    """Round robin cuts the root on the first attribute, its parts on the second."""
    x = [0, 0, 0, 0, 10, 10, 10, 10]
    y = [0, 0, 10, 10, 0, 0, 10, 10]
    res = mondrian([NumericQI("x", x), NumericQI("y", y)], [KAnonymity(2)], split="round_robin")
    assert res.n_classes == 4 and set(res.sizes.tolist()) == {2}
    # widest picks y first when it is wider; the release is the same four squares
    res2 = mondrian([NumericQI("x", x), NumericQI("y", [3 * v for v in y])], [KAnonymity(2)])
    assert res2.n_classes == 4


def test_falls_back_to_the_next_attribute_when_the_widest_cannot_be_cut() -> None:
    """x is widest but all its values except one are equal: no allowable cut on x."""
    x = [0, 0, 0, 0, 0, 100]
    y = [1, 1, 1, 2, 2, 2]
    res = Mondrian().fit([NumericQI("x", x), NumericQI("y", y)], [KAnonymity(3)])
    assert res.labels("y") == ("1", "2") and res.labels("x") == ("0", "[0-100]")


# -------------------------------------------------------------------------- validation
def test_invalid_settings_are_reported() -> None:
    qi = [NumericQI("x", [1, 2, 3])]
    with pytest.raises(UnknownNameError, match="Mondrian mode"):
        Mondrian(mode="loose").fit(qi, [KAnonymity(1)])
    with pytest.raises(UnknownNameError, match="split"):
        Mondrian(split="widestt").fit(qi, [KAnonymity(1)])
    with pytest.raises(ParameterError, match="numeric_release"):
        Mondrian(numeric_release=3).fit(qi, [KAnonymity(1)])  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="models"):
        Mondrian().fit(qi, [])
    with pytest.raises(ParameterError, match="models"):
        Mondrian().fit(qi, KAnonymity(1))  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="quasi_identifiers"):
        Mondrian().fit([], [KAnonymity(1)])
    with pytest.raises(ParameterError, match="sensitive"):
        Mondrian().fit(qi, [DistinctL("s", 2)])
    with pytest.raises(ParameterError, match="population"):
        Mondrian().fit(qi, [KMap(2)])
    with pytest.raises(DataError, match="same length"):
        Mondrian().fit([NumericQI("x", [1, 2]), NumericQI("y", [1])], [KAnonymity(1)])
    with pytest.raises(EmptyDataError):
        Mondrian().fit([NumericQI("x", [])], [KAnonymity(1)])
    with pytest.raises(MissingValuesError):
        NumericQI("x", [1.0, float("nan")])
    with pytest.raises(DataError, match="infinite"):
        NumericQI("x", [1.0, float("inf")])
    with pytest.raises(DataError, match="codes outside"):
        OrderedQI("o", [0, 3], ("a", "b"))
    with pytest.raises(PrivacyUnattainableError, match="whole table"):
        Mondrian().fit(qi, [KAnonymity(4)])
    with pytest.raises(UnknownNameError, match="implementation"):
        Mondrian(implementation="gpu").fit(qi, [KAnonymity(1)])
    sens = SensitiveAttribute("s", [0, 1, 1], ("a", "b"))
    with pytest.raises(ParameterError, match="'implementation'.*KAnonymity"):
        Mondrian(implementation="compiled").fit(
            qi, [KAnonymity(1), DistinctL("s", 2)], sensitive=[sens]
        )
    # parameters are stored unchanged, validated only when fit runs
    assert Mondrian(mode="loose").mode == "loose"


def test_mondrian_engine_keyword_is_a_deprecated_alias() -> None:
    qis = [NumericQI("x", [1, 2, 3, 4, 5, 6])]
    with pytest.warns(DeprecationWarning, match="implementation='numpy'"):
        est = Mondrian(engine="numpy")
    assert est.implementation == "numpy"
    assert est.fit(qis, [KAnonymity(2)]).n_classes == 2
    with pytest.raises(ParameterError, match="'engine'.*'implementation'"):
        Mondrian(implementation="numpy", engine="compiled")


def test_mondrian_function_engine_keyword_is_a_deprecated_alias() -> None:
    qis = [NumericQI("x", [1, 2, 3, 4, 5, 6])]
    with (
        mock.patch.object(compiled, "partition_k", side_effect=AssertionError),
        pytest.warns(DeprecationWarning, match="implementation='numpy'") as caught,
    ):
        assert mondrian(qis, [KAnonymity(2)], engine="numpy").n_classes == 2  # numpy rounds
    assert caught[0].filename == __file__  # points at the caller
    with pytest.raises(ParameterError, match="'engine'.*'implementation'"):
        mondrian(qis, [KAnonymity(2)], implementation="numpy", engine="numpy")


def test_fit_frame_engine_keyword_is_a_deprecated_alias() -> None:
    frame = pl.DataFrame({"x": [1, 2, 3, 4, 5, 6]})
    kwargs = {"quasi_identifiers": ["x"], "numeric": ["x"]}
    with (
        mock.patch.object(compiled, "partition_k", side_effect=AssertionError),
        pytest.warns(DeprecationWarning, match="implementation='numpy'") as caught,
    ):
        assert fit_frame(frame, [KAnonymity(2)], engine="numpy", **kwargs).n_classes == 2
    assert caught[0].filename == __file__
    with pytest.raises(ParameterError, match="'engine'.*'implementation'"):
        fit_frame(frame, [KAnonymity(2)], implementation="compiled", engine="numpy", **kwargs)


def test_frame_adapter_errors() -> None:
    df = pl.DataFrame({"a": ["x", "y"], "b": ["1", "z"]})
    with pytest.raises(DataError, match="numeric"):
        fit_frame(df, [KAnonymity(1)], quasi_identifiers=["b"], numeric=["b"])
    with pytest.raises(ParameterError, match="quasi-identifiers only"):
        fit_frame(df, [KAnonymity(1)], quasi_identifiers=["a"], numeric=["b"])
    # a column without a hierarchy gets value -> '*'
    res = fit_frame(df, [KAnonymity(2)], quasi_identifiers=["a"])
    assert res.labels("a") == ("*",)


@pytest.mark.parametrize("dtype", [pl.Int64, pl.UInt64])
def test_numeric_integers_beyond_float_precision_are_refused(dtype) -> None:
    """Numbers are cut as float64: integers past 2**53 would be rounded, and the released
    ranges would not contain the values they stand for (2**62 - 3 shown as 2**62)."""
    big = [2**62 - i for i in range(6)]
    df = pl.DataFrame({"x": pl.Series(big, dtype=dtype)})
    with pytest.raises(DataError, match=r"'x'.*2\*\*53") as caught:
        fit_frame(df, [KAnonymity(2)], quasi_identifiers=["x"], numeric=["x"])
    assert str(big[0]) not in str(caught.value)  # no record value in the message
    # integers a float64 holds exactly are cut as before
    ok = pl.DataFrame({"x": pl.Series([2**53 - 1 - i for i in range(6)], dtype=dtype)})
    res = fit_frame(ok, [KAnonymity(2)], quasi_identifiers=["x"], numeric=["x"])
    labels = release_frame(ok, res)["x"].to_list()
    assert (
        labels
        == ["[9007199254740989-9007199254740991]"] * 3 + ["[9007199254740986-9007199254740988]"] * 3
    )


@pytest.mark.parametrize("numeric_release", ["mean", "range"])
def test_numbers_whose_sums_would_overflow_are_refused(numeric_release: str) -> None:
    """Means of 1e308 and 1e308 were inf (the release then refused as holding 'inf'
    labels, which the input never held), and the domain's width too."""
    df = pl.DataFrame({"x": [1e308, -1e308] * 4, "y": [1.0, 2, 3, 4, 5, 6, 7, 8]})
    with pytest.raises(DataError, match=r"'x'.*overflow") as caught:
        fit_frame(
            df,
            [KAnonymity(2)],
            quasi_identifiers=["x", "y"],
            numeric=["x", "y"],
            numeric_release=numeric_release,
        )
    assert "1e+308" not in str(caught.value)


def test_frame_adapter_orders_and_population() -> None:
    df = pl.DataFrame(
        {
            "size": ["S", "M", "L", "XL", "S", "XL"],
            "zip": ["a1", "a2", "b1", "b2", "a1", "b2"],
            "dx": ["flu", "cold", "flu", "cold", "cold", "flu"],
        }
    )
    h = Hierarchy([["a1", "a", "*"], ["a2", "a", "*"], ["b1", "b", "*"], ["b2", "b", "*"]])
    population = pl.concat([df, df.with_columns(pl.lit("M").alias("size"))])
    res = fit_frame(
        df,
        [KAnonymity(2), KMap(3), DistinctL("dx", 2)],
        quasi_identifiers=["size", "zip"],
        hierarchies={"zip": h},
        orders={"size": ["S", "M", "L", "XL"]},
        sensitive=["dx"],
        population=population,
    )
    out = release_frame(df, res)
    assert out["zip"].to_list() == ["a", "a", "b", "b", "a", "b"]
    assert out["size"].to_list() == ["[S-M]", "[S-M]", "[L-XL]", "[L-XL]", "[S-M]", "[L-XL]"]
    # [S-M] x a: 3 + 3 records; [L-XL] x b: 3 (the added records are all "M")
    assert res.population is not None and res.population.tolist() == [6, 3]
    with pytest.raises(DataError, match="order"):
        fit_frame(df, [KAnonymity(1)], quasi_identifiers=["size"], orders={"size": ["S"]})


@pytest.mark.parametrize("mode", ["strict", "relaxed"])
def test_implementation_matches_the_plain_recursion_on_wide_domains(mode) -> None:
    """Large hierarchies (no lowest-common-ancestor table) and many distinct numbers
    (order statistics by sorting, int32 ranks) take the implementation's fallback paths."""
    rng = np.random.default_rng(7)
    n = 400
    leaves = [f"z{i:04d}" for i in range(700)]
    rows = [[z, z[:4], z[:3], "*"] for z in leaves]
    h = Hierarchy(rows, name="zip")
    qis = [
        HierarchicalQI("zip", rng.integers(0, 700, n), h),
        NumericQI("income", rng.normal(size=n) * 1000),
        NumericQI("small", rng.integers(0, 5, n)),
    ]
    sens = SensitiveAttribute("s", rng.integers(0, 3, n), ("a", "b", "c"))
    for k, l, implementation in ((2, 1, "compiled"), (2, 1, "numpy"), (4, 2, "auto")):  # noqa: E741
        models = [KAnonymity(k)] + ([DistinctL("s", l)] if l > 1 else [])
        res = Mondrian(mode=mode, implementation=implementation).fit(qis, models, sensitive=[sens])
        got = partition_sets(res)
        assert got == reference_partitions(qis, sens, k, l, mode, "widest")


# ---------------------------------------------------------------------- compiled implementation
def _fit_both(qis, k, mode, split):
    return [
        Mondrian(mode=mode, split=split, implementation=e).fit(qis, [KAnonymity(k)])
        for e in ("compiled", "numpy")
    ]


@given(
    st.one_of(tables(max_n=40), tables(max_n=300)),
    st.integers(1, 6),
    settings_modes,
    settings_splits,
)
def test_implementations_return_identical_results(problem, k, mode, split) -> None:
    """Partitions are numbered by their first record, so both implementations give equal arrays."""
    qis, _ = problem
    assume(k <= len(qis[0]))
    one, two = _fit_both(qis, k, mode, split)
    assert np.array_equal(one.partition_of, two.partition_of)
    assert np.array_equal(one.class_of, two.class_of)
    assert np.array_equal(one.sizes, two.sizes)
    assert (one.n_cuts, one.rounds) == (two.n_cuts, two.rounds)
    for q in qis:
        assert one.labels(q.name) == two.labels(q.name)
    first = [int(np.flatnonzero(one.partition_of == p)[0]) for p in range(one.n_partitions)]
    assert first == sorted(first)


@pytest.mark.parametrize("mode", ["strict", "relaxed"])
def test_compiled_median_by_sorting_when_the_range_is_wide(mode) -> None:
    """Sixteen subtrees of interleaved pairs: after the first cut each part holds 25
    records spread over nearly the whole range of x (200 ranks), so the kernel sorts
    them instead of counting the range; each pair shares its x (ties at the median)."""
    n = 400
    h = Hierarchy([[f"g{i}", "*"] for i in range(16)], name="g")
    qis = [
        HierarchicalQI("g", (np.arange(n) // 2) % 16, h),
        NumericQI("x", np.arange(n) // 2),
    ]
    sens = SensitiveAttribute("s", np.zeros(n, dtype=np.int64), ("x",))
    for k in (2, 3, 7):
        res = Mondrian(mode=mode, implementation="compiled").fit(qis, [KAnonymity(k)])
        got = partition_sets(res)
        assert got == reference_partitions(qis, sens, k, 1, mode, "widest")


def test_compiled_rows_span_several_words() -> None:
    """Seven attributes of ~1,000 values need more than one 64-bit word per row."""
    rng = np.random.default_rng(3)
    n = 1500
    qis = [NumericQI(f"x{i}", rng.integers(0, 1000, n)) for i in range(7)]
    words, word, shift, mask = compiled.pack_rows(
        [np.unique(q.values, return_inverse=True)[1] for q in qis], [1000] * 7
    )
    assert words.shape[0] > 1 and word.max() == words.shape[0] - 1
    for d, q in enumerate(qis):
        ranks = (words[word[d]] >> shift[d]) & mask[d]
        assert np.array_equal(ranks, np.unique(q.values, return_inverse=True)[1])
    assert np.array_equal(words[0] & np.uint64(2047), np.arange(n))  # ids: 11 bits
    for mode in ("strict", "relaxed"):
        one, two = _fit_both(qis, 5, mode, "widest")
        assert np.array_equal(one.partition_of, two.partition_of)


def test_compiled_implementation_falls_back_without_numba() -> None:
    qis = [NumericQI("x", [1, 2, 3, 4, 5, 6])]
    with (
        mock.patch.object(compiled, "available", return_value=False),
        mock.patch.object(compiled, "partition_k", side_effect=AssertionError),
    ):
        assert Mondrian().fit(qis, [KAnonymity(2)]).n_classes == 2  # the numpy implementation
        with pytest.raises(ParameterError, match="numba"):
            Mondrian(implementation="compiled").fit(qis, [KAnonymity(2)])
    import numba  # noqa: PLC0415

    with mock.patch.object(numba.config, "DISABLE_JIT", True):
        assert compiled._compiled.__wrapped__() is None  # no interpreted kernel
    failing = mock.Mock(side_effect=RuntimeError("cannot cache function: no locator"))
    with (
        mock.patch.object(_numba.importlib, "import_module", failing),
        pytest.warns(RuntimeWarning, match=r"no locator\); using the numpy implementation"),
    ):
        assert compiled._compiled.__wrapped__() is None


@given(st.lists(st.integers(0, 30), min_size=1, max_size=60), st.data())
def test_kernel_selection_matches_sorting(values, data) -> None:
    """The compiled median of wide, sparse ranges (quickselect) picks the sorted value."""
    from anonkit.algorithms.mondrian import _kernels  # noqa: PLC0415 (imports numba)

    vals = np.array(values, dtype=np.int64)
    at = data.draw(st.integers(0, len(values) - 1))
    scratch = np.zeros(len(values), dtype=np.int64)
    assert _kernels.select(vals, len(values), at, scratch) == sorted(values)[at]
    assert vals.tolist() == values  # the input is left alone


def test_weighted_rows_with_a_key_space_beyond_int32() -> None:
    """Eight attributes of 100 values, every tuple twice: the numpy implementation groups the
    tuples with keys beyond 2**31 (int32 ranks times large strides used to overflow)."""
    rng = np.random.default_rng(5)
    base = rng.integers(0, 100, (150, 8))
    rows = np.concatenate([base, base])
    qis = [NumericQI(f"x{j}", rows[:, j]) for j in range(8)]
    one, two = _fit_both(qis, 3, "strict", "widest")
    assert np.array_equal(one.partition_of, two.partition_of)


def test_a_value_that_is_no_number_is_named_with_its_record() -> None:
    """'Column 'a' is declared numeric but holds values that are not numbers' named
    neither the value nor where it stands."""
    import anonkit

    frame = pl.DataFrame({"a": ["31", "45", "78/2", "50", "x"], "b": ["m"] * 5})
    with pytest.raises(DataError, match=r"'a'.*'78/2' \(record 3\) and 1 more"):
        anonkit.anonymize(frame, quasi_identifiers=["a", "b"], numeric=["a"], k=2,
                          algorithm="mondrian")  # fmt: skip
