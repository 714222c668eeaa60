"""Numbers read as text the same way in the data, the builders and hierarchy tables; a
value that is not a number is never read as one."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import polars as pl
import pytest

from anonkit import DataError, MissingValuesError, ParameterError, anonymize
from anonkit.core.builders.intervals import intervals
from anonkit.core.values import as_text


def test_whole_floats_and_decimals_read_without_decimals() -> None:
    """1e20 overflowed Int64 and became null ("0 value(s) not in the hierarchy: ");
    Decimal 78.00 read as '78.00' where the builders label '78'."""
    floats = pl.Series("x", [1e20, 2.5, -3.0, float("nan")])
    assert as_text(floats).to_list() == ["100000000000000000000", "2.5", "-3", "NaN"]
    decimals = pl.Series("x", [Decimal("78.00"), Decimal("78.50")])
    assert as_text(decimals).to_list() == ["78", "78.50"]
    values = [Decimal(v) for v in ("78.00", "79.00", "30.00", "31.00")]
    spec = {"x": {"type": "intervals", "widths": [10]}}
    out = anonymize(pl.DataFrame({"x": values}), quasi_identifiers=["x"], hierarchies=spec, k=2)
    assert out.release["x"].to_list() == ["[70-80[", "[70-80[", "[30-40[", "[30-40["]


def test_a_hierarchy_table_with_float_leaves_matches_whole_numbers() -> None:
    """pandas reads a hierarchy column with a gap as floats: leaf 2.0 was '2.0'."""
    table = pd.DataFrame(
        {"v": [1.0, 2.0, 3.0, 4.0], "l1": ["lo", "lo", "hi", "hi"], "r": ["*"] * 4}
    )
    for data in ([1, 2, 3, 4], [1.0, 2.0, 3.0, 4.0]):
        frame = pd.DataFrame({"x": data})
        out = anonymize(frame, quasi_identifiers=["x"], hierarchies={"x": table}, k=2).release
        assert out["x"].tolist() == ["lo", "lo", "hi", "hi"]


def test_infinite_numbers_and_an_empty_column_are_named() -> None:
    """Both were reported as a bad 'values' parameter of suppression()."""
    frame = pd.DataFrame({"income": [1.0, float("inf"), 2.0, 2.0], "sex": list("mmff")})
    with pytest.raises(DataError, match="Column 'income' holds 1 infinite"):
        anonymize(frame, quasi_identifiers=["income", "sex"], k=2)
    empty = pl.DataFrame({"zip": pl.Series([None] * 4, dtype=pl.String), "sex": list("mmff")})
    with pytest.raises(MissingValuesError, match="'zip' has 4 missing"):
        anonymize(empty, quasi_identifiers=["zip", "sex"], k=2)


@pytest.mark.parametrize("text", ["78/2", "3_9", "\uff13\uff19", "1e", "inf"])
def test_the_builders_read_only_numbers_written_in_ascii_digits(text: str) -> None:
    """Fraction() read '78/2' as 39, '3_9' as 39 and full-width digits as 39: dirty cells
    were released as [30-40[ without a word."""
    with pytest.raises(ParameterError, match="numbers or numeric strings"):
        intervals(["30", text], [10])


@pytest.mark.parametrize("spec", [None, {"type": "intervals", "widths": [10]}])
@pytest.mark.parametrize(
    "values",
    [
        pl.Series("a", [1e-9, 1e-9, 2.5, 2.5]),
        pl.Series("a", [2.5e-5, 2.5e-5, -1e-5, -1e-5]),
        pl.Series("a", [1.5e300, 1.5e300, 2.5, 2.5]),
        pl.Series("a", [0.1, 0.1, 3.3, 3.3], dtype=pl.Float32),
    ],
    ids=["small-exponent", "from-1e-5-to-1e-4", "beyond-int128", "float32"],
)
def test_the_datas_floats_read_as_the_hierarchy_built_from_them(
    values: pl.Series, spec: dict[str, object] | None
) -> None:
    """Polars writes 1e-9 where Python writes 1e-09 (and 0.000025 for 2.5e-05), a whole
    1.5e300 was labelled with all its digits, and a Float32 0.1 was labelled
    0.10000000149011612: the hierarchy anonkit built from the column did not hold the
    column's values (ValuesNotInHierarchyError)."""
    frame = pl.DataFrame({"a": values, "s": ["p", "q"] * 2})
    hierarchies = {"a": spec} if spec is not None else None
    out = anonymize(frame, quasi_identifiers=["a"], hierarchies=hierarchies, k=2, sensitive=["s"])
    assert out.release.height == 4 and out.verified
    assert as_text(values).to_list()[0] in {"1e-09", "2.5e-05", "1.5e+300", "0.1"}
