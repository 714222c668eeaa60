"""``anonymize(frame, algorithm=<estimator>, output=...)`` writes the release: the
``output`` keyword reaches an estimator that writes its own (it was silently dropped)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from anonkit import anonymize
from anonkit.core.hierarchy import Hierarchy
from anonkit.estimators import FullDomain, GreedyMerge, Mondrian
from anonkit.exceptions import ParameterError

H = Hierarchy([[str(v), f"g{v // 2}", "*"] for v in range(8)], name="x")
FRAME = pl.DataFrame({"x": [str(v % 8) for v in range(40)]})


@pytest.mark.parametrize("estimator", [Mondrian(), FullDomain("flash"), GreedyMerge()])
def test_output_keyword_is_written(estimator: object, tmp_path: Path) -> None:
    out = tmp_path / "release.csv"
    result = anonymize(
        FRAME, quasi_identifiers=["x"], hierarchies={"x": H}, k=5, algorithm=estimator, output=out
    )
    assert pl.read_csv(out, infer_schema=False).equals(result.release)


def test_two_outputs_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="give it in one place"):
        anonymize(
            FRAME,
            quasi_identifiers=["x"],
            hierarchies={"x": H},
            k=5,
            algorithm=Mondrian(output=tmp_path / "a.csv"),
            output=tmp_path / "b.csv",
        )
