"""Spark reads Decimal columns as the polars engines do (:func:`anonkit.core.values.text_expr`).

The bug: Spark printed a Decimal as its cast to text (``2.00``, ``1.50``) where the polars
engines print the number (``2``, ``1.5``): a hierarchy that works in memory and streamed
was refused on Spark (``'2.00'`` not in the hierarchy), and a built hierarchy released
other labels on Spark. Every table here is written by polars to Parquet and read by both.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from spark_support import SKIP_REASON

from anonkit.core.hierarchy import Hierarchy
from anonkit.core.transform import ReleasePlan
from anonkit.core.values import as_text
from anonkit.engines.base import SensitiveSpec
from anonkit.engines.polars_engine import PolarsEngine
from anonkit.exceptions import ValuesNotInHierarchyError

if SKIP_REASON is not None:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from anonkit.engines.spark_engine import SparkEngine  # noqa: E402

#: Values whose text is easy to get wrong: whole, trailing zeros, negative, zero and
#: minus zero, tiny (scientific in Python's repr), and more digits than a float holds.
VALUES = {
    0: ["2", "-3", "0", "123456789012345678", "-7", "2"],
    2: ["1.50", "2.00", "2.25", "-0.10", "0.00", "-0.00", "-12.00", "99999999.99"],
    8: ["0.00000010", "0.00012000", "-12345678.25", "30.00000000", "-0.00000001", "1e-8"],
    20: ["0.12345678901234567891", "1.10", "-5", "0.00000000000000000001", "-1.5e-7"],
}


def _column(scale: int) -> pl.Series:
    precision = 38 if scale in (0, 20) else (10 if scale == 2 else 20)
    values = [Decimal(v) for v in VALUES[scale]]
    return pl.Series("x", values, dtype=pl.Decimal(precision, scale))


def _parquet(tmp_path: Path, frame: pl.DataFrame, name: str = "d.parquet") -> str:
    path = tmp_path / name
    frame.write_parquet(path)
    return str(path)


def _flat(values: list[str], name: str) -> Hierarchy:
    return Hierarchy([[v, "*"] for v in values], name=name)


@pytest.mark.parametrize("scale", sorted(VALUES))
def test_decimal_text_equals_polars(spark: Any, tmp_path: Path, scale: int) -> None:
    """The distinct values, their count as quasi-identifier and as sensitive attribute:
    the same text and codes as the polars engine, for every scale."""
    column = _column(scale)
    frame = pl.DataFrame({"x": column, "s": column})
    path = _parquet(tmp_path, frame)
    polars, engine = PolarsEngine(), SparkEngine(spark)
    text = polars.distinct(path, "x")
    assert text == list(dict.fromkeys(as_text(column).to_list()))
    assert engine.distinct(path, "x") == text
    hierarchy = _flat(text, "x")
    expected = polars.count_detail(path, ["x"], [hierarchy], [SensitiveSpec("s")])
    got = engine.count_detail(path, ["x"], [hierarchy], [SensitiveSpec("s")])
    assert got.sensitive[0].labels == expected.sensitive[0].labels
    assert sorted(zip(*got.snapshot.codes, got.snapshot.counts, strict=True)) == sorted(
        zip(*expected.snapshot.codes, expected.snapshot.counts, strict=True)
    )
    assert got.detail is not None and expected.detail is not None


@pytest.mark.parametrize("scale", [2, 8, 20])
def test_decimals_spelled_otherwise_are_named_alike(spark: Any, tmp_path: Path, scale: int) -> None:
    """A leaf spelled as Spark casts a Decimal (``2.00``) is not that number's text: both
    engines name the same values outside the hierarchy, in the same words."""
    column = _column(scale)
    path = _parquet(tmp_path, pl.DataFrame({"x": column}))
    spelled = pl.DataFrame({"x": column}).select(pl.col("x").cast(pl.String))["x"].to_list()
    hierarchy = _flat(list(dict.fromkeys([*spelled[:3], *as_text(column).to_list()[3:]])), "x")
    with pytest.raises(Exception) as expected:
        PolarsEngine().count(path, ["x"], [hierarchy])
    with pytest.raises(Exception) as got:
        SparkEngine(spark).count(path, ["x"], [hierarchy])
    assert type(got.value) is type(expected.value)
    assert str(got.value) == str(expected.value)


def test_decimal_leaves_are_joined_and_released_as_polars(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hierarchies larger than the map literal are joined on a table of keys; the release
    labels every decimal as the polars engine does, Decimal columns released as they
    stand keep their values."""
    from anonkit.engines import spark_engine

    column = _column(8)
    frame = pl.DataFrame({"x": column, "y": _column(8).reverse()})
    path = _parquet(tmp_path, frame)
    text = PolarsEngine().distinct(path, "x")
    hierarchy = Hierarchy([[v, f"g{i // 2}", "*"] for i, v in enumerate(text)], name="x")
    table = PolarsEngine().count(path, ["x"], [hierarchy])
    none = np.zeros((1, 0), dtype=np.int64)
    for mapped in (spark_engine.MAP_LEAVES, 0):
        monkeypatch.setattr(spark_engine, "MAP_LEAVES", mapped)
        counted = SparkEngine(spark).count(path, ["x"], [hierarchy]).snapshot
        assert sorted(zip(*counted.codes, counted.counts, strict=True)) == sorted(
            zip(*table.snapshot.codes, table.snapshot.counts, strict=True)
        )
        for level in (0, 1):
            plan = ReleasePlan(("x",), (hierarchy,), (level,), none)
            expected = PolarsEngine().apply(frame, plan)
            got = SparkEngine(spark).apply(path, plan)
            rows = [tuple(r) for r in got.collect()]
            released = pl.DataFrame(rows, schema=expected.schema, orient="row")
            assert sorted(released.rows(), key=repr) == sorted(expected.rows(), key=repr)


def test_the_repro_decimal_hierarchy_runs_on_spark_as_in_memory(spark: Any, tmp_path: Path) -> None:
    """bug_decimal/repro_spark_decimal.py: Decimal(10,2) amounts with a hierarchy in the
    polars engines' text ran in memory and streamed, and stopped on Spark with '2.00';
    a built hierarchy released '2.00' on Spark where the polars engine released its text."""
    from anonkit import anonymize

    amounts = [Decimal("1.50"), Decimal("2.00"), Decimal("2.25")] * 4
    frame = pl.DataFrame({"amt": pl.Series(amounts, dtype=pl.Decimal(10, 2)), "s": ["a", "b"] * 6})
    path = _parquet(tmp_path, frame)
    text = as_text(frame["amt"]).unique(maintain_order=True).to_list()
    given = {"amt": [[t, "*"] for t in text], "s": [["a", "*"], ["b", "*"]]}
    built = {"amt": {"type": "intervals", "widths": [1]}, "s": given["s"]}
    for hierarchies in (given, built):
        keywords: dict[str, Any] = {"quasi_identifiers": ["amt", "s"], "k": 2,
                                    "hierarchies": hierarchies, "algorithm": "flash"}  # fmt: skip
        expected = anonymize(path, **keywords)
        streamed = anonymize(path, engine="streaming", **keywords)
        got = anonymize(path, engine="spark", **keywords)
        assert dict(got.transformation) == dict(expected.transformation)
        assert dict(streamed.transformation) == dict(expected.transformation)
        assert got.verified
        released = sorted({r["amt"] for r in got.release.collect()})
        assert released == sorted(set(expected.release["amt"].to_list()))
    # Spark's spelling is a leaf of neither engine
    spelled = {**given, "amt": [["1.50", "*"], ["2.00", "*"], ["2.25", "*"]]}
    errors = []
    for engine in ("polars", "spark"):
        with pytest.raises(ValuesNotInHierarchyError) as error:
            anonymize(path, engine=engine, quasi_identifiers=["amt", "s"], k=2,
                      hierarchies=spelled)  # fmt: skip
        errors.append(str(error.value))
    assert errors[0] == errors[1] and "'1.5' (did you mean '1.50'?)" in errors[1]


def test_a_decimal_sensitive_attribute_is_verified_on_spark(spark: Any, tmp_path: Path) -> None:
    """The verification tallies the release's sensitive Decimal values, which Spark
    brought to the driver as its text ('2.00'): they must read as the count read them."""
    from anonkit import anonymize
    from anonkit.models import DistinctLDiversity, KAnonymity

    fees = [Decimal(v) for v in ("1.50", "2.00", "2.25", "-0.10", "0.00")] * 4
    frame = pl.DataFrame(
        {
            "g": ["a", "b"] * 10,
            "fee": pl.Series(fees, dtype=pl.Decimal(10, 2)),
            "paid": pl.Series(fees[::-1], dtype=pl.Decimal(10, 2)),
        }  # fmt: skip
    )
    path = _parquet(tmp_path, frame)
    keywords: dict[str, Any] = {
        "quasi_identifiers": ["g"], "hierarchies": {"g": [["a", "*"], ["b", "*"]]},
        "sensitive": ["fee"], "insensitive": ["paid"], "algorithm": "flash",
        "privacy": [KAnonymity(2), DistinctLDiversity("fee", 2)],
    }  # fmt: skip
    expected = anonymize(path, **keywords)
    got = anonymize(path, engine="spark", output=tmp_path / "out.parquet", **keywords)
    assert got.verified and dict(got.transformation) == dict(expected.transformation)
    written = pl.read_parquet(tmp_path / "out.parquet" / "*.parquet")
    assert written.schema["paid"] == pl.Decimal(10, 2)
    assert sorted(written["paid"].to_list()) == sorted(fees)
