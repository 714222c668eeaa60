"""``anonkit app`` end to end in a real browser (Debian's Chromium, driven by Playwright).

The app runs as the command (``anonkit app --no-browser --port N``) in a subprocess; the
test loads the bundled Adult, accepts the proposed roles (no leaks), keeps the bundled
hierarchies, sets k = 5, runs, explores, exports the release and the TOML, and checks
that ``anonkit anonymize`` on the exported TOML writes the same release. Skipped with the
reason when Playwright or Chromium is missing. Set ``ANONKIT_APP_SCREENSHOTS`` to a
folder (docs/app) to keep a screenshot of every step.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from .browser import TIMEOUT_MS, cli_release, download, fill, shot, step, sync_api

api = sync_api()  # skips the module (with the reason) when a piece is missing


def test_adult_workflow_matches_the_cli(app_url: str, chromium: Any, tmp_path: Path) -> None:
    page = chromium.new_page(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_url)

    # 1 Load: the bundled Adult is the default source
    page.get_by_role("button", name="Load", exact=True).click()
    api.expect(page.locator("#load-summary")).to_contain_text("30,162 records")
    api.expect(page.locator("#preview-table tbody tr")).to_have_count(10)
    shot(page, "1-load")

    # 2 Roles: accept the proposals; no leaks
    page.get_by_role("button", name="Next: roles").click()
    api.expect(page.locator("#roles tbody tr")).to_have_count(9)
    api.expect(page.locator("#no-leaks")).to_be_visible()
    shot(page, "2-roles")

    # 3 Hierarchies: the bundled files, previewed on the values
    page.get_by_role("button", name="Next: hierarchies").click()
    api.expect(page.locator("#hier-summary tbody tr")).to_have_count(8)
    api.expect(page.locator("#hier-preview-table")).to_be_visible()
    page.locator("#h_column").select_option("age")
    api.expect(page.locator("#hier-preview-table thead")).to_contain_text("level 4")
    shot(page, "3-hierarchies")

    # 4 Privacy: k = 5, suppression 5 %, algorithm auto
    step(page, "Privacy")
    fill(page, "#k", "5")
    fill(page, "#suppression", "5")
    shot(page, "4-privacy")

    # 5 Run
    step(page, "Run")
    page.locator("#run").click()
    api.expect(page.locator("#summary")).to_contain_text("achieved k")
    api.expect(page.locator("#summary")).to_contain_text("yes")
    shot(page, "5-run")

    # 6 Explore: alternatives, risk, distributions, loss
    step(page, "Explore")
    api.expect(page.locator("#alts tbody tr").first).to_contain_text("chosen")
    page.locator("#alt").select_option("1")  # inspect another private node
    api.expect(page.locator("#alt_detail")).to_contain_text("An alternative")
    api.expect(page.locator("#alt-figures")).to_contain_text("records suppressed")
    page.locator("#alt").select_option("0")
    api.expect(page.locator("#risk")).to_contain_text("prosecutor")
    api.expect(page.locator("#loss")).to_be_visible()
    shot(page, "6-explore")

    # 7 Export: release and configuration
    step(page, "Export")
    api.expect(page.locator("#toml-preview")).to_contain_text("[privacy]")
    shot(page, "7-export")
    release = download(page, "#download_csv", tmp_path / "adult.anonymized.csv")
    config = download(page, "#download_toml", tmp_path / "config.toml")
    page.close()
    assert cli_release(config, tmp_path / "cli.csv") == release.read_bytes()
    app_frame = pl.read_csv(release, separator=";", infer_schema=False)
    assert app_frame.height == 30162
    assert "k = 5" in config.read_text(encoding="utf-8")


def test_leaks_block_the_next_step_and_errors_show_next_to_their_field(
    app_url: str, chromium: Any, leaky_csv: Path
) -> None:
    page = chromium.new_page(viewport={"width": 1400, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_url)

    # a missing file: the reader's message, under the Load button
    page.get_by_role("radio", name="File path").check()
    fill(page, "#path", str(leaky_csv.with_name("missing.csv")))
    page.get_by_role("button", name="Load", exact=True).click()
    api.expect(page.locator("#load_error")).to_contain_text("missing.csv")

    # the file uploaded instead: loaded when the upload ends
    page.locator("#upload").set_input_files(str(leaky_csv))
    api.expect(page.get_by_role("radio", name="Upload a file")).to_be_checked()
    api.expect(page.locator("#load-summary")).to_contain_text("80 records")
    page.get_by_role("button", name="Next: roles").click()
    api.expect(page.locator("#no-leaks")).to_be_visible()

    # releasing education-num as is gives education away: red, and Next is refused
    role = page.get_by_role("combobox", name="Role of education-num")  # its accessible name
    role.select_option("insensitive")
    api.expect(page.locator("#leak-list .text-danger")).to_contain_text("education-num")
    api.expect(page.locator("#role-row-3 .app-column")).to_have_css("color", "rgb(204, 0, 0)")
    shot(page, "2b-leak")
    page.get_by_role("button", name="Next: hierarchies").click()
    api.expect(page.get_by_role("tab", name="Roles")).to_have_attribute("aria-selected", "true")
    step(page, "Hierarchies")
    api.expect(page.locator("#hier_gate")).to_contain_text("Resolve the leaks")

    # resolved by removing it
    step(page, "Roles")
    role.select_option("identifying")
    api.expect(page.locator("#no-leaks")).to_be_visible()
    page.get_by_role("button", name="Next: hierarchies").click()
    api.expect(page.locator("#hier-summary tbody tr")).to_have_count(3)

    # a hierarchy file that lacks a value: the run's message (naming the values, in the
    # page only), and the hierarchy in use stays
    partial = leaky_csv.with_name("education.csv")
    partial.write_text("HS;school;*\nBA;degree;*\nMA;degree;*\n", encoding="utf-8")
    page.locator("#h_column").select_option("education")
    api.expect(page.locator("#h_type")).to_have_value("suppression")  # its proposal
    page.locator("#h_type").select_option("file")
    fill(page, "#h_path", str(partial))
    page.locator("#h_apply").click()
    api.expect(page.locator("#hier_error")).to_contain_text("not in the hierarchy")
    api.expect(page.locator("#hier_error")).to_contain_text("PhD")

    # a bad builder: the builder's message under the editor; the stored one is kept
    page.locator("#h_column").select_option("age")
    api.expect(page.locator("#h_type")).to_have_value("intervals")  # its proposal
    api.expect(page.locator("#h_params")).to_have_value("widths = [5, 10, 20]")
    fill(page, "#h_params", "widths = [5,")
    page.locator("#h_apply").click()
    api.expect(page.locator("#hier_error")).to_contain_text("intervals parameters")
    fill(page, "#h_params", "widths = [10, 20]")
    page.locator("#h_apply").click()
    api.expect(page.locator("#hier-summary")).to_contain_text("widths = [10, 20]")
    api.expect(page.locator("#hier_error")).to_be_empty()

    # bad privacy settings: the API's message under the settings
    step(page, "Privacy")
    fill(page, "#k", "0")
    api.expect(page.locator("#settings_error")).to_contain_text("k: enter a whole number")
    # a requirement the table cannot meet: the run's message on the Run page
    fill(page, "#k", "500")
    step(page, "Run")
    page.locator("#run").click()
    api.expect(page.locator("#run_status .app-error")).to_be_visible()
    step(page, "Privacy")
    fill(page, "#k", "3")
    fill(page, "#l", "2")
    api.expect(page.locator("#settings_error")).to_be_empty()
    step(page, "Run")
    page.locator("#run").click()
    api.expect(page.locator("#summary")).to_contain_text("yes")
    # the configuration names the upload by its own name
    step(page, "Export")
    api.expect(page.locator("#toml-preview")).to_contain_text('input = "people.csv"')
    api.expect(page.locator("#toml-preview")).to_contain_text("distinct_l_diversity")
    page.close()


def test_a_long_run_shows_progress_keeps_the_page_responsive_and_cancels(
    app_url: str, chromium: Any
) -> None:
    page = chromium.new_page(viewport={"width": 1400, "height": 900})
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_url)
    page.get_by_role("button", name="Load", exact=True).click()
    api.expect(page.locator("#load-summary")).to_contain_text("30,162 records")
    page.get_by_role("button", name="Next: roles").click()
    # all nine columns generalized and an exhaustive search: about 13,000 nodes
    page.locator("#role-row-7 select").select_option("quasi_identifier")
    page.locator("#role-row-8 select").select_option("quasi_identifier")
    api.expect(page.locator("#no-leaks")).to_be_visible()
    step(page, "Privacy")
    page.locator("#algorithm").select_option("exhaustive")
    fill(page, "#suppression", "0")
    step(page, "Run")
    page.locator("#run").click()
    api.expect(page.locator("#run-stage")).to_contain_text("Searching")
    # the page answers while the search runs
    step(page, "Roles")
    api.expect(page.locator("#no-leaks")).to_be_visible()
    step(page, "Run")
    page.locator("#cancel").click()
    api.expect(page.locator("#cancelled")).to_be_visible()
    step(page, "Explore")
    api.expect(page.locator("#explore")).to_contain_text("Run the anonymization first")
    page.close()


def test_two_sessions_uploading_files_of_the_same_name_keep_their_own(
    app_url: str, chromium: Any, tmp_path: Path
) -> None:
    """Each session's uploads live in its own folder: a second user's people.csv does not
    replace the first user's, which is read again when a read option changes."""
    from .conftest import leaky_frame

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    leaky_frame(80).write_csv(tmp_path / "a" / "people.csv")
    leaky_frame(30).write_csv(tmp_path / "b" / "people.csv")
    first, second = (chromium.new_page() for _ in range(2))
    for page, folder, records in ((first, "a", 80), (second, "b", 30)):
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(app_url)
        page.locator("#upload").set_input_files(str(tmp_path / folder / "people.csv"))
        api.expect(page.locator("#load-summary")).to_contain_text(f"{records} records")
    fill(first, "#separator", ",")  # the first session reads its file again
    api.expect(first.locator("#load-summary")).not_to_contain_text("detected")
    api.expect(first.locator("#load-summary")).to_contain_text("80 records")
    api.expect(second.locator("#load-summary")).to_contain_text("30 records")
    first.close()
    second.close()


def test_a_release_asked_for_before_a_run_is_refused_with_a_notification(
    app_url: str, chromium: Any
) -> None:
    """Release (CSV) before any table was loaded failed with HTTP 500 and a traceback
    in the server's output (the file name read the table), and no word to the user; the
    server's output is checked for tracebacks when the session's server stops."""
    page = chromium.new_page(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_url)
    step(page, "Export")
    for button, kind in (("#download_csv", "CSV"), ("#download_parquet", "Parquet")):
        page.locator(button).click()
        told = page.locator(".shiny-notification-error", has_text=f"release ({kind})")
        api.expect(told).to_contain_text("failed: Run the anonymization first.")
    page.close()
