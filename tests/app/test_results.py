"""Run and explore: the run is the API's, cancellable; the figures come from the result;
the alternatives agree with the search."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from anonkit.api import anonymize
from anonkit.app import results, workflow
from anonkit.models import KAnonymity
from anonkit.verify import verify_release

AdultRun = tuple[workflow.Loaded, dict[str, Any], results.RunOutcome]


@pytest.fixture(scope="module")
def adult_run() -> AdultRun:
    loaded = workflow.load_adult()
    starter = workflow.propose(loaded)
    roles = workflow.roles_by_kind({p.column: p.role for p in starter.proposals})
    specs = workflow.default_hierarchies(loaded, starter)
    keywords = results.anonymizer_keywords(
        roles, specs, k=5, models=[], suppression_limit=0.05, algorithm="flash", metric="loss"
    )
    progress = results.RunProgress()
    outcome = results.run(results.RunRequest(loaded.frame, keywords), progress)
    return loaded, keywords, outcome


def test_run_equals_anonymize_and_is_verified(adult_run: AdultRun) -> None:
    loaded, keywords, outcome = adult_run
    direct = anonymize(loaded.frame, **keywords)
    assert outcome.result.release.equals(direct.release)
    assert outcome.result.verified
    qi = keywords["quasi_identifiers"]
    check = verify_release(
        outcome.result.release,
        quasi_identifiers=qi,
        models=[KAnonymity(5)],
        n_records=loaded.frame.height,
        suppression_limit=0.05,
    )
    assert check.verified
    released = outcome.result.release.filter(pl.col(qi[0]) != "*")
    assert released.group_by(qi).len()["len"].min() >= 5


def test_progress_reports_stages_and_cancel_stops_the_run() -> None:
    progress = results.RunProgress()
    progress.stage("Searching", "nodes")
    progress(3, 10)
    assert progress.snapshot() == ("Searching", 3, 10)
    progress.cancel()
    with pytest.raises(results.RunCancelled):
        progress(4, 10)
    frame = workflow.load_adult().frame
    keywords = {"quasi_identifiers": ["age"], "k": 2, "others": "drop"}
    with pytest.raises(results.RunCancelled):
        results.run(results.RunRequest(frame, keywords), progress)


def test_alternatives_are_private_and_the_chosen_one_is_the_search_result(
    adult_run: AdultRun,
) -> None:
    _, _, outcome = adult_run
    alts = results.alternatives(outcome.estimator)
    assert list(outcome.alternatives) == alts  # found by the run, in its worker
    assert alts[0].chosen and sum(a.chosen for a in alts) == 1
    chosen = alts[0]
    assert dict(chosen.levels) == dict(outcome.result.transformation)
    assert chosen.suppressed == outcome.result.suppressed
    assert chosen.cost == pytest.approx(outcome.result.metrics["loss"])
    assert chosen.classes == outcome.result.classes.n_classes
    assert chosen.risk["prosecutor_max"] == pytest.approx(outcome.result.risk["prosecutor_max"])
    limit = int(0.05 * outcome.result.n_records)
    for alt in alts:
        assert alt.suppressed <= limit
        assert alt.risk["prosecutor_max"] is not None and alt.risk["prosecutor_max"] <= 1 / 5
        assert alt.cost >= chosen.cost - 1e-12  # the search's node is the cheapest


def test_an_alternative_node_matches_a_release_made_at_that_node(adult_run: AdultRun) -> None:
    loaded, keywords, outcome = adult_run
    alt = results.alternatives(outcome.estimator)[1]
    assert not alt.chosen and sum(alt.histogram.values()) == alt.classes
    # independently: generalize each column to the node's level with its hierarchy and
    # suppress the classes below k; the kept classes are the alternative's
    hierarchies = outcome.estimator.hierarchies_
    frame = loaded.frame.select(
        [
            pl.col(c)
            .cast(pl.String)
            .replace_strict(
                list(hierarchies[c].leaves),
                [hierarchies[c].generalize(v, lv) for v in hierarchies[c].leaves],
            )
            for c, lv in alt.levels.items()
        ]
    )
    sizes = frame.group_by(list(alt.levels)).len()["len"]
    assert int(sizes.filter(sizes < 5).sum()) == alt.suppressed
    assert int((sizes >= 5).sum()) == alt.classes


def test_local_recoding_has_no_alternatives() -> None:
    frame = pl.DataFrame({"age": [str(20 + i % 30) for i in range(60)]})
    keywords = {"quasi_identifiers": ["age"], "k": 3, "algorithm": "mondrian"}
    outcome = results.run(results.RunRequest(frame, keywords))
    assert results.alternatives(outcome.estimator) == []


def test_explore_tables_and_charts(adult_run: AdultRun) -> None:
    loaded, _, outcome = adult_run
    loss = results.loss_rows(outcome.result)
    assert any(r["figure"].startswith("Generalized information loss") for r in loss)
    risk = {r["figure"]: r["value"] for r in results.risk_rows(outcome.result)}
    assert risk["Highest prosecutor risk"] == pytest.approx(0.2)
    assert "Records above the risk threshold" in risk
    svg = results.class_size_svg(outcome.result.classes.histogram)
    assert svg.startswith("<svg") and "5-9" in svg
    before, after = results.distribution_svgs(loaded.frame, outcome.result.release, "age")
    assert "age: original" in before and "age: released" in after
    assert "more values" in before


def test_no_record_value_in_progress_or_errors(tmp_path: Path) -> None:
    progress = results.RunProgress()
    frame = pl.DataFrame({"name": ["Ann Example", "Bob Example"], "age": ["31", "32"]})
    keywords = {"quasi_identifiers": ["age"], "k": 2, "insensitive": ["name"]}
    try:
        results.run(results.RunRequest(frame, keywords), progress)
    except Exception as err:  # noqa: BLE001 - whatever it is, it must not show a value
        assert "Example" not in str(err)
    assert "Example" not in repr(progress.snapshot())


def test_a_column_suppressed_for_want_of_a_hierarchy_is_a_note() -> None:
    frame = pl.DataFrame({"age": ["31", "32", "33", "51"], "sex": ["f", "f", "m", "m"]})
    keywords = {"quasi_identifiers": ["age", "sex"], "k": 2}
    with pytest.warns(UserWarning, match="'age' had no hierarchy"):
        outcome = results.run(results.RunRequest(frame, keywords), with_alternatives=False)
    [note] = results.notes(outcome.result)
    assert note.startswith("age had no hierarchy") and "Hierarchies page" in note
    given = {**keywords, "hierarchies": {"age": {"type": "intervals", "widths": [10, 100]}}}
    assert results.notes(results.run(results.RunRequest(frame, given)).result) == []


@pytest.mark.parametrize("name", ["n", "value", "records"])
def test_distributions_of_a_column_named_like_the_count(name: str) -> None:
    """The Explore page's charts of a column named 'n' failed (polars DuplicateError:
    the value count's own column was 'n')."""
    original = pl.DataFrame({name: ["a", "b", "a"]})
    release = pl.DataFrame({name: ["*", "*", "*"]})
    before, after = results.distribution_svgs(original, release, name)
    assert f"{name}: original" in before and f"{name}: released" in after
    assert "a: 2" in before and "*: 3" in after


def test_a_metric_is_passed_only_to_algorithms_that_take_one() -> None:
    # The Metric field is on the page whatever the algorithm; anonymize() now refuses a
    # metric an algorithm would ignore, so the app must not pass it to them.
    frame = pl.DataFrame({"age": [str(20 + i % 30) for i in range(60)]})
    roles = {"quasi_identifier": ["age"], "identifying": [], "sensitive": [], "insensitive": []}
    for algorithm, takes in (("mondrian", False), ("flash", True), ("k_optimize", True)):
        keywords = results.anonymizer_keywords(
            roles, {}, k=3, models=[], suppression_limit=0.0, algorithm=algorithm,
            metric="height", numeric=["age"] if algorithm == "mondrian" else (),
        )  # fmt: skip
        assert ("metric" in keywords) is takes, algorithm
        if algorithm == "mondrian":
            assert results.run(results.RunRequest(frame, keywords)).result.verified
