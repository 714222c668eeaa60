"""(k, ε)-anonymity (Holohan et al. 2017): k-anonymous generalization, then Laplace noise on
numeric attributes within each class.

:class:`KEpsilon` runs a full-domain search (:class:`~anonkit.estimators.FullDomain`) for
the privacy models, then perturbs the ``noisy`` columns of every record with
:func:`anonkit.algorithms.dp.k_epsilon.laplace_within_classes` over the released classes
(records suppressed together count as one class, and their ``noisy`` values are withheld:
released as missing). See that module for the reading of the paper this implements.

References
----------
Holohan, N., Antonatos, S., Braghin, S., Mac Aonghusa, P. (2017). (k, ε)-Anonymity:
k-Anonymity with ε-Differential Privacy. arXiv:1710.01615.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
import polars as pl

from anonkit._frozen import FrozenDict
from anonkit._validation import SEED, Constraint, Interval, Names, Options
from anonkit.algorithms.dp.k_epsilon import laplace_within_classes
from anonkit.algorithms.lattice import LATTICE_ALGORITHMS
from anonkit.core.schema import AttributeRole, Schema
from anonkit.core.transform import all_starred
from anonkit.core.values import as_numbers
from anonkit.estimators.base import Estimator, Fitting, Privacy
from anonkit.estimators.full_domain import FullDomain
from anonkit.exceptions import MissingValuesError, ParameterError, UnknownColumnError
from anonkit.io.frames import from_polars
from anonkit.metrics.generalization import METRICS
from anonkit.progress import Progress, start_stage
from anonkit.result import AnonymizationResult

__all__ = ["KEpsilon"]


class KEpsilon(Estimator):
    """k-anonymous generalization with ε-differentially private numeric values.

    Parameters
    ----------
    epsilon
        The ε of the per-class Laplace mechanism, ``> 0``.
    noisy
        Numeric columns (not quasi-identifiers) released with noise (withheld, as
        missing values, on the records the search suppressed).
    search, metric
        The full-domain search and its metric (as :class:`~anonkit.estimators.FullDomain`).
    privacy
        What the generalization must satisfy (k-anonymity, usually).
    seed
        Seed of the noise; ``None`` draws fresh entropy.
    engine
        ``"polars"`` only: the noise is added record by record, in memory.
    leak_check, progress
        As for :class:`~anonkit.estimators.FullDomain`.

    Examples
    --------
    >>> import polars as pl
    >>> from anonkit.models import KAnonymity
    >>> df = pl.DataFrame({"sex": ["m", "m", "f", "f"], "hours": [30, 40, 20, 60]})
    >>> est = KEpsilon(epsilon=1.0, noisy=["hours"], privacy=Privacy(KAnonymity(2)), seed=0)
    >>> out = est.fit(df, quasi_identifiers=["sex"], insensitive=["hours"]).result_.release
    >>> bool(out["hours"].is_between(20, 60).all()), est.result_.details["guarantee"][:18]
    (True, '(2, 1.0)-anonymity')
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "epsilon": Interval(float, 0, None, "neither"),
        "noisy": Names(),
        "search": Options(tuple(LATTICE_ALGORITHMS)),
        "metric": Options(tuple(METRICS)),
        "seed": SEED,
        # the noise is drawn per record: the records are in memory, whatever the input
        "engine": Options(("polars",)),
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        noisy: str | Sequence[str] = (),
        search: str = "flash",
        metric: str = "loss",
        *,
        privacy: Privacy | None = None,
        seed: int | None = None,
        engine: str = "polars",
        leak_check: bool = True,
        progress: Progress | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.noisy = noisy
        self.search = search
        self.metric = metric
        self.privacy = privacy
        self.seed = seed
        self.engine = engine
        self.leak_check = leak_check
        self.progress = progress

    @property
    def algorithm(self) -> str:
        return "k_epsilon"

    def _noisy(self) -> list[str]:
        return [self.noisy] if isinstance(self.noisy, str) else list(self.noisy)

    def _released_as_is(self, schema: Schema) -> list[str]:
        """The columns released unchanged: the noisy ones are not."""
        return [c for c in schema.released_as_is() if c not in self._noisy()]

    def _columns(self, fitting: Fitting) -> dict[str, pl.Series]:
        """Each noisy column's values as numbers (text read from a file too), checked."""
        noisy = self._noisy()
        missing = [c for c in noisy if c not in fitting.data.columns]
        if missing:
            raise UnknownColumnError(missing, fitting.data.columns)
        for c in noisy:
            if c in fitting.quasi_identifiers:
                raise ParameterError(
                    "noisy",
                    "KEpsilon",
                    "columns that are not quasi-identifiers (they are generalized, not perturbed)",
                    c,
                )
            if c in fitting.wanted or c in fitting.schema.columns(AttributeRole.SENSITIVE):
                raise ParameterError(
                    "noisy",
                    "KEpsilon",
                    "insensitive columns (a sensitive one is released as it is, and its "
                    "models judge its exact values)",
                    c,
                )
            if c not in fitting.schema.columns(AttributeRole.INSENSITIVE):
                raise ParameterError(
                    "noisy",
                    "KEpsilon",
                    "insensitive columns (an identifying column is removed from the release, "
                    "and so is a column others='drop' dropped)",
                    c,
                )
            if not fitting.data[c].dtype.is_numeric() and fitting.data[c].dtype != pl.String:
                raise ParameterError("noisy", "KEpsilon", "numeric columns", c)
            nulls = fitting.data[c].null_count()
            if nulls:
                raise MissingValuesError(c, nulls)
        return {c: as_numbers(fitting.data[c], c, "noisy") for c in noisy}

    def _run(self, fitting: Fitting) -> tuple[AnonymizationResult, pl.DataFrame]:
        numbers = self._columns(fitting)
        noisy = list(numbers)
        inner = FullDomain(
            self.search,
            self.metric,
            privacy=self.privacy,
            engine=self.engine,
            leak_check=False,
            progress=self.progress,
        )
        result, masked = inner._run(fitting)
        qi = fitting.quasi_identifiers
        # what the inner transform reads: the suppressed classes, not the exact values of
        # the noisy columns (a pickled estimator would hold them); result_ set below
        inner._masked = masked.select(qi)
        self._inner = inner
        self.transformation_ = inner.transformation_
        start_stage(self.progress, "Adding noise")
        class_of = (
            masked.select(pl.struct(qi).rank("dense").alias("_c"))["_c"].to_numpy().astype(np.int64)
            - 1
        )
        rng = np.random.default_rng(self.seed)
        noisy_cols = [
            pl.Series(
                c,
                laplace_within_classes(
                    numbers[c].to_numpy(),
                    class_of,
                    epsilon=float(self.epsilon),
                    rng=rng,
                ),
            )
            for c in noisy
        ]
        masked = masked.with_columns(noisy_cols)
        starred = all_starred(qi)
        if result.suppressed:
            # Suppressed records are no class to hide in: a lone outlier's range has width
            # 0, so its value would come out exact. Their noisy columns are withheld too.
            masked = masked.with_columns(
                pl.when(starred).then(None).otherwise(pl.col(c)).alias(c) for c in noisy
            )
        released = masked
        if inner.suppressed == "drop" and result.suppressed:
            released = masked.filter(~starred)
        k = min((int(m.min_class_size) for m in fitting.models), default=1)
        guarantee = (
            f"({max(k, result.classes.min_size)}, {self.epsilon})-anonymity (Holohan et al. "
            f"2017, as read here): every class holds at least {k} records and the values of "
            f"{', '.join(noisy) or 'no column'} carry Laplace noise scaled to their class's "
            f"range over ε={self.epsilon}"
            + ("; suppressed records have them withheld" if result.suppressed else "")
        )
        details = {
            **result.details,
            "guarantee": guarantee,
            "epsilon": float(self.epsilon),
            "noisy": noisy,
            "seed": self.seed,
        }
        result = dataclasses.replace(
            result,
            release=from_polars(released, fitting.kind),
            algorithm="k_epsilon",
            privacy=(*result.privacy, f"ε={self.epsilon} Laplace noise per class on {noisy}"),
            details=FrozenDict(details),
        )
        inner.result_ = result  # its transform reads how many records were suppressed
        return result, masked

    def _transform(self, data: pl.DataFrame, fitting: Fitting) -> pl.DataFrame:
        """New records generalized as the fit learned (no noise: a single new record has
        no class to hide in)."""
        return self._inner._transform(data, fitting)
