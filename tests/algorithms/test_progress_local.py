"""Progress reports of the local-recoding algorithms (Mondrian, greedy merging,
microaggregation) and of the runner that wraps them for ``anonymize``.

Every algorithm, given ``progress=``, calls it at least once; ``done`` never decreases,
never exceeds ``total``, and the last call has ``done == total``. Long loops report at
most every tenth of a second, never per record.
"""

from __future__ import annotations

import time

import numpy as np
import polars as pl
import pytest

from anonkit import anonymize
from anonkit.algorithms import _ticker
from anonkit.algorithms._ticker import Ticker
from anonkit.algorithms.greedy_merge import GreedyMerge
from anonkit.algorithms.microaggregation import Microaggregation, mdav_groups
from anonkit.algorithms.mondrian import HierarchicalQI, Mondrian, NumericQI, compiled, fit_frame
from anonkit.core.hierarchy import Hierarchy
from anonkit.models import KAnonymity


class Recorder:
    """A staged progress callback that remembers every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []
        self.events: list[object] = []

    def __call__(self, done: int, total: int) -> None:
        self.calls.append((done, total))
        self.events.append((done, total))

    def stage(self, name: str, unit: str = "") -> None:
        self.events.append((name, unit))


def check_calls(calls: list[tuple[int, int]]) -> None:
    assert calls, "progress was never called"
    dones = [d for d, _ in calls]
    assert dones == sorted(dones), calls
    assert all(0 <= d <= t for d, t in calls), calls
    assert calls[-1][0] == calls[-1][1], calls


@pytest.fixture(autouse=True)
def every_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pass every throttled call on, so the tests see the intermediate reports."""
    monkeypatch.setattr(_ticker, "INTERVAL", 0.0)


def numeric_qis(n: int = 400, seed: int = 0) -> list[NumericQI]:
    rng = np.random.default_rng(seed)
    return [NumericQI(f"x{i}", rng.integers(0, 50, n)) for i in range(3)]


# ------------------------------------------------------------------------ the ticker
def test_ticker_throttles_and_always_reports_the_end(monkeypatch: pytest.MonkeyPatch) -> None:
    rec = Recorder()
    ticker = Ticker(rec, 1000, interval=3600)
    for done in range(1000):
        ticker(done)
    ticker.finish()
    assert rec.calls == [(0, 1000), (1000, 1000)]


def test_ticker_clips_and_never_goes_back() -> None:
    rec = Recorder()
    ticker = Ticker(rec, 5, interval=0)
    for done in (2, 1, 9):
        ticker(done)
    ticker.finish(3)
    assert rec.calls == [(2, 5), (2, 5), (5, 5), (5, 5)]


def test_ticker_without_callback_does_nothing() -> None:
    ticker = Ticker(None, 3)
    ticker(1)
    ticker.finish()


# ------------------------------------------------------------------------ Mondrian
@pytest.mark.parametrize("mode", ["strict", "relaxed"])
def test_mondrian_numpy_rounds(mode: str) -> None:
    rec = Recorder()
    est = Mondrian(mode=mode, implementation="numpy", progress=rec)
    assert est.progress is rec  # stored unchanged
    res = est.fit(numeric_qis(), [KAnonymity(3)])
    check_calls(rec.calls)
    assert rec.calls[-1] == (res.rounds, res.rounds)
    assert len(rec.calls) >= res.rounds  # one report per round (rounds are few)


def test_mondrian_hierarchical_rounds() -> None:
    h = Hierarchy([["a", "A", "*"], ["b", "A", "*"], ["c", "C", "*"], ["d", "C", "*"]])
    codes = np.tile(np.arange(4), 25)
    rec = Recorder()
    res = Mondrian(implementation="numpy", progress=rec).fit(
        [HierarchicalQI("h", codes, h), NumericQI("x", np.arange(100))], [KAnonymity(2)]
    )
    check_calls(rec.calls)
    assert rec.calls[-1] == (res.rounds, res.rounds)


@pytest.mark.skipif(not compiled.available(), reason="numba unavailable")
def test_mondrian_compiled_reports_start_and_end() -> None:
    rec = Recorder()
    res = Mondrian(implementation="compiled", progress=rec).fit(numeric_qis(), [KAnonymity(3)])
    check_calls(rec.calls)
    assert rec.calls[0][0] == 0
    assert rec.calls[-1] == (res.rounds, res.rounds)


def test_mondrian_without_progress_is_unchanged() -> None:
    qis = numeric_qis()
    a = Mondrian(implementation="numpy").fit(qis, [KAnonymity(3)])
    b = Mondrian(implementation="numpy", progress=Recorder()).fit(qis, [KAnonymity(3)])
    assert np.array_equal(a.class_of, b.class_of)


def test_fit_frame_passes_progress() -> None:
    rec = Recorder()
    df = pl.DataFrame({"x": list(range(40)), "y": [i % 7 for i in range(40)]})
    fit_frame(df, [KAnonymity(4)], quasi_identifiers=["x", "y"], numeric=["x", "y"], progress=rec)
    check_calls(rec.calls)


# ------------------------------------------------------------------------ greedy merging
def greedy_input() -> tuple[np.ndarray, list[Hierarchy]]:
    h = Hierarchy([[str(i), f"g{i // 4}", f"G{i // 16}", "*"] for i in range(32)], name="q0")
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 32, size=(2, 300))
    return codes, [h, h.with_name("q1")]


@pytest.mark.parametrize("small_class", ["first", "smallest"])
def test_greedy_merge_reports_small_classes_resolved(small_class: str) -> None:
    codes, hs = greedy_input()
    rec = Recorder()
    est = GreedyMerge(k=5, small_class=small_class, progress=rec)
    assert est.progress is rec
    res = est.fit(codes, hs)
    check_calls(rec.calls)
    assert rec.calls[0][0] == 0
    assert len(rec.calls) > 2  # intermediate reports
    assert res.n_merges > 0


def test_greedy_merge_already_anonymous() -> None:
    h = Hierarchy([["a", "*"], ["b", "*"]], name="q")
    rec = Recorder()
    GreedyMerge(k=2, progress=rec).fit(np.array([[0, 0, 1, 1]]), [h])
    check_calls(rec.calls)


# ------------------------------------------------------------------------ microaggregation
@pytest.mark.parametrize("method", ["mdav", "univariate", "gmm"])
def test_microaggregation_reports_groups(method: str) -> None:
    if method == "gmm":
        pytest.importorskip("sklearn")
    x = np.random.default_rng(2).normal(size=(300, 2))
    rec = Recorder()
    est = Microaggregation(k=3, method=method, progress=rec)
    assert est.progress is rec
    assert est.get_params()["progress"] is rec
    res = est.fit(x)
    check_calls(rec.calls)
    assert rec.calls[0][0] == 0
    assert rec.calls[-1] == (res.n_groups, res.n_groups)


def test_mdav_reports_groups_formed() -> None:
    x = np.random.default_rng(3).normal(size=(600, 3))
    rec = Recorder()
    groups = mdav_groups(x, 4, progress=rec)
    check_calls(rec.calls)
    n_groups = int(groups.max()) + 1
    assert rec.calls[-1] == (n_groups, n_groups) == (150, 150)
    assert len(rec.calls) > 10


def test_mdav_reports_are_throttled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # the real interval
    x = np.random.default_rng(4).normal(size=(3000, 2))
    rec = Recorder()
    t0 = time.perf_counter()
    mdav_groups(x, 2, progress=rec)
    seconds = time.perf_counter() - t0
    check_calls(rec.calls)
    assert len(rec.calls) <= 2 + seconds / 0.1 + 1  # never per group


# ------------------------------------------------------------------------ the runner
@pytest.mark.parametrize(
    ("algorithm", "step", "unit"),
    [
        ("mondrian", "Mondrian", "rounds"),
        ("greedy_merge", "Greedy merging", "small classes"),
        ("microaggregation", "Microaggregation", "groups"),
    ],
)
def test_anonymize_announces_the_local_steps(algorithm: str, step: str, unit: str) -> None:
    df = pl.DataFrame(
        {"age": [20 + (i * 7) % 40 for i in range(60)], "zip": [str(i % 6) for i in range(60)]}
    )
    rec = Recorder()
    anonymize(
        df,
        quasi_identifiers=["age", "zip"],
        k=3,
        algorithm=algorithm,
        numeric=["age"] if algorithm == "mondrian" else [],
        progress=rec,
    )
    stages = [e for e in rec.events if isinstance(e[0], str)]
    names = [name for name, _ in stages]
    assert (step, unit) in stages
    assert names.index(step) < names.index("Releasing")
    if algorithm != "microaggregation":  # its loss (SSE, IL) comes with the groups
        assert names.index("Releasing") < names.index("Measuring loss")
    # the algorithm's counts come between its step and the next one
    first, last = names.index(step), names.index("Releasing")
    steps = [i for i, e in enumerate(rec.events) if isinstance(e[0], str)]
    counted = [e for e in rec.events[steps[first] + 1 : steps[last]] if isinstance(e[0], int)]
    check_calls(counted)  # type: ignore[arg-type]
