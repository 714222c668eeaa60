"""Markdown for the study pages (seed 000 and the Mauger et al. reproduction): tables,
and the generated blocks of a page replaced together."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from anonkit._atomic import atomic_write_text, splice_marked_block

__all__ = ["md_table", "replace_marked_blocks", "with_marked_blocks"]


def md_table(header: Sequence[str], rows: Sequence[Sequence[object]], align: str) -> list[str]:
    """A Markdown table; ``align`` holds ``l`` or ``r`` per column (missing ones: ``r``).

    Examples
    --------
    >>> md_table(["a", "b"], [[1, 2]], "l")
    ['| a | b |', '| :--- | ---: |', '| 1 | 2 |']
    """
    align = align.ljust(len(header), "r")
    sep = ["---:" if a == "r" else ":---" for a in align]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def replace_marked_blocks(
    path: Path, blocks: Sequence[tuple[str, str, str]], *, title: str
) -> None:
    r"""Put each ``(start, end, body)`` of ``blocks`` between its marker lines in the
    page ``path`` (a missing page is created, starting with ``title``) in one atomic
    write: the blocks are rendered before, so an interruption leaves the page as it was,
    never one block new and the other from an earlier run.

    Examples
    --------
    >>> import tempfile
    >>> page = Path(tempfile.mkdtemp()) / "page.md"
    >>> replace_marked_blocks(page, [("<!-- a -->", "<!-- b -->", "one")], title="# T")
    >>> page.read_text(encoding="utf-8")
    '# T\n\n<!-- a -->\none\n<!-- b -->\n'
    """
    atomic_write_text(path, with_marked_blocks(path, blocks, title=title))


def with_marked_blocks(path: Path, blocks: Sequence[tuple[str, str, str]], *, title: str) -> str:
    """The text of the page ``path`` (empty when missing) with each ``(start, end,
    body)`` of ``blocks`` between its marker lines, for a caller that writes it together
    with other files (:func:`anonkit.study.staging.staged_files`)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    for start, end, body in blocks:
        text = splice_marked_block(text, start, end, body, title=title)
    return text
