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


def test_entropy_l_diversity_takes_the_fractional_l_the_library_accepts() -> None:
    """Entropy ℓ-diversity with l = 1.5 was refused ("enter a whole number"), though
    the model takes any real l >= 1; distinct ℓ-diversity still needs a whole number."""
    from anonkit.app.steps.privacy import settings_from
    from anonkit.models import EntropyLDiversity

    roles = {"quasi_identifier": ["age"], "sensitive": ["income"]}
    entropy = {"l_variant": "entropy_l_diversity"}
    settings = settings_from(_Fields(l=1.5, **entropy), roles)
    [spec] = settings.models
    assert spec.params == {"attribute": "income", "l": 1.5}
    assert settings.check() == [EntropyLDiversity("income", l=1.5)]
    assert settings_from(_Fields(l=2, **entropy), roles).models[0].params["l"] == 2
    for bad in (0.5, -2):
        with pytest.raises(ParameterError) as caught:
            settings_from(_Fields(l=bad, **entropy), roles).check()
        assert str(caught.value) == (
            f"l-diversity: enter a number of at least 1, or 0 for off. Got {bad:g}."
        )
    with pytest.raises(ParameterError, match=r"^l-diversity: enter a whole number"):
        settings_from(_Fields(l=1.5), roles)


@pytest.mark.parametrize(
    ("fields", "told"),
    [
        (
            {"algorithm": "mondrian", "mode": "relaxed", "algorithm_options": 'mode = "strict"'},
            "Other options: mode is set by the Partitioning field (relaxed); remove it from "
            "Other options and choose it in that field.",
        ),
        (
            {"algorithm": "mondrian", "mode": "strict", "algorithm_options": 'mode = "relaxed"'},
            "Other options: mode is set by the Partitioning field (strict); remove it from "
            "Other options and choose it in that field.",
        ),
        (
            {"algorithm": "greedy_merge", "algorithm_options": 'cost = "ncp"'},
            "Other options: cost is set by the Cost field (nllm); remove it from Other "
            "options and choose it in that field.",
        ),
    ],
    ids=["mode-relaxed", "mode-default", "cost"],
)
def test_other_options_never_override_a_field_on_the_page(
    fields: dict[str, object], told: str
) -> None:
    """Mondrian with Partitioning = relaxed and mode = "strict" typed in Other options
    ran strict while the page showed relaxed."""
    from anonkit.app.steps.privacy import settings_from

    roles = {"quasi_identifier": ["age"], "sensitive": ["income"]}
    with pytest.raises(ParameterError) as caught:
        settings_from(_Fields(**fields), roles)
    assert str(caught.value) == told
    # an option no field of the algorithm sets is still taken (auto shows no fields)
    auto = settings_from(_Fields(algorithm="auto", algorithm_options='mode = "relaxed"'), roles)
    assert auto.options == {"mode": "relaxed"}


#: Roles SafePub can release: quasi-identifiers, and a removed column.
QI_ONLY = {"quasi_identifier": ["age", "sex"], "identifying": ["name"], "sensitive": [],
           "insensitive": []}  # fmt: skip
SAFEPUB: dict[str, object] = {"algorithm": "safepub", "k": 0, "suppression": 0}


def test_safepub_takes_its_parameters_in_other_options_and_a_seed_that_reproduces_it() -> None:
    """SafePub was offered but could never run: k = 5 made the run fail ("The 'privacy'
    parameter of SafePub must be left out"), k = 0 was refused and epsilon in Other
    options was an unknown option."""
    from anonkit.app.steps.privacy import settings_from

    typed = _Fields(**SAFEPUB, algorithm_options="epsilon = 1.0, delta = 1e-4")
    settings = settings_from(typed, QI_ONLY, seed=7)
    assert settings.k is None and settings.suppression_limit == 0
    # the session's seed is written, so that the exported TOML draws the same sample
    assert settings.options == {"options": {"epsilon": 1.0, "delta": 1e-4, "seed": 7}}
    assert settings.check() == []
    assert settings_from(_Fields(**SAFEPUB), QI_ONLY, seed=7).options == {"options": {"seed": 7}}
    mine = settings_from(_Fields(**SAFEPUB, algorithm_options="seed = 3"), QI_ONLY, seed=7)
    assert mine.options == {"options": {"seed": 3}}  # a seed typed is kept
    # the options field lists SafePub's parameters among its keys
    assert {"epsilon", "delta", "seed"} <= set(workflow.ALGORITHM_OPTIONS)
    assert workflow.ALGORITHM_CHOICES.count("auto") == 1


SAFEPUB_MESSAGES = [
    (
        {"k": 5},
        "k: set it to 0 (off): SafePub derives its k from epsilon and delta, given in Other "
        "options. Got 5.",
    ),
    (
        {"suppression": 5},
        "Suppression limit: set it to 0: SafePub removes every group smaller than the k it "
        "derives, whatever the limit. Got 5.",
    ),
    (
        {"k_map": 5},
        "k-map: set it to 0 (off), or choose another algorithm: SafePub takes no "
        "privacy model besides its (epsilon, delta)-differential privacy.",
    ),
    (
        {"more_models": 'name = "average_risk", threshold = 0.1'},
        "Other models, line 1 (average_risk): remove the line, or choose another algorithm: "
        "SafePub takes no privacy model besides its (epsilon, delta)-differential privacy.",
    ),
    (
        {"algorithm_options": "speed = 1"},
        "Other options: speed is not a parameter of safepub; its parameters are epsilon, "
        "delta, steps, score, search_share, select, seed.",
    ),
    (
        {"algorithm_options": "epsilon = 0"},
        "Other options: epsilon must be a real number > 0. Got 0.",
    ),
]


@pytest.mark.parametrize(("fields", "told"), SAFEPUB_MESSAGES, ids=lambda v: str(v)[:30])
def test_safepub_settings_it_would_not_use_are_told_in_the_pages_words(
    fields: dict[str, object], told: str
) -> None:
    from anonkit.app.steps.privacy import settings_from

    with pytest.raises(ParameterError) as caught:
        settings_from(_Fields(**{**SAFEPUB, **fields}), QI_ONLY, seed=7).check()
    assert str(caught.value) == told


def test_safepub_refuses_columns_it_would_publish_as_they_are() -> None:
    from anonkit.app.steps.privacy import settings_from

    roles = {**QI_ONLY, "sensitive": ["income"], "insensitive": ["ward"]}
    with pytest.raises(ParameterError) as caught:
        settings_from(_Fields(**SAFEPUB), roles, seed=7)
    assert str(caught.value) == (
        "Algorithm: SafePub releases the quasi-identifiers only: make income, ward "
        "identifying on Roles (removed from the release), or choose another algorithm."
    )


@pytest.mark.parametrize(
    ("fields", "told"),
    [
        (
            {"algorithm": "flash", "algorithm_options": "epsilon = 1"},
            "Other options: epsilon is an option of safepub and k_epsilon, not of flash; "
            "remove it or choose safepub or k_epsilon.",
        ),
        (
            {"algorithm": "hilbert", "algorithm_options": "capacity = 3"},
            "Other options: capacity is not a parameter of hilbert, which takes none.",
        ),
        (
            {"algorithm": "k_epsilon", "algorithm_options": 'metric = "height"'},
            "Other options: metric is set by the Metric field (loss); remove it from Other "
            "options and choose it in that field.",
        ),
        (
            {"algorithm": "flash", "metric": "height", "algorithm_options": 'metric = "loss"'},
            "Other options: metric is set by the Metric field (height); remove it from Other "
            "options and choose it in that field.",
        ),
    ],
    ids=["flash", "hilbert", "k_epsilon-metric", "flash-metric"],
)
def test_estimator_options_are_checked_against_the_algorithms_own_parameters(
    fields: dict[str, object], told: str
) -> None:
    from anonkit.app.steps.privacy import settings_from

    with pytest.raises(ParameterError) as caught:
        settings_from(_Fields(**fields), QI_ONLY, seed=7).check()
    assert str(caught.value) == told


def test_k_epsilon_takes_its_parameters_and_the_sessions_seed() -> None:
    """(k, ε)-anonymity ran without noise: its epsilon and noisy columns were refused
    as unknown options."""
    from anonkit.app.steps.privacy import settings_from

    typed = _Fields(
        algorithm="k_epsilon", metric="height", algorithm_options='epsilon = 0.5, noisy = ["n"]'
    )
    settings = settings_from(typed, QI_ONLY, seed=7)
    assert settings.options == {"options": {"epsilon": 0.5, "noisy": ["n"], "seed": 7}}
    assert settings.metric == "height"  # the Metric field, passed as anonymize's metric
    assert settings.k == 5 and len(settings.check()) == 0
    banga = settings_from(_Fields(algorithm="banga", algorithm_options="capacity = 9"), QI_ONLY)
    assert banga.options == {"options": {"capacity": 9}}
    assert settings_from(_Fields(algorithm="hilbert"), QI_ONLY, seed=7).options == {}
