"""``anonkit demo``: anonymize the bundled Adult data and write release, summary, report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from anonkit._atomic import atomic_write_text
from anonkit.cli.common import guarded, risk_table, stdout_console, summary_table
from anonkit.cli.progress import ProgressReporter
from anonkit.io.tables import write_table

SUPPRESSION_LIMIT = 0.04


@guarded
def demo_command(
    output_dir: Annotated[
        Path,
        typer.Option(
            "--output-dir",
            "-d",
            file_okay=False,
            help="Folder for release.csv, summary.json, report.html.",
        ),
    ] = Path("demo-output"),
    k: Annotated[int, typer.Option("-k", "--k", min=1, help="The k of k-anonymity.")] = 5,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing.")] = False,
) -> None:
    """Anonymize the bundled UCI Adult extract (9 quasi-identifiers, suppression <= 4%)."""
    from anonkit.api import anonymize
    from anonkit.core.hierarchy import Hierarchy
    from anonkit.datasets import ADULT_COLUMNS, load_adult
    from anonkit.report.html import render_html

    frame, paths = load_adult()
    hierarchies = {c: Hierarchy.from_csv(paths[c], name=c) for c in ADULT_COLUMNS}
    heights = {c: h.height for c, h in hierarchies.items()}
    with ProgressReporter("Searching", enabled=not quiet) as bar:
        result = anonymize(
            frame,
            quasi_identifiers=list(ADULT_COLUMNS),
            hierarchies=hierarchies,
            k=k,
            suppression_limit=SUPPRESSION_LIMIT,
            algorithm="flash",
            metric="loss",
            progress=bar,
        )
    settings = {
        "dataset": f"UCI Adult (bundled, {frame.height:,} records)",
        "quasi_identifiers": list(ADULT_COLUMNS),
        "k": k,
        "suppression_limit": SUPPRESSION_LIMIT,
        "algorithm": "flash",
        "metric": "loss",
    }
    html_text = render_html(
        result, title="anonkit demo: UCI Adult", config_summary=settings, heights=heights
    )
    write_table(result.release, output_dir / "release.csv")
    atomic_write_text(output_dir / "summary.json", result.to_json() + "\n")
    atomic_write_text(output_dir / "report.html", html_text)

    console = stdout_console(quiet)
    console.print(summary_table(result, heights=heights))
    console.print(risk_table(result))
    console.print(
        f"wrote {output_dir / 'release.csv'}, {output_dir / 'summary.json'} "
        f"and {output_dir / 'report.html'}"
    )
