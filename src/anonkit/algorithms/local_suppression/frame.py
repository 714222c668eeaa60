"""Local suppression of a polars or pandas frame: the adapter over :func:`suppress_codes`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from anonkit.algorithms.local_suppression.checks import OWNER, sensitive_names
from anonkit.algorithms.local_suppression.codes import suppress_codes
from anonkit.algorithms.local_suppression.result import LocalSuppressionResult, SensitiveArray
from anonkit.core.transform import SUPPRESSED
from anonkit.core.values import as_text
from anonkit.exceptions import (
    EmptyDataError,
    MissingValuesError,
    ParameterError,
    UnknownColumnError,
)
from anonkit.io.frames import from_polars, to_polars
from anonkit.models.base import PrivacyModel

if TYPE_CHECKING:
    from anonkit.core.hierarchy import Hierarchy


def _text(series: pl.Series) -> pl.Series:
    if series.dtype == pl.String:
        return series
    return as_text(series)


def suppress_cells(
    frame: Any,
    quasi_identifiers: Sequence[str],
    *,
    k: int | None = None,
    models: Sequence[PrivacyModel] = (),
    importance: Mapping[str, float] | Sequence[float] | None = None,
    judge_suppressed: bool = False,
    sensitive_hierarchies: Mapping[str, Hierarchy] | None = None,
) -> tuple[Any, LocalSuppressionResult]:
    """Local suppression of a released table: write ``*`` into as few cells as it can.

    A thin adapter over :func:`suppress_codes` for a polars (or pandas) frame of released
    values, typically the output of a global recoding. Quasi-identifier columns come back
    as text with ``*`` in the suppressed cells; other columns are untouched. Cells holding
    ``*`` already count as suppressed. Sensitive attributes are the columns named by the
    models' ``attribute``; a missing sensitive value is a value of its own.

    Parameters
    ----------
    frame
        polars or pandas DataFrame; the same type is returned.
    quasi_identifiers
        Columns whose cells may be suppressed.
    k, models, judge_suppressed
        As in :func:`suppress_codes`.
    importance
        Per quasi-identifier (name -> weight, missing names weigh 1, or one weight per
        column in order); higher means kept longer.
    sensitive_hierarchies
        Hierarchies of sensitive attributes, for models that need one (hierarchical
        distance t-closeness); handed to the models in :class:`SensitiveColumn`.

    Returns
    -------
    frame, LocalSuppressionResult
        The released frame and what was suppressed.

    Raises
    ------
    UnknownColumnError
        If a quasi-identifier or a sensitive attribute is not a column.
    MissingValuesError
        If a quasi-identifier holds nulls.
    ParameterError
        On invalid parameters.

    Examples
    --------
    >>> import polars as pl
    >>> frame = pl.DataFrame({"sex": ["m", "m", "f", "f", "f", "f"],
    ...                       "zip": ["10", "10", "10", "20", "30", "30"]})
    >>> release, res = suppress_cells(frame, ["sex", "zip"], k=2)
    >>> release["zip"].to_list()
    ['10', '10', '*', '*', '30', '30']
    >>> dict(res.cells_per_attribute), res.records_touched
    ({'sex': 0, 'zip': 2}, 2)
    """
    data, kind = to_polars(frame)
    qi = [quasi_identifiers] if isinstance(quasi_identifiers, str) else list(quasi_identifiers)
    if not qi or len(set(qi)) != len(qi) or not all(isinstance(c, str) for c in qi):
        raise ParameterError(
            "quasi_identifiers", OWNER, "distinct column names, at least one", quasi_identifiers
        )
    missing = [c for c in qi if c not in data.columns]
    if missing:
        raise UnknownColumnError(missing, data.columns)
    if data.height == 0:
        raise EmptyDataError()
    if isinstance(importance, Mapping):
        unknown = [c for c in importance if c not in qi]
        if unknown:
            raise ParameterError(
                "importance", OWNER, "weights of quasi-identifiers only", unknown[0]
            )
        weights: Sequence[float] | None = [importance.get(c, 1.0) for c in qi]
    else:
        weights = importance
    model_list = [models] if isinstance(models, PrivacyModel) else list(models)
    wanted = sensitive_names(m for m in model_list if isinstance(m, PrivacyModel))
    absent = [c for c in wanted if c not in data.columns]
    if absent:
        raise UnknownColumnError(absent, data.columns)
    clash = [c for c in wanted if c in qi]
    if clash:
        raise ParameterError(
            "models", OWNER, "sensitive attributes that are not quasi-identifiers", clash[0]
        )

    codes = np.empty((data.height, len(qi)), dtype=np.int64)
    texts: list[pl.Series] = []
    star = []
    for j, c in enumerate(qi):
        series = data[c]
        nulls = series.null_count() + (int(series.is_nan().sum()) if series.dtype.is_float() else 0)
        if nulls:
            raise MissingValuesError(c, nulls)
        text = _text(series)
        texts.append(text)
        values = text.unique().sort().to_list()
        if SUPPRESSED in values:
            values.remove(SUPPRESSED)
        lookup = {v: i for i, v in enumerate(values)}
        lookup[SUPPRESSED] = len(values)
        codes[:, j] = text.replace_strict(lookup, return_dtype=pl.Int64).to_numpy()
        star.append(len(values))
    sens: dict[str, SensitiveArray] = {}
    for c in wanted:
        text = _text(data[c])
        labels = text.drop_nulls().unique().sort().to_list()
        lookup = {v: i for i, v in enumerate(labels)}
        scodes = text.replace_strict(lookup, default=len(labels), return_dtype=pl.Int64)
        if text.null_count():
            labels.append("null")
        hierarchy = (sensitive_hierarchies or {}).get(c)
        sens[c] = SensitiveArray(scodes.to_numpy(), tuple(labels), hierarchy)

    res = suppress_codes(
        codes,
        k=k,
        models=model_list,
        sensitive=sens,
        cardinalities=star,
        star=star,
        importance=weights,
        names=qi,
        judge_suppressed=judge_suppressed,
    )
    columns = []
    for j, c in enumerate(qi):
        cell = pl.Series(res.suppressed[:, j])
        columns.append(
            pl.select(pl.when(pl.lit(cell)).then(pl.lit(SUPPRESSED)).otherwise(pl.lit(texts[j])))
            .to_series()
            .alias(c)
        )
    release = data.with_columns(columns)
    return from_polars(release, kind), res
