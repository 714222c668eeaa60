"""Run a study: every cell of the grid, in parallel, cached, into one tidy table.

:func:`run_study` loads the dataset, splits it into train/test folds, and for every cell
(fold, requested k, algorithm spec) anonymizes the training part, measures the release
with every loss metric (:func:`anonkit.evaluate.evaluate`) and the cost-matrix family of
Mauger et al. (2020), and scores classifiers trained on it
(:func:`anonkit.study.ml.utility_scores`); per fold the baselines (original data, majority
class) come from :func:`anonkit.study.ml.baseline_scores`. Cells run in a spawn-context
process pool, each worker loading the data once; every finished cell is cached before it
is counted, so an interrupted study resumes with the missing cells only. The result is
the tidy table of :data:`COLUMNS`, written as ``results.csv`` with ``study.json``
(settings, timings, versions, machine) and, when :mod:`anonkit.study.report` is
available, ``report.html``.

The cells are computed by :mod:`anonkit.study.cells` in the process pool of
:mod:`anonkit.study.pool`; the table and the files come from :mod:`anonkit.study.outputs`.

References
----------
A. Gionis, T. Tassa. k-Anonymization with minimal loss of information. ESA 2007 / TKDE 2009
(seed 000).

C. Mauger, G. Le Mahec, G. Dequen. Modeling and evaluation of k-anonymization metrics.
PPAI workshop at AAAI 2020 (seed 004).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from anonkit._frozen import FrozenDict
from anonkit.exceptions import warn_caller
from anonkit.study.analysis import cell_rows
from anonkit.study.cache import CellCache, CellOutcome
from anonkit.study.cells import STAGES, CellWorker, run_cells_in_processes
from anonkit.study.config import StudyConfig
from anonkit.study.grid import (
    Cell,
    NoHierarchyWarning,
    cell_key,
    load_study_data,
    split_indices,
    study_cells,
)
from anonkit.study.outputs import (
    COLUMNS,
    assemble,
    check_outputs,
    machine,
    versions,
    write_outputs,
)
from anonkit.study.report import write_study_report
from anonkit.study.setup import EVALUATIONS

__all__ = ["COLUMNS", "EVALUATIONS", "Progress", "StudyResult", "cached_results", "run_study"]

#: Progress callback: ``(cells done, cells in the study)``; cached cells count as done.
Progress = Callable[[int, int], None]


# ------------------------------------------------------------------------------ result
@dataclass(frozen=True)
class StudyResult:
    """What :func:`run_study` returns.

    Attributes
    ----------
    frame
        The tidy table (:data:`COLUMNS`), one row per (fold, cell, classifier,
        evaluation), baselines first in each fold.
    timing
        Seconds per stage summed over the study's cells (``anonymize``, ``metrics``,
        ``utility``, and ``cpu``, the cells' CPU time; cells read from the cache count
        with the time they took when they were computed) and ``wall``, this run's elapsed
        time.
    cells_total, cells_computed, cells_cached, cells_failed
        Cells of the study; computed by this run; read from the cache; whose status is
        an error.
    paths
        Files written: ``results`` (CSV), ``study`` (JSON) and ``report`` (HTML, when the
        report module is available).
    config
        The settings of the study.
    """

    frame: pl.DataFrame
    timing: Mapping[str, float]
    cells_total: int
    cells_computed: int
    cells_cached: int
    cells_failed: int
    paths: Mapping[str, Path]
    config: StudyConfig

    def best_cells(self, evaluation: str = "anonymized_test") -> pl.DataFrame:
        """Per classifier, the anonymized cell of highest mean accuracy (over folds).

        Columns ``classifier, cell, k, accuracy, accuracy_drop``; failed cells, baselines
        and releases below the requested k are left out (:func:`analysis.cell_rows`).
        """
        ok = cell_rows(self.frame, evaluation=evaluation)
        means = ok.group_by(["classifier", "cell", "k"], maintain_order=True).agg(
            pl.col("accuracy").mean(), pl.col("accuracy_drop").mean()
        )
        return (
            means.sort(["accuracy", "k"], descending=[True, True])
            .group_by("classifier", maintain_order=True)
            .first()
            .sort("classifier")
        )

    def __repr__(self) -> str:
        return (
            f"StudyResult(cells={self.cells_total}, computed={self.cells_computed}, "
            f"cached={self.cells_cached}, failed={self.cells_failed}, "
            f"rows={self.frame.height}, wall={self.timing.get('wall', 0.0):.1f}s)"
        )


# ------------------------------------------------------------------------------ report
def _report_writer() -> Callable[..., Any]:
    """The study's HTML report writer (the tests put a lighter one in its place)."""
    return write_study_report


# ------------------------------------------------------------------------------ run
def _in_grid(outcome: CellOutcome, cell: Cell) -> CellOutcome:
    """A cached outcome under the name and suppression limit ``cell`` has in this grid.

    The cache key leaves out what only names a cell: ``flash:loss`` of a study with one
    suppression limit is ``flash:loss@0%`` in one that varies it, the same figures.
    """
    if cell.spec is None:
        return outcome
    named = {"cell": cell.name, "suppression_limit": cell.suppression}
    return dataclasses.replace(outcome, rows=tuple({**row, **named} for row in outcome.rows))


def run_study(
    config: StudyConfig, *, progress: Progress | None = None, use_cache: bool = True
) -> StudyResult:
    """Run every cell of a study and write ``results.csv`` and ``study.json``.

    Parameters
    ----------
    config
        The study's settings.
    progress
        Called as ``progress(done, total)`` in cells, once with the cells found in the
        cache and after every computed cell.
    use_cache
        ``False`` computes every cell afresh and trains on every release again, reading
        neither the finished cells nor the scores of releases from the cache (both are
        still written there, so a later run can resume from them). Cells read from the
        cache take the name and suppression limit of this grid.

    Returns
    -------
    StudyResult

    Raises
    ------
    UnknownColumnError, InputFileError, DataError, ParameterError
        If the dataset cannot be loaded or split as configured (before any cell runs).

    Warns
    -----
    NoHierarchyWarning
        Once, before any cell runs, when quasi-identifiers have no hierarchy but ``*``.
    OutputIsInputError, OutputLocationError
        If an output file (``results.csv``, ``study.json``, ``report.html``) is one the
        study reads, or the output folder cannot take files (before any cell runs).
        Cells that fail (a k larger than the training split, ...) do not raise: their
        rows carry ``status = "error: ..."``.

    Examples
    --------
    >>> import tempfile
    >>> cfg = StudyConfig(k_values=[5, 50], algorithms=[{"algorithm": "flash"}],
    ...                   classifiers=["logistic_regression"], workers=1,
    ...                   output=tempfile.mkdtemp())
    >>> result = run_study(cfg)  # doctest: +SKIP
    >>> result.frame.select("k", "cell", "accuracy_drop", "loss_ncp")  # doctest: +SKIP
    """
    start = time.perf_counter()
    check_outputs(config)
    data = load_study_data(config)
    if data.without_hierarchy:  # once, before the work (the cells cannot tell)
        warn_caller(NoHierarchyWarning(data.without_hierarchy))
    # split here, before any cell: a split error in the process pool's workers broke it
    train, test = split_indices(
        data.frame[str(config.target)],
        folds=config.folds,
        test_size=config.test_size,
        seed=config.seed,
        repeats=config.repeats,
    )[0]
    cells = study_cells(config)
    keys = [cell_key(cell, config, data.fingerprint) for cell in cells]
    cache = CellCache(config.cache_folder)
    outcomes: dict[int, CellOutcome] = {}
    if use_cache:
        for i, key in enumerate(keys):
            found = cache.read(key)
            if found is not None:
                outcomes[i] = _in_grid(found, cells[i])
    cached = len(outcomes)
    total = len(cells)
    if progress is not None:
        progress(cached, total)

    def finished(index: int, outcome: CellOutcome) -> None:
        cache.write(keys[index], outcome)  # cached before it is counted
        outcomes[index] = outcome
        if progress is not None:
            progress(len(outcomes), total)

    todo = [i for i in range(total) if i not in outcomes]
    workers = min(config.n_workers, len(todo))
    if workers == 1:
        worker = CellWorker(config, data, use_cache=use_cache)
        for i in todo:
            finished(i, worker.run(cells[i]))
    elif workers > 1:
        run_cells_in_processes(
            config, data.fingerprint, cells, todo, workers, finished, use_cache=use_cache
        )

    ordered = [outcomes[i] for i in range(total)]
    frame = assemble(ordered)
    timing = {s: float(sum(o.seconds.get(s, 0.0) for o in ordered)) for s in STAGES}
    failed = sum(1 for o in ordered if not o.ok)
    timing["wall"] = time.perf_counter() - start
    summary = {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "config": config.to_dict(),
        "dataset": {
            "name": config.name,
            "records": data.frame.height,
            "dropped_for_missing_values": data.dropped,
            "complete_records": data.available,
            "train_records": int(train.shape[0]),
            "test_records": int(test.shape[0]),
            "fingerprint": data.fingerprint,
        },
        "cells": {"total": total, "computed": total - cached, "cached": cached, "failed": failed},
        "rows": frame.height,
        "timing_seconds": timing,
        "versions": versions(),
        "machine": machine(),
    }
    paths = write_outputs(config, frame, summary, _report_writer())
    timing["wall"] = time.perf_counter() - start
    return StudyResult(
        frame=frame,
        timing=FrozenDict(timing),
        cells_total=total,
        cells_computed=total - cached,
        cells_cached=cached,
        cells_failed=failed,
        paths=FrozenDict(paths),
        config=config,
    )


def cached_results(config: StudyConfig) -> tuple[pl.DataFrame, int, int]:
    """The tidy table of the cells of ``config`` already in its cache (nothing computed).

    For drawing results while a long study still runs, or after it was interrupted: only
    splits whose every cell is cached contribute (a split cut halfway would weigh some k
    and settings more than others). Returns ``(frame, cells of the complete splits,
    cells in the study)``.
    """
    data = load_study_data(config)
    cells = study_cells(config)
    cache = CellCache(config.cache_folder)
    found = [(cell, cache.read(cell_key(cell, config, data.fingerprint))) for cell in cells]
    incomplete = {c.fold for c, o in found if o is None}
    outcomes = [_in_grid(o, c) for c, o in found if o is not None and c.fold not in incomplete]
    return assemble(outcomes), len(outcomes), len(cells)
