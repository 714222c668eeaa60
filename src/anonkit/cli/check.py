"""``anonkit check DATA --qi a,b,c``: measure the classes and privacy levels of a table.

Besides the class profile (achieved k, class sizes), ``check`` reports for each sensitive
attribute the achieved distinct and entropy ℓ, recursive (c, ℓ), t for the equal, ordered
and (with a hierarchy) hierarchical distances, δ-disclosure and β-likeness (see
:mod:`anonkit.metrics.levels`), and, for the privacy models a ``--config`` requests in its
``[privacy]`` section, which classes fail each one: their number, their records and the
first few of them (:data:`EXAMPLES`).
A measurement: it exits 0 whether or not the table meets anything.

A failing class is shown with its quasi-identifier values only when they cannot single
people out (:func:`disclosable`): the class has at least :data:`SHOWN_SIZE` records and
each of its values is ``*`` or a label that the column's hierarchy in ``--config`` places
above its leaves. Other failing classes are given by their sizes only, with a line saying
their values are withheld: on an original table (ungeneralized values) that is every class,
and a quasi-identifier without a hierarchy shows ``*`` only. The same holds for ``--json``:
``examples`` holds the shown classes (their sizes in ``example_sizes``),
``withheld_example_sizes`` the sizes of the others.

Records at ``*`` in every quasi-identifier form one class of their size, judged like any
other (what an attacker sees), unless the release may have suppressed records:
``--suppression`` (or the configuration's ``[privacy] suppression_limit``) says up to
which share of the records they are suppressed ones
(:func:`anonkit.cli.measuring.starred_limit`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from anonkit.cli.common import (
    EncodingOption,
    ProgressOption,
    SeparatorOption,
    guarded,
    naming_population,
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
    read_measured,
    separator_hinted,
    starred_limit,
    starred_note,
)
from anonkit.exceptions import AnonkitError, ParameterError
from anonkit.metrics.classes import class_profile, starred_rows, starred_suppressed
from anonkit.progress import start_stage

if TYPE_CHECKING:
    import polars as pl

    from anonkit.metrics.levels import ModelCheck, ReleasedClasses
    from anonkit.models.base import PrivacyModel

#: Failing classes listed per model.
EXAMPLES = 10

#: Fewest records of a failing class whose values may be shown.
SHOWN_SIZE = 2

#: Why some failing classes are given by their sizes only.
WITHHELD = (
    "values withheld because they could identify people (a class of one record, or a value "
    "that is not generalized by the configuration's hierarchies)"
)


def _split(qi: str, option: str = "--qi") -> list[str]:
    names = [c.strip() for c in qi.split(",") if c.strip()]
    if not names:
        raise ParameterError(option, "check", "a comma-separated list of columns", qi)
    if len(set(names)) < len(names):  # polars refused the grouping (DuplicateError)
        raise ParameterError(option, "check", "a list of columns without duplicates", qi)
    return names


def generalized_labels(
    cfg: MeasureConfig | None, frame: pl.DataFrame, columns: Sequence[str]
) -> dict[str, frozenset[str]]:
    """Per quasi-identifier, the labels its hierarchy in ``cfg`` places above its leaves
    (none for a column without one, or whose hierarchy cannot be read or built: its values
    then count as ungeneralized)."""
    from anonkit.core.resolve import resolve_hierarchy

    specs = cfg.hierarchies if cfg is not None else {}
    out: dict[str, frozenset[str]] = {}
    for c in columns:
        labels: set[str] = set()
        if c in specs:
            try:
                h = resolve_hierarchy(c, specs[c], frame[c])
            except (AnonkitError, OSError, ValueError, TypeError):
                h = None
            if h is not None:
                for level in range(1, h.height):
                    labels.update(h.labels(level))
                labels.difference_update(h.leaves)
        out[c] = frozenset(labels)
    return out


def disclosable(
    key: Mapping[str, str], size: int, generalized: Mapping[str, frozenset[str]]
) -> bool:
    """Whether a failing class's values may be shown: it has at least :data:`SHOWN_SIZE`
    records and each value is ``*`` or a label above the leaves of its hierarchy.

    Examples
    --------
    >>> labels = {"zip": frozenset({"130**"}), "age": frozenset()}
    >>> disclosable({"zip": "130**", "age": "*"}, 2, labels)
    True
    >>> disclosable({"zip": "130**", "age": "*"}, 1, labels)
    False
    >>> disclosable({"zip": "13053", "age": "*"}, 3, labels)
    False
    """
    if size < SHOWN_SIZE:
        return False
    return all(v == "*" or v in generalized.get(c, ()) for c, v in key.items())


def _examples(
    checks: Sequence[ModelCheck],
    models: Sequence[PrivacyModel],
    classes: ReleasedClasses,
    labels: Mapping[str, frozenset[str]],
) -> list[list[tuple[Mapping[str, str], int, bool]]]:
    """Per check, its example classes: values, size and whether they may be shown."""
    from anonkit.models.measure import failing_classes

    s = classes.summary
    out: list[list[tuple[Mapping[str, str], int, bool]]] = []
    for check, model in zip(checks, models, strict=True):
        if not check.examples:
            out.append([])
            continue
        sizes = [int(n) for n in s.sizes[failing_classes(s, model)[: len(check.examples)]]]
        out.append(
            [
                (key, n, disclosable(key, n, labels))
                for key, n in zip(check.examples, sizes, strict=True)
            ]
        )
    return out


def _model_json(check: ModelCheck, examples: Sequence[tuple[Mapping[str, str], int, bool]]) -> Any:
    entry = check.to_dict()
    entry["examples"] = [dict(key) for key, _, shown in examples if shown]
    entry["example_sizes"] = [n for _, n, shown in examples if shown]
    entry["withheld_example_sizes"] = [n for _, n, shown in examples if not shown]
    return entry


def _sizes(sizes: Sequence[int]) -> str:
    return ", ".join(f"{n:,}" for n in sizes)


@guarded
def check_command(
    data: Annotated[
        Path,
        typer.Argument(
            help="Table to measure (CSV or Parquet; or a folder of part files, as the "
            "Spark engine writes a release)."
        ),
    ],
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

    Failing classes of the models in --config are listed with their values only
    when they cannot single people out: at least 2 records, and every value '*'
    or a label above the leaves of the column's hierarchy. The others show
    their sizes only; their values are withheld (on an original table, all).

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
        frame, info = read_measured(
            data, separator=separator, encoding=encoding, csv_formulas=formulas
        )
        start_stage(reporter, "Measuring the classes")
        with separator_hinted(info):
            n_star = starred_rows(frame, columns)
            starred = starred_suppressed(n_star, frame.height, limit)
            profile = class_profile(frame, columns, k=k, starred=starred)
            pop = None
            pop_path = population if population is not None else (cfg.population if cfg else None)
            if pop_path is not None and (population is not None or needs_population(models)):
                pop = read_measured(pop_path, separator=separator, encoding=encoding)[0]
            with naming_population(pop_path if pop is not None else None):
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
        needed = any(c.examples for c in checks)
        labels = generalized_labels(cfg, frame, columns) if needed else {}
        examples = _examples(checks, models, classes, labels)

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
                    "requested_models": [
                        _model_json(c, e) for c, e in zip(checks, examples, strict=True)
                    ],
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
    table.add_column("item", style="bold", overflow="fold")
    table.add_column("value", justify="right", overflow="fold")
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
    hist.add_column("size", overflow="fold")
    hist.add_column("classes", justify="right", overflow="fold")
    hist.add_column("", overflow="crop", no_wrap=True)
    biggest = max(profile.histogram.values(), default=0) or 1
    width = max(5, min(30, console.width - 30))  # the bars fit a narrow terminal
    for label, count in profile.histogram.items():
        bar = "█" * (round(count / biggest * width) if count else 0)
        hist.add_row(label, f"{count:,}", bar)
    console.print(hist)

    if sens or checks or "k_map" in levels:
        console.print(privacy_table(levels, checks, title="Privacy levels"))
    for check, listed in zip(checks, examples, strict=True):
        if check.satisfied:
            continue
        head = (
            f"First failing classes of {escape(check.model)} "
            f"({len(listed)} of {check.failing_classes:,})"
        )
        shown = [(key, n) for key, n, ok in listed if ok]
        withheld = [n for _, n, ok in listed if not ok]
        if shown:
            table = Table(title=head, title_justify="left")
            table.add_column("records", justify="right", overflow="fold")
            for c in columns:
                table.add_column(escape(c), overflow="fold")
            for key, n in shown:
                table.add_row(f"{n:,}", *(escape(key[c]) for c in columns))
            console.print(table)
        if withheld:
            lead = f"{len(withheld)} of them" if shown else head
            console.print(f"{lead}: sizes {_sizes(withheld)}; {WITHHELD}.")
