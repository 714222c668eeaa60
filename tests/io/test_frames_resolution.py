"""pandas times of every resolution pandas holds (seconds, milliseconds, microseconds,
nanoseconds), with and without a zone, and durations: read with their values, released
with the caller's type."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

from anonkit import DataError, anonymize
from anonkit.estimators import FullDomain, Privacy
from anonkit.io.frames import from_polars, to_polars
from anonkit.models import KAnonymity

UNITS = ["s", "ms", "us", "ns"]
SEX = ["m", "m", "f", "f"]
WHEN = ["1700-01-01 10:00:01", None, "2020-07-03 12:30:05", "2020-07-03 12:30:05"]


def _times(unit: str, zone: str | None) -> pd.Series:
    # pandas gives seconds to times outside the nanosecond range (the year 1700) itself
    column = pd.Series(pd.to_datetime(WHEN, format="ISO8601").astype(f"datetime64[{unit}]"))
    return column if zone is None else column.dt.tz_localize(zone)


def _durations(unit: str) -> pd.Series:
    return pd.Series(pd.to_timedelta([1, None, 3, 3], unit="s").astype(f"timedelta64[{unit}]"))


@pytest.mark.parametrize("zone", [None, "UTC", "Europe/Paris"])
@pytest.mark.parametrize("unit", UNITS)
def test_times_of_every_resolution_round_trip_with_their_type(unit: str, zone: str | None) -> None:
    """datetime64[s] (and [s, UTC]) stopped on polars' 'incorrect NumPy datetime
    resolution'."""
    frame = pd.DataFrame({"when": _times(unit, zone), "wait": _durations(unit)})
    data, kind = to_polars(frame)
    assert data["when"].null_count() == 1 and data["wait"].null_count() == 1
    assert data["when"].dtype == pl.Datetime(data["when"].dtype.time_unit, zone)
    back = from_polars(data, kind)
    assert back.dtypes.tolist() == frame.dtypes.tolist()
    assert back["when"].tolist()[0] == frame["when"].tolist()[0]
    assert back.isna().equals(frame.isna())
    assert back.equals(frame)


def test_seconds_are_read_as_the_same_instants() -> None:
    data, _ = to_polars(pd.DataFrame({"when": _times("s", "UTC"), "wait": _durations("s")}))
    assert data["when"].dt.convert_time_zone("UTC").dt.replace_time_zone(None).to_list()[0] == (
        pd.Timestamp("1700-01-01 10:00:01").to_pydatetime()
    )
    assert data["wait"].dt.total_seconds().to_list() == [1, None, 3, 3]


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("role", ["insensitive", "sensitive"])
def test_released_columns_of_seconds_keep_their_values_and_type(unit: str, role: str) -> None:
    frame = pd.DataFrame({"sex": SEX, "when": _times(unit, "UTC"), "day": _times(unit, None)})
    frame = pd.concat([frame.assign(wait=_durations(unit))] * 2).dropna().reset_index(drop=True)
    # a duration is published as it is only (a sensitive one is refused, named)
    roles = {"insensitive": ["when", "day", "wait"]}
    if role == "sensitive":
        roles = {"sensitive": ["when", "day"], "insensitive": ["wait"]}
    out = anonymize(frame, quasi_identifiers=["sex"], k=2, leak_check=False, **roles).release
    assert out[["when", "day", "wait"]].equals(frame[["when", "day", "wait"]])


@pytest.mark.parametrize("unit", UNITS)
def test_a_quasi_identifier_of_seconds_is_generalized_and_transformed(unit: str) -> None:
    when = pd.Series(
        pd.to_datetime(["2020-07-03", "2020-07-09", "2020-08-01", "2020-08-02"]).astype(
            f"datetime64[{unit}]"
        )
    )
    frame = pd.DataFrame({"sex": SEX, "when": when})
    spec = {"when": {"type": "dates", "levels": ["month", "year"]}}
    est = FullDomain(privacy=Privacy(KAnonymity(2)), leak_check=False)
    est.fit(frame, quasi_identifiers=["when"], hierarchies=spec, insensitive=["sex"])
    assert est.result_.release["when"].tolist() == ["2020-07", "2020-07", "2020-08", "2020-08"]
    assert est.transform(frame.head(1))["when"].tolist() == ["2020-07"]


def test_a_polars_frame_of_milliseconds_is_unchanged() -> None:
    frame = pl.DataFrame({"when": pl.Series([0, 1000], dtype=pl.Datetime("ms"))})
    data, kind = to_polars(frame)
    assert data.equals(frame) and kind == "polars"


def test_seconds_too_far_from_1970_for_milliseconds_are_named_not_wrapped() -> None:
    far = pd.Series(np.array([2**62, 0], dtype=np.int64).view("datetime64[s]"))
    with pytest.raises(DataError, match=r"Column 'far' holds times .* too far from 1970"):
        to_polars(pd.DataFrame({"far": far}))


def test_a_duration_of_seconds_is_refused_by_the_leak_check_as_any_duration() -> None:
    frame = pd.DataFrame({"sex": SEX, "wait": _durations("s").fillna(pd.Timedelta(0))})
    with pytest.raises(DataError, match=r"Column 'wait' holds Duration.*total_seconds"):
        anonymize(frame, quasi_identifiers=["sex"], k=2, insensitive=["wait"])
