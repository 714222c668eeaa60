"""Ctrl-C tells the truth about the outputs, and a finished command stays finished.

Every file :mod:`anonkit._atomic` renames into place during a command is noted, and the
interruption line names it (``Interrupted; already written: out/release.csv.``) instead
of claiming that nothing was written. Once the command has finished, a late Ctrl-C or
``kill`` is ignored: the exit code is the command's, not 130 and not death by the signal.

The in-process tests raise the signals with ``signal.raise_signal``; the subprocess tests
send them only after the child printed a marker line, so nothing depends on timing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_interrupt import SRC, STOPS, restore_sigint  # noqa: F401 (an autouse fixture)

from anonkit import _atomic
from anonkit._atomic import CommitLog, atomic_path, atomic_write, atomic_write_text, note_commit
from anonkit.cli import interrupt
from anonkit.cli.interrupt import (
    DEFAULT_MESSAGE,
    EXIT_CODE,
    Interrupted,
    exit_on_interrupt,
    interruption_line,
    run_command,
    saying,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


@pytest.fixture(autouse=True)
def no_log_left_open() -> Iterator[None]:
    """No commit log open after a test. (The signal handlers are restored by
    :func:`test_interrupt.restore_sigint`, autouse here too.)"""
    yield
    assert _atomic._OPEN == [], "a commit log was left open"


def _ctrl_c() -> None:
    """Ctrl-C in this process, delivered before this returns."""
    signal.raise_signal(signal.SIGINT)
    time.sleep(0.01)


# ------------------------------------------------------------------ the commit log
def test_log_notes_each_committed_file_once_in_order(tmp_path: Path) -> None:
    with CommitLog() as log:
        atomic_write_text(tmp_path / "b.json", "{}")
        atomic_write(tmp_path / "a.csv", lambda tmp: tmp.write_text("x\n", encoding="utf-8"))
        with atomic_path(tmp_path / "sub" / "c.txt") as tmp:
            tmp.write_text("c", encoding="utf-8")
        atomic_write_text(tmp_path / "b.json", "{ }")  # written again: named once
    atomic_write_text(tmp_path / "late.txt", "after the log")
    assert log.paths == [tmp_path / "b.json", tmp_path / "a.csv", tmp_path / "sub" / "c.txt"]


def test_log_skips_failed_writes_and_keeps_relative_paths_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    def broken(tmp: Path) -> None:
        tmp.write_text("half", encoding="utf-8")
        raise ValueError("the writer failed")

    with CommitLog() as log, CommitLog() as inner:
        with pytest.raises(ValueError):
            atomic_write(Path("broken.csv"), broken)
        atomic_write_text(Path("out") / "ok.txt", "ok")
        note_commit("spark-folder")  # a writer that renames by itself
    assert log.paths == inner.paths == [tmp_path / "out" / "ok.txt", tmp_path / "spark-folder"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_without_a_log_nothing_is_kept(tmp_path: Path) -> None:
    atomic_write_text(tmp_path / "a.txt", "a")
    assert _atomic._OPEN == []


def _replace_then(after: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``os.replace`` raising Interrupted just after (``after``) or just before renaming,
    as the signal handler does when Ctrl-C comes during the call."""
    replace = os.replace

    def interrupted(src: str | Path, dst: str | Path) -> None:
        if after:
            replace(src, dst)
        raise Interrupted()

    monkeypatch.setattr(os, "replace", interrupted)


@pytest.mark.parametrize("after", [True, False])
def test_ctrl_c_at_the_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after: bool) -> None:
    """Ctrl-C right after the rename: the file is complete, and noted; right before it:
    no file, no temporary file, nothing noted."""
    _replace_then(after, monkeypatch)
    target = tmp_path / "release.csv"
    with CommitLog() as log, pytest.raises(Interrupted):
        atomic_write_text(target, "a,b\n1,2\n")
    monkeypatch.undo()
    if after:
        assert target.read_text(encoding="utf-8") == "a,b\n1,2\n"
        assert log.paths == [target]
    else:
        assert log.paths == []
    assert [p.name for p in tmp_path.iterdir()] == (["release.csv"] if after else [])


# ------------------------------------------------------------------ the line
def test_line_names_what_was_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    assert interruption_line(None, []) == DEFAULT_MESSAGE
    assert interruption_line(None, [out / "release.csv"]) == (
        "Interrupted; already written: out/release.csv."
    )
    elsewhere = Path("/somewhere/else/release.csv")
    assert interruption_line(None, [out / "release.csv", elsewhere]) == (
        "Interrupted; already written: out/release.csv, /somewhere/else/release.csv."
    )


def test_line_counts_a_folder_of_many_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cells = [tmp_path / "out" / "cache" / f"{i}.json" for i in range(1200)]
    line = interruption_line(None, [*cells, tmp_path / "out" / "results.csv"])
    assert line == "Interrupted; already written: 1,200 files in out/cache/, out/results.csv."
    many = [tmp_path / f"f{i}" / "x.csv" for i in range(9)]
    assert interruption_line(None, many) == (
        "Interrupted; already written: f0/x.csv, f1/x.csv, f2/x.csv, f3/x.csv and 5 more files."
    )


def test_line_keeps_the_commands_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command's line stays; files it names (or whose folder it names, relative or
    absolute) are not named again, the others follow it."""
    monkeypatch.chdir(tmp_path)
    cache = tmp_path / "out" / "cache"
    cells = [cache / f"{i}.json" for i in range(3)]
    for shown in ("out/cache", str(cache.resolve())):
        said = f"Interrupted; 3 finished cells are kept in {shown} and a rerun resumes."
        assert interruption_line(said, cells) == said
        assert interruption_line(said, []) == said
        assert interruption_line(said, [*cells, tmp_path / "out" / "results.csv"]) == (
            said + " Already written: out/results.csv."
        )
    # a folder named in passing does not hide its neighbour: out/cache is not out/cache2
    said = "Interrupted; kept in out/cache."
    assert interruption_line(said, [tmp_path / "out" / "cache2" / "a.json"]) == (
        said + " Already written: out/cache2/a.json."
    )


def test_line_never_shows_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    secret = "1957-03-02,Jane Roe,HIV+"
    with pytest.raises(SystemExit), exit_on_interrupt():
        atomic_write_text(tmp_path / "release.csv", secret + "\n")
        _ctrl_c()
    err = capsys.readouterr().err
    assert err == "Interrupted; already written: release.csv.\n"
    assert "Jane" not in err


# ------------------------------------------------------------------ in-process commands
def test_interrupted_after_a_commit_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bug: the release was complete, the line said nothing was written."""
    monkeypatch.chdir(tmp_path)

    def command() -> None:
        atomic_write_text(Path("out") / "release.csv", "a\n1\n")
        _ctrl_c()  # printing the summary when Ctrl-C comes
        pytest.fail("Ctrl-C did not interrupt")  # pragma: no cover

    with pytest.raises(SystemExit) as exit_:
        run_command(command)
    assert exit_.value.code == EXIT_CODE
    assert capsys.readouterr().err == "Interrupted; already written: out/release.csv.\n"
    assert (tmp_path / "out" / "release.csv").read_text(encoding="utf-8") == "a\n1\n"


def test_saying_and_the_files_combine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit), exit_on_interrupt():
        with saying("Interrupted; 2 finished cells are kept in out/cache."):
            for i in range(2):
                atomic_write_text(Path("out") / "cache" / f"{i}.json", "{}")
            atomic_write_text(Path("out") / "results.csv", "k\n2\n")
            _ctrl_c()
    assert capsys.readouterr().err == (
        "Interrupted; 2 finished cells are kept in out/cache. Already written: out/results.csv.\n"
    )


def test_nothing_committed_still_says_nothing_was_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def command() -> None:
        with atomic_path(tmp_path / "release.csv") as tmp:
            tmp.write_text("half", encoding="utf-8")
            _ctrl_c()

    with pytest.raises(SystemExit):
        run_command(command)
    assert capsys.readouterr().err == DEFAULT_MESSAGE + "\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("code", [None, 0, 3])
def test_a_finished_command_ignores_late_signals(code: int | None) -> None:
    """After the command (returned, or exited with its own code) the stop signals are
    ignored until the process exits, so they cannot end it by the signal with no line."""
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)

    def command() -> None:
        if code is not None:
            sys.exit(code)

    if code is None:
        run_command(command)
    else:
        with pytest.raises(SystemExit) as exit_:
            run_command(command)
        assert exit_.value.code == code
    for s in STOPS:
        assert signal.getsignal(s) is signal.SIG_IGN
        signal.raise_signal(s)  # ignored: this test goes on
    assert _atomic._OPEN == []


def test_the_handler_ignores_signals_once_finished() -> None:
    """A signal handled between the command's end and the switch to SIG_IGN (Python
    runs handlers late, at the next call) changes nothing."""
    handler = interrupt._Handler()
    handler.finished = True
    assert handler(signal.SIGINT, None) is None
    assert handler.first is None
    handler.finished = False
    with pytest.raises(Interrupted):
        handler(signal.SIGTERM, None)


def test_main_ignores_signals_after_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anonkit.cli.main import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_main_interrupted_after_init_wrote_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real command: ``anonkit init`` is stopped just after its configuration was
    committed, while it prints its table."""
    from anonkit.cli import init
    from anonkit.cli.main import main

    monkeypatch.chdir(tmp_path)
    Path("data.csv").write_text(
        "age,zip,disease\n" + "".join(f"{20 + i % 40},{10000 + i},d{i % 3}\n" for i in range(60)),
        encoding="utf-8",
    )

    def write_then_ctrl_c(path: Path, text: str) -> None:
        atomic_write_text(path, text)
        _ctrl_c()

    monkeypatch.setattr(init, "atomic_write_text", write_then_ctrl_c)
    with pytest.raises(SystemExit) as exit_:
        main(["init", "data.csv", "--output", "starter.toml", "--quiet"])
    assert exit_.value.code == EXIT_CODE
    assert capsys.readouterr().err == "Interrupted; already written: starter.toml.\n"
    assert "[privacy]" in Path("starter.toml").read_text(encoding="utf-8")


# ------------------------------------------------------------------ subprocesses
def _child(code: str, cwd: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _read_marker(proc: subprocess.Popen[str], marker: str) -> None:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if line.strip() != marker:  # pragma: no cover - the failure being reported
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"the child did not print {marker!r} but {line!r}: {err[-2000:]}")


def test_process_interrupted_after_a_commit(tmp_path: Path) -> None:
    """Ctrl-C to a process whose command has committed its release: exit 130 and a line
    that names the release."""
    proc = _child(
        """
        import time
        from pathlib import Path
        from anonkit._atomic import atomic_write_text
        from anonkit.cli.interrupt import run_command

        def command():
            atomic_write_text(Path("out") / "release.csv", "a\\n1\\n")
            print("written", flush=True)
            time.sleep(30)  # still busy when Ctrl-C comes

        run_command(command)
        """,
        tmp_path,
    )
    _read_marker(proc, "written")
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == EXIT_CODE, err
    assert err == "Interrupted; already written: out/release.csv.\n"
    assert (tmp_path / "out" / "release.csv").read_text(encoding="utf-8") == "a\n1\n"


def test_process_ignores_signals_once_main_finished(tmp_path: Path) -> None:
    """Ctrl-C, SIGTERM and SIGHUP after ``main()`` finished (the process is on its way
    out): exit code 0, nothing on stderr; they ended it by SIGINT (-2) with no line."""
    (tmp_path / "data.csv").write_text(
        "age,zip\n" + "".join(f"{20 + i % 40},{10000 + i}\n" for i in range(30)),
        encoding="utf-8",
    )
    proc = _child(
        """
        import sys
        from anonkit.cli.main import main

        try:
            main(["init", "data.csv", "--output", "starter.toml", "--quiet"])
        finally:
            print("finished", flush=True)
            sys.stdin.readline()  # the signals come now; then the process exits
        """,
        tmp_path,
    )
    _read_marker(proc, "finished")
    for signum in STOPS:
        os.killpg(proc.pid, signum)
    time.sleep(0.1)  # delivered (and ignored) before the child reads on
    out, err = proc.communicate("go\n", timeout=10)
    assert proc.returncode == 0, err
    assert err == ""
    assert (tmp_path / "starter.toml").is_file()


def test_the_streamed_release_is_noted_once_published(tmp_path: Path) -> None:
    """The streaming engine's verified release is moved into place without
    :func:`atomic_path`; it is noted too (a folder of part files as one output)."""
    from anonkit.estimators.steps import _publish

    (tmp_path / "staging.csv").write_text("a\n1\n", encoding="utf-8")
    parts = tmp_path / "staging_parts"
    parts.mkdir()
    (parts / "part-0.csv").write_text("a\n1\n", encoding="utf-8")
    with CommitLog() as log:
        _publish(tmp_path / "staging.csv", tmp_path / "release.csv")
        _publish(parts, tmp_path / "release_parts")
    assert log.paths == [tmp_path / "release.csv", tmp_path / "release_parts"]


def test_a_staging_file_removed_after_it_was_written_is_not_said_written(
    tmp_path: Path,
) -> None:
    """A Ctrl-C (or an input change caught) while a streamed release was verified said
    'already written: .release.staging.csv', a file removed by then."""
    from anonkit.estimators.steps import _remove

    staging = tmp_path / ".release.staging.csv"
    with CommitLog() as log:
        atomic_write_text(tmp_path / "summary.json", "{}")
        atomic_write_text(staging, "a\n1\n")
        _remove(staging)
    assert log.paths == [tmp_path / "summary.json"]
