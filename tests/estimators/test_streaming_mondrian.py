"""Mondrian streamed from disk (``engine="streaming"``): the in-memory release, row for
row, with only the codes in memory; and nothing written when the input changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

import anonkit
from anonkit.engines.streaming_engine import StreamingEngine
from anonkit.estimators import Mondrian
from anonkit.exceptions import InputChangedError, MissingValuesError, ParameterError
from anonkit.models import DistinctLDiversity, KMap

QI = ["age", "sex", "race", "marital-status", "education"]
SENSITIVE = "occupation"


@pytest.fixture(scope="module")
def data(adult: tuple[pl.DataFrame, dict[str, Path]]) -> pl.DataFrame:
    return adult[0].select([*QI, SENSITIVE, "salary-class"]).head(5000)


@pytest.fixture(scope="module")
def hierarchies(adult: tuple[pl.DataFrame, dict[str, Path]]) -> dict[str, Path]:
    return {c: adult[1][c] for c in QI}


@pytest.fixture
def parquet(data: pl.DataFrame, tmp_path: Path) -> Path:
    path = tmp_path / "data" / "adult.parquet"
    path.parent.mkdir()
    data.write_parquet(path)
    return path


def _keywords(hierarchies: Any, **extra: Any) -> dict[str, Any]:
    return {
        "quasi_identifiers": QI,
        "hierarchies": hierarchies,
        "sensitive": [SENSITIVE],
        "insensitive": ["salary-class"],
        **extra,
    }


@pytest.mark.parametrize(
    ("mode", "privacy"),
    [("strict", {"k": 5}), ("relaxed", {"k": 4}), ("strict", {"k": 3, "l_div": 3})],
    ids=["strict", "relaxed", "l-diversity"],
)
def test_streamed_mondrian_equals_the_in_memory_release(
    mode: str, privacy: dict[str, Any], data: pl.DataFrame, parquet: Path, hierarchies: Any
) -> None:
    models = [DistinctLDiversity(SENSITIVE, privacy["l_div"])] if "l_div" in privacy else []
    keywords = _keywords(hierarchies, k=privacy["k"], privacy=models)
    memory = anonkit.anonymize(data, algorithm=Mondrian(mode=mode), **keywords)
    streamed = anonkit.anonymize(
        parquet, algorithm=Mondrian(mode=mode, engine="streaming"), **keywords
    )
    assert isinstance(streamed.release, pl.LazyFrame)
    assert streamed.release.collect().equals(memory.release)
    assert streamed.verified
    assert streamed.classes.n_classes == memory.classes.n_classes
    assert streamed.classes.min_size == memory.classes.min_size
    assert streamed.details["engine"] == {"name": "streaming", "reason": "the engine argument"}
    assert streamed.details["mondrian"]["partitions"] == memory.details["mondrian"]["partitions"]


def test_output_is_written_once_verified_and_auto_streams_lazy_queries(
    data: pl.DataFrame, parquet: Path, hierarchies: Any, tmp_path: Path
) -> None:
    out = tmp_path / "out" / "release.parquet"
    memory = anonkit.anonymize(data, algorithm="mondrian", **_keywords(hierarchies, k=5))
    streamed = anonkit.anonymize(
        pl.scan_parquet(parquet),
        algorithm="mondrian",
        engine="auto",
        output=out,
        **_keywords(hierarchies, k=5),
    )
    reason = "the input is a lazy query"
    assert streamed.details["engine"] == {"name": "streaming", "reason": reason}
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name]
    assert pl.read_parquet(out).equals(memory.release)
    assert streamed.release.collect().equals(memory.release)


def _change(path: Path, how: str) -> None:
    frame = pl.read_parquet(path)
    row = pl.int_range(pl.len()) == 11
    if how == "value":  # another leaf of the hierarchy
        other = pl.when(pl.col("sex") == "Male").then(pl.lit("Female")).otherwise(pl.lit("Male"))
        frame = frame.with_columns(pl.when(row).then(other).otherwise("sex").alias("sex"))
    elif how == "unknown":
        frame = frame.with_columns(pl.when(row).then(pl.lit("200")).otherwise("age").alias("age"))
    elif how == "added":
        frame = pl.concat([frame, frame.head(3)])
    else:
        frame = frame.head(frame.height - 2)
    frame.write_parquet(path)


@pytest.mark.parametrize(
    ("how", "column"),
    [("value", "sex"), ("unknown", "age"), ("added", None), ("removed", None)],
)
def test_an_input_changed_after_it_was_read_leaves_no_output(
    how: str,
    column: str | None,
    parquet: Path,
    hierarchies: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read = StreamingEngine.record_codes

    def read_then_change(self: StreamingEngine, source: Any, *args: Any) -> Any:
        codes = read(self, source, *args)
        _change(parquet, how)
        return codes

    monkeypatch.setattr(StreamingEngine, "record_codes", read_then_change)
    out = tmp_path / "out" / "release.parquet"
    with pytest.raises(InputChangedError) as caught:
        anonkit.anonymize(
            parquet,
            algorithm=Mondrian(engine="streaming"),
            output=out,
            **_keywords(hierarchies, k=5),
        )
    assert caught.value.column == column
    assert caught.value.source == str(parquet)  # the message names the file
    assert not out.parent.exists() or list(out.parent.iterdir()) == []


def test_bad_values_get_the_in_memory_errors(
    data: pl.DataFrame, hierarchies: Any, tmp_path: Path
) -> None:
    bad = data.with_columns(
        pl.when(pl.int_range(pl.len()) == 3).then(None).otherwise("race").alias("race")
    )
    path = tmp_path / "bad.parquet"
    bad.write_parquet(path)
    messages = []
    for source, engine in ((bad, "polars"), (path, "streaming")):
        with pytest.raises(MissingValuesError) as caught:
            anonkit.anonymize(
                source, algorithm=Mondrian(engine=engine), **_keywords(hierarchies, k=5)
            )
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_what_the_streamed_fit_refuses(data: pl.DataFrame, parquet: Path, hierarchies: Any) -> None:
    with pytest.raises(ParameterError, match="numeric"):
        anonkit.anonymize(
            parquet,
            algorithm=Mondrian(engine="streaming"),
            numeric=["age"],
            **_keywords({c: h for c, h in hierarchies.items() if c != "age"}, k=5),
        )
    with pytest.raises(ParameterError, match="population"):
        anonkit.anonymize(
            parquet,
            algorithm=Mondrian(engine="streaming"),
            privacy=[KMap(3)],
            population=data,
            **_keywords(hierarchies),
        )


def test_transform_after_a_streamed_fit_says_why_it_cannot() -> None:
    """It said the estimator was not fitted, right after a successful fit."""
    from anonkit.estimators import Mondrian, Privacy
    from anonkit.exceptions import NotFittedError
    from anonkit.models import KAnonymity

    frame = pl.DataFrame({"age": [str(a) for a in range(20, 40)], "sex": ["m", "f"] * 10})
    spec = {"age": {"type": "intervals", "widths": [5, 10]}}
    m = Mondrian(privacy=Privacy(KAnonymity(2)), engine="streaming")
    m.fit(frame.lazy(), quasi_identifiers=["age", "sex"], hierarchies=spec)
    with pytest.raises(NotFittedError, match="fitted with engine='streaming'"):
        m.transform(frame)


def test_a_streamed_fit_keeps_its_hierarchies_as_the_in_memory_one(
    data: pl.DataFrame, parquet: Path, hierarchies: Any
) -> None:
    """The streamed fit set no ``hierarchies_`` (the in-memory one and FullDomain's
    out-of-core fit do)."""
    keywords = {"quasi_identifiers": QI, "hierarchies": hierarchies, "others": "drop"}
    privacy = anonkit.Privacy(anonkit.models.KAnonymity(5))
    memory = Mondrian(privacy=privacy).fit(data, **keywords)
    streamed = Mondrian(privacy=privacy, engine="streaming").fit(parquet, **keywords)
    assert list(streamed.hierarchies_) == QI
    for c in QI:
        assert streamed.hierarchies_[c] == memory.hierarchies_[c]


@pytest.mark.parametrize(
    ("mode", "rows", "output"),
    [("strict", 200, None), ("relaxed", 5000, None), ("strict", 5000, "release.csv")],
    ids=["200-rows", "relaxed", "written"],
)
def test_streamed_mondrian_measures_the_in_memory_metrics(
    mode: str,
    rows: int,
    output: str | None,
    data: pl.DataFrame,
    hierarchies: Any,
    tmp_path: Path,
) -> None:
    """result.metrics was {} even for a 200-row table (the in-memory and Spark fits
    report loss, NCP, ...): the streamed fit measures what the release's tally and the
    codes it read determine, the in-memory figures (the KL divergence needs the paired
    records: anonkit evaluate measures it)."""
    path = tmp_path / "adult.parquet"
    data.head(rows).write_parquet(path)
    keywords = _keywords(hierarchies, k=4, privacy=[DistinctLDiversity(SENSITIVE, 2)])
    memory = anonkit.anonymize(data.head(rows), algorithm=Mondrian(mode=mode), **keywords)
    written = {"output": tmp_path / output} if output else {}
    streamed = anonkit.anonymize(
        path, algorithm=Mondrian(mode=mode, engine="streaming"), **written, **keywords
    )
    expected = {n: v for n, v in memory.metrics.items() if n != "kl_divergence"}
    assert len(expected) >= 8 and set(streamed.metrics) == set(expected)
    assert streamed.metrics == pytest.approx(expected, rel=1e-9)
    assert "loss" not in streamed.details
