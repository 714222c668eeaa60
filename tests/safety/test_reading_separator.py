"""read_for_starter (``anonkit init``, the web app) refuses a file that the separator it
was told reads into one column whose name another separator splits: the starter would
propose the whole header line as one column."""

from __future__ import annotations

from pathlib import Path

import pytest

from anonkit.exceptions import InputFileError
from anonkit.safety.reading import read_for_starter


def _semi(tmp_path: Path) -> Path:
    path = tmp_path / "semi.csv"
    path.write_text("sex;age\n" + "".join(f"{'fm'[i % 2]};{20 + i}\n" for i in range(20)))
    return path


def test_a_file_read_into_one_column_by_a_wrong_separator_is_refused(tmp_path: Path) -> None:
    path = _semi(tmp_path)
    with pytest.raises(InputFileError, match="it looks ';'-separated: use separator ';'") as err:
        read_for_starter(path, separator=",")
    assert err.value.exit_code == 2 and "semi.csv" in str(err.value)
    with pytest.raises(InputFileError, match="use --separator ';'"):
        read_for_starter(path, separator="|", option="--separator")


def test_the_right_separator_and_a_sniffed_one_read(tmp_path: Path) -> None:
    path = _semi(tmp_path)
    for separator in (";", None):
        frame, read = read_for_starter(path, separator=separator)
        assert frame.columns == ["sex", "age"] and read.separator == ";"
