"""Human-readable reports of an anonymization (HTML, self-contained)."""

from anonkit.report.html import METRIC_EXPLANATIONS, render_html, write_html

__all__ = ["METRIC_EXPLANATIONS", "render_html", "write_html"]
