"""The :class:`Microaggregation` estimator, its result, and the thin frame adapter.

The core works on a plain ``(n_records, n_attributes)`` float array and the attributes'
names. A pandas or polars frame is reduced to that array by :func:`numeric_columns`, and
:meth:`MicroaggregationResult.release` writes the aggregated values back into a frame of
the caller's type.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit._arrays import FloatArray, IntArray
from anonkit._validation import Parameters, check_int
from anonkit.algorithms._ticker import Ticker
from anonkit.algorithms.microaggregation.aggregate import AGGREGATES, group_aggregates
from anonkit.algorithms.microaggregation.gmm import COVARIANCE_TYPES, gmm_groups
from anonkit.algorithms.microaggregation.loss import sse, sst
from anonkit.algorithms.microaggregation.mdav import mdav_groups
from anonkit.algorithms.microaggregation.univariate import univariate_groups
from anonkit.core.values import FLOAT_EXACT, beyond_float
from anonkit.exceptions import (
    DataError,
    EmptyDataError,
    MissingValuesError,
    ParameterError,
    UnknownColumnError,
    UnknownNameError,
)
from anonkit.progress import Progress

#: Partitioning methods by their API/config name.
METHODS = ("univariate", "mdav", "gmm")

_OWNER = "Microaggregation"

#: The most records each method takes (univariate, a sort, has no limit). Measured on
#: three numeric columns, k = 5, one process on a shared 2-core machine: MDAV 20,000
#: records 1.0 s CPU, 80,000 5.0 s, 320,000 57 s, memory flat (0.25-0.4 GB), time growing
#: as about n^1.75 (the farthest-record searches: some 2 minutes at its limit); GMM
#: 20,000 records 4.8 s and 0.36 GB, 40,000 7.8 s and 0.48 GB (EM over at most 100
#: components: about 6 KB of memory per record, 3 GB at its limit).
SIZE_LIMITS: dict[str, int] = {"mdav": 500_000, "gmm": 500_000}


@dataclass(frozen=True, eq=False)
class MicroaggregationResult:
    """What :meth:`Microaggregation.fit` returns.

    Attributes
    ----------
    groups
        ``(n_records,)`` int64 group id of each record, ``0 .. n_groups - 1``.
    values
        ``(n_records, n_attributes)`` float64: each record's attributes replaced by its
        group's aggregates, in the original units (read-only).
    columns
        The attributes' names, in the order of ``values``' columns.
    aggregates
        The aggregate used for each attribute (``mean``, ``median`` or ``mode``).
    method, k, standardize
        The parameters that produced the partition.
    sse, sst, il
        Within-group and total sums of squares and ``IL = 100 * SSE / SST`` (percent),
        always on standardized attributes (the literature's definition, see
        :func:`~anonkit.algorithms.microaggregation.information_loss`), whatever
        ``standardize`` the partition used.
    n_groups, min_group_size, max_group_size
        Number of groups and the smallest and largest group size (``min_group_size >= k``).
    timing
        Seconds spent in ``partition``, ``aggregate`` and ``metrics``, and the ``total``.
    """

    groups: IntArray
    values: FloatArray
    columns: tuple[str, ...]
    aggregates: tuple[str, ...]
    method: str
    k: int
    standardize: bool
    sse: float
    sst: float
    il: float
    n_groups: int
    min_group_size: int
    max_group_size: int
    timing: Mapping[str, float] = field(default_factory=dict)

    @property
    def n_records(self) -> int:
        return int(self.groups.size)

    @property
    def group_sizes(self) -> IntArray:
        """Records per group, indexed by group id."""
        sizes: IntArray = np.bincount(self.groups, minlength=self.n_groups).astype(np.int64)
        return sizes

    @property
    def metrics(self) -> dict[str, float]:
        """The information-loss figures: ``sse``, ``sst`` and ``il``."""
        return {"sse": self.sse, "sst": self.sst, "il": self.il}

    def to_dict(self) -> dict[str, Any]:
        """Everything but the per-record arrays, as plain JSON-ready values."""
        return {
            "method": self.method,
            "k": self.k,
            "standardize": self.standardize,
            "columns": list(self.columns),
            "aggregates": dict(zip(self.columns, self.aggregates, strict=True)),
            "n_records": self.n_records,
            "n_groups": self.n_groups,
            "min_group_size": self.min_group_size,
            "max_group_size": self.max_group_size,
            "metrics": self.metrics,
            "timing": dict(self.timing),
        }

    def release(self, data: Any) -> Any:
        """``data`` with the microaggregated columns replaced by the group aggregates.

        Same type out as in: a numpy array (all its columns were microaggregated), or a
        polars or pandas frame whose other columns are left as they are (pandas keeps its
        index). Columns aggregated by ``median`` or ``mode`` hold values of the data, so
        they are cast back to the column's original type; ``mean`` columns are float.
        """
        n = self.n_records
        kind = _frame_kind(data)
        if kind == "array":
            array = np.asarray(data)
            if array.shape[0] != n or array.size != self.values.size:
                raise ParameterError(
                    "data",
                    "MicroaggregationResult.release",
                    "the array that was fitted",
                    array.shape,
                )
            return self.values.reshape(array.shape).copy()
        if kind == "polars":
            frame = data.collect() if isinstance(data, pl.LazyFrame) else data
            _check_frame(frame.columns, frame.height, self.columns, n)
            series = []
            for j, name in enumerate(self.columns):
                column = pl.Series(name, self.values[:, j])
                if self.aggregates[j] != "mean":
                    column = column.cast(frame.schema[name])
                series.append(column)
            return frame.with_columns(series)
        _check_frame([str(c) for c in data.columns], len(data), self.columns, n)
        out = data.copy()
        for j, name in enumerate(self.columns):
            out[name] = self.values[:, j]
            if self.aggregates[j] != "mean":
                out[name] = out[name].astype(data[name].dtype)
        return out


class Microaggregation(Parameters):
    """Microaggregation to k-anonymity, with scikit-learn-style parameters.

    Records are partitioned into groups of at least ``k`` and each group's aggregate is
    released instead of the records' values. Parameters are stored unchanged and validated
    when :meth:`fit` runs.

    Parameters
    ----------
    k
        Minimum group size, an int with ``1 <= k <= n_records``.
    method
        ``"mdav"`` (default; multivariate, Domingo-Ferrer & Mateo-Sanz 2002, see
        :func:`~anonkit.algorithms.microaggregation.mdav_groups`), ``"univariate"`` (sort
        by the first attribute, groups of ``k``, see
        :func:`~anonkit.algorithms.microaggregation.univariate_groups`) or ``"gmm"``
        (Gaussian-mixture clusters repaired to at least ``k`` records, see
        :func:`~anonkit.algorithms.microaggregation.gmm_groups`; needs scikit-learn).
    aggregate
        ``"mean"`` (default), ``"median"`` (lower median) or ``"mode"`` for every
        attribute, or a mapping from attribute name to one of them (attributes it does not
        name use ``"mean"``).
    standardize
        Measure distances on attributes standardized to zero mean and unit population
        variance (``ddof=0``), as the literature does; ``False`` uses raw values.
    random_state
        Seed for ``method="gmm"`` (an int, or ``None`` for a non-reproducible run).
    n_components
        Mixture components for ``method="gmm"``; default
        :func:`~anonkit.algorithms.microaggregation.gmm.default_components`.
    covariance_type
        Covariance structure for ``method="gmm"``: ``"spherical"`` (default), ``"diag"``,
        ``"tied"`` or ``"full"``.
    progress
        Called as ``progress(done, total)`` with the groups formed: ``total`` is
        ``n_records // k`` (the groups MDAV and univariate form; an upper bound for gmm)
        while the groups are formed, MDAV reports at most every tenth of a second, and
        the last call is ``(n_groups, n_groups)``.

    References
    ----------
    J. Domingo-Ferrer and J. M. Mateo-Sanz. Practical data-oriented microaggregation for
    statistical disclosure control. IEEE TKDE 14(1):189-201, 2002.

    J. Domingo-Ferrer and V. Torra. Ordinal, continuous and heterogeneous k-anonymity
    through microaggregation. Data Mining and Knowledge Discovery 11(2):195-212, 2005.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0, 0], [0, 1], [1, 0], [10, 10], [10, 11], [11, 10],
    ...               [20, 0], [20, 1], [21, 0]])
    >>> result = Microaggregation(k=3).fit(x, columns=["a", "b"])
    >>> result.groups.tolist(), result.n_groups, result.min_group_size
    ([2, 2, 2, 0, 0, 0, 1, 1, 1], 3, 3)
    >>> result.values[0].tolist(), round(result.il, 2)
    ([0.3333333333333333, 0.3333333333333333], 0.66)
    """

    def __init__(
        self,
        k: int = 3,
        *,
        method: str = "mdav",
        aggregate: str | Mapping[str, str] = "mean",
        standardize: bool = True,
        random_state: int | None = 0,
        n_components: int | None = None,
        covariance_type: str = "spherical",
        progress: Progress | None = None,
    ) -> None:
        self.k = k
        self.method = method
        self.aggregate = aggregate
        self.standardize = standardize
        self.random_state = random_state
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.progress = progress

    def fit(self, data: Any, columns: Sequence[str] | None = None) -> MicroaggregationResult:
        """Microaggregate ``data``; return the partition, the released values and the loss.

        Parameters
        ----------
        data
            A numeric numpy array ``(n_records, n_attributes)`` (1-D: one attribute), or a
            polars or pandas frame.
        columns
            For an array: the names of its columns (default ``x0, x1, ...``). For a frame:
            the columns to microaggregate (default all); each must be numeric (code
            ordinal and categorical attributes as integers).

        Raises
        ------
        ParameterError, UnknownNameError
            A parameter is invalid (``k`` not an int ``>= 1`` or larger than the number of
            records, an unknown method, aggregate or covariance type, ...).
        UnknownColumnError
            ``columns`` or the ``aggregate`` mapping names a column the frame lacks.
        DataError, EmptyDataError, MissingValuesError
            A column is not numeric or holds infinite values; the table has no records; a
            column holds missing values (NaN or null).
        """
        self._validate_parameters()
        values, names = numeric_columns(data, columns)
        return self._fit_values(values, names)

    # -- internals -------------------------------------------------------------------------
    def _validate_parameters(self) -> None:
        check_int(self.k, "k", _OWNER, low=1)
        if self.method not in METHODS:
            raise UnknownNameError("microaggregation method", str(self.method), METHODS)
        if isinstance(self.aggregate, str):
            if self.aggregate not in AGGREGATES:
                raise UnknownNameError("aggregate", self.aggregate, AGGREGATES)
        elif isinstance(self.aggregate, Mapping):
            for name in self.aggregate.values():
                if name not in AGGREGATES:
                    raise UnknownNameError("aggregate", str(name), AGGREGATES)
        else:
            raise ParameterError(
                "aggregate", _OWNER, "a name or a mapping column -> name", self.aggregate
            )
        if not isinstance(self.standardize, (bool, np.bool_)):
            raise ParameterError("standardize", _OWNER, "a bool", self.standardize)
        if self.random_state is not None:
            check_int(self.random_state, "random_state", _OWNER)
        if self.n_components is not None:
            check_int(self.n_components, "n_components", _OWNER, low=1)
        if self.covariance_type not in COVARIANCE_TYPES:
            raise UnknownNameError("covariance type", str(self.covariance_type), COVARIANCE_TYPES)

    def _aggregates_for(self, names: tuple[str, ...]) -> tuple[str, ...]:
        if isinstance(self.aggregate, str):
            return (self.aggregate,) * len(names)
        unknown = [c for c in self.aggregate if c not in names]
        if unknown:
            raise UnknownColumnError(unknown, names)
        return tuple(self.aggregate.get(name, "mean") for name in names)

    def _fit_values(self, values: FloatArray, names: tuple[str, ...]) -> MicroaggregationResult:
        aggregates = self._aggregates_for(names)
        n = values.shape[0]
        k = int(self.k)
        if k > n:
            raise ParameterError("k", _OWNER, f"an int <= the number of records ({n})", k)
        if self.n_components is not None and self.n_components > n:
            raise ParameterError(
                "n_components",
                _OWNER,
                f"an int <= the number of records ({n})",
                self.n_components,
            )
        limit = SIZE_LIMITS.get(str(self.method))
        if limit is not None and n > limit:
            raise ParameterError(
                "method",
                _OWNER,
                f"'univariate' for a table of {n:,} records ({self.method!r} takes at most "
                f"{limit:,}, beyond which its time or memory grows out of reach)",
                self.method,
            )
        start = time.perf_counter()
        standardize = bool(self.standardize)
        ticker = Ticker(self.progress, n // k)
        ticker(0)
        if self.method == "mdav":
            groups = mdav_groups(values, k, standardize=standardize, progress=self.progress)
        elif self.method == "univariate":
            groups = univariate_groups(values, k)
        else:
            groups = gmm_groups(
                values,
                k,
                n_components=None if self.n_components is None else int(self.n_components),
                covariance_type=self.covariance_type,
                random_state=None if self.random_state is None else int(self.random_state),
                standardize=standardize,
            )
        partitioned = time.perf_counter()
        released = group_aggregates(values, groups, aggregates)[groups]
        released.setflags(write=False)
        groups.setflags(write=False)
        aggregated = time.perf_counter()
        within = sse(values, groups)
        total = sst(values)
        il = 100.0 * within / total if total > 0.0 else 0.0
        sizes = np.bincount(groups)
        ticker.finish(int(sizes.size))
        done = time.perf_counter()
        return MicroaggregationResult(
            groups=groups,
            values=released,
            columns=names,
            aggregates=aggregates,
            method=str(self.method),
            k=k,
            standardize=standardize,
            sse=within,
            sst=total,
            il=il,
            n_groups=int(sizes.size),
            min_group_size=int(sizes.min()),
            max_group_size=int(sizes.max()),
            timing={
                "partition": partitioned - start,
                "aggregate": aggregated - partitioned,
                "metrics": done - aggregated,
                "total": done - start,
            },
        )


def microaggregate(
    data: Any, columns: Sequence[str] | None = None, **params: Any
) -> MicroaggregationResult:
    """Shorthand for ``Microaggregation(**params).fit(data, columns)``.

    Examples
    --------
    >>> microaggregate([5.0, 1.0, 4.0, 2.0], k=2, method="univariate").values.ravel().tolist()
    [4.5, 1.5, 4.5, 1.5]
    """
    return Microaggregation(**params).fit(data, columns)


# -- the frame adapter ---------------------------------------------------------------------
def numeric_columns(
    data: Any, columns: Sequence[str] | None = None
) -> tuple[FloatArray, tuple[str, ...]]:
    """The ``(n_records, n_attributes)`` float64 array and names that the core works on.

    ``data`` is a numpy array (or nested sequence), a polars DataFrame/LazyFrame or a pandas
    DataFrame; see :meth:`Microaggregation.fit` for ``columns`` and the errors raised.

    Examples
    --------
    >>> import polars as pl
    >>> values, names = numeric_columns(pl.DataFrame({"a": [1, 2], "b": ["x", "y"]}), ["a"])
    >>> values.tolist(), names
    ([[1.0], [2.0]], ('a',))
    """
    kind = _frame_kind(data)
    arrays: list[FloatArray] = []
    if kind == "array":
        raw = np.asarray(data)
        table = raw.reshape(-1, 1) if raw.ndim == 1 else raw
        if table.ndim != 2:
            raise ParameterError("data", _OWNER, "a 1-D or 2-D numeric array", f"{raw.ndim}-D")
        if columns is None:
            names = tuple(f"x{j}" for j in range(table.shape[1]))
        else:
            names = tuple(str(c) for c in columns)
            if len(names) != table.shape[1]:
                raise ParameterError(
                    "columns",
                    _OWNER,
                    f"one name per array column ({table.shape[1]})",
                    len(names),
                )
        for j, name in enumerate(names):
            arrays.append(_as_float(table[:, j], name, str(table.dtype)))
    elif kind == "polars":
        frame = data.collect() if isinstance(data, pl.LazyFrame) else data
        names = _select(frame.columns, columns)
        for name in names:
            series = frame.get_column(name)
            if not (series.dtype.is_numeric() or series.dtype == pl.Boolean):
                raise _not_numeric(name, str(series.dtype))
            if series.dtype.is_integer() and series.len() > series.null_count():
                _check_exact(name, series.min(), series.max())
            arrays.append(_as_float(series.cast(pl.Float64).to_numpy(), name, ""))
    else:
        names = _select([str(c) for c in data.columns], columns)
        for name in names:
            series = data[name]
            if getattr(series.dtype, "kind", "O") not in "biuf":
                raise _not_numeric(name, str(series.dtype))
            if series.dtype.kind in "iu" and series.count():
                _check_exact(name, series.min(), series.max())
            arrays.append(_as_float(series.to_numpy(dtype=np.float64, na_value=np.nan), name, ""))
    if not names:
        raise ParameterError("columns", _OWNER, "at least one column", 0)
    n = arrays[0].size
    if n == 0:
        raise EmptyDataError()
    table = np.ascontiguousarray(np.column_stack(arrays), dtype=np.float64)
    _check_magnitude(table, names)
    return table, names


def _check_magnitude(table: FloatArray, names: tuple[str, ...]) -> None:
    """Refuse values so large that the sums of squared distances over the table (the
    grouping, the loss) would overflow float64 (means released as ``inf``)."""
    n, p = table.shape
    bound = math.sqrt(float(np.finfo(np.float64).max) / (4.0 * n * p))
    over = np.flatnonzero(np.abs(table).max(axis=0) > bound)
    if over.size:
        raise DataError(
            f"Column {names[int(over[0])]!r} holds values beyond ±{bound:.3g}, where "
            f"microaggregation's sums of squared distances over {n:,} records would "
            "overflow float64; rescale it (divide by a unit) before microaggregating."
        )


def _frame_kind(data: Any) -> str:
    if isinstance(data, (pl.DataFrame, pl.LazyFrame)):
        return "polars"
    module = type(data).__module__.split(".")[0]
    if module == "pandas" and hasattr(data, "columns"):
        return "pandas"
    return "array"


def _select(available: Sequence[str], columns: Sequence[str] | None) -> tuple[str, ...]:
    if columns is None:
        return tuple(available)
    names = tuple(str(c) for c in columns)
    unknown = [c for c in names if c not in available]
    if unknown:
        raise UnknownColumnError(unknown, list(available))
    return names


def _not_numeric(name: str, dtype: str) -> DataError:
    return DataError(
        f"Column {name!r} is not numeric ({dtype}); microaggregation needs numbers: "
        "encode ordinal or categorical values as integer codes."
    )


def _check_exact(name: str, low: Any, high: Any) -> None:
    """Refuse an integer column (``low`` to ``high``) that a float64 would round: groups
    would be formed on rounded values, and a median or mode released as a value of the
    data could be one that no record holds."""
    if beyond_float(low, high):
        raise DataError(
            f"Column {name!r} holds integers beyond ±2**53 ({FLOAT_EXACT:,}), which "
            "microaggregation cannot compare or aggregate exactly (it computes in float64); "
            "rescale it (subtract an offset, or divide by a unit) before microaggregating."
        )


def _as_float(column: npt.NDArray[Any], name: str, dtype: str) -> FloatArray:
    if column.dtype.kind == "O":  # e.g. a mixed-type array: numbers (and None) only
        try:
            values = np.asarray(
                [np.nan if v is None else v for v in column.tolist()], dtype=np.float64
            )
        except (TypeError, ValueError):
            raise _not_numeric(name, dtype or str(column.dtype)) from None
        whole = [v for v in column.tolist() if isinstance(v, int)]
        if whole:
            _check_exact(name, min(whole), max(whole))
    elif column.dtype.kind in "biuf":
        if column.dtype.kind in "iu" and column.size:
            _check_exact(name, column.min(), column.max())
        values = np.asarray(column, dtype=np.float64)
    else:
        raise _not_numeric(name, dtype or str(column.dtype))
    missing = int(np.count_nonzero(np.isnan(values)))
    if missing:
        raise MissingValuesError(name, missing)
    if not np.all(np.isfinite(values)):
        raise DataError(
            f"Column {name!r} holds infinite values; microaggregation needs finite numbers."
        )
    return values


def _check_frame(available: Sequence[str], height: int, names: Sequence[str], n: int) -> None:
    unknown = [c for c in names if c not in available]
    if unknown:
        raise UnknownColumnError(unknown, list(available))
    if height != n:
        raise ParameterError(
            "data", "MicroaggregationResult.release", f"a frame of {n} rows (as fitted)", height
        )
