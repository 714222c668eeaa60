"""``anonkit release DATA --history FILE ...``: one release of a table that changes.

Each run publishes the table's current state under m-invariance (insertions and
deletions) or τ-safety (any update) against what earlier releases published, kept in a
history file (:mod:`anonkit.releases`). The release, its counterfeit table and the updated
history are written only once the release passed its re-check; the history first: a run
that stops after it leaves a history that knows a release nobody received (the next
release is held to signatures it did not need, which is safe), never a published
release the history does not know (whose records the next release would sign anew,
which the intersection attack reads).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Annotated

import typer

from anonkit.cli.common import (
    EncodingOption,
    ProgressOption,
    QuietOption,
    SeparatorOption,
    guarded,
    one_line,
    progress_reporter,
    stdout_console,
)
from anonkit.cli.measuring import separator_hinted
from anonkit.exceptions import ParameterError
from anonkit.io.tables import output_format, read_table_info, write_table
from anonkit.io.write import check_not_input, check_outputs
from anonkit.progress import start_stage
from anonkit.releases import ReleaseHistory, publish


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


@guarded
def release_command(
    data: Annotated[Path, typer.Argument(help="The table now (CSV or Parquet).")],
    history: Annotated[
        Path,
        typer.Option(
            "--history",
            help="What earlier releases published (JSON); created by the first release, "
            "updated by each one.",
        ),
    ],
    id_column: Annotated[
        str, typer.Option("--id-column", help="The column identifying a record across releases.")
    ],
    quasi_identifiers: Annotated[
        str, typer.Option("--qi", help="Quasi-identifiers, comma-separated.")
    ],
    sensitive: Annotated[str, typer.Option("--sensitive", help="The sensitive attribute.")],
    m: Annotated[int, typer.Option("--m", help="Distinct sensitive values per class (>= 2).")],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="The release (.csv, .tsv or .parquet).")
    ],
    model: Annotated[
        str,
        typer.Option("--model", help="m_invariance (insertions, deletions) or tau_safety."),
    ] = "m_invariance",
    tau: Annotated[
        int | None,
        typer.Option(
            "--tau", help="tau_safety: the window of releases (default 2; --model tau_safety only)."
        ),
    ] = None,
    numeric: Annotated[
        str, typer.Option("--numeric", help="Quasi-identifiers released as ranges.")
    ] = "",
    counterfeits: Annotated[
        Path | None,
        typer.Option(
            "--counterfeits",
            help="Where to write the counterfeit count per class (default: beside the "
            "release, NAME.counterfeits.csv).",
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            help="Seed of the random choice of counterfeit values (default: fresh each run); "
            "a published seed lets anyone repeat the draw.",
        ),
    ] = None,
    separator: SeparatorOption = None,
    encoding: EncodingOption = "utf-8",
    progress: ProgressOption = None,
    quiet: QuietOption = False,
) -> None:
    """Publish DATA as the next release of a sequence, safe against linking the releases.

    The release holds a class number, the quasi-identifiers (generalized) and the
    sensitive attribute; every other column, the id column too, stays out.
    """
    if tau is not None and model == "m_invariance":  # it has no window: tau was ignored
        raise ParameterError(
            "--tau",
            "anonkit release",
            "given with --model tau_safety only (the window of τ-safety; m-invariance keeps "
            "each record's latest signature)",
            tau,
        )
    output_format(output)  # an unsupported extension fails before any work
    aux = counterfeits or output.with_name(f"{output.stem}.counterfeits.csv")
    output_format(aux)
    check_outputs({"the release": output, "--counterfeits": aux, "--history": history}, [data])
    check_not_input(output, [history])
    with progress_reporter(progress, quiet=quiet) as bar:
        start_stage(bar, f"Reading {data.name}")
        frame, info = read_table_info(data, separator=separator, encoding=encoding)
        previous = ReleaseHistory.load(history) if history.exists() else None
        with separator_hinted(info), warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always", UserWarning)
            result = publish(
                frame,
                id_column=id_column,
                quasi_identifiers=_names(quasi_identifiers),
                sensitive=sensitive,
                m=m,
                history=previous,
                model=model,
                tau=tau,
                numeric=_names(numeric),
                seed=seed,
                progress=bar,
            )
        start_stage(bar, "Writing the release")
        result.history.save(history)  # first: see the module's docstring
        write_table(result.table, output)
        write_table(result.counterfeits, aux)
    if not quiet:  # a line each, as the other commands say theirs
        for warning in said:
            typer.echo(f"warning: {one_line(str(warning.message))}", err=True)
    console = stdout_console(quiet)
    console.print(result.guarantee)
    n_fake = int(result.counterfeits["counterfeits"].sum()) if result.counterfeits.height else 0
    console.print(
        f"{result.table.height:,} rows in {result.table['class'].n_unique():,} classes "
        f"({n_fake:,} counterfeit); {result.withheld:,} record(s) withheld"
    )
    kept = {*_names(quasi_identifiers), sensitive, id_column}
    left_out = [f"{id_column} (the id column)"] + [c for c in frame.columns if c not in kept]
    console.print(f"not published: {', '.join(left_out)}", markup=False)
    console.print(f"release written to {output}")
    console.print(f"counterfeits written to {aux}")
    console.print(f"history written to {history}")
