"""The report templates: autoescaping on, undefined names an error, every page rendered."""

from __future__ import annotations

import importlib.resources

import jinja2
import polars as pl
import pytest

from anonkit.evaluate import evaluate
from anonkit.report._common import environment, render

PAGES = ("evaluation.html.j2", "run.html.j2", "study.html.j2")
HOSTILE = "<script>alert(1)</script>"


def test_environment_escapes_and_rejects_undefined_names() -> None:
    env = environment()
    assert env.autoescape is True
    assert env.undefined is jinja2.StrictUndefined
    pages = [t for t in env.list_templates() if not t.startswith("_") and t != "base.html.j2"]
    assert sorted(pages) == sorted(PAGES)


@pytest.mark.parametrize("name", ["base.html.j2", *PAGES])
def test_every_template_needs_its_context(name: str) -> None:
    with pytest.raises(jinja2.UndefinedError):
        render(name)


def test_base_template_escapes() -> None:
    page = render("base.html.j2", title=HOSTILE)
    assert HOSTILE not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")


def test_templates_ship_inside_the_package() -> None:
    folder = importlib.resources.files("anonkit.report") / "templates"
    shipped = {p.name for p in folder.iterdir()}
    assert {"base.html.j2", "_macros.html.j2", *PAGES} <= shipped


def test_every_page_escapes_hostile_labels() -> None:
    from anonkit.report.evaluation import render_evaluation_html
    from anonkit.study.report import render_study_report

    original = pl.DataFrame({HOSTILE: [21, 23, 35, 38]})
    release = pl.DataFrame({HOSTILE: ["[20-30[", "[20-30[", "[30-40[", "[30-40["]})
    ev = evaluate(original, release, quasi_identifiers=[HOSTILE], numeric=[HOSTILE])
    study = pl.DataFrame(
        {
            "dataset": [HOSTILE] * 3,
            "fold": [0] * 3,
            "k": [2, 5, 10],
            "algorithm": ["flash"] * 3,
            "cell": [f"flash:{HOSTILE}"] * 3,
            "classifier": [HOSTILE] * 3,
            "evaluation": ["anonymized_test"] * 3,
            "accuracy": [0.84, 0.81, 0.76],
            "loss_ncp": [0.10, 0.22, 0.51],
            "status": ["ok"] * 3,
        }
    )
    pages = [
        render_evaluation_html(ev, title=HOSTILE, settings={HOSTILE: HOSTILE}),
        render_study_report(study, title=HOSTILE, config_summary={HOSTILE: HOSTILE}),
    ]
    for page in pages:
        assert "<script" not in page
        assert "&lt;script&gt;" in page
