"""The app's steps in a Shiny session without a browser (``session.Harness``): what the
pages keep when a second table is loaded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from anonkit.app import workflow
from anonkit.app.steps import load, roles

from .conftest import leaky_frame
from .session import Harness


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    h = Harness([load, roles], tmp_path / "work")
    yield h
    h.close()


def _load(h: Harness, path: Path, clicks: int) -> None:
    h.set(path=str(path), load=clicks)


def _draw_roles(h: Harness) -> list[tuple[str, str]]:
    """Let the roles table draw (one flush after the load), and report the selectors'
    values as the browser does when it shows them."""
    h.flush(wait=0.05)
    h.flush()
    selects = h.selects("roles_table")
    h.set(**dict(selects))
    return selects


def _proposed(h: Harness) -> dict[str, list[str]]:
    rows = workflow.role_rows(workflow.propose(h.read(h.state.loaded)))
    return workflow.roles_by_kind({row["column"]: row["role"] for row in rows})


def test_a_second_table_takes_its_own_proposals_not_the_first_tables_choices(
    harness: Harness, tmp_path: Path
) -> None:
    first = tmp_path / "people.csv"
    leaky_frame().write_csv(first)
    _load(harness, first, 1)
    selects = _draw_roles(harness)
    assert len(selects) == 5
    # the user makes the first column identifying
    harness.set(**{selects[0][0]: "identifying"})
    assert harness.read(harness.state.by_role)["identifying"] == ["age"]

    second = tmp_path / "visits.csv"
    pl.DataFrame(
        {
            "zip": [f"{10000 + i % 7}" for i in range(60)],
            "ward": [f"W{i % 3}" for i in range(60)],
            "diagnosis": [f"D{i % 5}" for i in range(60)],
        }
    ).write_csv(second)
    _load(harness, second, 2)
    # at once, before the new selectors are drawn, and after they are
    assert harness.read(harness.state.by_role) == _proposed(harness)
    new = _draw_roles(harness)
    assert {name for name, _ in new}.isdisjoint(name for name, _ in selects)
    assert harness.read(harness.state.by_role) == _proposed(harness)


def test_role_selectors_are_named_by_their_column_and_the_page_by_its_language(
    harness: Harness, leaky_csv: Path
) -> None:
    """A screen reader announced every role selector as a bare "combobox", without the
    column it sets; the page declared no language."""
    from anonkit.app import pages

    _load(harness, leaky_csv, 1)
    _draw_roles(harness)
    html = harness.html("roles_table")
    for column in ("age", "sex", "education", "education-num", "income"):
        assert f'aria-label="Role of {column}"' in html
    assert pages.page().attrs["lang"] == "en"


@pytest.mark.parametrize(
    ("content", "told"),
    [
        ("city;age\nZürich;31\n".encode("latin-1"), "Cannot read latin1.csv: line 2"),
        (b"city;age\n", "The file latin1.csv has a header but no records."),
        (b"a,b\n1,2\n3,4,5\n", "Cannot read latin1.csv: line 3"),
    ],
)
def test_an_upload_that_cannot_be_read_is_named_as_the_user_named_it(
    harness: Harness, tmp_path: Path, content: bytes, told: str
) -> None:
    """The message named the server's temporary copy
    (/tmp/anonkit-app-…/upload-…/latin1.csv), a path the user never saw."""
    chosen = tmp_path / "chosen" / "latin1.csv"
    chosen.parent.mkdir()
    chosen.write_bytes(content)
    harness.set(**{".clientdata_output_load_error_hidden": False})  # the Load page shown
    harness.set(upload=[{"name": "latin1.csv", "datapath": str(chosen), "size": 1, "type": ""}])
    shown = harness.html("load_error")
    assert told in shown
    assert str(harness.state.workdir) not in shown and "upload-" not in shown


def _sent_values(h: Harness, input_id: str) -> list[object]:
    """The values the server set the input ``input_id`` to (``ui.update_*``), in order."""
    sent = [m for message in h.conn.sent for m in message.get("inputMessages", [])]
    queued = h.session._outbound_message_queues.input_messages  # not sent yet
    return [
        m["message"]["value"]
        for m in [*sent, *queued]
        if m["id"] == input_id and "value" in m["message"]
    ]


def test_an_uploaded_hierarchy_file_switches_the_kind_to_file_and_is_applied(
    tmp_path: Path, leaky_csv: Path
) -> None:
    """On a user's table most columns start with Kind = suppression; an uploaded
    hierarchy file filled the path field and said "Upload complete", but the Kind stayed
    suppression and "Use this hierarchy" applied suppression."""
    from anonkit.app.steps import hierarchies

    fields = {"h_type": "suppression", "h_params": "", "h_path": "", "h_apply": 0}
    h = Harness([load, roles, hierarchies], tmp_path / "work", **fields)
    try:
        _load(h, leaky_csv, 1)
        selects = _draw_roles(h)
        h.set(**{selects[3][0]: "identifying"})  # education-num: its leak resolved
        assert h.read(h.state.roles_ready)
        h.set(h_column="education", h_type="suppression")
        chosen = tmp_path / "chosen" / "education.csv"
        chosen.parent.mkdir()
        chosen.write_text("HS;school;*\nBA;degree;*\nMA;degree;*\nPhD;degree;*\n", "utf-8")
        upload = {"name": "education.csv", "datapath": str(chosen), "size": 1, "type": ""}
        h.set(h_upload=[upload])
        assert _sent_values(h, "h_type")[-1] == ["file"]
        [path] = [p for p in _sent_values(h, "h_path") if str(p).endswith("education.csv")]
        h.set(h_type="file", h_path=path)  # as the browser reports the updated fields
        h.set(h_apply=1)
        assert h.read(h.state.hier_specs)["education"] == Path(path)  # read as UTF-8
    finally:
        h.close()
