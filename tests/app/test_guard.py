"""The boundary of every output and effect (``anonkit.app.guard``): a foreign error is
told by its type, logged without its message, and the session lives on."""

from __future__ import annotations

import ast
import logging
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from shiny.types import SilentException

from anonkit.app import guard as guard_module
from anonkit.app import workflow
from anonkit.app.guard import ExportFailedError, guard, guard_download, what_failed
from anonkit.app.steps import load, roles, run
from anonkit.exceptions import ConfigError
from source_files import parse_file

from .conftest import leaky_frame
from .session import Harness
from .test_session import _load, _proposed

#: A cell value the foreign errors below quote, as polars' and numpy's messages do.
SECRET = "Jane-Doe-1957"

FOREIGN: list[Callable[[str], Exception]] = [
    pl.exceptions.InvalidOperationError,
    pl.exceptions.DuplicateError,
    np.linalg.LinAlgError,
    ValueError,
    KeyError,
]


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    h = Harness([load, roles], tmp_path / "work")
    yield h
    h.close()


@pytest.fixture(autouse=True)
def _no_show(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(guard_module.SHOW_ERRORS, raising=False)


@pytest.mark.parametrize("error", FOREIGN, ids=lambda e: e.__name__)
def test_a_render_that_raises_a_foreign_error_is_blank_and_says_only_its_type(
    harness: Harness, error: Callable[[str], Exception], caplog: pytest.LogCaptureFixture
) -> None:
    @guard("Profiling the columns")
    def render() -> str:
        raise error(f"could not convert {SECRET!r}")

    with caplog.at_level(logging.WARNING, logger="anonkit.app"):
        assert harness.read(render) is None
    name = error.__name__
    assert harness.notifications() == [
        f"Profiling the columns failed ({name}); nothing was changed. "
        "Set ANONKIT_SHOW_ERRORS=1 to see the message."
    ]
    (record,) = caplog.records
    assert name in record.getMessage() and "test_guard.py" in record.getMessage()
    assert SECRET not in record.getMessage() and record.exc_info is None
    assert not harness.conn.closed


def test_a_foreign_error_in_an_effect_leaves_the_session_usable(
    harness: Harness,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Profiling that fails with polars' error (its message quoting a cell) is told by
    its type; the session is not closed and the next load works."""
    path = tmp_path / "people.csv"
    leaky_frame().write_csv(path)

    def broken(table: workflow.Loaded) -> object:
        raise pl.exceptions.InvalidOperationError(f"conversion failed for value {SECRET!r}")

    monkeypatch.setattr(workflow, "propose", broken)
    with caplog.at_level(logging.WARNING, logger="anonkit.app"):
        _load(harness, path, 1)
        harness.flush(wait=0.05)
    assert not harness.conn.closed
    shown = harness.notifications()
    assert "Profiling the columns failed (InvalidOperationError); nothing was changed." in (
        " ".join(shown)
    )
    assert all(SECRET not in text for text in shown)
    assert caplog.records
    assert all(SECRET not in r.getMessage() and not r.exc_info for r in caplog.records)

    monkeypatch.undo()
    other = tmp_path / "people2.csv"
    leaky_frame(60).write_csv(other)
    _load(harness, other, 2)
    assert harness.read(harness.state.by_role) == _proposed(harness)
    assert not harness.conn.closed


def test_the_librarys_own_errors_keep_their_message(harness: Harness) -> None:
    @guard("Reading the roles")
    def effect() -> None:
        raise ConfigError("Mark at least one column as a quasi-identifier.")

    assert harness.read(effect) is None
    assert harness.notifications() == [
        "Reading the roles failed: Mark at least one column as a quasi-identifier."
    ]


def test_anonkit_show_errors_shows_the_message(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(guard_module.SHOW_ERRORS, "1")

    @guard("Checking for leaks")
    def render() -> None:
        raise pl.exceptions.DuplicateError("column 'a' twice")

    assert harness.read(render) is None
    assert harness.notifications() == [
        "Checking for leaks failed (DuplicateError: column 'a' twice); nothing was changed."
    ]


def test_shinys_silent_exceptions_pass_through(harness: Harness) -> None:
    @guard("Previewing the table")
    def render() -> None:
        raise SilentException()

    with pytest.raises(SilentException):
        harness.read(render)
    assert harness.notifications() == []


def test_a_failed_download_raises_an_error_naming_only_the_step_and_type(
    harness: Harness,
) -> None:
    @guard_download("Writing the report")
    def download() -> str:
        raise pl.exceptions.InvalidOperationError(SECRET)

    with pytest.raises(ExportFailedError) as caught:
        harness.read(download)
    assert str(caught.value) == "Writing the report failed (InvalidOperationError)."
    assert caught.value.__suppress_context__
    assert all(SECRET not in text for text in harness.notifications())


def test_what_failed_outside_a_session_is_a_sentence() -> None:
    assert what_failed("The run", ZeroDivisionError(SECRET)) == (
        "The run failed (ZeroDivisionError); nothing was changed. "
        "Set ANONKIT_SHOW_ERRORS=1 to see the message."
    )


def test_a_run_that_fails_with_a_foreign_error_says_its_type_only() -> None:
    class Failed:
        def result(self) -> None:
            raise pl.exceptions.ComputeError(f"cannot cast {SECRET!r}")

    assert run._task_error(Failed()) == what_failed("The run", ZeroDivisionError()).replace(
        "ZeroDivisionError", "ComputeError"
    )


def test_every_output_and_effect_of_the_steps_is_guarded() -> None:
    """The boundary is used consistently: every function under ``@render.*`` or
    ``@reactive.effect`` is also under ``@guard``/``@guard_download``."""
    steps = Path(load.__file__).parent
    unguarded = []
    for path in sorted(steps.glob("*.py")):
        for node in ast.walk(parse_file(path)):
            if not isinstance(node, ast.FunctionDef):
                continue
            names = [ast.unparse(d) for d in node.decorator_list]
            shiny = any(n.startswith(("render.", "reactive.effect")) for n in names)
            guarded = any(n.startswith(("guard(", "guard_download(")) for n in names)
            if shiny and not guarded:
                unguarded.append(f"{path.name}:{node.name}")
    assert unguarded == []


def test_an_error_box_shows_a_foreign_value_error_by_its_type_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The steps show ValueError/TypeError in the page; one raised inside numpy quoted the
    cell ("could not convert string to float: 'SECRET'")."""
    import numpy as np

    from anonkit.app.widgets import error_box

    monkeypatch.delenv("ANONKIT_SHOW_ERRORS", raising=False)
    try:
        np.array(["SECRET"]).astype(float)
    except ValueError as err:
        shown = str(error_box(err))
    assert "SECRET" not in shown and "ValueError" in shown

    from anonkit.exceptions import ParameterError

    mine = ParameterError("k", "the Privacy page", "a whole number", 2.5)
    assert "a whole number" in str(error_box(mine))  # the library's message, as it is


def test_an_undecodable_table_is_told_to_set_the_encoding_field(tmp_path: Path) -> None:
    """The Load page showed the library's advice ('encoding = "latin-1" in the [read]
    section of the configuration, --encoding latin-1 for anonkit init...'): words for the
    CLI and Python, none for the page's own Encoding field."""
    from anonkit.app.widgets import error_box
    from anonkit.exceptions import InputEncodingError

    path = tmp_path / "people.csv"
    path.write_bytes("city;age\nZürich;31\nGenève;45\n".encode("latin-1"))
    with pytest.raises(InputEncodingError) as caught:
        workflow.load_table(path)
    shown = str(error_box(caught.value))
    assert "line 2" in shown and "Encoding field" in shown and "latin-1" in shown
    assert "[read]" not in shown and "--encoding" not in shown
