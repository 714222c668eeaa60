"""Export: the TOML the app writes is a configuration ``anonkit anonymize`` reproduces
the app's release from; the release is written as the CLI writes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from anonkit.app import export, results, workflow
from anonkit.app.steps.privacy import estimator_options
from anonkit.config import load_config, run_config
from anonkit.core.resolve import hierarchy_file
from anonkit.models import DistinctLDiversity
from anonkit.safety.reading import ReadSettings


def _run_and_config(
    loaded: workflow.Loaded, roles: dict[str, str], settings: workflow.Settings, tmp: Path
) -> tuple[results.RunOutcome, Path]:
    by = workflow.roles_by_kind(roles)
    specs = workflow.default_hierarchies(loaded, workflow.propose(loaded))
    keywords = results.anonymizer_keywords(
        by, specs, k=settings.k, models=settings.check(),
        suppression_limit=settings.suppression_limit, algorithm=settings.algorithm,
        metric=settings.metric, options=settings.options,
    )  # fmt: skip
    outcome = results.run(results.RunRequest(loaded.frame, keywords))
    text = export.config_toml(
        input=loaded.path, read=loaded.read, roles=by, hierarchies=specs, k=settings.k,
        suppression_limit=settings.suppression_limit,
        models=[(m.name, m.params) for m in settings.models], algorithm=settings.algorithm,
        metric=settings.metric, output="release.csv", options=settings.options,
    )  # fmt: skip
    path = tmp / "config.toml"
    path.write_text(text, encoding="utf-8")
    return outcome, path


def test_adult_config_reproduces_the_release(tmp_path: Path) -> None:
    loaded = workflow.load_adult()
    roles = {p.column: p.role for p in workflow.propose(loaded).proposals}
    settings = workflow.Settings(k=5, suppression_limit=0.04, algorithm="flash")
    outcome, path = _run_and_config(loaded, roles, settings, tmp_path)
    cfg = load_config(path)
    assert cfg.k == 5 and cfg.suppression_limit == 0.04 and cfg.separator == ";"
    assert cfg.output == tmp_path / "release.csv"
    assert cfg.sensitive == ("salary-class",) and cfg.insensitive == ()
    assert "occupation" in cfg.quasi_identifiers  # no rule placed it: generalized
    assert run_config(cfg).release.equals(outcome.result.release)
    written = export.write_release(outcome.result, tmp_path / "r.csv", separator=";")
    assert written.format == "csv"
    back = pl.read_csv(tmp_path / "r.csv", separator=";", infer_schema=False)
    assert back.equals(outcome.result.release.cast(pl.String))


def test_models_builders_and_odd_names_survive_the_round_trip(
    tmp_path: Path, leaky_csv: Path
) -> None:
    loaded = workflow.load_table(leaky_csv)
    roles = {"age": "quasi_identifier", "sex": "quasi_identifier",
             "education": "quasi_identifier", "education-num": "identifying",
             "income": "sensitive"}  # fmt: skip
    spec = workflow.ModelSpec("distinct_l_diversity", {"attribute": "income", "l": 2})
    settings = workflow.Settings(
        k=3, suppression_limit=0.1, models=(spec,), algorithm="flash", metric="height"
    )
    outcome, path = _run_and_config(loaded, roles, settings, tmp_path)
    cfg = load_config(path)
    assert cfg.privacy == (DistinctLDiversity(attribute="income", l=2),)
    assert cfg.hierarchies["age"] == {"type": "intervals", "widths": [5, 10, 20]}
    assert cfg.identifying == ("education-num",) and cfg.metric == "height"
    assert run_config(cfg).release.equals(outcome.result.release)


def test_uploaded_paths_are_written_under_their_own_name(tmp_path: Path) -> None:
    read = workflow.load_adult().read
    roles = {"quasi_identifier": ["a b"], "identifying": [], "sensitive": [],
             "insensitive": []}  # fmt: skip
    text = export.config_toml(
        input=tmp_path / "upload-123" / "x.csv", read=read, roles=roles,
        hierarchies={"a b": tmp_path / "h.csv"}, k=2, suppression_limit=0.0,
        algorithm="flash", metric="loss",
        renamed={str(tmp_path / "upload-123" / "x.csv"): "people.csv",
                 str(tmp_path / "h.csv"): "h-age.csv"},
    )  # fmt: skip
    assert 'input = "people.csv"' in text
    assert '"a b" = "h-age.csv"' in text
    assert "output" not in text


def test_two_uploads_of_one_name_stay_apart_on_the_server_and_in_the_export(
    tmp_path: Path,
) -> None:
    """Two hierarchy files both named h.csv were copied to one place, the second over
    the first: column A then read column B's hierarchy; the TOML named both 'h.csv'."""
    from anonkit.app.state import AppState

    state = AppState(None, tmp_path / "work")
    given = []
    for folder, text in (("one", "a;*\n"), ("two", "b;*\n")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "h.csv").write_text(text, encoding="utf-8")
        got = state.upload_target([{"name": "h.csv", "datapath": tmp_path / folder / "h.csv"}], "h")
        assert got is not None
        given.append(got)
    (first, name1), (second, name2) = given
    assert first != second and name1 == name2 == "h.csv"
    assert first.read_text() == "a;*\n" and second.read_text() == "b;*\n"
    roles = {"quasi_identifier": ["x", "y"], "identifying": [], "sensitive": [],
             "insensitive": []}  # fmt: skip
    text = export.config_toml(
        input=tmp_path / "t.csv", read=workflow.load_adult().read, roles=roles,
        hierarchies={"x": first, "y": second}, k=2, suppression_limit=0.0,
        algorithm="flash", metric="loss", renamed={str(first): "h.csv", str(second): "h.csv"},
    )  # fmt: skip
    assert 'x = "h.csv"' in text and 'y = "h-2.csv"' in text
    assert "h-2.csv" in text.split("[read]")[0]  # the header says to save it so


def test_a_hierarchy_path_typed_in_the_editor_is_exported_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """'age_h.csv' typed on the page was read from the app's folder but exported as is,
    and the CLI read it from the configuration's folder (another file, or none)."""
    from anonkit.app.preview import draft_spec

    monkeypatch.chdir(tmp_path)
    assert draft_spec("file", "", "age_h.csv") == tmp_path / "age_h.csv"


def test_toml_value_and_report(tmp_path: Path) -> None:
    assert export.toml_value([1, 2.5, True, "x"]) == '[1, 2.5, true, "x"]'
    with pytest.raises(TypeError):
        export.toml_value(object())
    loaded = workflow.load_adult()
    outcome = results.run(
        results.RunRequest(
            loaded.frame,
            {"quasi_identifiers": ["sex"], "k": 2, "others": "drop"},
        )
    )
    html = export.report_html(outcome.result, title="T", settings={"k": 2}, heights={"sex": 2})
    assert html.lstrip().lower().startswith("<!doctype html")
    assert "Female" not in html  # no record values in the report


def test_local_recoding_options_survive_the_round_trip(tmp_path: Path) -> None:
    loaded = workflow.load_adult()
    roles = {p.column: p.role for p in workflow.propose(loaded).proposals}
    settings = workflow.Settings(
        k=10, suppression_limit=0.0, algorithm="mondrian", options={"mode": "relaxed"}
    )
    outcome, path = _run_and_config(loaded, roles, settings, tmp_path)
    cfg = load_config(path)
    assert cfg.algorithm == "mondrian" and dict(cfg.options) == {"mode": "relaxed"}
    assert run_config(cfg).release.equals(outcome.result.release)


def test_a_latin1_hierarchy_file_is_read_and_exported_as_the_table_was(tmp_path: Path) -> None:
    """The Hierarchies step reads a hierarchy file with the encoding the table was loaded
    with (as ``[read] encoding`` does in a configuration); the exported TOML names the
    file by its path under that [read] encoding and reproduces the release."""
    rows = [("fée", "31"), ("mâle", "32"), ("fée", "33"), ("mâle", "34")] * 3
    data = tmp_path / "data.csv"
    data.write_bytes(("sex;age\n" + "".join(f"{s};{a}\n" for s, a in rows)).encode("latin-1"))
    sex = tmp_path / "sex.csv"
    sex.write_bytes("fée;*\nmâle;*\n".encode("latin-1"))
    loaded = workflow.load_table(data, encoding="latin-1")
    specs = {"sex": hierarchy_file(sex, loaded.read.encoding),
             "age": {"type": "intervals", "widths": [5, 10]}}  # fmt: skip
    roles = {"sex": "quasi_identifier", "age": "quasi_identifier"}
    by = workflow.roles_by_kind(roles)
    keywords = results.anonymizer_keywords(
        by, specs, k=3, models=(), suppression_limit=0.0, algorithm="flash", metric="loss",
        options={},
    )  # fmt: skip
    outcome = results.run(results.RunRequest(loaded.frame, keywords))
    text = export.config_toml(
        input=loaded.path, read=loaded.read, roles=by, hierarchies=specs, k=3,
        suppression_limit=0.0, models=[], algorithm="flash", metric="loss",
        output="release.csv", options={},
    )  # fmt: skip
    assert f'sex = "{sex}"' in text and 'encoding = "latin-1"' in text
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    assert run_config(load_config(path)).release.equals(outcome.result.release)


def test_exports_are_written_atomically(tmp_path: Path) -> None:
    """The configuration and the report replace an earlier export only once complete: a
    write that fails part way leaves the earlier file as it was (Path.write_text, which
    the page used, truncated it first)."""
    target = tmp_path / "exports" / "anonkit-config.toml"
    export.write_text(target, "k = 5\n")
    with pytest.raises(UnicodeEncodeError):
        export.write_text(target, "k = 5\n# \ud800\n")  # not encodable: fails mid-write
    assert target.read_text(encoding="utf-8") == "k = 5\n"
    assert [p.name for p in target.parent.iterdir()] == ["anonkit-config.toml"]


def test_an_export_never_overwrites_a_file_the_run_read(tmp_path: Path) -> None:
    from anonkit.exceptions import OutputIsInputError

    table = tmp_path / "people.csv"
    table.write_text("sex\nF\nM\nF\nM\n", encoding="utf-8")
    hierarchy = tmp_path / "sex.csv"
    hierarchy.write_text("F;*\nM;*\n", encoding="utf-8")
    outcome = results.run(
        results.RunRequest(pl.read_csv(table), {"quasi_identifiers": ["sex"], "k": 2})
    )
    inputs = [table, {"type": "file", "path": str(hierarchy), "encoding": "utf-8"}, None]
    with pytest.raises(OutputIsInputError):
        export.write_release(outcome.result, table, separator=",", inputs=inputs)
    with pytest.raises(OutputIsInputError):
        export.write_text(hierarchy, "<html></html>", inputs=inputs)
    assert table.read_text(encoding="utf-8") == "sex\nF\nM\nF\nM\n"
    assert hierarchy.read_text(encoding="utf-8") == "F;*\nM;*\n"
    export.write_release(outcome.result, tmp_path / "release.csv", separator=",", inputs=inputs)
    assert pl.read_csv(tmp_path / "release.csv").height == 4


def test_the_exported_config_names_a_metric_only_for_algorithms_that_take_one(
    tmp_path: Path,
) -> None:
    # metric = "loss" under [search] with algorithm = "mondrian": anonymize() now refuses
    # a metric the algorithm would ignore, so the exported file would not run.
    roles = {"quasi_identifier": ["age"], "identifying": [], "sensitive": [], "insensitive": []}
    common: dict[str, Any] = dict(
        input=tmp_path / "t.csv", read=ReadSettings(), roles=roles, hierarchies={}, k=3,
        suppression_limit=0.0, metric="height", output="out.csv",
    )  # fmt: skip
    assert "metric" not in export.config_toml(algorithm="mondrian", **common)
    assert 'metric = "height"' in export.config_toml(algorithm="flash", **common)


def test_a_safepub_release_is_reproduced_by_its_toml(tmp_path: Path) -> None:
    """SafePub could not run from the app; it runs with the parameters typed in Other
    options and the session's seed, which the TOML names, so the CLI draws the same
    sample and search."""
    loaded = workflow.load_adult()
    qi = ("age", "sex", "race", "education")
    roles = {c: "quasi_identifier" if c in qi else "identifying" for c in loaded.frame.columns}
    options = estimator_options("safepub", {"epsilon": 1.0, "delta": 1e-4}, seed=11)
    settings = workflow.Settings(k=None, suppression_limit=0.0, algorithm="safepub",
                                 options=options)  # fmt: skip
    outcome, path = _run_and_config(loaded, roles, settings, tmp_path)
    cfg = load_config(path)
    assert cfg.k is None and cfg.algorithm == "safepub"
    assert dict(cfg.options) == {"options": {"epsilon": 1.0, "delta": 1e-4, "seed": 11}}
    assert outcome.result.details["guarantee"].startswith("(1.0, 0.0001)-differential privacy")
    assert outcome.result.release.height < loaded.frame.height  # a sample
    assert run_config(cfg).release.equals(outcome.result.release)


def test_a_k_epsilon_release_is_reproduced_by_its_toml(tmp_path: Path) -> None:
    """(k, ε)-anonymity ran without noise from the app (its epsilon and noisy columns
    were refused); with them and the session's seed the TOML reproduces its noise."""
    n = 300
    data = tmp_path / "hours.csv"
    pl.DataFrame(
        {
            "age": [str(20 + (i * 7) % 50) for i in range(n)],
            "sex": ["F" if i % 3 else "M" for i in range(n)],
            "hours": [str(20 + i % 41) for i in range(n)],
        }
    ).write_csv(data)
    loaded = workflow.load_table(data)
    roles = {"age": "quasi_identifier", "sex": "quasi_identifier", "hours": "insensitive"}
    typed = {"epsilon": 0.5, "noisy": ["hours"]}
    settings = workflow.Settings(
        k=5, suppression_limit=0.05, algorithm="k_epsilon", metric="height",
        options=estimator_options("k_epsilon", typed, seed=11),
    )  # fmt: skip
    outcome, path = _run_and_config(loaded, roles, settings, tmp_path)
    cfg = load_config(path)
    assert dict(cfg.options) == {"options": {**typed, "seed": 11}} and cfg.metric == "height"
    release = outcome.result.release
    assert not release["hours"].cast(pl.String).equals(loaded.frame["hours"])  # noisy
    assert run_config(cfg).release.equals(release)
