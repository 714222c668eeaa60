"""Tests of anonkit.core.hierarchy: reading, writing, validation, level maps."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit.core.hierarchy import Hierarchy, detect_separator
from anonkit.exceptions import (
    HierarchyError,
    InputFileError,
    ParameterError,
    ValuesNotInHierarchyError,
)

ADULT_HEIGHTS = {
    "sex": 2,
    "age": 5,
    "race": 2,
    "marital-status": 3,
    "education": 4,
    "native-country": 3,
    "workclass": 3,
    "occupation": 3,
    "salary-class": 2,
}


# ------------------------------------------------------------------------ reading
def test_adult_hierarchies(adult_hierarchies: dict[str, Path]) -> None:
    assert set(adult_hierarchies) == set(ADULT_HEIGHTS)
    for column, path in adult_hierarchies.items():
        h = Hierarchy.from_csv(path, name=column)
        assert h.name == column
        assert h.height == ADULT_HEIGHTS[column], column
        assert h.max_level == h.height - 1
        assert h.labels(h.max_level) == ("*",)
        assert len(set(h.leaves)) == len(h.leaves)
    age = Hierarchy.from_csv(adult_hierarchies["age"])
    assert age.name == "adult_hierarchy_age"  # defaults to the file stem
    assert age.leaves[:99] == tuple(str(a) for a in range(1, 100))
    assert age.rows[0] == ("1", "0-4", "0-9", "0-19", "*")
    assert age.generalize("39", 1) == "35-39"


def test_adult_hierarchies_cover_the_data(adult_frame, adult_hierarchies) -> None:
    for column, path in adult_hierarchies.items():
        h = Hierarchy.from_csv(path)
        values = set(adult_frame[column].unique().to_list())
        assert values <= set(h.leaves), column


def test_toy_hierarchies(toy_dir: Path) -> None:
    age = Hierarchy.from_csv(toy_dir / "test_hierarchy_age.csv")
    assert age.height == 3
    assert age.leaves == tuple(str(a) for a in range(1, 101))
    assert age.labels(1) == ("<50", ">=50")
    assert age.generalize("49", 1) == "<50" and age.generalize("50", 1) == ">=50"
    gender = Hierarchy.from_csv(toy_dir / "test_hierarchy_gender.csv")
    assert gender.rows == (("male", "*"), ("female", "*"))
    zipcode = Hierarchy.from_csv(toy_dir / "test_hierarchy_zipcode.csv")
    assert zipcode.height == 6
    assert [zipcode.generalize("81667", lv) for lv in range(6)] == [
        "81667",
        "8166*",
        "816**",
        "81***",
        "8****",
        "*",
    ]


def test_toy2_age_labels_with_commas_use_semicolon(toy_dir: Path) -> None:
    path = toy_dir / "test2_hierarchy_Age.csv"
    first = path.read_text().splitlines()[0]
    assert "," in first and ";" in first
    assert detect_separator(first) == ";"
    h = Hierarchy.from_csv(path)
    assert h.height == 3
    assert h.labels(1) == ("[20,30[", ">=40", "[30,40[")
    assert h.generalize("29", 1) == "[20,30["
    assert h.generalize("36", 1) == "[30,40["
    disease = Hierarchy.from_csv(toy_dir / "test2_hierarchy_Disease.csv")
    assert disease.height == 4
    assert disease.generalize("flu", 2) == "vascular lung disease"
    zipc = Hierarchy.from_csv(toy_dir / "test2_hierarchy_ZIPCode.csv")
    assert zipc.height == 6 and zipc.labels(5) == ("*****",)


@pytest.mark.parametrize(
    ("line", "sep"),
    [("a;b,c", ";"), ("a\tb,c", "\t"), ("a,b", ","), ("abc", ";"), ("a\tb;c", ";")],
)
def test_detect_separator(line: str, sep: str) -> None:
    assert detect_separator(line) == sep


def test_tab_and_comma_files(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("a\tx\t*\nb\tx\t*\n")
    (tmp_path / "c.csv").write_text("a,x,*\nb,y,*\n")
    assert Hierarchy.from_csv(tmp_path / "t.csv").rows == (("a", "x", "*"), ("b", "x", "*"))
    assert Hierarchy.from_csv(tmp_path / "c.csv").rows == (("a", "x", "*"), ("b", "y", "*"))


@pytest.mark.parametrize(
    ("text", "rows"),
    [
        ('"Smith; John",S,*\nDoe,D,*\n', (("Smith; John", "S", "*"), ("Doe", "D", "*"))),
        ('Doe,D,*\n"Smith; John",S,*\n', (("Doe", "D", "*"), ("Smith; John", "S", "*"))),
        ('x,"[0;10[",*\ny,"[0;10[",*\n', (("x", "[0;10[", "*"), ("y", "[0;10[", "*"))),
        ("a;b\tX\t*\nc\tX\t*\n", (("a;b", "X", "*"), ("c", "X", "*"))),
        ('"a ""x;y"" b",X,*\nc,X,*\n', (('a "x;y" b', "X", "*"), ("c", "X", "*"))),
        ("5'2\";tall;*\n6'1\";tall;*\n", (("5'2\"", "tall", "*"), ("6'1\"", "tall", "*"))),
        ("\n\n29;[20,30[;*\n45;>=40;*\n", (("29", "[20,30[", "*"), ("45", ">=40", "*"))),
    ],
    ids=[
        "quoted-first",
        "quoted-second",
        "quoted-level",
        "tab",
        "doubled-quote",
        "inch-marks",
        "blank-lines-first",
    ],
)
def test_the_separator_is_detected_outside_quotes(text: str, rows: tuple[object, ...]) -> None:
    """';' won whenever the first line held one, even inside a quoted label: a comma
    file starting with "Smith; John" was refused, and x,"[0;10[",* read as two levels
    ('x,"[0' and '10[",*'); a ';' in a label of a tab file's first line too."""
    assert Hierarchy.from_text(text).rows == rows


def test_detect_separator_counts_over_the_first_lines() -> None:
    """The separator found the same number of times outside quotes on every line wins,
    in the order ';', tab, ','; failing that, the first one the first line holds."""
    assert detect_separator("a;b,X,*\nc,X,*\n") == ","
    assert detect_separator("a;b;*\nc;*\n") == ";"  # ragged: reported by the reader
    assert detect_separator('"a;b"\n') == ";"  # one column: no separator outside quotes


def test_bom_blank_lines_and_whitespace(tmp_path: Path) -> None:
    p = tmp_path / "h.csv"
    p.write_text("\ufeffa ; x ;*\n\nb;x;*\n\n", encoding="utf-8")
    h = Hierarchy.from_csv(p)
    assert h.rows == (("a", "x", "*"), ("b", "x", "*"))


# ---------------------------------------------------------------------- round trip
def test_write_read_round_trip(tmp_path: Path, toy_dir: Path) -> None:
    h = Hierarchy.from_csv(toy_dir / "test2_hierarchy_Age.csv", name="Age")
    out = tmp_path / "age.csv"
    text = h.to_csv(out)
    assert out.read_text() == text
    assert text.splitlines()[0] == "29;[20,30[;*"
    back = Hierarchy.from_csv(out, name="Age")
    assert back == h and hash(back) == hash(h)
    assert back.rows == h.rows
    # tab separated, too
    tab = tmp_path / "age.tsv"
    h.to_csv(tab, separator="\t")
    assert Hierarchy.from_csv(tab) == h
    assert Hierarchy.from_text(h.to_csv()) == h


_labels = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"), blacklist_characters="\r\n\ufeff"
    ),
    min_size=1,
    max_size=6,
)


@given(leaves=st.lists(_labels, min_size=1, max_size=12, unique=True), data=st.data())
def test_round_trip_property(tmp_path_factory, leaves: list[str], data) -> None:
    # labels may hold separators and quotes: the writer quotes them, the reader unquotes
    groups = data.draw(st.integers(1, len(leaves)))
    rows = [(leaf, f"g{i % groups}", "*") for i, leaf in enumerate(leaves)]
    h = Hierarchy(rows, name="x")
    back = Hierarchy.from_text(h.to_csv(), name="x")
    assert back == h
    assert back.leaves == tuple(leaves)
    path = tmp_path_factory.mktemp("rt") / "h.csv"
    h.to_csv(path)
    assert Hierarchy.from_csv(path) == h


# ---------------------------------------------------------------------- validation
def test_ragged_rows() -> None:
    with pytest.raises(HierarchyError, match=r"row 2 has 2 levels but row 1 has 3") as exc:
        Hierarchy([["a", "x", "*"], ["b", "*"]], name="col")
    assert exc.value.column == "col"
    assert "'col'" in str(exc.value)


def test_ragged_rows_from_text() -> None:
    with pytest.raises(HierarchyError, match="separator"):
        Hierarchy.from_text("a;x;*\nb;*\n")


def test_two_parents() -> None:
    with pytest.raises(HierarchyError, match=r"'x' at level 1 has two parents at level 2"):
        Hierarchy([["a", "x", "p", "*"], ["b", "x", "q", "*"]])


def test_multiple_roots() -> None:
    with pytest.raises(HierarchyError, match="single root"):
        Hierarchy([["a", "x"], ["b", "y"]])


def test_wrong_separator(tmp_path: Path) -> None:
    p = tmp_path / "comma.csv"
    p.write_text("a,x,*\nb,x,*\nc,y,*\n")
    with pytest.raises(HierarchyError, match="separator") as exc:
        Hierarchy.from_csv(p, separator=";", name="col")
    assert "single root" in str(exc.value)
    assert exc.value.column == "col"
    assert Hierarchy.from_csv(p, separator=",").height == 3


def test_duplicate_values() -> None:
    with pytest.raises(HierarchyError, match=r"value 'a' appears in more than one row"):
        Hierarchy([["a", "x", "*"], ["b", "x", "*"], ["a", "x", "*"]])


def test_empty_label() -> None:
    with pytest.raises(HierarchyError, match="empty label"):
        Hierarchy([["a", "", "*"], ["b", "x", "*"]])


@pytest.mark.parametrize("text", ["", "   \n\n", "\n"])
def test_empty_file(tmp_path: Path, text: str) -> None:
    p = tmp_path / "empty.csv"
    p.write_text(text)
    with pytest.raises(HierarchyError, match="empty"):
        Hierarchy.from_csv(p)


def test_no_rows() -> None:
    with pytest.raises(HierarchyError, match="no rows"):
        Hierarchy([])
    with pytest.raises(HierarchyError, match="no rows"):
        Hierarchy([["", ""], ["  ", ""]])


def test_missing_and_binary_files(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no such file"):
        Hierarchy.from_csv(tmp_path / "nope.csv")
    p = tmp_path / "bin.csv"
    p.write_bytes(b"\xff\xfe\x00\x81abc")
    with pytest.raises(InputFileError, match="UTF-8"):
        Hierarchy.from_csv(p)


def test_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        Hierarchy([["a", "x"], ["b", "y"]])


# --------------------------------------------------------------------- structure
@pytest.fixture()
def zip_h() -> Hierarchy:
    return Hierarchy(
        [
            ["13053", "1305*", "130**", "*"],
            ["13068", "1306*", "130**", "*"],
            ["13067", "1306*", "130**", "*"],
            ["14850", "1485*", "148**", "*"],
            ["14853", "1485*", "148**", "*"],
        ],
        name="zip",
    )


def test_codes_labels_and_counts(zip_h: Hierarchy) -> None:
    assert zip_h.height == 4
    assert zip_h.leaves == ("13053", "13068", "13067", "14850", "14853")
    assert zip_h.labels(1) == ("1305*", "1306*", "1485*")
    assert zip_h.codes(1).tolist() == [0, 1, 1, 2, 2]
    assert zip_h.codes(2).tolist() == [0, 0, 0, 1, 1]
    assert zip_h.leaf_counts(1).tolist() == [1, 2, 2]
    assert zip_h.leaf_counts(3).tolist() == [5]
    assert zip_h.leaf_index("14850") == 3
    assert "13053" in zip_h and "99999" not in zip_h
    with pytest.raises(KeyError):
        zip_h.leaf_index("99999")
    with pytest.raises(HierarchyError, match="level 4 does not exist"):
        zip_h.labels(4)
    with pytest.raises(HierarchyError):
        zip_h.codes(-1)
    assert not zip_h.codes(0).flags.writeable
    assert zip_h.with_name("z").name == "z" and zip_h.with_name("z") == zip_h
    assert "zip" in repr(zip_h)


def test_level_map(zip_h: Hierarchy) -> None:
    assert zip_h.level_map(0, 0).tolist() == [0, 1, 2, 3, 4]
    assert zip_h.level_map(0, 1).tolist() == [0, 1, 1, 2, 2]
    assert zip_h.level_map(1, 2).tolist() == [0, 0, 1]
    assert zip_h.level_map(1, 3).tolist() == [0, 0, 0]
    assert zip_h.level_map(2, 2).tolist() == [0, 1]
    with pytest.raises(ValueError):
        zip_h.level_map(2, 1)


def _check_level_maps(h: Hierarchy) -> None:
    for a in range(h.height):
        for b in range(a, h.height):
            m = h.level_map(a, b)
            assert m.shape == (len(h.labels(a)),)
            # composing with the leaf codes gives the leaf codes at the higher level
            assert np.array_equal(m[h.codes(a)], h.codes(b))
            # and the labels agree with generalize()
            for row in h.rows:
                code_a = h.labels(a).index(row[a])
                assert h.labels(b)[m[code_a]] == row[b]


def test_level_map_adult(adult_hierarchies: dict[str, Path]) -> None:
    for path in adult_hierarchies.values():
        _check_level_maps(Hierarchy.from_csv(path))


@given(
    n=st.integers(1, 15),
    cuts=st.lists(st.lists(st.booleans(), min_size=15, max_size=15), max_size=3),
)
def test_level_map_property(n: int, cuts: list[list[bool]]) -> None:
    # build levels by merging consecutive labels of the level below
    levels = [[f"v{i}" for i in range(n)]]
    for depth, cut in enumerate(cuts, start=1):
        below = levels[-1]
        distinct = list(dict.fromkeys(below))
        group, mapping = 0, {}
        for i, lab in enumerate(distinct):
            if i and cut[i]:
                group += 1
            mapping[lab] = f"L{depth}_{group}"
        levels.append([mapping[x] for x in below])
    levels.append(["*"] * n)
    rows = list(zip(*levels, strict=True))
    h = Hierarchy(rows)
    assert h.height == len(cuts) + 2
    _check_level_maps(h)
    for lv in range(h.height):
        assert int(h.leaf_counts(lv).sum()) == n


def test_a_header_line_in_a_hierarchy_file_is_named() -> None:
    """Users add 'value;group;top' above the rows; the error asked about the separator."""
    with pytest.raises(HierarchyError, match=r"row 1 looks like a header .*remove it"):
        Hierarchy([["level0", "level1", "level2"], ["1", "1-2", "*"], ["2", "1-2", "*"]])


def test_a_file_s_errors_name_the_file_and_its_line(tmp_path: Path) -> None:
    """Blank lines were dropped before rows were counted, so an empty label on line 4
    was 'row 2', and the file was never named."""
    path = tmp_path / "sex_hierarchy.csv"
    path.write_text("M;*\n\n\nF;\n", encoding="utf-8")
    with pytest.raises(HierarchyError, match=r"line 4 of sex_hierarchy\.csv has an empty label"):
        Hierarchy.from_csv(path, name="sex")
    path.write_text("M;*\n\n\n\nF;*;\n", encoding="utf-8")
    with pytest.raises(HierarchyError, match=r"line 5 of sex_hierarchy\.csv has 3 levels"):
        Hierarchy.from_csv(path, name="sex")


def test_an_unclosed_quote_in_a_hierarchy_file_is_named() -> None:
    """A file starting with an unbalanced quote read as one row holding the whole file;
    the run then blamed the data's values."""
    with pytest.raises(HierarchyError, match=r"line 1 .*quote"):
        Hierarchy.from_text('"M;*\nF;*\n', name="sex")


@pytest.mark.parametrize("missing", [None, float("nan"), np.nan, np.float64("nan")])
def test_a_missing_cell_is_an_empty_label_not_its_name(missing: object) -> None:
    """None and NaN cells became the labels 'None' and 'nan', and were published."""
    with pytest.raises(HierarchyError, match="empty"):
        Hierarchy([["a", missing, "*"], ["b", "x", "*"]], name="v")


def test_a_missing_cell_from_pandas_is_an_empty_label() -> None:
    pd = pytest.importorskip("pandas")
    rows = pd.DataFrame({"0": ["a", "b"], "1": [pd.NA, "x"], "2": ["*", "*"]}).astype("string")
    with pytest.raises(HierarchyError, match="empty"):
        Hierarchy(rows.itertuples(index=False), name="v")


def test_generalizing_a_value_the_hierarchy_lacks_names_it() -> None:
    """It raised a bare KeyError."""
    h = Hierarchy([["13053", "1305*", "*"], ["13068", "1306*", "*"]], name="zip")
    with pytest.raises(ValuesNotInHierarchyError, match="'13054'"):
        h.generalize("13054", 1)


@pytest.mark.parametrize("separator", [";;", "", '"', "\n", 5])
def test_a_separator_that_is_not_one_character_is_refused_when_writing(separator: object) -> None:
    """';;' and '' raised a raw TypeError from the csv module; '"' wrote unreadable rows."""
    h = Hierarchy([["a", "*"], ["b", "*"]], name="x")
    with pytest.raises(ParameterError, match="The 'separator' parameter of Hierarchy.to_csv"):
        h.to_csv(separator=separator)  # type: ignore[arg-type]
    assert h.to_csv(separator="\t") == "a\t*\nb\t*\n"


@pytest.mark.parametrize("separator", [";;", "", '"', 5])
def test_a_separator_that_is_not_one_character_is_refused_when_reading(
    tmp_path: Path, separator: object
) -> None:
    """';;' raised a raw TypeError; '' was read as 'detect it'."""
    with pytest.raises(ParameterError, match="The 'separator' parameter of Hierarchy.from_text"):
        Hierarchy.from_text("a;*\nb;*\n", separator=separator)  # type: ignore[arg-type]
    path = tmp_path / "x.csv"
    path.write_text("a;*\nb;*\n", encoding="utf-8")
    with pytest.raises(ParameterError, match="The 'separator' parameter of Hierarchy.from_csv"):
        Hierarchy.from_csv(path, separator=separator)  # type: ignore[arg-type]


@pytest.mark.parametrize("level", [1.0, True, False, "1", None])
def test_a_level_that_is_not_an_int_is_refused(zip_h: Hierarchy, level: object) -> None:
    """1.0 raised 'tuple indices must be integers'; True was read as level 1."""
    calls = {
        "generalize": lambda: zip_h.generalize("13053", level),  # type: ignore[arg-type]
        "labels": lambda: zip_h.labels(level),  # type: ignore[arg-type]
        "codes": lambda: zip_h.codes(level),  # type: ignore[arg-type]
        "leaf_counts": lambda: zip_h.leaf_counts(level),  # type: ignore[arg-type]
    }
    for method, call in calls.items():
        with pytest.raises(
            ParameterError, match=f"The 'level' parameter of Hierarchy.{method} must be an int"
        ):
            call()
    with pytest.raises(ParameterError, match="'target' parameter of Hierarchy.level_map"):
        zip_h.level_map(0, level)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="'source' parameter of Hierarchy.level_map"):
        zip_h.level_map(level, 3)  # type: ignore[arg-type]


def test_numpy_integer_levels_are_levels(zip_h: Hierarchy) -> None:
    assert zip_h.generalize("13053", np.int64(1)) == "1305*"  # type: ignore[arg-type]
    assert zip_h.labels(np.int32(2)) == ("130**", "148**")  # type: ignore[arg-type]


def test_a_byte_order_mark_is_stripped_from_text_as_from_a_file() -> None:
    """from_csv dropped it; from_text kept it in the first leaf ('\\ufeffa')."""
    h = Hierarchy.from_text("\ufeffa;*\nb;*\n")
    assert h.leaves == ("a", "b")
