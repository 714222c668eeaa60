"""The Mauger et al. (2020) study under many orders of C(T) (issue 21, part B).

A tiny design runs on a sample of Adult; the claim checks are also tested on runs built by
hand, where the right answer is known.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from types import MappingProxyType

import numpy as np
import polars as pl
import pytest

from anonkit.algorithms.greedy_merge import PAPER_K_VALUES, GreedyMerge
from anonkit.core.hierarchy import Hierarchy
from anonkit.datasets import load_adult
from anonkit.exceptions import ParameterError
from anonkit.metrics.cost_matrix import COST_FUNCTIONS
from anonkit.study import mauger2020 as m
from anonkit.study.mauger2020.orders import Cell, Design
from anonkit.study.mauger2020.results import Run
from anonkit.study.mauger2020.runs import _prepare
from anonkit.study.mauger2020.spread import claims, order_tables, rank1_shares
from anonkit.study.mauger2020.study import PAPER_ERRORS, wilson

TINY = Design(
    curve_k=(100, 1500),
    table_k=(100, 1500),
    collapse_k=(),
    orders=2,
    ablation_k=(1500,),
    ablation_orders=1,
    ablations=("no-fusion", "age-74"),
)


def test_full_design_has_thirty_orders_per_claimed_cell() -> None:
    cells = m.FULL.cells()
    assert len(cells) == len(set(cells))
    for k in (2, 100, 1500, 5000, 7500, 10000, 15000):
        for cost in COST_FUNCTIONS:
            seeds = {c.seed for c in cells if c.variant == "paper" and (c.k, c.cost) == (k, cost)}
            assert len(seeds - {-1}) >= 30
    assert {c.k for c in cells if c.seed == -1} == set(PAPER_K_VALUES)
    for variant in m.FULL.ablations:  # the ablations under as many orders (issue 21)
        for k in m.FULL.ablation_k:
            seeds = {c.seed for c in cells if (c.variant, c.k, c.cost) == (variant, k, "nllm")}
            assert len(seeds) >= 30
    assert len(m.QUICK.cells()) < 150
    assert Cell("paper", 2, "ncp", 3).key() != Cell("paper", 2, "ncp", 3).key("abc")


@pytest.fixture(scope="module")
def sample() -> pl.DataFrame:
    frame, _ = load_adult()
    return frame.sample(2500, seed=3)


@pytest.fixture(scope="module")
def study(sample: pl.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> m.MaugerStudy:
    cache = tmp_path_factory.mktemp("cache")
    return m.run_study(TINY, workers=1, cache=cache, data=sample)


def test_study_runs_every_cell(study: m.MaugerStudy) -> None:
    assert len(study.runs) == len(TINY.cells()) == 7 * (2 + 2 * 2 + 2)
    assert study.facts["computed"] == len(study.runs)
    assert all(r.effective_k >= r.k for r in study.runs)
    assert all(0.0 <= r.tied_share <= 1.0 for r in study.runs)
    assert {r.variant for r in study.runs} == {"paper", "no-fusion", "age-74"}


def test_cached_rerun_computes_nothing(sample: pl.DataFrame, tmp_path: Path) -> None:
    design = Design((), (1500,), (), 1, (), 0, ())
    first = m.run_study(design, workers=1, cache=tmp_path, data=sample)
    again = m.run_study(design, workers=1, cache=tmp_path, data=sample)
    assert first.facts["computed"] == 7 and again.facts["computed"] == 0
    for a, b in zip(first.runs, again.runs, strict=True):
        assert {**a.to_dict(), "seconds": 0} == {**b.to_dict(), "seconds": 0}


def test_a_run_is_greedy_merge_with_that_seed(study: m.MaugerStudy, sample: pl.DataFrame) -> None:
    codes, hs, _ = _prepare(sample, None, "hierarchy")
    run = next(
        r for r in study.runs if (r.variant, r.k, r.cost, r.seed) == ("paper", 100, "ncp", 1)
    )
    direct = GreedyMerge(k=100, cost="ncp", order="random", seed=1).fit(codes, hs)
    assert run.alteration["llm"] == direct.alteration["llm"]
    assert run.tied_share == pytest.approx(direct.tied_merges / direct.n_merges)


def test_claims_tables_and_shares(study: m.MaugerStudy) -> None:
    found = study.claims()
    assert {c.k for c in found} == {100, 1500}
    for c in found:
        assert c.orders == 2 and 0 <= c.holds <= 2 and c.codes_order is not None
        assert c.detail
    statements = {c.statement for c in found}
    assert "NLLM is at rank 1 for 5 of the 7 metrics" in statements
    assert "under the metric ncp, NLLM is at rank 1" in statements
    tables = order_tables(study.runs, 1500)
    assert tables.shape == (2, 8, 7)
    shares = rank1_shares(tables)
    assert ((shares >= 0) & (shares <= 1)).all() and (shares.sum(axis=1) >= 1).all()


def _run(k: int, cost: str, seed: int, average: float, **measures: float) -> Run:
    alteration = {metric: average for metric in COST_FUNCTIONS}
    return Run(
        k=k,
        cost=cost,
        effective_k=int(measures.get("effective_k", k)),
        n_classes=int(measures.get("n_classes", 2)),
        n_merges=10,
        n_fused=0,
        alteration=MappingProxyType(alteration),
        modified_percentage=measures.get("modified", average),
        deleted_percentage=measures.get("deleted", average),
        deleted_of_modified_percentage=measures.get("dm", average),
        seconds=0.0,
        seed=seed,
        tied_share=0.5,
    )


def test_claims_on_runs_built_by_hand() -> None:
    # NLLM best everywhere in seed 0, worst everywhere in seed 1.
    runs = []
    for seed, nllm in ((0, 10.0), (1, 90.0)):
        for i, cost in enumerate(COST_FUNCTIONS):
            runs.append(_run(1500, cost, seed, nllm if cost == "nllm" else 50.0 + i))
    found = {c.statement: c for c in claims(runs, [1500], 30162)}
    assert found["NLLM has the best average (rank 1, whole percents)"].holds == 1
    assert found["NLLM is at rank 1 for at least 5 of the 7 metrics"].holds == 1
    assert found["NLLM is at rank 1 for 5 of the 7 metrics"].holds == 0  # 7 of 7, not 5
    assert found["NLLM has the lowest average alteration"].holds == 1
    assert found["every minimum k is relatively close to k (<= 25 % above)"].holds == 2
    assert found["NLLM has the best average (rank 1, whole percents)"].codes_order is None
    # Figure 9 at 15000: one class for every optimization in seed 0 only
    runs = [
        _run(
            15000, c, s, 50.0, n_classes=1 if s == 0 else 2, effective_k=30162 if s == 0 else 15000
        )
        for s in (0, 1)
        for c in COST_FUNCTIONS
    ]
    (single,) = [c for c in claims(runs, [15000], 30162) if "single class" in c.statement]
    assert (single.holds, single.orders) == (1, 2)


def test_wilson_interval() -> None:
    lo, hi = wilson(15, 30)
    assert lo < 0.5 < hi and hi - lo == pytest.approx(0.34, abs=0.02)
    assert wilson(30, 30)[1] == 1.0


def test_markdown_answer_and_plots(study: m.MaugerStudy) -> None:
    answer = study.answer_markdown()
    assert answer.startswith("**Answer (2 random orders of C(T) per cell).**")
    assert "ties of the merge cost" in answer and "What would change this answer" in answer
    # the ablation nearest the paper's levels, and the headline under it, with its interval
    assert "comes closest to its levels" in answer
    assert "NLLM has the best average at k = 1500 in" in answer
    md = study.to_markdown(images={"strip100": "s.svg"})
    # what the runs cost, whatever the load: each run's CPU time, summed
    assert all(r.cpu_seconds > 0 for r in study.runs)
    assert "CPU time of the runs" in md and "No CPU time recorded" not in md
    for title in (
        "### Every claim of the paper, under every order",
        "### Figure 7 (k = 100) under 2 orders",
        "### Ties: how often the order decides",
        "### Figure 9 under every order: minimum k",
        "### Figures 10-13 from the runs",
        "### Ablations",
        "### The paper's own errors",
        "### The group-by order of the codes, cell by cell",
    ):
        assert title in md, title
    assert "![Average alteration at k = 100 under every order](s.svg)" in md
    assert "| no-fusion | 1500 | 1 |" in md and "| age-74 | 1500 | 1 |" in md
    assert " of 1 (" in md  # the Wilson interval of NLLM's best-average share
    plots = study.plots()
    assert {"strip100", "strip1500", "figure9", "Figure 10", "Figure 13"} <= set(plots)
    for svg in plots.values():
        assert ET.fromstring(svg).tag.endswith("svg")


def test_paper_errors_name_the_cost_matrix_cell() -> None:
    assert "row a, columns b and c" in PAPER_ERRORS[0]


def test_write_study_outputs_keeps_the_hand_written_text(
    study: m.MaugerStudy, tmp_path: Path
) -> None:
    page = tmp_path / "mauger2020.md"
    page.write_text(
        "# T\n\n<!-- mauger2020:answer:start -->\nold\n<!-- mauger2020:answer:end -->\n\n"
        "Hand text.\n\n<!-- mauger2020:results:start -->\nold\n"
        "<!-- mauger2020:results:end -->\n",
        encoding="utf-8",
    )
    written = m.write_study_outputs(study, tmp_path)
    text = page.read_text(encoding="utf-8")
    assert "Hand text." in text and "\nold\n" not in text
    assert text.index("**Answer") < text.index("Hand text.") < text.index("### Design and time")
    assert pl.read_csv(written["csv"]).height == len(study.runs)
    assert (tmp_path / "mauger2020_strip1500.svg").exists()
    assert (tmp_path / "mauger2020_figure10.svg").exists()


def test_integer_range_leaves_keep_the_data_span() -> None:
    rows = [[str(a), "young" if a < 3 else "old", "*"] for a in range(6)]
    frame = pl.DataFrame({"age": ["1", "2", "4", "4"]})
    kw = {"k_values": [2], "costs": ["ncp"], "data": frame, "workers": 1}
    full = m.reproduce(**kw, hierarchies={"age": Hierarchy(rows)})  # type: ignore[arg-type]
    cut = m.reproduce(**kw, hierarchies={"age": Hierarchy(rows)}, leaves="range")  # type: ignore[arg-type]
    assert full.hierarchy_shapes == cut.hierarchy_shapes == ((3, 6, 3),)
    codes, hs, _ = _prepare(frame, {"age": Hierarchy(rows)}, "range")
    assert [r[0] for r in hs[0].rows] == ["1", "2", "3", "4"]
    text_rows = [["x", "X", "*"], ["y", "X", "*"]]
    _, hs, _ = _prepare(pl.DataFrame({"q": ["x"]}), {"q": Hierarchy(text_rows)}, "range")
    assert len(hs[0].leaves) == 2  # not integers: unchanged


def test_reproduce_takes_order_seed_and_fusion(sample: pl.DataFrame) -> None:
    kw = {"k_values": [100], "costs": ["total"], "data": sample, "workers": 1}
    a = m.reproduce(**kw, order="random", seed=4)  # type: ignore[arg-type]
    b = m.reproduce(**kw, order="random", seed=4)  # type: ignore[arg-type]
    c = m.reproduce(**kw, order="random", seed=5, fuse=False)  # type: ignore[arg-type]
    assert a.runs[0].alteration == b.runs[0].alteration and a.runs[0].seed == 4
    assert c.runs[0].seed == 5 and c.runs[0].n_fused == 0
    with pytest.raises(ParameterError, match="order"):
        m.reproduce(**kw, order="hash")  # type: ignore[arg-type]
    assert np.isfinite(a.runs[0].tied_share)


def test_an_interrupted_page_write_leaves_the_page_whole(tmp_path: Path) -> None:
    # the answer block was written before the results block was rendered: a Ctrl-C in
    # between left a new answer above the previous run's results
    page = tmp_path / "mauger2020.md"
    old = (
        "# T\n\n<!-- mauger2020:answer:start -->\nold\n<!-- mauger2020:answer:end -->\n\n"
        "<!-- mauger2020:results:start -->\nold\n<!-- mauger2020:results:end -->\n"
    )
    page.write_text(old, encoding="utf-8")

    # and the plots and the CSV were renamed into place before the page was rendered:
    # new figures beside the previous page
    figure = tmp_path / "mauger2020_figure10.svg"
    figure.write_text("<svg>old</svg>", encoding="utf-8")

    class Interrupted:
        def plots(self) -> dict[str, str]:
            return {"Figure 10": "<svg>new</svg>"}

        def to_polars(self) -> pl.DataFrame:
            return pl.DataFrame({"a": [1]})

        def answer_markdown(self) -> str:
            return "NEW ANSWER"

        def to_markdown(self, **kwargs: object) -> str:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        m.write_study_outputs(Interrupted(), tmp_path)  # type: ignore[arg-type]
    assert page.read_text(encoding="utf-8") == old
    assert figure.read_text(encoding="utf-8") == "<svg>old</svg>"
    assert sorted(p.name for p in tmp_path.iterdir()) == [page.name, figure.name]
