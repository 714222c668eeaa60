"""A quasi-identifier without a hierarchy that the release suppresses in every record is
said, not left to be discovered: a :class:`SuppressedColumnWarning` in Python (pointing
at the caller's line), ``details["suppressed_without_hierarchy"]`` in the result and the
summary, a note on stderr from the CLI."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import anonkit
from anonkit.cli.main import app
from anonkit.exceptions import SuppressedColumnWarning

FRAME = pl.DataFrame(
    {
        "age": ["31", "32", "33", "34", "51", "52"],
        "sex": ["f", "f", "f", "m", "m", "m"],
    }
)
AGE = {"type": "intervals", "widths": [10, 100]}


def test_a_column_suppressed_for_want_of_a_hierarchy_is_named() -> None:
    with pytest.warns(SuppressedColumnWarning) as caught:
        result = anonkit.anonymize(FRAME, quasi_identifiers=["age", "sex"], k=3)
    assert result.transformation == {"age": 1, "sex": 0}
    assert result.details["suppressed_without_hierarchy"] == ["age"]
    assert result.to_dict()["details"]["suppressed_without_hierarchy"] == ["age"]
    [warning] = caught
    assert warning.category is SuppressedColumnWarning
    assert warning.message.columns == ["age"]  # type: ignore[union-attr]
    assert "'age' had no hierarchy" in str(warning.message)
    assert warning.filename == __file__  # the caller's line, not anonkit's


def test_a_suppression_hierarchy_is_no_hierarchy_for_the_note() -> None:
    """init proposes {type = "suppression"} for columns it cannot generalize; suppressed
    in every record, they got no note (only columns given no hierarchy did)."""
    with pytest.warns(SuppressedColumnWarning, match="'age' had no hierarchy but"):
        result = anonkit.anonymize(
            FRAME,
            quasi_identifiers=["age", "sex"],
            hierarchies={"age": {"type": "suppression"}},
            k=3,
        )
    assert result.details["suppressed_without_hierarchy"] == ["age"]


@pytest.mark.parametrize("algorithm", ["mondrian", "greedy_merge"])
def test_local_algorithms_say_it_from_the_release(algorithm: str) -> None:
    with pytest.warns(SuppressedColumnWarning) as caught:
        result = anonkit.anonymize(
            FRAME, quasi_identifiers=["age", "sex"], k=3, algorithm=algorithm
        )
    assert set(result.release["age"].to_list()) == {"*"}
    assert result.details["suppressed_without_hierarchy"] == ["age"]
    assert caught[0].filename == __file__


def test_no_warning_when_every_quasi_identifier_is_starred_everywhere() -> None:
    """Then the release shows no quasi-identifier at all (every record suppressed, or the
    table too small for anything else), not one lost for want of a hierarchy."""
    frame = pl.DataFrame({"age": ["1", "2"], "sex": ["f", "m"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", SuppressedColumnWarning)
        result = anonkit.anonymize(
            frame,
            quasi_identifiers=["age", "sex"],
            hierarchies={"sex": {"type": "masking"}},
            k=2,
            algorithm="mondrian",
        )
    assert "suppressed_without_hierarchy" not in result.details


def test_no_warning_with_a_hierarchy_or_a_column_kept() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", SuppressedColumnWarning)
        given = anonkit.anonymize(
            FRAME, quasi_identifiers=["age", "sex"], hierarchies={"age": AGE}, k=3
        )
        kept = anonkit.anonymize(FRAME, quasi_identifiers=["sex"], k=3, others="drop")
    assert "suppressed_without_hierarchy" not in given.details
    assert kept.transformation == {"sex": 0}
    assert "suppressed_without_hierarchy" not in kept.details


def test_the_cli_says_it_as_a_note(tmp_path: Path) -> None:
    FRAME.write_csv(tmp_path / "data.csv")
    (tmp_path / "run.toml").write_text(
        'input = "data.csv"\noutput = "release.csv"\n'
        '[attributes]\nquasi_identifiers = ["age", "sex"]\n[privacy]\nk = 3\n',
        encoding="utf-8",
    )
    summary = tmp_path / "summary.json"
    res = CliRunner().invoke(
        app, ["anonymize", str(tmp_path / "run.toml"), "--summary", str(summary)]
    )
    assert res.exit_code == 0, res.output
    assert "note: age had no hierarchy but '*' in [hierarchies]" in res.stderr
    # the example builders fit numbers and text alike (intervals alone failed on text)
    assert '"masking"' in res.stderr
    assert "SuppressedColumnWarning" not in res.stderr
    data = json.loads(summary.read_text(encoding="utf-8"))
    assert data["details"]["suppressed_without_hierarchy"] == ["age"]


def test_the_cli_says_it_of_a_suppression_table_as_init_proposes(tmp_path: Path) -> None:
    """init writes { type = "suppression" } for columns it cannot generalize; on the raw
    Adult file four of them came out '*' in every record without a word."""
    FRAME.write_csv(tmp_path / "data.csv")
    (tmp_path / "run.toml").write_text(
        'input = "data.csv"\noutput = "release.csv"\n'
        '[attributes]\nquasi_identifiers = ["age", "sex"]\n'
        '[hierarchies]\nage = { type = "suppression" }\n[privacy]\nk = 3\n',
        encoding="utf-8",
    )
    res = CliRunner().invoke(app, ["anonymize", str(tmp_path / "run.toml")])
    assert res.exit_code == 0, res.output
    assert "note: age had no hierarchy but '*'" in " ".join(res.stderr.split())


def test_streamed_mondrian_says_it_from_its_tally(tmp_path: Path) -> None:
    """Out of core the release is never in memory: the note comes from the re-check's
    tally of released labels."""
    path = tmp_path / "data.parquet"
    FRAME.write_parquet(path)
    with pytest.warns(SuppressedColumnWarning) as caught:
        result = anonkit.anonymize(
            path,
            quasi_identifiers=["age", "sex"],
            k=3,
            algorithm=anonkit.estimators.Mondrian(engine="streaming"),
        )
    assert set(result.release.collect()["age"].to_list()) == {"*"}
    assert result.details["suppressed_without_hierarchy"] == ["age"]
    assert caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error", SuppressedColumnWarning)
        given = anonkit.anonymize(
            path,
            quasi_identifiers=["age", "sex"],
            hierarchies={"age": AGE},
            k=3,
            algorithm=anonkit.estimators.Mondrian(engine="streaming"),
        )
    assert "suppressed_without_hierarchy" not in given.details
