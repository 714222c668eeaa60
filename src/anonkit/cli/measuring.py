"""What ``anonkit evaluate`` and ``anonkit check`` share: the measurement sections of a
run configuration (:func:`read_measure_config`), the suppression limit under which
records at ``*`` count as suppressed (:func:`starred_limit`, ``--suppression``), the
hierarchy specs and population a measurement of the models needs, and how a table is
read: a file, or the folder of part files the Spark engine writes a release as
(:func:`read_measured`), and the hint that follows an unknown column (:func:`read_hint`,
which ``anonkit release`` gives too)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from anonkit._frozen import FrozenDict
from anonkit.exceptions import (
    EmptyDataError,
    InputFileError,
    InputFormatError,
    ParameterError,
    UnknownColumnError,
)
from anonkit.io.tables import ReadInfo, read_table_info, unknown_column_hint
from anonkit.io.write import unescape_formulas

if TYPE_CHECKING:
    import polars as pl

    from anonkit.models.base import PrivacyModel

__all__ = [
    "MEASURE_SECTIONS",
    "MeasureConfig",
    "SuppressionLimitOption",
    "level_specs",
    "needs_population",
    "read_hint",
    "separator_hinted",
    "read_measure_config",
    "read_measured",
    "starred_limit",
    "starred_note",
]

#: Sections of a run configuration that a measurement reads.
MEASURE_SECTIONS = ("read", "attributes", "hierarchies", "privacy", "release")


@dataclass(frozen=True)
class MeasureConfig:
    """What a measurement reads from a run configuration.

    Attributes
    ----------
    path
        The configuration file.
    quasi_identifiers, sensitive, numeric
        Column roles from ``[attributes]`` (quasi-identifiers default to the keys of
        ``[hierarchies]``, as for ``anonkit anonymize``).
    hierarchies
        Hierarchy specs by column (file paths resolved against the file's folder, or
        builder tables).
    k
        ``[privacy] k`` when the file gives it.
    models
        The requested privacy models: ``KAnonymity(k)`` when ``k`` is given, then
        ``[privacy] models``.
    population
        ``[privacy] population``, the population table's path.
    read
        ``[read]`` options for the original table (:func:`anonkit.io.tables.read_table`).
    suppression_limit
        ``[privacy] suppression_limit`` when the file gives it (``None`` otherwise): up to
        that share, records at ``*`` everywhere are suppressed ones, beyond it a class
        (:func:`starred_limit`, :func:`~anonkit.metrics.classes.starred_suppressed`).
    csv_formulas
        ``[release] csv_formulas``: ``"escape"`` (the default; a CSV release is read with
        anonkit's formula escapes undone) or ``"keep"`` (its cells were written raw).
    """

    path: Path
    quasi_identifiers: tuple[str, ...]
    sensitive: tuple[str, ...] = ()
    numeric: tuple[str, ...] = ()
    hierarchies: Mapping[str, Any] = field(default_factory=lambda: FrozenDict({}))
    k: int | None = None
    models: tuple[PrivacyModel, ...] = ()
    population: Path | None = None
    read: Mapping[str, Any] = field(default_factory=lambda: FrozenDict({}))
    suppression_limit: float | None = None
    csv_formulas: str = "escape"


def read_measure_config(
    path: Path, *, quasi_identifiers: Sequence[str] | None = None
) -> MeasureConfig:
    """Read the measurement sections of a TOML run configuration.

    The sections are validated by :func:`anonkit.config.parse_config` exactly as for
    ``anonkit anonymize``; sections a measurement does not use are not read.

    Parameters
    ----------
    path
        The configuration file.
    quasi_identifiers
        Quasi-identifiers that replace those of the file (``anonkit check --qi``).

    Raises
    ------
    InputFileError
        If the file is missing or unreadable.
    ConfigError
        If it is not TOML or its sections are invalid.
    """
    from anonkit.config import parse_config
    from anonkit.io.toml import read_toml
    from anonkit.models import KAnonymity

    p = Path(path)
    data = read_toml(p)
    part: dict[str, Any] = {key: data[key] for key in MEASURE_SECTIONS if key in data}
    # parse_config wants what a run needs: an input (not read here) and a privacy target
    part["input"] = data["input"] if isinstance(data.get("input"), str) else p.name
    privacy = part.get("privacy", {})
    requested_k = isinstance(privacy, dict) and "k" in privacy
    if isinstance(privacy, dict) and not requested_k and not privacy.get("models"):
        part["privacy"] = {**privacy, "k": 1}
    if quasi_identifiers is not None:
        attrs = part.get("attributes", {})
        if isinstance(attrs, dict):
            part["attributes"] = {**attrs, "quasi_identifiers": list(quasi_identifiers)}
    cfg = parse_config(part, path=p.resolve())
    k = cfg.k if requested_k else None
    models: list[PrivacyModel] = [KAnonymity(k)] if k is not None else []
    models += list(getattr(cfg, "privacy", ()))
    return MeasureConfig(
        path=p,
        quasi_identifiers=tuple(cfg.quasi_identifiers),
        sensitive=tuple(cfg.sensitive),
        numeric=tuple(getattr(cfg, "numeric", ())),
        hierarchies=FrozenDict(dict(cfg.hierarchies)),
        k=k,
        models=tuple(models),
        population=getattr(cfg, "population", None),
        read=FrozenDict(cfg.read_kwargs()),
        suppression_limit=(
            float(cfg.suppression_limit)
            if isinstance(privacy, dict) and "suppression_limit" in privacy
            else None
        ),
        csv_formulas=cfg.csv_formulas,
    )


#: ``--suppression`` of ``anonkit check`` and ``anonkit evaluate``.
SuppressionLimitOption = Annotated[
    float | None,
    typer.Option(
        "--suppression",
        metavar="SHARE",
        help="The release's suppression limit, a share of records (0 to 1): up to that many "
        "records at '*' in every quasi-identifier count as suppressed, more form one class "
        "(default: \\[privacy] suppression_limit, else 0: they form one class).",
    ),
]


def starred_limit(option: float | None, config: MeasureConfig | None, command: str) -> float:
    """The share of records a measured release may have suppressed, which says how its
    records at ``*`` in every quasi-identifier are read
    (:func:`~anonkit.metrics.classes.starred_suppressed`): ``--suppression``, else
    ``[privacy] suppression_limit``, else 0.

    Told nothing, they are one class of their size, judged like any other: that is what an
    attacker sees, and what ``anonkit anonymize`` releases unless its configuration allows
    suppression (its default limit is 0). Read as suppressed records instead, a release
    generalized to the top would show no class, no risk and an achieved k of 0, and the
    sensitive values of such a class would go unjudged.

    Raises
    ------
    ParameterError
        If ``option`` is not a share between 0 and 1 (no typer range: its ``[0.0<=x<=1.0]``
        would cut the option names of ``--help`` on an 80-column terminal).

    Examples
    --------
    >>> starred_limit(None, None, "check"), starred_limit(0.05, None, "check")
    (0.0, 0.05)
    """
    from anonkit._validation import check_real

    if option is not None:
        return check_real(option, "--suppression", command, low=0, high=1)
    if config is not None and config.suppression_limit is not None:
        return config.suppression_limit
    return 0.0


def starred_note(n_star: int, limit: float) -> str:
    """The note that ``n_star`` records at ``*`` everywhere are read as one class (under the
    suppression limit ``limit``), and how to say they are suppressed ones."""
    what = f"{n_star:,} record(s) show '*' in every quasi-identifier"
    if limit:
        return (
            f"{what}, more than the suppression limit ({limit:.2%}) allows; they are read "
            "as one class of fully generalized records, judged like any other."
        )
    return (
        f"{what}; they are read as one class of fully generalized records, judged like any "
        "other. If the release suppressed them, give its suppression limit (--suppression "
        "SHARE, or suppression_limit in the configuration's privacy section)."
    )


def level_specs(
    config: MeasureConfig | None, sensitive: Sequence[str], *, with_qi: bool
) -> dict[str, Any]:
    """Hierarchy specs for :func:`~anonkit.metrics.levels.released_classes`: the sensitive
    attributes' (hierarchical t-closeness) and, for population matching, the
    quasi-identifiers' (not the numeric ones)."""
    if config is None:
        return {}
    wanted = [*sensitive, *(config.quasi_identifiers if with_qi else ())]
    return {
        c: config.hierarchies[c]
        for c in wanted
        if c in config.hierarchies and c not in config.numeric
    }


def needs_population(models: Sequence[PrivacyModel]) -> bool:
    from anonkit.models.base import POPULATION_COUNT

    return any(POPULATION_COUNT in m.requires for m in models)


# ------------------------------------------------------------------------ reading tables
#: A part file Spark writes (``part-00000-<uuid>-c000.csv``, ``...c000.snappy.parquet``):
#: its number, which orders the parts.
_PART = re.compile(r"part-(\d+)")


def read_measured(
    path: Path, *, csv_formulas: str = "keep", **read: Any
) -> tuple[pl.DataFrame, ReadInfo]:
    """A table to measure, read by :func:`~anonkit.io.tables.read_table_info` with the
    options ``read``: a file, or a folder of part files as the Spark engine writes a
    release (``release.csv/part-00000-....csv``, or ``.parquet`` parts).

    The parts, files named ``part-N...`` in the order of ``N``, are read one by one with
    the same options and the same checks as a single file (an error names the part and
    its line); each has its own header, which must be the same in all. A part holding
    no record is passed over. ``_SUCCESS``, Hadoop's ``.crc`` checksums and other files
    whose names start with ``.`` or ``_`` are ignored; any other file, or a folder, is
    refused, as are CSV and Parquet parts together. A separator sniffed on the first part
    reads the others. ``csv_formulas="unescape"`` reads a CSV release as released
    (:func:`anonkit.io.tables.read_table`). The :class:`~anonkit.io.tables.ReadInfo`
    is the first part's, with the counts of all.

    Raises
    ------
    InputFileError
        If a folder holds no part file, something else, or CSV and Parquet parts.
    InputFormatError
        If a part's header differs from the first's, or a part is refused as a file is.
    EmptyDataError
        If no part holds a record.
    """
    if csv_formulas not in ("keep", "unescape"):
        raise ParameterError("csv_formulas", "read_measured", "'keep' or 'unescape'", csv_formulas)
    p = Path(path)
    frame, info = _read_parts(p, _parts(p), read) if p.is_dir() else read_table_info(p, **read)
    if csv_formulas == "unescape" and info.separator is not None:  # Parquet: unescaped
        frame = unescape_formulas(frame)
    return frame, info


def _parts(folder: Path) -> list[Path]:
    """The part files of a Spark output ``folder``, in part order (see
    :func:`read_measured`)."""
    advice = "name a file, or merge the parts into one"
    parts: list[tuple[int, str, Path]] = []
    for entry in folder.iterdir():
        name = entry.name
        if name.startswith((".", "_")) or name.endswith(".crc"):
            continue
        number = _PART.match(name)
        if number is None or not entry.is_file():
            raise InputFileError(
                folder,
                f"it is a folder holding {name!r}, which is not a part file Spark writes "
                f"(part-*.csv or part-*.parquet); {advice}.",
            )
        parts.append((int(number.group(1)), name, entry))
    if not parts:
        raise InputFileError(
            folder,
            "it is a folder with no part files (part-*.csv or part-*.parquet, as Spark "
            f"writes a release); {advice}.",
        )
    kinds = {p.suffix.lower() in (".parquet", ".pq") for _, _, p in parts}
    if len(kinds) > 1:
        raise InputFileError(
            folder, f"it is a folder holding both CSV and Parquet part files; {advice}."
        )
    return [p for _, _, p in sorted(parts)]


def _read_parts(
    folder: Path, parts: Sequence[Path], read: Mapping[str, Any]
) -> tuple[pl.DataFrame, ReadInfo]:
    """The part files ``parts`` of ``folder`` read as one table (:func:`read_measured`)."""
    import polars as pl

    options = dict(read)
    frames: list[pl.DataFrame] = []
    infos: list[tuple[Path, ReadInfo]] = []
    for part in parts:
        try:
            frame, info = read_table_info(part, **options)
        except EmptyDataError:  # an empty partition: a header alone, or nothing
            continue
        if infos and info.columns != infos[0][1].columns:
            raise InputFormatError(
                part,
                f"its header differs from that of {infos[0][0].name}; the parts of one "
                "table share one header.",
            )
        if not infos and options.get("separator") is None:
            options["separator"] = info.separator  # the others as the first is read
        frames.append(frame)
        infos.append((part, info))
    if not frames:
        raise EmptyDataError(
            str(folder), message=f"The folder {folder} has no records in its part files."
        )
    try:
        table = pl.concat(frames, how="vertical")
    except pl.exceptions.PolarsError:  # Parquet parts whose columns differ in type
        raise InputFormatError(
            folder, "its part files' columns differ in type; merge them into one file."
        ) from None
    first = infos[0][1]
    return table, replace(
        first,
        missing_cells=sum(i.missing_cells for _, i in infos),
        blank_lines=sum(i.blank_lines for _, i in infos),
    )


@contextlib.contextmanager
def separator_hinted(info: ReadInfo) -> Iterator[None]:
    """An :class:`~anonkit.exceptions.UnknownColumnError` raised inside, followed by the
    wrong-separator hint (:func:`read_hint` with ``--separator`` as the remedy) for the
    table ``info`` describes: read into one column, it looks otherwise separated."""
    try:
        yield
    except UnknownColumnError as err:
        hint = read_hint(info, err.columns, remedy="use --separator {}", strip=False)
        if hint:
            err.args = (f"{err} {hint}",)
        raise


def read_hint(
    info: ReadInfo,
    missing: Sequence[str],
    *,
    remedy: str | None = None,
    strip: bool = True,
    name: str | None = None,
) -> str:
    r""":func:`~anonkit.io.tables.unknown_column_hint` for a table a command read, or
    ``""``: when the table was read into one column that another separator splits, its
    remedy replaced by ``remedy`` (a command-line option: ``"use --separator ';'"``, with
    ``{}`` standing for the separator the table looks separated by), the table called
    ``name`` instead of "The file"; the hint on names with spaces around them
    (``strip``) only where the command reads with ``[read] strip``.

    Examples
    --------
    >>> info = ReadInfo(",", False, "utf-8", 0, False, ("a;b",), single_column_hint=";")
    >>> print(read_hint(info, ["a"], remedy="use --separator {}").replace("; ", "\n"))
    The file was read with separator ',' into one column
    it looks ';'-separated: use --separator ';'.
    """
    hint = unknown_column_hint(info, missing)
    looks = info.single_column_hint
    if looks is None:
        return hint if strip else ""
    head, colon, _ = hint.rpartition(": ")
    if remedy is not None and colon:
        hint = f"{head}: {remedy.format(repr(looks))}."
    if name is not None and hint.startswith("The file"):
        hint = name + hint.removeprefix("The file")
    return hint
