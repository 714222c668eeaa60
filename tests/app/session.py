"""A Shiny session without a browser: the app's steps wired on a real ``AppSession``
over a connection that records what the server sends, inputs set as the browser sets
them, and the reactive graph flushed as after each browser message."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from shiny import App, ui
from shiny._connection import MockConnection
from shiny.bookmark._restore_state import RestoreContext
from shiny.reactive import flush, isolate
from shiny.session import session_context
from shiny.session._session import AppSession

from anonkit.app.state import AppState

#: The inputs of the Load page as the browser first reports them.
LOAD_INPUTS: dict[str, object] = {
    "source": "path",
    "path": "",
    "separator": "",
    "encoding": "utf-8",
    "missing": "",
    "strip": "auto",
    "decimal_comma": "auto",
    "load": 0,
}


class _Recording(MockConnection):
    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.sent: list[dict[str, Any]] = []
        self.closed = False

    async def send(self, message: str) -> None:
        self.sent.append(json.loads(message))

    async def close(self, code: int, reason: str | None) -> None:
        self.closed = True


class Harness:
    """One session with the given step modules wired, in page order."""

    def __init__(self, steps: Iterable[ModuleType], workdir: Path, **inputs: object) -> None:
        self.conn = _Recording()
        app = App(ui.page_fluid(), None)
        self.session = AppSession(app, "test", self.conn)
        app._sessions["test"] = self.session  # so that an unhandled error can close it
        self.state = AppState(None, workdir)
        self._loop = asyncio.new_event_loop()
        # as the "init" message does (Shiny's private API: the harness follows its version)
        self.session.bookmark._set_restore_context(RestoreContext())  # type: ignore[attr-defined,no-untyped-call]
        with session_context(self.session):
            self.session._manage_inputs({**LOAD_INPUTS, **inputs})
            for step in steps:
                step.wire(self.session.input, self.session.output, self.state)
        self.flush()

    def set(self, **inputs: object) -> None:
        """Inputs changed in the browser, then the flush that follows."""
        with session_context(self.session):
            self.session._manage_inputs(inputs)
        self.flush()

    def flush(self, wait: float = 0.0) -> None:
        async def run() -> None:
            if wait:
                await asyncio.sleep(wait)
            with session_context(self.session):
                await flush()

        # in a thread of its own: a test before may leave a loop running in this one
        # (Playwright's sync API does), and asyncio runs one loop per thread
        failed: list[BaseException] = []

        def go() -> None:
            try:
                self._loop.run_until_complete(run())
            except BaseException as err:  # handed back to the test's thread
                failed.append(err)

        worker = threading.Thread(target=go)
        worker.start()
        worker.join()
        if failed:
            raise failed[0]

    def read(self, value: Callable[[], Any]) -> Any:
        """A reactive value or calculation of the session, read outside the graph."""
        with session_context(self.session), isolate():
            return value()

    def selects(self, output: str) -> list[tuple[str, str]]:
        """The id and selected value of every ``<select>`` an output last rendered."""
        html = self.session._outbound_message_queues.values[output]["html"]
        found = []
        for select in re.finditer(r'<select[^>]*id="([^"]+)"[^>]*>(.*?)</select>', html, re.S):
            chosen = re.search(r'<option value="([^"]*)" selected>', select.group(2))
            found.append((select.group(1), chosen.group(1) if chosen else ""))
        return found

    def html(self, output: str) -> str:
        """The HTML an output last rendered (``""`` before it rendered, or when empty)."""
        queued = self.session._outbound_message_queues.values
        sent = [m["values"] for m in self.conn.sent if output in m.get("values", {})]
        found = queued[output] if output in queued else (sent[-1][output] if sent else None)
        return str(found.get("html", "")) if isinstance(found, dict) else ""

    def notifications(self) -> list[str]:
        """The HTML of every notification shown so far."""
        return [
            m["notification"]["message"]["html"]
            for m in self.conn.sent
            if m.get("notification", {}).get("type") == "show"
        ]

    def close(self) -> None:
        self._loop.close()
