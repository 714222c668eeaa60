"""The tables a measurement reads: a caller's frame named by its own parameter, the size
of the population a release was drawn from, checked against the release and the
population table, and the population uniqueness they give (counted in the table when it
is the whole population, else estimated)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import polars as pl

from anonkit._arrays import IntArray
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.resolve import resolve_hierarchy
from anonkit.exceptions import (
    POPULATION_TABLE,
    DataError,
    MissingValuesError,
    ParameterError,
    UnknownColumnError,
)
from anonkit.io.frames import to_polars
from anonkit.metrics.risk import (
    PopulationModel,
    population_table_uniqueness,
    population_uniqueness_risk,
)
from anonkit.progress import Progress


@dataclass(frozen=True)
class Measuring:
    """What :func:`anonkit.evaluate.evaluate` was asked to measure, its parameters checked:
    read alike by its in-memory path and by :func:`anonkit.evaluate_spark.measure_spark`
    (see :func:`~anonkit.evaluate.evaluate` for each field)."""

    quasi_identifiers: Sequence[str]
    hierarchies: Mapping[str, Any] | None = None
    sensitive: Sequence[str] = ()
    numeric: Sequence[str] = ()
    class_attribute: str | None = None
    value_ranges: Mapping[str, tuple[float, float]] | None = None
    k: int | None = None
    levels: Mapping[str, int] | None = None
    weights: Mapping[str, float] | None = None
    progress: Progress | None = None
    suppression_limit: float | None = None


def frame_argument(value: Any, parameter: str, owner: str) -> pl.DataFrame:
    """``value`` as a polars frame; a value that is no frame is named as ``owner``'s
    ``parameter`` (not as the generic 'frame' of anonymize).

    Examples
    --------
    >>> frame_argument("people.csv", "population", "evaluate")
    Traceback (most recent call last):
    ...
    anonkit.exceptions.ParameterError: The 'population' parameter of evaluate must be a polars or pandas DataFrame. Got 'str' instead.
    """  # noqa: E501
    try:
        frame, _ = to_polars(value)
    except ParameterError as err:
        if err.parameter != "frame":  # pragma: no cover - to_polars names only 'frame'
            raise
        raise ParameterError(parameter, owner, err.expected, err.got) from None
    return frame


def population_size(
    table_records: int | None, given: int | None, n_released: int, owner: str
) -> int | None:
    """The population size ``N``: ``given``, else the population table's records.

    A population table holds every record of its sample, so one with fewer records than
    the release is refused as a :class:`~anonkit.exceptions.DataError` that names the
    table (counts only, never values); a ``given`` size below the released records, or
    below the population table's records (the population holds them all), is a
    :class:`~anonkit.exceptions.ParameterError` of ``population_size``.

    Examples
    --------
    >>> population_size(400, None, 120, "evaluate"), population_size(None, 10**6, 120, "evaluate")
    (400, 1000000)
    """
    if table_records is not None and table_records < n_released:
        raise DataError(
            f"The population table holds {table_records} records, fewer than the "
            f"{n_released} released ones; a population holds every record of its sample: "
            "check that it is the table the sample was drawn from."
        )
    n = table_records if given is None else given
    if n is not None and n < n_released:
        raise ParameterError(
            "population_size", owner, f"at least the released records ({n_released})", n
        )
    if table_records is not None and given is not None and given < table_records:
        raise ParameterError(
            "population_size",
            owner,
            f"at least the records of the population table ({table_records})",
            given,
        )
    return n


#: How population uniqueness was found: its figure's title, explanation and reference.
UNIQUENESS_TEXTS = {
    "population table": (
        "Population uniqueness (population table)",
        "Share of the population unique on the released quasi-identifiers, counted in the "
        "population table: released records that no other population record matches.",
        "Counted: F_E = 1 (El Emam & Dankar, JAMIA 2008)",
    ),
    "pitman": (None, "Estimated with Pitman's model.", None),
    "zayatz": (None, "Estimated with Zayatz's model.", None),
}


def population_uniqueness(
    sizes: IntArray,
    population_sizes: IntArray | None,
    table: pl.DataFrame | None,
    population_n: int,
    model: str,
) -> tuple[float, str, str | None]:
    """Population uniqueness of released classes of ``sizes``, how it was found (a key of
    :data:`UNIQUENESS_TEXTS`) and a note, or ``None``.

    Counted in the population ``table`` (``population_sizes``: its records per class)
    when it is the whole population (``population_n`` records); otherwise, or without a
    table, estimated with ``model`` from the sample's class sizes, and a table that is
    only part of the population is said to be so.
    """
    table_records = None if table is None else table.height
    if population_sizes is not None and population_n == table_records:
        share = population_table_uniqueness(sizes, population_sizes, population_size=population_n)
        return share, "population table", None
    share = population_uniqueness_risk(
        sizes, population_size=population_n, model=cast(PopulationModel, model)
    )
    note = None
    if table_records is not None:
        note = (
            f"Population uniqueness was estimated with {model.capitalize()}'s model: the "
            f"population table holds {table_records:,} records, fewer than the population "
            f"size {population_n:,}, so its counts are not the whole population's."
        )
    return share, model, note


def population_table(population: Any, quasi_identifiers: Sequence[str], owner: str) -> pl.DataFrame:
    """The population table as polars, with every quasi-identifier and no missing value
    in them (a missing value is named as the population table's, by count only)."""
    pop = frame_argument(population, "population", owner)
    missing = [c for c in quasi_identifiers if c not in pop.columns]
    if missing:
        raise UnknownColumnError(missing, pop.columns, POPULATION_TABLE)
    for c in quasi_identifiers:
        nulls = pop[c].null_count()
        if nulls:
            raise MissingValuesError(c, nulls, table=POPULATION_TABLE)
    return pop


def covering_values(values: pl.Series, population: pl.DataFrame | None) -> pl.Series:
    """The values a hierarchy built for a column must cover: the sample's ``values`` and,
    with a population table, the population's too (as :func:`anonkit.anonymize` builds
    them), so that population records the sample lacks are matched, not refused.

    Examples
    --------
    >>> covering_values(pl.Series("zip", ["a"]), pl.DataFrame({"zip": ["c"]})).to_list()
    ['a', 'c']
    """
    if population is None:
        return values
    other = population[values.name]
    if other.dtype != values.dtype:
        other = other.cast(values.dtype, strict=False).drop_nulls()
    return pl.concat([values, other])


def covering_hierarchy(
    column: str, spec: Any, values: pl.Series, population: pl.DataFrame | None
) -> Hierarchy:
    """``column``'s hierarchy from its ``spec`` (:func:`~anonkit.core.resolve.
    resolve_hierarchy`), built over :func:`covering_values`: a value its builder cannot
    read is named with its record among ``values`` (the table's records, in order), or as
    the population table's."""
    covered = covering_values(values, population)
    return resolve_hierarchy(column, spec, covered, records=values.len())


def resolved_hierarchies(
    specs: Mapping[str, Any],
    quasi_identifiers: Sequence[str],
    numeric: Sequence[str],
    original: pl.DataFrame,
    population: pl.DataFrame | None,
) -> dict[str, Hierarchy]:
    """Each non-numeric quasi-identifier's hierarchy from its spec (``None``: its values
    read as they are), built over :func:`covering_values`."""
    return {
        c: covering_hierarchy(c, specs.get(c), original[c], population)
        for c in quasi_identifiers
        if c not in numeric
    }
