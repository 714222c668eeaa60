"""k-OPTIMIZE (Bayardo & Agrawal 2005) as an estimator.

Each quasi-identifier's values present in the data are ordered (numeric columns,
``numeric=``: by value; hierarchy columns: by the hierarchy's leaf order, or by value when
every leaf is a number, as the release reader then reads ranges as numbers), and
:func:`anonkit.algorithms.koptimize.k_optimize` finds the optimal partition of every
column into intervals. Each record's cell becomes its interval: ``[first-last]`` of the
values present in it (the value itself when alone). Records of classes smaller than ``k``
are suppressed (``*`` in every quasi-identifier), within ``Privacy.suppression_limit``.
``transform`` works as for Mondrian: a record seen in training takes its release labels,
a new one the most specific class containing it (else the nearest).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import polars as pl

from anonkit._arrays import IntArray
from anonkit._validation import Constraint, Interval, Name, Options, OrNone
from anonkit.algorithms.koptimize import k_optimize
from anonkit.algorithms.koptimize.search import METRICS
from anonkit.algorithms.mondrian.attributes import Axis, HierarchicalQI
from anonkit.algorithms.mondrian.release import format_number, range_label
from anonkit.estimators.base import Fitting, Privacy
from anonkit.estimators.hilbert import encode_quasi_identifiers
from anonkit.estimators.local import Outcome, _Classes, _k_only
from anonkit.exceptions import MissingValuesError, ParameterError, UnknownColumnError
from anonkit.metrics.labels import STAR
from anonkit.progress import Progress, start_stage
from anonkit.result import AnonymizationResult

__all__ = ["KOptimize"]


def _as_number(label: str) -> float | None:
    try:
        x = float(label)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


@dataclass(frozen=True, eq=False)
class _Domain:
    """One column's ordered domain: each record's position, each position's label."""

    positions: IntArray
    labels: tuple[str, ...]


def _domains(fitting: Fitting) -> list[_Domain]:
    """The ordered domain of every quasi-identifier (values present in the data)."""
    qis = encode_quasi_identifiers(fitting)
    out: list[_Domain] = []
    for qi in qis:
        axis = Axis.of(qi)
        if axis.kind == "numeric":
            assert axis.values is not None
            labels = [format_number(float(x)) for x in axis.values.tolist()]
            out.append(_Domain(axis.ranks.astype(np.int64), tuple(labels)))
            continue
        assert axis.hierarchy is not None and isinstance(qi, HierarchicalQI)
        leaves = list(axis.hierarchy.leaves)
        numbers = [_as_number(str(v)) for v in leaves]
        if all(x is not None for x in numbers):
            order = np.argsort(np.asarray(numbers, dtype=np.float64), kind="stable")
        else:  # the hierarchy's row order, as the release reader reads leaf ranges
            order = np.arange(len(leaves))
        position_of_leaf = np.empty(len(leaves), dtype=np.int64)
        position_of_leaf[order] = np.arange(len(leaves))
        present, positions = np.unique(position_of_leaf[qi.codes], return_inverse=True)
        labels = [str(leaves[int(order[p])]) for p in present.tolist()]
        out.append(_Domain(positions.reshape(-1).astype(np.int64), tuple(labels)))
    return out


class KOptimize(_Classes):
    """Optimal k-anonymity over ordered interval generalizations (Bayardo & Agrawal 2005).

    Parameters
    ----------
    metric
        ``"discernibility"`` (default: a kept record costs its class size, a suppressed
        one the table size) or ``"classification"`` (1 per record suppressed or outside
        its class's majority of ``class_column``).
    class_column
        The class label column of the classification metric (the discernibility metric
        reads none: leave it out).
    time_limit
        Seconds after which the search returns the best anonymization found so far
        (``details["k_optimize"]["optimal"]`` is then ``False``); ``None`` (default)
        searches to the proven optimum.
    privacy, leak_check, progress
        As for every estimator; the models must be k-anonymity only. The suppression
        limit bounds the records suppressed (``suppression_limit=1`` is the paper's
        unconstrained setting, where suppression is only priced).

    Notes
    -----
    Where the implementation had to choose (see ``docs/algorithms/k_optimize.md``): the
    domains are the values present in the data (an interval starts at a present value);
    the order of a hierarchy column is its leaf (row) order, or numeric order when every leaf
    is a number; the tail is ordered by decreasing child lower bound.

    References
    ----------
    R. J. Bayardo, R. Agrawal. Data privacy through optimal k-anonymization. ICDE 2005.
    """

    name = "k_optimize"
    reads_numbers = True
    suppresses = True
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "metric": Options(METRICS),
        "class_column": OrNone(Name()),
        "time_limit": OrNone(Interval(float, 0, None, "neither")),
    }

    def __init__(
        self,
        metric: str = "discernibility",
        class_column: str | None = None,
        time_limit: float | None = None,
        *,
        privacy: Privacy | None = None,
        leak_check: bool = True,
        progress: Progress | None = None,
    ) -> None:
        self.metric = metric
        self.class_column = class_column
        self.time_limit = time_limit
        self.privacy = privacy
        self.leak_check = leak_check
        self.progress = progress

    def _validate(self) -> None:
        """The parameters' constraints, and no class column the metric would ignore."""
        super()._validate()
        if self.class_column is not None and self.metric != "classification":
            raise ParameterError(
                "class_column",
                "KOptimize",
                f"left out with metric={self.metric!r} (only metric='classification' reads "
                "a class column)",
                self.class_column,
            )

    def _class_codes(self, fitting: Fitting) -> IntArray | None:
        if self.metric != "classification":
            return None

        column = self.class_column
        if column is None:
            raise ParameterError(
                "class_column", "KOptimize", "a column name for the classification metric", None
            )
        if column not in fitting.data.columns:
            raise UnknownColumnError([column], fitting.data.columns)
        series = fitting.data[column]
        if series.null_count():
            raise MissingValuesError(column, series.null_count())
        codes = series.cast(pl.String).rank("dense").to_numpy().astype(np.int64) - 1
        return codes

    def _outcome(self, fitting: Fitting) -> Outcome:
        k = _k_only(fitting.models, "k_optimize")
        domains = _domains(fitting)
        labels = self._class_codes(fitting)
        columns = [d.positions for d in domains]
        if labels is not None:
            columns.append(labels)
        rows, weights = np.unique(np.stack(columns, axis=1), axis=0, return_counts=True)
        q = len(domains)
        n = fitting.data.height
        start_stage(self.progress, "k-OPTIMIZE", "nodes")
        found = k_optimize(
            rows[:, :q],
            weights,
            [len(d.labels) for d in domains],
            k,
            metric=self.metric,
            labels=rows[:, q] if labels is not None else None,
            max_suppressed=int(math.floor(fitting.suppression_limit * n + 1e-9)),
            time_limit=self.time_limit,
            progress=self.progress,
        )
        start_stage(self.progress, "Releasing")
        released: dict[str, pl.Series] = {}
        interval_ids = np.empty((n, q), dtype=np.int64)
        for j, (name, dom, starts) in enumerate(
            zip(fitting.quasi_identifiers, domains, found.starts, strict=True)
        ):
            start = np.zeros(len(dom.labels), dtype=np.int64)
            start[starts] = 1
            of_value = np.cumsum(start) - 1
            ends = np.append(starts[1:] - 1, len(dom.labels) - 1)
            table = [
                range_label(dom.labels[int(a)], dom.labels[int(b)])
                for a, b in zip(starts.tolist(), ends.tolist(), strict=True)
            ]
            interval_ids[:, j] = of_value[dom.positions]
            released[name] = pl.Series(name, table, dtype=pl.String).gather(
                pl.Series(interval_ids[:, j])
            )
        _, cls, sizes = np.unique(interval_ids, axis=0, return_inverse=True, return_counts=True)
        suppressed = sizes[cls.reshape(-1)] < k
        self._suppressed = int(suppressed.sum())
        mask = pl.Series(suppressed)
        out = fitting.data.with_columns(
            [
                pl.when(mask).then(pl.lit(STAR)).otherwise(s).alias(name)
                for name, s in released.items()
            ]
        )
        self.details_ = {
            "k_optimize": {
                "metric": self.metric,
                "intervals": {
                    c: int(len(s))
                    for c, s in zip(fitting.quasi_identifiers, found.starts, strict=True)
                },
                "nodes": found.nodes,
                "optimal": found.optimal,
                "seconds": found.seconds,
                "distinct_rows": int(rows.shape[0]),
            }
        }
        return Outcome(out, {self.metric: found.cost}, self.metric, k)

    def _run(self, fitting: Fitting) -> tuple[AnonymizationResult, pl.DataFrame]:
        result, released = super()._run(fitting)
        return dataclasses.replace(result, suppressed=self._suppressed), released

    def _loss_numeric(self, fitting: Fitting) -> list[str] | None:
        return fitting.numeric

    def _read_numeric(self, fitting: Fitting) -> list[str]:
        return fitting.numeric
