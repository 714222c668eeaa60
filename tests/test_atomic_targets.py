"""What an atomic write replaces: a symbolic link is written through at its target, a FIFO,
device or socket is refused before any work, and a rewritten file keeps its permissions."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from anonkit._atomic import atomic_path, atomic_write, atomic_write_text
from anonkit.cli.main import app
from anonkit.exceptions import OutputLocationError
from anonkit.io.write import check_output, check_outputs

runner = CliRunner()


def _fifo(folder: Path) -> Path:
    path = folder / "fifo"
    os.mkfifo(path)
    return path


def _device(folder: Path) -> Path:
    """A copy of the /dev/null device node (1, 3) made in ``folder``: root only."""
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    path = folder / "null"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except OSError as err:
        pytest.skip(f"mknod refused here: {err}")
    return path


@contextlib.contextmanager
def _socket(folder: Path) -> Iterator[Path]:
    path = folder / "sock"
    if len(str(path)) > 100:
        pytest.skip("the folder's name is too long for a Unix socket")
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        yield path
    finally:
        server.close()


SPECIALS: dict[str, Callable[[Path], Path]] = {"fifo": _fifo, "device": _device}


def _kind(path: Path) -> int:
    return stat.S_IFMT(os.lstat(path).st_mode)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# --- symbolic links are written through ---------------------------------------------


def test_a_symlink_keeps_being_a_link_and_its_target_gets_the_text(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    target = shared / "history.json"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "hist.json"
    link.symlink_to(Path("shared") / "history.json")  # relative, as ln -s makes it
    atomic_write_text(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(Path("shared") / "history.json")
    assert target.read_text(encoding="utf-8") == "new"
    assert _leftovers(tmp_path) == [] and _leftovers(shared) == []


def test_a_chain_of_links_is_followed_to_the_file(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("old", encoding="utf-8")
    (tmp_path / "one").symlink_to(target)
    (tmp_path / "two").symlink_to(tmp_path / "one")
    atomic_write_text(tmp_path / "two", "new")
    assert (tmp_path / "two").is_symlink() and (tmp_path / "one").is_symlink()
    assert target.read_text(encoding="utf-8") == "new"


def test_a_dangling_link_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "out.txt"
    link.symlink_to(tmp_path / "missing.txt")
    atomic_write_text(link, "made")
    assert link.is_symlink()
    assert (tmp_path / "missing.txt").read_text(encoding="utf-8") == "made"


def test_a_link_loop_is_refused(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop")
    with pytest.raises(OutputLocationError, match="loop"):
        atomic_write_text(loop, "x")
    assert loop.is_symlink()
    with pytest.raises(OutputLocationError, match="loop"):
        check_output(loop, [])


def test_a_release_history_kept_as_a_link_stays_shared(tmp_path: Path) -> None:
    ids = [f"p{i}" for i in range(12)]
    frame = pl.DataFrame(
        {
            "pid": ids,
            "age": [str(20 + i) for i in range(12)],
            "disease": [["flu", "hiv", "cancer", "asthma"][i % 4] for i in range(12)],
        }
    )
    frame.write_csv(tmp_path / "t.csv")
    (tmp_path / "shared").mkdir()
    shared = tmp_path / "shared" / "history.json"
    args = ["--id-column", "pid", "--qi", "age", "--sensitive", "disease", "--m", "3",
            "--numeric", "age", "-q"]  # fmt: skip
    first = runner.invoke(
        app, ["release", str(tmp_path / "t.csv"), "--history", str(shared),
              "-o", str(tmp_path / "r1.csv"), *args],
    )  # fmt: skip
    assert first.exit_code == 0, first.output
    link = tmp_path / "hist.json"
    link.symlink_to(Path("shared") / "history.json")
    second = runner.invoke(
        app, ["release", str(tmp_path / "t.csv"), "--history", str(link),
              "-o", str(tmp_path / "r2.csv"), *args],
    )  # fmt: skip
    assert second.exit_code == 0, second.output
    assert link.is_symlink()
    assert link.read_text(encoding="utf-8") == shared.read_text(encoding="utf-8")
    assert json.loads(shared.read_text(encoding="utf-8"))["releases"] == 2


# --- FIFOs, devices and sockets are refused ------------------------------------------


@pytest.mark.parametrize("kind", sorted(SPECIALS))
def test_atomic_path_refuses_a_special_file_before_the_work(tmp_path: Path, kind: str) -> None:
    special = SPECIALS[kind](tmp_path)
    before = _kind(special)
    called: list[Path] = []
    with pytest.raises(OutputLocationError, match="not a regular file") as err:
        atomic_write(special, called.append)
    assert str(special) in str(err.value) and err.value.exit_code == 2
    assert called == [] and _kind(special) == before and _leftovers(tmp_path) == []


@pytest.mark.parametrize("kind", sorted(SPECIALS))
def test_a_link_to_a_special_file_is_refused(tmp_path: Path, kind: str) -> None:
    special = SPECIALS[kind](tmp_path)
    link = tmp_path / "out.json"
    link.symlink_to(special)
    with pytest.raises(OutputLocationError, match="not a regular file"):
        atomic_write_text(link, "x")
    with pytest.raises(OutputLocationError, match="not a regular file"):
        check_output(link, [])
    assert link.is_symlink() and _kind(special) != stat.S_IFREG


@pytest.mark.parametrize("kind", sorted(SPECIALS))
def test_the_output_checks_refuse_a_special_file(tmp_path: Path, kind: str) -> None:
    special = SPECIALS[kind](tmp_path)
    with pytest.raises(OutputLocationError, match="not a regular file") as err:
        check_output(special, [])
    assert str(special) in str(err.value)
    with pytest.raises(OutputLocationError, match="not a regular file"):
        check_outputs({"--json": special}, [])
    assert _kind(special) != stat.S_IFREG


def test_a_socket_is_refused(tmp_path: Path) -> None:
    with _socket(tmp_path) as sock:
        with pytest.raises(OutputLocationError, match="not a regular file"):
            check_output(sock, [])
        with pytest.raises(OutputLocationError, match="not a regular file"):
            atomic_write_text(sock, "x")
        assert _kind(sock) == stat.S_IFSOCK


def test_a_folder_is_refused_by_atomic_path_too(tmp_path: Path) -> None:
    with pytest.raises(OutputLocationError, match="folder"):
        with atomic_path(tmp_path):
            pass
    assert tmp_path.is_dir()


def test_the_cli_refuses_a_fifo_with_exit_code_2(tmp_path: Path) -> None:
    pl.DataFrame({"pid": ["a"], "age": ["1"], "disease": ["flu"]}).write_csv(tmp_path / "t.csv")
    fifo = tmp_path / "c.csv"
    os.mkfifo(fifo)
    res = runner.invoke(
        app, ["release", str(tmp_path / "t.csv"), "--history", str(tmp_path / "h.json"),
              "--counterfeits", str(fifo), "-o", str(tmp_path / "r.csv"),
              "--id-column", "pid", "--qi", "age",
              "--sensitive", "disease", "--m", "3"],
    )  # fmt: skip
    assert res.exit_code == 2, res.output
    assert "not a regular file" in res.output and _kind(fifo) == stat.S_IFIFO


# --- permissions ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o604, 0o755])
def test_a_rewritten_file_keeps_its_mode(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "history.json"
    path.write_text("old", encoding="utf-8")
    path.chmod(mode)
    atomic_write_text(path, "new")
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert path.read_text(encoding="utf-8") == "new"


def test_a_link_target_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o600)
    (tmp_path / "link.json").symlink_to(target)
    atomic_write_text(tmp_path / "link.json", "new")
    assert (tmp_path / "link.json").is_symlink() and target.read_text(encoding="utf-8") == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_a_new_file_gets_the_umask_default(tmp_path: Path) -> None:
    umask = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "new.txt", "x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640


# --- a name too long ------------------------------------------------------------------


def test_a_name_too_long_is_an_output_location_error(tmp_path: Path) -> None:
    long = tmp_path / ("x" * 300 + ".csv")
    for check in (lambda: check_output(long, []), lambda: check_outputs({"-o": long}, [])):
        with pytest.raises(OutputLocationError, match="too long for the file system"):
            check()


def test_the_cli_reports_a_name_too_long_with_exit_code_2(tmp_path: Path) -> None:
    pl.DataFrame({"pid": ["a"], "age": ["1"], "disease": ["flu"]}).write_csv(tmp_path / "t.csv")
    res = runner.invoke(
        app, ["release", str(tmp_path / "t.csv"), "--history", str(tmp_path / "h.json"),
              "-o", str(tmp_path / ("x" * 300 + ".csv")), "--id-column", "pid", "--qi", "age",
              "--sensitive", "disease", "--m", "3"],
    )  # fmt: skip
    assert res.exit_code == 2, res.output
    assert "too long for the file system" in res.output


# --- a writer that is still running when it fails ---------------------------------------


def test_a_late_write_after_a_failure_leaves_nothing(tmp_path: Path) -> None:
    """polars' streaming sink can report an error while one of its threads has yet to
    open the temporary file: under load that thread then created it after the cleanup and
    a '.release.parquet.*.tmp' stayed beside the output. Here a thread plays that sink."""
    target = tmp_path / "release.parquet"
    opened = threading.Event()
    late: list[BaseException] = []

    def sink(path: Path) -> None:
        opened.wait(5)
        try:
            path.write_bytes(b"PAR1")
        except OSError as err:  # the staging place is gone: what the fix wants
            late.append(err)

    with pytest.raises(RuntimeError, match="sink failed"), atomic_path(target) as tmp:
        writer = threading.Thread(target=sink, args=(tmp,))
        writer.start()
        raise RuntimeError("sink failed")
    opened.set()
    writer.join(5)
    assert sorted(p.name for p in tmp_path.rglob("*")) == []
    assert late, "the late write found a place to write"


def test_a_committed_write_leaves_only_the_file(tmp_path: Path) -> None:
    target = tmp_path / "release.csv"
    with atomic_path(target) as tmp:
        tmp.write_text("a\n1\n", encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir()] == ["release.csv"]
