"""The command: loopback by default, a warning for another address, Shiny imported only
when the app starts, and the temporary folder removed at exit."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from anonkit.app.serve import DEFAULT_HOST, check_host, is_loopback
from anonkit.cli.main import app
from anonkit.exceptions import ParameterError
from fresh_python import fresh_stdout

pytest.importorskip("shiny", reason="the app needs Shiny (the app extra)")


def test_loopback_by_default_and_a_warning_for_other_hosts() -> None:
    assert check_host(None, explicit=False) == (DEFAULT_HOST, None)
    assert check_host("::1", explicit=True) == ("::1", None)
    host, warning = check_host("0.0.0.0", explicit=True)
    assert host == "0.0.0.0" and warning is not None and "no login" in warning
    with pytest.raises(ParameterError, match="--host"):
        check_host("192.168.1.5", explicit=False)
    assert not is_loopback("example.org")


def test_cli_help_lists_the_options() -> None:
    out = CliRunner().invoke(app, ["app", "--help"], terminal_width=200).output
    for option in ("--port", "--host", "--no-browser", "DATA"):
        assert option in out


def test_the_command_line_does_not_import_shiny() -> None:
    code = "import sys, anonkit.cli.main\nprint('shiny' in sys.modules)"
    assert fresh_stdout(code) == "False"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _status(port: int, host_header: str) -> int:
    return _get(port, host_header)[0]


def _get(port: int, host_header: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/", headers={"Host": host_header})
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


def _wait_for(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)


def test_loopback_server_answers_only_loopback_names(tmp_path: Path) -> None:
    port = _free_port()
    data = tmp_path / "t.csv"
    data.write_text("age,town\n31,Zyzzyva\n45,Quixotic\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "anonkit", "app", str(data), "--no-browser", "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(port)
        assert _status(port, f"127.0.0.1:{port}") == 200
        assert _status(port, f"localhost:{port}") == 200
        assert _status(port, f"attacker.example:{port}") == 400
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    assert "warning" not in err
    assert "Zyzzyva" not in out + err  # no record value printed


def _handshake(port: int, origin: str | None, path: str = "/websocket/") -> int:
    """The status of a WebSocket opening handshake sent with ``origin``."""
    headers = {
        "Host": f"127.0.0.1:{port}",
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
    }
    if origin is not None:
        headers["Origin"] = origin
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers=headers)
        return conn.getresponse().status
    finally:
        conn.close()


def test_pages_of_other_sites_cannot_talk_to_the_app(tmp_path: Path) -> None:
    # Cross-site WebSocket hijacking: any page open in the browser could connect to
    # ws://127.0.0.1:8765/websocket/ (the Host header is the app's own), load a file by
    # its path and read its records from the preview.
    port = _free_port()
    cmd = [sys.executable, "-m", "anonkit", "app", "--no-browser", "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(port)
        assert _handshake(port, f"http://127.0.0.1:{port}") == 101
        assert _handshake(port, None) == 101  # not a browser: it could send any Origin
        for origin in (f"http://evil.test:{port}", "null", f"http://127.0.0.1:{port + 1}"):
            assert _handshake(port, origin) == 403, origin
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request("POST", "/", body=b"x", headers={"Origin": "https://evil.test"})
            assert conn.getresponse().status == 403
        finally:
            conn.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=20)


def test_server_listens_on_loopback_warns_and_cleans_up(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    cmd = [sys.executable, "-m", "anonkit", "app", "--no-browser", "--port", str(port)]
    proc = subprocess.Popen(
        [*cmd, "--host", "0.0.0.0"], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        _wait_for(port)
        status, page = _get(port, f"attacker.example:{port}")
        assert status == 200  # any name, as asked
        assert 'value="upload"' in page and 'value="path"' not in page  # no server path
        ours = [p for p in tmp_path.iterdir() if p.name.startswith("anonkit-app-")]
        assert len(ours) == 1 and ours[0].is_dir()
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    assert "warning:" in err and "0.0.0.0" in err
    assert not any(p.name.startswith("anonkit-app") for p in tmp_path.iterdir())


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_stop_by_kill_or_closed_terminal_removes_the_uploads_too(
    tmp_path: Path, signame: str
) -> None:
    """``kill`` (a service manager's stop) and a closed terminal end the app like Ctrl-C:
    the folder with the uploaded records goes. uvicorn re-raises the signal it caught
    after its shutdown, which killed the process before the folder was removed."""
    port = _free_port()
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    cmd = [sys.executable, "-m", "anonkit", "app", "--no-browser", "--port", str(port)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(port)
        assert [p for p in tmp_path.iterdir() if p.name.startswith("anonkit-app-")]
    finally:
        proc.send_signal(getattr(signal, signame))
        _, err = proc.communicate(timeout=20)
    assert not any(p.name.startswith("anonkit-app") for p in tmp_path.iterdir())
    assert proc.returncode == 128 + getattr(signal, signame)
    assert "Traceback" not in err


def test_each_session_gets_its_own_folder_removed_when_it_ends(tmp_path: Path) -> None:
    from anonkit.app.server import _session_folder

    class Session:
        def __init__(self) -> None:
            self.ended: list[Any] = []

        def on_ended(self, callback: Any) -> None:
            self.ended.append(callback)

    one, two = Session(), Session()
    first, second = _session_folder(tmp_path, one), _session_folder(tmp_path, two)  # type: ignore[arg-type]
    assert first != second and first.parent == second.parent == tmp_path
    (first / "uploads").mkdir()
    (first / "uploads" / "people.csv").write_text("a\n1\n", encoding="utf-8")
    for callback in one.ended:
        callback()
    assert not first.exists() and second.exists()


def test_beyond_loopback_the_page_reads_no_file_named_on_it(tmp_path: Path) -> None:
    """On a network address whoever reaches the page could read any file of the server
    through the path fields (table, hierarchy, population): only this session's uploads,
    the bundled data and the table given at start are read then."""
    from anonkit.app import pages
    from anonkit.app.state import AppState
    from anonkit.datasets import adult_path
    from anonkit.exceptions import ConfigError

    given = tmp_path / "given.csv"
    remote = AppState(given, tmp_path / "session", server_files=False)
    for allowed in (tmp_path / "session" / "uploads" / "t.csv", given, adult_path() / "adult.csv"):
        assert remote.readable(allowed) == allowed
    for refused in (Path("/etc/passwd"), tmp_path / "session" / ".." / "given2.csv"):
        with pytest.raises(ConfigError, match="upload the file instead"):
            remote.readable(refused)
    local = AppState(None, tmp_path / "session")
    assert local.readable(Path("/etc/hostname")) == Path("/etc/hostname")
    assert 'value="path"' not in str(pages.page(None, server_files=False))
    assert 'value="path"' in str(pages.page(None)) and 'value="path"' in str(
        pages.page(given, server_files=False)
    )


def test_the_app_shows_warnings_on_its_pages_not_on_the_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run in the app that keeps a near-unique column, or stars a column without a
    hierarchy, says so on the Roles and Explore pages; the Python warnings the API
    issues for the same (LeakWarning, SuppressedColumnWarning) stay off the terminal."""
    import warnings

    from anonkit.app import serve as serving
    from anonkit.exceptions import LeakWarning, SuppressedColumnWarning

    seen: list[str] = []

    def fake_serve(*args: Any, **kwargs: Any) -> None:  # the server, as the command runs it
        with warnings.catch_warnings(record=True) as caught:
            leak = LeakWarning("ref", "unique", "Column 'ref' is near-unique.")
            warnings.warn(leak, stacklevel=1)
            warnings.warn(SuppressedColumnWarning(["age"]), stacklevel=1)
            warnings.warn("another warning", UserWarning, stacklevel=1)
        seen.extend(type(w.message).__name__ for w in caught)

    monkeypatch.setattr(serving, "serve", fake_serve)
    with warnings.catch_warnings():  # the command's filters end with the test
        res = CliRunner().invoke(app, ["app", "--no-browser", "--port", "8799"])
    assert res.exit_code == 0, res.output
    assert seen == ["UserWarning"]


def test_a_failed_export_is_answered_without_a_traceback() -> None:
    """A download whose failure the page told (ExportFailedError) reached the web server,
    which printed "Exception in ASGI application" with a traceback."""
    import asyncio
    import threading

    from anonkit.app.guard import ExportFailedError
    from anonkit.app.serve import _quiet_failed_exports

    async def failing(scope: Any, receive: Any, send: Any) -> None:
        raise ExportFailedError("Writing the release (CSV) failed (NotReadyError).")

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    # in a thread of its own: a browser test before leaves a loop running in this one
    worker = threading.Thread(
        target=lambda: asyncio.run(_quiet_failed_exports(failing)({"type": "http"}, None, send))
    )
    worker.start()
    worker.join()
    assert sent[0]["status"] == 500 and sent[-1]["body"] == b"The export failed."
