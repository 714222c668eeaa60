"""Tests of anonkit.metrics.labels: reading single released labels."""

from __future__ import annotations

import math

import pytest

from anonkit.metrics.labels import Interval, is_star, parse_interval

INF = math.inf


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("[20-30[", Interval(20, 30, True, False)),
        ("[20-29]", Interval(20, 29, True, True)),
        ("[20, 30)", Interval(20, 30, True, False)),
        ("]20,30]", Interval(20, 30, False, True)),
        ("(1.5..2.5)", Interval(1.5, 2.5, False, False)),
        ("[-5--1]", Interval(-5, -1, True, True)),
        ("10-14", Interval(10, 14, True, True)),
        ("<30", Interval(-INF, 30, False, False)),
        ("<=30", Interval(-INF, 30, False, True)),
        (">40", Interval(40, INF, False, False)),
        (">=40", Interval(40, INF, True, False)),
        ("65+", Interval(65, INF, True, False)),
        ("130**", Interval(13000, 13100, True, False)),
        ("1485*", Interval(14850, 14860, True, False)),
        ("42", Interval(42, 42, True, True)),
        ("-3.5", Interval(-3.5, -3.5, True, True)),
        (" 7 ", Interval(7, 7, True, True)),
        ("young", None),
        ("[30-20]", None),
        ("[20-20[", None),
        ("Never-married", None),
        ("", None),
    ],
)
def test_parse_interval(label: str, expected: Interval | None) -> None:
    assert parse_interval(label) == expected


def test_exact_and_star() -> None:
    assert parse_interval("5").exact and not parse_interval("[5-6]").exact  # type: ignore[union-attr]
    assert is_star("*") and is_star("*****") and is_star(None) and is_star("")
    assert not is_star("1*") and not is_star("a")
