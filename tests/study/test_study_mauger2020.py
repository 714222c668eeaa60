"""Reproduction of Mauger et al. (2020), Figures 6-9: paper data, ranks, grid, output."""

from __future__ import annotations

import math
import pickle
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit.algorithms.greedy_merge import PAPER_K_VALUES
from anonkit.core.hierarchy import Hierarchy
from anonkit.datasets import load_adult
from anonkit.exceptions import DataError, ParameterError, UnknownNameError
from anonkit.metrics.cost_matrix import COST_FUNCTIONS
from anonkit.study import mauger2020 as m

TOY_ROWS = [["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"], ["d", "C", "*"]]


# ---------------------------------------------------------------- the paper's tables
def test_paper_tables_are_8_by_7_with_values_and_ranks() -> None:
    assert sorted(m.PAPER_TABLES) == [2, 100, 1500]
    for k, table in m.PAPER_TABLES.items():
        assert table.k == k and table.figure == m.FIGURE_K[k]
        assert table.metrics == (*COST_FUNCTIONS, "average")
        assert table.optimizations == COST_FUNCTIONS
        assert len(table.values) == len(table.ranks) == 8
        assert all(len(row) == 7 for row in (*table.values, *table.ranks))
        assert all(0 <= v <= 100 for row in table.values for v in row)
        assert all(1 <= r <= 7 for row in table.ranks for r in row)


@pytest.mark.parametrize(
    ("k", "metric", "optimization", "value", "rank"),
    [
        (2, "distortion", "distortion", 2, 1),
        (2, "distortion", "total", 3, 5),
        (2, "ncp", "llm", 5, 6),  # the seed's OCR row "nep"
        (2, "average", "nllm", 3, 1),
        (100, "distortion", "distortion", 24, 1),
        (100, "ncp", "ncp", 38, 4),  # text: "NCP is at rank 4 and NLLM is at rank 1"
        (100, "ncp", "nllm", 34, 1),
        (100, "llm", "wnllm", 57, 1),  # printed as is, although 57 is the row's worst
        (100, "average", "llm", 49, 7),
        (1500, "distortion", "nllm", 58, 1),
        (1500, "wnllm", "wnllm", 75, 5),
        (1500, "average", "nllm", 66, 1),
    ],
)
def test_paper_cells_as_printed(
    k: int, metric: str, optimization: str, value: int, rank: int
) -> None:
    table = m.PAPER_TABLES[k]
    assert table.value(metric, optimization) == value
    assert table.rank(metric, optimization) == rank


def test_paper_text_claims_hold_on_the_encoded_tables() -> None:
    # "For a requested k equal to 1500, NLLM is at rank 1 for 5 out of 7 metrics."
    t = m.PAPER_TABLES[1500]
    assert sum(t.rank(metric, "nllm") == 1 for metric in COST_FUNCTIONS) == 5
    # Figure 7: "Distortion and NLLM have the best scores" (average row, ranks 1 and 2).
    assert m.PAPER_TABLES[100].best("average") == ("distortion",)


def test_rank_inconsistencies_of_the_printed_tables() -> None:
    assert m.PAPER_TABLES[2].rank_inconsistencies() == ()
    assert m.PAPER_TABLES[100].rank_inconsistencies() == (
        ("llm", "wnllm", 1, 7),
        ("wllm", "llm", 7, 2),
    )
    assert {c[:2] for c in m.PAPER_TABLES[1500].rank_inconsistencies()} == {
        ("distortion", "wllm"),
        ("total", "wllm"),
        ("nllm", "wllm"),
        ("wllm", "wnllm"),
    }


def test_parse_paper_table_rejects_malformed_text() -> None:
    good = [f"{r} " + " ".join(f"{i} ({i})" for i in range(1, 8)) for r in m.METRIC_ROWS]
    assert m.parse_paper_table("\n".join(good), figure="F", k=5).values[7][6] == 7
    with pytest.raises(DataError, match="6 'value \\(rank\\)' cells"):
        m.parse_paper_table("\n".join([good[0].rsplit(" ", 2)[0], *good[1:]]), figure="F", k=5)
    with pytest.raises(DataError, match="rows of F"):
        m.parse_paper_table("\n".join(reversed(good)), figure="F", k=5)


# ---------------------------------------------------------------- Figure 9 of the paper
def test_paper_minimum_k_states_what_the_text_says() -> None:
    assert m.paper_minimum_k(7500, "llm").value == 12307
    assert m.paper_minimum_k(7500, "nllm").value is None
    assert m.paper_minimum_k(10000, "distortion").value == 30162
    assert m.paper_minimum_k(10000, "total").value == 30162
    assert m.paper_minimum_k(10000, "ncp").value is None
    assert all(m.paper_minimum_k(15000, o).value == 30162 for o in COST_FUNCTIONS)
    assert all(m.paper_minimum_k(2, o).value == 2 for o in COST_FUNCTIONS)
    assert "very close" in m.paper_minimum_k(1000, "ncp").statement
    assert m.paper_minimum_k(1000, "ncp").value is None
    assert "relatively close" in m.paper_minimum_k(4000, "wllm").statement
    assert "strongly" in m.paper_minimum_k(5000, "wllm").statement
    with pytest.raises(UnknownNameError):
        m.paper_minimum_k(2, "entropy")


# ---------------------------------------------------------------- ranks and rho
def test_competition_ranks_share_ties_and_skip() -> None:
    assert m.competition_ranks([2, 2, 3, 5, 2, 4, 2]) == (1, 1, 5, 7, 1, 6, 1)
    assert m.competition_ranks([1.4, 1.6, 2.5]) == (1, 2, 3)  # 1, 2, 3 after rounding
    assert m.competition_ranks([1.45, 1.2], decimals=None) == (2, 1)
    assert m.competition_ranks([0.5, 1.49]) == (1, 1)  # half-up: both round to 1
    assert m.competition_ranks([math.nan, 3.0]) == (2, 1)


@given(st.lists(st.floats(0, 100, allow_nan=False), min_size=1, max_size=9))
def test_competition_ranks_properties(values: list[float]) -> None:
    ranks = m.competition_ranks(values, decimals=None)
    assert min(ranks) == 1 and max(ranks) <= len(values)
    for a, ra in zip(values, ranks, strict=True):
        assert ra == 1 + sum(b < a for b in values)


@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 5)),
        min_size=3,
        max_size=9,
    )
)
def test_spearman_matches_scipy(pairs: list[tuple[int, int]]) -> None:
    from scipy.stats import spearmanr

    a = [float(p[0]) for p in pairs]
    b = [float(p[1]) for p in pairs]
    ours = m.spearman(a, b)
    if len(set(a)) < 2 or len(set(b)) < 2:
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(float(spearmanr(a, b).statistic), abs=1e-9)


def test_spearman_edge_cases() -> None:
    assert m.spearman([1, 2, 3], [1, 2, 3]) == 1.0
    assert m.spearman([1, 2, 3], [3, 2, 1]) == -1.0
    assert math.isnan(m.spearman([1], [1]))
    assert math.isnan(m.spearman([1, math.nan], [1, 2]))
    with pytest.raises(ParameterError):
        m.spearman([1, 2], [1, 2, 3])


# ---------------------------------------------------------------- a tiny grid
@pytest.fixture(scope="module")
def adult_sample() -> pl.DataFrame:
    frame, _ = load_adult()
    return frame.sample(2500, seed=1)


@pytest.fixture(scope="module")
def tiny(adult_sample: pl.DataFrame) -> m.Reproduction:
    return m.reproduce(k_values=[2, 100], costs=["ncp", "nllm"], data=adult_sample, workers=1)


def test_reproduce_tiny_grid(tiny: m.Reproduction) -> None:
    assert tiny.k_values == (2, 100) and tiny.costs == ("ncp", "nllm")
    assert [(r.k, r.cost) for r in tiny.runs] == [
        (2, "ncp"),
        (2, "nllm"),
        (100, "ncp"),
        (100, "nllm"),
    ]
    assert tiny.n_records == 2500 and 0 < tiny.n_initial_classes <= 2500
    assert tiny.columns[0] == "age" and len(tiny.columns) == 9
    assert all(r.effective_k >= r.k for r in tiny.runs)
    assert all(0 <= v <= 100 for r in tiny.runs for v in r.alteration.values())
    assert tiny.minimum_k()[(100, "nllm")] == tiny.run(100, "nllm").effective_k
    frame = tiny.to_polars()
    assert frame.height == 4 and "alteration_average" in frame.columns


def test_alteration_table_and_comparison(tiny: m.Reproduction) -> None:
    table = tiny.alteration_table(100)
    assert table.metrics == m.METRIC_ROWS and table.optimizations == ("ncp", "nllm")
    run = tiny.run(100, "nllm")
    assert table.values[1][1] == run.alteration["ncp"]
    assert table.values[7][1] == pytest.approx(np.mean(list(run.alteration.values())))
    for row, ranks in zip(table.values, table.ranks, strict=True):
        assert ranks == m.competition_ranks(row)
    cmp = tiny.comparison(100)
    paper = m.PAPER_TABLES[100]
    assert cmp.difference[0][0] == pytest.approx(
        run_value(tiny, 100, "ncp", "distortion") - paper.value("distortion", "ncp")
    )
    assert cmp.paper_best[1] == ("nllm",)  # ncp row: NCP 38, NLLM 34
    assert 0 <= cmp.best_identical <= cmp.best_overlap <= 8
    with pytest.raises(ParameterError):
        tiny.comparison(50)


def run_value(rep: m.Reproduction, k: int, cost: str, metric: str) -> float:
    return rep.run(k, cost).alteration[metric]


def test_to_markdown_prints_both_tables_side_by_side(tiny: m.Reproduction) -> None:
    md = tiny.to_markdown(figure9_image="fig9.svg")
    assert "### Figure 6: percentage of alteration for requested k = 2" in md
    assert "### Figure 7: percentage of alteration for requested k = 100" in md
    assert "Figure 8" not in md.split("### Printed ranks")[0]  # k = 1500 not in the grid
    # ours (rank) / the paper's (printed rank), e.g. the ncp row at k = 100: paper 38 (4)
    assert re.search(r"\| ncp \| \d+\.\d \(\d\) / 38 \(4\) \| \d+\.\d \(\d\) / 34 \(1\) \|", md)
    assert "| metric | NCP | NLLM | rho | our best | paper's best | agree |" in md
    assert re.search(r"Summary at k = 100: mean \|difference\| \d+\.\d points", md)
    assert "### Figure 9: minimum k against requested k" in md
    assert re.search(r"\| 2 \| 2 \(paper 2\) \| 2 \(paper 2\) \| the smallest class", md)
    assert "![Figure 9: minimum k against requested k](fig9.svg)" in md
    assert "Figure 7, row llm, WNLLM: printed rank 1" in md
    assert "| age | 5 | 5 | 100 |" in md  # hierarchies against Figure 5


def test_figure9_svg_is_well_formed(tiny: m.Reproduction) -> None:
    svg = tiny.figure9_svg()
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    assert len(root.findall(f"{ns}polyline")) == 2
    # the paper's stated values in the grid: k = 2 for NCP and NLLM, plus the legend marker
    assert len(root.findall(f"{ns}circle")) == 3
    assert "NLLM" in svg and "requested k" in svg


def test_runs_and_reproductions_pickle(tiny: m.Reproduction) -> None:
    again = pickle.loads(pickle.dumps(tiny))
    assert again.runs == tiny.runs and again.run(2, "ncp").alteration == tiny.runs[0].alteration


def test_reproduce_in_spawned_workers_matches_in_process(
    adult_sample: pl.DataFrame, tiny: m.Reproduction
) -> None:
    seen: list[tuple[int, int]] = []
    rep = m.reproduce(
        k_values=[2, 100],
        costs=["ncp", "nllm"],
        data=adult_sample,
        workers=2,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert rep.workers == 2
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    for a, b in zip(rep.runs, tiny.runs, strict=True):
        timing = {"seconds": 0, "cpu_seconds": 0}
        assert {**a.to_dict(), **timing} == {**b.to_dict(), **timing}


def test_leaves_from_the_data_change_leaf_counted_costs() -> None:
    frame = pl.DataFrame({"q": ["a", "b", "c", "c"]})  # "d" never occurs
    kw = {"k_values": [2], "costs": ["ncp"], "data": frame, "workers": 1}
    full = m.reproduce(**kw, hierarchies={"q": Hierarchy(TOY_ROWS)})  # type: ignore[arg-type]
    pruned = m.reproduce(
        **kw,  # type: ignore[arg-type]
        hierarchies={"q": Hierarchy(TOY_ROWS)},
        leaves="data",
    )
    assert full.hierarchy_shapes == pruned.hierarchy_shapes == ((3, 4, 3),)
    # a, b -> A: NCP weight 1/4 with four leaves, 1/3 with the three that occur
    assert full.runs[0].alteration["ncp"] == pytest.approx(100 * (2 * 1 / 4) / (4 * 3 / 4))
    assert pruned.runs[0].alteration["ncp"] == pytest.approx(100 * (2 * 1 / 3) / (4 * 2 / 3))


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"k_values": []}, "k_values"),
        ({"k_values": [0]}, "k_values"),
        ({"k_values": [6]}, "k_values"),  # more than the 5 records
        ({"workers": 0}, "workers"),
        ({"small_class": "random"}, "small_class"),
        ({"leaves": "all"}, "leaves"),
        ({"costs": []}, "costs"),
    ],
)
def test_reproduce_validates(kwargs: dict[str, object], parameter: str) -> None:
    args: dict[str, object] = {
        "k_values": [2],
        "costs": ["ncp"],
        "data": pl.DataFrame({"q": ["a", "b", "c", "d", "d"]}),
        "hierarchies": {"q": Hierarchy(TOY_ROWS)},
        "workers": 1,
        **kwargs,
    }
    with pytest.raises(ParameterError) as err:
        m.reproduce(**args)  # type: ignore[arg-type]
    assert err.value.parameter == parameter


def test_reproduce_unknown_cost() -> None:
    with pytest.raises(UnknownNameError):
        m.reproduce(k_values=[2], costs=["entropy"], workers=1)


# ---------------------------------------------------------------- files
def test_write_outputs_splices_the_results_block(tiny: m.Reproduction, tmp_path: Path) -> None:
    page = tmp_path / "mauger2020.md"
    page.write_text(
        f"# Title\n\nBefore.\n\n{m.RESULTS_START}\nold\n{m.RESULTS_END}\n\nAfter.\n",
        encoding="utf-8",
    )
    paths = m.write_outputs(tiny, tmp_path)
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Title\n\nBefore.") and text.rstrip().endswith("After.")
    assert "\nold\n" not in text and "### Figure 7" in text
    assert "(mauger2020_figure9.svg)" in text
    ET.parse(paths["svg"])
    assert pl.read_csv(paths["csv"]).height == 4
    fresh = tmp_path / "new"
    m.write_outputs(tiny, fresh)
    assert (fresh / "mauger2020.md").read_text(encoding="utf-8").startswith("# Mauger")


def test_an_interrupted_write_leaves_the_figure_csv_and_page_whole(tmp_path: Path) -> None:
    # the figure and the CSV were renamed into place before the page was rendered: a
    # Ctrl-C then left them beside the previous run's page
    old = {
        "mauger2020.md": f"# T\n\n{m.RESULTS_START}\nold\n{m.RESULTS_END}\n",
        "mauger2020_figure9.svg": "<svg>old</svg>",
        "mauger2020_runs.csv": "a\n0\n",
    }
    for name, text in old.items():
        (tmp_path / name).write_text(text, encoding="utf-8")

    class Interrupted:
        def figure9_svg(self) -> str:
            return "<svg>new</svg>"

        def to_polars(self) -> pl.DataFrame:
            return pl.DataFrame({"a": [1]})

        def to_markdown(self, **kwargs: object) -> str:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        m.write_outputs(Interrupted(), tmp_path)  # type: ignore[arg-type]
    assert {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir()} == old


@pytest.mark.slow
def test_full_reproduction() -> None:
    """The whole grid (21 k x 7 optimizations, ~4 min of CPU)."""
    rep = m.reproduce(workers=2)
    assert rep.k_values == PAPER_K_VALUES and len(rep.runs) == 147
    assert rep.n_records == m.PAPER_RECORDS and rep.n_initial_classes == m.PAPER_INITIAL_CLASSES
    assert all(r.effective_k >= r.k for r in rep.runs)
    md = rep.to_markdown()
    for k in (2, 100, 1500):
        assert f"requested k = {k}" in md
