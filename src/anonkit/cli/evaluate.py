"""``anonkit evaluate ORIGINAL RELEASE --config CONFIG``: measure any release.

Reads the original table and a release of it (rows matched by position; made by anonkit
or by another tool), measures every information-loss and risk figure with
:func:`anonkit.evaluate` and the achieved privacy levels with
:mod:`anonkit.metrics.levels`, prints a summary, and writes the figures as JSON and,
with ``--html``, the steward's report. Nothing printed or written holds a record.

The configuration is the TOML file of ``anonkit anonymize``; only its ``[attributes]``
(quasi-identifiers, sensitive and numeric attributes), ``[hierarchies]`` and ``[privacy]``
(k, the requested models, the population table) sections are read, so ``input`` may be
left out. :func:`~anonkit.cli.measuring.read_measure_config` reads them, for ``anonkit
check`` as well.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from anonkit._atomic import atomic_write_text
from anonkit.cli.common import (
    ProgressOption,
    QuietOption,
    guarded,
    naming_population,
    progress_reporter,
    separator_option,
    stdout_console,
)
from anonkit.cli.measuring import (
    MeasureConfig,
    SuppressionLimitOption,
    level_specs,
    read_hint,
    read_measure_config,
    read_measured,
    starred_limit,
    starred_note,
)
from anonkit.cli.progress import ProgressReporter
from anonkit.exceptions import (
    AnonkitError,
    ConfigError,
    DataError,
    ParameterError,
    UnknownColumnError,
    ValuesNotInHierarchyError,
)
from anonkit.progress import start_stage

if TYPE_CHECKING:
    import polars as pl

    from anonkit.metrics.levels import ModelCheck


def _num(value: Any, percent: bool = False, *, missing: str = "n/a") -> str:
    """A figure for the terminal; ``missing`` stands for ``None`` (``inf`` in JSON form)."""
    from anonkit.report._common import fmt

    if value is None:
        return missing
    if value == float("inf"):
        return "none"
    return f"{fmt(value)} ({value:.2%})" if percent else fmt(value)


def privacy_table(
    levels: Mapping[str, Any], checks: Sequence[ModelCheck], *, title: str = "Achieved privacy"
) -> Table:
    """A rich table of achieved levels (JSON-ready, see ``json_ready``) and model checks."""
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column("item", style="bold", overflow="fold")
    table.add_column("value", justify="right", overflow="fold")
    if not levels.get("classes"):
        table.add_row("classes", "0 (every record suppressed)")
        return table
    table.add_row("k (smallest class)", _num(levels["k"]))
    table.add_row("average re-identification risk", _num(levels["average_risk"], True))
    if "k_map" in levels:
        table.add_row("k-map (smallest population class)", _num(levels["k_map"]))
        presence = levels["presence"]
        table.add_row(
            "δ-presence (sample / population)",
            f"{_num(presence['min'])} to {_num(presence['max'])}",
        )
    for name, lv in levels.get("sensitive", {}).items():
        table.add_section()
        at = escape(name)
        table.add_row(f"{at}: distinct ℓ", _num(lv["distinct_l"]))
        table.add_row(f"{at}: entropy ℓ", _num(lv["entropy_l"]))
        for ell, c in lv["recursive_c"].items():
            table.add_row(f"{at}: recursive (c, ℓ={ell}), c >", _num(c, missing="none"))
        table.add_row(f"{at}: t, equal distance", _num(lv["t_equal"]))
        table.add_row(f"{at}: t, ordered distance ({lv['order']} order)", _num(lv["t_ordered"]))
        if "t_hierarchical" in lv:
            table.add_row(f"{at}: t, hierarchical distance", _num(lv["t_hierarchical"]))
        table.add_row(f"{at}: δ-disclosure, δ >", _num(lv["delta"]))
        table.add_row(f"{at}: β-likeness, basic", _num(lv["beta_basic"]))
        table.add_row(f"{at}: β-likeness, enhanced", _num(lv["beta_enhanced"], missing="none"))
    if checks:
        table.add_section()
        for check in checks:
            verdict = (
                "met"
                if check.satisfied
                else f"NOT met: {check.failing_classes:,} class(es), "
                f"{check.failing_records:,} record(s)"
            )
            table.add_row(escape(check.model), verdict)
    return table


def _in_release(
    err: AnonkitError, path: Path, release: pl.DataFrame, hint: str = ""
) -> AnonkitError:
    """``err`` naming the release file when the release is what it is about: a
    quasi-identifier the release lacks (followed by ``hint``, how the release was read:
    :func:`~anonkit.cli.measuring.read_hint`), or a label of it the hierarchy does not
    know (with the line of its first record); any other error as it is."""
    if isinstance(err, UnknownColumnError):
        absent = [c for c in err.columns if c not in release.columns]
        if not absent:
            return err
        names = ", ".join(repr(c) for c in absent)
        return ConfigError(
            f"The release {path.name} has no column {names}, which the configuration names; "
            f"its columns: {', '.join(repr(c) for c in release.columns[:20])}."
            + (f" {hint}" if hint else "")
        )
    if isinstance(err, ValuesNotInHierarchyError) and err.column in release.columns:
        column = release[err.column].cast(str).str.strip_chars()
        hits = (column == str(err.missing[0])).arg_true()
        if hits.len():
            return DataError(
                f"The release {path.name}, line {int(hits[0]) + 2}: {err} (a label the "
                "hierarchy does not know; a suppressed value is written '*')"
            )
    return err


def _read_population(
    option: Path | None,
    config: MeasureConfig | None,
    separator: str | None,
    encoding: str = "utf-8",
) -> pl.DataFrame | None:
    path = option if option is not None else (config.population if config else None)
    if path is None:
        return None
    return read_measured(path, separator=separator, encoding=encoding)[0]


#: How to mend a table read into one column by ``--separator``, which reads both tables.
_BOTH = (
    "leave out --separator, which reads both tables: the original is then read as the "
    "configuration's [read] says, the release with its separator detected"
)


#: ``-k`` of ``anonkit evaluate``.
_K_HELP = "The k of the privacy target (default: \\[privacy] k)."


@guarded
def evaluate_command(
    original: Annotated[Path, typer.Argument(help="The original table (CSV or Parquet).")],
    release: Annotated[
        Path,
        typer.Argument(
            help="The release, same rows in the same order (CSV or Parquet; or a folder of "
            "part files, as the Spark engine writes it)."
        ),
    ],
    config: Annotated[
        Path,
        typer.Option(
            "--config",
            "-c",
            help="TOML configuration: \\[attributes], \\[hierarchies], \\[privacy].",
            metavar="CONFIG.toml",
        ),
    ],
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write every figure as JSON here (no records).")
    ] = None,
    html: Annotated[
        Path | None, typer.Option("--html", help="Write the self-contained HTML report here.")
    ] = None,
    population: Annotated[
        Path | None,
        typer.Option(
            "--population",
            help="Population table (original form) for journalist risk and "
            "k-map; overrides \\[privacy] population.",
        ),
    ] = None,
    population_size: Annotated[
        int | None,
        typer.Option(
            "--population-size",
            min=1,
            metavar="N",
            help="Population size for the uniqueness estimate.",
        ),
    ] = None,
    class_attribute: Annotated[
        str | None,
        typer.Option(
            "--class-attribute", metavar="COLUMN", help="Column for the classification metric CM."
        ),
    ] = None,
    k: Annotated[
        int | None,
        typer.Option("-k", "--k", min=1, metavar="K", help=_K_HELP),
    ] = None,
    risk_threshold: Annotated[
        float,
        typer.Option(
            "--risk-threshold",
            metavar="SHARE",
            help="Records with a risk above this share (0 to 1) count as at risk.",
        ),
    ] = 0.2,
    suppression_limit: SuppressionLimitOption = None,
    separator: Annotated[
        str | None,
        typer.Option(
            "--separator",
            help="The CSV separator of ORIGINAL, RELEASE and the population table; \\t or "
            "tab for a tab. Default: ORIGINAL's from the configuration's \\[read], the "
            "others' detected.",
            callback=separator_option,
        ),
    ] = None,
    encoding: Annotated[
        str,
        typer.Option(
            "--encoding",
            help='The encoding of RELEASE and of the population table, e.g. "latin-1" '
            "(ORIGINAL is read as the configuration's \\[read] says).",
        ),
    ] = "utf-8",
    progress: ProgressOption = None,
    quiet: QuietOption = False,
) -> None:
    """Measure the information loss, risk and privacy levels of RELEASE against ORIGINAL.

    Records at '*' in every quasi-identifier form one class of their size,
    judged like any other, unless the release may have suppressed records:
    up to the share --suppression (default: \\[privacy] suppression_limit,
    else 0) they count as suppressed.

    A measurement: it exits 0 whether or not the release meets the models
    ("NOT met" in the table and the JSON say so).
    """
    from anonkit.io.write import check_outputs

    cfg = read_measure_config(config)
    limit = starred_limit(suppression_limit, cfg, "evaluate")
    # a report written over a table it measures, a hierarchy, or the other report
    read = [original, release, config, population, cfg.population, *cfg.hierarchies.values()]
    check_outputs({"--json": json_out, "--html": html}, read)
    named = population if population is not None else cfg.population
    with progress_reporter(progress, quiet=quiet) as bar, naming_population(named):
        payload, ev, levels, checks = _measure(
            cfg, original, release, population, population_size, class_attribute, k,
            risk_threshold, separator, encoding, bar, limit,
        )  # fmt: skip
    _report(payload, ev, levels, checks, original, release, config, json_out, html, quiet)


def _measure(
    cfg: MeasureConfig,
    original: Path,
    release: Path,
    population: Path | None,
    population_size: int | None,
    class_attribute: str | None,
    k: int | None,
    risk_threshold: float,
    separator: str | None,
    encoding: str,
    bar: ProgressReporter,
    limit: float,
) -> tuple[dict[str, Any], Any, Any, tuple[ModelCheck, ...]]:
    """Read both tables and measure the release (the work behind ``evaluate``); records
    at ``*`` everywhere are suppressed ones up to the share ``limit``."""
    from anonkit.evaluate import evaluate
    from anonkit.metrics.classes import starred_rows, starred_suppressed
    from anonkit.metrics.levels import (
        check_models,
        json_ready,
        model_attributes,
        privacy_levels,
        released_classes,
    )
    from anonkit.metrics.released import read_as_released

    read = dict(cfg.read)
    if separator is not None:
        read["separator"] = separator
    start_stage(bar, f"Reading {original.name}")
    orig, info = read_measured(original, **read)
    start_stage(bar, f"Reading {release.name}")
    # the release as released: anonymize's formula escapes ('@home) undone, unless the
    # configuration wrote the cells raw; its separator is --separator or its own (another
    # tool may have written it), as the population's
    formulas = "keep" if cfg.csv_formulas == "keep" else "unescape"
    rel, rel_info = read_measured(
        release, separator=separator, encoding=encoding, csv_formulas=formulas
    )
    pop = _read_population(population, cfg, separator, encoding)
    qi = list(cfg.quasi_identifiers)
    sensitive = list(dict.fromkeys([*cfg.sensitive, *model_attributes(cfg.models)]))
    hierarchies = {
        c: spec for c, spec in cfg.hierarchies.items() if c in qi and c not in cfg.numeric
    }
    try:
        ev = evaluate(
            orig,
            rel,
            quasi_identifiers=qi,
            hierarchies=hierarchies,
            sensitive=sensitive,
            class_attribute=class_attribute,
            population=pop,
            population_size=population_size,
            numeric=list(cfg.numeric),
            k=k if k is not None else cfg.k,
            risk_threshold=risk_threshold,
            progress=bar,
            suppression_limit=limit,
        )
    except UnknownColumnError as err:
        # a table read into one column by the wrong separator: which one it looks like; the
        # original's from the configuration's [read] unless --separator, which reads both
        given = separator is not None
        hint = read_hint(
            info, err.columns, remedy=_BOTH if given else None, name=f"The original {original.name}"
        )
        if hint:
            raise ConfigError(f"{err} {hint}") from None
        remedy = _BOTH if given else "use --separator {}"
        hint = read_hint(rel_info, err.columns, remedy=remedy, strip=False, name="It")
        raise _in_release(err, release, rel, hint) from None
    except ValuesNotInHierarchyError as err:
        raise _in_release(err, release, rel) from None
    except ParameterError as err:
        if err.parameter != "population_size":
            raise
        # the size came from --population-size: name the option, not evaluate's keyword
        raise ParameterError("--population-size", "evaluate", err.expected, err.got) from None
    start_stage(bar, "Measuring privacy levels")
    # the release's classes; sensitive values from the release, else from the original
    frame = rel.select(qi).with_columns(
        [(rel[s] if s in rel.columns else orig[s]).alias(s) for s in sensitive]
    )
    specs = level_specs(cfg, sensitive, with_qi=pop is not None)
    # cells read once as evaluate reads them (blanks and '**' are '*'), both for the rows
    # shown '*' and for the classes
    frame = read_as_released(frame, qi)
    n_star = starred_rows(frame, qi)
    starred = starred_suppressed(n_star, frame.height, limit)
    classes = released_classes(
        frame,
        qi,
        sensitive,
        hierarchies=specs,
        population=pop,
        numeric=cfg.numeric,
        starred_suppressed=starred,
    )
    levels = json_ready(privacy_levels(classes))
    checks = check_models(classes, cfg.models, limit=0)

    payload = {
        "files": {"original": str(original), "release": str(release), "config": str(cfg.path)},
        **ev.to_dict(),
        "privacy_levels": levels,
        "requested_models": [c.to_dict() for c in checks],
    }
    if n_star and not starred:
        payload["notes"].append(starred_note(n_star, limit))
    return payload, ev, levels, checks


def _report(
    payload: dict[str, Any],
    ev: Any,
    levels: Any,
    checks: tuple[ModelCheck, ...],
    original: Path,
    release: Path,
    config: Path,
    json_out: Path | None,
    html: Path | None,
    quiet: bool,
) -> None:
    """Render the JSON and HTML (all before writing either), then print the summary."""
    import json

    cfg_models = payload.get("requested_models", [])
    # render everything first so that a failure writes nothing
    json_text = json.dumps(payload, indent=2, allow_nan=False) + "\n"
    html_text = None
    if html is not None:
        from anonkit.report.evaluation import render_evaluation_html

        settings = {
            "original table": original.name,
            "release": release.name,
            "configuration": config.name,
            "requested privacy models": [m["model"] for m in cfg_models] or "none",
        }
        html_text = render_evaluation_html(
            ev,
            title=f"Evaluation of {release.name}",
            settings=settings,
            levels=levels,
            models=checks,
        )
    if json_out is not None:
        atomic_write_text(json_out, json_text)
    if html is not None and html_text is not None:
        atomic_write_text(html, html_text)

    console = stdout_console(quiet)
    console.print(_overview(payload))
    console.print(privacy_table(levels, checks))
    console.print(_figures("Key risks", payload["risk"], percent=True))
    console.print(_figures("Key losses", payload["loss"]))
    for note in payload["notes"]:
        console.print(f"note: {note}")
    if json_out is not None:
        console.print(f"figures written to {json_out}")
    if html is not None:
        console.print(f"report written to {html}")


def _overview(payload: Mapping[str, Any]) -> Table:
    data = payload["dataset"]
    classes = payload["classes"]
    table = Table(title="Release", show_header=False, title_justify="left")
    table.add_column("item", style="bold", overflow="fold")
    table.add_column("value", justify="right", overflow="fold")
    table.add_row("records", f"{data['n_records']:,}")
    table.add_row("suppressed", f"{data['n_suppressed']:,} ({data['suppressed_share']:.2%})")
    table.add_row(
        "classes",
        f"{classes['n_classes']:,} (sizes {classes['min_size']:,}-{classes['max_size']:,})",
    )
    table.add_row(
        "quasi-identifiers", escape(", ".join(payload["configuration"]["quasi_identifiers"]))
    )
    return table


def _figures(title: str, figures: Sequence[Mapping[str, Any]], *, percent: bool = False) -> Table:
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column("item", style="bold", overflow="fold")
    table.add_column("value", justify="right", overflow="fold")
    for figure in figures:
        if figure["value"] is None:
            continue
        table.add_row(escape(figure["title"]), _num(figure["value"], percent))
    return table
