"""A self-contained HTML report of an anonymization (no records, no external assets).

The page is the template ``templates/run.html.j2``; this module gathers what it shows.

:func:`render_html` summarizes an :class:`~anonkit.result.AnonymizationResult` alone (what
the search reports); :func:`anonkit.report.evaluation.render_evaluation_html` is the full
steward's report measured on the release (loss, risk, privacy levels, plots).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from anonkit._atomic import atomic_write_text
from anonkit.metric_info import percent_label
from anonkit.report._common import render
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
    "discernibility": "Each record is charged the size of its group (a suppressed record, "
    "or one of a group smaller than k, the size of the table), summed; smaller groups keep "
    "records distinguishable (lower is better).",
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
    risk: Mapping[str, float | None] | None = None,
    risk_note: str | None = None,
) -> str:
    """The report page as a string (template ``templates/run.html.j2``).

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
    risk
        Risk figures measured beside the result (keys of :func:`anonkit.verify.release_risk`),
        which replace the result's: ``anonkit app`` measures the journalist risk against
        a population table no model read, and its report shows what its Explore page does.
    risk_note
        A sentence shown under the risk table (what ``risk`` was measured against).
    """
    classes = result.classes
    cards = [
        ("records in the input", result.n_records),
        ("achieved k (smallest group)", classes.min_size),
        ("equivalence classes", classes.n_classes),
        (
            f"records suppressed ({result.suppressed_share:.2%}, limit "
            f"{result.suppression_limit:.2%})",
            result.suppressed,
        ),
        ("records released in classes", classes.n_records),
        ("seconds", round(result.timing.get("total", 0.0), 3)),
    ]
    transformation = []
    for column, level in result.transformation.items():
        height = heights.get(column) if heights else None
        top = height - 1 if height else None
        share = level / top if top else (0.0 if level == 0 else 1.0)
        transformation.append(
            {"column": column, "level": level, "top": top, "height": height, "share": share}
        )
    hist = dict(classes.histogram)
    biggest = max(hist.values(), default=0) or 1
    metrics = [
        [
            name + (" (optimized)" if name == result.metric else ""),
            value,
            METRIC_EXPLANATIONS.get(name, ""),
        ]
        for name, value in result.metrics.items()
    ]
    settings = [
        (str(key), ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else value)
        for key, value in (config_summary or {}).items()
    ]
    return render(
        "run.html.j2",
        title=title,
        privacy=list(result.privacy),
        algorithm=result.algorithm,
        metric=result.metric,
        cards=cards,
        transformation=transformation,
        # a local recoding (Mondrian, greedy merging, microaggregation) searches no
        # lattice: "0 of 0 transformations were evaluated" told nothing
        local=result.family == "local",
        nodes_evaluated=result.nodes_evaluated,
        lattice_size=result.lattice_size,
        search_note=result.search_note,
        histogram=[(label, count, count / biggest) for label, count in hist.items()],
        classes=classes,
        mean_size=f"{classes.mean_size:,.2f}",
        risk=_risk(result, risk, risk_note),
        verified=result.verified,
        metrics=metrics,
        settings=settings,
        timing=", ".join(f"{k} {v:.3f} s" for k, v in result.timing.items()),
    )


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
    "journalist_average": (
        "Average journalist risk",
        "The same chance averaged over the released records (needs a population table).",
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


def _risk(
    result: AnonymizationResult,
    measured: Mapping[str, float | None] | None = None,
    note: str | None = None,
) -> dict[str, Any] | None:
    """Re-identification risk rows (``measured`` over the result's figures), the
    leak-check switch and its warnings (``None`` when no risk was measured)."""
    figures = {**result.risk, **(measured or {})}
    if not figures:
        return None
    threshold = figures.get("risk_threshold") or 0.2
    rows = []
    for key, (name, meaning) in RISK_EXPLANATIONS.items():
        value = figures.get(key)
        if key == "records_at_risk":
            meaning = meaning.replace("the threshold", percent_label(threshold))
        if value is None:
            shown = "not measured"
        elif key == "sample_uniques":
            shown = f"{int(value):,}"
        else:
            shown = f"{float(value):.2%}"
        rows.append([name, shown, meaning])
    checks = result.checks or {}
    return {
        "rows": rows,
        "note": note,
        "leak_check": checks.get("leak_check", True),
        "warnings": [str(w.get("reason", w)) for w in checks.get("leak_warnings", ())],
    }


def write_html(path: str | Path, text: str) -> None:
    """Write the report atomically."""
    atomic_write_text(Path(path), text)
