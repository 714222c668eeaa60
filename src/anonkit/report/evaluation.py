"""The steward's report: a self-contained HTML page measuring one release.

:func:`render_evaluation_html` turns an :class:`~anonkit.evaluate.Evaluation` (and,
optionally, the achieved privacy levels of :func:`anonkit.report.levels.privacy_levels`
and the checks of requested models) into one HTML file a data steward can hand to a data
protection officer: the dataset and configuration, the achieved privacy levels, the
re-identification risk with its distribution, the class sizes, the loss and generalization
of each attribute and the table of loss metrics, each with a one-line plain-language
explanation. Plots are inline SVG (:mod:`anonkit.report.plots`); the page loads nothing
from anywhere and holds no record, only counts, levels and metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from anonkit.evaluate import Evaluation
from anonkit.io.atomic import atomic_write_text
from anonkit.report._common import card, fmt, page_head, stamp, table
from anonkit.report.levels import PRIVACY_INFO, ModelCheck
from anonkit.report.plots import Engine, bar_chart_svg

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


def _section(title: str, explanation: str) -> str:
    return f'<h2>{escape(title)}</h2><p class="explain">{escape(explanation)}</p>'


def _listed(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) if value else "none"
    return value


def _percent(value: Any) -> str:
    return "n/a" if value is None else f"{fmt(value)} ({value:.2%})"


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
    plots: Engine = "auto",
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
        Achieved privacy levels from :func:`anonkit.report.levels.privacy_levels`
        (default: the k and ℓ-diversity the evaluation measured).
    models
        Results of requested privacy models (:func:`anonkit.report.levels.check_models`).
    transformation, heights
        Generalization level chosen per quasi-identifier and each hierarchy's number of
        levels (from an anonymization), shown next to the per-attribute loss.
    plots
        Plot engine, see :func:`anonkit.report.plots.bar_chart_svg`.

    Examples
    --------
    >>> import polars as pl
    >>> from anonkit.evaluate import evaluate
    >>> original = pl.DataFrame({"age": [21, 23, 35, 38]})
    >>> release = pl.DataFrame({"age": ["[20-30[", "[20-30[", "[30-40[", "[30-40["]})
    >>> ev = evaluate(original, release, quasi_identifiers=["age"], numeric=["age"])
    >>> page = render_evaluation_html(ev, plots="svg")
    >>> page.count("<svg"), "<h2>Achieved privacy</h2>" in page
    (3, True)
    """
    data = evaluation.to_dict()
    dataset = data["dataset"]
    config = data["configuration"]
    classes = data["classes"]
    parts = page_head(title)
    parts.append(
        '<p class="sub">What an attacker could learn from this release and how much '
        "information it lost. This report contains no records, only counts, levels and "
        "metrics.</p>"
    )

    # dataset and configuration
    parts.append(
        _section(
            SECTIONS[0],
            "The release measured against its original table, rows "
            "matched by position, and the settings it was read with.",
        )
    )
    parts.append('<div class="cards">')
    parts.append(card("records", dataset["n_records"]))
    parts.append(card("records released in groups", dataset["n_released"]))
    parts.append(
        card(f"records suppressed ({dataset['suppressed_share']:.2%})", dataset["n_suppressed"])
    )
    parts.append(card("groups (equivalence classes)", classes["n_classes"]))
    parts.append(card("achieved k (smallest group)", data["privacy"].get("achieved_k")))
    parts.append("</div>")
    rows = [[_CONFIG_NAMES.get(k, k), _listed(v)] for k, v in config.items() if v is not None]
    rows += [[str(k), _listed(v)] for k, v in (settings or {}).items()]
    parts.append(table(["Setting", "Value"], rows))

    # achieved privacy
    parts.append(
        _section(
            SECTIONS[1],
            "The strongest guarantee of each privacy model that every "
            "group of released records meets.",
        )
    )
    general, per = _privacy_rows(data, levels)
    parts.append(
        table(["Model", "Achieved", "Meaning", "Source"], general, numeric=[1], explain=[2, 3])
    )
    for name, rows in per:
        parts.append(f"<h3>Sensitive attribute {escape(repr(name))}</h3>")
        parts.append(
            table(["Model", "Achieved", "Meaning", "Source"], rows, numeric=[1], explain=[2, 3])
        )
    if models:
        parts.append("<h3>Requested privacy models</h3>")
        parts.append(
            '<p class="explain">Whether every group meets each model asked for; '
            "failing groups would need more generalization or suppression.</p>"
        )
        parts.append(
            "<table><tr><th>Model</th><th>Result</th><th>Failing groups</th>"
            "<th>Their records</th></tr>"
        )
        for check in models:
            verdict = (
                '<span class="ok">met</span>'
                if check.satisfied
                else '<span class="fail">not met</span>'
            )
            parts.append(
                f"<tr><td>{escape(check.model)}</td><td>{verdict}</td>"
                f'<td class="num">{escape(fmt(check.failing_classes))}</td>'
                f'<td class="num">{escape(fmt(check.failing_records))}</td></tr>'
            )
        parts.append("</table>")

    # risk
    parts.append(
        _section(
            SECTIONS[2],
            "How likely an attacker who links the release to other data "
            "is to single out a person (each figure is a probability or a share).",
        )
    )
    parts.append(
        table(
            ["Measure", "Value", "Meaning", "Source"],
            [
                [r["title"], _percent(r["value"]), r["explanation"], r["reference"]]
                for r in data["risk"]
            ],
            numeric=[1],
            explain=[2, 3],
        )
    )
    dist = data["risk_distribution"]
    parts.append("<figure>")
    parts.append(
        bar_chart_svg(
            list(dist),
            list(dist.values()),
            title="Released records by risk",
            xlabel="records",
            engine=plots,
        )
    )
    parts.append(
        '<figcaption class="explain">Released records by their re-identification risk '
        "(1 / the size of their group"
        + (", against the population" if config.get("population_size") else "")
        + "); bars at the top are the most exposed records.</figcaption></figure>"
    )

    # class sizes
    parts.append(
        _section(
            SECTIONS[3],
            "How many groups of released records have each size; "
            "small groups are the easiest to re-identify.",
        )
    )
    hist = classes["histogram"]
    parts.append("<figure>")
    parts.append(
        bar_chart_svg(
            list(hist), list(hist.values()), title="Groups by size", xlabel="groups", engine=plots
        )
    )
    parts.append(
        f'<figcaption class="explain">Largest group {fmt(classes["max_size"])} records, '
        f"mean {classes['mean_size']:,.2f}; {fmt(classes['sample_uniques'])} "
        f"record(s) alone in their group; {fmt(classes['below_k'])} record(s) in groups "
        f"below k={fmt(classes['k'])}.</figcaption></figure>"
    )

    # per attribute
    parts.append(
        _section(
            SECTIONS[4],
            "For each quasi-identifier: how much detail it lost and how "
            "many records were released at each generalization level (0 = original "
            "values, the top level = '*').",
        )
    )
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
    parts.append(table(header, rows, numeric=list(range(first, first + len(_ATTRIBUTE_COLUMNS)))))
    parts.append(
        '<p class="explain">'
        + escape(" ".join(f"{t}: {why}" for _, t, why in _ATTRIBUTE_COLUMNS))
        + "</p>"
    )
    parts.append("<figure>")
    parts.append(
        bar_chart_svg(
            [a["name"] for a in attributes],
            [a.get("generalized_loss") or 0.0 for a in attributes],
            title="Generalized loss per attribute",
            xlabel="loss (0 = exact, 1 = '*')",
            value_format="{:.3f}",
            maximum=1.0,
            engine=plots,
        )
    )
    parts.append("</figure>")

    # loss metrics
    parts.append(
        _section(
            SECTIONS[5],
            "Every information-loss metric of the release; lower is better for all of them.",
        )
    )
    parts.append(
        table(
            ["Metric", "Value", "Range", "Meaning", "Source"],
            [
                [m["title"], m["value"], m["range"], m["explanation"], m["reference"]]
                for m in data["loss"]
            ],
            numeric=[1],
            explain=[3, 4],
        )
    )

    if data["notes"]:
        parts.append(_section(SECTIONS[6], "What could not be measured, and why."))
        parts.append("<ul>" + "".join(f"<li>{escape(n)}</li>" for n in data["notes"]) + "</ul>")

    timing = data.get("timing_seconds", {}).get("total")
    parts.append(
        f"<footer>Generated by anonkit on {escape(stamp())}"
        + (f" in {timing:.2f} s" if isinstance(timing, float) else "")
        + ". This report contains no records.</footer></body></html>"
    )
    return "\n".join(parts) + "\n"


def write_evaluation_html(path: str | Path, text: str) -> None:
    """Write the report atomically."""
    atomic_write_text(Path(path), text)
