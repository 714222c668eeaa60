"""Full-domain anonymization streamed from disk (engine="streaming") and engine="auto"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

import anonkit
from anonkit.exceptions import (
    DataError,
    InputChangedError,
    LeakError,
    ParameterError,
    ReleaseVerificationError,
    ValuesNotInHierarchyError,
)
from anonkit.models import DistinctLDiversity, EqualDistanceTCloseness, KMap

QI = ["age", "sex", "race", "marital-status", "education"]
SENSITIVE = "occupation"


@pytest.fixture(scope="module")
def data(adult: tuple[pl.DataFrame, dict[str, Path]]) -> pl.DataFrame:
    return adult[0].select([*QI, SENSITIVE]).head(6000)


@pytest.fixture(scope="module")
def hierarchies(adult: tuple[pl.DataFrame, dict[str, Path]]) -> dict[str, Path]:
    return {c: adult[1][c] for c in QI}


@pytest.fixture(scope="module")
def parquet(data: pl.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stream") / "adult.parquet"
    data.write_parquet(path)
    return path


CASES: list[tuple[str, dict[str, Any]]] = [
    ("k", {"k": 5, "suppression_limit": 0.02}),
    ("k0", {"k": 10}),
    ("l", {"k": 3, "privacy": [DistinctLDiversity(SENSITIVE, 3)], "suppression_limit": 0.05}),
    (
        "t",
        {"k": 2, "privacy": [EqualDistanceTCloseness(SENSITIVE, 0.3)], "suppression_limit": 0.05},
    ),
]


@pytest.mark.parametrize(("name", "options"), CASES, ids=[c[0] for c in CASES])
def test_streamed_release_equals_the_in_memory_one(
    name: str, options: dict[str, Any], data: pl.DataFrame, parquet: Path, hierarchies: Any
) -> None:
    keywords = {
        "quasi_identifiers": QI,
        "hierarchies": hierarchies,
        "sensitive": [SENSITIVE],
        **options,
    }
    memory = anonkit.anonymize(data, **keywords)
    streamed = anonkit.anonymize(parquet, engine="streaming", **keywords)
    assert isinstance(streamed.release, pl.LazyFrame)
    assert streamed.transformation == memory.transformation
    assert streamed.suppressed == memory.suppressed
    assert streamed.verified
    assert streamed.release.collect().equals(memory.release)
    assert streamed.metrics["loss"] == pytest.approx(memory.metrics["loss"])
    assert streamed.details["engine"]["name"] == "streaming"


def test_lazy_frames_stream_and_drop_suppressed_records(
    data: pl.DataFrame, parquet: Path, hierarchies: Any
) -> None:
    keywords: dict[str, Any] = {
        "quasi_identifiers": QI,
        "hierarchies": hierarchies,
        "sensitive": [SENSITIVE],
        "k": 20,
        "suppression_limit": 0.05,
        "suppressed": "drop",
    }
    memory = anonkit.anonymize(data, **keywords)
    streamed = anonkit.anonymize(pl.scan_parquet(parquet), engine="auto", **keywords)
    assert streamed.details["engine"] == {
        "name": "streaming",
        "reason": "the input is a lazy query",
    }
    assert streamed.suppressed > 0
    assert streamed.release.collect().equals(memory.release)


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_output_is_written_once_verified(
    suffix: str, data: pl.DataFrame, parquet: Path, hierarchies: Any, tmp_path: Path
) -> None:
    out = tmp_path / f"release{suffix}"
    result = anonkit.anonymize(
        parquet,
        engine="streaming",
        output=out,
        quasi_identifiers=QI,
        hierarchies=hierarchies,
        sensitive=[SENSITIVE],
        k=5,
        suppression_limit=0.02,
    )
    assert out.is_file() and sorted(p.name for p in tmp_path.iterdir()) == [out.name]
    memory = anonkit.anonymize(
        data,
        quasi_identifiers=QI,
        hierarchies=hierarchies,
        sensitive=[SENSITIVE],
        k=5,
        suppression_limit=0.02,
    )
    assert result.release.collect().equals(memory.release)


def test_a_dropping_release_is_derived_from_the_verified_file(
    parquet: Path, hierarchies: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With suppressed="drop" the published file was a third pass over the source, not
    the file verified: a source changed in between was published unverified."""
    from anonkit.engines.streaming_engine import StreamingEngine

    passes: list[int] = []
    apply = StreamingEngine.apply

    def counted(self: Any, source: Any, plan: Any) -> Any:
        passes.append(1)
        return apply(self, source, plan)

    monkeypatch.setattr(StreamingEngine, "apply", counted)
    out = tmp_path / "release.csv"
    result = anonkit.anonymize(
        parquet,
        engine="streaming",
        output=out,
        quasi_identifiers=QI,
        hierarchies=hierarchies,
        k=5,
        suppression_limit=0.02,
        suppressed="drop",
        others="drop",
    )
    assert result.suppressed > 0 and len(passes) == 1
    written = pl.read_csv(out, infer_schema=False)
    assert written.height == result.n_records - result.suppressed
    assert not written.select(pl.all_horizontal(pl.col(c) == "*" for c in QI).any()).item()


def test_a_failed_verification_leaves_nothing(
    parquet: Path, hierarchies: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import anonkit.estimators.steps as steps

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise ReleaseVerificationError(["2-anonymity fails in 1 class(es) holding 1 records"])

    monkeypatch.setattr(steps, "verify_release", fail)
    out = tmp_path / "release.parquet"
    with pytest.raises(ReleaseVerificationError):
        anonkit.anonymize(
            parquet,
            engine="streaming",
            output=out,
            quasi_identifiers=QI,
            hierarchies=hierarchies,
            others="drop",
            k=2,
        )
    assert list(tmp_path.iterdir()) == []


def test_population_models_stream(data: pl.DataFrame, parquet: Path, hierarchies: Any) -> None:
    sample = data.head(1500)
    keywords: dict[str, Any] = {
        "quasi_identifiers": QI,
        "hierarchies": hierarchies,
        "others": "drop",
        "privacy": [KMap(3)],
        "population": data,
        "suppression_limit": 0.05,
    }
    memory = anonkit.anonymize(sample, **keywords)
    streamed = anonkit.anonymize(sample.lazy(), engine="streaming", **keywords)
    assert streamed.transformation == memory.transformation
    assert streamed.release.collect().equals(memory.release)


def test_streaming_errors_match_the_in_memory_ones(
    data: pl.DataFrame, hierarchies: Any, tmp_path: Path
) -> None:
    bad = data.with_columns(
        pl.when(pl.int_range(pl.len()) == 7)
        .then(pl.lit("999"))
        .otherwise(pl.col("age"))
        .alias("age")
    )
    path = tmp_path / "bad.parquet"
    bad.write_parquet(path)
    keywords: dict[str, Any] = {
        "quasi_identifiers": QI,
        "hierarchies": hierarchies,
        "others": "drop",
        "k": 2,
    }
    with pytest.raises(ValuesNotInHierarchyError) as streamed:
        anonkit.anonymize(path, engine="streaming", **keywords)
    with pytest.raises(ValuesNotInHierarchyError) as memory:
        anonkit.anonymize(bad, **keywords)
    assert str(streamed.value) == str(memory.value)
    with pytest.raises(ParameterError, match="local_suppression"):
        anonkit.anonymize(path, engine="streaming", local_suppression=True, **keywords)
    with pytest.raises(ParameterError, match="engine"):
        anonkit.anonymize(path, engine="streaming", algorithm="greedy_merge", **keywords)


def test_leak_check_reads_the_first_records(data: pl.DataFrame, hierarchies: Any) -> None:
    leaky = data.with_columns(pl.col("education").alias("education-copy"))
    with pytest.raises(LeakError, match="education-copy"):
        anonkit.anonymize(
            leaky.lazy(),
            engine="streaming",
            quasi_identifiers=QI,
            hierarchies=hierarchies,
            insensitive=["education-copy"],
            others="drop",
            k=2,
        )


#: A run that keeps the column ``contact`` as it is.
_KEPT_CONTACT: dict[str, Any] = {
    "quasi_identifiers": QI,
    "insensitive": ["contact"],
    "others": "drop",
    "k": 2,
}


def _late_mails(data: pl.DataFrame) -> pl.DataFrame:
    """``data`` with a column ``contact``: empty in its first half, e-mail addresses in
    the second."""
    half = data.height // 2
    mails = [None] * half + [f"p{i}@example.org" for i in range(data.height - half)]
    return data.with_columns(pl.Series("contact", mails))


@pytest.mark.parametrize("algorithm", ["flash", "mondrian"])
def test_leak_check_reads_records_from_the_whole_table(
    algorithm: str,
    data: pl.DataFrame,
    hierarchies: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The check read the first LEAK_SAMPLE records only: a column empty there and full of
    e-mail addresses further down was published (a whole file's worth, exit 0)."""
    from anonkit.estimators import steps

    monkeypatch.setattr(steps, "LEAK_SAMPLE", 500)
    path = tmp_path / "late.csv"
    _late_mails(data).write_csv(path)
    with pytest.raises(LeakError, match="contact"):
        anonkit.anonymize(
            path,
            engine="streaming",
            algorithm=algorithm,
            hierarchies=hierarchies,
            output=tmp_path / "out.csv",
            **_KEPT_CONTACT,
        )
    assert not (tmp_path / "out.csv").exists()


def test_in_memory_mondrian_on_a_large_table_checks_records_from_all_of_it(
    data: pl.DataFrame, hierarchies: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anonkit.estimators import local

    monkeypatch.setattr(local, "LARGE_TABLE", 1000)
    monkeypatch.setattr(local, "LEAK_SAMPLE", 500)
    with pytest.raises(LeakError, match="contact"):
        anonkit.anonymize(
            _late_mails(data), algorithm="mondrian", hierarchies=hierarchies, **_KEPT_CONTACT
        )


@pytest.mark.parametrize("algorithm", ["flash", "mondrian"])
def test_a_column_a_csv_release_cannot_hold_is_named_before_the_count(
    algorithm: str, data: pl.DataFrame, hierarchies: Any, tmp_path: Path
) -> None:
    """Streamed, a List column kept in a CSV release failed after the whole search with
    polars' hidden ComputeError; in memory it is a DataError naming the column."""
    path = tmp_path / "nested.parquet"
    data.with_columns(pl.concat_list("sex", "race").alias("lst")).write_parquet(path)
    keywords: dict[str, Any] = {
        "algorithm": algorithm,
        "quasi_identifiers": QI,
        "hierarchies": hierarchies,
        "insensitive": ["lst"],
        "others": "drop",
        "k": 2,
        "leak_check": False,
    }
    with pytest.raises(DataError, match="'lst' holds List") as streamed:
        anonkit.anonymize(path, engine="streaming", output=tmp_path / "out.csv", **keywords)
    with pytest.raises(DataError) as memory:
        anonkit.anonymize(path, output=tmp_path / "out.csv", **keywords)
    assert str(streamed.value) == str(memory.value)
    assert not list(tmp_path.glob("*out*"))


def test_a_lazy_release_refuses_to_read_a_file_changed_since_the_fit(
    data: pl.DataFrame, hierarchies: Any, tmp_path: Path
) -> None:
    """Without output the streamed release is a query over the input file: collected
    after the file changed it released records nobody had verified (a class of 1 at
    k = 20), and nothing said so."""
    import time

    path = tmp_path / "in.csv"
    data.select(QI).write_csv(path)
    result = anonkit.anonymize(
        path,
        engine="streaming",
        quasi_identifiers=QI,
        hierarchies=hierarchies,
        k=5,
        suppression_limit=0.02,
    )
    assert result.release.collect().height == data.height  # unchanged: reads as verified
    assert result.release.select(pl.len()).collect().item() == data.height
    assert result.release.select(QI[0]).head(2).collect().height == 2
    time.sleep(0.01)
    with path.open("a", encoding="utf-8") as fh:
        fh.write("80,Male,White,Divorced,Doctorate\n")
    with pytest.raises(InputChangedError, match="in.csv"):
        result.release.collect()


def test_auto_keeps_small_files_in_memory_and_streams_big_ones(
    data: pl.DataFrame, parquet: Path, hierarchies: Any
) -> None:
    keywords: dict[str, Any] = {
        "quasi_identifiers": QI,
        "hierarchies": hierarchies,
        "others": "drop",
        "k": 5,
    }
    small = anonkit.anonymize(parquet, engine="auto", **keywords)
    assert small.details["engine"]["name"] == "polars"
    assert isinstance(small.release, pl.DataFrame)
    big = anonkit.anonymize(parquet, engine="auto", memory_share=1e-9, **keywords)
    assert big.details["engine"]["name"] == "streaming"
    assert "memory" in big.details["engine"]["reason"]
    assert big.release.collect().equals(small.release)


def test_transform_after_a_streamed_fit(
    data: pl.DataFrame, parquet: Path, hierarchies: Any
) -> None:
    from anonkit.estimators import FullDomain, Privacy
    from anonkit.models import KAnonymity

    est = FullDomain(engine="streaming", privacy=Privacy(KAnonymity(5), suppression_limit=0.02))
    est.fit(parquet, quasi_identifiers=QI, hierarchies=hierarchies, others="drop")
    again = est.transform(pl.scan_parquet(parquet)).collect()
    assert again.equals(est.result_.release.collect())
    bad = data.head(3).with_columns(pl.lit("999").alias("age")).lazy()
    with pytest.raises(ValuesNotInHierarchyError):
        est.transform(bad)


def test_a_streamed_fit_pickles_and_transforms_new_records(
    data: pl.DataFrame, parquet: Path, hierarchies: Any
) -> None:
    """The streaming engine forgets the fit's queries when pickled, not what it learned."""
    import pickle

    from anonkit.estimators import FullDomain, Privacy
    from anonkit.models import KAnonymity

    fitted = FullDomain(privacy=Privacy(KAnonymity(5), suppression_limit=0.02), engine="streaming")
    fitted.fit(parquet, quasi_identifiers=QI, hierarchies=hierarchies, sensitive=[SENSITIVE])
    again = pickle.loads(pickle.dumps(fitted))
    new = data.tail(500).lazy()
    assert again.transform(new).collect().equals(fitted.transform(new).collect())
    assert again.transformation_ == fitted.transformation_


def test_a_streamed_fit_refuses_new_columns_in_transform(
    data: pl.DataFrame, parquet: Path, hierarchies: Any
) -> None:
    from anonkit.estimators import FullDomain, Privacy
    from anonkit.exceptions import UndeclaredColumnsError
    from anonkit.models import KAnonymity

    fitted = FullDomain(privacy=Privacy(KAnonymity(5), suppression_limit=0.02), engine="streaming")
    fitted.fit(parquet, quasi_identifiers=QI, hierarchies=hierarchies, sensitive=[SENSITIVE])
    new = data.tail(50).lazy().with_columns(pl.lit("x@y.org").alias("email"))
    with pytest.raises(UndeclaredColumnsError, match="'email'"):
        fitted.transform(new)


@pytest.mark.parametrize("leak_check", [True, False])
def test_a_duration_quasi_identifier_is_named_when_streamed(
    tmp_path: Path, leak_check: bool
) -> None:
    """Streamed, it stopped on polars' 'casting from Duration to String not supported'."""
    import datetime as dt

    path = tmp_path / "d.parquet"
    days = [dt.timedelta(days=i % 2) for i in range(8)]
    pl.DataFrame({"sex": ["m", "f"] * 4, "wait": days}).write_parquet(path)
    sup = {"type": "suppression"}
    with pytest.raises(DataError, match="Column 'wait' holds Duration"):
        anonkit.anonymize(path, engine="streaming", output=tmp_path / "o.parquet", k=2,
                          quasi_identifiers=["sex", "wait"], hierarchies={"sex": sup, "wait": sup},
                          leak_check=leak_check)  # fmt: skip
    assert not (tmp_path / "o.parquet").exists()
