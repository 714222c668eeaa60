"""What a release must satisfy: the privacy models, the suppression limit and the
population, as one value every estimator holds (its ``privacy``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import polars as pl

from anonkit._validation import Constraint, Interval, validate
from anonkit.core.values import text_expr
from anonkit.exceptions import DataError, EmptyDataError, ParameterError
from anonkit.io.tables import read_table
from anonkit.metrics import tables
from anonkit.models import PrivacyModel, split_k_anonymity

__all__ = ["Privacy", "check_population"]


@dataclass(frozen=True)
class Privacy:
    """What a release must satisfy: every model, within a suppression limit.

    Parameters
    ----------
    models
        The privacy models (all must hold), or a single one.
    suppression_limit
        Largest share of records that may be suppressed, in [0, 1].
    population
        The population the data is a sample of (pandas or polars, holding the
        quasi-identifiers), for k-map and δ-presence.

    Examples
    --------
    >>> from anonkit.models import KAnonymity
    >>> Privacy(KAnonymity(2), suppression_limit=0.1).describe()
    ['2-anonymity']
    """

    models: PrivacyModel | Sequence[PrivacyModel] = ()
    suppression_limit: float = 0.0
    population: Any = None

    #: Constraints of the fields that need no data to check.
    _constraints: ClassVar[dict[str, Constraint]] = {
        "suppression_limit": Interval(float, 0, 1, noun="a share"),
    }
    #: Who the messages about these fields name.
    owner: ClassVar[str] = "Privacy"
    #: The name the models are given under, in errors.
    parameter: ClassVar[str] = "models"

    @property
    def model_list(self) -> list[PrivacyModel]:
        """The models as a list.

        Raises
        ------
        ParameterError
            If ``models`` is not a privacy model or a list of them.
        """
        given: Any = self.models
        if _is_model(given):
            return [given]
        listed: list[PrivacyModel] = []
        if isinstance(given, str) or not isinstance(given, Iterable):
            bad = [given]
        else:
            listed = list(given)
            bad = [m for m in listed if not _is_model(m)]
        if bad:
            what = "a privacy model of anonkit.models (KAnonymity(5), ...) or a list of them"
            if isinstance(bad[0], type):  # the protocol's attributes are on the class too
                what += f"; pass an instance, {bad[0].__name__}(...), not the class"
            raise ParameterError(self.parameter, self.owner, what, bad[0])
        return listed

    def describe(self) -> list[str]:
        """Each model described."""
        return [m.describe() for m in self.model_list]

    def checked(self, n_records: int) -> list[PrivacyModel]:
        """The models, after checking the fields against a table of ``n_records``.

        Raises
        ------
        ParameterError
            If there is no model, a share is out of range, or k exceeds the records.
        """
        validate({"suppression_limit": self.suppression_limit}, self._constraints, self.owner)
        models = self.model_list
        if not models:
            self._no_models()
        k, _ = split_k_anonymity(models)
        if k is not None and k > n_records:
            raise ParameterError(
                "k", "KAnonymity", f"at most the number of records ({n_records})", k
            )
        return models

    def _no_models(self) -> None:
        raise ParameterError("models", self.owner, "a privacy model or a list of them", [])


@dataclass(frozen=True)
class _IsPrivacy:
    """A :class:`Privacy` value (the constraint of every estimator's ``privacy``)."""

    def accepts(self, value: object) -> bool:
        return isinstance(value, Privacy)

    def __str__(self) -> str:
        return "a Privacy(models, suppression_limit, population)"


def check_population(data: pl.DataFrame, population: pl.DataFrame, qi: Sequence[str]) -> None:
    """Refuse a population that does not contain the sample ``data``: a combination of
    quasi-identifier values (read as text, as hierarchies read them) held by more sampled
    records than population records. k-map, δ-presence and the journalist risk count
    population records per class; such a population makes them count too few.

    Raises
    ------
    DataError
        Saying how many combinations and sampled records are short (never the values).

    Examples
    --------
    >>> sample = pl.DataFrame({"age": [30, 30]})
    >>> check_population(sample, pl.DataFrame({"age": ["30", "30", "40"]}), ["age"])
    >>> try:
    ...     check_population(sample, pl.DataFrame({"age": ["30", "40"]}), ["age"])
    ... except DataError as err:
    ...     print(str(err)[:71])
    The population holds fewer records than the sample for 1 combination(s)
    """
    cols = list(qi)

    def counts(frame: pl.DataFrame, name: str) -> pl.DataFrame:
        texts = [text_expr(c, frame.schema[c]).alias(c) for c in cols]
        return frame.select(texts).group_by(cols).agg(pl.len().alias(name))

    joined = counts(data, "_sample").join(
        counts(population, "_population"), on=cols, how="left", nulls_equal=True
    )
    short = joined.filter(pl.col("_population").fill_null(0) < pl.col("_sample"))
    if short.height:
        raise DataError(
            f"The population holds fewer records than the sample for {short.height} "
            f"combination(s) of the quasi-identifiers ({int(short['_sample'].sum())} sampled "
            "records); a population holds every record of its sample: check that it is the "
            "table the sample was drawn from."
        )


def population_table(given: Any, owner: str, qi: Sequence[str]) -> pl.DataFrame:
    """``Privacy.population`` as a polars frame holding ``qi`` without missing values
    (:func:`anonkit.metrics.tables.population_table`): a frame (polars or pandas) or a
    file's path (read as :func:`~anonkit.io.tables.read_table` reads it).

    Raises
    ------
    ParameterError
        Naming ``population`` when it is neither.
    UnknownColumnError, MissingValuesError, EmptyDataError
        When it lacks a quasi-identifier, misses values in one or holds no record (named
        as the population).
    """
    if isinstance(given, (str, Path)):  # a file, as the streaming fit takes one
        given = read_table(given)
    try:
        pop = tables.population_table(given, qi, owner)
    except ParameterError as err:
        if err.parameter != "population":  # pragma: no cover - it names only population
            raise
        raise ParameterError(
            "population", owner, "a polars or pandas DataFrame or a path", err.got
        ) from None
    if pop.height == 0:
        raise EmptyDataError("The population table")
    return pop


def _is_model(value: object) -> bool:
    """Whether ``value`` is a privacy model (an instance: a model class has the
    protocol's attributes too)."""
    return isinstance(value, PrivacyModel) and not isinstance(value, type)
