"""Files of the reproduction of Mauger et al. (2020): the plots, the CSV, the page blocks.

:func:`write_outputs` writes ``mauger2020_figure9.svg``, ``mauger2020_runs.csv`` and the
block of ``mauger2020.md`` between :data:`RESULTS_START` and :data:`RESULTS_END`;
:func:`write_study_outputs` the plots, the CSV and both blocks of the multi-order study.
Each writes its files together (:func:`anonkit.study.staging.staged_files`): an
interruption leaves the previous page and the figures it links as they were.
"""

from __future__ import annotations

import os
from pathlib import Path

from anonkit.study.markdown import with_marked_blocks
from anonkit.study.mauger2020.results import Reproduction
from anonkit.study.mauger2020.study import MaugerStudy
from anonkit.study.staging import staged_files

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
    """Write the study's page blocks, plots and CSV into ``folder``, together.

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
    # staged, then renamed together with the page: never new plots beside an old page
    with staged_files() as stage:
        for name, svg in study.plots().items():
            path = out / f"mauger2020_{name.lower().replace(' ', '')}.svg"
            stage(path).write_text(svg, encoding="utf-8")
            written[name] = path
            images[name] = path.name
        csv = out / "mauger2020_runs.csv"
        study.to_polars().write_csv(stage(csv))
        written["csv"] = csv
        page = out / "mauger2020.md"
        blocks = [
            (ANSWER_START, ANSWER_END, study.answer_markdown()),
            (RESULTS_START, RESULTS_END, study.to_markdown(images=images)),
        ]
        text = with_marked_blocks(page, blocks, title=TITLE)
        stage(page).write_text(text, encoding="utf-8")
        written["markdown"] = page
    return written


def write_outputs(rep: Reproduction, folder: str | os.PathLike[str]) -> dict[str, Path]:
    """Write ``mauger2020_figure9.svg``, ``mauger2020_runs.csv`` and the results block.

    The Markdown of :meth:`Reproduction.to_markdown` replaces the part of
    ``folder/mauger2020.md`` between ``<!-- mauger2020:results:start -->`` and
    ``<!-- mauger2020:results:end -->`` (the rest of the page is kept); a page without
    the markers gets the block appended, a missing page is created. The three files are
    written together (:func:`anonkit.study.staging.staged_files`).
    """
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    svg, csv, page = (
        out / "mauger2020_figure9.svg",
        out / "mauger2020_runs.csv",
        out / "mauger2020.md",
    )
    with staged_files() as stage:
        stage(svg).write_text(rep.figure9_svg(), encoding="utf-8")
        rep.to_polars().write_csv(stage(csv))
        block = (RESULTS_START, RESULTS_END, rep.to_markdown(figure9_image=svg.name))
        title = "# Mauger et al. (2020): Figures 6 to 9 reproduced"
        stage(page).write_text(with_marked_blocks(page, [block], title=title), encoding="utf-8")
    return {"svg": svg, "csv": csv, "markdown": page}
