"""Human-readable reports (self-contained HTML) and the figures they show.

* :func:`render_html` summarizes an anonymization result;
* :func:`render_evaluation_html` is the steward's report on any release (an
  :class:`~anonkit.evaluate.Evaluation` with achieved privacy levels, risk, loss, plots);
* :mod:`anonkit.metrics.levels` measures achieved privacy levels of a released table;
* :mod:`anonkit.report.plots` draws bar charts as inline SVG (no plotting library);
* the pages are jinja2 templates in ``templates/`` (autoescaped; see ``_common``).
"""

from anonkit.metrics.levels import check_models, privacy_levels, released_classes
from anonkit.report.evaluation import render_evaluation_html, write_evaluation_html
from anonkit.report.html import METRIC_EXPLANATIONS, render_html, write_html

__all__ = [
    "METRIC_EXPLANATIONS",
    "check_models",
    "privacy_levels",
    "released_classes",
    "render_evaluation_html",
    "render_html",
    "write_evaluation_html",
    "write_html",
]
