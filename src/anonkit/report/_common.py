"""Pieces shared by the HTML reports: the stylesheet, number formatting, cards, tables.

Every helper escapes the text it is given; callers pass plain strings, never markup,
except through the ``raw`` cells of :func:`table` (already-escaped HTML such as an SVG).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Sequence
from html import escape
from typing import Any

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;
max-width:60rem;color:#1f2328;line-height:1.45;padding:0 1rem}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;margin-top:2rem;
border-bottom:1px solid #d0d7de;padding-bottom:.2rem}
h3{font-size:1rem;margin:1.2rem 0 .3rem}
.sub{color:#57606a;margin-top:0}.explain{color:#57606a;margin:.2rem 0 .6rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{text-align:left;padding:.3rem .6rem;border-bottom:1px solid #eaeef2;vertical-align:top}
th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums;
white-space:nowrap}td.why{color:#57606a;font-size:.9rem}
.cards{display:flex;flex-wrap:wrap;gap:.8rem}
.card{border:1px solid #d0d7de;border-radius:6px;padding:.6rem 1rem;min-width:9rem}
.card .v{font-size:1.4rem;font-weight:600}.card .l{color:#57606a;font-size:.85rem}
.bar{background:#eaeef2;border-radius:3px;height:1rem;min-width:10rem}
.bar span{display:block;height:100%;background:#2f81f7;border-radius:3px}
.levels{font-family:ui-monospace,monospace}
.ok{color:#1a7f37;font-weight:600}.fail{color:#cf222e;font-weight:600}
figure{margin:1rem 0}figure svg{display:block}
footer{margin-top:2rem;color:#57606a;font-size:.8rem}
"""


def fmt(value: Any) -> str:
    """A number for people: thousands separators, 4 decimals, ``n/a`` for missing values."""
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


def card(label: str, value: Any) -> str:
    """A headline figure."""
    return (
        f'<div class="card"><div class="v">{escape(fmt(value))}</div>'
        f'<div class="l">{escape(label)}</div></div>'
    )


def table(
    header: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    numeric: Sequence[int] = (),
    explain: Sequence[int] = (),
) -> str:
    """An HTML table; cells are escaped (numbers formatted with :func:`fmt`).

    ``numeric`` columns are right-aligned, ``explain`` columns muted.
    """
    out = ["<table><tr>", *(f"<th>{escape(h)}</th>" for h in header), "</tr>"]
    for row in rows:
        out.append("<tr>")
        for j, cell in enumerate(row):
            cls = ' class="num"' if j in numeric else (' class="why"' if j in explain else "")
            out.append(f"<td{cls}>{escape(fmt(cell))}</td>")
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def page_head(title: str) -> list[str]:
    """The opening of a self-contained page (inline style, no external resources)."""
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
    ]


def stamp() -> str:
    """The current time, for footers."""
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
