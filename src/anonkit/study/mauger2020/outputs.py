"""Files of the reproduction of Mauger et al. (2020): the plot, the CSV, the results block.

:func:`write_outputs` writes ``mauger2020_figure9.svg``, ``mauger2020_runs.csv`` and the
block of ``mauger2020.md`` between :data:`RESULTS_START` and :data:`RESULTS_END`, each
atomically.
"""

from __future__ import annotations

import os
from pathlib import Path

from anonkit._atomic import atomic_path, atomic_write_text, replace_marked_block
from anonkit.study.mauger2020.results import Reproduction

__all__ = ["RESULTS_END", "RESULTS_START", "write_outputs"]

RESULTS_START = "<!-- mauger2020:results:start -->"
RESULTS_END = "<!-- mauger2020:results:end -->"


def write_outputs(rep: Reproduction, folder: str | os.PathLike[str]) -> dict[str, Path]:
    """Write ``mauger2020_figure9.svg``, ``mauger2020_runs.csv`` and the results block.

    The Markdown of :meth:`Reproduction.to_markdown` replaces the part of
    ``folder/mauger2020.md`` between ``<!-- mauger2020:results:start -->`` and
    ``<!-- mauger2020:results:end -->`` (the rest of the page is kept); a page without
    the markers gets the block appended, a missing page is created. Every file is written
    atomically.
    """
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    svg, csv, page = (
        out / "mauger2020_figure9.svg",
        out / "mauger2020_runs.csv",
        out / "mauger2020.md",
    )
    atomic_write_text(svg, rep.figure9_svg())
    with atomic_path(csv) as tmp:
        rep.to_polars().write_csv(tmp)
    replace_marked_block(
        page,
        RESULTS_START,
        RESULTS_END,
        rep.to_markdown(figure9_image=svg.name),
        title="# Mauger et al. (2020): Figures 6 to 9 reproduced",
    )
    return {"svg": svg, "csv": csv, "markdown": page}
