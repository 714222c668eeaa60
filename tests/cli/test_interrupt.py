"""Ctrl-C: one line on stderr, exit code 130, no traceback, no partial file, no orphan.

The in-process tests drive :func:`anonkit.cli.interrupt.exit_on_interrupt` with
``signal.raise_signal``; the others start ``anonkit`` in its own process group, send
SIGINT to the group as a terminal does, and check what is left behind.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from anonkit._atomic import atomic_write
from anonkit.cli import interrupt
from anonkit.cli.interrupt import (
    DEFAULT_MESSAGE,
    EXIT_CODE,
    Interrupted,
    exit_on_interrupt,
    saying,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

SRC = Path(__file__).resolve().parents[2] / "src"


STOPS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


@pytest.fixture(autouse=True)
def restore_sigint() -> Iterator[None]:
    """Leave pytest's handlers of SIGINT, SIGTERM, SIGHUP and its unraisable hook as they
    were."""
    handlers = {s: signal.getsignal(s) for s in STOPS}
    hook = sys.unraisablehook
    try:
        yield
    finally:
        for s, handler in handlers.items():
            signal.signal(s, handler)
        sys.unraisablehook = hook


def _ctrl_c() -> None:
    """Ctrl-C in this process, delivered before this returns."""
    signal.raise_signal(signal.SIGINT)
    time.sleep(0.01)


# ------------------------------------------------------------------ in-process
def test_one_line_exit_130_and_ignored_afterwards(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_, exit_on_interrupt():
        _ctrl_c()
        pytest.fail("Ctrl-C did not interrupt")  # pragma: no cover
    assert exit_.value.code == EXIT_CODE
    assert capsys.readouterr().err == DEFAULT_MESSAGE + "\n"
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # the shutdown is shielded


def test_saying_names_what_was_kept(capsys: pytest.CaptureFixture[str]) -> None:
    done = [0]
    with pytest.raises(SystemExit), exit_on_interrupt(), saying("outer"):
        with saying(lambda: f"Interrupted; {done[0]} cells kept."):
            done[0] = 4
            _ctrl_c()
    assert capsys.readouterr().err == "Interrupted; 4 cells kept.\n"  # the innermost, late


def test_second_ctrl_c_does_not_cut_the_cleanup_short(capsys: pytest.CaptureFixture[str]) -> None:
    cleaned = []
    with pytest.raises(SystemExit), exit_on_interrupt():
        try:
            _ctrl_c()
        finally:
            _ctrl_c()  # ignored: within FORCE_AFTER of the first
            cleaned.append(True)
    assert cleaned == [True]
    assert capsys.readouterr().err == DEFAULT_MESSAGE + "\n"


def test_handler_restored_without_interruption() -> None:
    with exit_on_interrupt():
        assert isinstance(signal.getsignal(signal.SIGINT), interrupt._Handler)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_kill_and_a_closed_terminal_stop_like_ctrl_c(
    signum: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGTERM (kill, timeout, a scheduler) and SIGHUP end the command as Ctrl-C does:
    the clean-up runs, one line, exit code 128 + the signal; they killed it on the spot."""
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
    cleaned = []
    with pytest.raises(SystemExit) as exit_, exit_on_interrupt():
        try:
            signal.raise_signal(signum)
            time.sleep(0.01)
            pytest.fail("the signal did not interrupt")  # pragma: no cover
        finally:
            cleaned.append(True)
    assert exit_.value.code == 128 + signum and cleaned
    assert capsys.readouterr().err == DEFAULT_MESSAGE + "\n"
    assert signal.getsignal(signum) is signal.SIG_IGN  # the shutdown is shielded


def test_signals_ignored_at_start_stay_ignored_and_others_are_restored() -> None:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # started under nohup
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with exit_on_interrupt():
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert isinstance(signal.getsignal(signal.SIGTERM), interrupt._Handler)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_ignored_sigint_stays_ignored() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # e.g. started in the background
    with exit_on_interrupt():
        _ctrl_c()
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_interrupted_write_leaves_no_file(tmp_path: Path) -> None:
    def writer(tmp: Path) -> None:
        tmp.write_text("a,b\n", encoding="utf-8")  # half written when Ctrl-C comes
        _ctrl_c()

    with pytest.raises(SystemExit), exit_on_interrupt():
        atomic_write(tmp_path / "release.csv", writer)
    assert list(tmp_path.iterdir()) == []  # no release, no .release.csv.*.tmp


def test_swallowed_in_a_finalizer_is_raised_again(capsys: pytest.CaptureFixture[str]) -> None:
    class Finalized:
        def __del__(self) -> None:
            _ctrl_c()  # Interrupted raised here is swallowed by the interpreter

    with pytest.raises(SystemExit), exit_on_interrupt():
        obj = Finalized()
        del obj
        time.sleep(5)  # ended by the Ctrl-C raised again
        pytest.fail("the swallowed Ctrl-C was lost")  # pragma: no cover
    assert capsys.readouterr().err == DEFAULT_MESSAGE + "\n"  # no "Exception ignored"


@pytest.mark.parametrize("how", ["cause", "context"])
def test_wrapped_by_compiled_code_still_stops(how: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A compiled kernel (numba) that calls back into Python when Ctrl-C lands turns the
    handler's exception into a SystemError "returned a result with an exception set",
    whose cause is the interruption: it still stops with one line and code 130."""
    with pytest.raises(SystemExit) as exit_, exit_on_interrupt():
        try:
            _ctrl_c()
        except Interrupted as err:
            if how == "cause":
                raise SystemError("CPUDispatcher returned a result with an exception set") from err
            raise SystemError("returned a result with an exception set")  # noqa: B904
    assert exit_.value.code == EXIT_CODE
    assert capsys.readouterr().err == DEFAULT_MESSAGE + "\n"


def test_other_errors_are_not_taken_for_an_interruption() -> None:
    with pytest.raises(SystemError, match="other"), exit_on_interrupt():
        try:
            raise ValueError("first")
        except ValueError as err:
            raise SystemError("other") from err


def test_interrupted_is_not_a_keyboard_interrupt() -> None:
    # typer and click catch KeyboardInterrupt; Interrupted must reach main()
    assert not issubclass(Interrupted, KeyboardInterrupt)
    assert not issubclass(Interrupted, Exception)


# ------------------------------------------------------------------ subprocesses
def _children(pid: int) -> set[int]:
    """Every descendant of ``pid`` (from /proc)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*"):
            try:
                kids = {int(k) for k in (task / "children").read_text().split()}
            except OSError:
                continue
            todo.extend(kids - found)
            found |= kids
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _start(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    """``python -m anonkit``, protected from the first import as the console script is
    (``-m anonkit.cli.main`` is not while its own imports run: under load a Ctrl-C 2.5 s
    in landed there and printed a traceback)."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "200"}
    return subprocess.Popen(
        [sys.executable, "-m", "anonkit", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, like a terminal job
    )


def _wait_for(condition: object, proc: subprocess.Popen[str], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"anonkit ended before the Ctrl-C ({proc.returncode}): {err[-2000:]}")
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail("anonkit did not reach the point to interrupt in time")
        time.sleep(0.05)


def _interrupt(proc: subprocess.Popen[str], signum: int = signal.SIGINT, group: bool = True) -> str:
    """Ctrl-C (or ``signum``) to the process group (or to the process alone); checks the
    exit path and returns its stderr line.

    Lines the command printed before (a note on how the input was read) may precede it.
    """
    family = _children(proc.pid)
    if group:
        os.killpg(proc.pid, signum)
    else:
        os.kill(proc.pid, signum)
    start = time.monotonic()
    try:
        out, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover - the failure being tested
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("anonkit did not exit within 10 s of Ctrl-C")
    seconds = time.monotonic() - start
    assert seconds < 2, f"exit took {seconds:.1f} s"
    deadline = start + 3
    while any(_alive(p) for p in family) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in family if _alive(p)], "orphan worker processes"
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    lines = err.strip().splitlines()
    assert lines and sum(line.startswith("Interrupted") for line in lines) == 1, err
    assert out == ""
    return lines[-1]


def _temp_files(folder: Path) -> list[Path]:
    return list(folder.rglob(".*.tmp"))


STUDY = """
dataset = "adult"
sample = 6000
k = [2, 3, 4, 5, 7, 10, 15, 20, 30, 50, 70, 100]
classifiers = ["logistic_regression"]
workers = 2
output = "out"
algorithms = [{ algorithm = "flash", metric = "loss" }, { algorithm = "mondrian" }]
"""


def test_study_interrupted_while_workers_start(tmp_path: Path) -> None:
    (tmp_path / "study.toml").write_text(STUDY, encoding="utf-8")
    proc = _start(["study", "study.toml", "--no-progress"], tmp_path)
    _wait_for(lambda: len(_children(proc.pid)) >= 2, proc, timeout=30)
    time.sleep(0.3)  # the workers are importing: Ctrl-C must not kill them with a traceback
    line = _interrupt(proc)
    assert line.startswith("Interrupted; ") and line.endswith(".")
    out = tmp_path / "out"
    assert not (out / "results.csv").exists() and not _temp_files(tmp_path)


@pytest.mark.slow
def test_study_interrupted_keeps_finished_cells(tmp_path: Path) -> None:
    (tmp_path / "study.toml").write_text(STUDY, encoding="utf-8")
    cache = tmp_path / "out" / "cache"
    proc = _start(["study", "study.toml", "--no-progress"], tmp_path)
    _wait_for(lambda: cache.is_dir() and any(cache.glob("*.json")), proc, timeout=60)
    line = _interrupt(proc)
    kept = len(list(cache.glob("*.json")))
    assert line.startswith("Interrupted; ") and "finished cell" in line, line
    assert line.endswith(
        f" kept in {cache.resolve()} and a rerun resumes from "
        f"{'it' if line.split()[1] == '1' else 'them'}."
    ), line
    assert int(line.split()[1]) <= kept  # every cell counted is in the cache
    assert not (tmp_path / "out" / "results.csv").exists() and not _temp_files(tmp_path)


def _big_table(path: Path, rows: int = 400_000, columns: int = 7) -> None:
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(0)
    frame = pl.DataFrame(
        {f"q{i}": rng.integers(0, 10**6, rows).astype(str) for i in range(columns)}
    ).with_columns(pl.all().str.zfill(6))
    frame.write_csv(path)


def test_anonymize_interrupted_writes_nothing(tmp_path: Path) -> None:
    _big_table(tmp_path / "data.csv")
    masks = "\n".join(f'q{i} = {{ type = "masking" }}' for i in range(7))
    config = f"""
input = "data.csv"
output = "release.csv"

[hierarchies]
{masks}

[privacy]
k = 5

[search]
algorithm = "flash"
"""
    (tmp_path / "run.toml").write_text(config, encoding="utf-8")
    proc = _start(["anonymize", "run.toml", "--no-progress"], tmp_path)
    time.sleep(2.5)  # past start-up, into reading and searching
    line = _interrupt(proc)
    assert line == DEFAULT_MESSAGE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv", "run.toml"]


@pytest.mark.parametrize(("signum", "group"), [(signal.SIGTERM, False), (signal.SIGHUP, True)])
def test_anonymize_killed_or_hung_up_writes_nothing(
    tmp_path: Path, signum: int, group: bool
) -> None:
    """``kill``/``timeout`` to the process, or the terminal closing on its group: no
    temporary file is left (SIGTERM left ``.release.csv.*.tmp`` half written)."""
    _big_table(tmp_path / "data.csv")
    masks = "\n".join(f'q{i} = {{ type = "masking" }}' for i in range(7))
    config = f'input = "data.csv"\noutput = "release.csv"\n[hierarchies]\n{masks}\n'
    (tmp_path / "run.toml").write_text(config + "[privacy]\nk = 5\n", encoding="utf-8")
    proc = _start(["anonymize", "run.toml", "--no-progress"], tmp_path)
    time.sleep(2.5)  # past start-up, into reading and searching
    assert _interrupt(proc, signum, group) == DEFAULT_MESSAGE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv", "run.toml"]


def test_study_terminated_while_workers_start(tmp_path: Path) -> None:
    """A service manager stops the whole group: the workers die, the study says so."""
    (tmp_path / "study.toml").write_text(STUDY, encoding="utf-8")
    proc = _start(["study", "study.toml", "--no-progress"], tmp_path)
    _wait_for(lambda: len(_children(proc.pid)) >= 2, proc, timeout=30)
    time.sleep(0.3)
    line = _interrupt(proc, signal.SIGTERM)
    assert line.startswith("Interrupted; ") and line.endswith(".")
    assert not (tmp_path / "out" / "results.csv").exists() and not _temp_files(tmp_path)


def test_reproduce_interrupted_while_workers_start(tmp_path: Path) -> None:
    proc = _start(["reproduce", "mauger2020", "--workers", "2", "--no-progress"], tmp_path)
    _wait_for(lambda: len(_children(proc.pid)) >= 2, proc, timeout=30)
    assert _interrupt(proc) == DEFAULT_MESSAGE
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ study progress
TINY = """
dataset = "adult"
sample = 800
k = [50]
classifiers = ["logistic_regression"]
workers = 1
output = "out"
algorithms = [{ algorithm = "flash", metric = "loss" }]
"""


@pytest.mark.parametrize(("option", "drawn"), [("--progress", True), ("--no-progress", False)])
def test_study_progress_option(tmp_path: Path, option: str, drawn: bool) -> None:
    from typer.testing import CliRunner

    from anonkit.cli.main import app

    (tmp_path / "study.toml").write_text(TINY, encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["study", str(tmp_path / "study.toml"), "-o", str(out), option]
    )
    assert result.exit_code == 0, result.output
    counts = re.compile(r"\d+/\d+ cells")
    assert bool(counts.search(result.stderr)) is drawn, result.stderr  # stderr: no terminal
    assert "Study summary" in result.stdout and not counts.search(result.stdout)
