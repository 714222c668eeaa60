"""The study's HTML report and its SVG plots: sections, valid inline SVG, nothing external."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from anonkit.exceptions import ParameterError
from anonkit.study.plots import (
    Reference,
    Series,
    accuracy_vs_k_svgs,
    line_chart_svg,
    metric_vs_accuracy_svg,
    metric_vs_k_svg,
    scatter_svg,
)
from anonkit.study.report import SECTIONS, render_study_report, write_study_report

SRC = Path(__file__).resolve().parents[2] / "src"
KS = (2, 10, 100, 1000, 10000)
CELLS = ("flash:loss", "mondrian:strict", "greedy_merge:<b>nllm</b>")
CLASSIFIERS = ("logistic_regression", "random_forest")


def study(*, folds: int = 1, failed: bool = True) -> pl.DataFrame:
    """A small tidy frame: 5 k × 3 cells × 2 classifiers × 2 evaluations + baselines."""
    rng = np.random.default_rng(0)
    rows: list[dict[str, object]] = []
    for fold in range(folds):
        for c in CLASSIFIERS:
            rows.append(
                {"fold": fold, "k": 1, "algorithm": "original", "variant": "",
                 "cell": "original", "classifier": c, "evaluation": "original_test",
                 "accuracy": 0.85, "status": "ok"}
            )  # fmt: skip
        rows.append(
            {"fold": fold, "k": 1, "algorithm": "majority", "variant": "", "cell": "majority",
             "classifier": "majority", "evaluation": "original_test", "accuracy": 0.75,
             "status": "ok"}
        )  # fmt: skip
        for ci, cell in enumerate(CELLS):
            algorithm, variant = cell.split(":")
            for k in KS:
                broken = failed and fold == 0 and ci == 0 and k == 10000
                for c in CLASSIFIERS:
                    for evaluation in ("anonymized_test", "original_test"):
                        acc = 0.85 - 0.02 * math.log10(k) * (1 + 0.2 * ci) + rng.normal(0, 0.003)
                        loss = 0.1 * math.log10(k) + 0.05 * ci
                        rows.append(
                            {"fold": fold, "k": k, "algorithm": algorithm, "variant": variant,
                             "cell": cell, "classifier": c, "evaluation": evaluation,
                             "accuracy": math.nan if broken else acc,
                             "accuracy_drop": math.nan if broken else 0.85 - acc,
                             "effective_k": k, "n_classes": 30000 // k,
                             "suppressed_share": 0.0,
                             "loss_loss": math.nan if broken else loss,
                             "loss_discernibility": float(k * 30000),
                             "loss_sse": loss if ci == 2 else math.nan,
                             "alteration_nllm": float(rng.uniform(0, 100)),
                             "seconds_anonymize": 1.0, "seconds_metrics": 0.5,
                             "seconds_utility": 2.0,
                             "status": "error: flash <found> nothing." if broken else "ok"}
                        )  # fmt: skip
    frame = pl.DataFrame(rows, infer_schema_length=None)
    return frame.with_columns(pl.col("accuracy").alias("balanced_accuracy"))


def svgs(page: str) -> list[str]:
    return re.findall(r"<svg\b.*?</svg>", page, re.S)


def assert_valid_svg(svg: str) -> None:
    """Well-formed XML once the namespaces an HTML page implies are declared."""
    declared = svg.replace(
        "<svg",
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"',
        1,
    )
    root = ET.fromstring(declared)
    assert root.tag.endswith("svg")


def assert_offline(text: str) -> None:
    for banned in ("http://", "https://", "<script", "<link", "<iframe", "<img", "src="):
        assert banned not in text, banned
    assert not re.search(r"url\((?!#)", text)  # only references inside the same SVG


@pytest.fixture(scope="module")
def page() -> str:
    return render_study_report(
        study(),
        title="Study <of> Adult",
        config_summary={"dataset": "adult", "k": [2, 10], "classifiers": ("a", "b")},
        timing={"total": 12.5},
    )


# ------------------------------------------------------------------------ report
def test_report_has_every_section_in_order(page: str) -> None:
    positions = [page.find(f"<h2>{title}</h2>") for title in SECTIONS]
    assert all(p > 0 for p in positions), [
        t for t, p in zip(SECTIONS, positions, strict=True) if p < 0
    ]
    assert positions == sorted(positions)
    assert "<h1>Study &lt;of&gt; Adult</h1>" in page
    assert "This report contains no records" in page
    assert "Spearman" in page and "Pearson" in page and "Fisher" in page
    assert "loss_sse" in page and "(partial)" in page  # defined for one cell only
    assert "12.50" in page and "anonymize, core-seconds" in page  # timing
    assert "adult" in page and "2, 10" in page  # settings


def test_report_plots_are_valid_inline_svg(page: str) -> None:
    found = svgs(page)
    # 2 accuracy-vs-k + metrics vs k (loss, discernibility, sse, alteration, effective_k,
    # n_classes) + scatters (the same 6 and k)
    assert len(found) == 2 + 6 + 7
    for svg in found:
        assert_valid_svg(svg)
    assert "Not drawn (constant or undefined over the cells): suppressed_share" in page


def test_report_is_offline_and_escaped(page: str) -> None:
    assert_offline(page)
    assert "<b>nllm</b>" not in page and "&lt;b&gt;nllm&lt;/b&gt;" in page
    assert "<found>" not in page and "error: flash &lt;found&gt; nothing." in page
    assert page.count("<h3>logistic_regression</h3>") >= 3  # accuracy, drop, summary


def test_report_colors_correlations_by_strength(page: str) -> None:
    styles = re.findall(r'style="background:rgba\((\d+),(\d+),(\d+),([\d.]+)\)"', page)
    assert styles
    assert {s[:3] for s in styles} <= {("47", "129", "247"), ("219", "109", "40")}


def test_report_with_folds_says_so() -> None:
    page = render_study_report(study(folds=3, failed=False), max_scatter=2)
    assert "t-interval around their mean" in page and "3 cross-validation folds" in page
    assert "<h2>Failed cells</h2>" not in page
    scatters = [s for s in svgs(page) if "vs accuracy" in s]
    assert len(scatters) == 2


def test_report_of_a_study_where_everything_failed() -> None:
    frame = study().with_columns(
        pl.when(pl.col("algorithm").is_in(["original", "majority"]))
        .then(pl.col("status"))
        .otherwise(pl.lit("error: boom."))
        .alias("status")
    )
    page = render_study_report(frame)
    assert "No metric has a defined correlation" in page
    assert "<h2>Failed cells</h2>" in page


def test_report_parameters() -> None:
    with pytest.raises(ParameterError, match="max_scatter"):
        render_study_report(study(), max_scatter=-1)
    page = render_study_report(study(), max_scatter=0)
    assert not [s for s in svgs(page) if "vs accuracy" in s]


def test_write_study_report(tmp_path: Path) -> None:
    path = tmp_path / "out" / "report.html"
    write_study_report(study(), path, title="T", max_scatter=1)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert [p.name for p in path.parent.iterdir()] == ["report.html"]  # no temp file left


def test_report_charts_need_no_plotting_library(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import raises ImportError
    page = render_study_report(study(), max_scatter=1)
    assert "<title>Accuracy vs k: random_forest</title>" in page
    with pytest.raises(ValueError, match="'matplotlib'"):
        render_study_report(study(), renderer="matplotlib")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'png'"):
        accuracy_vs_k_svgs(study(), renderer="png")  # type: ignore[arg-type]


def test_importing_the_study_report_does_not_import_matplotlib_or_jinja2() -> None:
    code = (
        "import sys, anonkit.study.report, anonkit.study.plots\n"
        "print('matplotlib' in sys.modules, 'jinja2' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60,
        check=True,
    )  # fmt: skip
    assert proc.stdout.strip() == "False False"


# ------------------------------------------------------------------------- plots
def test_line_chart_log_axis_gaps_and_references() -> None:
    svg = line_chart_svg(
        [
            Series("a <x>", (2, 10, 100, 1000, 5000), (0.8, 0.79, math.nan, 0.7, 0.6)),
            Series("b", (), ()),
        ],
        title="T & U",
        xlabel="k",
        ylabel="accuracy",
        log_x=True,
        references=[Reference("original", 0.85), Reference("broken", math.nan)],
    )
    assert_valid_svg(svg)
    assert svg.count("<polyline") == 1 + 2  # the axes, then the two runs around the gap
    assert '<polyline points="' in svg and 'stroke-dasharray="5 3"' in svg
    assert ">1,000<" in svg and ">10<" in svg and ">100<" in svg  # decade ticks
    assert "a &lt;x&gt;" in svg and "T &amp; U" in svg
    assert "broken" not in svg  # a NaN reference is not drawn


def test_scatter_and_constant_values() -> None:
    svg = scatter_svg([Series("rf", (0.5, 0.5), (0.8, 0.8))], title="c", xlabel="x", ylabel="y")
    assert_valid_svg(svg)
    assert svg.count("<circle") == 3
    many = [Series(f"s{i}", (1.0, 2.0), (float(i), i + 1.0)) for i in range(12)]
    dashed = line_chart_svg(many, title="m", xlabel="x", ylabel="y")
    assert 'stroke-dasharray="6 3"' in dashed  # past the palette
    with pytest.raises(ValueError):
        Series("bad", (1.0,), ())


def test_study_plots() -> None:
    frame = study()
    charts = accuracy_vs_k_svgs(frame)
    assert [name for name, _ in charts] == list(CLASSIFIERS)
    assert "original data" in charts[0][1] and "majority class" in charts[0][1]
    assert metric_vs_k_svg(frame, "suppressed_share") is None  # constant
    assert metric_vs_k_svg(frame, "missing") is None
    line = metric_vs_k_svg(frame, "loss_loss")
    assert line is not None and "Generalized information loss" in line
    cloud = metric_vs_accuracy_svg(frame, "loss_discernibility", rho=-0.5)
    assert cloud is not None and "(log scale)" in cloud and "ρ = -0.50" in cloud
    k_cloud = metric_vs_accuracy_svg(frame, "k")
    assert k_cloud is not None
    points = len(CELLS) * len(KS) - 1  # one failed run
    assert k_cloud.count("<circle") == len(CLASSIFIERS) * (points + 1)  # + legend marker
