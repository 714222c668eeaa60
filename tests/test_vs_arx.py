"""benchmarks/vs_arx.py: its table and its errors (ARX itself is not part of anonkit)."""

from __future__ import annotations

import importlib
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def vs_arx() -> Iterator[ModuleType]:
    sys.path.insert(0, str(BENCHMARKS))
    bytecode = sys.dont_write_bytecode  # the benchmarks turn it off for their folder
    try:
        yield importlib.import_module("vs_arx")
    finally:
        sys.path.remove(str(BENCHMARKS))
        sys.dont_write_bytecode = bytecode


def test_the_table_gives_each_cells_rounds_and_whether_the_optima_agree(vs_arx: ModuleType) -> None:
    ahead = vs_arx.Cell("fast cell", 0, {})
    ahead.arx_ms = [[10.0, 12.0, 11.0], [20.0, 20.0, 20.0]]
    ahead.ours_ms = [[5.0, 6.0, 7.0], [20.0, 22.0, 21.0]]
    ahead.arx_choice = ("26", "0", {"age": 1})
    ahead.ours_choice = ("14", "0", {"age": 1})
    apart = vs_arx.Cell("other cell", 1, {})
    apart.arx_ms, apart.ours_ms = [[10.0]], [[10.0]]
    apart.arx_choice = ("5", "3", {"age": 1})
    apart.ours_choice = ("4", "2", {"age": 2})
    assert ahead.ratios() == pytest.approx([6.0 / 11.0, 21.0 / 20.0])
    rows = vs_arx._table([ahead, apart]).splitlines()[2:]
    assert rows[0].split(" | ")[1:] == [
        "16.0",  # the median of all six of ARX's calls
        "13.5",
        "0.55 / 0.80 / 1.05",
        "1 of 2",  # the second round's median was above ARX's
        "26 / 14",
        "0 / 0",
        "yes |",
    ]
    assert rows[1].endswith("| 1 of 1 | 5 / 4 | 3 / 2 | no |")  # an equal time is not behind


def test_without_a_class_path_it_says_arx_is_not_part_of_anonkit(
    vs_arx: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ARX_CLASSPATH", raising=False)
    with pytest.raises(SystemExit) as stop:
        vs_arx.main([])
    assert stop.value.code == 2
    assert "--arx-classpath" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("javac") is None, reason="no javac on the PATH")
def test_a_class_path_without_arx_stops_with_javacs_reason(
    vs_arx: ModuleType, tmp_path: Path
) -> None:
    with pytest.raises(SystemExit, match="javac could not compile ArxCells.java"):
        vs_arx.ArxProcess(str(tmp_path), tmp_path, tmp_path)
