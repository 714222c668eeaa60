"""write_table: format from the extension, CSV-injection escaping, atomic writes."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from anonkit.exceptions import (
    DataError,
    OutputFormatError,
    OutputIsInputError,
    OutputLocationError,
    ParameterError,
)
from anonkit.io.tables import WriteInfo, output_format, read_table, write_table
from anonkit.io.write import (
    check_output,
    escape_formulas,
    escape_formulas_lazy,
    escape_name,
    unescape_formulas,
    unescape_name,
)

DANGEROUS = ["=cmd|' /C calc'!A0", "+x", "-x", "@x", "\tx", "\rx"]
HARMLESS = ["-3", "+1.5", "-2e3", ".5", "x=1", "plain", ""]


def _cells(path: Path, delimiter: str = ",") -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh, delimiter=delimiter))


def test_formulas_are_escaped(tmp_path: Path) -> None:
    values = DANGEROUS + HARMLESS
    frame = pl.DataFrame({"v": values, "n": list(range(len(values)))})
    info = write_table(frame, tmp_path / "out.csv")
    assert info == WriteInfo(format="csv", escaped_cells=len(DANGEROUS))
    rows = _cells(tmp_path / "out.csv")
    assert rows[0] == ["v", "n"]
    got = [row[0] for row in rows[1:]]
    assert got == ["'" + v for v in DANGEROUS] + HARMLESS


def test_numbers_and_nulls_are_left_alone(tmp_path: Path) -> None:
    frame = pl.DataFrame({"i": [-3, 4], "f": [-1.5, 2.0], "s": [None, "-7"]})
    info = write_table(frame, tmp_path / "out.csv")
    assert info.escaped_cells == 0
    assert _cells(tmp_path / "out.csv")[1] == ["-3", "-1.5", ""]


def test_categorical_columns_are_escaped(tmp_path: Path) -> None:
    frame = pl.DataFrame({"c": ["=1", "a"]}, schema={"c": pl.Categorical})
    assert write_table(frame, tmp_path / "out.csv").escaped_cells == 1
    assert _cells(tmp_path / "out.csv")[1] == ["'=1"]


def test_header_is_escaped_and_counted(tmp_path: Path) -> None:
    frame = pl.DataFrame({"=cmd": ["a"], "-3": ["@b"], "ok": ["c"]})
    info = write_table(frame, tmp_path / "out.csv")
    assert info.escaped_cells == 2
    assert _cells(tmp_path / "out.csv") == [["'=cmd", "-3", "ok"], ["a", "'@b", "c"]]
    assert frame.columns == ["=cmd", "-3", "ok"]  # the caller's frame is untouched


def test_keep_mode_writes_raw(tmp_path: Path) -> None:
    frame = pl.DataFrame({"=h": DANGEROUS})
    info = write_table(frame, tmp_path / "out.csv", csv_formulas="keep")
    assert info.escaped_cells == 0
    assert _cells(tmp_path / "out.csv") == [["=h"]] + [[v] for v in DANGEROUS]


def test_bad_csv_formulas_value(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="csv_formulas"):
        write_table(pl.DataFrame({"a": ["x"]}), tmp_path / "out.csv", csv_formulas="strip")
    assert not (tmp_path / "out.csv").exists()


def test_tsv_output(tmp_path: Path) -> None:
    frame = pl.DataFrame({"a": ["1,2", "+x"], "b": ["y", "z"]})
    info = write_table(frame, tmp_path / "out.tsv")
    assert info == WriteInfo(format="tsv", escaped_cells=1)
    assert (tmp_path / "out.tsv").read_text() == "a\tb\n1,2\ty\n'+x\tz\n"
    assert read_table(tmp_path / "out.tsv")["a"].to_list() == ["1,2", "'+x"]


def test_parquet_output_is_not_escaped(tmp_path: Path) -> None:
    frame = pl.DataFrame({"=a": DANGEROUS})
    for name in ("out.parquet", "out.PQ"):
        info = write_table(frame, tmp_path / name)
        assert info == WriteInfo(format="parquet", escaped_cells=0)
        assert pl.read_parquet(tmp_path / name).equals(frame)


def test_explicit_separator_is_kept(tmp_path: Path) -> None:
    write_table(pl.DataFrame({"a": ["1"], "b": ["2"]}), tmp_path / "out.csv", separator=";")
    assert (tmp_path / "out.csv").read_text() == "a;b\n1;2\n"


@pytest.mark.parametrize("name", ["release.xlsx", "release.json", "release", "r.csv.gz"])
def test_unsupported_extension(tmp_path: Path, name: str) -> None:
    target = tmp_path / name
    with pytest.raises(OutputFormatError) as exc:
        output_format(target)
    err = exc.value
    assert err.exit_code == 2 and isinstance(err, ValueError)
    assert str(target) in str(err) and ".csv" in str(err) and ".parquet" in str(err)
    assert err.extension == Path(name).suffix
    with pytest.raises(OutputFormatError):
        write_table(pl.DataFrame({"a": ["x"]}), target)
    assert list(tmp_path.iterdir()) == []


def test_output_format() -> None:
    assert [output_format(n) for n in ("a.csv", "b.TSV", "c.parquet", "d.pq")] == [
        "csv",
        "tsv",
        "parquet",
        "parquet",
    ]


def test_failed_write_leaves_nothing(tmp_path: Path) -> None:
    frame = pl.DataFrame({"nested": [[1, 2], [3]]})  # CSV cannot hold list columns
    with pytest.raises(DataError, match="'nested' holds List"):  # was polars' ComputeError
        write_table(frame, tmp_path / "out.csv")
    assert list(tmp_path.iterdir()) == []


def test_failed_write_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    write_table(pl.DataFrame({"a": ["old"]}), target)
    with pytest.raises(DataError, match="'nested' holds List.*Parquet"):
        write_table(pl.DataFrame({"nested": [[1]], "ok": ["x"]}), target)
    assert target.read_text() == "a\nold\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_round_trip_through_read_table(tmp_path: Path) -> None:
    frame = pl.DataFrame({"zip": ["007", None], "note": ['a "b", c', "d\ne"]})
    write_table(frame, tmp_path / "out.csv")
    assert read_table(tmp_path / "out.csv").equals(frame)


def test_an_output_naming_an_input_file_is_refused(tmp_path: Path) -> None:
    from anonkit.exceptions import OutputIsInputError
    from anonkit.io.write import check_not_input

    data = tmp_path / "data.csv"
    data.write_text("a\n1\n", encoding="utf-8")
    (tmp_path / "hard.csv").hardlink_to(data)
    frame = pl.DataFrame({"a": [1]})
    for same in (data, str(data), tmp_path / "." / "data.csv", tmp_path / "hard.csv"):
        with pytest.raises(OutputIsInputError, match="the run reads that file") as err:
            check_not_input(same, [frame, data])
        assert err.value.exit_code == 2
    check_not_input(tmp_path / "other.csv", [frame, data, None])  # a new file is fine


def test_anonymize_refuses_to_write_over_the_file_it_reads(tmp_path: Path) -> None:
    import anonkit
    from anonkit.exceptions import OutputIsInputError

    data = tmp_path / "data.csv"
    data.write_text("age,zip\n" + "".join(f"{30 + i % 5},130{i % 3}\n" for i in range(30)))
    before = data.read_bytes()
    hierarchies = {"age": {"type": "intervals", "widths": [10]}, "zip": {"type": "masking"}}
    for engine in ("polars", "streaming"):
        with pytest.raises(OutputIsInputError):
            anonkit.anonymize(
                data, quasi_identifiers=["age", "zip"], hierarchies=hierarchies, k=2,
                output=data, engine=engine,
            )  # fmt: skip
    with pytest.raises(OutputIsInputError):
        anonkit.anonymize(
            data, quasi_identifiers=["age", "zip"], hierarchies=hierarchies, k=2,
            output=data, algorithm="mondrian", numeric=["age", "zip"],
        )  # fmt: skip
    with pytest.raises(OutputIsInputError):  # written by anonymize() itself, not the estimator
        anonkit.anonymize(
            data, quasi_identifiers=["age", "zip"], hierarchies=hierarchies, k=2,
            output=data, algorithm="greedy_merge",
        )  # fmt: skip
    assert data.read_bytes() == before


def test_an_output_that_cannot_be_written_is_refused_before_the_work(tmp_path: Path) -> None:
    """'-o /proc/release.csv' ran the whole search, then failed naming a temporary file
    ('Cannot write or read /proc/.release.csv.kqq_w43n.tmp'); a long run lost for a
    typo in a path."""
    from anonkit.exceptions import OutputLocationError
    from anonkit.io.write import check_output

    a_file = tmp_path / "notes.txt"
    a_file.write_text("x", encoding="utf-8")
    for bad, says in ((Path("/proc/release.csv"), "/proc"), (a_file / "release.csv", "folder")):
        with pytest.raises(OutputLocationError, match=says) as err:
            check_output(bad, [])
        assert str(bad) in str(err.value) and err.value.exit_code == 2
        assert ".tmp" not in str(err.value)
    fresh = tmp_path / "new" / "sub" / "release.csv"
    check_output(fresh, [])  # a folder still to create is fine, and not created yet
    assert not (tmp_path / "new").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]  # the probe is gone


def test_an_output_name_too_long_for_the_file_system_is_refused_first(tmp_path: Path) -> None:
    """The probe took any name in the folder: a 250-character summary name passed it,
    and failed after the release had been replaced, naming its temporary file."""
    from anonkit.exceptions import OutputLocationError
    from anonkit.io.write import check_output

    long = tmp_path / ("s" * 250 + ".json")
    with pytest.raises(OutputLocationError, match="too long") as err:
        check_output(long, [])
    assert ".tmp" not in str(err.value)
    assert list(tmp_path.iterdir()) == []


def test_anonymize_checks_its_output_location_first(tmp_path: Path) -> None:
    import anonkit
    from anonkit.exceptions import OutputLocationError

    frame = pl.DataFrame({"age": [str(30 + i % 5) for i in range(30)]})
    hierarchies = {"age": {"type": "intervals", "widths": [10]}}
    seen: list[str] = []
    with pytest.raises(OutputLocationError):
        anonkit.anonymize(
            frame, quasi_identifiers=["age"], hierarchies=hierarchies, k=2,
            output="/proc/release.csv", progress=lambda *a, **k: seen.append("work"),
        )  # fmt: skip
    assert not seen  # refused before any step started


def test_a_write_that_fails_midway_names_the_output_not_its_temporary_file(
    tmp_path: Path,
) -> None:
    """A full disk while writing said 'Cannot write or read /out/.r.csv.x1y2.tmp': a
    file the user never named and that is gone by then."""
    import errno

    from anonkit._atomic import atomic_write

    target = tmp_path / "release.csv"

    def full_disk(tmp: Path) -> None:
        tmp.write_text("half", encoding="utf-8")
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp))

    with pytest.raises(OSError, match="No space left") as err:
        atomic_write(target, full_disk)
    assert err.value.filename == str(target) and err.value.errno == errno.ENOSPC
    assert list(tmp_path.iterdir()) == []

    def file_too_large(tmp: Path) -> None:  # write() names no file: the error had none
        raise OSError(errno.EFBIG, "File too large")

    with pytest.raises(OSError, match="File too large") as err:
        atomic_write(target, file_too_large)
    assert err.value.filename == str(target)


def test_a_file_url_names_the_local_file_it_spells(tmp_path: Path) -> None:
    """Spark's file:// spelling of the input went unchecked ('://' was taken for cluster
    storage): the release replaced the original records."""
    data = tmp_path / "records.parquet"
    data.write_bytes(b"PAR1")
    with pytest.raises(OutputIsInputError):
        check_output(f"file://{data}", [data])
    check_output("s3a://bucket/release.csv", [data])  # cluster storage is not probed


def test_an_existing_folder_is_never_replaced_by_a_streamed_release(tmp_path: Path) -> None:
    """With engine="streaming" a folder given as output was removed, whatever it held."""
    import anonkit

    data = tmp_path / "d.csv"
    data.write_text("sex,zip\n" + "m,1\nf,2\n" * 5, encoding="utf-8")
    folder = tmp_path / "out.csv"
    folder.mkdir()
    (folder / "precious.txt").write_text("not anonkit's", encoding="utf-8")
    for engine in ("streaming", "polars"):
        with pytest.raises(OutputLocationError, match="it is a folder"):
            anonkit.anonymize(
                str(data), quasi_identifiers=["sex", "zip"], k=2, engine=engine, output=folder
            )
        assert (folder / "precious.txt").exists()


@given(st.lists(st.text(alphabet="'=+-@3ab \t", max_size=5), min_size=1, max_size=8))
def test_escaping_keeps_distinct_values_distinct_and_reads_back(cells: list[str]) -> None:
    """'=1+1' and '=1+1' escaped became the same cell: a release verified 2-diverse was
    written 1-diverse, and read back ('check') as such."""
    frame = pl.DataFrame({"v": cells})
    escaped, _ = escape_formulas(frame)
    assert escaped["v"].n_unique() == frame["v"].n_unique()
    assert unescape_formulas(escaped)["v"].to_list() == cells
    lazy = escape_formulas_lazy(frame.lazy()).collect()
    assert lazy["v"].to_list() == escaped["v"].to_list()


@given(st.text(alphabet="'=+-@3ab", min_size=1, max_size=5))
def test_escaped_names_read_back(name: str) -> None:
    assert unescape_name(escape_name(name)) == name


def test_only_ascii_digits_make_a_number_that_stays_unescaped() -> None:
    """'-٣' and '+１２' (Arabic-Indic and full-width digits) were left unescaped by polars,
    whose \\d reads any digit, and escaped by Spark, whose \\d reads ASCII ones only:
    the engines wrote different releases. Spreadsheets read them as text: escaped."""
    out, n = escape_formulas(pl.DataFrame({"v": ["-3", "-٣", "+１２", "-x"]}))
    assert out["v"].to_list() == ["-3", "'-٣", "'+１２", "'-x"] and n == 3
    assert escape_name("-٣") == "'-٣" and escape_name("-3") == "-3"


def _probe_columns() -> dict[str, pl.Series]:
    """One column of each polars type a release may hold, to write to CSV."""
    import datetime as dt
    from decimal import Decimal

    return {
        "duration_us": pl.Series([dt.timedelta(days=1)], dtype=pl.Duration("us")),
        "duration_ms": pl.Series([dt.timedelta(days=1)], dtype=pl.Duration("ms")),
        "duration_ns": pl.Series([dt.timedelta(days=1)], dtype=pl.Duration("ns")),
        "time": pl.Series([dt.time(1, 2)], dtype=pl.Time),
        "date": pl.Series([dt.date(2020, 1, 1)]),
        "datetime": pl.Series([dt.datetime(2020, 1, 1)]).dt.replace_time_zone("UTC"),
        "categorical": pl.Series(["a"], dtype=pl.Categorical),
        "enum": pl.Series(["a"], dtype=pl.Enum(["a"])),
        "decimal": pl.Series([Decimal("1.5")], dtype=pl.Decimal(10, 2)),
        "null": pl.Series([None], dtype=pl.Null),
        "int128": pl.Series([1], dtype=pl.Int128),
        "uint64": pl.Series([1], dtype=pl.UInt64),
        "float32": pl.Series([1.0], dtype=pl.Float32),
        "boolean": pl.Series([True]),
        "binary": pl.Series([b"a"]),
        "object": pl.Series([object()], dtype=pl.Object),
        "list": pl.Series([[1]]),
        "array": pl.Series([[1]], dtype=pl.Array(pl.Int64, 1)),
        "struct": pl.Series([{"a": 1}]),
    }


@pytest.mark.parametrize("name", list(_probe_columns()))
def test_refuse_unwritable_refuses_exactly_what_polars_cannot_write(
    tmp_path: Path, name: str
) -> None:
    """A Duration column passed the check and stopped in polars' CSV writer
    ('datatype duration[us] cannot be written to CSV'): the check refuses exactly the
    types polars' writer (eager and streamed) refuses."""
    from anonkit.io.write import refuse_unwritable

    frame = pl.DataFrame({name: _probe_columns()[name]})
    try:
        frame.write_csv()
        frame.lazy().sink_csv(tmp_path / "probe.csv")
    except pl.exceptions.ComputeError:
        with pytest.raises(DataError, match=f"Column '{name}' holds .* a TSV file cannot"):
            refuse_unwritable(frame.schema, "tsv")
    else:
        refuse_unwritable(frame.schema, "csv")
    refuse_unwritable(frame.schema, "parquet")  # Parquet holds them all


@pytest.mark.parametrize("engine", ["polars", "streaming"])
@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_a_duration_column_released_to_text_is_refused_before_the_search(
    tmp_path: Path, engine: str, suffix: str
) -> None:
    """It stopped after the search on polars' unreadable ComputeError (and, in memory, a
    Struct column was refused only when the release was written, after the search)."""
    import datetime as dt

    import anonkit

    stages: list[str] = []

    class Stages:
        def __call__(self, done: int, total: int) -> None:
            pass

        def stage(self, name: str, unit: str = "") -> None:
            stages.append(name)

    path = tmp_path / "d.parquet"
    frame = pl.DataFrame({"sex": ["m", "f"] * 4, "dur": [dt.timedelta(days=1)] * 8})
    frame.with_columns(st=pl.struct("sex")).write_parquet(path)
    out = tmp_path / f"r{suffix}"
    for column, dtype in (("dur", "Duration"), ("st", "Struct")):
        stages.clear()
        with pytest.raises(DataError, match=rf"Column '{column}' holds {dtype} values, which a "
                           rf"{suffix[1:].upper()} file cannot hold"):  # fmt: skip
            anonkit.anonymize(path, engine=engine, output=out, k=2, quasi_identifiers=["sex"],
                              insensitive=[column], others="drop", progress=Stages(),
                              hierarchies={"sex": [["m", "*"], ["f", "*"]]},
                              leak_check=False)  # fmt: skip
        assert not [s for s in stages if "Search" in s], stages
        assert not out.exists()
