"""``anonkit check DATA --qi a,b,c``: measure the classes and privacy levels of a table.

Besides the class profile (achieved k, class sizes), ``check`` reports for each sensitive
attribute the achieved distinct and entropy ℓ, recursive (c, ℓ), t for the equal, ordered
and (with a hierarchy) hierarchical distances, δ-disclosure and β-likeness (see
:mod:`anonkit.metrics.levels`), and, for the privacy models a ``--config`` requests in its
``[privacy]`` section, which classes fail each one: their number, their records and the
released quasi-identifier values of the first few (generalized values, never a record).
A measurement: it exits 0 whether or not the table meets anything.

Records at ``*`` in every quasi-identifier form one class of their size, judged like any
other (what an attacker sees), unless the release may have suppressed records:
``--suppression`` (or the configuration's ``[privacy] suppression_limit``) says up to
which share of the records they are suppressed ones
(:func:`anonkit.cli.measuring.starred_limit`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from anonkit.cli.common import (
    EncodingOption,
    ProgressOption,
    SeparatorOption,
    guarded,
    progress_reporter,
    stdout_console,
)
from anonkit.cli.evaluate import privacy_table
from anonkit.cli.measuring import (
    MeasureConfig,
    SuppressionLimitOption,
    level_specs,
    needs_population,
    read_measure_config,
    starred_limit,
    starred_note,
)
from anonkit.exceptions import ParameterError
from anonkit.io.tables import read_table
from anonkit.metrics.classes import class_profile, starred_rows, starred_suppressed
from anonkit.progress import start_stage

#: Failing classes shown per model.
EXAMPLES = 10


def _split(qi: str, option: str = "--qi") -> list[str]:
    names = [c.strip() for c in qi.split(",") if c.strip()]
    if not names:
        raise ParameterError(option, "check", "a comma-separated list of columns", qi)
    if len(set(names)) < len(names):  # polars refused the grouping (DuplicateError)
        raise ParameterError(option, "check", "a list of columns without duplicates", qi)
    return names


@guarded
def check_command(
    data: Annotated[Path, typer.Argument(help="Table to measure (CSV or Parquet).")],
    qi: Annotated[
        str | None,
        typer.Option(
            "--qi",
            help="Quasi-identifiers, comma-separated (e.g. age,sex,zip); default: "
            "those of --config.",
        ),
    ] = None,
    sensitive: Annotated[
        str | None,
        typer.Option(
            "--sensitive", help="Sensitive attributes, comma-separated; default: those of --config."
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            "-c",
            help="TOML configuration: hierarchies, sensitive attributes and "
            "the privacy models to check (\\[privacy]).",
            metavar="CONFIG.toml",
        ),
    ] = None,
    k: Annotated[
        int | None,
        typer.Option(
            "-k",
            "--k",
            min=1,
            help="Count records in classes smaller than k (default: \\[privacy] k, else 5).",
        ),
    ] = None,
    ell: Annotated[
        int | None,
        typer.Option(
            "-l", "--l", min=1, help="The ℓ of recursive (c, ℓ)-diversity (default: 2 and 3)."
        ),
    ] = None,
    population: Annotated[
        Path | None,
        typer.Option(
            "--population",
            help="Population table (original form) for k-map and δ-presence; "
            "overrides \\[privacy] population.",
        ),
    ] = None,
    suppression_limit: SuppressionLimitOption = None,
    separator: SeparatorOption = None,
    encoding: EncodingOption = "utf-8",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    progress: ProgressOption = None,
) -> None:
    """Report achieved k, class sizes and the sensitive attributes' privacy levels.

    Classes are formed over the quasi-identifiers. Records at '*' in every
    one of them form one class of their size, judged like any other, unless
    the release may have suppressed records: up to the share --suppression
    (default: \\[privacy] suppression_limit, else 0) they count as suppressed.

    A measurement: exits 0 whether or not the table is k-anonymous.
    """
    from anonkit.metrics.levels import (
        check_models,
        json_ready,
        model_attributes,
        privacy_levels,
        released_classes,
    )

    columns = _split(qi) if qi is not None else None
    cfg: MeasureConfig | None = (
        read_measure_config(config, quasi_identifiers=columns) if config is not None else None
    )
    if columns is None:
        if cfg is None:
            raise ParameterError(
                "--qi",
                "check",
                "a comma-separated list of columns (or a --config naming the quasi-identifiers)",
                None,
            )
        columns = list(cfg.quasi_identifiers)
    models = list(cfg.models) if cfg is not None else []
    named = (
        _split(sensitive, "--sensitive")
        if sensitive is not None
        else (list(cfg.sensitive) if cfg is not None else [])
    )
    sens = list(dict.fromkeys([*named, *model_attributes(models)]))
    if k is None:
        k = cfg.k if cfg is not None and cfg.k is not None else 5
    limit = starred_limit(suppression_limit, cfg, "check")

    with progress_reporter(progress) as reporter:
        start_stage(reporter, f"Reading {data.name}")
        # a release as released: anonymize's formula escapes ('@home) undone, unless its
        # configuration wrote the cells raw
        raw = cfg is not None and cfg.csv_formulas == "keep"
        formulas = "keep" if raw else "unescape"
        frame = read_table(data, separator=separator, encoding=encoding, csv_formulas=formulas)
        start_stage(reporter, "Measuring the classes")
        n_star = starred_rows(frame, columns)
        starred = starred_suppressed(n_star, frame.height, limit)
        profile = class_profile(frame, columns, k=k, starred=starred)
        pop = None
        pop_path = population if population is not None else (cfg.population if cfg else None)
        if pop_path is not None and (population is not None or needs_population(models)):
            pop = read_table(pop_path, separator=separator, encoding=encoding)
        classes = released_classes(
            frame,
            columns,
            sens,
            hierarchies=level_specs(cfg, sens, with_qi=pop is not None),
            population=pop,
            numeric=cfg.numeric if cfg is not None else (),
            starred_suppressed=starred,
        )
        levels = json_ready(privacy_levels(classes, l_values=(ell,) if ell else (2, 3)))
        checks = check_models(classes, models, limit=EXAMPLES)

    if as_json:
        typer.echo(
            json.dumps(
                {
                    "file": str(data),
                    "quasi_identifiers": columns,
                    "records": frame.height,  # every row, as the table's "records" line
                    **profile.to_dict(),
                    "all_star_records": n_star,
                    "all_star_read_as": ("suppressed" if starred else "class") if n_star else None,
                    "sensitive": sens,
                    "privacy_levels": levels,
                    "requested_models": [c.to_dict() for c in checks],
                },
                indent=2,
                allow_nan=False,
            )
        )
        return
    console = stdout_console()
    table = Table(
        title=f"Equivalence classes of {escape(data.name)} over {escape(', '.join(columns))}",
        show_header=False,
        title_justify="left",
    )
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
    if n_star and not starred:
        table.add_row("records at '*' everywhere (one class)", f"{n_star:,}")
    console.print(table)
    if n_star and not starred:
        console.print(f"note: {escape(starred_note(n_star, limit))}")

    hist = Table(title="Class size distribution", title_justify="left")
    hist.add_column("size")
    hist.add_column("classes", justify="right")
    hist.add_column("")
    biggest = max(profile.histogram.values(), default=0) or 1
    for label, count in profile.histogram.items():
        bar = "█" * (round(count / biggest * 30) if count else 0)
        hist.add_row(label, f"{count:,}", bar)
    console.print(hist)

    if sens or checks or "k_map" in levels:
        console.print(privacy_table(levels, checks, title="Privacy levels"))
    for check in checks:
        if check.satisfied:
            continue
        shown = Table(
            title=f"First failing classes of {escape(check.model)} "
            f"({len(check.examples)} of {check.failing_classes:,})",
            title_justify="left",
        )
        for c in columns:
            shown.add_column(escape(c))
        for key in check.examples:
            shown.add_row(*(escape(key[c]) for c in columns))
        console.print(shown)
