"""Mondrian on a polars DataFrame: encode the columns, run, write the release back.

Built for tables of tens of millions of records: each column is encoded on its distinct
values (text normalization and hierarchy lookups run once per distinct value, and every
record gets an int32 index into them), and the release is one gather of a small table
holding each class's labels by the records' class ids (:func:`release_frame`); no
per-record Python object is made. :func:`release_tally` counts the release per class and
sensitive value, so that it can be verified and profiled without grouping the released
text of every record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit.algorithms.mondrian.attributes import (
    HierarchicalQI,
    NumericQI,
    OrderedQI,
    QuasiIdentifier,
    SensitiveAttribute,
)
from anonkit.algorithms.mondrian.estimator import Mondrian, renamed_engine
from anonkit.algorithms.mondrian.release import MondrianResult, format_number, range_label
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.hierarchy_builders import suppression
from anonkit.core.values import (
    FLOAT_EXACT,
    as_numbers,
    as_text,
    beyond_float,
    encode_column,
    missing_expr,
)
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
    if series.dtype.is_integer() and series.len() and beyond_float(series.min(), series.max()):
        # cut as float64, such integers would be rounded: the released ranges would not
        # contain the values they stand for
        raise DataError(
            f"Column {column!r} holds integers beyond ±2**53 ({FLOAT_EXACT:,}), which a numeric "
            "quasi-identifier cannot hold exactly; give it a hierarchy instead (leave it "
            "out of 'numeric') or rescale it before anonymizing."
        )
    values = as_numbers(series, column).to_numpy()
    # the widths of the cuts and the partitions' sums (means) must stay finite
    bound = float(np.finfo(np.float64).max) / (2.0 * max(values.size, 1))
    if values.size and float(np.abs(values).max()) > bound:
        raise DataError(
            f"Column {column!r} holds numbers beyond ±{bound:.3g}, where Mondrian's widths "
            f"and sums over {values.size:,} records would overflow float64; rescale it "
            "(divide by a unit) before anonymizing."
        )
    return NumericQI(column, values)


def distinct_index(series: pl.Series) -> tuple[pl.Series, npt.NDArray[Any]]:
    """The distinct values of a column without missing values (in order of first
    appearance), and each record's index into them (an unsigned or int32 array).

    Text columns are cast to an enumeration of their distinct values (one hash lookup per
    record), numbers are looked up in their sorted distinct values, other types go through
    a join.

    Examples
    --------
    >>> uniq, index = distinct_index(pl.Series(["b", "a", "b"]))
    >>> uniq.gather(index.astype("int64")).to_list()
    ['b', 'a', 'b']
    """
    uniq = series.unique(maintain_order=True)
    if series.dtype == pl.String:
        index: npt.NDArray[Any] = series.cast(pl.Enum(uniq)).to_physical().to_numpy()
    elif series.dtype.is_numeric():
        ordered = uniq.sort()
        at = np.searchsorted(ordered.to_numpy(), series.to_numpy())
        appearance = np.empty(ordered.len(), dtype=np.int32)  # sorted rank -> first seen
        appearance[np.searchsorted(ordered.to_numpy(), uniq.to_numpy())] = np.arange(
            uniq.len(), dtype=np.int32
        )
        index = appearance[at]
    else:
        key = pl.DataFrame({"v": uniq}).with_row_index("i")
        index = (
            pl.DataFrame({"v": series})
            .join(key, on="v", how="left", maintain_order="left")["i"]
            .to_numpy()
            .astype(np.int32)
        )
    return uniq, index


def _present(series: pl.Series, column: str) -> None:
    """Refuse missing values (null, or NaN in a float column)."""
    missing = series.to_frame(column).select(missing_expr(column, series.dtype).sum()).item()
    if missing:
        raise MissingValuesError(column, int(missing))


def _hierarchical(series: pl.Series, hierarchy: Hierarchy, column: str) -> HierarchicalQI:
    """A column's leaf codes, looked up once per distinct value."""
    _present(series, column)
    uniq, index = distinct_index(series.alias(column))
    leaf = encode_column(uniq, hierarchy, column).to_numpy().astype(np.int32)
    codes = leaf[index]
    codes.setflags(write=False)
    return HierarchicalQI(column, codes, hierarchy)


def _ordered(frame: pl.DataFrame, column: str, order: Sequence[str]) -> OrderedQI:
    series = frame[column]
    _present(series, column)
    labels = [str(x) for x in order]
    uniq, index = distinct_index(series)
    text = as_text(uniq)
    position = text.replace_strict(
        labels, list(range(len(labels))), default=-1, return_dtype=pl.Int32
    )
    if (position < 0).any():
        missing = text.filter(position < 0).head(5).to_list()
        raise DataError(f"Column {column!r} holds values missing from its order: {missing}.")
    codes = position.to_numpy()[index]
    codes.setflags(write=False)
    return OrderedQI(column, codes, tuple(labels))


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
                distinct = frame[c].drop_nulls().unique(maintain_order=True)
                h = suppression(as_text(distinct).unique(maintain_order=True), name=c)
            elif not isinstance(h, Hierarchy):
                raise ParameterError(
                    "hierarchies", "Mondrian", "Hierarchy objects", type(h).__name__
                )
            out.append(_hierarchical(frame[c], h, c))
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
        uniq, index = distinct_index(series)
        text = as_text(uniq)
        labels = text.unique(maintain_order=True)
        position = text.replace_strict(labels, list(range(labels.len())), return_dtype=pl.Int32)
        codes = position.to_numpy()[index]
        codes.setflags(write=False)
        h = (hierarchies or {}).get(c)
        out.append(SensitiveAttribute(c, codes, tuple(labels.to_list()), h))
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


def _class_labels(result: MondrianResult, *, ranges: bool = False) -> pl.DataFrame:
    """One row per class: its released label in every quasi-identifier (with ``ranges``,
    a numeric one as its class's ``[min-max]``, whatever ``numeric_release``)."""
    columns = []
    for a in result.attributes:
        if ranges and a.kind == "numeric" and result.numeric_release != "range":
            assert a.low is not None and a.high is not None
            ends = zip(a.low.tolist(), a.high.tolist(), strict=True)
            labels = [range_label(format_number(lo), format_number(hi)) for lo, hi in ends]
            columns.append(pl.Series(a.name, labels, dtype=pl.String))
        else:
            columns.append(pl.Series(a.name, a.table, dtype=pl.String).gather(pl.Series(a.codes)))
    return pl.DataFrame(columns)


def release_frame(
    frame: pl.DataFrame, result: MondrianResult, *, ranges: bool = False
) -> pl.DataFrame:
    """``frame`` with each quasi-identifier replaced by its released labels (strings);
    with ``ranges``, a numeric one by its class's range even in a mean release (the loss
    of a mean release is the loss of its classes' ranges).

    The labels are gathered from a table with one row per class by each record's class
    id, so no per-record text is formatted.
    """
    if frame.height != result.n_records:
        raise DataError(
            f"The frame has {frame.height} rows but the result covers {result.n_records}."
        )
    labels = _class_labels(result, ranges=ranges)
    released = labels.select(pl.all().gather(pl.Series(result.class_of)))
    return frame.with_columns(released.get_columns())


def release_tally(
    frame: pl.DataFrame,
    result: MondrianResult,
    *,
    sensitive: Sequence[str] = (),
    weight: str = "__anonkit_records",
) -> pl.DataFrame:
    """The release of :func:`release_frame` counted: one row per class and combination of
    ``sensitive`` values, with the released labels and the number of records (``weight``).

    The counts are recounted from the records' class ids (not taken from
    ``result.sizes``), and the labels are those :func:`release_frame` writes, so
    :func:`anonkit.verify.verify_release` (``weight=``) judges the same classes as on
    the release itself, after merging the rows with equal labels.

    Raises
    ------
    DataError
        If ``frame`` does not have the records of ``result``.
    """
    if frame.height != result.n_records:
        raise DataError(
            f"The frame has {frame.height} rows but the result covers {result.n_records}."
        )
    names = list(dict.fromkeys(sensitive))
    labels = _class_labels(result)
    cls = "__anonkit_class"
    if not names:
        counts = np.bincount(result.class_of, minlength=result.n_classes)
        return labels.with_columns(pl.Series(weight, counts, dtype=pl.Int64)).filter(
            pl.col(weight) > 0
        )
    ids = frame.select(names).with_columns(pl.Series(cls, result.class_of, dtype=pl.Int32))
    counted = ids.group_by([cls, *names]).agg(pl.len().cast(pl.Int64).alias(weight))
    return (
        counted.join(labels.with_row_index(cls).cast({cls: pl.Int32}), on=cls, how="left")
        .drop(cls)
        .select([*labels.columns, *names, weight])
    )
