"""``anonkit check DATA --qi a,b,c``: measure the equivalence classes of a table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from anonkit.cli.common import guarded, stdout_console
from anonkit.exceptions import ParameterError
from anonkit.io.tables import read_table
from anonkit.metrics.classes import class_profile


def _split(qi: str) -> list[str]:
    names = [c.strip() for c in qi.split(",") if c.strip()]
    if not names:
        raise ParameterError("--qi", "check", "a comma-separated list of columns", qi)
    return names


@guarded
def check_command(
    data: Annotated[Path, typer.Argument(help="Table to measure (CSV or Parquet).")],
    qi: Annotated[str, typer.Option(
        "--qi", help="Quasi-identifiers, comma-separated (e.g. age,sex,zip).")],
    k: Annotated[int, typer.Option("-k", "--k", min=1,
                                   help="Count records in classes smaller than k.")] = 5,
    separator: Annotated[str | None, typer.Option(
        "--separator", help="CSV separator (detected if omitted).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """Report achieved k, classes and their sizes over the quasi-identifiers.

    A measurement: exits 0 whether or not the table is k-anonymous.
    """
    columns = _split(qi)
    frame = read_table(data, separator=separator)
    profile = class_profile(frame, columns, k=k)
    if as_json:
        typer.echo(json.dumps({"file": str(data), "quasi_identifiers": columns,
                               **profile.to_dict()}, indent=2))
        return
    console = stdout_console()
    table = Table(title=f"Equivalence classes of {data.name} over {', '.join(columns)}",
                  show_header=False, title_justify="left")
    table.add_column("item", style="bold")
    table.add_column("value", justify="right")
    ok = profile.min_size >= k
    table.add_row("records", f"{frame.height:,}")
    table.add_row("achieved k", f"{profile.min_size:,}")
    table.add_row(f"{k}-anonymous", "yes" if ok else "no")
    table.add_row("classes", f"{profile.n_classes:,}")
    table.add_row("largest class", f"{profile.max_size:,}")
    table.add_row("mean class size", f"{profile.mean_size:,.2f}")
    table.add_row("sample uniques", f"{profile.sample_uniques:,}")
    table.add_row(f"records in classes below k={k}", f"{profile.below_k:,}")
    table.add_row(f"classes below k={k}", f"{profile.classes_below_k:,}")
    table.add_row("suppressed records (all '*')", f"{profile.suppressed:,}")
    console.print(table)

    hist = Table(title="Class size distribution", title_justify="left")
    hist.add_column("size")
    hist.add_column("classes", justify="right")
    hist.add_column("")
    biggest = max(profile.histogram.values(), default=0) or 1
    for label, count in profile.histogram.items():
        bar = "█" * (round(count / biggest * 30) if count else 0)
        hist.add_row(label, f"{count:,}", bar)
    console.print(hist)
