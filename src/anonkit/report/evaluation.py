"""The steward's report: a self-contained HTML page measuring one release.

:func:`render_evaluation_html` turns an :class:`~anonkit.evaluate.Evaluation` (and,
optionally, the achieved privacy levels of :func:`anonkit.metrics.levels.privacy_levels`
and the checks of requested models) into one HTML file a data steward can hand to a data
protection officer: the dataset and configuration, the achieved privacy levels, the
re-identification risk with its distribution, the class sizes, the loss and generalization
of each attribute and the table of loss metrics, each with a one-line plain-language
explanation. The page is the template ``templates/evaluation.html.j2``; its plots are
inline SVG (:mod:`anonkit.report.plots`); it loads nothing from anywhere and holds no
record, only counts, levels and metrics.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from anonkit._atomic import atomic_write_text
from anonkit.evaluate import Evaluation
from anonkit.metrics.levels import PRIVACY_INFO, ModelCheck
from anonkit.report._common import fmt, render
from anonkit.report.plots import Renderer, bar_chart_svg, renamed_renderer

__all__ = ["SECTIONS", "render_evaluation_html", "write_evaluation_html"]

#: Section headings of the report, in order (``Notes`` only when there are notes).
SECTIONS = (
    "Dataset and configuration",
    "Achieved privacy",
    "Re-identification risk",
    "Class sizes",
    "Per-attribute loss and generalization",
    "Information-loss metrics",
    "Notes",
)

_ATTRIBUTE_COLUMNS = (
    (
        "generalized_loss",
        "Generalized loss",
        "Iyengar's loss of this attribute: 0 = exact, 1 = '*'.",
    ),
    ("ncp", "NCP", "Normalized certainty penalty of this attribute (Xu et al. 2006)."),
    ("precision_loss", "Precision loss", "Share of the hierarchy climbed, on average."),
    ("suppressed_cells", "Cells '*'", "Cells of this attribute suppressed."),
    ("distinct_labels", "Released values", "Distinct values left in the release."),
)

_CONFIG_NAMES = {
    "quasi_identifiers": "Quasi-identifiers",
    "sensitive": "Sensitive attributes",
    "numeric": "Numeric quasi-identifiers",
    "class_attribute": "Class attribute (for CM)",
    "k": "k (privacy target)",
    "risk_threshold": "Risk threshold",
    "population_size": "Population size",
    "population_model": "Population-uniqueness model",
}


def _listed(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) if value else "none"
    return value


def _percent(value: Any) -> str:
    """A share with four decimals and as a percentage; a share of 1 too (``fmt`` would
    drop its decimals and make it read like a count).

    Examples
    --------
    >>> _percent(1.0), _percent(0.125), _percent(None), _percent(float("nan"))
    ('1.0000 (100.00%)', '0.1250 (12.50%)', 'n/a', 'n/a')
    """
    if value is None or math.isnan(value):
        return "n/a"
    return f"{value:.4f} ({value:.2%})"


def _privacy_rows(
    data: Mapping[str, Any], levels: Mapping[str, Any] | None
) -> tuple[list[list[Any]], list[tuple[str, list[list[Any]]]]]:
    """Table-level rows, and per sensitive attribute its rows."""

    def row(key: str, value: Any, title: str | None = None) -> list[Any]:
        info = PRIVACY_INFO[key]
        return [title or info.title, value, info.explanation, info.reference]

    privacy = data["privacy"]
    general = [row("k", privacy.get("achieved_k"))]
    per: list[tuple[str, list[list[Any]]]] = []
    if levels is None or "sensitive" not in levels:  # what the Evaluation itself measured
        for name, lv in (privacy.get("l_diversity") or {}).items():
            per.append(
                (
                    name,
                    [
                        row("distinct_l", lv.get("distinct_l")),
                        row("entropy_l", lv.get("entropy_l")),
                    ],
                )
            )
        return general, per
    general.append(row("average_risk", levels.get("average_risk")))
    if "k_map" in levels:
        general.append(row("k_map", levels["k_map"]))
        presence = levels["presence"]
        general.append(row("presence", f"{fmt(presence['min'])} to {fmt(presence['max'])}"))
    for name, lv in levels["sensitive"].items():
        rows = [row("distinct_l", lv["distinct_l"]), row("entropy_l", lv["entropy_l"])]
        for ell, c in lv["recursive_c"].items():
            shown = "none" if c is None or c == float("inf") else c
            rows.append(row("recursive_c", shown, f"Recursive (c, ℓ={ell})-diversity"))
        order = lv.get("order", "")
        rows.append(row("t_equal", lv["t_equal"]))
        rows.append(
            row("t_ordered", lv["t_ordered"], f"t-closeness, ordered distance ({order} order)")
        )
        if "t_hierarchical" in lv:
            rows.append(row("t_hierarchical", lv["t_hierarchical"]))
        rows.append(row("delta", lv["delta"]))
        rows.append(row("beta_basic", lv["beta_basic"]))
        enhanced = lv["beta_enhanced"]
        rows.append(
            row(
                "beta_enhanced",
                "none" if enhanced is None or enhanced == float("inf") else enhanced,
            )
        )
        per.append((name, rows))
    return general, per


def _levels_text(levels: Mapping[str, int] | None) -> str:
    if not levels:
        return ""
    return "; ".join(f"level {lv}: {fmt(n)}" for lv, n in levels.items())


def render_evaluation_html(
    evaluation: Evaluation,
    *,
    title: str = "Release evaluation",
    settings: Mapping[str, Any] | None = None,
    levels: Mapping[str, Any] | None = None,
    models: Sequence[ModelCheck] = (),
    transformation: Mapping[str, int] | None = None,
    heights: Mapping[str, int] | None = None,
    renderer: Renderer = "auto",
    plots: Renderer | None = None,
) -> str:
    """The report page as a string.

    Parameters
    ----------
    evaluation
        What :func:`anonkit.evaluate` measured on the release.
    title
        Page heading.
    settings
        More settings to list (name -> value), e.g. file names, the algorithm, the
        requested models; values are shown as text.
    levels
        Achieved privacy levels from :func:`anonkit.metrics.levels.privacy_levels`
        (default: the k and ℓ-diversity the evaluation measured).
    models
        Results of requested privacy models (:func:`anonkit.metrics.levels.check_models`).
    transformation, heights
        Generalization level chosen per quasi-identifier and each hierarchy's number of
        levels (from an anonymization), shown next to the per-attribute loss.
    renderer, plots
        Kept for compatibility: every chart is plain SVG (``"auto"`` or ``"svg"``);
        ``plots`` is the deprecated name of ``renderer``, read by
        :func:`anonkit.report.plots.renamed_renderer`.

    Examples
    --------
    >>> import polars as pl
    >>> from anonkit.evaluate import evaluate
    >>> original = pl.DataFrame({"age": [21, 23, 35, 38]})
    >>> release = pl.DataFrame({"age": ["[20-30[", "[20-30[", "[30-40[", "[30-40["]})
    >>> ev = evaluate(original, release, quasi_identifiers=["age"], numeric=["age"])
    >>> page = render_evaluation_html(ev)
    >>> page.count("<svg"), "<h2>Achieved privacy</h2>" in page
    (3, True)
    """
    renamed_renderer(renderer, plots, old_name="plots", owner="render_evaluation_html")
    data = evaluation.to_dict()
    dataset = data["dataset"]
    config = data["configuration"]
    classes = data["classes"]
    cards = [
        ("records", dataset["n_records"]),
        ("records released in groups", dataset["n_released"]),
        (f"records suppressed ({dataset['suppressed_share']:.2%})", dataset["n_suppressed"]),
        ("groups (equivalence classes)", classes["n_classes"]),
        ("achieved k (smallest group)", data["privacy"].get("achieved_k")),
    ]
    setting_rows = [
        [_CONFIG_NAMES.get(k, k), _listed(v)] for k, v in config.items() if v is not None
    ]
    setting_rows += [[str(k), _listed(v)] for k, v in (settings or {}).items()]
    general, per = _privacy_rows(data, levels)
    dist = data["risk_distribution"]
    hist = classes["histogram"]
    attributes = data["attributes"]
    header = ["Attribute", "Kind"]
    if transformation:
        header.append("Level chosen")
    header += [title_ for _, title_, _ in _ATTRIBUTE_COLUMNS] + ["Records per level"]
    rows = []
    for a in attributes:
        row: list[Any] = [a["name"], a["kind"]]
        if transformation:
            lv = transformation.get(a["name"])
            top = heights.get(a["name"]) if heights else None
            row.append("" if lv is None else (f"{lv} / {top - 1}" if top else str(lv)))
        row += [a.get(key) for key, _, _ in _ATTRIBUTE_COLUMNS]
        row.append(_levels_text(a.get("levels")))
        rows.append(row)
    first = 3 if transformation else 2
    timing = data.get("timing_seconds", {}).get("total")
    return render(
        "evaluation.html.j2",
        title=title,
        sections=SECTIONS,
        cards=cards,
        settings=setting_rows,
        general=general,
        per_sensitive=[(repr(name), rows) for name, rows in per],
        models=list(models),
        risk=[
            [r["title"], _percent(r["value"]), r["explanation"], r["reference"]]
            for r in data["risk"]
        ],
        risk_chart=bar_chart_svg(
            list(dist), list(dist.values()), title="Released records by risk", xlabel="records"
        ),
        # the chart reads population counts only where a population table was measured
        population=any(
            r["name"] == "journalist_max" and r["value"] is not None for r in data["risk"]
        ),
        size_chart=bar_chart_svg(
            list(hist), list(hist.values()), title="Groups by size", xlabel="groups"
        ),
        classes=classes,
        mean_size=f"{classes['mean_size']:,.2f}",
        attribute_header=header,
        attributes=rows,
        attribute_numeric=list(range(first, first + len(_ATTRIBUTE_COLUMNS))),
        attribute_explanation=" ".join(f"{t}: {why}" for _, t, why in _ATTRIBUTE_COLUMNS),
        loss_chart=bar_chart_svg(
            [a["name"] for a in attributes],
            [a.get("generalized_loss") or 0.0 for a in attributes],
            title="Generalized loss per attribute",
            xlabel="loss (0 = exact, 1 = '*')",
            value_format="{:.3f}",
            maximum=1.0,
        ),
        loss=[
            [m["title"], m["value"], m["range"], m["explanation"], m["reference"]]
            for m in data["loss"]
        ],
        notes=data["notes"],
        seconds=timing if isinstance(timing, float) else None,
    )


def write_evaluation_html(path: str | Path, text: str) -> None:
    """Write the report atomically."""
    atomic_write_text(Path(path), text)
