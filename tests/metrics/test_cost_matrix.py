"""Tests of anonkit.metrics.cost_matrix: hand-computed golden values, the paper's cost
matrix, and properties of the seven functions (Mauger, Le Mahec & Dequen 2020)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit.core.hierarchy import Hierarchy
from anonkit.exceptions import UnknownNameError
from anonkit.metrics.cost_matrix import (
    COST_FUNCTIONS,
    alteration_percentage,
    cost_loss,
    cost_matrices,
    deleted_of_modified_percentage,
    deleted_percentage,
    effective_k,
    generalization_costs,
    hierarchy_nodes,
    merge_cost,
    modified_percentage,
    node_costs,
    wid_weights,
)

# ------------------------------------------------------------------ the tiny golden table
# H1 (h = 3, 4 leaves): a, b, c -> A; d -> D; A, D -> *.   nl(A) = 3, nl(D) = 1, nl(*) = 4.
# H2 (h = 2, 2 leaves): x, y -> *.                         nl(*) = 2.
# m = 2 attributes, h_max = 3.
# wid: (h1 - 1)^2 = 4, (h2 - 1)^2 = 1, sum 5 -> wid1 = 1 - 4/5 = 0.2, wid2 = 1 - 1/5 = 0.8.
H1 = Hierarchy([["a", "A", "*"], ["b", "A", "*"], ["c", "A", "*"], ["d", "D", "*"]], name="q1")
H2 = Hierarchy([["x", "*"], ["y", "*"]], name="q2")
HS = (H1, H2)

# Four records and their release:      q1        q2
#   r1  a -> A (level 1)               x -> x (level 0)
#   r2  b -> A (level 1)               y -> * (level 1)
#   r3  c -> * (level 2)               x -> * (level 1)
#   r4  d -> D (level 1)               y -> y (level 0)
LEAVES = np.array([[0, 1, 2, 3], [0, 1, 0, 1]])
LEVELS = np.array([[1, 1, 2, 1], [0, 1, 1, 0]])

# Per function: phi(A), phi(D), phi(* of H1), phi(* of H2) by hand, the table's cost
# (r1 + r2 + r3 + r4) and the cost of T* (every cell at the root: 4 * (phi(*1) + phi(*2))).
#
# distortion: c_1 = 1/(3-1) = 1/2, c_2 = 1/(3-2) = 1, sum 3/2. H1 level 1: (1/2)/(3/2) * 0.2
#   = 1/15, level 2: 0.2. H2: c_1 = 1, level 1: 1 * 0.8 = 0.8.
#   r1 1/15, r2 1/15 + 0.8, r3 0.2 + 0.8, r4 1/15 -> 3/15 + 1.8 = 2.0.   T* = 4 * 1.0 = 4.
# ncp: (nl - 1) / NL. A = 2/4, D = 0, *1 = 3/4, *2 = 1/2.
#   r1 0.5, r2 0.5 + 0.5, r3 0.75 + 0.5, r4 0 -> 2.75.                    T* = 4 * 1.25 = 5.
# total: level / (h - 1). A = D = 1/2, *1 = 1, *2 = 1.
#   r1 0.5, r2 1.5, r3 2, r4 0.5 -> 4.5.                                 T* = 4 * 2 = 8.
# llm: (nl - 1) * h_max / h. H1 factor 3/3: A = 2, D = 0, *1 = 3; H2 factor 3/2: *2 = 1.5.
#   r1 2, r2 3.5, r3 4.5, r4 0 -> 10.                                    T* = 4 * 4.5 = 18.
# nllm: (nl - 1) / NL * h_max / h. A = 0.5, *1 = 0.75; *2 = 0.5 * 1.5 = 0.75.
#   r1 0.5, r2 1.25, r3 1.5, r4 0 -> 3.25.                               T* = 4 * 1.5 = 6.
# wllm: (nl - 1) * wid. A = 2 * 0.2 = 0.4, *1 = 0.6; *2 = 0.8.
#   r1 0.4, r2 1.2, r3 1.4, r4 0 -> 3.0.                                 T* = 4 * 1.4 = 5.6.
# wnllm: (nl - 1) / NL * wid. A = 0.1, *1 = 0.15; *2 = 0.4.
#   r1 0.1, r2 0.5, r3 0.55, r4 0 -> 1.15.                               T* = 4 * 0.55 = 2.2.
GOLDEN = {
    #             phi(A)  phi(D)  phi(*1)  phi(*2)  table  T*
    "distortion": (1 / 15, 1 / 15, 0.2, 0.8, 2.0, 4.0),
    "ncp": (0.5, 0.0, 0.75, 0.5, 2.75, 5.0),
    "total": (0.5, 0.5, 1.0, 1.0, 4.5, 8.0),
    "llm": (2.0, 0.0, 3.0, 1.5, 10.0, 18.0),
    "nllm": (0.5, 0.0, 0.75, 0.75, 3.25, 6.0),
    "wllm": (0.4, 0.0, 0.6, 0.8, 3.0, 5.6),
    "wnllm": (0.1, 0.0, 0.15, 0.4, 1.15, 2.2),
}


def test_golden_covers_the_seven_functions() -> None:
    assert tuple(GOLDEN) == COST_FUNCTIONS


def test_wid_weights_by_hand() -> None:
    assert wid_weights([3, 2]).tolist() == pytest.approx([0.2, 0.8])
    assert wid_weights([5]).tolist() == [1.0]  # one attribute: wid = 1
    assert wid_weights([1, 1]).tolist() == [1.0, 1.0]  # nothing to generalize


def test_wid_weights_adult_heights() -> None:
    # Adult: heights 5, 2, 2, 3, 4, 3, 3, 3, 2 and m = 9.
    heights = [5, 2, 2, 3, 4, 3, 3, 3, 2]
    total = 4**9 + 3 * 1 + 4 * 2**9 + 3**9
    expected = [1 - (h - 1) ** 9 / total for h in heights]
    assert wid_weights(heights).tolist() == pytest.approx(expected)
    assert wid_weights(heights)[0] == pytest.approx(1 - 262144 / 283878)


@pytest.mark.parametrize("cost", COST_FUNCTIONS)
def test_node_costs_golden(cost: str) -> None:
    phi_a, phi_d, phi_root1, phi_root2, _, _ = GOLDEN[cost]
    phi1, phi2 = node_costs(HS, cost)
    # H1 nodes: a b c d | A D | *;  H2 nodes: x y | *
    assert phi1.tolist() == pytest.approx([0, 0, 0, 0, phi_a, phi_d, phi_root1])
    assert phi2.tolist() == pytest.approx([0, 0, phi_root2])


@pytest.mark.parametrize("cost", COST_FUNCTIONS)
def test_cost_loss_and_alteration_golden(cost: str) -> None:
    *_, table, full = GOLDEN[cost]
    assert cost_loss(LEAVES, LEVELS, HS, cost=cost) == pytest.approx(table)
    assert alteration_percentage(LEAVES, LEVELS, HS, cost=cost) == pytest.approx(100 * table / full)


def test_alteration_values_by_hand() -> None:
    got = {c: alteration_percentage(LEAVES, LEVELS, HS, cost=c) for c in COST_FUNCTIONS}
    assert got == pytest.approx(
        {
            "distortion": 50.0,
            "ncp": 55.0,
            "total": 56.25,
            "llm": 100 * 10 / 18,
            "nllm": 100 * 3.25 / 6,
            "wllm": 100 * 3 / 5.6,
            "wnllm": 100 * 1.15 / 2.2,
        }
    )


def test_cell_measures_by_hand() -> None:
    # modified: r1 A, r2 A *, r3 * *, r4 D -> 6 of 8 cells; deleted (at the root): r2's q2,
    # r3's q1 and q2 -> 3 of 8; deleted among modified: 3 of 6.
    assert modified_percentage(LEAVES, LEVELS, HS) == pytest.approx(75.0)
    assert deleted_percentage(LEVELS, HS) == pytest.approx(37.5)
    assert deleted_of_modified_percentage(LEAVES, LEVELS, HS) == pytest.approx(50.0)
    # released (A,x) (A,*) (*,*) (D,y): all distinct
    assert effective_k(LEAVES, LEVELS, HS) == 1


def test_weights_stand_for_repeated_rows() -> None:
    w = np.array([3, 1, 2, 5])
    rep = np.repeat(np.arange(4), w)
    for cost in COST_FUNCTIONS:
        assert cost_loss(LEAVES, LEVELS, HS, cost=cost, weights=w) == pytest.approx(
            cost_loss(LEAVES[:, rep], LEVELS[:, rep], HS, cost=cost)
        )
    assert modified_percentage(LEAVES, LEVELS, HS, weights=w) == pytest.approx(
        modified_percentage(LEAVES[:, rep], LEVELS[:, rep], HS)
    )
    assert effective_k(LEAVES, LEVELS, HS, weights=w) == 1
    assert effective_k(LEAVES, LEVELS, HS, weights=[3, 2, 2, 5]) == 2


def test_effective_k_groups_identical_labels() -> None:
    # b and c both at A, d at *: classes {A: 2} and {*: 1}; then d -> * and a -> * too.
    assert effective_k([[1, 2, 3]], [[1, 1, 2]], [H1]) == 1
    assert effective_k([[0, 1, 2, 3]], [[2, 1, 1, 2]], [H1]) == 2


def test_unknown_cost_lists_the_seven_names() -> None:
    with pytest.raises(UnknownNameError) as info:
        cost_loss(LEAVES, LEVELS, HS, cost="entropy")
    for name in COST_FUNCTIONS:
        assert name in str(info.value)


def test_shape_errors() -> None:
    with pytest.raises(ValueError, match="n_qi"):
        cost_loss(LEAVES[:1], LEVELS[:1], HS, cost="ncp")
    with pytest.raises(ValueError, match="weights"):
        cost_loss(LEAVES, LEVELS, HS, cost="ncp", weights=[1, 2])


# ------------------------------------------------------------------ the paper's cost matrix
# Figure 2 of the seed: a, b, c -> A; d, e -> B; f -> *. In the column format f needs a
# level-1 node, here F (which changes nothing in the entries the paper lists).
FIG2 = Hierarchy(
    [
        ["a", "A", "*"],
        ["b", "A", "*"],
        ["c", "A", "*"],
        ["d", "B", "*"],
        ["e", "B", "*"],
        ["f", "F", "*"],
    ]
)


@pytest.mark.parametrize("cost", COST_FUNCTIONS)
def test_cost_matrix_matches_the_papers_table(cost: str) -> None:
    nodes = hierarchy_nodes(FIG2)
    ix = {label: i for i, label in enumerate(nodes.labels)}
    (mat,) = cost_matrices([FIG2], cost)
    (phi,) = node_costs([FIG2], cost)

    def w(n: str, m: str) -> float:  # weight of the path n -> m
        return float(phi[ix[m]] - phi[ix[n]])

    def c(n: str, m: str) -> float:
        return float(mat[ix[n], ix[m]])

    # Figure 4: a and *; a and c; e and B.
    assert c("a", "*") == pytest.approx(w("a", "A") + w("A", "*"))
    assert c("*", "a") == 0.0
    assert c("a", "c") == pytest.approx(w("a", "A"))
    assert c("c", "a") == pytest.approx(w("c", "A"))
    assert c("e", "B") == pytest.approx(w("e", "B"))
    assert c("B", "e") == 0.0
    # The matrix of Section 3: row * is zero, A and B meet at *, a ancestor costs nothing
    # from above, values under different level-1 nodes meet at the root.
    assert np.all(mat[ix["*"]] == 0)
    assert np.all(np.diag(mat) == 0)
    assert c("A", "B") == pytest.approx(w("A", "*"))
    assert c("A", "d") == pytest.approx(w("A", "*"))
    assert c("A", "b") == 0.0
    assert c("B", "d") == 0.0
    assert c("a", "A") == pytest.approx(w("a", "A"))
    assert c("a", "d") == pytest.approx(w("a", "*"))
    assert c("d", "e") == pytest.approx(w("d", "B"))
    assert c("f", "a") == pytest.approx(w("f", "*"))


def test_merge_cost_by_hand() -> None:
    nodes1, nodes2 = hierarchy_nodes(H1), hierarchy_nodes(H2)
    i1 = {label: i for i, label in enumerate(nodes1.labels)}
    i2 = {label: i for i, label in enumerate(nodes2.labels)}
    ncp = cost_matrices(HS, "ncp")
    # C1 = [a, x] (2 records), C2 = [b, y] (1 record) meet at (A, *):
    # Cost(a, b) = Cost(b, a) = 2/4, Cost(x, y) = Cost(y, x) = 1/2
    # MC = (0.5 + 0.5) * 2 + (0.5 + 0.5) * 1 = 3.
    got = merge_cost([i1["a"], i2["x"]], 2, [i1["b"], i2["y"]], 1, ncp)
    assert got == pytest.approx(3.0)
    total = cost_matrices(HS, "total")
    # C1 = [A, x] (2), C2 = [c, *] (3): Cost(A, c) = 0, Cost(c, A) = 1/2, Cost(x, *) = 1,
    # Cost(*, x) = 0 -> MC = (0 + 1) * 2 + (1/2 + 0) * 3 = 3.5.
    got = merge_cost([i1["A"], i2["x"]], 2, [i1["c"], i2["*"]], 3, total)
    assert got == pytest.approx(3.5)


def test_generalization_costs_rows() -> None:
    (t1, t2) = generalization_costs(HS, "llm")
    assert t1.tolist() == [[0, 0, 0, 0], [2, 2, 2, 0], [3, 3, 3, 3]]
    assert t2.tolist() == [[0, 0], [1.5, 1.5]]


def test_lca_of_internal_nodes() -> None:
    nodes = hierarchy_nodes(FIG2)
    ix = {label: i for i, label in enumerate(nodes.labels)}
    pairs = [("a", "b", "A"), ("A", "c", "A"), ("A", "B", "*"), ("e", "B", "B"), ("*", "f", "*")]
    x = np.array([ix[p] for p, _, _ in pairs])
    y = np.array([ix[q] for _, q, _ in pairs])
    assert [nodes.labels[i] for i in nodes.lca(x, y)] == [r for _, _, r in pairs]
    assert [nodes.labels[i] for i in nodes.lca(y, x)] == [r for _, _, r in pairs]
    for n in range(nodes.n_nodes):
        assert np.array_equal(
            nodes.lca_row(n), nodes.lca(np.full(nodes.n_nodes, n), np.arange(nodes.n_nodes))
        )


# ------------------------------------------------------------------ properties
@st.composite
def hierarchies(draw: st.DrawFn) -> Hierarchy:
    """A random tree hierarchy: 1-7 leaves, 1-4 levels, each level coarsening the last."""
    height = draw(st.integers(1, 4))
    n_leaves = 1 if height == 1 else draw(st.integers(1, 7))  # one level: a single root
    codes = list(range(n_leaves))
    columns = [[f"v{i}" for i in codes]]
    for lv in range(1, height):
        if lv == height - 1:
            codes = [0] * n_leaves
            columns.append(["*"] * n_leaves)
            break
        width = max(codes) + 1
        parent = draw(st.lists(st.integers(0, max(width - 1, 0)), min_size=width, max_size=width))
        codes = [parent[c] for c in codes]
        columns.append([f"L{lv}_{c}" for c in codes])
    return Hierarchy(list(zip(*columns, strict=True)))


@st.composite
def released_tables(draw: st.DrawFn) -> tuple[list[Hierarchy], np.ndarray, np.ndarray, np.ndarray]:
    hs = draw(st.lists(hierarchies(), min_size=1, max_size=3))
    n = draw(st.integers(1, 12))
    leaves = np.array(
        [draw(st.lists(st.integers(0, len(h.leaves) - 1), min_size=n, max_size=n)) for h in hs]
    )
    levels = np.array(
        [draw(st.lists(st.integers(0, h.max_level), min_size=n, max_size=n)) for h in hs]
    )
    weights = np.array(draw(st.lists(st.integers(1, 5), min_size=n, max_size=n)))
    return hs, leaves, levels, weights


@given(released_tables(), st.sampled_from(COST_FUNCTIONS))
def test_measures_are_percentages(table: tuple, cost: str) -> None:  # type: ignore[type-arg]
    hs, leaves, levels, w = table
    for value in (
        alteration_percentage(leaves, levels, hs, cost=cost, weights=w),
        modified_percentage(leaves, levels, hs, weights=w),
        deleted_percentage(levels, hs, weights=w),
        deleted_of_modified_percentage(leaves, levels, hs, weights=w),
    ):
        assert 0.0 <= value <= 100.0 + 1e-9
    assert 1 <= effective_k(leaves, levels, hs, weights=w) <= int(w.sum())
    # the original table costs nothing; the fully generalized one is 100 % (if anything moves)
    zero = np.zeros_like(levels)
    assert alteration_percentage(leaves, zero, hs, cost=cost, weights=w) == 0.0
    assert modified_percentage(leaves, zero, hs, weights=w) == 0.0
    top = np.array([[h.max_level] * levels.shape[1] for h in hs])
    full = alteration_percentage(leaves, top, hs, cost=cost, weights=w)
    assert full == pytest.approx(100.0) or full == 0.0


@given(hierarchies(), st.sampled_from(COST_FUNCTIONS))
def test_potentials_grow_towards_the_root(h: Hierarchy, cost: str) -> None:
    nodes = hierarchy_nodes(h)
    (phi,) = node_costs([h], cost)
    assert np.all(phi[: len(h.leaves)] == 0)  # leaves cost nothing
    for lv in range(h.height):
        anc = nodes.ancestors[:, lv]
        has = anc >= 0
        assert np.all(phi[anc[has]] >= phi[has] - 1e-12)
    (mat,) = cost_matrices([h], cost)
    assert np.all(mat >= -1e-12)
    assert np.all(mat[nodes.root] == 0)


@given(
    st.lists(hierarchies(), min_size=1, max_size=3),
    st.sampled_from(COST_FUNCTIONS),
    st.data(),
)
def test_merge_cost_is_cost_difference(hs: list[Hierarchy], cost: str, data: st.DataObject) -> None:
    # MC(C1, C2) = cost(merged class at the LCAs) - cost(C1) - cost(C2)
    all_nodes = [hierarchy_nodes(h) for h in hs]
    x = [data.draw(st.integers(0, nd.n_nodes - 1)) for nd in all_nodes]
    y = [data.draw(st.integers(0, nd.n_nodes - 1)) for nd in all_nodes]
    s1, s2 = data.draw(st.integers(1, 9)), data.draw(st.integers(1, 9))
    phis = node_costs(hs, cost)
    v = [int(nd.lca(np.array(a), np.array(b))) for nd, a, b in zip(all_nodes, x, y, strict=True)]
    phi_of = lambda nodes_: sum(float(p[i]) for p, i in zip(phis, nodes_, strict=True))  # noqa: E731
    expected = (s1 + s2) * phi_of(v) - s1 * phi_of(x) - s2 * phi_of(y)
    got = merge_cost(x, s1, y, s2, cost_matrices(hs, cost))
    assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-9)
