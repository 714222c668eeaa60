"""Tests of anonkit.core.hierarchy_builders."""

from __future__ import annotations

import doctest
import math
import re
from datetime import date, datetime
from decimal import Decimal
from fractions import Fraction
from types import ModuleType

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit.core import hierarchy_builders as hb
from anonkit.core.builders import dates as builder_dates
from anonkit.core.builders import intervals as builder_intervals
from anonkit.core.builders import masking as builder_masking
from anonkit.core.builders import ordered as builder_ordered
from anonkit.core.hierarchy import Hierarchy
from anonkit.core.hierarchy_builders import (
    BUILDERS,
    build_hierarchy,
    dates,
    intervals,
    masking,
    ordered_groups,
    suppression,
)
from anonkit.exceptions import ConfigError, ParameterError, UnknownNameError


@pytest.mark.parametrize(
    "module", [hb, builder_dates, builder_intervals, builder_masking, builder_ordered]
)
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0


# ----------------------------------------------------------------------- intervals
def test_intervals_golden() -> None:
    h = intervals([33, 21, 28, 21], [5, 10], name="age")
    assert h.rows == (
        ("21", "[20-25[", "[20-30[", "*"),
        ("28", "[25-30[", "[20-30[", "*"),
        ("33", "[30-35[", "[30-40[", "*"),
    )
    assert h.name == "age"
    assert h.leaves == ("21", "28", "33")


def test_intervals_three_levels_and_explicit_start() -> None:
    h = intervals([21, 28, 33, 47], [5, 10, 20], start=15)
    assert h.rows == (
        ("21", "[20-25[", "[15-25[", "[15-35[", "*"),
        ("28", "[25-30[", "[25-35[", "[15-35[", "*"),
        ("33", "[30-35[", "[25-35[", "[15-35[", "*"),
        ("47", "[45-50[", "[45-55[", "[35-55[", "*"),
    )


def test_intervals_integer_bin_holds_lower_to_upper_minus_one() -> None:
    h = intervals(list(range(20, 31)), [5])
    assert [h.generalize(str(v), 1) for v in range(20, 26)] == ["[20-25["] * 5 + ["[25-30["]


def test_intervals_right_closed() -> None:
    h = intervals([20, 21, 25, 26], [5], closed="right")
    assert h.rows == (
        ("20", "]15-20]", "*"),
        ("21", "]20-25]", "*"),
        ("25", "]20-25]", "*"),
        ("26", "]25-30]", "*"),
    )


def test_intervals_rendering_floats_strings_numpy() -> None:
    h = intervals([21.0, "22.5", np.int64(3), np.float64(7.25), Decimal("4.0"), " 9 "], [2.5, 5])
    assert h.leaves == ("3", "4", "7.25", "9", "21", "22.5")
    assert h.generalize("7.25", 1) == "[5-7.5["
    assert h.generalize("22.5", 1) == "[22.5-25["
    assert h.generalize("22.5", 2) == "[22.5-27.5["  # 5-wide bins anchored at 2.5


def test_intervals_decimal_widths_are_exact() -> None:
    h = intervals([0.3, 0.1], [0.1, 0.3])
    assert h.rows == (
        ("0.1", "[0.1-0.2[", "[0.1-0.4[", "*"),
        ("0.3", "[0.3-0.4[", "[0.1-0.4[", "*"),
    )


def test_intervals_negative_values() -> None:
    h = intervals([-7, 3], [5, 10])
    assert h.rows == (("-7", "[-10--5[", "[-10-0[", "*"), ("3", "[0-5[", "[0-10[", "*"))


def test_intervals_single_width_number() -> None:
    assert intervals([1, 2], 10).rows == (("1", "[0-10[", "*"), ("2", "[0-10[", "*"))


@pytest.mark.parametrize(
    "widths",
    [[], [0], [-5], [5, 7], [5, 5], [10, 5], ["5"], [True], [math.nan], "5", None, [math.inf]],
)
def test_intervals_bad_widths(widths: object) -> None:
    with pytest.raises(ParameterError) as info:
        intervals([1, 2], widths)  # type: ignore[arg-type]
    assert info.value.parameter == "widths"


@pytest.mark.parametrize(
    ("values", "offending"),
    [
        ([1, "abc", "x"], "abc"),
        ([1, True], True),
        ([1, "nan"], "nan"),
        ([1, date(2020, 1, 1)], date(2020, 1, 1)),
    ],
)
def test_intervals_non_numeric_values(values: list[object], offending: object) -> None:
    with pytest.raises(ParameterError) as info:
        intervals(values, [5])
    assert info.value.parameter == "values"
    assert info.value.got == offending
    assert repr(offending) in str(info.value)


@pytest.mark.parametrize("missing", [None, math.nan, float("inf"), np.float64("nan"), "  "])
def test_intervals_missing_values(missing: object) -> None:
    with pytest.raises(ParameterError) as info:
        intervals([1, missing], [5])
    assert info.value.parameter == "values"


def test_intervals_bad_start_and_closed() -> None:
    with pytest.raises(ParameterError) as info:
        intervals([1], [5], start=math.nan)
    assert info.value.parameter == "start"
    with pytest.raises(ParameterError) as info:
        intervals([1], [5], closed="both")
    assert info.value.parameter == "closed"


_INTERVAL = re.compile(r"^([\[\]])(-?[0-9.]+)-(-?[0-9.]+)([\[\]])$")


@st.composite
def _nested_widths(draw: st.DrawFn) -> list[int]:
    widths = [draw(st.integers(1, 20))]
    for _ in range(draw(st.integers(0, 3))):
        widths.append(widths[-1] * draw(st.integers(2, 4)))
    return widths


@settings(max_examples=150, deadline=None)
@given(
    values=st.lists(st.integers(-1000, 1000), min_size=1, max_size=30),
    widths=_nested_widths(),
    start=st.none() | st.integers(-50, 50),
    closed=st.sampled_from(["left", "right"]),
)
def test_intervals_property(
    values: list[int], widths: list[int], start: int | None, closed: str
) -> None:
    h = intervals(values, widths, start=start, closed=closed)  # validates on construction
    assert set(h.leaves) == {str(v) for v in values}
    assert list(h.leaves) == [str(v) for v in sorted(set(values))]
    assert h.height == len(widths) + 2
    assert h.labels(h.max_level) == ("*",)
    anchor = start if start is not None else (min(values) // widths[0]) * widths[0]
    for v in set(values):
        for level, width in enumerate(widths, start=1):
            match = _INTERVAL.match(h.generalize(str(v), level))
            assert match is not None
            left, lo_text, hi_text, right = match.groups()
            lo, hi = int(lo_text), int(hi_text)
            assert hi - lo == width
            assert (lo - anchor) % width == 0
            if closed == "left":
                assert (left, right) == ("[", "[")
                assert lo <= v < hi
            else:
                assert (left, right) == ("]", "]")
                assert lo < v <= hi
    assert Hierarchy.from_text(h.to_csv()) == h


def _holds(label: str, leaf: str) -> bool:
    """Whether the bin ``label`` (``[lo-hi[`` or ``]lo-hi]``) holds the number ``leaf``."""
    match = _INTERVAL.match(label)
    assert match is not None, label
    left, lo_text, hi_text, _ = match.groups()
    lo, hi, x = Fraction(lo_text), Fraction(hi_text), Fraction(leaf)
    return lo <= x < hi if left == "[" else lo < x <= hi


@pytest.mark.parametrize("closed", ["left", "right"])
@pytest.mark.parametrize(
    ("values", "widths"),
    [
        ([1e20, 1e20 + 1e5], [1e5]),  # the repro: 100000000000000098304 in [1e20-1e20+1e5[
        ([1e20, 1e20 + 1e5], [1, 10, 100]),
        ([2.0**60 + 2.0**9, 2.0**61], [1000, 10_000]),
        ([np.float32(1e20), np.float32(3e10)], [10, 1000]),
        ([1e17 + 16, 99999999999999984.0], [7]),
    ],
)
def test_intervals_put_a_whole_float_in_the_bin_of_its_label(
    values: list[float], widths: list[float], closed: str
) -> None:
    """The bins were computed from the float's shortest repr (1.000000000000001e+20) but
    the leaf is labelled with its exact value ('100000000000000098304'), which fell
    outside its bin."""
    h = intervals(values, widths, closed=closed)
    for leaf in h.leaves:
        for level in range(1, len(widths) + 1):
            assert _holds(h.generalize(leaf, level), leaf), (leaf, h.generalize(leaf, level))


def test_intervals_label_a_large_whole_float_as_its_exact_value() -> None:
    h = intervals([1e20 + 1e5], [1e5])
    assert h.rows == (
        ("100000000000000098304", "[100000000000000000000-100000000000000100000[", "*"),
    )


# ------------------------------------------------------------------------- masking
def test_masking_zip_golden() -> None:
    h = masking(["13053", "13068", 13053])
    assert h.rows == (
        ("13053", "1305*", "130**", "13***", "1****", "*****", "*"),
        ("13068", "1306*", "130**", "13***", "1****", "*****", "*"),
    )


def test_masking_levels_and_char() -> None:
    h = masking(["13053", "13068"], levels=2)
    assert h.rows == (("13053", "1305*", "130**", "*"), ("13068", "1306*", "130**", "*"))
    h = masking(["ab", "cd"], char="#")
    assert h.rows == (("ab", "a#", "##", "*"), ("cd", "c#", "##", "*"))
    assert masking(["ab"], levels=0).rows == (("ab", "*"),)


def test_masking_single_character_has_no_duplicate_root() -> None:
    assert masking(["a", "b"]).rows == (("a", "*"), ("b", "*"))


def test_masking_errors() -> None:
    with pytest.raises(ParameterError) as info:
        masking(["13053", "1306", "130"])
    assert info.value.parameter == "values"
    assert info.value.got == "1306"
    for levels in (-1, 6, 1.5, True):
        with pytest.raises(ParameterError) as info:
            masking(["13053"], levels=levels)  # type: ignore[arg-type]
        assert info.value.parameter == "levels"
    for char in ("", "**", " ", 1):
        with pytest.raises(ParameterError) as info:
            masking(["13053"], char=char)  # type: ignore[arg-type]
        assert info.value.parameter == "char"


# --------------------------------------------------------------------------- dates
def test_dates_golden() -> None:
    h = dates(["2024-03-05", "2023-12-31", "2024-03-05", "2024-11-02"])
    assert h.rows == (
        ("2024-03-05", "2024-03", "2024", "*"),
        ("2023-12-31", "2023-12", "2023", "*"),
        ("2024-11-02", "2024-11", "2024", "*"),
    )


def test_dates_all_levels_and_format() -> None:
    h = dates(["05/03/2024", "31/12/2019"], format="%d/%m/%Y", levels=["quarter", "decade"])
    assert h.rows == (
        ("05/03/2024", "2024-Q1", "2020s", "*"),
        ("31/12/2019", "2019-Q4", "2010s", "*"),
    )
    h = dates(["2024-02-29"], levels=("month", "quarter", "year", "decade"))
    assert h.rows == (("2024-02-29", "2024-02", "2024-Q1", "2024", "2020s", "*"),)


def test_dates_week_uses_iso_year() -> None:
    h = dates(["2024-12-30", "2024-12-29", "2024-02-29"], levels=["week", "year"])
    assert h.rows == (
        ("2024-12-30", "2025-W01", "2025", "*"),
        ("2024-12-29", "2024-W52", "2024", "*"),
        ("2024-02-29", "2024-W09", "2024", "*"),
    )


def test_dates_objects_and_single_level() -> None:
    h = dates([date(2024, 3, 5), datetime(2024, 3, 6, 10, 0)], levels="year")
    assert h.rows == (("2024-03-05", "2024", "*"), ("2024-03-06 10:00:00", "2024", "*"))
    assert dates(["2024-03-05"], levels=[]).rows == (("2024-03-05", "*"),)


@pytest.mark.parametrize(
    "levels",
    [
        ["week", "month"],
        ["week", "quarter"],
        ["year", "month"],
        ["month", "month"],
        ["hour"],  # ("day" is a level: timestamps generalize to their day)
        "fortnight",
        [1],
        None,
    ],
)
def test_dates_bad_levels(levels: object) -> None:
    with pytest.raises(ParameterError) as info:
        dates(["2024-03-05"], levels=levels)  # type: ignore[arg-type]
    assert info.value.parameter == "levels"


def test_dates_take_timestamps_as_a_timestamp_column_prints_them() -> None:
    """The streaming and Spark engines hand a builder a column's distinct values as text:
    a timestamp column's read '2024-03-05 08:00:00', which the default format refused."""
    h = dates(["2024-03-05 08:00:00", "2024-03-06 09:30:00.250000", "2024-12-31 23:00:00+00:00"])
    assert h.rows == (
        ("2024-03-05 08:00:00", "2024-03", "2024", "*"),
        ("2024-03-06 09:30:00.250000", "2024-03", "2024", "*"),
        ("2024-12-31 23:00:00+00:00", "2024-12", "2024", "*"),
    )
    for text, fmt in (("2024-03-05 08:00:00", "%d/%m/%Y"), ("20240305", "%Y-%m-%d")):
        with pytest.raises(ParameterError):  # another format asked for, or not a timestamp
            dates([text], format=fmt)


def test_dates_unparseable() -> None:
    with pytest.raises(ParameterError) as info:
        dates(["2024-03-05", "2024-02-30", "garbage"])
    assert info.value.parameter == "values"
    assert info.value.got == "2024-02-30"
    with pytest.raises(ParameterError) as info:
        dates(["2024-03-05"], format="")
    assert info.value.parameter == "format"


# -------------------------------------------------------------------------- ordered
EDUCATION = ["Preschool", "HS-grad", "Some-college", "Bachelors", "Masters", "Doctorate"]


def test_ordered_groups_explicit_order() -> None:
    values = ["Masters", "Bachelors", "Doctorate", "HS-grad", "Preschool"]
    h = ordered_groups(values, [2, 2], order=[*EDUCATION, "Prof-school"])
    assert h.rows == (
        ("Preschool", "Preschool-HS-grad", "Preschool-Masters", "*"),
        ("HS-grad", "Preschool-HS-grad", "Preschool-Masters", "*"),
        ("Bachelors", "Bachelors-Masters", "Preschool-Masters", "*"),
        ("Masters", "Bachelors-Masters", "Preschool-Masters", "*"),
        ("Doctorate", "Doctorate", "Doctorate", "*"),
    )


def test_ordered_groups_numeric_natural_sort() -> None:
    h = ordered_groups([29, 20, 100, "3", 9.0], 2)
    assert h.rows == (
        ("3", "3-9", "*"),
        ("9", "3-9", "*"),
        ("20", "20-29", "*"),
        ("29", "20-29", "*"),
        ("100", "100", "*"),
    )


def test_ordered_groups_string_sort() -> None:
    h = ordered_groups(["b", "a", "c", 1], [3])
    assert h.rows == (("1", "1-b", "*"), ("a", "1-b", "*"), ("b", "1-b", "*"), ("c", "c", "*"))


def test_ordered_groups_clashing_labels_are_made_distinct() -> None:
    h = ordered_groups(["a", "b", "a-b"], [2], order=["a", "b", "a-b"])
    assert h.labels(1) == ("a-b #1", "a-b #2")


def test_ordered_groups_errors() -> None:
    for fanouts in ([], [1], [2, 0], [2.0], "2", [True]):
        with pytest.raises(ParameterError) as info:
            ordered_groups(["a", "b"], fanouts)  # type: ignore[arg-type]
        assert info.value.parameter == "fanouts"
    with pytest.raises(ParameterError) as info:
        ordered_groups(["a", "b", "c"], [2], order=["a"])
    assert info.value.parameter == "order"
    assert info.value.got == "b"
    with pytest.raises(ParameterError) as info:
        ordered_groups(["a"], [2], order=["a", "a"])
    assert info.value.parameter == "order"
    with pytest.raises(ParameterError) as info:
        ordered_groups(["a"], [2], order="a")
    assert info.value.parameter == "order"


# ---------------------------------------------------------------------- suppression
def test_suppression() -> None:
    assert suppression(["F", "M", "F", 1, 2.0, 2.5]).rows == (
        ("F", "*"),
        ("M", "*"),
        ("1", "*"),
        ("2", "*"),
        ("2.5", "*"),
    )


# ------------------------------------------------------------------- common checks
ALL = [
    lambda v: intervals(v, [10]),
    lambda v: masking(v),
    lambda v: dates(v),
    lambda v: ordered_groups(v, [2]),
    lambda v: suppression(v),
]


@pytest.mark.parametrize("build", ALL)
@pytest.mark.parametrize("values", [[], iter(()), "abc", None])
def test_empty_or_invalid_values(build: object, values: object) -> None:
    assert callable(build)
    with pytest.raises(ParameterError):
        build(values)


@pytest.mark.parametrize("build", ALL)
def test_none_values_rejected(build: object) -> None:
    assert callable(build)
    with pytest.raises(ParameterError) as info:
        build(["2024-01-01", None])
    assert info.value.parameter == "values"


@pytest.mark.parametrize(
    ("h", "leaves"),
    [
        (intervals([5, 1, 5, 3.0], [2, 4]), {"1", "3", "5"}),
        (masking(["ab", "cd", "ab"]), {"ab", "cd"}),
        (
            dates(["2024-01-01", "2023-05-06"], levels=["week", "decade"]),
            {"2024-01-01", "2023-05-06"},
        ),
        (ordered_groups(list("gfedcba"), [2, 3]), set("abcdefg")),
        (suppression(["x", "y"]), {"x", "y"}),
    ],
)
def test_round_trip_and_leaves(h: Hierarchy, leaves: set[str]) -> None:
    assert set(h.leaves) == leaves
    assert len(h.leaves) == len(leaves)
    assert h.labels(h.max_level) == ("*",)
    assert Hierarchy.from_text(h.to_csv()) == h


# ---------------------------------------------------------------------- dispatcher
def test_builders_registry() -> None:
    assert set(BUILDERS) == {"intervals", "masking", "dates", "ordered", "suppression"}


def test_build_hierarchy_dispatches() -> None:
    ages = [21, 28, 33]
    assert build_hierarchy({"type": "intervals", "widths": [5, 10]}, ages, "age") == intervals(
        ages, [5, 10]
    )
    assert build_hierarchy({"type": "intervals", "widths": [5]}, ages, "age").name == "age"
    assert build_hierarchy({"type": "masking", "levels": 3}, ["13053"]) == masking(
        ["13053"], levels=3
    )
    spec = {"type": "dates", "format": "%d/%m/%Y", "levels": ["month", "year"]}
    assert build_hierarchy(spec, ["05/03/2024"]).rows == (("05/03/2024", "2024-03", "2024", "*"),)
    spec2 = {"type": "ordered", "fanouts": [2, 2], "order": EDUCATION}
    assert build_hierarchy(spec2, EDUCATION) == ordered_groups(EDUCATION, [2, 2], order=EDUCATION)
    assert build_hierarchy({"type": "suppression"}, ["a"]) == suppression(["a"])


def test_build_hierarchy_errors() -> None:
    with pytest.raises(UnknownNameError) as unknown:
        build_hierarchy({"type": "bogus"}, [1])
    assert unknown.value.name == "bogus"
    assert "intervals" in unknown.value.available
    with pytest.raises(ConfigError, match="'type'"):
        build_hierarchy({"widths": [5]}, [1])
    with pytest.raises(ConfigError, match="'widths'"):
        build_hierarchy({"type": "intervals"}, [1], "age")
    with pytest.raises(ConfigError, match="'fanout'"):
        build_hierarchy({"type": "ordered", "fanout": [2]}, [1])
    with pytest.raises(ConfigError, match="'levels'"):
        build_hierarchy({"type": "suppression", "levels": 2}, [1])
    with pytest.raises(ConfigError):
        build_hierarchy(["intervals"], [1])  # type: ignore[arg-type]
    with pytest.raises(ParameterError):
        build_hierarchy({"type": "intervals", "widths": [5, 7]}, [1])


def test_fraction_bounds_fallback() -> None:
    h = intervals([0, 1], [Fraction(1, 3)])  # type: ignore[list-item]
    assert h.generalize("0", 1) == "[0-1/3["
    assert h.generalize("1", 1) == "[1-4/3["


def test_dates_of_timestamps_generalize_to_the_day_first() -> None:
    h = dates(
        ["2024-03-05 14:32", "2024-03-05 08:01"],
        format="%Y-%m-%d %H:%M",
        levels=["day", "month", "year"],
    )
    assert h.rows == (
        ("2024-03-05 14:32", "2024-03-05", "2024-03", "2024", "*"),
        ("2024-03-05 08:01", "2024-03-05", "2024-03", "2024", "*"),
    )
    assert dates(["2024-12-30"], levels=["day", "week"]).rows[0][1:3] == ("2024-12-30", "2025-W01")
    with pytest.raises(ParameterError):
        dates(["2024-03-05"], levels=["month", "day"])  # finest first


def test_a_decimal_comma_is_named_with_the_reading_option_for_it() -> None:
    """A ';' file's 49,4 reaches intervals() as text: the error says how to read it as a
    number, also when a table of builders names the column (it dropped such hints)."""
    with pytest.raises(ParameterError, match=r"'49,4'.*decimal comma.*decimal_comma = true"):
        intervals(["49,4", "72"], [10])
    with pytest.raises(ParameterError, match=r"for column 'kg'.*decimal_comma = true"):
        build_hierarchy({"type": "intervals", "widths": [10]}, ["49,4", "72"], name="kg")
    with pytest.raises(ParameterError) as plain:
        intervals(["forty"], [10])
    assert "decimal" not in str(plain.value)


def test_a_thousands_separator_is_not_called_a_decimal_comma() -> None:
    """'12,000' and '1,234,567' most likely separate thousands: the hint to read the file
    with decimal_comma = true would make 12,000 the number 12 without a word, so the error
    says the comma may separate thousands; a comma followed by other than three digits
    stays a decimal comma."""
    for text in ("12,000", "1,234,567", "-1,200"):
        with pytest.raises(ParameterError) as info:
            intervals([text, "72"], [10])
        message = str(info.value)
        assert "thousands" in message, message
        assert "It is written with a decimal comma" not in message
    with pytest.raises(ParameterError, match=r"for column 'euros'.*thousands"):
        build_hierarchy({"type": "intervals", "widths": [10]}, ["1,200", "72"], name="euros")
    with pytest.raises(ParameterError) as info:
        intervals(["49,4"], [10])
    assert "thousands" not in str(info.value)


@pytest.mark.parametrize(
    ("values", "fmt", "levels"),
    [
        (["10"], "%H", ["month", "year"]),  # no date at all: labelled 1900-01, 1900
        (["03/05"], "%m/%d", ["month", "year"]),  # no year: labelled 1900
        (["2024"], "%Y", ["month", "year"]),  # a year: labelled January
        (["2024-03"], "%Y-%m", ["day", "month"]),  # a month: labelled its first day
        (["2024-03"], "%Y-%m", ["week", "year"]),
    ],
)
def test_dates_refuse_a_format_without_the_parts_its_levels_label(
    values: list[str], fmt: str, levels: list[str]
) -> None:
    """strptime fills what a format lacks with 1900-01-01: a value without a month got the
    label of January, one without a year the year 1900, labels that do not cover it."""
    with pytest.raises(ParameterError) as info:
        dates(values, format=fmt, levels=levels)
    assert info.value.parameter == "format"


def test_dates_take_a_format_that_holds_what_its_levels_label() -> None:
    assert dates(["2024"], format="%Y", levels=["year", "decade"]).rows == (
        ("2024", "2024", "2020s", "*"),
    )
    assert dates(["2024-03"], format="%Y-%m").rows == (("2024-03", "2024-03", "2024", "*"),)
    assert dates(["2024-065"], format="%Y-%j", levels=["day", "month"]).rows == (
        ("2024-065", "2024-03-05", "2024-03", "*"),
    )
    assert dates(["2024-W10-2"], format="%G-W%V-%u", levels=["day"]).rows == (
        ("2024-W10-2", "2024-03-05", "*"),
    )
    assert dates(["5 Mar 24"], format="%d %b %y").rows == (("5 Mar 24", "2024-03", "2024", "*"),)


def test_masking_refuses_values_that_hold_the_masking_character() -> None:
    """With char='a', 'cd' was labelled 'ca' and 'ab' 'aa': labels that read as other
    codes, not as masks; a value already holding '*' ('A1*') was its own mask's label."""
    with pytest.raises(ParameterError) as info:
        masking(["ab", "cd"], char="a")
    assert info.value.parameter == "values"
    assert info.value.got == "ab"
    assert "'a'" in str(info.value)
    with pytest.raises(ParameterError, match=r"for column 'code'.*'A1\*'.*char"):
        build_hierarchy({"type": "masking"}, ["A12", "A1*"], name="code")
    assert masking(["A12", "A1*"], char="#").rows[1] == ("A1*", "A1#", "A##", "###", "*")


def test_masking_says_how_long_a_value_of_another_length_is() -> None:
    """'São' written with a combining tilde has 4 characters and prints like the 3 of
    'São': the error said 'values of equal length (3 characters, like 'São'). Got 'São'."""
    with pytest.raises(ParameterError, match="It has 4 characters"):
        masking(["S\u00e3o", "Sa\u0303o"])
