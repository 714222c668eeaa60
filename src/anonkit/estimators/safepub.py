"""SafePub: a truthful (ε, δ)-differentially private release (Bild, Kuhn, Prasser 2018).

:class:`SafePub` samples the records, chooses a full-domain transformation with the
exponential mechanism over the lattice (:mod:`anonkit.algorithms.dp`) and releases the
sample generalized by it, every class of fewer than ``k`` records suppressed. ``k`` follows
from ε and δ as the paper computes it. The release and the result state the guarantee.

References
----------
Bild, R., Kuhn, K. A., Prasser, F. (2018). SafePub: A truthful data anonymization algorithm
with strong privacy guarantees. Proceedings on Privacy Enhancing Technologies 2018(1), 67-87.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import polars as pl

from anonkit._frozen import FrozenDict
from anonkit._validation import SEED, Constraint, Interval, Options, check, validate
from anonkit.algorithms.dp import SCORES, k_for, safepub_search, sample_mask, sampling_probability
from anonkit.algorithms.dp.safepub import SELECT_MODES
from anonkit.algorithms.lattice import Evaluator
from anonkit.core.lattice import Lattice
from anonkit.core.schema import AttributeRole
from anonkit.core.transform import SUPPRESSED
from anonkit.engines.base import get_engine
from anonkit.estimators.base import Estimator, Fitting, Privacy
from anonkit.estimators.recoding import generalize_column
from anonkit.estimators.sklearn_compat import refuse_target
from anonkit.exceptions import ParameterError
from anonkit.io.frames import from_polars
from anonkit.metrics.classes import profile_sizes
from anonkit.models import KAnonymity
from anonkit.progress import Progress, start_stage
from anonkit.result import AnonymizationResult
from anonkit.verify import Verification, verify_release

__all__ = ["SafePub", "generalize_and_suppress"]

#: The count column of the class sizes' group-by (a reserved name, core.schema.RESERVED_PREFIX).
_SIZE = "__anonkit_size__"


def generalize_and_suppress(
    frame: pl.DataFrame, by_name: dict[str, Any], levels: Sequence[int], k: int
) -> tuple[pl.DataFrame, int, np.ndarray[Any, np.dtype[np.int64]]]:
    """``frame`` with each quasi-identifier at its level and every class of fewer than ``k``
    records suppressed (``*`` in every quasi-identifier); also the records suppressed and
    the sizes of the released classes."""
    qi = list(by_name)
    out = frame.with_columns(
        [
            generalize_column(frame[c], h, lv, c)
            for (c, h), lv in zip(by_name.items(), levels, strict=True)
        ]
    )
    if not qi or out.height == 0:
        return out, 0, np.zeros(0, dtype=np.int64)
    size = pl.len().over(qi)
    small = out.select((size < k).alias("_small"))["_small"]
    star = pl.lit(SUPPRESSED, dtype=pl.String)
    out = out.with_columns([pl.when(small).then(star).otherwise(pl.col(c)).alias(c) for c in qi])
    kept = out.filter(~small).group_by(qi).len(_SIZE)[_SIZE].to_numpy().astype(np.int64)
    return out, int(small.sum()), kept


class SafePub(Estimator):
    """(ε, δ)-differential privacy by sampling and k-anonymous generalization (SafePub).

    Parameters
    ----------
    epsilon
        The total ε, ``> 0``: ``ε_search = search_share · ε`` goes to the search,
        ``ε_anon = ε - ε_search`` to sampling and anonymization (``β = 1 - e^{-ε_anon}``).
    delta
        The δ of the guarantee, in ``(0, 1)``; ``k`` is the smallest with
        ``d(k, β, ε_anon) <= δ``.
    steps
        Rounds of the search (each spends ``ε_search / steps``).
    score
        The score the search maximizes: ``"granularity"``, ``"intensity"``,
        ``"discernibility"`` or ``"group_size"`` (:mod:`anonkit.algorithms.dp.scores`).
    search_share
        The share of ε spent on the search, in ``(0, 1)`` (0.1: the split used in the
        paper's experiments, as we read them).
    select
        ``"best"`` (the paper: the best-scoring pivot) or ``"last"`` (the last pivot). The
        best pivot is chosen by comparing the pivots' true scores, a step whose privacy
        rests on the paper's analysis; the last pivot needs nothing but composition and
        post-processing. ``details["guarantee_basis"]`` says which.
    seed
        Seed of the random generator (sampling and search); ``None`` draws fresh entropy.
        A fixed seed makes runs reproducible, which is for tests: a published seed lets
        anyone repeat the draw.
    privacy
        Must hold no model: SafePub's k-anonymity follows from ε and δ (accepted so that
        :func:`anonkit.anonymize` can pass its empty keywords).
    engine, leak_check, progress
        As for :class:`~anonkit.estimators.FullDomain`.

    Attributes
    ----------
    result_
        The :class:`~anonkit.result.AnonymizationResult`; ``details`` states the guarantee,
        ``k``, ``β``, the budget split and the sample size.
    transformation_, hierarchies_, k_, beta_
        The chosen levels, the hierarchies, the derived ``k`` and ``β``.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"age": [str(20 + i % 40) for i in range(400)]})
    >>> est = SafePub(epsilon=2.0, delta=1e-3, steps=5, seed=1).fit(
    ...     df, quasi_identifiers=["age"],
    ...     hierarchies={"age": {"type": "intervals", "widths": [10, 20]}})
    >>> est.k_, est.result_.details["guarantee"].startswith("(2.0, 0.001)-differential privacy")
    (51, True)
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "epsilon": Interval(float, 0, None, "neither"),
        "delta": Interval(float, 0, 1, "neither"),
        "steps": Interval(int, 0),
        "score": Options(tuple(SCORES)),
        "search_share": Interval(float, 0, 1, "neither"),
        "select": Options(SELECT_MODES),
        "seed": SEED,
    }

    def __init__(
        self,
        epsilon: float = 2.0,
        delta: float = 1e-5,
        steps: int = 100,
        score: str = "granularity",
        *,
        search_share: float = 0.1,
        select: str = "best",
        seed: int | None = None,
        privacy: Privacy | None = None,
        engine: str = "polars",
        leak_check: bool = True,
        progress: Progress | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.steps = steps
        self.score = score
        self.search_share = search_share
        self.select = select
        self.seed = seed
        self.engine = engine
        self.leak_check = leak_check
        self.progress = progress
        self.privacy = privacy

    @property
    def algorithm(self) -> str:
        return "safepub"

    def _validate(self) -> None:
        params = self.get_params(deep=False)
        owner = type(self).__name__
        shared = {n: c for n, c in self._shared_constraints.items() if n != "privacy"}
        validate(params, shared, owner)
        validate(params, self._parameter_constraints, owner)
        if self.privacy is not None:
            check(self.privacy, self._shared_constraints["privacy"], "privacy", owner)

    def _derived(self) -> tuple[int, float]:
        """The ``k`` and ``β`` that ε and δ give (the parameters validated)."""
        eps_anon = float(self.epsilon) * (1.0 - float(self.search_share))
        return k_for(eps_anon, float(self.delta)), sampling_probability(eps_anon)

    def fit(self, frame: Any, y: None = None, **roles: Any) -> SafePub:
        """Sample, search and release (see :meth:`Estimator.fit` for ``y`` and the
        keywords). A fit refused leaves the estimator unfitted, whatever an earlier fit
        learned."""
        self._forget_fit()
        refuse_target(y, "SafePub.fit")
        self._validate()
        k, beta = self._derived()
        given = self.privacy
        if given is not None and (given.model_list or given.population is not None):
            raise ParameterError(
                "privacy",
                "SafePub",
                "left out (SafePub derives k from epsilon and delta and suppresses every "
                "class below it)",
                given.describe(),
            )
        if isinstance(frame, pl.LazyFrame):
            frame = frame.collect()
        height = int(getattr(frame, "shape", (k,))[0])  # not a frame: fit says so
        if k > height:
            raise ParameterError(
                "delta",
                "SafePub",
                f"large enough that the derived k ({k}) is at most the number of "
                f"records ({height}); raise delta or epsilon, or release more records",
                self.delta,
            )
        # SafePub suppresses every class below k, without a limit
        self.privacy = Privacy(KAnonymity(k), suppression_limit=1.0)
        try:
            super().fit(frame, y, **roles)
        finally:
            self.privacy = given
        self.k_, self.beta_ = k, beta
        return self

    def _run(self, fitting: Fitting) -> tuple[AnonymizationResult, pl.DataFrame]:
        data, qi, t0 = fitting.data, fitting.quasi_identifiers, fitting.t0
        as_is = fitting.schema.released_as_is()
        if as_is:
            # the guarantee is about the generalized, sampled quasi-identifiers: a column
            # published as it is could single out a sampled record (a unique diagnosis)
            role = "sensitive" if fitting.schema.columns(AttributeRole.SENSITIVE) else None
            role = role or ("others" if getattr(self, "_others", None) == "keep" else "insensitive")
            raise ParameterError(
                role,
                "SafePub",
                "such that every column is a quasi-identifier or removed: its (epsilon, "
                "delta)-differential privacy covers the quasi-identifiers it generalizes, "
                "not columns published as they are (declare them identifying, or "
                'others="drop"; or choose another algorithm to keep them)',
                as_is,
            )
        k, beta = self._derived()
        eps = float(self.epsilon)
        eps_search = eps * float(self.search_share)
        rng = np.random.default_rng(self.seed)
        start_stage(self.progress, "Sampling")
        sample = data.filter(pl.Series(sample_mask(data.height, beta, rng)))
        self._sample_size = sample.height
        t1 = time.perf_counter()
        lattice = Lattice([h.height for h in fitting.hierarchies])
        if sample.height:
            table = get_engine(self.engine).count(sample, qi, fitting.hierarchies)
            evaluator = Evaluator(table, lattice, [KAnonymity(k)], 1.0, "loss", owner="SafePub")
            start_stage(self.progress, "Searching", "steps")
            progress = self.progress

            def step(done: int, total: int) -> None:
                if progress is not None:
                    progress(done, total)

            found = safepub_search(
                evaluator,
                SCORES[self.score],
                epsilon=eps_search,
                steps=int(self.steps),
                rng=rng,
                n_records=data.height,
                select=self.select,
                on_step=step,
            )
            levels, node, score = found.levels, found.node, found.score
            steps_run, spent, evaluated = (
                found.steps_run,
                found.epsilon_spent,
                found.nodes_evaluated,
            )
        else:  # nothing sampled: the release is empty whatever the transformation
            levels, node, score, steps_run, spent, evaluated = (
                lattice.node(lattice.top),
                lattice.top,
                0.0,
                0,
                0.0,
                0,
            )
        t2 = time.perf_counter()
        start_stage(self.progress, "Releasing")
        released, n_suppressed, kept = generalize_and_suppress(sample, fitting.by_name, levels, k)
        released = released.drop(
            [c for c in [*fitting.dropped, *fitting.schema.dropped] if c in released.columns]
        )
        guarantee = (
            f"({self.epsilon}, {self.delta})-differential privacy (SafePub, Bild et al. 2018): "
            f"a random sample (β={beta:.4g}) of the records, every class of fewer than {k} "
            f"records suppressed, the transformation chosen with ε_search={eps_search:.4g}"
        )
        names = tuple(qi)
        self.transformation_ = FrozenDict(dict(zip(names, levels, strict=True)))
        details = {
            "guarantee": guarantee,
            "epsilon": eps,
            "delta": float(self.delta),
            "epsilon_anonymization": eps - eps_search,
            "epsilon_search": eps_search,
            "epsilon_search_spent": spent,
            "k": k,
            "beta": beta,
            "sample_size": sample.height,
            "steps": int(self.steps),
            "steps_run": steps_run,
            "select": self.select,
            "guarantee_basis": (
                "the paper's privacy analysis, which covers returning the best-scoring pivot"
                if self.select == "best"
                else "sequential composition of the sampling stage and the exponential "
                "mechanism rounds; the last pivot is post-processing of their outputs"
            ),
            "score": score,
            "node": node,
        }
        t3 = time.perf_counter()
        result = AnonymizationResult(
            release=from_polars(released, fitting.kind),
            transformation=self.transformation_,
            algorithm="safepub",
            metric=self.score,
            privacy=(f"({self.epsilon}, {self.delta})-differential privacy", f"{k}-anonymity"),
            n_records=data.height,
            suppressed=n_suppressed,
            suppression_limit=1.0,
            classes=profile_sizes(kept, k=k, suppressed=n_suppressed),
            metrics=FrozenDict({f"score_{self.score}": score}),
            nodes_evaluated=evaluated,
            lattice_size=lattice.size,
            timing=FrozenDict(
                {"encode": t1 - t0, "search": t2 - t1, "release": t3 - t2, "total": t3 - t0}
            ),
            details=FrozenDict(details),
        )
        return result, released

    def _verify(
        self,
        released: pl.DataFrame,
        fitting: Fitting,
        weight: str | None = None,
        suppressed: int | None = None,
    ) -> Verification:
        """The release is the sample: k-anonymity is checked over the sampled records."""
        start_stage(self.progress, "Verifying the release")
        return verify_release(
            released,
            quasi_identifiers=fitting.quasi_identifiers,
            models=fitting.models,
            n_records=self._sample_size,
            suppression_limit=1.0,
            hierarchies={c: h for c, h in fitting.by_name.items() if c not in fitting.numeric},
            numeric=fitting.numeric,
            weight=weight,
            suppressed=suppressed,
        )

    def _transform(self, data: pl.DataFrame, fitting: Fitting) -> pl.DataFrame:
        """New records at the chosen levels (no sampling, no suppression: what a new
        record's release guarantees is not SafePub's)."""
        return data.with_columns(
            [
                generalize_column(data[c], h, self.transformation_[c], c)
                for c, h in fitting.by_name.items()
            ]
        )
