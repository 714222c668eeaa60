"""Step 6, Explore: the chosen transformation and its alternatives, class sizes,
distributions before and after, risk and information loss."""

from __future__ import annotations

import polars as pl
from shiny import Inputs, Outputs, reactive, render, ui

from anonkit.app import results
from anonkit.app.guard import guard
from anonkit.app.state import AppState
from anonkit.app.steps.run import changed_since
from anonkit.app.widgets import (
    ALTERNATIVE_COLUMNS,
    alternative_figures,
    alternative_label,
    alternative_rows,
    stale_box,
    summary_cards,
    table,
)

__all__ = ["wire"]

_INFO_COLUMNS = ["figure", "value", "better", "meaning"]


def wire(input: Inputs, output: Outputs, state: AppState) -> None:  # noqa: A002
    """Wire the Explore page (reads ``state.outcome``)."""

    @reactive.calc
    def alternatives() -> list[results.Alternative]:
        done = state.outcome()
        return list(done.alternatives) if done is not None else []

    @output(suspend_when_hidden=False)  # ready before its page opens
    @render.ui
    @guard("Drawing the Explore page")
    def explore() -> ui.TagChild:
        done = state.outcome()
        if done is None:
            return ui.p("Run the anonymization first.", class_="text-muted")
        result = done.result
        alts = alternatives()
        choices = {str(i): alternative_label(a) for i, a in enumerate(alts)}
        columns = [c for c in _records(state, done).columns if c in result.release.columns]
        return ui.div(
            ui.output_ui("explore_stale"),  # apart: a setting changed redraws it alone
            *(
                ui.div(note, class_="alert alert-warning", id=f"note-{i}")
                for i, note in enumerate(results.notes(result))
            ),
            summary_cards(result, done.seconds, id="explore-summary"),
            ui.h4("Transformation and alternatives"),
            table(alternative_rows(alts), ALTERNATIVE_COLUMNS, id="alts")
            if alts
            else ui.p("Local recoding: no lattice of alternatives."),
            ui.input_select("alt", "Inspect", choices) if alts else None,
            ui.output_ui("alt_detail"),
            ui.h4("Re-identification risk"),
            table(results.risk_rows(result, done.risk), _INFO_COLUMNS, id="risk"),
            ui.h4("Per-attribute distributions"),
            ui.input_select("dist_column", "Attribute", columns),
            ui.output_ui("distributions"),
            ui.h4("Information loss"),
            table(results.loss_rows(result), _INFO_COLUMNS, id="loss"),
        )

    @output(suspend_when_hidden=False)  # ready before its page opens
    @render.ui
    @guard("Comparing the run with the pages")
    def explore_stale() -> ui.TagChild:
        done = state.outcome()
        return (
            None
            if done is None
            else stale_box(changed_since(state, done.choices), id="explore-stale")
        )

    @output(suspend_when_hidden=False)  # ready before its page opens
    @render.ui
    @guard("Showing the alternative")
    def alt_detail() -> ui.TagChild:
        alts = alternatives()
        done = state.outcome()
        if done is None:
            return None
        if not alts or "alt" not in input or not input.alt():
            return ui.HTML(results.class_size_svg(done.result.classes.histogram))
        chosen = alts[int(input.alt())]
        note = (
            "The chosen transformation (exported)."
            if chosen.chosen
            else "An alternative: inspect only; the export is the chosen transformation, "
            "which the CLI reproduces."
        )
        return ui.div(
            ui.p(note),
            table(alternative_figures(chosen), ["figure", "value"], id="alt-figures"),
            ui.HTML(results.class_size_svg(chosen.histogram, title="Class sizes of this node")),
        )

    @output(suspend_when_hidden=False)  # ready before its page opens
    @render.ui
    @guard("Drawing the distributions")
    def distributions() -> ui.TagChild:
        done = state.outcome()
        if done is None or "dist_column" not in input or not input.dist_column():
            return None
        release = done.result.release
        before, after = results.distribution_svgs(
            _records(state, done), release, input.dist_column()
        )
        return ui.layout_columns(ui.HTML(before), ui.HTML(after))


def _records(state: AppState, done: results.RunOutcome) -> pl.DataFrame:
    """The records the run read (shown also when the table no longer reads)."""
    if done.choices is None:  # an outcome made outside the Run page
        return state.loaded().frame
    return done.choices.table.frame
