"""What Run, Explore and Export offer after the pages change (``session.Harness``): the
export always describes one run, the settings it used with the release it made, and a
run the pages no longer describe is marked and not exported."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from anonkit.app.guard import ExportFailedError
from anonkit.app.steps import explore, export, hierarchies, load, privacy, roles, run

from .session import Harness
from .test_session_run import PRIVACY, _settle, _table

STEPS = [load, roles, hierarchies, privacy, run, explore, export]
STALE = "The settings changed since this run: run again to release them"
#: The Export page's field, and the Run page shown (Shiny draws a hidden output later).
SHOWN: dict[str, object] = {"output_name": "", ".clientdata_output_run_status_hidden": False}


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    h = Harness(STEPS, tmp_path / "work", **PRIVACY, **SHOWN)
    yield h
    h.close()


def _ran(h: Harness, path: Path) -> None:
    """Load ``path`` and run the Privacy page's settings (5-anonymity) until it ends."""
    h.set(path=str(path), load=1)
    _settle(h, lambda: h.read(h.state.roles_ready))
    h.set(run=1)
    _settle(h, lambda: h.read(h.state.outcome) is not None)


def _run_again(h: Harness, clicks: int) -> None:
    """Click Run and wait until the run has ended (the task is no longer running)."""
    h.set(run=clicks)
    _settle(h, lambda: "run-stage" not in h.html("run_status"))


def _download(h: Harness, name: str) -> str:
    """What the download button ``name`` sends: the file's name and path, or the
    notification of its failure."""
    info = h.session._downloads[name]
    filename = h.read(info.filename) if callable(info.filename) else info.filename
    try:
        target = h.read(info.handler)
    except ExportFailedError:
        return f"{filename}: failed: {h.notifications()[-1]}"
    return f"{filename}: {Path(target).read_text(encoding='utf-8', errors='replace')}"


def test_a_failed_run_leaves_the_export_of_the_run_before_whole(
    harness: Harness, tmp_path: Path
) -> None:
    """A failed (or cancelled) run set the choices the export writes when it started,
    while the release stayed the previous run's: the TOML and the report described a
    run that never produced the CSV offered beside them."""
    _ran(harness, _table(tmp_path / "people.csv", 200))
    harness.set(k=100000)
    _run_again(harness, 2)
    assert "app-error" in harness.html("run_status")  # the run failed
    harness.set(k=5)  # the pages describe that run again: it is exported whole
    assert "k = 5" in harness.html("export_state")
    assert "k = 100000" not in harness.html("export_state")
    assert "k = 5" in _download(harness, "download_toml")


def test_a_run_the_pages_no_longer_describe_is_marked_and_not_exported(
    harness: Harness, tmp_path: Path
) -> None:
    _ran(harness, _table(tmp_path / "people.csv", 200))
    for page in ("run_status", "explore_stale", "export_state"):
        assert STALE not in harness.html(page)
    assert "k = 5" in harness.html("export_state")

    harness.set(k=10)  # changed on Privacy, not run
    assert STALE in harness.html("run_status")
    assert STALE in harness.html("explore_stale")
    assert "achieved k" in harness.html("explore")  # still shown, marked
    assert STALE in harness.html("export_state")
    assert "[privacy]" not in harness.html("export_state")
    for button in ("download_csv", "download_parquet", "download_toml", "download_report"):
        assert STALE in _download(harness, button)

    harness.set(k=5)  # back as the run had it
    assert STALE not in harness.html("export_state")
    assert "people.anonymized.csv" in _download(harness, "download_csv")

    # a role changed on Roles
    selects = dict(harness.selects("roles_table"))
    sex = [key for key in selects if key.endswith("_1")][0]
    harness.set(**{sex: "insensitive"})
    assert STALE in harness.html("explore_stale") and STALE in harness.html("export_state")


def test_a_table_that_can_no_longer_be_read_is_named_on_explore_and_export(
    harness: Harness, tmp_path: Path
) -> None:
    """The Explore and Export pages went blank (the table they read was gone)."""
    _ran(harness, _table(tmp_path / "people.csv", 200))
    harness.set(encoding="utf-16")  # the file no longer reads
    for page in ("run_status", "explore_stale", "export_state"):
        assert "can no longer be read" in harness.html(page)
    assert "achieved k" in harness.html("explore")  # the run's own table still shows it
    assert "can no longer be read" in _download(harness, "download_csv")


def test_run_without_a_table_says_to_load_one(harness: Harness) -> None:
    """Clicking Run before loading did nothing at all."""
    harness.set(run=1)
    assert "Load a table first." in harness.html("run_status")


@pytest.mark.parametrize("button", ["download_csv", "download_parquet"])
def test_a_release_asked_for_before_any_table_is_told_to_run_first(
    harness: Harness, button: str
) -> None:
    """The release's file name read the table, outside the download's guard: HTTP 500
    and a traceback in the server's output, no word to the user."""
    sent = _download(harness, button)
    assert sent.endswith("failed: Writing the release " + (
        "(CSV)" if button == "download_csv" else "(Parquet)"
    ) + " failed: Run the anonymization first.")  # fmt: skip


@pytest.mark.parametrize(
    ("name", "expected"),
    [("my patients.csv", "my patients"), ("ward (2024).v2.csv", "ward (2024).v2")],
)
def test_the_release_is_named_after_the_whole_table_name(
    harness: Harness, tmp_path: Path, name: str, expected: str
) -> None:
    """Upload "my patients.csv" downloaded as my.anonymized.csv: the name was cut at
    its first space (meant to strip " (bundled)" from the bundled Adult's name)."""
    _ran(harness, _table(tmp_path / name, 200))
    for button, ext in (("download_csv", "csv"), ("download_parquet", "parquet")):
        assert _download(harness, button).startswith(f"{expected}.anonymized.{ext}: ")
    assert f'output = "{expected}.anonymized.csv"' in _download(harness, "download_toml")


def test_the_bundled_adult_release_is_named_without_its_bundled_mark(harness: Harness) -> None:
    harness.set(source="adult", load=1)
    _settle(harness, lambda: harness.read(harness.state.roles_ready))
    harness.set(run=1)
    _settle(harness, lambda: harness.read(harness.state.outcome) is not None, rounds=600)
    assert _download(harness, "download_csv").startswith("adult.anonymized.csv: ")


def test_a_safepub_run_is_exported_with_the_seed_that_reproduces_it(
    harness: Harness, tmp_path: Path
) -> None:
    """SafePub was offered in the Algorithm list but could never run."""
    from anonkit.config import load_config, run_config

    table = tmp_path / "ages.csv"
    pl.DataFrame(
        {"age": [str(20 + (i * 7) % 50) for i in range(600)],
         "sex": ["F" if i % 3 else "M" for i in range(600)]}
    ).write_csv(table)  # fmt: skip
    harness.set(path=str(table), load=1)
    _settle(harness, lambda: harness.read(harness.state.roles_ready))
    assert harness.read(harness.state.by_role)["quasi_identifier"] == ["age", "sex"]
    harness.set(**{".clientdata_output_settings_error_hidden": False})  # Privacy shown
    harness.set(algorithm="safepub", algorithm_options="epsilon = 2.0, delta = 0.001")
    assert "k: set it to 0 (off): SafePub derives its k" in harness.html("settings_error")
    harness.set(k=0, suppression=0)
    assert harness.html("settings_error") == ""
    harness.set(run=1)
    _settle(harness, lambda: harness.read(harness.state.outcome) is not None)
    release = harness.read(harness.state.outcome).result.release
    assert release.height < 600  # a sample
    config = tmp_path / "anonkit-config.toml"
    config.write_text(_download(harness, "download_toml").split(": ", 1)[1], encoding="utf-8")
    assert "seed = " in config.read_text(encoding="utf-8")
    assert run_config(load_config(config)).release.equals(release)
    # a population table is refused on the page, not by the run
    harness.set(population_path=str(table), population_apply=1)
    assert (
        "Population: press No population, or choose another algorithm: SafePub takes no "
        "population table" in harness.html("settings_error")
    )
