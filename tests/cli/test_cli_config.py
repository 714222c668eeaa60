"""TOML configuration parsing (anonkit.config)."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from anonkit.config import AnonymizeConfig, load_config
from anonkit.exceptions import ConfigError, InputFileError, UnknownNameError

VALID = """
input = "data/adult.csv"
output = "out/release.csv"
separator = ";"

[attributes]
quasi_identifiers = ["age", "sex", "zip"]
identifying = ["name"]
sensitive = ["disease"]

[hierarchies]
age = "hierarchies/age.csv"
zip = { type = "masking" }

[privacy]
k = 5
suppression_limit = 0.04

[search]
algorithm = "samarati"
metric = "height"

[release]
suppressed = "drop"
"""


def write(tmp_path: Path, text: str, name: str = "run.toml") -> Path:
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def test_valid_config(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, VALID))
    assert isinstance(cfg, AnonymizeConfig)
    base = tmp_path.resolve()
    assert cfg.input == base / "data" / "adult.csv"
    assert cfg.output == base / "out" / "release.csv"
    assert cfg.separator == ";"
    assert cfg.quasi_identifiers == ("age", "sex", "zip")
    assert cfg.identifying == ("name",)
    assert cfg.sensitive == ("disease",)
    assert cfg.hierarchies["age"] == base / "hierarchies" / "age.csv"
    assert dict(cfg.hierarchies["zip"]) == {"type": "masking"}
    assert (cfg.k, cfg.suppression_limit) == (5, 0.04)
    assert (cfg.algorithm, cfg.metric, cfg.suppressed) == ("samarati", "height", "drop")
    kwargs = cfg.anonymize_kwargs()
    assert kwargs["quasi_identifiers"] == ["age", "sex", "zip"]
    assert kwargs["k"] == 5
    with pytest.raises(AttributeError):
        cfg.k = 3  # type: ignore[misc]


def test_relative_paths_follow_the_config_folder(tmp_path: Path) -> None:
    p = write(
        tmp_path / "nested" / "deeper",
        'input = "../t.csv"\n[hierarchies]\na = "h/a.csv"\n[privacy]\nk = 2\n',
    )
    cfg = load_config(p)
    folder = (tmp_path / "nested" / "deeper").resolve()
    assert cfg.input == folder / ".." / "t.csv"
    assert cfg.input.resolve() == (tmp_path / "nested" / "t.csv").resolve()
    assert cfg.hierarchies["a"] == folder / "h" / "a.csv"
    assert cfg.output is None


def test_defaults_and_qi_from_hierarchies(tmp_path: Path) -> None:
    cfg = load_config(
        write(
            tmp_path,
            'input = "t.csv"\n[hierarchies]\nzip = "z.csv"\n'
            'age = { type = "intervals", widths = [5, 10] }\n'
            "[privacy]\nk = 3\n",
        )
    )
    assert cfg.quasi_identifiers == ("zip", "age")
    assert (cfg.algorithm, cfg.metric, cfg.suppressed) == ("auto", "loss", "mask")
    assert cfg.suppression_limit == 0.0
    assert cfg.hierarchies["age"]["widths"] == [5, 10]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('input = "t.csv"\ncolour = 1\n[privacy]\nk = 2\n', "colour"),
        ('input = "t.csv"\n[privacy]\nk = 2\nl = 3\n', "l"),
        ('input = "t.csv"\n[privacy]\nk = 2\n[extra]\nx = 1\n', "extra"),
        ('input = "t.csv"\n[privacy]\nk = 2\n[search]\nalgo = "flash"\n', "algo"),
    ],
)
def test_unknown_key_is_named_with_the_file(tmp_path: Path, text: str, key: str) -> None:
    p = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(p)
    msg = str(info.value)
    assert f"'{key}'" in msg
    assert str(p.resolve()) in msg
    assert "\n" not in msg
    assert info.value.exit_code == 2


@pytest.mark.parametrize(
    ("text", "key"),
    [
        (
            'input = "t.csv"\n[attributes]\nquasi_identifiers = ["a"]\n[privacy]\nk = "5"\n',
            "privacy.k",
        ),
        (
            'input = "t.csv"\n[attributes]\nquasi_identifiers = ["a"]\n[privacy]\nk = true\n',
            "privacy.k",
        ),
        (
            'input = "t.csv"\n[attributes]\nquasi_identifiers = ["a"]\n[privacy]\nk = 2\n'
            'suppression_limit = "lots"\n',
            "privacy.suppression_limit",
        ),
        ("input = 3\n[privacy]\nk = 2\n", "input"),
        (
            'input = "t.csv"\n[attributes]\nquasi_identifiers = [1, 2]\n[privacy]\nk = 2\n',
            "attributes.quasi_identifiers",
        ),
        ('input = "t.csv"\n[hierarchies]\nage = 5\n[privacy]\nk = 2\n', "hierarchies.age"),
    ],
)
def test_wrong_type_names_the_key(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(ConfigError, match=f"'{key}'"):
        load_config(write(tmp_path, text))


def test_syntax_error_gives_the_line(tmp_path: Path) -> None:
    p = write(tmp_path, 'input = "t.csv"\n[privacy]\nk = = 5\n')
    with pytest.raises(ConfigError, match="line 3") as info:
        load_config(p)
    assert "\n" not in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileError) as info:
        load_config(tmp_path / "absent.toml")
    assert info.value.exit_code == 2


@pytest.mark.parametrize(
    "text",
    [
        "[privacy]\nk = 2\n",  # no input
        'input = "t.csv"\n[privacy]\nk = 2\n',  # no quasi-identifiers
        'input = "t.csv"\n[hierarchies]\na = "a.csv"\n',  # no k
        'input = "t.csv"\n[hierarchies]\na = "a.csv"\n[privacy]\nk = 0\n',
        'input = "t.csv"\n[hierarchies]\na = "a.csv"\n[privacy]\nk = 2\nsuppression_limit = 2\n',
        'input = "t.csv"\n[hierarchies]\na = {widths = [5]}\n[privacy]\nk = 2\n',
        'input = "t.csv"\n[hierarchies]\na = "a.csv"\n[privacy]\nk = 2\n'
        '[release]\nsuppressed = "hide"\n',
    ],
)
def test_invalid_values(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError):
        load_config(write(tmp_path, text))


def test_unknown_algorithm(tmp_path: Path) -> None:
    p = write(
        tmp_path,
        'input = "t.csv"\n[hierarchies]\na = "a.csv"\n[privacy]\nk = 2\n'
        '[search]\nalgorithm = "magic"\n',
    )
    with pytest.raises(UnknownNameError, match="magic"):
        load_config(p)


def test_k_optimize_takes_its_own_metrics(tmp_path: Path) -> None:
    """[search] metric = "classification" with k_optimize was an unknown metric, and
    leaving the metric out ran into the full-domain default."""
    head = 'input = "t.csv"\n[hierarchies]\na = "a.csv"\n[privacy]\nk = 2\n[search]\n'
    p = write(tmp_path, head + 'algorithm = "k_optimize"\nmetric = "classification"\n')
    assert load_config(p).metric == "classification"
    p = write(tmp_path, head + 'algorithm = "k_optimize"\n')  # its own default
    assert load_config(p).metric == "loss"
    p = write(tmp_path, head + 'algorithm = "k_optimize"\nmetric = "height"\n')
    with pytest.raises(UnknownNameError, match="choose one of: classification, discernibility"):
        load_config(p)


def test_a_small_hierarchy_may_be_written_inline(tmp_path: Path) -> None:
    """``sex = [["f", "*"], ["m", "*"]]``: the rows of the hierarchy CSV, in the TOML."""
    import polars as pl

    from anonkit.config import run_config

    data = tmp_path / "d.csv"
    data.write_text("sex,age\n" + "f,31\nm,32\n" * 6, encoding="utf-8")
    text = (
        'input = "d.csv"\n[attributes]\nquasi_identifiers = ["sex", "age"]\n[hierarchies]\n'
        'sex = [["f", "*"], ["m", "*"]]\nage = [["31", "30s", "*"], ["32", "30s", "*"]]\n'
        "[privacy]\nk = 12\n"
    )
    cfg = load_config(write(tmp_path, text))
    assert cfg.hierarchies["sex"] == (("f", "*"), ("m", "*"))
    release = run_config(cfg).release
    assert release.equals(pl.DataFrame({"sex": ["*"] * 12, "age": ["30s"] * 12}))
    with pytest.raises(ConfigError, match="'hierarchies.sex'"):
        load_config(write(tmp_path, text.replace('[["f", "*"], ["m", "*"]]', '["f", "m"]')))


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        (
            'input = "t.csv"\n[privacy]\nk = 2\nsuppresion_limit = 0.1\n',
            "(did you mean 'suppression_limit'?)",
        ),
        ('input = "t.csv"\n[privacy]\nk = 2\nalgorithm = "flash"\n', "(it belongs in [search])"),
        ('input = "t.csv"\n[privcy]\nk = 2\n', "(did you mean '[privacy]'?)"),
        ('input = "t.csv"\nk = 2\n', "(it belongs in [privacy])"),
        (
            'input = "t.csv"\n[hierarchies]\na = "a.csv"\n[privacy]\nk = 2\n'
            '[release]\nsuppressed = "Drop"\n',
            "Did you mean 'drop'?",
        ),
    ],
)
def test_a_key_off_by_a_typo_or_in_the_wrong_section_is_pointed_out(
    tmp_path: Path, text: str, hint: str
) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    assert hint in str(info.value)


def test_a_builder_key_off_by_a_typo_is_pointed_out() -> None:
    from anonkit.core.hierarchy_builders import build_hierarchy

    with pytest.raises(ConfigError, match=r"Unknown key 'width' \(did you mean 'widths'\?\)"):
        build_hierarchy({"type": "intervals", "width": [5]}, ["1", "2"], name="a")


def test_decimal_comma_is_a_read_option(tmp_path: Path) -> None:
    text = VALID.replace('separator = ";"\n', '[read]\nseparator = ";"\ndecimal_comma = true\n')
    cfg = load_config(write(tmp_path, text))
    assert cfg.decimal_comma is True and cfg.read_kwargs()["decimal_comma"] is True
    assert load_config(write(tmp_path, VALID, "plain.toml")).read_kwargs()["decimal_comma"] is False
    bad = text.replace("decimal_comma = true", 'decimal_comma = "yes"')
    with pytest.raises(ConfigError, match="read.decimal_comma"):
        load_config(write(tmp_path, bad, "bad.toml"))


def test_a_hierarchy_for_a_column_that_is_not_generalized_is_an_error(tmp_path: Path) -> None:
    """A hierarchy for a column left out of quasi_identifiers was ignored without a word:
    with others = "keep" the column was published as it is (a missing hierarchy file
    too)."""
    text = (
        'input = "d.csv"\noutput = "r.csv"\n[attributes]\nquasi_identifiers = ["age"]\n'
        'sensitive = ["disease"]\nothers = "keep"\n[hierarchies]\nage = "a.csv"\n'
        'hours = { type = "intervals", widths = [10] }\ndisease = "d.csv"\n[privacy]\nk = 2\n'
    )
    with pytest.raises(ConfigError, match="gives 'hours' a hierarchy, but no quasi-identifier"):
        load_config(write(tmp_path, text))
    # a sensitive attribute's hierarchy (hierarchical t-closeness) is used
    assert load_config(write(tmp_path, text.replace("hours = {", "#"))).quasi_identifiers == (
        "age",
    )


def test_safepub_runs_from_a_configuration_without_k(tmp_path: Path) -> None:
    """Without k the file was refused; with k SafePub refused it (it derives k)."""
    text = (
        'input = "d.csv"\noutput = "r.csv"\n[attributes]\nquasi_identifiers = ["age"]\n'
        '[privacy]\n[search]\nalgorithm = "safepub"\noptions = { epsilon = 2.0 }\n'
    )
    cfg = load_config(write(tmp_path, text))
    assert cfg.k is None and cfg.algorithm == "safepub"
    with pytest.raises(ConfigError, match="The key 'k' is missing"):
        load_config(write(tmp_path, text.replace("safepub", "flash")))


def test_names_written_as_one_comma_separated_string_are_pointed_out(tmp_path: Path) -> None:
    """quasi_identifiers = "age,sex,zip" was read as one column so named, and the error
    blamed [hierarchies] for naming columns that are no quasi-identifiers."""
    text = (
        'input = "t.csv"\n[attributes]\nquasi_identifiers = "age,sex,zip"\n'
        '[hierarchies]\nage = { type = "masking" }\n[privacy]\nk = 2\n'
    )
    with pytest.raises(ConfigError, match=r"'attributes.quasi_identifiers'.*\[\"age\", \"sex\""):
        load_config(write(tmp_path, text))
    one = 'input = "t.csv"\n[attributes]\nquasi_identifiers = "age"\n[privacy]\nk = 2\n'
    assert load_config(write(tmp_path, one)).quasi_identifiers == ("age",)


def test_inline_hierarchy_rows_read_as_the_api_reads_them(tmp_path: Path) -> None:
    """TOML rows kept their floats as Python writes them ('2.0'), where anonymize() reads
    the same rows as the data's text ('2'): the command stopped on a value the user never
    wrote, and nan became a label where the API refuses an empty one."""
    from anonkit.config import load_config
    from anonkit.core.resolve import resolve_hierarchy

    (tmp_path / "score.csv").write_text("score;d\n2;x\n2;y\n2.5;x\n2.5;y\n", encoding="utf-8")
    config = tmp_path / "c.toml"
    config.write_text(
        'input = "score.csv"\noutput = "out.csv"\n[attributes]\nsensitive = ["d"]\n'
        '[hierarchies]\nscore = [[2.0, "low"], [2.5, "low"]]\n[privacy]\nk = 2\n',
        encoding="utf-8",
    )
    cfg = load_config(config)
    values = pl.Series("score", ["2", "2", "2.5", "2.5"])
    rows = [[2.0, "low"], [2.5, "low"]]
    assert (
        resolve_hierarchy("score", cfg.hierarchies["score"], values).rows
        == resolve_hierarchy("score", rows, values).rows
    )


BASE = 'input = "t.csv"\n[attributes]\nquasi_identifiers = ["sex"]\n[privacy]\nk = 2\n'


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        ('{ type = "file", path = 5 }', "path"),
        ('{ type = "file", path = ["sex.csv"] }', "path"),
        ('{ type = "file", path = "sex.csv", separator = ";;" }', "separator"),
        ('{ type = "file", path = "sex.csv", encoding = "utf-9" }', "encoding"),
        ('{ type = "file", path = "sex.csv", separatr = ";" }', "separatr"),
    ],
)
def test_a_file_table_with_a_bad_value_names_the_key_and_the_file(
    tmp_path: Path, spec: str, key: str
) -> None:
    """path = 5 or separator = ";;" stopped the command with a raw TypeError traceback."""
    p = write(tmp_path, f"{BASE}[hierarchies]\nsex = {spec}\n")
    with pytest.raises(ConfigError, match=f"'{key}'") as info:
        load_config(p)
    assert str(p.resolve()) in str(info.value) and "'sex'" in str(info.value)


def test_a_file_table_takes_a_tab_as_read_separator_does(tmp_path: Path) -> None:
    r"""separator = '\t' (a literal string: a backslash and a t) crashed."""
    cfg = load_config(
        write(
            tmp_path,
            f"{BASE}[hierarchies]\nsex = {{ type = 'file', path = 's.csv', separator = '\\t' }}\n",
        )
    )
    assert cfg.hierarchies["sex"]["separator"] == "\t"
    assert cfg.hierarchies["sex"]["path"] == str(tmp_path.resolve() / "s.csv")


@pytest.mark.parametrize("value", ['"half"', "[0.5]", "0", "2"])
def test_a_memory_share_that_is_no_share_is_named(tmp_path: Path, value: str) -> None:
    """engine = "auto" with memory_share = "half" crashed in float()."""
    text = f'{BASE}[search]\nengine = "auto"\nmemory_share = {value}\n'
    with pytest.raises(ConfigError, match=r"'search.memory_share' .* must be a share in \(0, 1\]"):
        load_config(write(tmp_path, text))


def test_chosen_engine_refuses_a_memory_share_that_is_no_share(tmp_path: Path) -> None:
    """A configuration built in Python is checked too, not read by float()."""
    import dataclasses

    from anonkit.config import chosen_engine

    cfg = load_config(write(tmp_path, f'{BASE}[search]\nengine = "auto"\n'))
    bad = dataclasses.replace(cfg, options={"memory_share": "half"})
    with pytest.raises(ConfigError, match="'search.memory_share'"):
        chosen_engine(bad)


@pytest.mark.parametrize(
    ("search", "key", "expected"),
    [
        ('algorithm = "lightning"\ntime_limit = "10s"\n', "search.time_limit", "seconds > 0"),
        ('algorithm = "lightning"\nseed = -1\n', "search.seed", "an int >= 0"),
        ('algorithm = "lightning"\nmax_nodes = 0\n', "search.max_nodes", "an int >= 1"),
        ('algorithm = "mondrian"\nmode = "strcit"\n', "search.mode", "Did you mean 'strict'?"),
        ('algorithm = "microaggregation"\nmethod = 3\n', "search.method", "mdav"),
    ],
)
def test_a_search_option_of_the_wrong_kind_names_the_key_and_the_file(
    tmp_path: Path, search: str, key: str, expected: str
) -> None:
    """time_limit = "10s" was told as "The 'time_limit' parameter of FullDomain ..."
    after the table was read."""
    p = write(tmp_path, f"{BASE}[search]\n{search}")
    with pytest.raises(ConfigError) as info:
        load_config(p)
    message = str(info.value)
    assert f"'{key}'" in message and str(p.resolve()) in message and expected in message
    assert "FullDomain" not in message and "None" not in message


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('input = "t.csv"\n[read]\nencoding = "utf-9"\n', "read.encoding"),
        ('input = ""\n', "input"),
        ('input = "  "\n', "input"),
        ('input = "t.csv"\noutput = ""\n', "output"),
    ],
)
def test_an_encoding_or_a_path_that_is_none_names_the_key(
    tmp_path: Path, text: str, key: str
) -> None:
    """encoding = "utf-9" was told as a parameter of read_table, input = "" as the
    configuration's folder, output = "" as a file without an extension."""
    body = text + '[attributes]\nquasi_identifiers = ["sex"]\n[privacy]\nk = 2\n'
    p = write(tmp_path, body)
    with pytest.raises(ConfigError, match=f"'{key}'") as info:
        load_config(p)
    assert str(p.resolve()) in str(info.value)


def test_hierarchical_t_closeness_without_a_hierarchy_says_where_to_give_one(
    tmp_path: Path,
) -> None:
    """The error named the 'hierarchy' parameter of HierarchicalTCloseness."""
    text = (
        'input = "t.csv"\n[attributes]\nsensitive = ["disease"]\n[hierarchies]\n'
        'sex = { type = "suppression" }\n[privacy]\nk = 2\nmodels = [{ name = '
        '"hierarchical_t_closeness", attribute = "disease", t = 0.3 }]\n'
    )
    p = write(tmp_path, text)
    with pytest.raises(ConfigError, match=r"\[hierarchies\] disease = ") as info:
        load_config(p)
    assert str(p.resolve()) in str(info.value)
    fixed = text.replace("[privacy]", '"disease" = [["flu", "*"]]\n[privacy]')
    assert load_config(write(tmp_path, fixed, "ok.toml")).sensitive == ("disease",)


@pytest.mark.parametrize(
    "read", ['missing = ["?"]', "strip = true", "decimal_comma = true"], ids=str
)
def test_text_reading_options_are_refused_for_parquet_input(tmp_path: Path, read: str) -> None:
    """[read] missing = ["?"] on a Parquet input was ignored: '?' was released as a
    value."""
    pl.DataFrame({"sex": ["M", "F", "?"] * 2}).write_parquet(tmp_path / "t.parquet")
    text = (
        f'input = "t.parquet"\n[read]\n{read}\n[hierarchies]\n'
        'sex = { type = "suppression" }\n[privacy]\nk = 2\n'
    )
    p = write(tmp_path, text)
    with pytest.raises(ConfigError, match=f"'read.{read.split()[0]}'") as info:
        load_config(p)
    assert "Parquet" in str(info.value) and str(p.resolve()) in str(info.value)
    # the defaults, and options that also serve the hierarchy files and a CSV release
    plain = 'missing = [""]\nstrip = false\nencoding = "latin-1"\nseparator = ";"'
    assert load_config(write(tmp_path, text.replace(read, plain), "ok.toml")).strip is False


@pytest.mark.parametrize(
    "rows",
    ['[["M", {a=1}, "*"], ["F", "x", "*"]]', '[["M", "x", "*"], ["F", ["x"], "*"]]'],
)
def test_inline_rows_with_a_cell_that_is_no_label_are_refused(tmp_path: Path, rows: str) -> None:
    """A table cell was published as the label "{'a': 1}"."""
    p = write(tmp_path, f"{BASE}[hierarchies]\nsex = {rows}\n")
    with pytest.raises(ConfigError, match=r"'sex' .*row \d holds a (table|list)") as info:
        load_config(p)
    assert str(p.resolve()) in str(info.value)


def test_the_documented_keys_are_every_key_the_loader_takes() -> None:
    """[search] split, numeric_release and aggregate were taken but documented nowhere,
    nor [attributes] numeric in the module's format block."""
    import anonkit.config as config
    from anonkit.config import SECTIONS

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## CLI quick start") : readme.index("## Web app")]
    doc = str(config.__doc__)
    block = doc[doc.index(".. code-block:: toml") : doc.index("Model names")]
    for name, keys in SECTIONS.items():
        for key in keys or ():
            assert re.search(rf"\b{key}\b", block), (name, key)
            assert re.search(rf"(?<![\w.]){key}( = |`)", section), (name, key)


def test_a_model_hierarchy_path_is_read_from_the_configuration_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``hierarchy = "disease.csv"`` in [privacy] models was read from the working
    directory, where every other path of a configuration is read from its folder."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "disease.csv").write_text("flu,*\ncold,*\n")
    text = (
        'input = "t.csv"\n[attributes]\nsensitive = ["disease"]\n[hierarchies]\n'
        'sex = { type = "suppression" }\n[privacy]\nk = 2\nmodels = [{ name = '
        '"hierarchical_t_closeness", attribute = "disease", t = 0.3, '
        'hierarchy = "disease.csv" }]\n'
    )
    p = write(folder, text)
    monkeypatch.chdir(tmp_path)
    (model,) = load_config(p).privacy
    assert model.hierarchy.labels(0) == ("flu", "cold")  # type: ignore[attr-defined]
