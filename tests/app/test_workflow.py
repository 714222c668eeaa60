"""The app's steps as plain functions (no browser): load, roles, leaks, hierarchies,
settings."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from anonkit.app import workflow
from anonkit.exceptions import (
    ConfigError,
    InputFileError,
    ParameterError,
    UnknownNameError,
    ValuesNotInHierarchyError,
)


def test_load_adult_is_the_bundled_table_read_as_init_reads_it() -> None:
    loaded = workflow.load_adult()
    assert loaded.bundled and not loaded.uploaded
    assert loaded.frame.shape == (30162, 9)
    assert loaded.read.separator == ";" and "separator" in loaded.read.detected


def test_load_table_options_reach_the_reader(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("a|b\n x |?\ny|2\n", encoding="utf-8")
    loaded = workflow.load_table(path, separator="|", missing=["", "?"], strip=True)
    assert loaded.frame.columns == ["a", "b"]
    assert loaded.frame["a"].to_list() == ["x", "y"]
    assert loaded.frame["b"].null_count() == 1
    assert loaded.read.separator == "|" and loaded.read.detected == ()
    assert loaded.path.is_absolute()  # the exported TOML names it from any folder


def test_load_table_detects_decimal_commas_unless_told(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_text("kg;sex\n49,4;F\n72;M\n81,5;F\n", encoding="utf-8")
    loaded = workflow.load_table(path)
    assert loaded.frame["kg"].to_list() == ["49.4", "72", "81.5"]
    assert loaded.read.decimal_comma and "decimal_comma" in loaded.read.detected
    kept = workflow.load_table(path, decimal_comma=False)
    assert kept.frame["kg"].to_list()[0] == "49,4" and not kept.read.decimal_comma


def test_load_table_tab_escape_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "t.tsv"
    path.write_text("a\tb\n1\t2\n", encoding="utf-8")
    assert workflow.load_table(path, separator="\\t").frame.columns == ["a", "b"]
    with pytest.raises(InputFileError, match="no-such"):
        workflow.load_table(tmp_path / "no-such.csv")


def test_parse_missing() -> None:
    assert workflow.parse_missing("") is None
    assert workflow.parse_missing("?, NA,?") == ("", "?", "NA")


def test_proposals_and_role_rows_describe_every_column(leaky_csv: Path) -> None:
    loaded = workflow.load_table(leaky_csv)
    rows = workflow.role_rows(workflow.propose(loaded))
    assert [r["column"] for r in rows] == loaded.frame.columns
    by = {r["column"]: r for r in rows}
    assert by["age"]["role"] == "quasi_identifier"
    assert by["income"]["role"] == "sensitive"
    # the number that determines education is proposed as a quasi-identifier too
    assert by["education-num"]["role"] == "quasi_identifier"
    assert set(rows[0]) == {"column", "kind", "distinct", "unique", "role", "why"}


def test_leaks_block_until_the_role_is_changed(leaky_csv: Path) -> None:
    frame = workflow.load_table(leaky_csv).frame
    roles = {"age": "quasi_identifier", "sex": "quasi_identifier",
             "education": "quasi_identifier", "education-num": "insensitive",
             "income": "sensitive"}  # fmt: skip
    leaks = workflow.role_leaks(frame, roles)
    blocking = workflow.blocking_leaks(leaks)
    assert [(x.column, x.related) for x in blocking] == [("education-num", "education")]
    assert "education-num" in blocking[0].reason
    roles["education-num"] = "identifying"
    assert workflow.blocking_leaks(workflow.role_leaks(frame, roles)) == []


def test_no_quasi_identifier_means_no_leak_check_and_bad_role_is_named() -> None:
    frame = pl.DataFrame({"a": ["1", "2"]})
    assert workflow.role_leaks(frame, {"a": "insensitive"}) == []
    with pytest.raises(UnknownNameError, match="role"):
        workflow.roles_by_kind({"a": "secret"})


def test_default_hierarchies_adult_files_and_builders(leaky_csv: Path) -> None:
    adult = workflow.load_adult()
    specs = workflow.default_hierarchies(adult, workflow.propose(adult))
    assert isinstance(specs["age"], Path) and specs["age"].name == "adult_hierarchy_age.csv"
    loaded = workflow.load_table(leaky_csv)
    specs = workflow.default_hierarchies(loaded, workflow.propose(loaded))
    assert specs["age"] == {"type": "intervals", "widths": [5, 10, 20]}


def test_builder_text_round_trips_through_parse_builder() -> None:
    spec = {"type": "dates", "levels": ["month", "year"], "format": "%d/%m/%Y"}
    assert workflow.parse_builder("dates", workflow.builder_text(spec)) == spec
    assert workflow.parse_builder("suppression", "  ") == {"type": "suppression"}


def test_parse_builder_errors_name_the_field() -> None:
    with pytest.raises(UnknownNameError, match="hierarchy type"):
        workflow.parse_builder("buckets", "")
    with pytest.raises(ConfigError, match="The intervals parameters"):
        workflow.parse_builder("intervals", "widths = [5,")


def test_hierarchy_preview_shows_frequent_values_at_every_level(leaky_csv: Path) -> None:
    frame = workflow.load_table(leaky_csv).frame
    spec = workflow.parse_builder("intervals", "widths = [10, 20]")
    hierarchy, table = workflow.hierarchy_preview(frame, "age", spec, rows=3)
    assert table.columns == [f"level {i}" for i in range(hierarchy.height)]
    assert table.height == 3
    first = table.row(0)
    assert all(hierarchy.generalize(first[0], i) == first[i] for i in range(hierarchy.height))


def test_hierarchy_preview_raises_the_api_error(tmp_path: Path, leaky_csv: Path) -> None:
    frame = workflow.load_table(leaky_csv).frame
    path = tmp_path / "h.csv"
    path.write_text("F;*\n", encoding="utf-8")
    with pytest.raises(ValuesNotInHierarchyError, match="sex"):
        workflow.hierarchy_preview(frame, "sex", path)


def test_settings_check_builds_models_and_names_bad_values() -> None:
    spec = workflow.ModelSpec("distinct_l_diversity", {"attribute": "income", "l": 2})
    models = workflow.Settings(k=5, models=(spec,)).check()
    assert [type(m).__name__ for m in models] == ["DistinctLDiversity"]
    with pytest.raises(ParameterError, match="^k: "):
        workflow.Settings(k=0).check()
    with pytest.raises(ParameterError, match="^Suppression limit: .* Got 200[.]"):
        workflow.Settings(suppression_limit=2.0).check()
    with pytest.raises(UnknownNameError, match="metric"):
        workflow.Settings(metric="best").check()
    with pytest.raises(ParameterError, match="^k: "):
        workflow.Settings(k=None).check()
    with pytest.raises(UnknownNameError):
        workflow.Settings(models=(workflow.ModelSpec("magic", {}),)).check()
    with pytest.raises(UnknownNameError, match="algorithm option"):
        workflow.Settings(options={"speed": "max"}).check()


def test_resolve_algorithm() -> None:
    assert workflow.resolve_algorithm("mondrian", [2]) == "mondrian"
    assert workflow.resolve_algorithm("auto", [5, 5]) == "flash"
    assert workflow.resolve_algorithm("auto", [100, 100, 101]) == "mondrian"
    assert "k_anonymity" not in workflow.model_names()


def test_adult_and_profiles_are_kept_once_read(leaky_csv: Path) -> None:
    workflow.warm_up()
    adult = workflow.load_adult()
    assert workflow.load_adult() is adult  # read once per process
    assert workflow.propose(adult) is workflow.propose(adult)  # profiled once
    other = workflow.load_table(leaky_csv)
    again = workflow.load_table(leaky_csv)  # a new read is profiled anew
    assert workflow.propose(other) is not workflow.propose(again)
    assert workflow.role_rows(workflow.propose(other)) == workflow.role_rows(
        workflow.propose(again)
    )


class _Fields:
    """The privacy page's inputs as ``settings_from`` reads them (Shiny's ``input``)."""

    def __init__(self, **values: object) -> None:
        self.values = {
            "k": 5, "suppression": 5, "l": 0, "l_variant": "distinct_l_diversity", "t": 0,
            "t_variant": "equal_t_closeness", "model_attribute": "income", "more_models": "",
            "algorithm": "flash", "algorithm_options": "", "metric": "loss", "k_map": 0,
            "delta_min": 0, "delta_max": 0, **values,
        }  # fmt: skip

    def __contains__(self, name: str) -> bool:
        return name in self.values

    def __getitem__(self, name: str) -> object:
        return lambda: self.values[name]

    def __getattr__(self, name: str) -> object:
        if name == "values":
            raise AttributeError(name)
        return lambda: self.values.get(name)


@pytest.mark.parametrize("field", ["k", "l", "k_map"])
def test_a_fraction_typed_for_a_whole_number_is_refused_not_truncated(field: str) -> None:
    """k = 2.5 ran as k = 2 (a weaker guarantee than the one typed); it is an error
    naming the field and the value typed. Whole numbers typed as 3.0 and 0 (off) stay."""
    from anonkit.app.steps.privacy import settings_from

    roles = {"quasi_identifier": ["age"], "sensitive": ["income"]}
    label = {"k": "k", "l": "l-diversity", "k_map": "k-map"}[field]
    with pytest.raises(ParameterError, match=rf"^{label}: enter a whole number.* Got 2\.5[.]$"):
        settings_from(_Fields(**{field: 2.5}), roles)
    settings = settings_from(_Fields(**{field: 3.0}), roles)
    if field == "k":
        assert settings.k == 3
    else:
        [model] = settings.models
        assert model.params["l" if field == "l" else "k"] == 3
    assert settings_from(_Fields(k=0), roles).k is None


#: The Privacy page's fields, a bad value in each, and what the page says (the cases of
#: the browser hunt): in the page's words, naming the field, never "Got None instead",
#: a parameter of a class or a fraction of the percentage typed.
FIELD_MESSAGES = [
    ({"k": 0}, "k: enter a whole number of at least 1; 0 (off) needs another privacy model."),
    ({"k": None}, "k: enter a whole number of at least 1; 0 (off) needs another privacy model."),
    ({"k": -1}, "k: enter a whole number of at least 1, or 0 for off. Got -1."),
    ({"suppression": 150}, "Suppression limit: enter a percentage between 0 and 100. Got 150."),
    ({"suppression": -5}, "Suppression limit: enter a percentage between 0 and 100. Got -5."),
    ({"l": 1.5}, "l-diversity: enter a whole number of at least 1, or 0 for off. Got 1.5."),
    ({"l": -2}, "l-diversity: enter a whole number of at least 1, or 0 for off. Got -2."),
    ({"t": 1.5}, "t-closeness t: enter a number between 0 and 1, or 0 for off. Got 1.5."),
    ({"t": -0.2}, "t-closeness t: enter a number between 0 and 1, or 0 for off. Got -0.2."),
    ({"k_map": -3}, "k-map: enter a whole number of at least 1, or 0 for off. Got -3."),
    (
        {"delta_max": 1.5},
        "delta-presence: enter shares between 0 and 1, the smallest no larger than the "
        "largest, or 0 for off. Got 1.5.",
    ),
    (
        {"model_attribute": None, "l": 2},
        "l-diversity: mark a column sensitive on Roles and choose it as the sensitive "
        "attribute, or set l to 0.",
    ),
    (
        {"more_models": 'name = "average_risk", threshold = 5'},
        "Other models, line 1 (average_risk): threshold must be a real number in (0, 1]. Got 5.",
    ),
    (
        {"algorithm_options": "mode = 3"},
        "Other options: mode is an option of mondrian, not of flash; remove it or choose mondrian.",
    ),
]


@pytest.mark.parametrize(("fields", "told"), FIELD_MESSAGES, ids=lambda v: str(v)[:30])
def test_a_bad_field_is_told_in_the_pages_words(fields: dict[str, object], told: str) -> None:
    from anonkit.app.steps.privacy import settings_from

    roles = {"quasi_identifier": ["age"], "sensitive": ["income"]}
    with pytest.raises(ParameterError) as caught:
        settings_from(_Fields(**fields), roles).check()
    assert str(caught.value) == told


@pytest.mark.parametrize(
    ("fields", "told"),
    [
        ({"k_map": 5}, "Population: 5-map needs a population table"),
        ({"delta_max": 0.5}, "Population: (0, 0.5)-presence needs a population table"),
    ],
)
def test_a_model_without_its_population_is_told_in_the_pages_words(
    fields: dict[str, object], told: str
) -> None:
    from anonkit.app.population import check_population
    from anonkit.app.steps.privacy import settings_from

    roles = {"quasi_identifier": ["age"], "sensitive": ["income"]}
    models = settings_from(_Fields(**fields), roles).check()
    with pytest.raises(ParameterError) as caught:
        check_population(None, ["age"], models)
    assert str(caught.value).startswith(told) and "None" not in str(caught.value)
