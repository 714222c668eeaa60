"""Markdown tables for the study pages (seed 000 and the Mauger et al. reproduction)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["md_table"]


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
