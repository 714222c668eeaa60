"""A self-contained HTML report of an anonymization (no records, no external assets).

:func:`render_html` summarizes an :class:`~anonkit.result.AnonymizationResult` alone (what
the search reports); :func:`anonkit.report.evaluation.render_evaluation_html` is the full
steward's report measured on the release (loss, risk, privacy levels, plots).
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

from anonkit.io.atomic import atomic_write_text
from anonkit.report._common import card as _card
from anonkit.report._common import fmt as _fmt
from anonkit.report._common import page_head, stamp
from anonkit.result import AnonymizationResult

__all__ = ["METRIC_EXPLANATIONS", "render_html", "write_html"]

#: One plain-language line per metric of :attr:`AnonymizationResult.metrics`.
METRIC_EXPLANATIONS: dict[str, str] = {
    "loss": "Generalized information loss: 0 keeps every original value, 1 turns every "
    "value into '*' (lower is better).",
    "height": "Sum of the generalization levels applied to the quasi-identifiers "
    "(0 = nothing generalized; lower is better).",
    "relative_distance": "Generalization levels as a share of each hierarchy's height, "
    "summed over the quasi-identifiers (lower is better).",
    "precision": "One minus Sweeney's precision: the average share of the hierarchies "
    "climbed per value, suppressed values counting fully (lower is better).",
    "precision_score": "Sweeney's precision: 1 means the original values, 0 means "
    "everything generalized to '*' (higher is better).",
    "discernibility": "Each record is charged the size of its group (a suppressed record "
    "the size of the table), summed; smaller groups keep records distinguishable "
    "(lower is better).",
    "average_class_size": "Average group size divided by k; 1 is the smallest possible "
    "(lower is better).",
    "nonuniform_entropy": "Bits of information removed by generalization and suppression "
    "(lower is better).",
}


def render_html(
    result: AnonymizationResult,
    *,
    title: str = "Anonymization report",
    config_summary: Mapping[str, Any] | None = None,
    heights: Mapping[str, int] | None = None,
) -> str:
    """The report page as a string.

    Parameters
    ----------
    result
        What :func:`anonkit.anonymize` returned; its release is never shown.
    title
        Page heading.
    config_summary
        Settings to list (name -> value), e.g. :meth:`AnonymizeConfig.summary`.
    heights
        Number of levels of each quasi-identifier's hierarchy, to show "level / max".
    """
    classes = result.classes
    parts: list[str] = [
        *page_head(title),
        f'<p class="sub">Privacy: {escape("; ".join(result.privacy) or "none")} &middot; '
        f"algorithm {escape(result.algorithm)}, minimizing {escape(result.metric)}</p>",
        '<h2>Summary</h2><div class="cards">',
        _card("records in the input", result.n_records),
        _card("achieved k (smallest group)", classes.min_size),
        _card("equivalence classes", classes.n_classes),
        _card(
            f"records suppressed ({result.suppressed_share:.2%}, limit "
            f"{result.suppression_limit:.2%})",
            result.suppressed,
        ),
        _card("records released in classes", classes.n_records),
        _card("seconds", round(result.timing.get("total", 0.0), 3)),
        "</div>",
    ]

    # privacy models
    parts.append("<h2>Privacy models</h2><ul>")
    parts.extend(f"<li>{escape(p)}</li>" for p in result.privacy)
    parts.append("</ul>")

    # transformation
    parts.append(
        "<h2>Transformation</h2><p>Generalization level chosen for each quasi-identifier "
        "(0 keeps the original values; the top level is '*').</p>"
        "<table><tr><th>Attribute</th><th>Level</th><th>Hierarchy height</th>"
        "<th></th></tr>"
    )
    for column, level in result.transformation.items():
        height = heights.get(column) if heights else None
        top = height - 1 if height else None
        share = level / top if top else (0.0 if level == 0 else 1.0)
        bar = f'<div class="bar"><span style="width:{share * 100:.1f}%"></span></div>'
        parts.append(
            f'<tr><td>{escape(column)}</td><td class="num">{level}'
            f"{'' if top is None else f' / {top}'}</td>"
            f'<td class="num">{"" if height is None else height}</td><td>{bar}</td></tr>'
        )
    parts.append("</table>")
    parts.append(
        f"<p>{result.nodes_evaluated:,} of {result.lattice_size:,} transformations "
        "were evaluated.</p>"
    )

    # histogram
    hist = dict(classes.histogram)
    biggest = max(hist.values(), default=0) or 1
    parts.append(
        "<h2>Class sizes</h2><p>How many equivalence classes (groups of released records "
        "sharing all quasi-identifier values) have each size.</p>"
        "<table><tr><th>Size</th><th>Classes</th><th></th></tr>"
    )
    for label, count in hist.items():
        parts.append(
            f'<tr><td>{escape(label)}</td><td class="num">{count:,}</td>'
            f'<td><div class="bar"><span style="width:{count / biggest * 100:.1f}%">'
            "</span></div></td></tr>"
        )
    parts.append("</table>")
    parts.append(
        f"<p>Largest class: {classes.max_size:,} records; mean size "
        f"{classes.mean_size:,.2f}; sample uniques: {classes.sample_uniques:,}; records in "
        f"classes below k={classes.k}: {classes.below_k:,}.</p>"
    )

    parts.extend(_risk_section(result))

    # metrics
    parts.append(
        "<h2>Information loss</h2><table><tr><th>Metric</th><th>Value</th><th>Meaning</th></tr>"
    )
    for name, value in result.metrics.items():
        marker = " (optimized)" if name == result.metric else ""
        parts.append(
            f'<tr><td>{escape(name)}{marker}</td><td class="num">{escape(_fmt(value))}</td>'
            f"<td>{escape(METRIC_EXPLANATIONS.get(name, ''))}</td></tr>"
        )
    parts.append("</table>")

    if config_summary:
        parts.append("<h2>Settings</h2><table>")
        for key, value in config_summary.items():
            shown = ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else value
            parts.append(f"<tr><th>{escape(str(key))}</th><td>{escape(_fmt(shown))}</td></tr>")
        parts.append("</table>")

    timing = ", ".join(f"{k} {v:.3f} s" for k, v in result.timing.items())
    parts.append(
        f"<footer>Generated by anonkit on {escape(stamp())}. Timing: {escape(timing)}. "
        "This report contains no records.</footer></body></html>"
    )
    return "\n".join(parts) + "\n"


#: The risk figures of :attr:`AnonymizationResult.risk`, with a plain-language line each.
RISK_EXPLANATIONS = {
    "prosecutor_max": (
        "Highest prosecutor risk",
        "Chance of re-identifying a record of the smallest class when the attacker knows "
        "the person is in the release (1 / smallest class size).",
    ),
    "prosecutor_average": (
        "Average prosecutor risk",
        "The same chance averaged over the released records.",
    ),
    "journalist_max": (
        "Highest journalist risk",
        "Chance of re-identifying a person of the population (needs a population table).",
    ),
    "marketer": (
        "Marketer risk",
        "Expected share of records an attacker re-identifies when matching them all.",
    ),
    "sample_uniques": ("Sample uniques", "Released records alone in their class."),
    "records_at_risk": (
        "Records at risk",
        "Share of released records whose prosecutor risk is above the threshold.",
    ),
}


def _risk_section(result: AnonymizationResult) -> list[str]:
    """Re-identification risk, the independent check and the leak check, as HTML."""
    if not result.risk:
        return []
    threshold = result.risk.get("risk_threshold") or 0.2
    parts = [
        "<h2>Re-identification risk</h2><p>What an attacker who links on the "
        "quasi-identifiers could achieve on the released records (suppressed records "
        "carry nothing to link on).</p>"
        "<table><tr><th>Measure</th><th>Value</th><th>Meaning</th></tr>"
    ]
    for key, (name, meaning) in RISK_EXPLANATIONS.items():
        value = result.risk.get(key)
        if key == "records_at_risk":
            meaning = meaning.replace("the threshold", f"{threshold:.0%}")
        if value is None:
            shown = "not measured"
        elif key == "sample_uniques":
            shown = f"{int(value):,}"
        else:
            shown = f"{float(value):.2%}"
        parts.append(
            f'<tr><td>{escape(name)}</td><td class="num">{escape(shown)}</td>'
            f"<td>{escape(meaning)}</td></tr>"
        )
    parts.append("</table>")
    verdict = (
        "The release was re-checked by an independent path (classes recounted from the "
        "released values, every privacy model judged again): it passed."
        if result.verified
        else "The release was not re-checked."
    )
    parts.append(f"<p>{escape(verdict)}</p>")
    warnings = result.checks.get("leak_warnings", ()) if result.checks else ()
    if result.checks and not result.checks.get("leak_check", True):
        parts.append("<p><strong>The leak check was switched off for this run.</strong></p>")
    if warnings:
        parts.append("<h3>Leak check warnings</h3><ul>")
        parts.extend(f"<li>{escape(str(w.get('reason', w)))}</li>" for w in warnings)
        parts.append("</ul>")
    return parts


def write_html(path: str | Path, text: str) -> None:
    """Write the report atomically."""
    atomic_write_text(Path(path), text)
