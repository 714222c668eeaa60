"""Numbers read as text the same way in the data, the builders and hierarchy tables; a
value that is not a number is never read as one."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pytest

from anonkit import DataError, MissingValuesError, ParameterError, anonymize
from anonkit.core.builders.intervals import intervals
from anonkit.core.values import as_text


def test_whole_floats_and_decimals_read_without_decimals() -> None:
    """1e20 overflowed Int64 and became null ("0 value(s) not in the hierarchy: ");
    Decimal 78.00 read as '78.00' where the builders label '78' (and 78.50 reads '78.5',
    as the number 78.50 written in a text file reads)."""
    floats = pl.Series("x", [1e20, 2.5, -3.0, float("nan")])
    assert as_text(floats).to_list() == ["100000000000000000000", "2.5", "-3", "NaN"]
    decimals = pl.Series("x", [Decimal("78.00"), Decimal("78.50")])
    assert as_text(decimals).to_list() == ["78", "78.5"]
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


def _leaves_cover_the_data(values: pl.Series, spec: dict[str, object] | None) -> None:
    """The hierarchy built from ``values`` holds every value as the data's text reads it
    (``as_text``, the expression every engine codes the records with)."""
    from anonkit.core.resolve import resolve_hierarchy

    leaves = set(resolve_hierarchy("x", spec, values).leaves)
    outside = [t for t in as_text(values).unique().to_list() if t not in leaves]
    assert outside == []


_F32_EXTREMES = [797_676_544.0, 420_506_848.0, -934_055_168.0, 16_777_217.0, 3.4e38, -1e30,
                 1e-6, -2.5e-7, 1.5e-5, 1e-4, 0.1, 0.3, 100_000.5, 1.17e-38, 1e-45]  # fmt: skip
_F64_EXTREMES = [1.5e300, -1.5e300, 1e308, 1.7e38, 3e38, 2.0**127, 2.0**53 + 2, 1e16,
                 1e15 + 0.5, 1e-320, 5e-324, 1e-6, -2.5e-5, 1.2345e-5, 0.3, 1 / 3]  # fmt: skip


@pytest.mark.parametrize(
    "spec", [None, {"type": "intervals", "widths": [10]}, {"type": "ordered", "fanouts": [2]}]
)
@pytest.mark.parametrize(
    "values",
    [pl.Series("x", _F32_EXTREMES, dtype=pl.Float32), pl.Series("x", _F64_EXTREMES)],
    ids=["float32", "float64"],
)
def test_a_hierarchy_built_from_float_extremes_covers_them(
    values: pl.Series, spec: dict[str, object] | None
) -> None:
    """A Float32 797676544.0 read as '797676544' in the data and was labelled
    '797676540' by the builder (the float64 of its text), 1e-6 as '0.000001' and
    '1e-06': ValuesNotInHierarchyError."""
    _leaves_cover_the_data(values, spec)


def test_a_hierarchy_built_from_random_float32_values_covers_them() -> None:
    """4,005 of 20,000 random float32 values were labelled apart from the data."""
    import random

    rng = random.Random(0)
    values = [rng.uniform(-1, 1) * 10 ** rng.randint(-12, 12) for _ in range(20_000)]
    series = pl.Series("x", values, dtype=pl.Float32)
    _leaves_cover_the_data(series, {"type": "intervals", "widths": [1000]})
    _leaves_cover_the_data(series, None)


def test_float32_reads_as_the_float64_of_the_number_it_prints_as() -> None:
    """Whole numbers with every digit (as Spark's whole keys read them), others as a
    float64 column holding the number polars prints reads it."""
    f32 = pl.Series("x", [797_676_544.0, 1e-6, 0.1, 1.5e-5, -2.5e-7, 123456.79], dtype=pl.Float32)
    assert as_text(f32).to_list() == ["797676544", "1e-06", "0.1", "1.5e-05", "-2.5e-07",
                                      "123456.79"]  # fmt: skip
    f64 = pl.Series("x", [1e-06, 0.1, 1.5e-05, -2.5e-07, 123456.79])
    assert as_text(f32).to_list()[1:] == as_text(f64).to_list()


def test_a_float32_column_with_big_whole_numbers_is_anonymized(tmp_path: Path) -> None:
    """The repro: intervals over float32 amounts stopped with '797676544' (did you mean
    '797676540'?), in memory and from a Parquet file streamed."""
    amounts = pl.Series("amount", [797_676_544.0, 420_506_848.0] * 3, dtype=pl.Float32)
    frame = pl.DataFrame({"amount": amounts, "y": ["a"] * 6})
    spec = {"amount": {"type": "intervals", "widths": [1_000_000_000]}}
    kwargs: dict[str, Any] = {"quasi_identifiers": ["amount"], "hierarchies": spec, "k": 4,
                              "insensitive": ["y"], "algorithm": "flash"}  # fmt: skip
    out = anonymize(frame, **kwargs)
    assert out.release["amount"].to_list() == ["[0-1000000000["] * 6
    path = tmp_path / "f32.parquet"
    frame.write_parquet(path)
    streamed = anonymize(str(path), engine="streaming", output=tmp_path / "o.csv", **kwargs)
    assert streamed.verified
    assert pl.read_csv(tmp_path / "o.csv")["amount"].to_list() == ["[0-1000000000["] * 6


@pytest.mark.parametrize("dtype", [pl.Float32, pl.Float64])
def test_nan_and_infinite_floats_are_refused_before_a_builder(dtype: pl.DataType) -> None:
    frame = pl.DataFrame({"x": pl.Series([1.5, float("nan"), 2.5, 2.5], dtype=dtype)})
    with pytest.raises(MissingValuesError, match="'x' has 1 missing"):
        anonymize(
            frame,
            quasi_identifiers=["x"],
            hierarchies={"x": {"type": "intervals", "widths": [10]}},
            k=2,
        )
    frame = pl.DataFrame({"x": pl.Series([1.5, float("-inf"), 2.5, 2.5], dtype=dtype)})
    with pytest.raises(DataError, match="Column 'x' holds 1 infinite"):
        anonymize(frame, quasi_identifiers=["x"], k=2)


def test_decimals_read_as_the_same_numbers_written_in_a_text_file() -> None:
    """Decimal 30.00 read as '30' but 1.50 as '1.50', where the same numbers read from
    a CSV file (as floats) read '1.5'; a tiny Decimal was labelled '1.0E-7' by the
    builder and read '0.00000010' in the data."""
    values = ["30.00", "1.50", "-0.10", "0.00000010", "0.00012000", "-12345678.25"]
    decimals = pl.Series("x", [Decimal(v) for v in values], dtype=pl.Decimal(20, 8))
    floats = pl.Series("x", [float(v) for v in values])
    assert as_text(decimals).to_list() == as_text(floats).to_list()
    assert as_text(decimals).to_list() == ["30", "1.5", "-0.1", "1e-07", "0.00012",
                                           "-12345678.25"]  # fmt: skip
    # more digits than a float holds: every digit, without trailing zeros
    exact = pl.Series("x", [Decimal("0.12345678901234567891"), Decimal("1.10")],
                      dtype=pl.Decimal(38, 20))  # fmt: skip
    assert as_text(exact).to_list() == ["0.12345678901234567891", "1.1"]
    for series in (decimals, exact):
        for spec in (None, {"type": "intervals", "widths": [10]}):
            _leaves_cover_the_data(series, spec)


def test_builders_called_directly_label_decimals_as_the_data_reads_them() -> None:
    """``intervals([Decimal("1.50")], ...)`` labelled the leaf '1.50' where the data
    reads '1.5', so the hierarchy missed the value it was built from."""
    texts = ["1.50", "-0.10", "0.00000010", "0.12345678901234567891", "30.00", "2.5E+3"]
    values = [Decimal(t) for t in texts]
    built = intervals(values, widths=[10])
    read = as_text(pl.Series("x", values, dtype=pl.Decimal(38, 20))).to_list()
    assert sorted(built.leaves) == sorted(read)
