"""What the browser tests share: finding Debian's Chromium, the app as a subprocess, and
small page actions. Skips (with the reason) when Playwright, Shiny or Chromium is missing;
no browser is ever downloaded."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: How long a page step may take. The app's first run in a server process compiles its
#: kernels, and CI shares two cores between two test workers: one clean-clone run saw the
#: Adult load summary miss 20 s (it takes about 5 s alone).
TIMEOUT_MS = 60_000
#: Cell values the tests put in pages; none may reach the server's output.
SHOWN_VALUES = ("PhD", "Never-married")


def sync_api() -> Any:
    """Playwright's sync API, or skip with the reason."""
    pytest.importorskip("shiny", reason="the app needs Shiny (the app extra)")
    api = pytest.importorskip(
        "playwright.sync_api", reason="the browser tests need Playwright (the dev extra)"
    )
    if CHROMIUM is None:
        pytest.skip(
            "no Chromium found (apt-get install chromium); never downloaded",
            allow_module_level=True,
        )
    api.expect.set_options(timeout=TIMEOUT_MS)  # the machines are small and shared
    return api


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_app() -> Iterator[str]:
    """``anonkit app --no-browser`` in a subprocess; its URL. At the end: nothing of the
    data reached the server's output, and no traceback did."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "anonkit", "app", "--no-browser", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if proc.poll() is not None:
                    out = proc.stdout.read() if proc.stdout else ""
                    raise RuntimeError(f"anonkit app exited: {out}") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        try:
            out, _ = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    assert not [v for v in SHOWN_VALUES if v in out]
    assert "Traceback" not in out  # every failure is told in the page, none logged raw


def launch(api: Any) -> Iterator[Any]:
    """Headless Chromium (Debian's), closed at the end."""
    with api.sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def new_page(browser: Any, url: str, **options: Any) -> Any:
    page = browser.new_page(viewport={"width": 1400, "height": 900}, **options)
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    return page


def shot(page: Any, name: str) -> None:
    """A full-page screenshot in ``$ANONKIT_APP_SCREENSHOTS`` (docs/app), if set."""
    folder = os.environ.get("ANONKIT_APP_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def fill(page: Any, selector: str, value: str) -> None:
    """Type into a field and leave it (Shiny reads text fields when they change)."""
    field = page.locator(selector)
    field.fill(value)
    field.press("Tab")


def step(page: Any, name: str) -> None:
    page.get_by_role("tab", name=name).click()


def load_adult(page: Any, api: Any) -> None:
    """Load the bundled Adult (the default source) and open the Roles page."""
    page.get_by_role("button", name="Load", exact=True).click()
    api.expect(page.locator("#load-summary")).to_contain_text("30,162 records")
    page.get_by_role("button", name="Next: roles").click()
    api.expect(page.locator("#no-leaks")).to_be_visible()


def cli_release(config: Path, out: Path) -> bytes:
    """The release ``anonkit anonymize`` writes for ``config``."""
    done = subprocess.run(
        [sys.executable, "-m", "anonkit", "anonymize", str(config), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return out.read_bytes()


def download(page: Any, selector: str, target: Path) -> Path:
    """Click a download button and save what it sends."""
    with page.expect_download() as got:
        page.locator(selector).click()
    got.value.save_as(target)
    return target
