"""read_for_starter turns decimal_comma on only when the whole file reads the same with it:
never when another column would then be misread or refused."""

from __future__ import annotations

from pathlib import Path

from anonkit.safety.reading import read_for_starter
from anonkit.safety.starter import starter_config


def _file(tmp_path: Path, header: str, rows: list[str]) -> Path:
    path = tmp_path / "eu.csv"
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def _weights(i: int) -> str:
    return f"{50 + i % 40},{i % 10}"


def test_decimal_commas_alone_are_detected(tmp_path: Path) -> None:
    path = _file(tmp_path, "age;weight", [f"{20 + i};{_weights(i)}" for i in range(30)])
    frame, read = read_for_starter(path)
    assert read.decimal_comma and "decimal_comma" in read.detected
    assert frame["weight"][1] == "51.1"


def test_thousands_with_a_dot_keep_decimal_comma_off(tmp_path: Path) -> None:
    """eu2.csv: weights 72,5 switched decimal_comma on, and rents 1.234, 2.500 were
    then read as 1.234 and 2.5, a thousandfold too small, without a word."""
    rents = ["1.234", "2.500", "4.750", "640", "987"]
    rows = [f"{20 + i};{_weights(i)};{rents[i % 5]}" for i in range(30)]
    frame, read = read_for_starter(_file(tmp_path, "age;weight;rent", rows))
    assert not read.decimal_comma and "decimal_comma" not in read.detected
    assert frame["rent"][0] == "1.234" and frame["weight"][0] == "50,0"  # as written
    assert "'rent'" in read.decimal_comma_note and "thousands" in read.decimal_comma_note
    text = starter_config(frame, input="eu.csv", read=read).text
    line = next(li for li in text.splitlines() if li.startswith("decimal_comma ="))
    assert "left off" in line and "'rent'" in line  # the starter says why


def test_thousands_padded_with_spaces_keep_decimal_comma_off(tmp_path: Path) -> None:
    """Spaces detected around the values: the rents are judged as they will be read."""
    rents = [" 1.234 ", " 640 "]
    rows = [f" {20 + i} ; {_weights(i)} ;{rents[i % 2]}" for i in range(30)]
    frame, read = read_for_starter(_file(tmp_path, "age;weight;rent", rows))
    assert read.strip and not read.decimal_comma
    assert "'rent'" in read.decimal_comma_note and "1.234" not in read.decimal_comma_note
    assert frame["rent"][0] == "1.234"


def test_text_with_commas_does_not_stop_the_detection(tmp_path: Path) -> None:
    """eu3.csv: floors 1,2, 3,4 and ground is text; it stays text, the weights numbers."""
    floors = ["1,2", "3,4", "ground"]
    rows = [f"{20 + i};{_weights(i)};{floors[i % 3]}" for i in range(30)]
    frame, read = read_for_starter(_file(tmp_path, "age;weight;floors", rows))
    assert read.decimal_comma
    assert frame["floors"].to_list()[:3] == floors and frame["weight"][1] == "51.1"


def test_three_decimals_elsewhere_keep_decimal_comma_off(tmp_path: Path) -> None:
    """The 18,000 guard holds for the whole file: weights 72,5 do not make another
    column's 18,000 the number 18."""
    rows = [f"{_weights(i)};{1 + i % 90},{(i * 7) % 10}00" for i in range(30)]
    frame, read = read_for_starter(_file(tmp_path, "weight;income", rows))
    assert not read.decimal_comma
    assert frame["income"][1] == "2,700"
    assert "'income'" in read.decimal_comma_note and "2,700" not in read.decimal_comma_note


def test_a_column_of_decimal_points_does_not_stop_the_detection(tmp_path: Path) -> None:
    """A '.' after other than three digits is a decimal point in any file: read as such."""
    rows = [f"{_weights(i)};{i % 7}.{i % 10}5" for i in range(30)]
    frame, read = read_for_starter(_file(tmp_path, "weight;ratio", rows))
    assert read.decimal_comma
    assert frame["ratio"][1] == "1.15" and frame["weight"][1] == "51.1"


def test_told_on_the_reader_refuses_what_it_cannot_tell(tmp_path: Path) -> None:
    rows = [f"{20 + i};{_weights(i)};1.234" for i in range(3)]
    path = _file(tmp_path, "age;weight;rent", rows)
    try:
        read_for_starter(path, decimal_comma=True)
    except ValueError as err:
        assert "'rent'" in str(err) and "'1.234'" in str(err)
    else:  # pragma: no cover - the failure this test guards against
        raise AssertionError("decimal_comma = true read 1.234 without a word")
