"""The app's hierarchy preview, numeric quasi-identifiers and population table in a real
browser (Debian's Chromium, driven by Playwright): what the page shows before a hierarchy
is applied, and releases the CLI reproduces from the exported TOML."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from anonkit.app import workflow

from .browser import cli_release, download, fill, load_adult, new_page, shot, step, sync_api

api = sync_api()  # skips the module (with the reason) when a piece is missing


def test_hierarchy_preview_follows_the_editor_before_it_is_applied(
    app_url: str, chromium: Any
) -> None:
    page = new_page(chromium, app_url)
    load_adult(page, api)
    page.get_by_role("button", name="Next: hierarchies").click()
    page.locator("#h_column").select_option("age")
    api.expect(page.locator("#hier_preview")).to_contain_text("age: file adult_hierarchy_age")
    api.expect(page.locator("#hier-in-use")).to_be_visible()  # the bundled file
    api.expect(page.locator("#hier-levels-table tbody tr")).to_have_count(5)

    # a builder: parameters from the values, previewed at once, not applied yet
    page.locator("#h_type").select_option("intervals")
    api.expect(page.locator("#h_params")).to_have_value("widths = [5, 10, 20]")
    api.expect(page.locator("#hier_preview #hier-draft")).to_be_visible()
    levels = page.locator("#hier-levels-table")
    api.expect(levels.locator("tbody tr")).to_have_count(5)  # leaves, 3 widths, root
    api.expect(levels.locator("tbody tr").last).to_contain_text("30162")  # root: all
    api.expect(page.locator("#hier-preview-table thead")).to_contain_text("level 3")
    api.expect(page.locator("#hier-summary")).to_contain_text("adult_hierarchy_age.csv")
    shot(page, "3b-hierarchy-preview")

    # typing changes the preview; a bad value shows the builder's message there
    fill(page, "#h_params", "widths = [10, 15]")
    api.expect(page.locator("#hier_preview .app-error")).to_contain_text("widths")
    fill(page, "#h_params", "widths = [10, 20]")
    api.expect(levels.locator("tbody tr")).to_have_count(4)
    api.expect(page.locator("#hier-summary")).to_contain_text("adult_hierarchy_age.csv")

    # ordered groups, masking and dates on the real values (race: neither codes nor dates)
    page.locator("#h_column").select_option("race")
    api.expect(page.locator("#hier_preview")).to_contain_text("race: file")  # the one in use
    page.locator("#h_type").select_option("ordered")
    api.expect(page.locator("#h_params")).to_have_value(
        'order = ["Amer-Indian-Eskimo", "Asian-Pac-Islander", "Black", "Other", "White"], '
        "fanouts = [2, 2]"
    )
    api.expect(page.locator("#hier-levels-table tbody tr")).to_have_count(4)
    page.locator("#h_type").select_option("masking")  # codes of equal length only
    api.expect(page.locator("#h_params")).to_have_value("")
    api.expect(page.locator("#hier_preview .app-error")).to_contain_text("equal length")
    page.locator("#h_type").select_option("dates")
    api.expect(page.locator("#hier_preview .app-error")).to_contain_text("dates in the format")

    # applied: in use, and listed for the run
    page.locator("#h_column").select_option("age")
    api.expect(page.locator("#hier_preview")).to_contain_text("age: file")  # the one in use
    page.locator("#h_type").select_option("intervals")
    api.expect(page.locator("#h_params")).to_have_value("widths = [5, 10, 20]")
    fill(page, "#h_params", "widths = [10, 20]")
    api.expect(page.locator("#hier-levels-table tbody tr")).to_have_count(4)
    page.locator("#h_apply").click()
    api.expect(page.locator("#hier-summary")).to_contain_text("widths = [10, 20]")
    api.expect(page.locator("#hier-in-use")).to_be_visible()
    page.close()


def test_numeric_quasi_identifiers_with_mondrian_match_the_cli(
    app_url: str, chromium: Any, tmp_path: Path
) -> None:
    page = new_page(chromium, app_url, accept_downloads=True)
    load_adult(page, api)
    step(page, "Privacy")
    api.expect(page.locator("#numeric-selectized")).to_be_hidden()  # Flash: no numbers
    page.locator("#algorithm").select_option("mondrian")
    page.locator("#numeric-selectized").fill("age")
    page.locator("#numeric-selectized").press("Enter")
    page.locator("#numeric_release").select_option("mean")
    fill(page, "#suppression", "0")
    api.expect(page.locator("#settings_error")).to_be_empty()
    shot(page, "4b-numeric")
    step(page, "Run")
    page.locator("#run").click()
    api.expect(page.locator("#summary")).to_contain_text("yes")
    step(page, "Export")
    api.expect(page.locator("#toml-preview")).to_contain_text('numeric = ["age"]')
    api.expect(page.locator("#toml-preview")).to_contain_text('numeric_release = "mean"')
    release = download(page, "#download_csv", tmp_path / "adult.anonymized.csv")
    config = download(page, "#download_toml", tmp_path / "config.toml")
    page.close()
    assert cli_release(config, tmp_path / "cli.csv") == release.read_bytes()
    ages = pl.read_csv(release, separator=";", infer_schema=False)["age"]
    assert ages.cast(pl.Float64, strict=False).null_count() == 0  # group means


def test_population_table_k_map_and_journalist_risk(
    app_url: str, chromium: Any, tmp_path: Path
) -> None:
    adult = workflow.load_adult().frame
    population = tmp_path / "population.csv"
    pl.concat([adult, adult]).write_csv(population, separator=";")
    partial = tmp_path / "partial.csv"
    adult.select("age").write_csv(partial, separator=";")

    page = new_page(chromium, app_url, accept_downloads=True)
    load_adult(page, api)
    step(page, "Privacy")
    fill(page, "#k_map", "10")
    api.expect(page.locator("#settings_error")).to_contain_text("10-map needs a population table")
    # a table that lacks quasi-identifiers: named next to the population field
    fill(page, "#population_path", str(partial))
    page.locator("#population_apply").click()
    api.expect(page.locator("#population_state .app-error")).to_contain_text("lacks")
    fill(page, "#population_path", str(population))
    page.locator("#population_apply").click()
    api.expect(page.locator("#population-summary")).to_contain_text("60,324 population records")
    api.expect(page.locator("#settings_error")).to_be_empty()
    shot(page, "4c-population")
    step(page, "Run")
    page.locator("#run").click()
    api.expect(page.locator("#summary")).to_contain_text("yes")
    step(page, "Explore")
    api.expect(page.locator("#risk")).to_contain_text("journalist")
    step(page, "Export")
    api.expect(page.locator("#toml-preview")).to_contain_text(f'population = "{population}"')
    api.expect(page.locator("#toml-preview")).to_contain_text('name = "k_map"')
    release = download(page, "#download_csv", tmp_path / "adult.anonymized.csv")
    config = download(page, "#download_toml", tmp_path / "config.toml")
    page.close()
    assert cli_release(config, tmp_path / "cli.csv") == release.read_bytes()


def test_masking_and_dates_previews_on_a_table_of_codes_and_dates(
    app_url: str, chromium: Any, tmp_path: Path
) -> None:
    path = tmp_path / "visits.csv"
    pl.DataFrame(
        {
            "zip": [f"021{i % 7}{i % 3}" for i in range(60)],
            "visit": [f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}" for i in range(60)],
            "outcome": ["a" if i % 2 else "b" for i in range(60)],
        }
    ).write_csv(path)
    page = new_page(chromium, app_url)
    page.get_by_role("radio", name="File path").check()
    fill(page, "#path", str(path))
    page.get_by_role("button", name="Load", exact=True).click()
    api.expect(page.locator("#load-summary")).to_contain_text("60 records")
    page.get_by_role("button", name="Next: roles").click()
    page.locator("#role-row-0 select").select_option("quasi_identifier")
    page.locator("#role-row-1 select").select_option("quasi_identifier")
    api.expect(page.locator("#no-leaks")).to_be_visible()
    page.get_by_role("button", name="Next: hierarchies").click()
    page.locator("#h_column").select_option("zip")
    api.expect(page.locator("#hier_preview")).to_contain_text("zip:")
    page.locator("#h_type").select_option("masking")
    levels = page.locator("#hier-levels-table tbody tr")
    api.expect(levels).to_have_count(7)  # the codes, 5 characters masked one by one, root
    api.expect(levels.first).to_contain_text("21")  # 7 x 3 distinct codes
    api.expect(levels.nth(1)).to_contain_text("0210*")
    api.expect(page.locator("#hier-preview-table tbody tr").first).to_contain_text("021**")
    page.locator("#h_column").select_option("visit")
    api.expect(page.locator("#hier_preview")).to_contain_text("visit:")
    page.locator("#h_type").select_option("dates")
    api.expect(page.locator("#h_params")).to_have_value('levels = ["month", "year"]')
    api.expect(levels).to_have_count(4)  # day, month, year, root
    api.expect(levels.nth(1)).to_contain_text("12")  # twelve months
    api.expect(levels.nth(2)).to_contain_text("2024")
    page.close()
