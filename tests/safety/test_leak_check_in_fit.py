"""The fit's leak check runs beside the counting and the search (issue 19); what the user
sees is what it was when the check ran first, alone (issue 15)."""

from __future__ import annotations

import pickle
import threading
import time
import warnings
from typing import Any

import polars as pl
import pytest

from anonkit import anonymize
from anonkit._beside import beside, errors_first
from anonkit.estimators import leak_check
from anonkit.estimators.leak_check import PendingLeaks
from anonkit.exceptions import LeakError, LeakWarning
from anonkit.models import DistinctLDiversity, EqualDistanceTCloseness, KMap

AGE = {"type": "intervals", "widths": [20, 40]}


def _frame(n: int = 60) -> pl.DataFrame:
    sex = ["f", "m", "m"] * (n // 3)
    return pl.DataFrame(
        {
            "age": [str(20 + (i * 7) % 50) for i in range(n)],
            "sex": sex,
            # gives "sex" back: releasing it as is undoes the generalization
            "code": [{"f": "F", "m": "M"}[s] for s in sex],
            "disease": ["flu", "cold", "ulcer", "flu"] * (n // 4),
        }
    )


def _run(frame: pl.DataFrame, **kwargs: Any) -> Any:
    args: dict[str, Any] = {
        "quasi_identifiers": ["age", "sex"],
        "hierarchies": {"age": AGE},
        "sensitive": ["disease"],
        "k": 2,
    }
    args.update(kwargs)
    return anonymize(frame, **args)


def test_a_leak_stops_the_fit() -> None:
    with pytest.raises(LeakError) as err:
        _run(_frame(), insensitive=["code"])
    assert [(x.column, x.related) for x in err.value.leaks] == [("code", "sex")]


def test_the_leak_comes_before_errors_found_after_it_started() -> None:
    # a hierarchy for a column the data lacks is found after the check starts
    with pytest.raises(LeakError):
        _run(_frame(), insensitive=["code"], hierarchies={"age": AGE, "height": AGE})
    # an age outside its hierarchy is found while counting, beside the check
    bad = _frame().with_columns(pl.lit("xx").alias("age"))
    with pytest.raises(LeakError):
        _run(bad, insensitive=["code"], hierarchies={"age": {"type": "intervals", "widths": [20]}})


def test_warnings_reach_the_result_and_the_caller() -> None:
    """A Python user is told as the CLI user is (it prints ``warning:`` lines): a
    :class:`LeakWarning` per warning, pointing at the caller's line."""
    frame = _frame().with_columns(pl.Series("ref", [f"r{i}" for i in range(60)]))
    with pytest.warns(LeakWarning) as caught:
        result = _run(frame, insensitive=["ref"], identifying=["code"])
    assert [w["column"] for w in result.checks["leak_warnings"]] == ["ref"]
    assert result.verified
    [warning] = caught
    assert warning.filename == __file__
    message = warning.message
    assert isinstance(message, LeakWarning)
    assert (message.column, message.kind) == ("ref", "unique")
    assert str(message) == result.checks["leak_warnings"][0]["reason"]
    assert pickle.loads(pickle.dumps(message)).column == "ref"


def test_no_leak_warning_without_a_leak() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", LeakWarning)
        result = _run(_frame(), identifying=["code"])
    assert result.checks["leak_warnings"] == []


def test_errors_first_waits_for_the_check_and_raises_its_error() -> None:
    ended = threading.Event()

    def failing_check() -> None:
        time.sleep(0.05)
        ended.set()
        raise LeakError([])

    pending = beside(failing_check)
    with pytest.raises(LeakError), errors_first(pending):
        raise KeyError("the work's own error")
    assert ended.is_set()


def test_errors_first_keeps_the_work_error_when_the_check_passes() -> None:
    pending = beside(lambda: 1)
    with pytest.raises(KeyError), errors_first(pending):
        raise KeyError("the work's own error")
    with errors_first(None):
        pass


def _child_runs_a_check(out: Any) -> None:
    out.put(beside(sum, [1, 2, 3]).result(timeout=10))


@pytest.mark.skipif(
    "fork" not in __import__("multiprocessing").get_all_start_methods(), reason="no fork"
)
def test_a_forked_child_starts_its_own_workers() -> None:
    import multiprocessing

    assert beside(sum, [1]).result() == 1  # this process's pool has a thread now
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    child = context.Process(target=_child_runs_a_check, args=(out,))
    child.start()
    child.join(30)
    assert child.exitcode == 0 and out.get(timeout=1) == 6


# ------------------------------------------------- sensitive columns, from the count
def _spied(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The columns each fit left to its count (what the check beside it did not count)."""
    calls: list[list[str]] = []
    real = leak_check.find_leaks

    def spy(*args: Any, tallied: Any = (), **kwargs: Any) -> Any:
        calls.append(list(tallied))
        return real(*args, tallied=tallied, **kwargs)

    monkeypatch.setattr(leak_check, "find_leaks", spy)
    return calls


def test_a_sensitive_column_is_checked_from_the_count(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _spied(monkeypatch)
    # "code" gives "sex" back; protected by l-diversity, the count holds it
    with pytest.raises(LeakError) as err:
        _run(
            _frame(),
            sensitive=["code"],
            insensitive=["disease"],
            privacy=[DistinctLDiversity("code", 2)],
        )
    assert calls == [["code"]]
    assert [(x.column, x.related) for x in err.value.leaks] == [("code", "sex")]
    # only sizes counted (k-anonymity alone): the check beside counts everything
    calls.clear()
    result = _run(_frame(), sensitive=["disease"], identifying=["code"])
    assert calls == [[]] and result.verified


def test_errors_of_both_parts_come_in_one_error_in_column_order() -> None:
    frame = _frame().with_columns(pl.Series("mail", [f"p{i}@example.org" for i in range(60)]))
    with pytest.raises(LeakError) as err:
        _run(
            frame,
            sensitive=["code", "mail"],
            insensitive=["disease"],
            privacy=[DistinctLDiversity("code", 2)],
        )
    assert [(x.column, x.kind) for x in err.value.leaks] == [
        ("code", "dependency"),
        ("mail", "identifier"),
    ]


def test_a_sensitive_leak_comes_before_a_counting_error() -> None:
    # the count fails (an age outside its hierarchy), so the check counts the records
    bad = _frame().with_columns(pl.lit("xx").alias("age"))
    with pytest.raises(LeakError) as err:
        _run(
            bad,
            sensitive=["code"],
            insensitive=["disease"],
            privacy=[DistinctLDiversity("code", 2)],
            hierarchies={"age": {"type": "intervals", "widths": [20]}},
        )
    assert [(x.column, x.related) for x in err.value.leaks] == [("code", "sex")]


def test_a_column_left_untallied_is_checked_at_the_end() -> None:
    pending = PendingLeaks(_frame(), ["age", "sex"], ["code", "disease"], tallied=["code"])
    assert pending.tallied == ["code"]
    error = pending.exception()
    assert isinstance(error, LeakError)
    assert [(x.column, x.related) for x in error.leaks] == [("code", "sex")]
    with pytest.raises(LeakError):
        pending.result()


def test_a_population_adds_no_records_to_the_count_s_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _spied(monkeypatch)
    frame = _frame()
    # combinations the sample lacks enter the count with no records
    extra = pl.DataFrame({"age": [str(a) for a in range(80, 99)], "sex": ["f", "m"] * 9 + ["f"]})
    population = pl.concat([frame.select("age", "sex")] * 3 + [extra])
    models = [KMap(2), DistinctLDiversity("code", 2)]
    with pytest.raises(LeakError) as err:
        _run(
            frame,
            sensitive=["code"],
            insensitive=["disease"],
            privacy=models,
            population=population,
        )
    assert calls == [["code"]]
    assert [(x.column, x.related, x.share) for x in err.value.leaks] == [("code", "sex", 1.0)]
    models = [KMap(2), DistinctLDiversity("disease", 2)]
    result = _run(frame, identifying=["code"], privacy=models, population=population)
    assert result.checks["leak_warnings"] == [] and result.verified


def test_values_the_count_would_merge_are_checked_as_released() -> None:
    # "code" is one value up to a trailing space, and the space gives "sex" back: the
    # count strips it, the release does not
    frame = _frame().with_columns(
        pl.when(pl.col("sex") == "f").then(pl.lit("X ")).otherwise(pl.lit("X")).alias("code")
    )
    with pytest.raises(LeakError) as err:
        _run(
            frame,
            sensitive=["code", "disease"],
            privacy=[EqualDistanceTCloseness("code", 0.5), DistinctLDiversity("disease", 2)],
        )
    assert [(x.column, x.related) for x in err.value.leaks] == [("code", "sex")]


def test_a_column_counted_verbatim_is_not_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sensitive column the count read as it stands is known to keep its values apart;
    only a column whose count may have merged values is asked of the records (issue 19:
    on Adult, a pass over the distinct values of ``occupation`` beside the encoding)."""
    asked: list[list[str]] = []
    real = leak_check.text_apart

    def spy(frame: pl.DataFrame, columns: list[str]) -> list[str]:
        asked.append(list(columns))
        return real(frame, columns)

    monkeypatch.setattr(leak_check, "text_apart", spy)
    args: dict[str, Any] = {"insensitive": ["disease"], "privacy": [DistinctLDiversity("code", 2)]}
    with pytest.raises(LeakError) as err:
        _run(_frame(), sensitive=["code"], **args)
    assert asked == [] and [(x.column, x.related) for x in err.value.leaks] == [("code", "sex")]
    # with blanks to strip the count merged "F" and " F": the records decide
    padded = _frame().with_columns(pl.col("code").replace("F", " F"))
    with pytest.raises(LeakError):
        _run(padded, sensitive=["code"], **args)
    assert asked == [["code"]]
