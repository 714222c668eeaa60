"""A run in the app's session without a browser (``session.Harness``): what it keeps when
the table changes while the run is going."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from anonkit.app import results
from anonkit.app.steps import hierarchies, load, privacy, roles, run

from .session import Harness

#: The Privacy page's inputs as the browser reports them: 5-anonymity, 5 % suppression.
PRIVACY: dict[str, object] = {
    "k": 5, "suppression": 5, "l": 0, "l_variant": "distinct_l_diversity", "t": 0,
    "t_variant": "equal_distance_t_closeness", "more_models": "", "k_map": 0,
    "delta_max": 0, "delta_min": 0, "algorithm": "flash", "algorithm_options": "",
    "metric": "loss",
}  # fmt: skip


def _table(path: Path, n: int) -> Path:
    pl.DataFrame(
        {
            "age": [str(20 + (i * 7) % 50) for i in range(n)],
            "sex": ["F" if i % 3 else "M" for i in range(n)],
            "income": [">50K" if i % 5 == 0 else "<=50K" for i in range(n)],
        }
    ).write_csv(path)
    return path


def _settle(h: Harness, until: Any, rounds: int = 100) -> None:
    for _ in range(rounds):
        h.flush(wait=0.05)
        if until():
            return
    raise AssertionError("the session did not settle")


def test_a_run_that_ends_after_another_table_was_loaded_is_discarded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run still going when a new table was loaded set its release as the outcome: the
    page showed it, the download named it after the new file, and the exported TOML
    named the new file with the old table's roles."""
    gate = threading.Event()
    real = results.run

    def held(request: results.RunRequest, progress: results.RunProgress) -> Any:
        gate.wait(20)
        return real(request, progress)

    monkeypatch.setattr(results, "run", held)
    first, second = _table(tmp_path / "first.csv", 200), _table(tmp_path / "second.csv", 120)
    h = Harness([load, roles, hierarchies, privacy, run], tmp_path / "work", **PRIVACY)
    try:
        h.set(path=str(first), load=1)
        _settle(h, lambda: h.read(h.state.roles_ready))
        h.set(run=1)
        h.set(path=str(second), load=2)
        _settle(h, lambda: h.read(h.state.loaded).name == "second.csv")
        gate.set()
        for _ in range(40):  # the first run ends
            h.flush(wait=0.05)
        assert h.read(h.state.outcome) is None
        # a run of the table now loaded is kept
        _settle(h, lambda: h.read(h.state.roles_ready))
        h.set(run=2)
        _settle(h, lambda: h.read(h.state.outcome) is not None)
        assert h.read(h.state.outcome).result.release.height == 120
    finally:
        gate.set()
        h.close()


@pytest.mark.parametrize("chosen", ["discernibility", "classification"])
def test_k_optimize_runs_with_its_own_metrics(tmp_path: Path, chosen: str) -> None:
    """k-Optimize was shown the full-domain metrics (default 'loss'), which it refuses:
    its run failed unless one picked 'discernibility', and 'classification' could not be
    chosen at all. It has its own Metric field now."""
    path = tmp_path / "table.csv"  # few values: k-Optimize's search is exponential in them
    pl.DataFrame(
        {"age": [str(20 + i % 4) for i in range(60)], "income": ["a", "b", "b"] * 20}
    ).write_csv(path)
    options = 'class_column = "income"' if chosen == "classification" else ""
    inputs = {**PRIVACY, "algorithm": "k_optimize", "algorithm_options": options}
    h = Harness([load, roles, hierarchies, privacy, run], tmp_path / "work", **inputs)
    try:
        h.set(path=str(path), load=1)
        _settle(h, lambda: h.read(h.state.roles_ready))
        h.set(k_optimize_metric=chosen, run=1)
        _settle(h, lambda: h.read(h.state.outcome) is not None, rounds=600)
        assert h.read(h.state.outcome).result.metric == chosen
    finally:
        h.close()
