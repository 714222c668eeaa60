"""The steward's HTML report, its SVG plots and the achieved-levels measurement behind it."""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from anonkit.core.hierarchy import Hierarchy
from anonkit.evaluate import evaluate
from anonkit.exceptions import EmptyDataError, ParameterError, UnknownColumnError
from anonkit.metric_info import percent_label
from anonkit.metrics.levels import (
    check_models,
    json_ready,
    model_attributes,
    privacy_levels,
    released_classes,
)
from anonkit.models import (
    DistinctLDiversity,
    EqualDistanceTCloseness,
    KAnonymity,
    KMap,
    RecursiveCLDiversity,
)
from anonkit.report import render_html
from anonkit.report.evaluation import SECTIONS, render_evaluation_html
from anonkit.report.plots import bar_chart_svg
from anonkit.study.plots import accuracy_vs_k_svgs, metric_vs_accuracy_svg, metric_vs_k_svg
from anonkit.study.report import render_study_report
from fresh_python import fresh_stdout
from seed_tables import HOSPITAL

# Seed 001 hospital table and its 4-anonymous release (Zip, Age, Nationality; Disease).
RELEASED = [("130**", "<30", "*")] * 4 + [("1485*", ">40", "*")] * 4 + [("130**", "3*", "*")] * 5
QI = ["Zip", "Age", "Nationality"]


def hospital_release() -> pl.DataFrame:
    rows = [(*r, o[3]) for r, o in zip(RELEASED, HOSPITAL, strict=True)]
    return pl.DataFrame(rows, schema=[*QI, "Disease"], orient="row")


def hospital_original() -> pl.DataFrame:
    return pl.DataFrame(HOSPITAL, schema=[*QI, "Disease"], orient="row")


def hospital_hierarchies() -> dict[str, Hierarchy]:
    zips = sorted({r[0] for r in HOSPITAL})
    ages = sorted({r[1] for r in HOSPITAL})
    nations = sorted({r[2] for r in HOSPITAL})

    def age_group(a: str) -> str:
        return "<30" if int(a) < 30 else ("3*" if int(a) < 40 else ">40")

    return {
        "Zip": Hierarchy([[z, z[:4] + "*", z[:3] + "**", "*"] for z in zips], name="Zip"),
        "Age": Hierarchy([[a, age_group(a), "*"] for a in ages], name="Age"),
        "Nationality": Hierarchy([[n, "*"] for n in nations], name="Nationality"),
    }


# ------------------------------------------------------------------------- levels
def test_hospital_levels_by_hand() -> None:
    classes = released_classes(hospital_release(), QI, ["Disease"])
    assert classes.summary.sizes.tolist() == [5, 4, 4]  # keys in text order
    assert [classes.key(i)["Age"] for i in range(3)] == ["3*", "<30", ">40"]
    levels = privacy_levels(classes, l_values=[2])
    assert levels["k"] == 4
    assert levels["average_risk"] == pytest.approx(3 / 13)
    d = levels["sensitive"]["Disease"]
    assert d["distinct_l"] == 1  # the 3* class is all Cancer
    assert d["entropy_l"] == 1.0
    assert math.isinf(d["recursive_c"]["2"])  # a class with one value: no c works
    # table: Cancer 6, Heart 3, Viral 4 of 13; the Cancer class: |1 - 6/13| = 7/13
    assert d["t_equal"] == pytest.approx(7 / 13)
    assert d["order"] == "alphabetical" and "t_hierarchical" not in d
    # δ: the Cancer class has q/p = 13/6; the <30 class Heart q = 1/2, p = 3/13
    assert d["delta"] == pytest.approx(max(math.log(13 / 6), math.log(13 / 6)))
    assert d["beta_basic"] == pytest.approx((1 / 2 - 3 / 13) / (3 / 13))


def test_suppressed_records_are_no_class_but_count_in_totals() -> None:
    release = pl.concat(
        [
            hospital_release(),
            pl.DataFrame([("*", "*", "*", "Flu")], schema=[*QI, "Disease"], orient="row"),
        ]
    )
    classes = released_classes(release, QI, ["Disease"])
    assert classes.n_suppressed == 1 and classes.n_records == 14
    assert classes.summary.sizes.sum() == 13
    column = classes.summary.sensitive["Disease"]
    assert column.labels == ("Cancer", "Flu", "Heart", "Viral")
    assert column.totals.tolist() == [6, 1, 3, 4]
    assert column.histogram[:, 1].sum() == 0  # the suppressed record is in no class
    d = privacy_levels(classes)["sensitive"]["Disease"]
    # Cancer class against the table with Flu: (1 - 6/14 + 1/14 + 3/14 + 4/14) / 2
    assert d["t_equal"] == pytest.approx((1 - 6 / 14 + 8 / 14) / 2)


def test_numeric_labels_in_numeric_order_and_hierarchy_distance() -> None:
    frame = pl.DataFrame(
        {
            "q": ["a", "a", "b", "b"],
            "salary": ["10", "9", "100", "9"],
            "disease": ["flu", "cold", "ulcer", "flu"],
        }
    )
    h = Hierarchy([["flu", "resp", "*"], ["cold", "resp", "*"], ["ulcer", "dig", "*"]])
    classes = released_classes(frame, ["q"], ["salary", "disease"], hierarchies={"disease": h})
    assert classes.summary.sensitive["salary"].labels == ("9", "10", "100")
    assert classes.summary.sensitive["disease"].labels == ("flu", "cold", "ulcer")
    levels = privacy_levels(classes)
    assert levels["sensitive"]["salary"]["order"] == "numeric"
    assert levels["sensitive"]["disease"]["order"] == "hierarchy"
    assert "t_hierarchical" in levels["sensitive"]["disease"]
    # salary class a = {9, 10}, table {9: 2, 10: 1, 100: 1}: r = (1/2-1/2, 1/2-1/4, -1/4)
    assert levels["sensitive"]["salary"]["t_ordered"] == pytest.approx((0 + 0.25) / 2)


def test_check_models_lists_failing_classes_with_released_values_only() -> None:
    classes = released_classes(hospital_release(), QI, ["Disease"])
    checks = check_models(
        classes,
        [KAnonymity(5), DistinctLDiversity("Disease", l=2), RecursiveCLDiversity("Disease", 3, 2)],
        limit=1,
    )
    k5, l2, rec = checks
    assert (k5.failing_classes, k5.failing_records, k5.satisfied) == (2, 8, False)
    assert len(k5.examples) == 1  # capped at the limit
    assert dict(k5.examples[0]) == {"Zip": "130**", "Age": "<30", "Nationality": "*"}
    assert (l2.failing_classes, l2.failing_records) == (1, 5)
    assert dict(l2.examples[0])["Age"] == "3*"
    released_values = {v for row in RELEASED for v in row}
    for check in checks:
        for key in check.examples:
            assert set(key.values()) <= released_values
    assert k5.to_dict()["examples"] == [dict(k5.examples[0])]
    assert model_attributes([KAnonymity(2), EqualDistanceTCloseness("Disease", 0.2)]) == ["Disease"]


def test_levels_errors() -> None:
    frame = hospital_release()
    with pytest.raises(UnknownColumnError):
        released_classes(frame, ["Zip", "nope"])
    with pytest.raises(ParameterError):
        released_classes(frame, ["Zip"], ["Zip"])
    with pytest.raises(EmptyDataError):
        released_classes(frame.head(0), ["Zip"])
    classes = released_classes(frame, QI)
    with pytest.raises(ParameterError, match="population"):
        check_models(classes, [KMap(2)])
    with pytest.raises(ParameterError):
        check_models(classes, [], limit=-1)
    everything_suppressed = released_classes(
        frame.with_columns(
            pl.lit("*").alias("Zip"), pl.lit("*").alias("Age"), pl.lit("*").alias("Nationality")
        ),
        QI,
        ["Disease"],
    )
    assert privacy_levels(everything_suppressed) == {"classes": 0}
    assert check_models(everything_suppressed, [KAnonymity(2)])[0].failing_classes == 0


def test_population_counts_match_an_independent_grouping(shared_data: Path) -> None:
    """k-map on the Adult subset with Adult as population (issue 3)."""
    from anonkit import anonymize

    folder = shared_data / "adult"
    qi = ["sex", "age", "race", "education"]
    hierarchies = {c: folder / f"adult_hierarchy_{c}.csv" for c in qi}
    sample = pl.read_csv(folder / "adult_subset.csv", separator=";", infer_schema=False)
    population = pl.read_csv(folder / "adult.csv", separator=";", infer_schema=False)
    result = anonymize(
        sample,
        quasi_identifiers=qi,
        hierarchies=hierarchies,
        k=3,
        suppression_limit=0.02,
        others="keep",
    )
    classes = released_classes(result.release, qi, hierarchies=hierarchies, population=population)
    # independent: generalize the population to the same levels and count per key
    gen = population.select(
        pl.col(c).replace_strict(
            list(Hierarchy.from_csv(hierarchies[c]).leaves),
            [row[result.transformation[c]] for row in Hierarchy.from_csv(hierarchies[c]).rows],
        )
        for c in qi
    )
    counts = {tuple(r[:-1]): r[-1] for r in gen.group_by(qi).len().iter_rows()}
    expected = [
        counts.get(tuple(classes.key(i)[c] for c in qi), 0) for i in range(classes.n_classes)
    ]
    assert classes.summary.population is not None
    assert classes.summary.population.tolist() == expected
    assert classes.summary.population_size == population.height
    levels = privacy_levels(classes)
    assert levels["k_map"] == min(expected)
    sizes = classes.summary.sizes
    assert levels["presence"]["max"] == pytest.approx(max(sizes / np.array(expected)))
    failing = check_models(classes, [KMap(levels["k_map"] + 1)])[0]
    assert failing.failing_classes == sum(1 for e in expected if e == min(expected))


def test_json_ready() -> None:
    value = {"a": np.int64(3), "b": [np.float64(0.5), math.inf, math.nan], "c": (1, "x")}
    assert json_ready(value) == {"a": 3, "b": [0.5, None, None], "c": [1, "x"]}


# -------------------------------------------------------------------------- plots
def test_plain_svg_bar_chart_escapes_and_scales() -> None:
    svg = bar_chart_svg(["<b>&", "b"], [2, 4], title='A "t" <i>', xlabel="n")
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "<b>" not in svg and "&lt;b&gt;&amp;" in svg and "<i>" not in svg
    widths = [float(w) for w in re.findall(r'<rect [^>]*width="([\d.]+)"', svg)]
    assert widths == [pytest.approx(180.0), pytest.approx(360.0)]
    half = bar_chart_svg(["a"], [0.5], title="x", maximum=1.0)
    assert float(re.findall(r'<rect [^>]*width="([\d.]+)"', half)[0]) == pytest.approx(180.0)
    with pytest.raises(ValueError):
        bar_chart_svg(["a"], [1, 2], title="x")


def test_report_charts_need_no_plotting_library(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import raises ImportError
    ev = evaluate(
        hospital_original(),
        hospital_release(),
        quasi_identifiers=QI,
        hierarchies=hospital_hierarchies(),
        sensitive=["Disease"],
    )
    page = render_evaluation_html(ev)
    assert page.count("<svg") == 3
    assert render_evaluation_html(ev, renderer="svg").count("<svg") == 3  # the old switch
    with pytest.raises(ValueError, match="'matplotlib'"):
        render_evaluation_html(ev, renderer="matplotlib")  # type: ignore[arg-type]


# ---------------------------------------------------------------- renamed keywords
def _study_frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "dataset": ["toy"] * 5,
            "fold": [0] * 5,
            "k": [2, 5, 10, 50, 100],
            "algorithm": ["flash"] * 5,
            "cell": ["flash:loss"] * 5,
            "classifier": ["random_forest"] * 5,
            "evaluation": ["anonymized_test"] * 5,
            "accuracy": [0.84, 0.83, 0.81, 0.80, 0.76],
            "loss_ncp": [0.10, 0.15, 0.22, 0.40, 0.51],
            "status": ["ok"] * 5,
        }
    )


def test_render_evaluation_html_plots_keyword_is_a_deprecated_alias() -> None:
    ev = evaluate(
        hospital_original(),
        hospital_release(),
        quasi_identifiers=QI,
        hierarchies=hospital_hierarchies(),
    )
    with pytest.warns(DeprecationWarning, match="renderer='svg'") as caught:
        page = render_evaluation_html(ev, plots="svg")
    assert caught[0].filename == __file__  # points at the caller
    assert page == render_evaluation_html(ev, renderer="svg")
    with pytest.raises(ParameterError, match="'plots'.*'renderer'"):
        render_evaluation_html(ev, renderer="svg", plots="svg")
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="'matplotlib'"):
        render_evaluation_html(ev, plots="matplotlib")  # type: ignore[arg-type]


def test_render_study_report_plots_keyword_is_a_deprecated_alias() -> None:
    frame = _study_frame()
    with pytest.warns(DeprecationWarning, match="renderer='svg'") as caught:
        page = render_study_report(frame, plots="svg")
    assert caught[0].filename == __file__
    assert page.count("<svg") == render_study_report(frame, renderer="svg").count("<svg") >= 3
    with pytest.raises(ParameterError, match="'plots'.*'renderer'"):
        render_study_report(frame, renderer="svg", plots="auto")
    with pytest.raises(ValueError, match="'png'"):
        render_study_report(frame, renderer="png")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "draw",
    [
        lambda frame, **kw: accuracy_vs_k_svgs(frame, **kw),
        lambda frame, **kw: metric_vs_k_svg(frame, "loss_ncp", **kw),
        lambda frame, **kw: metric_vs_accuracy_svg(frame, "loss_ncp", **kw),
    ],
    ids=["accuracy_vs_k_svgs", "metric_vs_k_svg", "metric_vs_accuracy_svg"],
)
def test_study_plot_engine_keyword_is_a_deprecated_alias(draw) -> None:
    frame = _study_frame()
    expected = draw(frame, renderer="svg")
    assert expected
    with pytest.warns(DeprecationWarning, match="'engine'.*renderer='svg'"):
        assert draw(frame, engine="svg") == expected
    with pytest.raises(ParameterError, match="'engine'.*'renderer'"):
        draw(frame, renderer="svg", engine="svg")
    with pytest.raises(ValueError, match="'png'"):
        draw(frame, renderer="png")


def test_importing_the_report_does_not_import_matplotlib() -> None:
    code = (
        "import sys, anonkit.report, anonkit.report.plots, anonkit.cli.main\n"
        "print('matplotlib' in sys.modules, 'jinja2' in sys.modules)\n"
    )
    assert fresh_stdout(code) == "False False"


# ------------------------------------------------------------------------- report
@pytest.fixture(scope="module")
def hospital_page() -> str:
    ev = evaluate(
        hospital_original(),
        hospital_release(),
        quasi_identifiers=QI,
        hierarchies=hospital_hierarchies(),
        sensitive=["Disease"],
        class_attribute="Disease",
        k=4,
    )
    classes = released_classes(hospital_release(), QI, ["Disease"], normalize=True)
    return render_evaluation_html(
        ev,
        title="Hospital <release>",
        settings={"file": "<script>alert(1)</script>.csv", "models": ["4-anonymity"]},
        levels=json_ready(privacy_levels(classes)),
        models=check_models(classes, [KAnonymity(4), DistinctLDiversity("Disease", l=2)]),
        transformation={"Zip": 2, "Age": 1, "Nationality": 1},
        heights={"Zip": 4, "Age": 3, "Nationality": 2},
    )


def test_report_sections_and_plots(hospital_page: str) -> None:
    page = hospital_page
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    for heading in SECTIONS[:-1]:
        assert f"<h2>{heading}</h2>" in page
    assert page.count("<svg") >= 2
    for text in (
        "Distinct ℓ-diversity",
        "t-closeness, equal distance",
        "δ-disclosure",
        "Basic β-likeness",
        "Highest prosecutor risk",
        "Discernibility",
        "Records per level",
        "2 / 3",
        "not met",
    ):
        assert text in page, text
    # each figure carries its explanation
    assert "Fewest different sensitive values in any group" in page
    assert "Each record is charged the number of records" in page


def test_report_is_self_contained_and_escaped(hospital_page: str) -> None:
    page = hospital_page
    for banned in ("http://", "https://", "<script", "<link", "src="):
        assert banned not in page
    assert "Hospital &lt;release&gt;" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;.csv" in page


def test_report_holds_no_original_values(hospital_page: str) -> None:
    for zip_code, age, nation, _ in HOSPITAL:
        for value in (zip_code, nation):
            assert value not in hospital_page
        assert f">{age}<" not in hospital_page


def test_report_from_evaluation_alone() -> None:
    ev = evaluate(
        hospital_original(),
        hospital_release(),
        quasi_identifiers=QI,
        hierarchies=hospital_hierarchies(),
        sensitive=["Disease"],
    )
    page = render_evaluation_html(ev)
    assert "Distinct ℓ-diversity" in page and "Entropy ℓ-diversity" in page
    assert "Requested privacy models" not in page


def test_short_report_of_a_result_still_renders(
    adult_frame: pl.DataFrame, adult_hierarchies: dict[str, Path]
) -> None:
    from anonkit import anonymize

    qi = ["sex", "race"]
    result = anonymize(
        adult_frame,
        quasi_identifiers=qi,
        hierarchies={c: adult_hierarchies[c] for c in qi},
        k=2,
        others="keep",
    )
    page = render_html(result, title="t", config_summary={"k": 2, "qi": qi})
    assert "achieved k" in page and "Information loss" in page and "sex, race" in page
    assert "not proven optimal" not in page  # Flash proved it


def test_short_report_says_a_heuristic_release_is_not_proven_optimal(
    adult_frame: pl.DataFrame, adult_hierarchies: dict[str, Path]
) -> None:
    from anonkit import anonymize

    qi = ["sex", "race", "age", "education"]
    result = anonymize(
        adult_frame,
        quasi_identifiers=qi,
        hierarchies={c: adult_hierarchies[c] for c in qi},
        k=5,
        suppression_limit=0.05,
        algorithm="lightning",
        max_nodes=3,
        others="keep",
    )
    assert result.search_note is not None
    page = render_html(result, title="t")
    assert f"The release is {result.search_note}." in page


def test_short_report_shows_risk_measured_beside_the_result(
    adult_frame: pl.DataFrame, adult_hierarchies: dict[str, Path]
) -> None:
    """Figures measured after the run (the journalist risk against a population table,
    as the app's Explore page shows them) replace the result's, with their note."""
    from anonkit import anonymize

    qi = ["sex", "race"]
    result = anonymize(
        adult_frame,
        quasi_identifiers=qi,
        hierarchies={c: adult_hierarchies[c] for c in qi},
        k=2,
        others="keep",
    )
    assert result.risk["journalist_max"] is None
    plain = render_html(result, title="t")
    risk = {**result.risk, "journalist_max": 0.0123, "journalist_average": 0.0045}
    page = render_html(
        result, title="t", risk=risk, risk_note="Measured against the register (9 records)."
    )
    assert "1.23%" in page and "0.45%" in page and "Average journalist risk" in page
    assert "Measured against the register (9 records)." in page
    assert "1.23%" not in plain and "Measured against" not in plain


def test_evaluation_report_shows_every_share_with_the_same_decimals() -> None:
    """A share of 1 (a record alone in its group) reads like the others, not like a
    count: "1.0000 (100.00%)", never "1 (100.00%)"."""
    original = pl.DataFrame({"age": ["30", "31", "40", "41", "50"]})
    release = pl.DataFrame({"age": ["3*", "3*", "4*", "4*", "50"]})
    ev = evaluate(original, release, quasi_identifiers=["age"])
    assert ev.risk["prosecutor_max"] == 1.0
    page = render_evaluation_html(ev)
    assert "1.0000 (100.00%)" in page
    assert not re.search(r">\s*[01] \(\d+\.\d\d%\)", page)


def test_short_report_of_a_local_recoding_counts_no_lattice_nodes(
    adult_frame: pl.DataFrame,
) -> None:
    """Mondrian evaluates no transformation of a lattice: the report says what it did,
    not "0 of 0 transformations were evaluated"."""
    from anonkit import anonymize

    qi = ["sex", "race"]
    result = anonymize(
        adult_frame.head(500), quasi_identifiers=qi, k=5, algorithm="mondrian", others="keep"
    )
    assert result.family == "local" and result.lattice_size == 0
    page = render_html(result, title="t")
    assert "transformations were evaluated" not in page
    assert "Local recoding" in page


def test_risk_caption_names_the_population_only_when_a_table_was_measured() -> None:
    """The caption said "against the population" with only population_size, where the
    chart shows the release's own classes (a size estimates uniqueness, nothing else)."""
    common = {"quasi_identifiers": QI, "hierarchies": hospital_hierarchies()}
    sized = evaluate(hospital_original(), hospital_release(), population_size=100, **common)
    caption = "the size of their group, against the population"
    assert caption not in render_evaluation_html(sized)
    table = evaluate(
        hospital_original(), hospital_release(), population=hospital_original(), **common
    )
    assert caption in render_evaluation_html(table)


def test_a_risk_threshold_off_whole_percent_is_shown_as_given() -> None:
    """risk_threshold=0.125 was shown as "above 12%": a reader counts the records of a
    class of 8 (risk 12.5 %) as at risk, and the figure does not."""
    ev = evaluate(
        hospital_original(),
        hospital_release(),
        quasi_identifiers=QI,
        hierarchies=hospital_hierarchies(),
        risk_threshold=0.125,
    )
    explanation = next(
        r["explanation"] for r in ev.to_dict()["risk"] if r["name"] == "records_at_risk"
    )
    assert "12.5%" in explanation
    assert "12.5%" in render_evaluation_html(ev)
    assert percent_label(0.2) == "20%"
    assert percent_label(0.125) == "12.5%"
    assert percent_label(1 / 3) == "33.3333%"
