"""Quoting a parser would misread is an error naming the line (found by the CLI fuzz test).

A stray quote inside a field (``q"t``) or a quoted field never closed made polars merge
the records after it into one field: rows vanished without a word.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from anonkit.exceptions import InputFormatError
from anonkit.io.sniff import quote_problem
from anonkit.io.tables import read_table


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('q"t\n0\n"\n0\n', 1, "inside a field"),
        ('a,b\nq"t,1\n2,3\n', 2, "inside a field"),
        ('a,b\n1,2\n"x,1\n2,3\n', 3, "never closed"),
    ],
)
def test_bad_quoting_names_the_line(tmp_path: Path, text: str, line: int, words: str) -> None:
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFormatError) as exc:
        read_table(path)
    assert exc.value.line == line and words in str(exc.value)


def test_sound_quoting_reads(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text('a,b\n"x,y",2\n"he said ""hi""",3\n"two\nlines",4\r\n', encoding="utf-8")
    assert read_table(path)["a"].to_list() == ["x,y", 'he said "hi"', "two\nlines"]


def test_quote_problem_is_none_without_quotes() -> None:
    assert quote_problem(b"a;b\n1;2\n", ";") is None
