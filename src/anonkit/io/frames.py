"""Dataframe conversion: pandas or polars in, the same type out.

pandas frames are converted column by column through numpy (pyarrow is not needed), and
strictly: a column is read as the one type its values share, pandas' missing markers
(``None``, ``NaN``, ``pd.NA``, ``NaT``) become nulls, and what would need a guess is an
error naming the column (two columns whose names read the same, an ``object`` column that
mixes text and numbers). Times and durations in seconds (pandas' unit for dates outside
the nanosecond range), which polars does not read from numpy, are read in milliseconds. On
the way back a column keeps its pandas type (categories, ``string``, nullable integers and
booleans, time zones, seconds) wherever its released values still fit that type.

polars frames are used as they are; a released column that was ``Categorical`` or ``Enum``
in the input (a quasi-identifier's labels come back as text) gets that type back the way a
pandas category column does (see :class:`PolarsTypes`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Self, TypeAlias

import numpy as np
import polars as pl

from anonkit.exceptions import DataError, ParameterError

__all__ = ["FrameKind", "PandasTypes", "PolarsTypes", "from_polars", "to_polars"]


@dataclass(frozen=True, eq=False)
class PandasTypes:
    """A pandas frame's column types that numpy cannot hold (categories, ``string``,
    nullable numbers and booleans, zoned times) or polars cannot (times and durations in
    seconds, read in milliseconds), by column, each with the polars type :func:`to_polars`
    read the column as: what :func:`from_polars` gives back to a column still of that
    polars type."""

    dtypes: dict[str, tuple[Any, pl.DataType]]

    def only(self, columns: Sequence[str]) -> Self:
        """The types of ``columns`` alone (a category type holds its column's values)."""
        return type(self)({c: t for c, t in self.dtypes.items() if c in columns})


@dataclass(frozen=True, eq=False)
class PolarsTypes:
    """A polars frame's ``Categorical`` and ``Enum`` column types, by column: what
    :func:`from_polars` gives back to a released column that holds the column's values as
    text (a quasi-identifier's labels, at any level) or still has that type.

    The rule is the one of a pandas category column: a ``Categorical`` holds any text, so
    the column comes back ``Categorical`` (generalized labels and ``*`` too); an ``Enum``
    comes back as an ``Enum`` of the categories its released values use, in the input's
    order, when every value is one of them (an unused category may be the value of a
    record the release suppressed), else as text (``String``): generalized or
    suppressed. A column recoded to another type (numbers) is left as it is.
    """

    dtypes: dict[str, pl.DataType]

    def only(self, columns: Sequence[str]) -> Self:
        """The types of ``columns`` alone (an Enum type holds its column's values)."""
        return type(self)({c: t for c, t in self.dtypes.items() if c in columns})


FrameKind: TypeAlias = Literal["polars", "pandas"] | PandasTypes | PolarsTypes

#: What the values of an ``object`` column are, by Python type (bool before int: a bool
#: is an int to Python).
_KINDS: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (str, "text"),
    ((bool, np.bool_), "boolean"),
    ((int, np.integer), "integer"),
    ((float, np.floating), "number"),
)


def to_polars(frame: Any) -> tuple[pl.DataFrame, FrameKind]:
    """Convert a caller's frame to polars and remember what it was: ``"polars"``, or the
    :class:`PolarsTypes` of a polars frame with ``Categorical`` or ``Enum`` columns; the
    :class:`PandasTypes` of a pandas frame.

    The pandas index is dropped (a release carries no row index) and column names are
    read as text.

    Raises
    ------
    DataError
        If a column has no name, two pandas columns have names that read the same (``0`` and
        ``"0"``, or a name given twice), or an ``object`` column mixes kinds of values (text and
        numbers, booleans and numbers) or holds values polars cannot hold.
    ParameterError
        If ``frame`` is neither a polars nor a pandas DataFrame.
    """
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if isinstance(frame, pl.DataFrame):
        # polars renames a Series named "" when it builds a frame of it: a release would
        # carry the column under another name
        _check_named(frame.columns)
        cats: dict[str, pl.DataType] = {
            n: d for n, d in frame.schema.items() if isinstance(d, pl.Categorical | pl.Enum)
        }
        return frame, PolarsTypes(cats) if cats else "polars"
    module = type(frame).__module__.split(".")[0]
    if module == "pandas" and hasattr(frame, "columns"):
        names = [str(name) for name in frame.columns]
        _check_named(names)
        twice = [name for name, count in Counter(names).items() if count > 1]
        if twice:
            shown = ", ".join(repr(n) for n in twice)
            raise DataError(
                f"The frame has more than one column named {shown} (as text); give every "
                "column a distinct name (anonkit reads column names as text, so 0 and '0' "
                "are the same name)."
            )
        columns = [_pandas_column(name, frame.iloc[:, j]) for j, name in enumerate(names)]
        typed = {
            name: (dtype, column.dtype)
            for name, dtype, column in zip(names, frame.dtypes, columns, strict=True)
            if not isinstance(dtype, np.dtype) or _read_finer(dtype)
        }
        return pl.DataFrame(columns), PandasTypes(typed)
    raise ParameterError("frame", "anonymize", "a polars or pandas DataFrame", type(frame).__name__)


def _check_named(names: list[str]) -> None:
    if "" in names:
        raise DataError(
            f"Column {names.index('') + 1} of the frame has no name; give every column a name."
        )


def _pandas_column(name: str, series: Any) -> pl.Series:
    """One pandas column as a polars Series of the one type its values share."""
    import pandas as pd

    dtype = series.dtype
    if isinstance(dtype, pd.DatetimeTZDtype):
        # numpy holds the instants in UTC without a zone: put the zone back
        utc = _polars_unit(name, series.dt.tz_convert("UTC").dt.tz_localize(None).to_numpy())
        return pl.Series(name, utc).dt.replace_time_zone("UTC").dt.convert_time_zone(str(dtype.tz))
    if isinstance(dtype, np.dtype) and dtype.kind != "O":
        return pl.Series(name, _polars_unit(name, series.to_numpy()))
    missing = series.isna().to_numpy()
    plain = getattr(dtype, "numpy_dtype", None)
    if isinstance(plain, np.dtype) and plain.kind in "biuf":
        # nullable extension types (Int64, boolean, Float64): values and a mask
        values = series.to_numpy(dtype=plain, na_value=plain.type(0))
        return _with_nulls(pl.Series(name, values), missing)
    values = series.to_numpy(dtype=object)
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred in ("mixed", "mixed-integer"):
        _refuse_mixed(name, values, missing)
    cells = [None if gone else v for v, gone in zip(values.tolist(), missing, strict=True)]
    try:
        return pl.Series(name, cells, dtype=_INFERRED.get(inferred), strict=True)
    except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError):
        _refuse_mixed(name, values, missing)
        raise  # pragma: no cover - _refuse_mixed raises


#: The time units polars reads from numpy.
_POLARS_UNITS = ("ms", "us", "ns")


def _polars_unit(name: str, values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``values`` with times and durations in a unit polars reads: seconds (pandas' unit
    for times outside the nanosecond range, the year 1700 say) as milliseconds, the same
    instants and durations.

    Raises
    ------
    DataError
        If a value is too far from 1970 to count in milliseconds (292 million years).
    """
    if not _read_finer(values.dtype):
        return values
    finer = values.astype(f"{values.dtype.kind}8[ms]")
    if not np.array_equal(finer.astype(values.dtype), values, equal_nan=True):
        raise DataError(
            f"Column {name!r} holds times or durations too far from 1970 to count in "
            "milliseconds (292 million years); convert it to numbers or text first."
        )
    return finer


def _read_finer(dtype: np.dtype[Any]) -> bool:
    """Whether ``dtype`` holds times or durations in a unit polars lacks (seconds)."""
    return dtype.kind in "mM" and np.datetime_data(dtype)[0] not in _POLARS_UNITS


#: The polars type of an ``object`` column, by what pandas infers its values are (other
#: kinds, dates or decimals say, are left to polars).
_INFERRED: dict[str, Any] = {
    "string": pl.String,
    "boolean": pl.Boolean,
    "integer": pl.Int64,
    "floating": pl.Float64,
    "mixed-integer-float": pl.Float64,
}


def _refuse_mixed(name: str, values: np.ndarray[Any, Any], missing: np.ndarray[Any, Any]) -> None:
    """Raise the error for an ``object`` column whose values share no one type, naming
    the kinds and a row of each (1-based, as a file's data rows), never a value."""
    kinds: dict[str, int] = {}
    for row in np.flatnonzero(~missing):
        kinds.setdefault(_kind(values[row]), int(row) + 1)
        if len(kinds) == 2:
            break
    if len(kinds) == 2:
        examples = " and ".join(f"{k} (row {r})" for k, r in kinds.items())
        raise DataError(
            f"Column {name!r} mixes kinds of values, for example {examples}; give it one "
            f"type before anonymizing (for example df[{name!r}].astype(str)), so that no "
            "value is read as another."
        )
    raise DataError(
        f"Column {name!r} holds values anonkit cannot read ({', '.join(kinds)}); convert "
        "it to text, numbers or dates first."
    )


def _kind(value: Any) -> str:
    """What kind of value ``value`` is (:data:`_KINDS`), or its type's name."""
    for types, kind in _KINDS:
        if isinstance(value, types):
            return kind
    return type(value).__name__


def _with_nulls(series: pl.Series, missing: np.ndarray[Any, Any]) -> pl.Series:
    """``series`` with nulls where ``missing`` holds."""
    if not missing.any():
        return series
    return series.scatter(np.flatnonzero(missing), None)


def from_polars(frame: pl.DataFrame, kind: FrameKind) -> Any:
    """Return ``frame`` as the caller's frame type, with a fresh default index for pandas.

    Text comes back as ``object`` columns; integers and booleans with nulls as pandas'
    nullable ``Int64`` and ``boolean``; times with a zone as zoned times. A column the
    caller gave with a pandas type numpy cannot hold (:class:`PandasTypes`) comes back with
    that type when its values still fit it: a column published unchanged keeps its
    categories or ``string`` type, a generalized one is text. A polars frame comes back as
    it is, with its ``Categorical`` and ``Enum`` columns' types (:class:`PolarsTypes`).
    """
    if kind == "polars":
        return frame
    if isinstance(kind, PolarsTypes):
        return _with_polars_types(frame, kind.dtypes)
    import pandas as pd

    typed = kind.dtypes if isinstance(kind, PandasTypes) else {}
    data = {}
    for name in frame.columns:
        series = frame[name]
        dtype = series.dtype
        if dtype == pl.String:
            data[name] = pd.Series(series.to_list(), dtype=object)
        elif isinstance(dtype, pl.Datetime) and dtype.time_zone is not None:
            utc = series.dt.convert_time_zone("UTC").dt.replace_time_zone(None).to_numpy()
            data[name] = pd.Series(utc).dt.tz_localize("UTC").dt.tz_convert(dtype.time_zone)
        elif series.null_count() and (dtype.is_integer() or dtype == pl.Boolean):
            nullable = "boolean" if dtype == pl.Boolean else "Int64"
            data[name] = pd.Series(pd.array(series.to_list(), dtype=nullable))
        else:
            data[name] = series.to_numpy()
        given = typed.get(name)
        if given is not None and series.dtype == given[1]:  # not recoded to another type
            data[name] = _as_given(pd.Series(data[name]), given[0])
    return pd.DataFrame(data)


def _as_given(column: Any, dtype: Any) -> Any:
    """``column`` as the caller's pandas ``dtype`` when its values fit it, else unchanged.

    A category type keeps only the categories the values use, in their order: one the
    release lacks may be the value of records it suppressed.
    """
    import pandas as pd

    if isinstance(dtype, pd.CategoricalDtype):
        present = column.dropna()
        if not present.isin(dtype.categories).all():
            return column  # generalized or suppressed: values the categories lack
        values = set(present.tolist())
        used = [c for c in dtype.categories if c in values]
        return column.astype(pd.CategoricalDtype(used, ordered=dtype.ordered))
    try:
        return column.astype(dtype)
    except (TypeError, ValueError, OverflowError):
        return column


def _with_polars_types(frame: pl.DataFrame, dtypes: dict[str, pl.DataType]) -> pl.DataFrame:
    """``frame`` with each column of ``dtypes`` given back its ``Categorical`` or ``Enum``
    type where its values fit it (see :class:`PolarsTypes`)."""
    typed = []
    for name, dtype in dtypes.items():
        series = frame.get_column(name) if name in frame.columns else None
        if series is None or series.dtype not in (pl.String, dtype):
            continue  # left out, or recoded to another type
        if isinstance(dtype, pl.Enum):
            text = series.cast(pl.String).drop_nulls()
            if not text.is_in(dtype.categories).all():
                continue  # generalized or suppressed: values the categories lack
            used = dtype.categories.filter(dtype.categories.is_in(text))
            typed.append(series.cast(pl.String).cast(pl.Enum(used)))
        elif series.dtype == pl.String:
            typed.append(series.cast(dtype))
    return frame.with_columns(typed) if typed else frame
