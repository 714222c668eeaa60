"""Files of the reproduction of Mauger et al. (2020): the plot, the CSV, the results block.

:func:`write_outputs` writes ``mauger2020_figure9.svg``, ``mauger2020_runs.csv`` and the
block of ``mauger2020.md`` between :data:`RESULTS_START` and :data:`RESULTS_END`, each
atomically.
"""

from __future__ import annotations

import os
from pathlib import Path

from anonkit._atomic import atomic_path, atomic_write_text, replace_marked_block
from anonkit.study.markdown import replace_marked_blocks
from anonkit.study.mauger2020.results import Reproduction
from anonkit.study.mauger2020.study import MaugerStudy

__all__ = [
    "ANSWER_END",
    "ANSWER_START",
    "RESULTS_END",
    "RESULTS_START",
    "TITLE",
    "write_outputs",
    "write_study_outputs",
]

RESULTS_START = "<!-- mauger2020:results:start -->"
RESULTS_END = "<!-- mauger2020:results:end -->"
ANSWER_START = "<!-- mauger2020:answer:start -->"
ANSWER_END = "<!-- mauger2020:answer:end -->"
TITLE = "# Mauger, Le Mahec & Dequen (2020): Figures 6 to 13 under many orders"


def write_study_outputs(study: MaugerStudy, folder: str | os.PathLike[str]) -> dict[str, Path]:
    """Write the study's page blocks, plots and CSV into ``folder``, each atomically.

    ``mauger2020.md`` gets the opening answer between :data:`ANSWER_START` and
    :data:`ANSWER_END` and the results between :data:`RESULTS_START` and
    :data:`RESULTS_END` (the hand-written text around them is kept; a missing page is
    created with both); ``mauger2020_<plot>.svg`` holds each plot of
    :meth:`MaugerStudy.plots` and ``mauger2020_runs.csv`` one row per run.
    """
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    images: dict[str, str] = {}
    for name, svg in study.plots().items():
        path = out / f"mauger2020_{name.lower().replace(' ', '')}.svg"
        atomic_write_text(path, svg)
        written[name] = path
        images[name] = path.name
    csv = out / "mauger2020_runs.csv"
    with atomic_path(csv) as tmp:
        study.to_polars().write_csv(tmp)
    written["csv"] = csv
    page = out / "mauger2020.md"
    blocks = [
        (ANSWER_START, ANSWER_END, study.answer_markdown()),
        (RESULTS_START, RESULTS_END, study.to_markdown(images=images)),
    ]
    replace_marked_blocks(page, blocks, title=TITLE)  # both blocks in one write
    written["markdown"] = page
    return written


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
