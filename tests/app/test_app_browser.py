"""``anonkit app`` end to end in a real browser (Debian's Chromium, driven by Playwright).

The app runs as the command (``anonkit app --no-browser --port N``) in a subprocess; the
test loads the bundled Adult, accepts the proposed roles (no leaks), keeps the bundled
hierarchies, sets k = 5, runs, explores, exports the release and the TOML, and checks
that ``anonkit anonymize`` on the exported TOML writes the same release. Skipped with the
reason when Playwright or Chromium is missing. Set ``ANONKIT_APP_SCREENSHOTS`` to a
folder (docs/app) to keep a screenshot of every step.
"""

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

import polars as pl
import pytest

pytest.importorskip("shiny", reason="the app needs Shiny (the app extra)")
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="the browser tests need Playwright (the dev extra)"
)

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium found (apt-get install chromium); never downloaded"
)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 20_000
sync_api.expect.set_options(timeout=TIMEOUT_MS)  # the machines are small and shared


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def app_url() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "anonkit", "app", "--no-browser", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/"
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
        yield url
    finally:
        proc.terminate()
        try:
            out, _ = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    # nothing of the data reached the server's output (values shown in the page by the
    # tests: an education of the leaky table, a marital status of Adult)
    assert "PhD" not in out and "Never-married" not in out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def _shot(page: Any, name: str) -> None:
    folder = os.environ.get("ANONKIT_APP_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def _fill(page: Any, selector: str, value: str) -> None:
    """Type into a field and leave it (Shiny reads text fields when they change)."""
    field = page.locator(selector)
    field.fill(value)
    field.press("Tab")


def _step(page: Any, name: str) -> None:
    page.get_by_role("tab", name=name).click()


def test_adult_workflow_matches_the_cli(app_url: str, browser: Any, tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_url)

    # 1 Load: the bundled Adult is the default source
    page.get_by_role("button", name="Load", exact=True).click()
    sync_api.expect(page.locator("#load-summary")).to_contain_text("30,162 records")
    sync_api.expect(page.locator("#preview-table tbody tr")).to_have_count(10)
    _shot(page, "1-load")

    # 2 Roles: accept the proposals; no leaks
    page.get_by_role("button", name="Next: roles").click()
    sync_api.expect(page.locator("#roles tbody tr")).to_have_count(9)
    sync_api.expect(page.locator("#no-leaks")).to_be_visible()
    _shot(page, "2-roles")

    # 3 Hierarchies: the bundled files, previewed on the values
    page.get_by_role("button", name="Next: hierarchies").click()
    sync_api.expect(page.locator("#hier-summary tbody tr")).to_have_count(7)
    sync_api.expect(page.locator("#hier-preview-table")).to_be_visible()
    page.locator("#h_column").select_option("age")
    sync_api.expect(page.locator("#hier-preview-table thead")).to_contain_text("level 4")
    _shot(page, "3-hierarchies")

    # 4 Privacy: k = 5, suppression 5 %, algorithm auto
    _step(page, "Privacy")
    _fill(page, "#k", "5")
    _fill(page, "#suppression", "5")
    _shot(page, "4-privacy")

    # 5 Run
    _step(page, "Run")
    page.locator("#run").click()
    sync_api.expect(page.locator("#summary")).to_contain_text("achieved k")
    sync_api.expect(page.locator("#summary")).to_contain_text("yes")
    _shot(page, "5-run")

    # 6 Explore: alternatives, risk, distributions, loss
    _step(page, "Explore")
    sync_api.expect(page.locator("#alts tbody tr").first).to_contain_text("chosen")
    page.locator("#alt").select_option("1")  # inspect another private node
    sync_api.expect(page.locator("#alt_detail")).to_contain_text("An alternative")
    sync_api.expect(page.locator("#alt-figures")).to_contain_text("records suppressed")
    page.locator("#alt").select_option("0")
    sync_api.expect(page.locator("#risk")).to_contain_text("prosecutor")
    sync_api.expect(page.locator("#loss")).to_be_visible()
    _shot(page, "6-explore")

    # 7 Export: release and configuration
    _step(page, "Export")
    sync_api.expect(page.locator("#toml-preview")).to_contain_text("[privacy]")
    _shot(page, "7-export")
    with page.expect_download() as got:
        page.locator("#download_csv").click()
    release = tmp_path / got.value.suggested_filename
    got.value.save_as(release)
    with page.expect_download() as got:
        page.locator("#download_toml").click()
    config = tmp_path / "config.toml"
    got.value.save_as(config)
    page.close()

    cli_release = tmp_path / "cli.csv"
    done = subprocess.run(
        [sys.executable, "-m", "anonkit", "anonymize", str(config), "-o", str(cli_release)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert cli_release.read_bytes() == release.read_bytes()
    app_frame = pl.read_csv(release, separator=";", infer_schema=False)
    assert app_frame.height == 30162
    assert "k = 5" in config.read_text(encoding="utf-8")


def test_leaks_block_the_next_step_and_errors_show_next_to_their_field(
    app_url: str, browser: Any, leaky_csv: Path
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_url)

    # a missing file: the reader's message, under the Load button
    page.get_by_role("radio", name="File path").check()
    _fill(page, "#path", str(leaky_csv.with_name("missing.csv")))
    page.get_by_role("button", name="Load", exact=True).click()
    sync_api.expect(page.locator("#load_error")).to_contain_text("missing.csv")

    # the file uploaded instead: loaded when the upload ends
    page.locator("#upload").set_input_files(str(leaky_csv))
    sync_api.expect(page.get_by_role("radio", name="Upload a file")).to_be_checked()
    sync_api.expect(page.locator("#load-summary")).to_contain_text("80 records")
    page.get_by_role("button", name="Next: roles").click()
    sync_api.expect(page.locator("#no-leaks")).to_be_visible()

    # releasing education-num as is gives education away: red, and Next is refused
    role = page.locator("#role_3")  # education-num, the fourth column
    role.select_option("insensitive")
    sync_api.expect(page.locator("#leak-list .text-danger")).to_contain_text("education-num")
    sync_api.expect(page.locator("#role-row-3 .app-column")).to_have_css("color", "rgb(204, 0, 0)")
    _shot(page, "2b-leak")
    page.get_by_role("button", name="Next: hierarchies").click()
    sync_api.expect(page.get_by_role("tab", name="Roles")).to_have_attribute(
        "aria-selected", "true"
    )
    _step(page, "Hierarchies")
    sync_api.expect(page.locator("#hier_gate")).to_contain_text("Resolve the leaks")

    # resolved by removing it
    _step(page, "Roles")
    role.select_option("identifying")
    sync_api.expect(page.locator("#no-leaks")).to_be_visible()
    page.get_by_role("button", name="Next: hierarchies").click()
    sync_api.expect(page.locator("#hier-summary tbody tr")).to_have_count(3)

    # a hierarchy file that lacks a value: the run's message (naming the values, in the
    # page only), and the hierarchy in use stays
    partial = leaky_csv.with_name("education.csv")
    partial.write_text("HS;school;*\nBA;degree;*\nMA;degree;*\n", encoding="utf-8")
    page.locator("#h_column").select_option("education")
    sync_api.expect(page.locator("#h_type")).to_have_value("suppression")  # its proposal
    page.locator("#h_type").select_option("file")
    _fill(page, "#h_path", str(partial))
    page.locator("#h_apply").click()
    sync_api.expect(page.locator("#hier_error")).to_contain_text("not in the hierarchy")
    sync_api.expect(page.locator("#hier_error")).to_contain_text("PhD")

    # a bad builder: the builder's message under the editor; the stored one is kept
    page.locator("#h_column").select_option("age")
    sync_api.expect(page.locator("#h_type")).to_have_value("intervals")  # its proposal
    sync_api.expect(page.locator("#h_params")).to_have_value("widths = [5, 10, 20]")
    _fill(page, "#h_params", "widths = [5,")
    page.locator("#h_apply").click()
    sync_api.expect(page.locator("#hier_error")).to_contain_text("intervals parameters")
    _fill(page, "#h_params", "widths = [10, 20]")
    page.locator("#h_apply").click()
    sync_api.expect(page.locator("#hier-summary")).to_contain_text("widths = [10, 20]")
    sync_api.expect(page.locator("#hier_error")).to_be_empty()

    # bad privacy settings: the API's message under the settings
    _step(page, "Privacy")
    _fill(page, "#k", "0")
    sync_api.expect(page.locator("#settings_error")).to_contain_text("'k'")
    # a requirement the table cannot meet: the run's message on the Run page
    _fill(page, "#k", "500")
    _step(page, "Run")
    page.locator("#run").click()
    sync_api.expect(page.locator("#run_status .app-error")).to_be_visible()
    _step(page, "Privacy")
    _fill(page, "#k", "3")
    _fill(page, "#l", "2")
    sync_api.expect(page.locator("#settings_error")).to_be_empty()
    _step(page, "Run")
    page.locator("#run").click()
    sync_api.expect(page.locator("#summary")).to_contain_text("yes")
    # the configuration names the upload by its own name
    _step(page, "Export")
    sync_api.expect(page.locator("#toml-preview")).to_contain_text('input = "people.csv"')
    sync_api.expect(page.locator("#toml-preview")).to_contain_text("distinct_l_diversity")
    page.close()


def test_a_long_run_shows_progress_keeps_the_page_responsive_and_cancels(
    app_url: str, browser: Any
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_url)
    page.get_by_role("button", name="Load", exact=True).click()
    sync_api.expect(page.locator("#load-summary")).to_contain_text("30,162 records")
    page.get_by_role("button", name="Next: roles").click()
    # all nine columns generalized and an exhaustive search: about 13,000 nodes
    page.locator("#role_7").select_option("quasi_identifier")
    page.locator("#role_8").select_option("quasi_identifier")
    sync_api.expect(page.locator("#no-leaks")).to_be_visible()
    _step(page, "Privacy")
    page.locator("#algorithm").select_option("exhaustive")
    _fill(page, "#suppression", "0")
    _step(page, "Run")
    page.locator("#run").click()
    sync_api.expect(page.locator("#run-stage")).to_contain_text("Searching")
    # the page answers while the search runs
    _step(page, "Roles")
    sync_api.expect(page.locator("#no-leaks")).to_be_visible()
    _step(page, "Run")
    page.locator("#cancel").click()
    sync_api.expect(page.locator("#cancelled")).to_be_visible()
    _step(page, "Explore")
    sync_api.expect(page.locator("#explore")).to_contain_text("Run the anonymization first")
    page.close()
