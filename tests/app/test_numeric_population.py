"""Numeric quasi-identifiers (Mondrian, microaggregation) and the population table
(k-map, δ-presence, journalist risk): through the API, checked independently, and
reproduced by the CLI from the exported TOML."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from anonkit.app import export, population, results, workflow
from anonkit.config import load_config, run_config
from anonkit.evaluate import evaluate
from anonkit.exceptions import ParameterError
from anonkit.models import KAnonymity, KMap
from anonkit.verify import verify_release

QI = ["age", "sex", "race"]


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> tuple[workflow.Loaded, Path]:
    """3,000 Adult records (a CSV) and their population: the whole of Adult."""
    folder = tmp_path_factory.mktemp("pop")
    adult = workflow.load_adult()
    path = folder / "sample.csv"
    adult.frame.select(QI).head(3000).write_csv(path, separator=";")
    population_path = folder / "population.csv"
    adult.frame.select(QI).write_csv(population_path, separator=";")
    return workflow.load_table(path), population_path


def _roles() -> dict[str, list[str]]:
    return {"quasi_identifier": QI, "identifying": [], "sensitive": [], "insensitive": []}


def _specs(loaded: workflow.Loaded) -> dict[str, object]:
    """The bundled Adult hierarchy files (they cover the population's values too)."""
    adult = workflow.load_adult()
    specs = workflow.default_hierarchies(adult, workflow.propose(adult))
    return {c: specs[c] for c in QI}


def _toml(loaded: workflow.Loaded, settings: workflow.Settings, tmp: Path, **more: object) -> Path:
    text = export.config_toml(
        input=loaded.path, read=loaded.read, roles=_roles(), hierarchies=_specs(loaded),
        k=settings.k, suppression_limit=settings.suppression_limit,
        models=[(m.name, m.params) for m in settings.models], algorithm=settings.algorithm,
        metric=settings.metric, options=settings.options, numeric=settings.numeric,
        **more,  # type: ignore[arg-type]
    )  # fmt: skip
    path = tmp / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _run(
    loaded: workflow.Loaded, settings: workflow.Settings, pop: pl.DataFrame | None = None
) -> results.RunOutcome:
    keywords = results.anonymizer_keywords(
        _roles(), _specs(loaded), k=settings.k, models=settings.check(),
        suppression_limit=settings.suppression_limit, algorithm=settings.algorithm,
        metric=settings.metric, options=settings.options, numeric=settings.numeric,
        population=pop,
    )  # fmt: skip
    return results.run(results.RunRequest(loaded.frame, keywords))


def test_mondrian_releases_numeric_means_and_the_cli_agrees(
    sample: tuple[workflow.Loaded, Path], tmp_path: Path
) -> None:
    loaded, _ = sample
    settings = workflow.Settings(
        k=5, suppression_limit=0.0, algorithm="mondrian", numeric=("age",),
        options={"numeric_release": "mean"},
    )  # fmt: skip
    outcome = _run(loaded, settings)
    release = outcome.result.release
    assert outcome.result.verified
    ages = release["age"].cast(pl.Float64, strict=False)
    assert ages.null_count() == 0  # means, not ranges
    assert release.group_by(QI).len()["len"].min() >= 5  # recounted from the release
    cfg = load_config(_toml(loaded, settings, tmp_path))
    assert cfg.numeric == ("age",) and dict(cfg.options) == {"numeric_release": "mean"}
    assert run_config(cfg).release.equals(release)


def test_microaggregation_aggregates_every_numeric_quasi_identifier(
    sample: tuple[workflow.Loaded, Path],
) -> None:
    loaded, _ = sample
    frame = loaded.frame.select("age").with_columns(pl.col("age").alias("hours"))
    settings = workflow.Settings(
        k=4, suppression_limit=0.0, algorithm="microaggregation", numeric=("age", "hours"),
        options={"aggregate": "median"},
    )  # fmt: skip
    keywords = results.anonymizer_keywords(
        {"quasi_identifier": ["age", "hours"], "identifying": [], "sensitive": [],
         "insensitive": []},
        {}, k=4, models=settings.check(), suppression_limit=0.0, algorithm="microaggregation",
        metric="loss", options=settings.options, numeric=settings.numeric,
    )  # fmt: skip
    outcome = results.run(results.RunRequest(frame, keywords))
    assert outcome.result.verified and outcome.alternatives == ()
    assert outcome.result.release.group_by(["age", "hours"]).len()["len"].min() >= 4


def test_numeric_settings_are_checked_before_the_run(
    sample: tuple[workflow.Loaded, Path],
) -> None:
    loaded, _ = sample
    with pytest.raises(ParameterError, match="numeric"):
        workflow.Settings(algorithm="flash", numeric=("age",)).check()
    with pytest.raises(ParameterError, match="'sex' holds 3000 value"):
        workflow.check_numeric(loaded.frame, ["sex"], QI)
    with pytest.raises(ParameterError, match="quasi-identifiers only"):
        workflow.check_numeric(loaded.frame, ["age"], ["sex"])
    workflow.check_numeric(loaded.frame, ["age"], QI)


def test_population_gives_journalist_risk_without_a_model(
    sample: tuple[workflow.Loaded, Path],
) -> None:
    loaded, population_path = sample
    pop = population.load_population(population_path, loaded.read)
    assert pop.frame.height == 30162 and pop.name == "population.csv"
    settings = workflow.Settings(k=5, suppression_limit=0.02, algorithm="flash")
    outcome = _run(loaded, settings, pop.frame)
    assert outcome.result.risk["journalist_max"] is None  # no model read the population
    risk = outcome.risk
    assert risk["journalist_max"] is not None
    assert risk["journalist_max"] <= risk["prosecutor_max"]
    # the independent measuring path (anonkit.evaluate) gives the same figure
    measured = evaluate(
        loaded.frame, outcome.result.release, quasi_identifiers=QI,
        hierarchies=_specs(loaded), population=pop.frame,
    )  # fmt: skip
    assert measured.risk["journalist_max"] == pytest.approx(risk["journalist_max"])
    rows = {r["figure"]: r["value"] for r in results.risk_rows(outcome.result, outcome.risk)}
    assert any("ournalist" in name for name in rows)


def test_k_map_needs_the_population_and_the_cli_agrees(
    sample: tuple[workflow.Loaded, Path], tmp_path: Path
) -> None:
    loaded, population_path = sample
    spec = workflow.ModelSpec("k_map", {"k": 20})
    settings = workflow.Settings(k=3, suppression_limit=0.02, models=(spec,), algorithm="flash")
    models = settings.check()
    with pytest.raises(ParameterError, match="20-map needs a population table"):
        population.check_population(None, QI, models)
    pop = population.load_population(population_path, loaded.read)
    population.check_population(pop, QI, models)
    outcome = _run(loaded, settings, pop.frame)
    assert outcome.result.risk["journalist_max"] is not None
    assert outcome.risk["journalist_max"] <= 1 / 20
    check = verify_release(
        outcome.result.release, quasi_identifiers=QI, models=[KAnonymity(3), KMap(20)],
        n_records=loaded.frame.height, suppression_limit=0.02, population=pop.frame,
        hierarchies=_specs(loaded),
    )  # fmt: skip
    assert check.verified
    cfg = load_config(_toml(loaded, settings, tmp_path, population=pop.path))
    assert cfg.population == pop.path
    assert run_config(cfg).release.equals(outcome.result.release)


def test_population_lacking_a_quasi_identifier_is_named(
    sample: tuple[workflow.Loaded, Path], tmp_path: Path
) -> None:
    loaded, _ = sample
    path = tmp_path / "p.csv"
    loaded.frame.select("age", "sex").write_csv(path, separator=";")
    pop = population.load_population(path, loaded.read)
    with pytest.raises(ParameterError, match="lacks 'race'"):
        population.check_population(pop, QI, [])
    text = export.config_toml(
        input=loaded.path, read=loaded.read, roles=_roles(), hierarchies={}, k=2,
        suppression_limit=0.0, algorithm="flash", metric="loss", population=path,
        renamed={str(path): "people-population.csv"},
    )  # fmt: skip
    assert 'population = "people-population.csv"' in text


def test_builder_hierarchies_cover_the_population_in_the_cli(
    sample: tuple[workflow.Loaded, Path], tmp_path: Path
) -> None:
    loaded, population_path = sample
    spec = workflow.ModelSpec("k_map", {"k": 20})
    settings = workflow.Settings(k=3, suppression_limit=0.02, models=(spec,), algorithm="flash")
    pop = population.load_population(population_path, loaded.read)
    builders = {"age": {"type": "intervals", "widths": [5, 10, 20]}}
    keywords = results.anonymizer_keywords(
        _roles(), builders, k=3, models=settings.check(), suppression_limit=0.02,
        algorithm="flash", metric="loss", population=pop.frame,
    )  # fmt: skip
    outcome = results.run(results.RunRequest(loaded.frame, keywords))
    text = export.config_toml(
        input=loaded.path, read=loaded.read, roles=_roles(), hierarchies=builders, k=3,
        suppression_limit=0.02, models=[("k_map", {"k": 20})], algorithm="flash",
        metric="loss", population=pop.path,
    )  # fmt: skip
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    assert run_config(load_config(path)).release.equals(outcome.result.release)


def test_a_release_generalized_to_star_everywhere_keeps_its_risk_with_a_population() -> None:
    """A run that suppressed nothing but generalized every quasi-identifier to '*' has one
    class of all records: the risk measured against the population must not take that
    class for suppressed records (it showed 0 where the result says 1/4)."""
    frame = pl.DataFrame({"zip": ["1", "2", "3", "4"]})
    pop = pl.DataFrame({"zip": ["1", "2", "3", "4"] * 3})
    roles = {"quasi_identifier": ["zip"], "identifying": [], "sensitive": [], "insensitive": []}
    specs = {"zip": [[z, "*"] for z in "1234"]}
    keywords = results.anonymizer_keywords(
        roles, specs, k=4, models=[], suppression_limit=0.0, algorithm="flash",
        metric="loss", population=pop,
    )  # fmt: skip
    outcome = results.run(results.RunRequest(frame, keywords), with_alternatives=False)
    assert outcome.result.suppressed == 0 and outcome.result.transformation == {"zip": 1}
    for key in ("prosecutor_max", "prosecutor_average", "sample_uniqueness", "records_at_risk"):
        assert outcome.risk[key] == pytest.approx(outcome.result.risk[key]), key
    assert outcome.risk["journalist_max"] == pytest.approx(1 / 12)


def test_the_report_shows_the_journalist_risk_explore_shows(
    sample: tuple[workflow.Loaded, Path],
) -> None:
    """The exported report has the risk figures of Explore (``RunOutcome.risk``), the
    journalist risk measured against the population among them, and names the
    population table."""
    loaded, population_path = sample
    pop = population.load_population(population_path, loaded.read)
    settings = workflow.Settings(k=5, suppression_limit=0.02, algorithm="flash")
    outcome = _run(loaded, settings, pop.frame)
    assert outcome.result.risk["journalist_max"] is None
    html = export.report_html(
        outcome.result, title="T", settings={"k": 5}, heights={}, risk=outcome.risk,
        population=pop,
    )  # fmt: skip
    shown = {r["figure"]: r["value"] for r in results.risk_rows(outcome.result, outcome.risk)}
    assert "Highest journalist risk" in shown and "Average journalist risk" in shown
    for key in ("journalist_max", "journalist_average", "marketer", "prosecutor_max"):
        assert f"{outcome.risk[key]:.2%}" in html, key
    assert "population.csv" in html and "30,162" in html
