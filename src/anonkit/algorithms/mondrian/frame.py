"""Mondrian on a polars DataFrame: encode the columns, run, write the release back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from anonkit.algorithms.mondrian.attributes import (
    HierarchicalQI,
    NumericQI,
    OrderedQI,
    QuasiIdentifier,
    SensitiveAttribute,
)
from anonkit.algorithms.mondrian.estimator import Mondrian, renamed_engine
from anonkit.algorithms.mondrian.release import MondrianResult
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.hierarchy_builders import suppression
from anonkit.core.values import as_text, encode_column
from anonkit.exceptions import (
    DataError,
    MissingValuesError,
    ParameterError,
    UnknownColumnError,
)
from anonkit.models.base import PrivacyModel
from anonkit.progress import Progress


def _numeric(frame: pl.DataFrame, column: str) -> NumericQI:
    series = frame[column]
    nulls = series.null_count()
    if nulls:
        raise MissingValuesError(column, nulls)
    try:
        values = series.cast(pl.Float64, strict=True).to_numpy()
    except pl.exceptions.PolarsError:
        raise DataError(
            f"Column {column!r} is declared numeric but holds values that are not numbers."
        ) from None
    return NumericQI(column, values)


def _ordered(frame: pl.DataFrame, column: str, order: Sequence[str]) -> OrderedQI:
    series = frame[column]
    nulls = series.null_count()
    if nulls:
        raise MissingValuesError(column, nulls)
    labels = [str(x) for x in order]
    text = as_text(series)
    codes = text.replace_strict(labels, list(range(len(labels))), default=-1, return_dtype=pl.Int64)
    if (codes < 0).any():
        missing = text.filter(codes < 0).unique(maintain_order=True).head(5).to_list()
        raise DataError(f"Column {column!r} holds values missing from its order: {missing}.")
    return OrderedQI(column, codes.to_numpy(), tuple(labels))


def encode_frame(
    frame: pl.DataFrame,
    *,
    quasi_identifiers: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
    numeric: Sequence[str] = (),
    orders: Mapping[str, Sequence[str]] | None = None,
) -> list[QuasiIdentifier]:
    """Mondrian's quasi-identifier columns from a frame.

    A column listed in ``numeric`` becomes a :class:`NumericQI`, one in ``orders`` an
    :class:`OrderedQI`, one in ``hierarchies`` a :class:`HierarchicalQI`; any other
    quasi-identifier gets the flat suppression hierarchy (value -> ``*``).
    """
    hierarchies = dict(hierarchies or {})
    orders = dict(orders or {})
    qi = list(quasi_identifiers)
    named = [*hierarchies, *numeric, *orders, *qi]
    unknown = [c for c in dict.fromkeys(named) if c not in frame.columns]
    if unknown:
        raise UnknownColumnError(unknown, frame.columns)
    for group, label in ((hierarchies, "hierarchies"), (numeric, "numeric"), (orders, "orders")):
        extra = [c for c in group if c not in qi]
        if extra:
            raise ParameterError(label, "Mondrian", "given for quasi-identifiers only", extra)
    twice = [c for c in qi if (c in hierarchies) + (c in numeric) + (c in orders) > 1]
    if twice:
        raise ParameterError(
            "quasi_identifiers",
            "Mondrian",
            "each column either numeric, ordered or hierarchical",
            twice,
        )
    out: list[QuasiIdentifier] = []
    for c in qi:
        if c in numeric:
            out.append(_numeric(frame, c))
        elif c in orders:
            out.append(_ordered(frame, c, orders[c]))
        else:
            h = hierarchies.get(c)
            if h is None:
                h = suppression(as_text(frame[c]).drop_nulls().unique(maintain_order=True), name=c)
            elif not isinstance(h, Hierarchy):
                raise ParameterError(
                    "hierarchies", "Mondrian", "Hierarchy objects", type(h).__name__
                )
            codes = encode_column(frame[c], h, c).to_numpy()
            out.append(HierarchicalQI(c, codes, h))
    return out


def encode_sensitive(
    frame: pl.DataFrame,
    columns: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
) -> list[SensitiveAttribute]:
    """Sensitive columns as :class:`SensitiveAttribute` (labels in order of appearance)."""
    unknown = [c for c in columns if c not in frame.columns]
    if unknown:
        raise UnknownColumnError(unknown, frame.columns)
    out = []
    for c in columns:
        series = frame[c]
        nulls = series.null_count()
        if nulls:
            raise MissingValuesError(c, nulls)
        text = as_text(series)
        labels = text.unique(maintain_order=True).to_list()
        codes = text.replace_strict(labels, list(range(len(labels))), return_dtype=pl.Int64)
        h = (hierarchies or {}).get(c)
        out.append(SensitiveAttribute(c, codes.to_numpy(), tuple(labels), h))
    return out


def fit_frame(
    frame: pl.DataFrame,
    models: Sequence[PrivacyModel],
    *,
    quasi_identifiers: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
    numeric: Sequence[str] = (),
    orders: Mapping[str, Sequence[str]] | None = None,
    sensitive: Sequence[str] = (),
    sensitive_hierarchies: Mapping[str, Hierarchy] | None = None,
    population: pl.DataFrame | None = None,
    mode: str = "strict",
    split: str = "widest",
    numeric_release: str = "range",
    implementation: str = "auto",
    progress: Progress | None = None,
    engine: str | None = None,
) -> MondrianResult:
    """Run :class:`Mondrian` on the columns of a polars DataFrame.

    Parameters
    ----------
    frame
        The table.
    models
        Privacy models.
    quasi_identifiers
        Columns to partition on, in order (the order breaks ties between split choices).
    hierarchies, numeric, orders
        How each quasi-identifier is cut (see :func:`encode_frame`).
    sensitive, sensitive_hierarchies
        Sensitive columns (and optional hierarchies) for models that need them.
    population
        Population table with the same quasi-identifier columns (k-map, delta-presence).
    mode, split, numeric_release, implementation, progress
        See :class:`Mondrian`.
    engine
        Deprecated name of ``implementation`` (a :class:`DeprecationWarning`; passing
        both is a :class:`~anonkit.exceptions.ParameterError`).

    Examples
    --------
    >>> from anonkit.models import KAnonymity
    >>> h = Hierarchy([["m", "*"], ["f", "*"]])
    >>> df = pl.DataFrame({"age": [30, 32, 50, 55], "sex": ["m", "f", "m", "f"]})
    >>> res = fit_frame(df, [KAnonymity(2)], quasi_identifiers=["age", "sex"],
    ...                 hierarchies={"sex": h}, numeric=["age"])
    >>> release_frame(df, res).rows()
    [('[30-32]', '*'), ('[30-32]', '*'), ('[50-55]', '*'), ('[50-55]', '*')]
    """
    qis = encode_frame(
        frame,
        quasi_identifiers=quasi_identifiers,
        hierarchies=hierarchies,
        numeric=numeric,
        orders=orders,
    )
    sens = encode_sensitive(frame, sensitive, sensitive_hierarchies)
    pop = None
    if population is not None:
        pop_qis = encode_frame(
            population,
            quasi_identifiers=quasi_identifiers,
            hierarchies={q.name: q.hierarchy for q in qis if isinstance(q, HierarchicalQI)},
            numeric=numeric,
            orders=orders,
        )
        pop = {q.name: q for q in pop_qis}
    chosen = renamed_engine(implementation, engine, "fit_frame")
    return Mondrian(
        mode=mode,
        split=split,
        numeric_release=numeric_release,
        implementation=chosen,
        progress=progress,
    ).fit(qis, models, sensitive=sens, population=pop)


def release_frame(frame: pl.DataFrame, result: MondrianResult) -> pl.DataFrame:
    """``frame`` with each quasi-identifier replaced by its released labels (strings)."""
    if frame.height != result.n_records:
        raise DataError(
            f"The frame has {frame.height} rows but the result covers {result.n_records}."
        )
    columns = {
        a.name: pl.Series(a.name, list(a.table), dtype=pl.String).gather(
            pl.Series(a.codes[result.class_of])
        )
        for a in result.attributes
    }
    return frame.with_columns(**columns)
