"""The population table of the privacy page: k-map, δ-presence and journalist risk.

A sample's journalist risk, k-map and δ-presence compare each released class with the
records of the population the sample was drawn from (Sweeney's k-map; El Emam and
Dankar 2008). :func:`load_population` reads that table with the input's reading settings
(as ``anonkit anonymize`` reads ``[privacy] population``), :func:`check_population` says
what is wrong before the run (a model that needs one without it, quasi-identifiers the
table lacks), and :func:`population_risk` measures the release's journalist risk against
it with :func:`anonkit.metrics.released.released_classes` and
:func:`anonkit.verify.release_risk` (the path :func:`anonkit.verify.verify_release` takes),
also when no model asked for the population.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from anonkit.app.guard import FieldError
from anonkit.io.tables import read_table
from anonkit.metrics.released import released_classes
from anonkit.models.base import POPULATION_COUNT, PrivacyModel
from anonkit.safety.reading import ReadSettings
from anonkit.verify import release_risk

__all__ = [
    "Population",
    "check_population",
    "load_population",
    "needs_population",
    "population_risk",
]


@dataclass(frozen=True)
class Population:
    """A population table read for the app.

    Attributes
    ----------
    frame
        Its records (never shown or logged; only its size is).
    path
        The file read (the TOML's ``[privacy] population``).
    name
        The name shown (an upload's own name).
    uploaded
        True when the file was uploaded (its path is a temporary copy).
    """

    frame: pl.DataFrame
    path: Path
    name: str
    uploaded: bool = False


def load_population(
    path: str | Path, read: ReadSettings, *, name: str | None = None, uploaded: bool = False
) -> Population:
    """Read the population table as the CLI reads it: with the input's ``[read]`` settings.

    Raises
    ------
    InputFileError, InputEncodingError, InputFormatError
        The reader's errors.
    """
    p = Path(path).expanduser().resolve()
    frame = read_table(p, **read.kwargs())
    return Population(frame, p, name or p.name, uploaded)


def needs_population(models: Sequence[PrivacyModel]) -> list[PrivacyModel]:
    """The models that read population counts (k-map, δ-presence)."""
    return [m for m in models if POPULATION_COUNT in m.requires]


def check_population(
    population: Population | None,
    quasi_identifiers: Sequence[str],
    models: Sequence[PrivacyModel],
) -> None:
    """Refuse what the run would refuse, naming the fix.

    Raises
    ------
    FieldError
        If a model needs a population table and none is given, if the table lacks a
        quasi-identifier, or if it is empty (in the page's words).

    Examples
    --------
    >>> from anonkit.models import KMap
    >>> try:
    ...     check_population(None, ["age"], [KMap(5)])
    ... except ValueError as err:
    ...     print(err)
    Population: 5-map needs a population table; give one in the Population card, or set it to 0.
    """
    wanting = needs_population(models)
    if population is None:
        if wanting:
            names = ", ".join(m.describe() for m in wanting)
            need, them = ("needs", "it") if len(wanting) == 1 else ("need", "them")
            raise FieldError(
                "Population", f"{names} {need} a population table; give one in the "
                f"Population card, or set {them} to 0", parameter="population",
            )  # fmt: skip
        return
    missing = [c for c in quasi_identifiers if c not in population.frame.columns]
    if missing:
        raise FieldError(
            "Population", f"{population.name} lacks {', '.join(repr(c) for c in missing)}; "
            "give a table holding every quasi-identifier", parameter="population",
        )  # fmt: skip
    if population.frame.height == 0:
        raise FieldError("Population", f"{population.name} has no records", parameter="population")


def population_risk(
    release: pl.DataFrame,
    population: pl.DataFrame,
    *,
    quasi_identifiers: Sequence[str],
    hierarchies: Mapping[str, Any],
    numeric: Sequence[str] = (),
    suppressed: bool = True,
) -> dict[str, float | None]:
    """The release's risk figures with the population's records per released class
    (journalist risk included).

    ``suppressed`` says whether the run suppressed records (``result.suppressed > 0``):
    only then are the records at ``*`` in every quasi-identifier suppressed ones, in no
    class; otherwise they are a class of fully generalized records like any other, as
    :func:`anonkit.verify.verify_release` counts them. A class is taken
    to match at least its own records in the population
    (:func:`anonkit.metrics.risk.journalist_risk`), so a population lacking some sample
    records makes the journalist risk no higher than the prosecutor risk.
    """
    qi = list(quasi_identifiers)
    classes = released_classes(
        release,
        qi,
        hierarchies={c: h for c, h in hierarchies.items() if c in qi and c not in numeric},
        population=population.select(qi),
        numeric=list(numeric),
        starred_suppressed=suppressed,
    )
    summary = classes.summary
    return release_risk(summary.sizes, summary.population)
