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


@pytest.mark.parametrize("algorithm", ["flash", "mondrian"])
@pytest.mark.parametrize("engine", ["polars", "streaming", "numpy"])
@pytest.mark.parametrize(
    ("name", "separator", "written"),
    [("r.csv", ";", ";"), ("r.csv", None, ","), ("r.tsv", None, "\t"), ("r.tsv", "|", "|")],
)
def test_every_engine_writes_the_separator_asked_for(
    adult: tuple[pl.DataFrame, dict[str, Path]],
    tmp_path: Path,
    engine: str,
    algorithm: str,
    name: str,
    separator: str | None,
    written: str,
) -> None:
    """``output_separator`` is the CSV release's field separator whichever engine writes
    it (',' for .csv and tab for .tsv by default); streamed, the release was always
    written with ',' and read back so for the verification."""
    if engine == "numpy" and algorithm == "mondrian":
        pytest.skip("Mondrian runs in memory, streamed or on Spark")
    frame, paths = adult
    qi = ["age", "sex", "race"]
    data = tmp_path / "data.parquet"
    frame.select(qi).head(1000).write_parquet(data)
    out = tmp_path / name
    result = anonymize(
        data,
        quasi_identifiers=qi,
        hierarchies={c: paths[c] for c in qi},
        k=5,
        suppression_limit=0.05,
        algorithm=algorithm,
        engine=engine,
        output=out,
        output_separator=separator,
    )
    assert result.verified
    header = out.read_text(encoding="utf-8").split("\n", 1)[0]
    assert header == written.join(qi)
    back = pl.read_csv(out, separator=written, infer_schema=False)
    memory = anonymize(
        frame.select(qi).head(1000),
        quasi_identifiers=qi,
        hierarchies={c: paths[c] for c in qi},
        k=5,
        suppression_limit=0.05,
        algorithm=algorithm,
    ).release
    assert sorted(back.rows()) == sorted(memory.rows())


def test_a_separator_that_is_not_one_character_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="output_separator"):
        anonymize(
            FRAME,
            quasi_identifiers=["x"],
            hierarchies={"x": H},
            k=5,
            output=tmp_path / "r.csv",
            output_separator=";;",
        )
