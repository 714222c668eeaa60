"""``anonkit anonymize CONFIG.toml``: run a TOML configuration and write the release.

``--report`` writes the short report of the search (:func:`anonkit.report.render_html`);
``--html`` measures the release just made against its input with :func:`anonkit.evaluate`
and writes the full steward's report
(:func:`anonkit.report.evaluation.render_evaluation_html`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer
from rich.console import Console
from rich.markup import escape

from anonkit._atomic import atomic_write_text
from anonkit._formats import table_format
from anonkit._frozen import FrozenDict
from anonkit.cli.common import (
    ProgressOption,
    QuietOption,
    guarded,
    naming_population,
    progress_reporter,
    risk_table,
    said_otherwise,
    stdout_console,
    summary_table,
)
from anonkit.cli.wording import toml_wording
from anonkit.config import chosen_engine, parse_config, resolve_hierarchies, run_config
from anonkit.engines.base import get_engine
from anonkit.estimators.bare import only_star
from anonkit.exceptions import ConfigError, UnknownColumnError
from anonkit.io.sniff import file_separator
from anonkit.io.tables import (
    output_format,
    read_table,
    read_table_info,
    unknown_column_hint,
    write_table,
)
from anonkit.io.toml import read_toml
from anonkit.io.write import check_outputs
from anonkit.progress import start_stage

if TYPE_CHECKING:
    from anonkit.config import AnonymizeConfig
    from anonkit.core.hierarchy import Hierarchy
    from anonkit.progress import Progress
    from anonkit.result import AnonymizationResult


@guarded
def anonymize_command(
    config: Annotated[
        Path, typer.Argument(help="The TOML configuration file.", metavar="CONFIG.toml")
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Release file (.csv, .tsv or .parquet); overrides 'output'.",
        ),
    ] = None,
    summary: Annotated[
        Path | None, typer.Option("--summary", help="Write the summary (no records) as JSON here.")
    ] = None,
    report: Annotated[
        Path | None, typer.Option("--report", help="Write a short HTML report of the search here.")
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Measure the release and write the full HTML report here."),
    ] = None,
    leak_check: Annotated[
        bool | None,
        typer.Option(
            "--leak-check/--no-leak-check",
            help="Stop on kept columns that give quasi-identifiers away (default: on, or "
            "'leak_check' of \\[release]); skipping it is recorded in the summary.",
            show_default=False,
        ),
    ] = None,
    engine: Annotated[
        str | None,
        typer.Option(
            "--engine",
            help="Where the records are counted and released: polars (in memory), streaming "
            "(tables larger than memory, read as they stream), spark, or auto (streams files "
            "too large for memory); overrides 'engine' of \\[search].",
            show_default=False,
        ),
    ] = None,
    progress: ProgressOption = None,
    quiet: QuietOption = False,
) -> None:
    """Anonymize the table named in CONFIG.toml and write the release atomically."""
    # load_config, keeping the parsed file: an error of the run names the key that gave it
    data = read_toml(config)
    cfg = parse_config(data, path=Path(config).resolve())
    flags: dict[str, str] = {}  # keywords of anonymize that a flag gives instead
    if leak_check is not None:
        cfg = dataclasses.replace(cfg, leak_check=leak_check)
        flags["leak_check"] = "--leak-check" if leak_check else "--no-leak-check"
    if engine is not None:
        cfg = dataclasses.replace(cfg, engine=engine)
        flags["engine"] = "--engine"
    worded = toml_wording(cfg, data, flags)
    target = output if output is not None else cfg.output
    if target is None:
        raise ConfigError(f"No output file: set 'output' in {config} or pass -o/--output.")
    fmt = output_format(target)  # an unsupported extension fails before any work
    read = [cfg.input, *cfg.hierarchies.values(), cfg.population, config]
    outputs = {"the release": target, "--summary": summary, "--report": report, "--html": html}
    # Spark writes the release as a folder of part files (an existing one is replaced)
    check_outputs(
        outputs, read, folders=("the release",) if chosen_engine(cfg)[0] == "spark" else ()
    )
    if html is not None and cfg.suppressed == "drop":
        raise ConfigError(
            f"--html measures the release row by row against the input, so {config} must "
            'keep suppressed records: set suppressed = "mask" in its [release] section.'
        )
    notes = Console(stderr=True, quiet=quiet, highlight=False)
    said_otherwise()  # as notes after the summary (_notes)
    name, reason = chosen_engine(cfg)
    if not get_engine(name).in_memory:
        if html is not None:
            raise ConfigError(
                "--html measures the release row by row against the input in memory; it is "
                f"not available with the {name} engine."
            )
        if fmt != "parquet" and cfg.csv_formulas == "keep":
            raise ConfigError(
                f"The {name} engine always escapes formulas in CSV output; write Parquet or "
                'drop csv_formulas = "keep".'
            )
        with naming_population(cfg.population), worded:
            _anonymize_streamed(cfg, target, summary, report, progress, quiet, notes)
        return
    with progress_reporter(progress, quiet=quiet) as bar:
        start_stage(bar, f"Reading {cfg.input.name}")
        frame, info = read_table_info(cfg.input, **cfg.read_kwargs())
        population = None
        if cfg.population is not None:
            start_stage(bar, f"Reading {cfg.population.name}")
            population = read_table(cfg.population, **cfg.read_kwargs())
        start_stage(bar, "Building hierarchies")
        with naming_population(cfg.population), worded:
            # a built hierarchy covers the population's values too, as anonymize() builds it
            inputs = (frame, resolve_hierarchies(cfg, frame, population))
            heights = {c: h.height for c, h in inputs[1].items()}
            try:
                result = run_config(cfg, progress=bar, inputs=inputs, population=population)
            except UnknownColumnError as err:
                hint = unknown_column_hint(info, err.columns)
                if hint and not err.table:  # the hint reads the input's header
                    raise ConfigError(f"{err} {hint}") from None
                raise
        result = _engine_told(result, name, reason)

        # Render everything first so that a failure writes nothing.
        html_text = _report_page(cfg, result, target, heights) if report is not None else None
        full_text = None
        if html is not None:
            start_stage(bar, "Measuring the release")
            full_text = _full_report(
                cfg, frame, inputs[1], result, target, population=population, progress=bar
            )
        start_stage(bar, f"Writing {target.name}")
        written = write_table(
            result.release,
            target,
            separator=cfg.separator if fmt == "csv" else None,
            csv_formulas=cfg.csv_formulas,
        )
        summary_data = {
            **result.to_dict(),
            "input": {
                "separator": info.separator,
                "separator_detected": info.sniffed,
                "encoding": info.encoding,
                "missing_cells": info.missing_cells,
            },
            "output": {
                "format": written.format,
                "csv_formulas": cfg.csv_formulas,
                "escaped_cells": written.escaped_cells,
            },
        }
        _write_texts(summary, summary_data, report, html_text)
        if html is not None and full_text is not None:
            atomic_write_text(html, full_text)

    _notes(notes, result, cfg)
    console = stdout_console(quiet)
    if info.sniffed and info.separator is not None:
        console.print(
            f"read {cfg.input.name}: separator {info.separator!r} (detected)", markup=False
        )
    console.print(summary_table(result, heights=heights))
    console.print(risk_table(result))
    if written.escaped_cells:
        console.print(
            f"{written.escaped_cells:,} cell(s) starting with = + - @ were prefixed with ' "
            'so spreadsheets do not run them as formulas (csv_formulas = "keep" writes them raw)'
        )
    _written(console, target, summary, report, html)


def _report_page(
    cfg: AnonymizeConfig,
    result: AnonymizationResult,
    target: Path,
    heights: Mapping[str, int] | None = None,
) -> str:
    """The ``--report`` page of ``result``."""
    from anonkit.report.html import render_html

    return render_html(
        result,
        title=f"Anonymization of {cfg.input.name}",
        config_summary={**cfg.summary(), "output": str(target)},
        heights=heights,
    )


def _write_texts(
    summary: Path | None, summary_data: Mapping[str, Any], report: Path | None, page: str | None
) -> None:
    """Write the summary JSON and the report page where they were asked for."""
    if summary is not None:
        atomic_write_text(summary, json.dumps(summary_data, indent=2) + "\n")
    if report is not None and page is not None:
        atomic_write_text(report, page)


def _notes(notes: Console, result: AnonymizationResult, cfg: AnonymizeConfig) -> None:
    """Whether the leak check was skipped, its warnings, and the quasi-identifiers
    without a hierarchy but ``*`` that the release suppresses in every record (a
    :class:`SuppressedColumnWarning` in Python; the run reads hierarchies built before the
    fit, so the suppression tables ``init`` proposes are found here from the
    configuration)."""
    if not cfg.leak_check:
        notes.print("warning: the leak check was skipped (--no-leak-check); see the summary.")
    for warning in result.checks.get("leak_warnings", ()):
        notes.print(f"warning: {warning['reason']}", markup=False)
    starred = [
        c
        for c, spec in cfg.hierarchies.items()
        if only_star(spec) and result.transformation.get(c, 0) > 0
    ]
    bare = list(dict.fromkeys([*result.details.get("suppressed_without_hierarchy", ()), *starred]))
    if bare:
        names = escape(", ".join(bare))
        notes.print(
            f"note: {names} had no hierarchy but '*' in \\[hierarchies] (none, or "
            '{type = "suppression"}), so the release shows "*" '
            f"for {'it' if len(bare) == 1 else 'them'} in every record; give a hierarchy "
            'file or a builder table ({type = "intervals", widths = [5, 10, 20]} for numbers, '
            '{type = "masking"} for codes, {type = "ordered", ...} for ordered categories) '
            "to generalize instead."
        )


def _written(console: Console, *files: Path | None) -> None:
    """Say where the release, summary, report and full report went."""
    what = ("release", "summary", "report", "full report")
    for name, path in zip(what, files, strict=False):
        if path is not None:
            console.print(f"{name} written to {path}", markup=False)


def _anonymize_streamed(
    cfg: AnonymizeConfig,
    target: Path,
    summary: Path | None,
    report: Path | None,
    progress: bool | None,
    quiet: bool,
    notes: Console,
) -> None:
    """The run with an engine that does not read the table into memory: the engine writes
    (and verifies) the release itself."""
    with progress_reporter(progress, quiet=quiet) as bar:
        start_stage(bar, f"Scanning {cfg.input.name}")
        result = run_config(cfg, progress=bar, output=target)
        # a full-domain result tells its hierarchies' heights, built ones too (the only
        # results with a transformation to show as age=3/4)
        heights = dict(result.details.get("heights", {}))
        html_text = _report_page(cfg, result, target, heights) if report is not None else None
        read = _streamed_input(cfg)
        summary_data = {
            **result.to_dict(),
            "input": {**read, "engine": dict(result.details["engine"])},
            "output": {
                "format": output_format(target),
                "csv_formulas": "escape",
                "escaped_cells": None,
            },
        }
        _write_texts(summary, summary_data, report, html_text)
    _notes(notes, result, cfg)
    console = stdout_console(quiet)
    engine = result.details["engine"]
    console.print(f"engine: {engine['name']} ({engine['reason']})", markup=False)
    if read["separator_detected"]:
        console.print(
            f"read {cfg.input.name}: separator {read['separator']!r} (detected)", markup=False
        )
    console.print(summary_table(result, heights=heights))
    console.print(risk_table(result))
    _written(console, target, summary, report)


def _engine_told(result: AnonymizationResult, name: str, reason: str) -> AnonymizationResult:
    """``result`` of a run in memory with the engine's reason the configuration gives
    (:func:`~anonkit.config.chosen_engine`), as a streamed or Spark run reports it, not
    the estimator's ("the engine argument": it was handed ``engine="polars"``)."""
    told = result.details.get("engine")
    if not isinstance(told, Mapping) or told.get("name") != name:
        return result
    details = {**result.details, "engine": {"name": name, "reason": reason}}
    return dataclasses.replace(result, details=FrozenDict(details))


def _streamed_input(cfg: AnonymizeConfig) -> dict[str, Any]:
    """How a streamed or Spark run read its input file, for the summary's ``input``
    section as the run in memory reports it: the separator ([read]'s, tab for ``.tsv``,
    otherwise guessed from the first records as those engines guess it) and the
    encoding; missing cells are not counted on such a run (``None``)."""
    path = Path(cfg.input)
    if table_format(path) == "parquet":
        return {"separator": None, "separator_detected": False, "encoding": cfg.encoding,
                "missing_cells": 0}  # fmt: skip
    sniffed = cfg.separator is None and path.suffix.lower() != ".tsv"
    separator = cfg.separator if cfg.separator is not None else file_separator(path, cfg.encoding)
    return {"separator": separator, "separator_detected": sniffed, "encoding": cfg.encoding,
            "missing_cells": None}  # fmt: skip


def _full_report(
    cfg: AnonymizeConfig,
    frame: pl.DataFrame,
    hierarchies: Mapping[str, Hierarchy],
    result: AnonymizationResult,
    target: Path,
    *,
    population: pl.DataFrame | None = None,
    progress: Progress | None = None,
) -> str:
    """The steward's report on ``result.release``, measured against ``frame`` (and the
    configuration's ``population``, read by the run)."""
    from anonkit.evaluate import evaluate
    from anonkit.metrics.levels import (
        check_models,
        json_ready,
        model_attributes,
        privacy_levels,
        released_classes,
    )
    from anonkit.models import KAnonymity
    from anonkit.report.evaluation import render_evaluation_html

    numeric = tuple(getattr(cfg, "numeric", ()))
    models: list[Any] = [KAnonymity(cfg.k)] if cfg.k is not None else []
    models += list(getattr(cfg, "privacy", ()))
    qi = list(cfg.quasi_identifiers)
    sensitive = list(dict.fromkeys([*cfg.sensitive, *model_attributes(models)]))
    used = {c: h for c, h in hierarchies.items() if c in qi and c not in numeric}
    release = result.release
    ev = evaluate(
        frame,
        release,
        quasi_identifiers=qi,
        hierarchies=used,
        sensitive=sensitive,
        numeric=list(numeric),
        k=cfg.k,
        population=population,
        levels={c: lv for c, lv in result.transformation.items() if c in used},
        progress=progress,
        # rows at '*' everywhere are suppressed ones only if the run suppressed records
        suppression_limit=cfg.suppression_limit if result.suppressed else 0.0,
    )
    columns = release.select(qi).with_columns(
        [(release[s] if s in release.columns else frame[s]).alias(s) for s in sensitive]
    )
    specs: dict[str, Any] = {s: cfg.hierarchies[s] for s in sensitive if s in cfg.hierarchies}
    if population is not None:
        specs.update(used)
    classes = released_classes(
        columns,
        qi,
        sensitive,
        hierarchies=specs,
        population=population,
        numeric=numeric,
        normalize=True,
        starred_suppressed=result.suppressed > 0,
    )
    settings = {**cfg.summary(), "output": str(target)}
    return render_evaluation_html(
        ev,
        title=f"Release of {cfg.input.name}",
        settings=settings,
        levels=json_ready(privacy_levels(classes)),
        models=check_models(classes, models, limit=0),
        transformation=result.transformation,
        heights={c: h.height for c, h in used.items()},
    )
