"""Small pieces of page the steps render: error boxes, tables, cards, progress bar.

None of them reads the session's state: each turns plain values (library results, rows
of :mod:`anonkit.app.results`) into Shiny tags.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import polars as pl
from shiny import ui

from anonkit.app import workflow
from anonkit.app.guard import what_failed
from anonkit.app.results import Alternative
from anonkit.core.resolve import FILE
from anonkit.exceptions import AnonkitError, InputEncodingError
from anonkit.result import AnonymizationResult

__all__ = [
    "ALTERNATIVE_COLUMNS",
    "ERRORS",
    "ROLE_LABELS",
    "alternative_figures",
    "alternative_label",
    "alternative_rows",
    "cell",
    "describe_spec",
    "error_box",
    "frame_table",
    "progress_bar",
    "stale_box",
    "summary_cards",
    "table",
]

#: The errors shown in the page as their message (the library's messages name the fix).
ERRORS: Final = (AnonkitError, OSError, ValueError, TypeError)
ROLE_LABELS: Final = {
    "quasi_identifier": "quasi-identifier (generalize)",
    "identifying": "identifying (remove)",
    "sensitive": "sensitive (keep, protect)",
    "insensitive": "insensitive (keep)",
}
ALTERNATIVE_COLUMNS: Final = (
    "node",
    "levels",
    "cost",
    "suppressed",
    "classes",
    "highest risk",
    "average risk",
)


def error_box(
    err: BaseException | str | None, *, renamed: Mapping[str, str] | None = None
) -> ui.Tag | None:
    """An error message in red: the library's message (which names what to fix), a file
    error's, or one anonkit's own code raised; an error raised inside another library
    (numpy's "could not convert string to float: '…'") by its type only, as its message
    can quote a cell (:func:`~anonkit.app.guard.what_failed`).

    ``renamed`` maps paths to the names shown instead (an upload's temporary copy to the
    name of the file the user chose)."""
    if err is None:
        return None
    text = err if isinstance(err, str) else _shown(err)
    names = renamed or {}
    for path in sorted(names, key=len, reverse=True):  # a longer path before its prefix
        text = text.replace(path, names[path])
    return ui.div(text, class_="alert alert-danger py-1 my-2 app-error", role="alert")


def _shown(err: BaseException) -> str:
    if isinstance(err, InputEncodingError) and not err.hierarchy:  # the page's own field
        return (
            f"Cannot read {err.path}: {err.problem}; if the file uses another encoding, "
            f"type it in the Encoding field and load again ({err.suggested}, for instance)."
        )
    if isinstance(err, (AnonkitError, OSError)):
        return str(err)
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    module = "anonkit" if tb is None else str(tb.tb_frame.f_globals.get("__name__", ""))
    if module.split(".")[0] == "anonkit":
        return str(err)
    return what_failed("This step", err)


def stale_box(note: str | None, *, id: str) -> ui.Tag | None:  # noqa: A002
    """A warning that the run shown is not the one the pages now describe (``note``
    says why); nothing when ``note`` is ``None``."""
    if note is None:
        return None
    return ui.div(note, class_="alert alert-warning app-stale", id=id, role="status")


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], **attrs: Any) -> ui.Tag:
    """An HTML table of ``rows`` (dicts) with the given columns."""
    head = ui.tags.thead(ui.tags.tr(*(ui.tags.th(c) for c in columns)))
    body = ui.tags.tbody(
        *(ui.tags.tr(*(ui.tags.td(cell(row.get(c))) for c in columns)) for row in rows)
    )
    return ui.tags.table(head, body, class_="table table-sm table-striped", **attrs)


def frame_table(frame: pl.DataFrame, **attrs: Any) -> ui.Tag:
    """An HTML table of a (small) polars frame."""
    return table(frame.to_dicts(), frame.columns, **attrs)


def cell(value: Any) -> str:
    """A table cell: floats with 4 significant digits, None as a dash."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def describe_spec(spec: Any) -> str:
    """One line describing a hierarchy choice."""
    if spec is None:
        return "none: kept or suppressed"
    if isinstance(spec, Mapping) and spec.get("type") == FILE:
        return f"file {Path(str(spec['path'])).name} ({spec.get('encoding', 'utf-8')})"
    if isinstance(spec, Mapping):
        params = workflow.builder_text(spec)
        return f"{spec.get('type')}" + (f" ({params})" if params else "")
    return f"file {Path(str(spec)).name}"


def progress_bar(stage: str, share: float, done: int, total: int) -> ui.Tag:
    """A Bootstrap progress bar with the stage name."""
    counted = f" ({done:,} / {total:,})" if total else ""
    return ui.div(
        ui.p(f"{stage}{counted}", id="run-stage"),
        ui.div(
            ui.div(
                class_="progress-bar progress-bar-striped progress-bar-animated",
                role="progressbar",
                style=f"width: {max(share, 0.02):.0%}",
            ),
            class_="progress",
        ),
    )


def summary_cards(result: AnonymizationResult, seconds: float, *, id: str) -> ui.Tag:  # noqa: A002
    """The run's headline figures (no record), in an element with the given ``id``."""
    items = [
        ("records", f"{result.n_records:,}"),
        ("achieved k (smallest group)", f"{result.classes.min_size:,}"),
        ("groups", f"{result.classes.n_classes:,}"),
        ("suppressed", f"{result.suppressed:,} ({result.suppressed_share:.2%})"),
        ("verified", "yes" if result.verified else "NO"),
        ("time", f"{seconds:.2f} s"),
    ]
    levels = ", ".join(f"{c} {lv}" for c, lv in result.transformation.items())
    return ui.div(
        ui.layout_columns(*(ui.value_box(title, value) for title, value in items), col_widths=2),
        ui.p(f"{result.algorithm}; levels: {levels or '(local recoding)'}"),
        id=id,
    )


def alternative_label(alt: Alternative) -> str:
    """A node in the selector: its levels, whether it was chosen, its cost."""
    levels = "/".join(str(v) for v in alt.levels.values())
    return f"{levels}{' (chosen)' if alt.chosen else ''}: cost {alt.cost:.4g}"


def alternative_rows(alts: Sequence[Alternative]) -> list[dict[str, Any]]:
    """One row per node of the alternatives table."""
    return [
        {
            "node": "chosen" if a.chosen else str(i),
            "levels": ", ".join(f"{c} {v}" for c, v in a.levels.items()),
            "cost": a.cost,
            "suppressed": a.suppressed,
            "classes": a.classes,
            "highest risk": a.risk.get("prosecutor_max"),
            "average risk": a.risk.get("prosecutor_average"),
        }
        for i, a in enumerate(alts)
    ]


def alternative_figures(alt: Alternative) -> list[dict[str, Any]]:
    """One node's figures: levels, cost, suppressed records, classes and risk."""
    rows: list[dict[str, Any]] = [
        {"figure": f"level of {c}", "value": v} for c, v in alt.levels.items()
    ]
    rows += [
        {"figure": "cost (the search's metric)", "value": alt.cost},
        {"figure": "records suppressed", "value": alt.suppressed},
        {"figure": "classes", "value": alt.classes},
        {"figure": "highest prosecutor risk", "value": alt.risk.get("prosecutor_max")},
        {"figure": "average prosecutor risk", "value": alt.risk.get("prosecutor_average")},
        {"figure": "records at risk", "value": alt.risk.get("records_at_risk")},
    ]
    return rows
