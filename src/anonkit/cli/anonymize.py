"""``anonkit anonymize CONFIG.toml``: run a TOML configuration and write the release."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from anonkit.cli.common import guarded, stdout_console, summary_table
from anonkit.cli.progress import ProgressReporter
from anonkit.exceptions import ConfigError
from anonkit.io.atomic import atomic_write_text
from anonkit.io.config import load_config, prepare_inputs, run_config
from anonkit.io.tables import write_table


@guarded
def anonymize_command(
    config: Annotated[Path, typer.Argument(help="The TOML configuration file.",
                                           metavar="CONFIG.toml")],
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="Release file (.csv or .parquet); overrides 'output'.")] = None,
    summary: Annotated[Path | None, typer.Option(
        "--summary", help="Write the summary (no records) as JSON here.")] = None,
    report: Annotated[Path | None, typer.Option(
        "--report", help="Write a self-contained HTML report here.")] = None,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Print nothing but errors.")] = False,
) -> None:
    """Anonymize the table named in CONFIG.toml and write the release atomically."""
    cfg = load_config(config)
    target = output if output is not None else cfg.output
    if target is None:
        raise ConfigError(
            f"No output file: set 'output' in {config} or pass -o/--output."
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
            result, title=f"Anonymization of {cfg.input.name}",
            config_summary={**cfg.summary(), "output": str(target)}, heights=heights,
        )
    write_table(result.release, target, separator=cfg.separator or ",")
    if summary is not None and summary_text is not None:
        atomic_write_text(summary, summary_text + "\n")
    if report is not None and html_text is not None:
        atomic_write_text(report, html_text)

    console = stdout_console(quiet)
    console.print(summary_table(result, heights=heights))
    console.print(f"release written to {target}")
    if summary is not None:
        console.print(f"summary written to {summary}")
    if report is not None:
        console.print(f"report written to {report}")
