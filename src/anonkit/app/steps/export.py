"""Step 7, Export: the release (CSV, Parquet), the TOML configuration that reproduces it
with ``anonkit anonymize`` and the HTML report."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from shiny import Inputs, Outputs, render, ui

from anonkit.app import export, results
from anonkit.app.guard import NotReadyError, guard, guard_download
from anonkit.app.state import AppState
from anonkit.app.steps.run import changed_since
from anonkit.app.widgets import ERRORS, error_box, stale_box

__all__ = ["wire"]


def wire(input: Inputs, output: Outputs, state: AppState) -> None:  # noqa: A002
    """Wire the Export page (reads ``state.outcome`` and the choices it was run with)."""

    def finished() -> tuple[results.RunOutcome, results.RunChoices]:
        """The last run, if the pages still describe it: its release, TOML and report
        are then one run's."""
        done = state.outcome()
        if done is None or done.choices is None:
            raise NotReadyError("Run the anonymization first.")
        note = changed_since(state, done.choices)
        if note is not None:
            raise NotReadyError(note)
        return done, done.choices

    def release_name(ext: str) -> str:
        """``<data>.anonymized.<ext>``, ``<data>`` the table's whole name without its
        extension (the bundled Adult's file name, without the page's " (bundled)");
        never raises (Shiny asks for it outside the download's guard, before the
        download runs)."""
        done = state.outcome()
        if done is None or done.choices is None:
            return f"release.anonymized.{ext}"
        table = done.choices.table
        name = table.path.name if table.bundled else table.name
        return f"{Path(name).stem}.anonymized.{ext}"

    def config_text() -> str:
        _, chosen = finished()
        table = chosen.table
        s = chosen.settings
        renamed = {**state.renamed(), **({str(table.path): table.name} if table.uploaded else {})}
        population = chosen.population
        if population is not None and population.uploaded:
            renamed[str(population.path)] = population.name
        return export.config_toml(
            input=table.path,
            read=table.read,
            roles=chosen.roles,
            hierarchies=chosen.specs,
            k=s.k,
            suppression_limit=s.suppression_limit,
            models=[(m.name, m.params) for m in s.models],
            algorithm=chosen.algorithm,
            metric=s.metric,
            output=input.output_name() or release_name("csv"),
            renamed=renamed,
            options=s.options,
            numeric=s.numeric,
            population=None if population is None else population.path,
        )

    def read_by_run() -> list[Any]:
        """The files the run read (the table, hierarchy files, the population): an
        export is never written over one of them."""
        _, chosen = finished()
        population = chosen.population
        return [
            chosen.table.path,
            *chosen.specs.values(),
            None if population is None else population.path,
        ]

    def write(name: str, writer: Callable[[Path], object]) -> str:
        """Write the export ``name`` in the session's folder (atomically, see
        :mod:`anonkit.app.export`); its path, which Shiny sends."""
        target = state.workdir / "exports" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        writer(target)
        return str(target)

    @render.download(filename=lambda: release_name("csv"))
    @guard_download("Writing the release (CSV)")
    def download_csv() -> str:
        done, chosen = finished()
        sep = chosen.table.read.separator
        return write(
            release_name("csv"),
            lambda p: export.write_release(done.result, p, separator=sep, inputs=read_by_run()),
        )

    @render.download(filename=lambda: release_name("parquet"))
    @guard_download("Writing the release (Parquet)")
    def download_parquet() -> str:
        done, _ = finished()
        return write(
            release_name("parquet"),
            lambda p: export.write_release(done.result, p, separator=None, inputs=read_by_run()),
        )

    @render.download(filename="anonkit-config.toml")
    @guard_download("Writing the configuration")
    def download_toml() -> str:
        text = config_text()
        return write(
            "anonkit-config.toml", lambda p: export.write_text(p, text, inputs=read_by_run())
        )

    @render.download(filename="anonkit-report.html")
    @guard_download("Writing the report")
    def download_report() -> str:
        done, chosen = finished()
        text = export.report_html(
            done.result,
            title=f"Anonymization of {chosen.table.name}",
            settings={"input": chosen.table.name, "algorithm": chosen.algorithm},
            heights=chosen.heights,
            risk=done.risk,
            population=chosen.population,
        )
        return write(
            "anonkit-report.html", lambda p: export.write_text(p, text, inputs=read_by_run())
        )

    @output(suspend_when_hidden=False)  # ready before its page opens
    @render.ui
    @guard("Writing the configuration")
    def export_state() -> ui.TagChild:
        done = state.outcome()
        if done is None:
            return ui.p("Run the anonymization first.", class_="text-muted")
        note = changed_since(state, done.choices)
        if note is not None:
            return stale_box(note, id="export-stale")
        try:
            return ui.tags.pre(config_text(), id="toml-preview")
        except ERRORS as err:
            return error_box(err)
