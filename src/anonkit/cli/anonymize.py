"""``anonkit anonymize CONFIG.toml``: run a TOML configuration and write the release.

``--report`` writes the short report of the search (:func:`anonkit.report.render_html`);
``--html`` measures the release just made against its input with :func:`anonkit.evaluate`
and writes the full steward's report
(:func:`anonkit.report.evaluation.render_evaluation_html`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from anonkit.cli.common import guarded, stdout_console, summary_table
from anonkit.cli.progress import ProgressReporter
from anonkit.exceptions import ConfigError
from anonkit.io.atomic import atomic_write_text
from anonkit.io.config import load_config, prepare_inputs, run_config
from anonkit.io.tables import write_table

if TYPE_CHECKING:
    import polars as pl

    from anonkit.core.hierarchy import Hierarchy
    from anonkit.io.config import AnonymizeConfig
    from anonkit.result import AnonymizationResult


@guarded
def anonymize_command(
    config: Annotated[
        Path, typer.Argument(help="The TOML configuration file.", metavar="CONFIG.toml")
    ],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Release file (.csv or .parquet); overrides 'output'."),
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
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")] = False,
) -> None:
    """Anonymize the table named in CONFIG.toml and write the release atomically."""
    cfg = load_config(config)
    target = output if output is not None else cfg.output
    if target is None:
        raise ConfigError(f"No output file: set 'output' in {config} or pass -o/--output.")
    if html is not None and cfg.suppressed == "drop":
        raise ConfigError(
            f"--html measures the release row by row against the input, so {config} must "
            'keep suppressed records: set suppressed = "mask" in its [release] section.'
        )
    inputs = prepare_inputs(cfg)
    heights = {c: h.height for c, h in inputs[1].items()}
    with ProgressReporter("Searching", enabled=not quiet) as bar:
        result = run_config(cfg, progress=bar, inputs=inputs)

    # Render everything first so that a failure writes nothing.
    summary_text = result.to_json() if summary is not None else None
    html_text = None
    if report is not None:
        from anonkit.report.html import render_html

        html_text = render_html(
            result,
            title=f"Anonymization of {cfg.input.name}",
            config_summary={**cfg.summary(), "output": str(target)},
            heights=heights,
        )
    full_text = (
        _full_report(cfg, inputs[0], inputs[1], result, target) if html is not None else None
    )
    write_table(result.release, target, separator=cfg.separator or ",")
    if summary is not None and summary_text is not None:
        atomic_write_text(summary, summary_text + "\n")
    if report is not None and html_text is not None:
        atomic_write_text(report, html_text)
    if html is not None and full_text is not None:
        atomic_write_text(html, full_text)

    console = stdout_console(quiet)
    console.print(summary_table(result, heights=heights))
    console.print(f"release written to {target}")
    if summary is not None:
        console.print(f"summary written to {summary}")
    if report is not None:
        console.print(f"report written to {report}")
    if html is not None:
        console.print(f"full report written to {html}")


def _full_report(
    cfg: AnonymizeConfig,
    frame: pl.DataFrame,
    hierarchies: Mapping[str, Hierarchy],
    result: AnonymizationResult,
    target: Path,
) -> str:
    """The steward's report on ``result.release``, measured against ``frame``."""
    from anonkit.evaluate import evaluate
    from anonkit.io.tables import read_table
    from anonkit.models import KAnonymity
    from anonkit.report.evaluation import render_evaluation_html
    from anonkit.report.levels import (
        check_models,
        json_ready,
        model_attributes,
        privacy_levels,
        released_classes,
    )

    numeric = tuple(getattr(cfg, "numeric", ()))
    models: list[Any] = [KAnonymity(cfg.k)] if cfg.k is not None else []
    models += list(getattr(cfg, "privacy", ()))
    qi = list(cfg.quasi_identifiers)
    sensitive = list(dict.fromkeys([*cfg.sensitive, *model_attributes(models)]))
    used = {c: h for c, h in hierarchies.items() if c in qi and c not in numeric}
    population_path = getattr(cfg, "population", None)
    population = (
        read_table(population_path, separator=cfg.separator)
        if population_path is not None
        else None
    )
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
