"""Pieces shared by the HTML reports: number formatting, the time stamp and the templates.

Every page is a jinja2 template under ``templates/`` (``base.html.j2`` holds the head and
the stylesheet, one template per page extends it), rendered with autoescaping on and
``StrictUndefined``: a value reaches the page escaped unless the template marks it
``|safe`` (only the inline SVG charts of :mod:`anonkit.report.plots`, which escape their
own text), and a name the template uses but the caller did not pass is an error.

jinja2 is imported when the first page is rendered, not with this module, so that
``import anonkit`` and the CLI start without it.
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

__all__ = ["environment", "fmt", "render", "stamp"]


def fmt(value: Any) -> str:
    """A number for people: thousands separators, 4 decimals, ``n/a`` for missing values.

    Examples
    --------
    >>> fmt(1234567), fmt(0.5), fmt(float("nan")), fmt(True), fmt("x")
    ('1,234,567', '0.5000', 'n/a', 'yes', 'x')
    """
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "n/a"
        if math.isinf(value):
            return "∞" if value > 0 else "-∞"
        if value == int(value) and abs(value) < 1e15:
            return f"{int(value):,}"
        return f"{value:,.4f}" if abs(value) < 1e6 else f"{value:,.4g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def stamp() -> str:
    """The current time, for footers."""
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


@functools.cache
def environment() -> jinja2.Environment:
    """The template environment of the reports (built once): the package's ``templates``
    folder, autoescaping on, undefined names an error, and the :func:`fmt` filter."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("anonkit.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["fmt"] = fmt
    return env


def render(template: str, /, **context: Any) -> str:
    """Render the named template of ``templates/`` with ``context`` (and ``generated``,
    the time stamp of the footer, unless given)."""
    context.setdefault("generated", stamp())
    return environment().get_template(template).render(**context)
