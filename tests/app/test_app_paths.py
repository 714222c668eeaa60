"""Paths typed on the app's pages (``session.Harness``): every one passes the session's
refusal before anything reads it, is exported as the CLI would read it, and an error of
reading one names the file, never its content; a release name the CLI refuses is
refused on the Export page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from anonkit.app.guard import ExportFailedError
from anonkit.app.preview import preview_hierarchy
from anonkit.app.steps import explore, export, hierarchies, load, privacy, roles, run
from anonkit.exceptions import ConfigError, HierarchyError, ParameterError

from .session import Harness
from .test_session_run import PRIVACY, _settle
from .test_workflow import _Fields

STEPS = [load, roles, hierarchies, privacy, run, explore, export]
#: The pages shown (Shiny draws a hidden output later) and the fields not on PRIVACY.
SHOWN: dict[str, object] = {
    "output_name": "",
    ".clientdata_output_run_status_hidden": False,
    ".clientdata_output_settings_error_hidden": False,
    ".clientdata_output_population_state_hidden": False,
    "h_type": "suppression",
    "h_params": "",
    "h_path": "",
    "h_apply": 0,
}
DISEASES = ("flu", "cold", "asthma", "gastritis", "ulcer", "bronchitis")
DISEASE_HIERARCHY = (
    "flu;respiratory;*\ncold;respiratory;*\nasthma;respiratory;*\nbronchitis;respiratory;*\n"
    "gastritis;digestive;*\nulcer;digestive;*\n"
)
REFUSED = "the app listens on a network address, so it reads no file named on the page"
#: Hierarchy files whose content must not reach the page (``SECRET`` marks it), with
#: what the message may say instead.
MALFORMED = [
    ("root:x:0:0:SECRET-root:/root\nbin:x:1:1:SECRET-bin:/bin\n", "one root"),
    ("SECRET-a;*\nSECRET-a;*\n", "more than one line"),
    ("SECRET-a;P;SECRET-x;*\nSECRET-b;P;SECRET-y;*\n", "two parents"),
    ("SECRET-head;SECRET-root\nx;*\ny;*\n", "header"),
    ("a;*\nSECRET-b;c;*\n", "line 2"),  # told by its line alone, as before
]


def _people(path: Path, n: int = 200) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pl.DataFrame(
        {
            "age": [str(20 + (i * 7) % 50) for i in range(n)],
            "sex": ["F" if i % 3 else "M" for i in range(n)],
            "disease": [DISEASES[(i // 3) % 6] for i in range(n)],
        }
    ).write_csv(path)
    return path


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    h = Harness(STEPS, tmp_path / "work", **PRIVACY, **SHOWN)
    yield h
    h.close()


def _loaded(h: Harness, table: Path, *, sensitive: bool = True) -> None:
    """Load ``table``; its disease column made sensitive."""
    h.set(path=str(table), load=1)
    _settle(h, lambda: h.read(h.state.roles_ready))
    h.flush(wait=0.05)
    selects = h.selects("roles_table")
    h.set(**dict(selects))
    if sensitive:
        h.set(**{selects[2][0]: "sensitive"})
        assert h.read(h.state.by_role)["sensitive"] == ["disease"]


def _ran(h: Harness) -> None:
    h.set(run=1)
    _settle(h, lambda: h.read(h.state.outcome) is not None, rounds=200)


def _download(h: Harness, name: str) -> str:
    """The text the download ``name`` sends, or ``failed: <notification>``."""
    try:
        target = h.read(h.session._downloads[name].handler)
    except ExportFailedError:
        return f"failed: {h.notifications()[-1]}"
    return Path(target).read_text(encoding="utf-8")


def _model(path: object) -> str:
    return (
        f'name = "hierarchical_t_closeness", attribute = "disease", t = 0.6, hierarchy = "{path}"'
    )


def test_beyond_loopback_other_models_read_no_file_named_on_the_page(
    harness: Harness, tmp_path: Path
) -> None:
    """The Population and table fields refused a server file on a network address, but a
    hierarchy named in Other models was read: a well-formed file silently, any other
    with its lines shown in the settings' error."""
    harness.state.server_files = False  # as serve() makes it for --host 0.0.0.0
    _loaded(harness, _people(harness.state.workdir / "uploads" / "people.csv"))
    well_formed = tmp_path / "well.csv"
    well_formed.write_text("SECRET-a;*\nSECRET-b;*\n", encoding="utf-8")
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:SECRET-root:/root\nbin:x:1:1:SECRET-bin:/bin\n", "utf-8")
    for server_file in (well_formed, passwd, tmp_path / "work" / ".." / "well.csv"):
        harness.set(more_models=_model(server_file))
        shown = harness.html("settings_error")
        assert f"Other models, line 1 (hierarchical_t_closeness): Cannot read {server_file}" in (
            shown
        )
        assert REFUSED in shown and "SECRET" not in shown
        assert isinstance(harness.read(harness.state.settings_or_error), ConfigError)
    # a file of this session (an upload) is read, as in the other fields
    uploaded = harness.state.workdir / "hierarchies" / "upload-1" / "disease.csv"
    uploaded.parent.mkdir(parents=True)
    uploaded.write_text(DISEASE_HIERARCHY, encoding="utf-8")
    harness.set(more_models=_model(uploaded))
    assert harness.html("settings_error") == ""


def test_other_models_name_no_file_without_the_session_to_allow_it() -> None:
    """``settings_from`` reads the page's fields; a file named there is refused unless
    the session says it may be read."""
    from anonkit.app.steps.privacy import settings_from

    roles = {"quasi_identifier": ["age"], "sensitive": ["income"]}
    fields = _Fields(more_models=_model("/etc/hostname"))
    with pytest.raises(ConfigError, match=r"^Other models, line 1 .*Cannot read /etc/hostname"):
        settings_from(fields, roles)
    allowed = settings_from(fields, roles, named_file=lambda text: Path(text).resolve())
    assert allowed.models[0].params["hierarchy"] == str(Path("/etc/hostname").resolve())


@pytest.mark.parametrize(("content", "told"), MALFORMED, ids=[t for _, t in MALFORMED])
def test_a_malformed_hierarchy_file_is_named_never_shown(
    tmp_path: Path, content: str, told: str
) -> None:
    """A hierarchy file that is not one was told with its labels ("holds 25 labels
    ('root:x:0:0:root:/root:/bin/bash', ...)"): the lines of whatever file was named.
    In Other models and in the hierarchy editor the message names the file and the line,
    never a label."""
    from anonkit.app.steps.privacy import settings_from

    bad = tmp_path / "bad.csv"
    bad.write_text(content, encoding="utf-8")
    roles = {"quasi_identifier": ["age"], "sensitive": ["disease"]}
    fields = _Fields(model_attribute="disease", more_models=_model(bad))
    settings = settings_from(fields, roles, named_file=lambda text: Path(text).resolve())
    with pytest.raises(HierarchyError) as in_models:
        settings.check()
    frame = pl.DataFrame({"age": ["a", "x", "y"]})
    with pytest.raises(HierarchyError) as in_editor:
        preview_hierarchy(frame, "age", bad)
    for caught in (in_models, in_editor):
        message = str(caught.value)
        assert "bad.csv" in message and told in message, message
        assert "SECRET" not in message and str(tmp_path) not in message, message


def test_a_relative_model_hierarchy_is_exported_as_the_file_the_app_read(
    harness: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """hierarchy = "disease.csv" was read from the app's working directory but exported
    as typed: ``anonkit anonymize`` read it beside the configuration (none there: an
    error; another file of that name: another hierarchy)."""
    from anonkit.config import load_config, run_config

    started_in = tmp_path / "app-started-here"
    started_in.mkdir()
    (started_in / "disease.csv").write_text(DISEASE_HIERARCHY, encoding="utf-8")
    monkeypatch.chdir(started_in)
    _loaded(harness, _people(tmp_path / "data" / "people.csv"))
    harness.set(k=2, more_models=_model("disease.csv"))
    assert harness.html("settings_error") == ""
    _ran(harness)
    text = _download(harness, "download_toml")
    assert f'hierarchy = "{started_in / "disease.csv"}"' in text
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "disease.csv").write_text("flu;*\ncold;*\n", encoding="utf-8")  # a decoy
    config = elsewhere / "anonkit-config.toml"
    config.write_text(text, encoding="utf-8")
    monkeypatch.chdir(elsewhere)
    release = harness.read(harness.state.outcome).result.release
    assert run_config(load_config(config)).release.equals(release)


@pytest.mark.parametrize(
    ("name", "told"),
    [
        ("release.txt", "Cannot write release.txt: the extension '.txt' is not a supported "
         "table format; use one of .csv, .tsv, .parquet, .pq."),
        ("{table}", "Cannot write {table}: the run reads that file"),
        ("anonkit-config.toml", "Cannot write anonkit-config.toml: the extension '.toml'"),
    ],
)  # fmt: skip
def test_the_export_refuses_a_release_name_the_cli_refuses(
    harness: Harness, tmp_path: Path, name: str, told: str
) -> None:
    """The Export page wrote any name into the configuration: one the CLI refuses (an
    extension it cannot write, the input itself) gave a configuration that cannot run."""
    table = _people(tmp_path / "people.csv")
    _loaded(harness, table, sensitive=False)
    _ran(harness)
    harness.set(output_name=name.format(table=table))
    shown = harness.html("export_state")
    assert "app-error" in shown and told.format(table=table) in shown
    assert "toml-preview" not in shown
    failed = _download(harness, "download_toml")
    assert failed.startswith("failed: ") and told.format(table=table) in failed
    harness.set(output_name="sub/dir/r.csv")  # a name the CLI writes
    assert 'output = "sub/dir/r.csv"' in harness.html("export_state")
    assert 'output = "sub/dir/r.csv"' in _download(harness, "download_toml")


def test_an_uploaded_table_is_not_named_as_the_release(harness: Harness, tmp_path: Path) -> None:
    """An upload is exported beside the configuration under its own name: a release of
    that name would be written over it."""
    chosen = _people(tmp_path / "chosen" / "people.csv")
    upload = {"name": "people.csv", "datapath": str(chosen), "size": 1, "type": ""}
    harness.set(upload=[upload])
    _settle(harness, lambda: harness.read(harness.state.roles_ready))
    harness.flush(wait=0.05)
    harness.set(**dict(harness.selects("roles_table")))
    _ran(harness)
    harness.set(output_name="people.csv")
    assert "Cannot write people.csv: the run reads that file" in harness.html("export_state")
    harness.set(output_name="people.anonymized.csv")
    assert 'input = "people.csv"' in harness.html("export_state")


def test_a_smallest_delta_share_without_a_largest_is_told() -> None:
    """delta-presence's smallest share typed with the largest at 0 (off) gave no model
    and no message: the run went without the bound typed."""
    from anonkit.app.steps.privacy import settings_from

    roles = {"quasi_identifier": ["age"], "sensitive": ["income"]}
    with pytest.raises(ParameterError) as caught:
        settings_from(_Fields(delta_min=0.5, delta_max=0), roles)
    assert str(caught.value) == (
        "delta-presence: the smallest share needs a largest share; set the largest share "
        "too, or the smallest to 0. Got 0.5."
    )
    assert settings_from(_Fields(delta_min=0, delta_max=0), roles).models == ()


def test_every_path_field_of_the_pages_passes_the_sessions_refusal(
    harness: Harness, tmp_path: Path
) -> None:
    """The table, hierarchy and population fields refuse a server file on a network
    address (as Other models now does)."""
    harness.state.server_files = False
    outside = _people(tmp_path / "outside.csv")
    harness.set(**{".clientdata_output_load_error_hidden": False})
    harness.set(path=str(outside), load=1)
    assert REFUSED in harness.html("load_error")
    _loaded(harness, _people(harness.state.workdir / "uploads" / "people.csv"))
    harness.set(population_path=str(outside), population_apply=1)
    assert REFUSED in harness.html("population_state")
    harness.set(h_column="age", h_type="file", h_path=str(outside))
    assert REFUSED in harness.html("hier_preview")
