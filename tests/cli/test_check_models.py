"""``anonkit check`` with sensitive attributes and requested privacy models.

The achieved levels are checked against pycanon (an independent implementation) on Adult
releases: k, distinct ℓ, entropy ℓ (pycanon truncates it to an int) and t for the equal
(text column) and ordered (numeric column) distances. pycanon gets a pandas frame with a
fresh 0..n-1 index. Its recursive (c, ℓ) and δ-disclosure follow other definitions and
are not compared. Failing classes are checked against a pandas groupby.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd
import polars as pl
import pytest
from typer.testing import CliRunner

from anonkit import anonymize
from anonkit.cli.main import app
from anonkit.core.hierarchy import Hierarchy

runner = CliRunner()

#: Quasi-identifiers without age, so that age can be a numeric sensitive attribute.
QI = ["sex", "race", "marital-status", "education", "native-country", "workclass"]


def check_json(*args: str) -> dict[str, object]:
    result = runner.invoke(app, ["check", *args, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def kept_release(
    shared_data: Path, folder: Path, k: int, limit: float
) -> tuple[Path, pd.DataFrame]:
    """An Adult release without its suppressed records, as CSV and as pycanon's frame."""
    adult = shared_data / "adult"
    frame = pl.read_csv(adult / "adult.csv", separator=";", infer_schema=False)
    result = anonymize(
        frame,
        quasi_identifiers=QI,
        hierarchies={c: adult / f"adult_hierarchy_{c}.csv" for c in QI},
        k=k,
        suppression_limit=limit,
        others="keep",
    )
    kept = result.release.filter(~pl.all_horizontal([pl.col(c) == "*" for c in QI]))
    path = folder / f"release_{k}.csv"
    kept.write_csv(path)
    df = pd.DataFrame({c: kept[c].to_list() for c in kept.columns})
    df["age"] = df["age"].astype(int)  # numeric: pycanon uses the ordered distance
    assert list(df.index) == list(range(len(df)))
    return path, df


def entropy_matches(ours: float, theirs: int) -> bool:
    """pycanon truncates exp(H); at an integer, rounding may land on either side."""
    nearest = round(ours)
    if abs(ours - nearest) < 1e-9:
        return theirs in (nearest - 1, nearest)
    return theirs == math.floor(ours)


def compare_with_pycanon(path: Path, df: pd.DataFrame) -> None:
    anonymity = pytest.importorskip("pycanon.anonymity")
    data = check_json(str(path), "--qi", ",".join(QI), "--sensitive", "occupation,age")
    levels = data["privacy_levels"]
    assert isinstance(levels, dict)
    occupation, age = levels["sensitive"]["occupation"], levels["sensitive"]["age"]
    assert levels["k"] == data["min_size"] == anonymity.k_anonymity(df, QI)
    assert occupation["distinct_l"] == anonymity.l_diversity(df, QI, ["occupation"])
    assert entropy_matches(
        occupation["entropy_l"], anonymity.entropy_l_diversity(df, QI, ["occupation"])
    )
    assert occupation["t_equal"] == pytest.approx(
        anonymity.t_closeness(df, QI, ["occupation"]), abs=1e-12
    )
    assert age["order"] == "numeric"
    assert age["t_ordered"] == pytest.approx(anonymity.t_closeness(df, QI, ["age"]), abs=1e-12)


def test_check_agrees_with_pycanon_on_an_adult_release(shared_data: Path, tmp_path: Path) -> None:
    compare_with_pycanon(*kept_release(shared_data, tmp_path, k=25, limit=0.01))


@pytest.mark.slow
def test_check_agrees_with_pycanon_on_a_finer_adult_release(
    shared_data: Path, tmp_path: Path
) -> None:
    compare_with_pycanon(*kept_release(shared_data, tmp_path, k=5, limit=0.02))


# --------------------------------------------------------------- requested models
@pytest.fixture(scope="module")
def adult_release(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """A full Adult release (suppressed records kept as '*') of the 6 quasi-identifiers."""
    folder = tmp_path_factory.mktemp("check")
    adult = shared_data / "adult"
    frame = pl.read_csv(adult / "adult.csv", separator=";", infer_schema=False)
    result = anonymize(
        frame,
        quasi_identifiers=QI,
        hierarchies={c: adult / f"adult_hierarchy_{c}.csv" for c in QI},
        k=10,
        suppression_limit=0.02,
        others="keep",
    )
    path = folder / "release.csv"
    result.release.write_csv(path)
    return path


def write_config(folder: Path, shared_data: Path, models: str, *, k: int | None = None) -> Path:
    occupation = shared_data / "adult" / "adult_hierarchy_occupation.csv"
    lines = [
        "[attributes]",
        f"quasi_identifiers = {json.dumps(QI)}",
        'sensitive = ["occupation"]',
        "[hierarchies]",
        f'occupation = "{occupation}"',
        "[privacy]",
        *([f"k = {k}"] if k is not None else []),
        f"models = [{models}]",
    ]
    path = folder / "check.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_failing_classes_of_requested_models(
    adult_release: Path, shared_data: Path, tmp_path: Path
) -> None:
    config = write_config(
        tmp_path,
        shared_data,
        '{ name = "distinct_l_diversity", attribute = "occupation", l = 6 }, '
        '{ name = "equal_t_closeness", attribute = "occupation", t = 0.2 }',
        k=30,
    )
    data = check_json(str(adult_release), "--config", str(config))
    assert data["quasi_identifiers"] == QI  # from the configuration
    checks = {c["model"]: c for c in data["requested_models"]}  # type: ignore[attr-defined]
    assert set(checks) == {
        "30-anonymity",
        "distinct 6-diversity of 'occupation'",
        "0.2-closeness of 'occupation' (equal distance)",
    }

    # independent: pandas groupby over the released (not suppressed) records
    release = pd.read_csv(adult_release, dtype=str, keep_default_na=False)
    table_share = release["occupation"].value_counts(normalize=True)
    kept = release[~(release[QI] == "*").all(axis=1)]
    groups = kept.groupby(QI, sort=True)
    sizes = groups.size()
    distinct = groups["occupation"].nunique()

    def emd(values: pd.Series) -> float:
        share = values.value_counts(normalize=True).reindex(table_share.index, fill_value=0)
        return 0.5 * float((share - table_share).abs().sum())

    distances = groups["occupation"].apply(emd)
    expected = {
        "30-anonymity": sizes < 30,
        "distinct 6-diversity of 'occupation'": distinct < 6,
        "0.2-closeness of 'occupation' (equal distance)": distances > 0.2 + 1e-9,
    }
    released_rows = {tuple(r) for r in kept[QI].itertuples(index=False)}
    for name, failing in expected.items():
        check = checks[name]
        assert check["failing_classes"] == int(failing.sum()), name
        assert check["failing_records"] == int(sizes[failing].sum()), name
        assert check["satisfied"] is (not failing.any())
        # classes whose values could single people out are given by size only
        shown, withheld = check["examples"], check["withheld_example_sizes"]
        assert len(shown) + len(withheld) == min(10, int(failing.sum()))
        failing_keys = {k for k, bad in failing.items() if bad}
        for key in check["examples"]:
            values = tuple(key[c] for c in QI)
            assert values in failing_keys  # a failing class, named by released values
            assert values in released_rows
    assert checks["30-anonymity"]["failing_classes"] > 10  # the cap is exercised
    levels = data["privacy_levels"]["sensitive"]["occupation"]  # type: ignore[index]
    assert "t_hierarchical" in levels  # the config gives occupation a hierarchy


def test_check_tables_show_levels_and_failing_classes(
    adult_release: Path, shared_data: Path, tmp_path: Path
) -> None:
    config = write_config(
        tmp_path,
        shared_data,
        '{ name = "recursive_cl_diversity", attribute = "occupation", c = 2, l = 3 }',
    )
    result = runner.invoke(app, ["check", str(adult_release), "-c", str(config), "-l", "3"])
    assert result.exit_code == 0, result.output  # a measurement
    out = result.stdout
    for text in (
        "achieved k",
        "Class size distribution",
        "Privacy levels",
        "distinct ℓ",
        "entropy ℓ",
        "ℓ=3",
        "equal distance",
        "ordered distance",
        "hierarchical distance",
        "δ-disclosure",
        "β-likeness, basic",
        "β-likeness, enhanced",
        "recursive (2, 3)-diversity",
    ):
        assert text in out, text
    assert "ℓ=2" not in out
    if "NOT met" in out:
        assert "First failing classes" in out


def test_check_sensitive_without_config(adult_release: Path) -> None:
    data = check_json(
        str(adult_release),
        "--qi",
        ",".join(QI),
        "--sensitive",
        "occupation,salary-class",
        "-k",
        "10",
    )
    levels = data["privacy_levels"]
    assert isinstance(levels, dict)
    assert set(levels["sensitive"]) == {"occupation", "salary-class"}
    salary = levels["sensitive"]["salary-class"]
    assert set(salary["recursive_c"]) == {"2", "3"}
    assert salary["recursive_c"]["3"] is None  # two values: no c works for ℓ = 3
    assert "t_hierarchical" not in salary
    assert data["requested_models"] == []
    assert data["below_k"] == 0  # the release is 10-anonymous


def test_check_k_map_with_a_population(shared_data: Path, tmp_path: Path) -> None:
    adult = shared_data / "adult"
    qi = ["sex", "age", "race"]
    hier = {c: adult / f"adult_hierarchy_{c}.csv" for c in qi}
    sample = pl.read_csv(adult / "adult_subset.csv", separator=";", infer_schema=False)
    result = anonymize(sample, quasi_identifiers=qi, hierarchies=hier, k=2, others="keep")
    release = tmp_path / "sample_release.csv"
    result.release.write_csv(release)
    lines = [
        "[attributes]",
        f"quasi_identifiers = {json.dumps(qi)}",
        "[hierarchies]",
        *(f'{c} = "{p}"' for c, p in hier.items()),
        "[privacy]",
        f'population = "{adult / "adult.csv"}"',
        'models = [{ name = "k_map", k = 1000 }]',
    ]
    config = tmp_path / "kmap.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    data = check_json(str(release), "-c", str(config))
    # independent: the population generalized to the release's levels, counted per class
    population = pl.read_csv(adult / "adult.csv", separator=";", infer_schema=False)
    gen = population.select(
        pl.col(c).replace_strict(
            list(Hierarchy.from_csv(hier[c]).leaves),
            [row[result.transformation[c]] for row in Hierarchy.from_csv(hier[c]).rows],
        )
        for c in qi
    )
    released = result.release.filter(~pl.all_horizontal([pl.col(c) == "*" for c in qi]))
    keys = released.select(qi).unique()
    counts = keys.join(gen.group_by(qi).len(), on=qi, how="left")["len"].fill_null(0)
    levels = data["privacy_levels"]
    assert levels["k_map"] == counts.min()  # type: ignore[index]
    check = data["requested_models"][0]  # type: ignore[index]
    assert check["model"] == "1000-map"
    assert check["failing_classes"] == int((counts < 1000).sum())


# --------------------------------------------------------------------- bad input
def test_unknown_sensitive_column(adult_release: Path) -> None:
    result = runner.invoke(app, ["check", str(adult_release), "--qi", "sex", "--sensitive", "nope"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and "'nope'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_no_quasi_identifiers(adult_release: Path) -> None:
    result = runner.invoke(app, ["check", str(adult_release)])
    assert result.exit_code == 2
    assert "--qi" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_missing_sensitive_values_exit_1(tmp_path: Path) -> None:
    data = tmp_path / "t.csv"
    data.write_text("a,s\n1,x\n1,\n2,y\n")
    result = runner.invoke(app, ["check", str(data), "--qi", "a", "--sensitive", "s"])
    assert result.exit_code == 1
    assert "'s'" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_population_model_without_population(adult_release: Path, tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(
        f"[attributes]\nquasi_identifiers = {json.dumps(QI)}\n"
        '[privacy]\nmodels = [{ name = "k_map", k = 2 }]\n'
    )
    result = runner.invoke(app, ["check", str(adult_release), "-c", str(config)])
    assert result.exit_code == 2
    assert "population" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_unknown_model_in_config(adult_release: Path, tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[privacy]\nmodels = [{ name = "magic", k = 2 }]\n')
    result = runner.invoke(app, ["check", str(adult_release), "--qi", "sex", "-c", str(config)])
    assert result.exit_code == 2
    assert "magic" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_column_named_twice_in_qi_is_a_usage_error(tmp_path: Path) -> None:
    """It stopped with "polars stopped on the data (DuplicateError)", exit 1."""
    data = tmp_path / "t.csv"
    data.write_text("age,sex\n31,f\n45,m\n", encoding="utf-8")
    result = runner.invoke(app, ["check", str(data), "--qi", "age,age"])
    assert result.exit_code == 2 and "without duplicates" in result.stderr, result.stderr


def test_a_class_at_the_top_is_a_class_when_the_config_gives_the_limit(tmp_path: Path) -> None:
    """check and evaluate counted a release generalized to the top (k=13 on 13 records, no
    suppression) as 13 suppressed records: achieved k 0 and every risk 0 %."""
    rows = [(f"z{i % 5}", str(20 + i), "flu" if i % 2 else "hiv") for i in range(13)]
    data = tmp_path / "t.csv"
    data.write_text("zip,age,disease\n" + "".join(",".join(r) + "\n" for r in rows))
    release = tmp_path / "r.csv"
    release.write_text("zip,age,disease\n" + "".join(f"*,*,{r[2]}\n" for r in rows))
    config = tmp_path / "c.toml"
    config.write_text(
        '[attributes]\nquasi_identifiers = ["zip", "age"]\nsensitive = ["disease"]\n'
        "[privacy]\nk = 13\nsuppression_limit = 0.0\n"
    )
    out = check_json(str(release), "-c", str(config))
    assert (out["suppressed"], out["n_classes"], out["n_records"]) == (0, 1, 13)
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(data),
            str(release),
            "-c",
            str(config),
            "--json",
            str(tmp_path / "e.json"),
        ],
    )
    assert result.exit_code == 0, result.stderr
    measured = json.loads((tmp_path / "e.json").read_text())
    assert measured["dataset"]["n_suppressed"] == 0
    risk = {r["name"]: r["value"] for r in measured["risk"]}
    assert risk["prosecutor_max"] == pytest.approx(1 / 13)


# ------------------------------------------------- records at '*' everywhere, no config
def _top_release(folder: Path) -> tuple[Path, Path]:
    """13 records and their release generalized to the top: '*' in both quasi-identifiers."""
    rows = [(f"z{i % 5}", str(20 + i), "flu" if i % 2 else "hiv") for i in range(13)]
    data = folder / "t.csv"
    data.write_text("zip,age,disease\n" + "".join(",".join(r) + "\n" for r in rows))
    release = folder / "r.csv"
    release.write_text("zip,age,disease\n" + "".join(f"*,*,{r[2]}\n" for r in rows))
    return data, release


def test_without_a_config_records_at_star_everywhere_are_a_class(tmp_path: Path) -> None:
    """check without --config read a release generalized to the top (one class of 13) as
    13 suppressed records: no class, achieved k 0, average risk 0, not 5-anonymous."""
    _, release = _top_release(tmp_path)
    args = ["--qi", "zip,age", "-k", "5", "--sensitive", "disease"]
    out = check_json(str(release), *args)
    assert (out["suppressed"], out["n_classes"], out["min_size"]) == (0, 1, 13)
    assert (out["all_star_records"], out["all_star_read_as"]) == (13, "class")
    levels = out["privacy_levels"]
    assert isinstance(levels, dict)
    assert levels["k"] == 13 and levels["average_risk"] == pytest.approx(1 / 13)
    assert levels["sensitive"]["disease"]["distinct_l"] == 2  # judged as a class
    table = runner.invoke(app, ["check", str(release), *args])
    assert table.exit_code == 0, table.output
    assert re.search(r"5-anonymous\W+yes", table.stdout), table.stdout
    assert "one class" in table.stdout


def test_suppression_limit_says_which_records_at_star_are_suppressed(tmp_path: Path) -> None:
    """Told the release may suppress records (--suppression, or [privacy]
    suppression_limit), check counts those at '*' everywhere as suppressed up to the
    limit; more than it allows are a class."""
    data = tmp_path / "tiny.csv"
    data.write_text("a;b\n" + "1;x\n" * 3 + "2;y\n" * 2 + "3;z\n" + "*;*\n")
    base = [str(data), "--qi", "a,b", "-k", "3"]
    out = check_json(*base)  # told nothing: the '*' record is a class of one
    assert (out["suppressed"], out["n_classes"], out["sample_uniques"]) == (0, 4, 2)
    out = check_json(*base, "--suppression", "0.2")  # 1 of 7 within 20 %
    assert (out["suppressed"], out["n_classes"], out["sample_uniques"]) == (1, 3, 1)
    assert (out["all_star_records"], out["all_star_read_as"]) == (1, "suppressed")
    out = check_json(*base, "--suppression", "0.1")  # 10 % of 7 allows none
    assert (out["suppressed"], out["n_classes"]) == (0, 4)
    config = tmp_path / "c.toml"
    config.write_text('[attributes]\nquasi_identifiers = ["a", "b"]\n[privacy]\nk = 3\n')
    assert check_json(str(data), "-c", str(config))["suppressed"] == 0
    config.write_text(config.read_text() + "suppression_limit = 0.2\n")
    assert check_json(str(data), "-c", str(config))["suppressed"] == 1
    # the option overrides the file
    assert check_json(str(data), "-c", str(config), "--suppression", "0")["suppressed"] == 0
    bad = runner.invoke(app, ["check", *base, "--suppression", "1.5"])
    assert bad.exit_code == 2 and "'--suppression'" in bad.stderr, bad.stderr


def test_evaluate_reads_records_at_star_as_check_does(tmp_path: Path) -> None:
    """evaluate read them as suppressed unless its configuration gave a limit; anonymize
    suppresses none by default, so a run's configuration without one means none."""
    data, release = _top_release(tmp_path)
    config = tmp_path / "c.toml"
    config.write_text(
        '[attributes]\nquasi_identifiers = ["zip", "age"]\nsensitive = ["disease"]\n'
        "[privacy]\nk = 5\n"
    )
    base = ["evaluate", str(data), str(release), "-c", str(config), "--json"]
    for extra, suppressed, classes in (([], 0, 1), (["--suppression", "1"], 13, 0)):
        out = tmp_path / "e.json"
        result = runner.invoke(app, [*base, str(out), *extra])
        assert result.exit_code == 0, result.stderr
        measured = json.loads(out.read_text())
        assert measured["dataset"]["n_suppressed"] == suppressed
        assert measured["privacy_levels"]["classes"] == classes
        figures = {r["name"]: r["value"] for r in measured["risk"]}
        assert figures["prosecutor_max"] == pytest.approx(classes / 13)
        said = any("read as one class" in note for note in measured["notes"])
        assert said is (classes == 1)
