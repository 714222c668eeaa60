"""The app's export step: the release, the TOML configuration and the HTML report.

:func:`config_toml` writes the configuration of :mod:`anonkit.config` that makes
``anonkit anonymize`` produce the same release (the app's settings map one to one onto
its keys, tested by a round trip through the CLI); :func:`write_release` writes the
release as the CLI does (:func:`anonkit.io.tables.write_table`, the input's separator,
formula cells escaped); :func:`report_html` is the CLI's ``--report`` page
(:func:`anonkit.report.html.render_html`), written with the configuration by
:func:`write_text`. Every export is written atomically (a complete file or the earlier
one) and never over a file the run read (the table, a hierarchy file, the population).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from anonkit._atomic import atomic_write_text
from anonkit.api import takes_keyword
from anonkit.app.files import MODEL_FILE_PARAMETERS, file_of
from anonkit.app.population import Population
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import FILE, HierarchySpec
from anonkit.exceptions import OutputIsInputError
from anonkit.io.tables import write_table
from anonkit.io.write import WriteInfo, check_not_input, output_format
from anonkit.report.html import render_html
from anonkit.result import AnonymizationResult
from anonkit.safety.reading import ReadSettings
from anonkit.safety.starter import toml_key, toml_string, toml_value

__all__ = [
    "check_release_name",
    "config_toml",
    "report_html",
    "toml_value",
    "write_release",
    "write_text",
]


def config_toml(
    *,
    input: str | Path,  # noqa: A002 - the configuration key it fills
    read: ReadSettings,
    roles: Mapping[str, Sequence[str]],
    hierarchies: Mapping[str, HierarchySpec],
    k: int | None,
    suppression_limit: float,
    models: Sequence[tuple[str, Mapping[str, Any]]] = (),
    algorithm: str,
    metric: str,
    output: str | Path | None = None,
    renamed: Mapping[str, str] | None = None,
    options: Mapping[str, Any] | None = None,
    numeric: Sequence[str] = (),
    population: str | Path | None = None,
) -> str:
    """The TOML configuration that reproduces the app's run with ``anonkit anonymize``.

    Parameters
    ----------
    input, output
        The paths to write (absolute paths keep the configuration usable anywhere).
    read
        How the input was read.
    roles
        The columns of each role (``quasi_identifier``, ``identifying``, ``sensitive``,
        ``insensitive``).
    hierarchies
        Per quasi-identifier: a hierarchy file path or a builder table.
    k, suppression_limit, models, algorithm, metric, options
        The privacy and search settings; ``models`` as (registry name, parameters),
        ``options`` the local-recoding algorithms' (``[search]`` keys).
    numeric
        Quasi-identifiers Mondrian and microaggregation read as numbers.
    population
        The population table's path (k-map, δ-presence, journalist risk).
    renamed
        Paths to write under another name (uploaded files: their temporary copy is
        written as the name the user uploaded, to be placed beside the configuration).

    Raises
    ------
    TypeError
        If a hierarchy is a :class:`Hierarchy` object (only files and builders are written).
    OutputFormatError, OutputIsInputError
        If ``anonkit anonymize`` would refuse ``output`` (:func:`check_release_name`).
    """
    model_files = [
        str(params[key])
        for _, params in models
        for key in MODEL_FILE_PARAMETERS
        if isinstance(params.get(key), str | Path)
    ]
    files = [input, population, *(file_of(spec) for spec in hierarchies.values()), *model_files]
    used = {str(p) for p in files if isinstance(p, str | Path)}
    names, saved_as = _distinct_names({p: n for p, n in (renamed or {}).items() if p in used})

    def path(p: str | Path) -> str:
        return names.get(str(p), str(p))

    if output is not None:
        check_release_name(output, [path(p) for p in files if isinstance(p, str | Path)])

    lines = [
        "# Written by `anonkit app`: run `anonkit anonymize <this file>` to reproduce the",
        "# release the app made.",
        *(
            f"# Save the upload {given!r} beside this file as {written!r}."
            for given, written in saved_as
        ),
        f"input = {toml_string(path(input))}",
    ]
    if output is not None:
        lines.append(f"output = {toml_string(str(output))}")
    lines += ["", "[read]"]
    if read.separator is not None:
        lines.append(f"separator = {toml_string(read.separator)}")
    lines += [
        f"encoding = {toml_string(read.encoding)}",
        f"missing = {toml_value(list(read.missing))}",
        f"strip = {toml_value(read.strip)}",
        f"decimal_comma = {toml_value(read.decimal_comma)}",
        "",
        "[attributes]",
        f"quasi_identifiers = {toml_value(list(roles['quasi_identifier']))}",
        f"identifying = {toml_value(list(roles['identifying']))}",
        f"sensitive = {toml_value(list(roles['sensitive']))}",
        f"insensitive = {toml_value(list(roles['insensitive']))}",
        *([f"numeric = {toml_value(list(numeric))}"] if numeric else []),
        "",
        "[hierarchies]",
    ]
    for column in roles["quasi_identifier"]:
        spec = hierarchies.get(column)
        if spec is None:
            continue
        if isinstance(spec, Hierarchy):
            raise TypeError(f"the hierarchy of {column!r} must be a file or a builder table")
        if isinstance(spec, Mapping) and spec.get("type") == FILE:  # read as the data is
            spec = Path(spec["path"]) if spec.get("encoding") == read.encoding else spec
        value = toml_string(path(spec)) if isinstance(spec, str | Path) else toml_value(spec)
        lines.append(f"{toml_key(column)} = {value}")
    lines += ["", "[privacy]"]
    if k is not None:
        lines.append(f"k = {k}")
    lines.append(f"suppression_limit = {toml_value(float(suppression_limit))}")
    if population is not None:
        lines.append(f"population = {toml_string(path(population))}")
    if models:
        entries = [
            toml_value(
                {"name": name}
                | {k: path(v) if k in MODEL_FILE_PARAMETERS else v for k, v in params.items()}
            )
            for name, params in models
        ]
        lines.append("models = [")
        lines += [f"  {entry}," for entry in entries]
        lines.append("]")
    lines += [
        "",
        "[search]",
        f"algorithm = {toml_string(algorithm)}",
        *([f"metric = {toml_string(metric)}"] if takes_keyword(algorithm, "metric") else []),
        *(f"{toml_key(key)} = {toml_value(value)}" for key, value in (options or {}).items()),
        "",
        "[release]",
        'suppressed = "mask"',
        "",
    ]
    return "\n".join(lines)


def check_release_name(output: str | Path, read: Iterable[str | Path]) -> None:
    """Refuse a release name that ``anonkit anonymize`` would refuse in the configuration:
    an extension it cannot write (:func:`anonkit.io.write.output_format`), or a file the
    run reads (:func:`anonkit.io.write.check_not_input`), ``read`` as the configuration
    names them. Two relative names are both beside the configuration; an absolute name
    and a relative one are compared by the CLI only, which knows where the configuration
    lies.

    Raises
    ------
    OutputFormatError, OutputIsInputError
        As the CLI raises them, naming ``output`` as given.

    Examples
    --------
    >>> check_release_name("release.csv", ["/data/people.csv", "people.csv"])
    >>> try:
    ...     check_release_name("./people.csv", ["people.csv"])
    ... except OutputIsInputError as err:
    ...     print(err.output, "reads", err.source)
    ./people.csv reads people.csv
    """
    output_format(Path(output))
    target = Path(output).expanduser()
    for source in read:
        given = Path(source).expanduser()
        if target.is_absolute() != given.is_absolute():
            continue
        if not target.is_absolute():  # beside the configuration, wherever it lies
            if os.path.normpath(target) == os.path.normpath(given):
                raise OutputIsInputError(output, source)
            continue
        try:
            check_not_input(target, [given])
        except OutputIsInputError:
            raise OutputIsInputError(output, source) from None


def write_release(
    result: AnonymizationResult,
    path: str | Path,
    *,
    separator: str | None,
    inputs: Iterable[Any] = (),
) -> WriteInfo:
    """Write the release as ``anonkit anonymize`` does (CSV with the input's separator,
    or Parquet by extension), atomically.

    ``inputs`` are the files the run read (paths, hierarchy specs; other objects are
    passed over): the release is never written over one of them.

    Raises
    ------
    OutputFormatError
        If the extension is not .csv, .tsv or .parquet.
    OutputIsInputError
        If ``path`` is one of ``inputs``.
    """
    fmt = output_format(Path(path))
    check_not_input(path, inputs)
    return write_table(result.release, path, separator=separator if fmt == "csv" else None)


def write_text(path: str | Path, text: str, *, inputs: Iterable[Any] = ()) -> None:
    """Write an export that is text (the configuration, the report) atomically, as UTF-8:
    a write that fails leaves the earlier file as it was.

    Raises
    ------
    OutputIsInputError
        If ``path`` is one of ``inputs`` (the files the run read).
    """
    check_not_input(path, inputs)
    atomic_write_text(Path(path), text)


def report_html(
    result: AnonymizationResult,
    *,
    title: str,
    settings: Mapping[str, Any],
    heights: Mapping[str, int],
    risk: Mapping[str, float | None] | None = None,
    population: Population | None = None,
) -> str:
    """The short report of the run (the CLI's ``--report`` page) with the risk figures
    the Explore page shows (``risk``, :attr:`~anonkit.app.results.RunOutcome.risk`: the
    journalist risk measured against the ``population`` table when one was given)."""
    note = None
    if population is not None:
        settings = {**settings, "population": population.name}
        note = (
            f"The journalist risk is measured against the population table {population.name} "
            f"({population.frame.height:,} records)."
        )
    return render_html(
        result, title=title, config_summary=settings, heights=heights, risk=risk, risk_note=note
    )


def _distinct_names(
    renamed: Mapping[str, str],
) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """``renamed`` with every name once: a second upload of one name is written as
    ``h-2.csv`` (and said, as (uploaded name, written name))."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    saved_as: list[tuple[str, str]] = []
    for path, name in renamed.items():
        written, n = name, 1
        while written in taken:
            n += 1
            stem, dot, suffix = name.rpartition(".")
            written = f"{stem}-{n}.{suffix}" if dot and stem else f"{name}-{n}"
        taken.add(written)
        names[path] = written
        if written != name:
            saved_as.append((name, written))
    return names, saved_as
