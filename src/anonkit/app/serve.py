"""Run the app on a local address: loopback by default, uploads in a folder removed at exit.

:func:`check_host` refuses an address other than loopback unless the user named it
(``--host``), and then returns a warning to print: the app shows the data to whoever
connects, with no login. On a loopback address the server also refuses requests addressed
to any other name (a web page rebinding its domain name to 127.0.0.1 cannot read the
data), and on any address it refuses requests a browser sends for a page of another site
(a page open in another tab cannot open the app's WebSocket). :func:`serve` runs the
app with uvicorn (access log off: nothing about the data or the requests is logged) and
removes the temporary folder at exit.
"""

from __future__ import annotations

import contextlib
import ipaddress
import shutil
import signal
import tempfile
import threading
import webbrowser
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from anonkit.app.guard import ExportFailedError
from anonkit.exceptions import ParameterError

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "check_host", "is_loopback", "serve"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (``localhost``, 127.0.0.0/8, ``::1``).

    Examples
    --------
    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_host(host: str | None, *, explicit: bool) -> tuple[str, str | None]:
    """The address to bind and a warning to print when it is not loopback.

    Raises
    ------
    ParameterError
        If ``host`` is not loopback and was not given explicitly (``--host``).
    """
    chosen = host or DEFAULT_HOST
    if is_loopback(chosen):
        return chosen, None
    if not explicit:
        raise ParameterError(
            "host", "anonkit app", "a loopback address unless given with --host", chosen
        )
    return chosen, (
        f"the app listens on {chosen}: anyone who can reach this address sees the data "
        "and the release, with no login; use it only on a network you trust."
    )


def serve(
    data: Path | None = None,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    open_browser: bool = True,
    ready: threading.Event | None = None,
) -> None:
    """Serve the app until interrupted; the temporary folder is removed at exit.

    The folder holds the uploads (Shiny's upload folders too: the process's temporary
    directory points into it while the app runs) and the exports before download. It goes
    whichever way the server stops: Ctrl-C, ``kill`` (SIGTERM) or a closed terminal
    (SIGHUP); the last two then end the process with ``128 + signal`` as its exit code.
    """
    import uvicorn

    from anonkit.app.server import create_app

    workdir = Path(tempfile.mkdtemp(prefix="anonkit-app-"))
    previous = tempfile.tempdir
    tempfile.tempdir = str(workdir)  # Shiny's own upload folders go in there too
    try:
        # beyond this machine, whoever reaches the page must not name the server's files
        app: Any = _same_origin_only(
            _quiet_failed_exports(create_app(data, workdir=workdir, server_files=is_loopback(host)))
        )
        if is_loopback(host):
            app = _loopback_names_only(app, host)
        config = uvicorn.Config(
            app, host=host, port=port, log_level="warning", access_log=False, lifespan="on"
        )
        server = uvicorn.Server(config)
        url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
        if open_browser or ready is not None:
            _when_started(server, url if open_browser else None, ready)
        with _stop_on_termination(server) as received:
            server.run()
    finally:
        tempfile.tempdir = previous
        shutil.rmtree(workdir, ignore_errors=True)
    if received:
        raise SystemExit(128 + received[0])


#: Signals that stop the server like Ctrl-C instead of killing the process on the spot.
_TERMINATION = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)


@contextlib.contextmanager
def _stop_on_termination(server: Any) -> Iterator[list[int]]:
    """SIGTERM and SIGHUP ask ``server`` to stop; the list receives their numbers.

    Without this, SIGHUP killed the process at once, and uvicorn, which handles SIGTERM
    itself, re-raised it after its shutdown with the default handler back in place: in
    both cases the process died before the temporary folder was removed. Only the main
    thread can install handlers; elsewhere the block runs without them.
    """
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def stop(signum: int, frame: object) -> None:
        received.append(signum)
        server.should_exit = True

    previous = {signum: signal.signal(signum, stop) for signum in _TERMINATION}
    try:
        yield received
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _loopback_names_only(app: Any, host: str) -> Any:
    """``app`` answering only requests addressed to a loopback name: a web page that
    rebinds its own domain name to 127.0.0.1 (DNS rebinding) cannot read the data."""
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    names = ["127.0.0.1", "localhost", "::1", "[::1]", host]
    return TrustedHostMiddleware(app, allowed_hosts=names, www_redirect=False)


def _same_origin_only(app: Any) -> Any:
    """``app`` refusing requests whose ``Origin`` is not the address they are sent to.

    Browsers send the page's origin with every WebSocket opening and every POST, but send
    the request to the app's own address, so the Host check above lets through a page of
    another site that connects to ``ws://127.0.0.1:8765`` (cross-site WebSocket
    hijacking): it could load a file by its path and read the preview. A request with no
    ``Origin`` does not come from another site's page, and passes.
    """

    async def same_origin(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = dict(scope.get("headers") or ())
            origin = headers.get(b"origin")
            host = _origin_address("http://" + headers.get(b"host", b"").decode("latin-1"))
            if origin is not None and _origin_address(origin.decode("latin-1")) != host:
                if scope["type"] == "websocket":  # closed before accepting: a 403
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await _plain_response(send, 403, b"Cross-origin request.")
                return
        await app(scope, receive, send)

    return same_origin


def _origin_address(origin: str) -> str | None:
    """The ``host:port`` an ``Origin`` header names, as a Host header names it (the
    scheme's port left out), or ``None`` for ``null`` and other opaque origins."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    name = parts.hostname.lower()
    name = f"[{name}]" if ":" in name else name
    default = 80 if parts.scheme == "http" else 443
    return name if port in (None, default) else f"{name}:{port}"


def _quiet_failed_exports(app: Any) -> Any:
    """``app`` answering a failed download (:class:`~anonkit.app.guard.ExportFailedError`:
    the page has told the user why) with a plain error response, and no traceback in
    the server's output, where the web server would print one for any error."""

    async def quiet(scope: Any, receive: Any, send: Any) -> None:
        started = False

        async def sending(message: Any) -> None:
            nonlocal started
            started = started or message.get("type") == "http.response.start"
            await send(message)

        try:
            await app(scope, receive, sending)
        except ExportFailedError:
            if started:  # Starlette answered 500 before passing the error on
                return
            await _plain_response(send, 500, b"The export failed.")

    return quiet


async def _plain_response(send: Any, status: int, body: bytes) -> None:
    """Answer with ``status`` and the plain text ``body``."""
    headers = [(b"content-type", b"text/plain; charset=utf-8")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _when_started(server: Any, url: str | None, ready: threading.Event | None) -> None:
    def wait() -> None:
        while not server.started and not server.should_exit:
            threading.Event().wait(0.05)
        if server.started:
            if ready is not None:
                ready.set()
            if url is not None:
                webbrowser.open(url)

    threading.Thread(target=wait, daemon=True).start()
