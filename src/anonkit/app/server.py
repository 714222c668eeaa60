"""The Shiny application of ``anonkit app``: seven pages over the workflow functions.

The page layout is :mod:`anonkit.app.pages`; this module holds the reactive state (the
loaded table, roles, hierarchies, settings and the last run, kept while the user moves
between pages) and wires every input to a function of :mod:`anonkit.app.workflow`,
:mod:`anonkit.app.results` or :mod:`anonkit.app.export`. The run is a Shiny extended task
whose work runs in a worker thread, so the page stays responsive; its progress is polled
from a :class:`~anonkit.app.results.RunProgress`, whose ``cancel`` stops the run.

Errors of the library (:class:`~anonkit.exceptions.AnonkitError`) are shown as their
message next to the field that caused them; nothing about the data is logged.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl
from shiny import App, Inputs, Outputs, Session, reactive, render, ui

from anonkit.app import export, pages, results, workflow
from anonkit.core.resolve import HierarchySpec
from anonkit.exceptions import AnonkitError

__all__ = ["create_app"]

#: Rows of the table preview on the Load page.
PREVIEW_ROWS = 10
_Errors = (AnonkitError, OSError, ValueError, TypeError)


def _error(err: BaseException | str | None) -> ui.Tag | None:
    """An error message in red (the library's message, which names what to fix)."""
    if err is None:
        return None
    return ui.div(str(err), class_="alert alert-danger py-1 my-2 app-error", role="alert")


def _table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], **attrs: Any) -> ui.Tag:
    head = ui.tags.thead(ui.tags.tr(*(ui.tags.th(c) for c in columns)))
    body = ui.tags.tbody(
        *(ui.tags.tr(*(ui.tags.td(pages.cell(row.get(c))) for c in columns)) for row in rows)
    )
    return ui.tags.table(head, body, class_="table table-sm table-striped", **attrs)


def _frame_table(frame: pl.DataFrame, **attrs: Any) -> ui.Tag:
    return _table(frame.to_dicts(), frame.columns, **attrs)


def create_app(data: Path | None = None, *, workdir: Path) -> App:
    """The Shiny app; ``data`` is loaded at start; uploads are copied under ``workdir``."""

    def server(input: Inputs, output: Outputs, session: Session) -> None:  # noqa: A002
        """Every page's outputs render as soon as their inputs change, also while the
        page is hidden, so that moving to a page shows it at once."""
        source: reactive.Value[tuple[str, Path, str] | None] = reactive.value(
            ("path", data, data.name) if data is not None else None
        )
        hier_specs: reactive.Value[dict[str, HierarchySpec]] = reactive.value({})
        renamed: reactive.Value[dict[str, str]] = reactive.value({})
        progress_box: reactive.Value[results.RunProgress | None] = reactive.value(None)
        outcome: reactive.Value[results.RunOutcome | None] = reactive.value(None)
        ran_with: reactive.Value[dict[str, Any] | None] = reactive.value(None)

        def go(step: str) -> None:
            ui.update_navset("step", selected=step)

        # ------------------------------------------------------------------ 1 load
        def take_upload() -> None:
            files = input.upload()
            if files:
                first = files[0]
                target = workdir / "uploads" / Path(first["name"]).name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(first["datapath"], target)
                source.set(("upload", target, Path(first["name"]).name))

        @reactive.effect
        @reactive.event(input.load)
        def _load() -> None:
            kind = input.source()
            if kind == "adult":
                source.set(("adult", Path(), "adult.csv (bundled)"))
            elif kind == "path":
                text = input.path().strip()
                source.set(("path", Path(text).expanduser(), Path(text).name) if text else None)
            else:
                take_upload()

        @reactive.effect
        @reactive.event(input.upload)
        def _uploaded() -> None:
            """A finished upload is loaded at once (the upload runs after the choice)."""
            ui.update_radio_buttons("source", selected="upload")
            take_upload()

        @reactive.calc
        def loaded_or_error() -> workflow.Loaded | BaseException | None:
            chosen = source()
            if chosen is None:
                return None
            kind, path, name = chosen
            strip = {"auto": None, "yes": True, "no": False}[input.strip()]
            try:
                if kind == "adult":
                    return workflow.load_adult()
                return workflow.load_table(
                    path,
                    name=name,
                    separator=input.separator() or None,
                    encoding=input.encoding() or "utf-8",
                    missing=workflow.parse_missing(input.missing()),
                    strip=strip,
                    uploaded=kind == "upload",
                )
            except _Errors as err:
                return err

        @reactive.calc
        def loaded() -> workflow.Loaded:
            value = loaded_or_error()
            if not isinstance(value, workflow.Loaded):
                raise _silent()
            return value

        @render.ui
        def load_error() -> ui.Tag | None:
            value = loaded_or_error()
            return _error(value) if isinstance(value, BaseException) else None

        @render.ui
        def load_summary() -> ui.TagChild:
            value = loaded_or_error()
            if not isinstance(value, workflow.Loaded):
                return ui.p("No table loaded yet.", class_="text-muted")
            read = value.read
            sep = "Parquet" if read.separator is None else f"separator {read.separator!r}"
            detected = f" (detected: {', '.join(read.detected)})" if read.detected else ""
            found = (
                f"; cells {', '.join(repr(t) for t in read.found_missing)} found, kept as values"
                if read.found_missing
                else ""
            )
            return ui.p(
                ui.strong(value.name),
                f": {value.frame.height:,} records, {value.frame.width} columns; {sep}, "
                f"{read.encoding}{detected}{found}.",
                id="load-summary",
            )

        @render.ui
        def preview() -> ui.TagChild:
            return _frame_table(loaded().frame.head(PREVIEW_ROWS), id="preview-table")

        @reactive.effect
        @reactive.event(input.to_roles)
        def _to_roles() -> None:
            go("Roles")

        # ----------------------------------------------------------------- 2 roles
        @reactive.calc
        def starter() -> Any:
            return workflow.propose(loaded())

        @reactive.calc
        def proposed() -> list[dict[str, Any]]:
            return workflow.role_rows(starter())

        @reactive.effect
        def _reset_hierarchies() -> None:
            table = loaded()
            hier_specs.set(workflow.default_hierarchies(table, starter()))
            outcome.set(None)

        @output(suspend_when_hidden=False)  # ready before its page opens
        @render.ui
        def roles_table() -> ui.TagChild:
            rows = proposed()
            body = []
            for i, row in enumerate(rows):
                body.append(
                    ui.tags.tr(
                        ui.tags.td(row["column"], class_="app-column"),
                        ui.tags.td(row["kind"]),
                        ui.tags.td(f"{row['distinct']:,}"),
                        ui.tags.td(f"{row['unique']:.1%}"),
                        ui.tags.td(
                            ui.input_select(
                                f"role_{i}",
                                None,
                                pages.ROLE_LABELS,
                                selected=row["role"],
                                width="17em",
                            )  # fmt: skip
                        ),
                        ui.tags.td(row["why"], class_="small"),
                        id=f"role-row-{i}",
                    )
                )
            head = ui.tags.tr(
                *(ui.tags.th(c) for c in ("column", "type", "distinct", "unique", "role", "why"))
            )
            return ui.tags.table(
                ui.tags.thead(head), ui.tags.tbody(*body), class_="table table-sm", id="roles"
            )

        @reactive.calc
        def roles() -> dict[str, str]:
            out = {}
            for i, row in enumerate(proposed()):
                chosen = input[f"role_{i}"]() if f"role_{i}" in input else None
                out[row["column"]] = chosen or row["role"]
            return out

        @reactive.calc
        def by_role() -> dict[str, list[str]]:
            return workflow.roles_by_kind(roles())

        @reactive.calc
        def leaks_or_error() -> list[Any] | BaseException:
            try:
                return workflow.role_leaks(loaded().frame, roles())
            except _Errors as err:
                return err

        @output(suspend_when_hidden=False)  # ready before its page opens
        @render.ui
        def leaks() -> ui.TagChild:
            found = leaks_or_error()
            if isinstance(found, BaseException):
                return _error(found)
            if not by_role()["quasi_identifier"]:
                return _error("Mark at least one column as a quasi-identifier.")
            if not found:
                return ui.div(
                    "No leaks: no column released as is gives a quasi-identifier away.",
                    class_="alert alert-success py-1",
                    id="no-leaks",
                )
            items = [
                ui.tags.li(
                    leak.reason,
                    class_="text-danger fw-bold" if leak.severity == "error" else "text-warning",
                )
                for leak in found
            ]
            return ui.div(ui.tags.ul(*items), id="leak-list")

        @output(suspend_when_hidden=False)  # ready before its page opens
        @render.ui
        def leak_marks() -> ui.TagChild:
            """Red column names for the columns whose leaks stop the run."""
            found = leaks_or_error()
            if isinstance(found, BaseException):
                return None
            bad = {leak.column for leak in workflow.blocking_leaks(found)}
            rows = [
                f"#role-row-{i} .app-column"
                for i, row in enumerate(proposed())
                if row["column"] in bad
            ]
            if not rows:
                return None
            return ui.tags.style(", ".join(rows) + " { color: #c00; font-weight: bold; }")

        def roles_ready() -> bool:
            found = leaks_or_error()
            return (
                not isinstance(found, BaseException)
                and not workflow.blocking_leaks(found)
                and bool(by_role()["quasi_identifier"])
            )

        @reactive.effect
        @reactive.event(input.to_hierarchies)
        def _to_hierarchies() -> None:
            if roles_ready():
                go("Hierarchies")

        # ----------------------------------------------------------- 3 hierarchies
        @output(suspend_when_hidden=False)  # ready before its page opens
        @render.ui
        def hier_gate() -> ui.TagChild:
            if not roles_ready():
                return _error("Resolve the leaks and choose quasi-identifiers on Roles first.")
            qi = by_role()["quasi_identifier"]
            return ui.input_select("h_column", "Quasi-identifier", qi, selected=qi[0])

        def spec_of(column: str) -> HierarchySpec | None:
            return hier_specs().get(column)

        @reactive.effect
        @reactive.event(input.h_column)
        def _show_spec() -> None:
            spec = spec_of(input.h_column())
            if isinstance(spec, Mapping):
                ui.update_select("h_type", selected=str(spec.get("type", "suppression")))
                ui.update_text("h_params", value=workflow.builder_text(spec))
            elif spec is not None:
                ui.update_select("h_type", selected="file")
                ui.update_text("h_path", value=str(spec))
            else:
                ui.update_select("h_type", selected="suppression")
                ui.update_text("h_params", value="")

        @reactive.effect
        @reactive.event(input.h_upload)
        def _hier_upload() -> None:
            files = input.h_upload()
            if files:
                first = files[0]
                target = workdir / "hierarchies" / Path(first["name"]).name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(first["datapath"], target)
                renamed.set({**renamed(), str(target): Path(first["name"]).name})
                ui.update_text("h_path", value=str(target))

        hier_message: reactive.Value[ui.TagChild] = reactive.value(None)

        @reactive.effect
        @reactive.event(input.h_apply)
        def _apply_spec() -> None:
            column = input.h_column() if "h_column" in input else None
            if not column:
                return
            kind = input.h_type()
            try:
                spec: HierarchySpec
                if kind == "file":
                    if not input.h_path().strip():
                        raise ValueError("Give the path of a hierarchy file, or upload one.")
                    spec = Path(input.h_path().strip()).expanduser()
                else:
                    spec = workflow.parse_builder(kind, input.h_params())
                workflow.hierarchy_preview(loaded().frame, column, spec, rows=0)
            except _Errors as err:
                hier_message.set(_error(err))
                return
            hier_message.set(None)
            hier_specs.set({**hier_specs(), column: spec})

        @reactive.effect
        @reactive.event(input.h_column)
        def _clear_message() -> None:
            hier_message.set(None)

        @render.ui
        def hier_error() -> ui.TagChild:
            return hier_message()

        @output(suspend_when_hidden=False)  # ready before its page opens
        @render.ui
        def hier_preview() -> ui.TagChild:
            if "h_column" not in input or not input.h_column() or not roles_ready():
                return None
            column = input.h_column()
            try:
                hierarchy, frame = workflow.hierarchy_preview(
                    loaded().frame, column, spec_of(column)
                )
            except _Errors as err:
                return _error(err)
            return ui.div(
                ui.p(
                    f"{column}: {pages.describe_spec(spec_of(column))}, {hierarchy.height} "
                    "levels; the most frequent values at each level:"
                ),
                _frame_table(frame, id="hier-preview-table"),
            )

        @output(suspend_when_hidden=False)  # ready before its page opens
        @render.ui
        def hier_summary() -> ui.TagChild:
            if not roles_ready():
                return None
            rows = []
            for column in by_role()["quasi_identifier"]:
                spec = spec_of(column)
                rows.append({"quasi-identifier": column, "hierarchy": pages.describe_spec(spec)})
            return _table(rows, ["quasi-identifier", "hierarchy"], id="hier-summary")

        # -------------------------------------------------------------- 4 privacy
        @reactive.calc
        def settings_or_error() -> workflow.Settings | BaseException:
            try:
                return pages.settings_from(input, by_role())
            except _Errors as err:
                return err

        @output(suspend_when_hidden=False)  # ready before its page opens
        @render.ui
        def privacy_attrs() -> ui.TagChild:
            sensitive = by_role()["sensitive"] or ["(no sensitive column)"]
            return ui.input_select("model_attribute", "Sensitive attribute", sensitive)

        @render.ui
        def settings_error() -> ui.TagChild:
            found = settings_or_error()
            if isinstance(found, BaseException):
                return _error(found)
            try:
                found.check()
            except _Errors as err:
                return _error(err)
            return None

        # ------------------------------------------------------------------ 5 run
        @ui.bind_task_button(button_id="run")
        @reactive.extended_task
        async def run_task(
            request: results.RunRequest, progress: results.RunProgress
        ) -> results.RunOutcome:
            return await asyncio.to_thread(results.run, request, progress)

        @reactive.effect
        @reactive.event(input.run)
        def _run() -> None:
            try:
                request, chosen = run_request()
            except _Errors as err:
                run_message.set(_error(err))
                return
            progress = results.RunProgress()
            progress_box.set(progress)
            ran_with.set(chosen)
            run_message.set(None)
            run_task(request, progress)

        run_message: reactive.Value[ui.TagChild] = reactive.value(None)

        def run_request() -> tuple[results.RunRequest, dict[str, Any]]:
            if not roles_ready():
                raise ValueError("Resolve the leaks on Roles before running.")
            found = settings_or_error()
            if isinstance(found, BaseException):
                raise found
            models = found.check()
            qi = by_role()["quasi_identifier"]
            specs = {c: s for c, s in hier_specs().items() if c in qi}
            frame = loaded().frame
            heights = [
                workflow.hierarchy_preview(frame, c, specs.get(c), rows=0)[0].height for c in qi
            ]
            algorithm = workflow.resolve_algorithm(found.algorithm, heights)
            keywords = results.anonymizer_keywords(
                by_role(), specs, k=found.k, models=models,
                suppression_limit=found.suppression_limit, algorithm=algorithm,
                metric=found.metric, options=found.options,
            )  # fmt: skip
            chosen = {
                "settings": found,
                "algorithm": algorithm,
                "specs": specs,
                "roles": by_role(),
                "heights": dict(zip(qi, heights, strict=True)),
            }
            return results.RunRequest(frame, keywords), chosen

        @reactive.effect
        @reactive.event(input.cancel)
        def _cancel() -> None:
            progress = progress_box()
            if progress is not None:
                progress.cancel()

        @reactive.effect
        def _finished() -> None:
            status = run_task.status()
            if status == "success":
                outcome.set(run_task.result())
            elif status == "error":
                with reactive.isolate():
                    progress = progress_box()
                cancelled = progress is not None and progress.cancelled
                run_message.set(
                    ui.div("The run was cancelled.", class_="alert alert-warning", id="cancelled")
                    if cancelled
                    else _error(_task_error(run_task))
                )

        @render.ui
        def run_status() -> ui.TagChild:
            status = run_task.status()
            progress = progress_box()
            if status == "running" and progress is not None:
                reactive.invalidate_later(0.25)
                stage, done, total = progress.snapshot()
                share = done / total if total else 0.0
                return pages.progress_bar(stage, share, done, total)
            message = run_message()
            if message is not None:
                return message
            result = outcome()
            if result is not None:
                return pages.summary_cards(result.result, result.seconds, id="summary")
            return ui.p("Not run yet.", class_="text-muted")

        # -------------------------------------------------------------- 6 explore
        @reactive.calc
        def alternatives() -> list[results.Alternative]:
            done = outcome()
            return list(done.alternatives) if done is not None else []

        @output(suspend_when_hidden=False)  # ready before its page opens
        @render.ui
        def explore() -> ui.TagChild:
            done = outcome()
            if done is None:
                return ui.p("Run the anonymization first.", class_="text-muted")
            result = done.result
            alts = alternatives()
            choices = {str(i): pages.alternative_label(a) for i, a in enumerate(alts)}
            columns = [c for c in loaded().frame.columns if c in result.release.columns]
            return ui.div(
                pages.summary_cards(result, done.seconds, id="explore-summary"),
                ui.h4("Transformation and alternatives"),
                _table(pages.alternative_rows(alts), pages.ALTERNATIVE_COLUMNS, id="alts")
                if alts
                else ui.p("Local recoding: no lattice of alternatives."),
                ui.input_select("alt", "Inspect", choices) if alts else None,
                ui.output_ui("alt_detail"),
                ui.h4("Re-identification risk"),
                _table(
                    results.risk_rows(result), ["figure", "value", "better", "meaning"], id="risk"
                ),  # fmt: skip
                ui.h4("Per-attribute distributions"),
                ui.input_select("dist_column", "Attribute", columns),
                ui.output_ui("distributions"),
                ui.h4("Information loss"),
                _table(
                    results.loss_rows(result), ["figure", "value", "better", "meaning"], id="loss"
                ),  # fmt: skip
            )

        @output(suspend_when_hidden=False)  # ready before its page opens
        @render.ui
        def alt_detail() -> ui.TagChild:
            alts = alternatives()
            done = outcome()
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
                _table(pages.alternative_figures(chosen), ["figure", "value"], id="alt-figures"),
                ui.HTML(results.class_size_svg(chosen.histogram, title="Class sizes of this node")),
            )

        @output(suspend_when_hidden=False)  # ready before its page opens
        @render.ui
        def distributions() -> ui.TagChild:
            done = outcome()
            if done is None or "dist_column" not in input or not input.dist_column():
                return None
            release = done.result.release
            before, after = results.distribution_svgs(loaded().frame, release, input.dist_column())
            return ui.layout_columns(ui.HTML(before), ui.HTML(after))

        # --------------------------------------------------------------- 7 export
        def finished() -> tuple[results.RunOutcome, dict[str, Any]]:
            done, chosen = outcome(), ran_with()
            if done is None or chosen is None:
                raise ValueError("Run the anonymization first.")
            return done, chosen

        def release_name(ext: str) -> str:
            stem = Path(loaded().name.split(" ")[0]).stem
            return f"{stem}.anonymized.{ext}"

        def config_text() -> str:
            done, chosen = finished()
            table = loaded()
            s: workflow.Settings = chosen["settings"]
            return export.config_toml(
                input=table.path,
                read=table.read,
                roles=chosen["roles"],
                hierarchies=chosen["specs"],
                k=s.k,
                suppression_limit=s.suppression_limit,
                models=[(m.name, m.params) for m in s.models],
                algorithm=chosen["algorithm"],
                metric=s.metric,
                output=input.output_name() or release_name("csv"),
                renamed={**renamed(), **({str(table.path): table.name} if table.uploaded else {})},
                options=s.options,
            )

        def write(name: str, writer: Callable[[Path], object]) -> str:
            target = workdir / "exports" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            writer(target)
            return str(target)

        @render.download(filename=lambda: release_name("csv"))
        def download_csv() -> str:
            done, _ = finished()
            sep = loaded().read.separator
            return write(
                release_name("csv"), lambda p: export.write_release(done.result, p, separator=sep)
            )

        @render.download(filename=lambda: release_name("parquet"))
        def download_parquet() -> str:
            done, _ = finished()
            return write(
                release_name("parquet"),
                lambda p: export.write_release(done.result, p, separator=None),
            )

        @render.download(filename="anonkit-config.toml")
        def download_toml() -> str:
            text = config_text()
            return write("anonkit-config.toml", lambda p: p.write_text(text, encoding="utf-8"))

        @render.download(filename="anonkit-report.html")
        def download_report() -> str:
            done, chosen = finished()
            text = export.report_html(
                done.result,
                title=f"Anonymization of {loaded().name}",
                settings={"input": loaded().name, "algorithm": chosen["algorithm"]},
                heights=chosen["heights"],
            )
            return write("anonkit-report.html", lambda p: p.write_text(text, encoding="utf-8"))

        @output(suspend_when_hidden=False)  # ready before its page opens
        @render.ui
        def export_state() -> ui.TagChild:
            if outcome() is None:
                return ui.p("Run the anonymization first.", class_="text-muted")
            try:
                return ui.tags.pre(config_text(), id="toml-preview")
            except _Errors as err:
                return _error(err)

    return App(pages.page(data), server)


def _silent() -> Exception:
    from shiny.types import SilentException

    return SilentException()


def _task_error(task: Any) -> BaseException | str:
    try:
        task.result()
    except BaseException as err:  # noqa: BLE001 - the error the run raised, shown as is
        if isinstance(err, _Errors):
            return err
        return f"The run failed: {type(err).__name__}."
    return "The run failed."
