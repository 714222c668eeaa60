"""``anonkit init DATA -o config.toml``: profile a table and write a starter configuration.

The configuration proposes a role for every column and a hierarchy builder for every
quasi-identifier, each with its reason in a comment (:mod:`anonkit.safety.starter`); the
command prints the same proposals as a table (counts only, never a value).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from anonkit._atomic import atomic_write_text
from anonkit.cli.common import (
    ProgressOption,
    QuietOption,
    SeparatorOption,
    guarded,
    progress_reporter,
    stdout_console,
)
from anonkit.exceptions import ConfigError
from anonkit.io.write import check_not_input, check_output, output_format
from anonkit.progress import start_stage
from anonkit.safety.reading import hierarchy_files, read_for_starter
from anonkit.safety.starter import Starter, starter_config


def _relative(path: Path, start: Path) -> str:
    """``path`` relative to the folder ``start`` when possible, else absolute (POSIX form)."""
    target = path.resolve()
    try:
        return Path(os.path.relpath(target, start.resolve())).as_posix()
    except ValueError:  # another drive on Windows
        return target.as_posix()


def _default_release(data: Path) -> Path:
    suffix = data.suffix if data.suffix.lower() in (".csv", ".tsv", ".parquet") else ".csv"
    return data.with_name(f"{data.stem}.anonymized{suffix}")


#: Role names in the table (the configuration spells them out).
_ROLE_SHORT = {"quasi_identifier": "QI", "quasi_identifiers": "QI"}


#: The narrowest the reasons' column may get: on a narrower terminal the proposals are
#: listed one below the other instead (a reason squeezed to a few characters, one word
#: per line, cannot be read).
_WHY_MIN_WIDTH = 20


def _table(starter: Starter, *, why: bool = True) -> Table:
    table = Table(
        title="Proposed roles (edit the configuration to change them)",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        title_justify="left",
    )
    for name, justify in (("column", "left"), ("kind", "left"), ("distinct", "right"),
                          ("unique %", "right"), ("role", "left")):  # fmt: skip
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    if why:
        table.add_column("why", min_width=_WHY_MIN_WIDTH)
    for proposal in starter.proposals:
        column = starter.profile[proposal.column]
        cells: list[Text | str] = [
            Text(proposal.column),
            column.kind,
            f"{column.distinct:,}",
            f"{column.unique_share:.1%}",
            _ROLE_SHORT.get(proposal.role, proposal.role),
        ]
        table.add_row(*cells, *([Text(proposal.why)] if why else []))
    return table


def _print_proposals(starter: Starter, console: Console) -> None:
    """The proposals as a table with a column of reasons when the terminal leaves it
    :data:`_WHY_MIN_WIDTH` characters, else one below the other, each reason on its own
    indented line."""
    narrow = console.measure(_table(starter, why=False)).maximum
    if narrow + 3 + _WHY_MIN_WIDTH <= console.width:  # 3: the gap between two columns
        console.print(_table(starter))
        return
    console.print("Proposed roles (edit the configuration to change them)", markup=False)
    for proposal in starter.proposals:
        column = starter.profile[proposal.column]
        role = _ROLE_SHORT.get(proposal.role, proposal.role)
        console.print()
        console.print(Text(proposal.column, style="bold"))
        facts = (
            f"{column.kind}, {column.distinct:,} distinct, {column.unique_share:.1%} unique: {role}"
        )
        console.print(Padding(Text(facts), (0, 0, 0, 2), expand=False))
        console.print(Padding(Text(proposal.why), (0, 0, 0, 2), expand=False))
    console.print()


@guarded
def init_command(
    data: Annotated[Path, typer.Argument(help="The table to profile (CSV, TSV or Parquet).")],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Where to write the starter configuration.")
    ] = Path("config.toml"),
    release: Annotated[
        Path | None,
        typer.Option(help="Release file to name as 'output' (default: DATA.anonymized.csv)."),
    ] = None,
    separator: SeparatorOption = None,
    encoding: Annotated[str, typer.Option(help="Text encoding of the file.")] = "utf-8",
    missing: Annotated[
        str | None,
        typer.Option(help="Comma-separated cells that mean missing (default: detected)."),
    ] = None,
    strip: Annotated[
        bool | None,
        typer.Option(
            "--strip/--no-strip", help="Trim spaces around values and names (default: detected)."
        ),
    ] = None,
    decimal_comma: Annotated[
        bool | None,
        typer.Option(
            "--decimal-comma/--no-decimal-comma",
            help="Read 49,4 as the number 49.4 (default: detected in files not separated "
            "by commas).",
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing output.")] = False,
    progress: ProgressOption = None,
    quiet: QuietOption = False,
) -> None:
    """Profile DATA and write a commented starter configuration for `anonkit anonymize`."""
    check_output(output, [data])
    if release is not None:
        output_format(release)  # an extension anonymize cannot write fails here, not there
        check_not_input(release, [data, output])
    if output.exists() and not force:
        raise ConfigError(f"{output} already exists; pass --force to overwrite it.")
    tokens = None if missing is None else ["", *(t for t in missing.split(",") if t != "")]
    folder = output.parent if str(output.parent) else Path(".")
    with progress_reporter(progress, quiet=quiet) as bar:
        start_stage(bar, f"Reading {data.name}")
        frame, read = read_for_starter(
            data,
            separator=separator,
            encoding=encoding,
            missing=tokens,
            strip=strip,
            decimal_comma=decimal_comma,
            option="--separator",
        )
        start_stage(bar, "Profiling the columns")
        starter = starter_config(
            frame,
            input=_relative(data, folder),
            output=_relative(release if release is not None else _default_release(data), folder),
            read=read,
            hierarchy_files={
                c: _relative(path, folder)
                for c, path in hierarchy_files(data, frame, read.encoding).items()
            },
        )
    atomic_write_text(output, starter.text)
    console = stdout_console(quiet)
    _print_proposals(starter, console)
    console.print(f"starter configuration written to {output}", markup=False)
