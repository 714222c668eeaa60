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

References
----------
A. Gionis, T. Tassa. k-Anonymization with minimal loss of information. ESA 2007 / TKDE 2009
(seed 000).

C. Mauger, G. Le Mahec, G. Dequen. Modeling and evaluation of k-anonymization metrics.
PPAI workshop at AAAI 2020 (seed 004).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import platform
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import polars as pl

from anonkit.evaluate import LOSS_INFO
from anonkit.exceptions import AnonkitError, DataError
from anonkit.io.atomic import atomic_write, atomic_write_text
from anonkit.metrics.cost_matrix import COST_FUNCTIONS
from anonkit.study.cache import CellCache, CellOutcome
from anonkit.study.config import AlgorithmSpec, StudyConfig
from anonkit.study.grid import (
    Cell,
    StudyData,
    cell_key,
    load_study_data,
    split_indices,
    study_cells,
)

if TYPE_CHECKING:
    from anonkit.result import AnonymizationResult

__all__ = ["COLUMNS", "EVALUATIONS", "Progress", "StudyResult", "run_study"]

#: Progress callback: ``(cells done, cells in the study)``; cached cells count as done.
Progress = Callable[[int, int], None]

#: The two ways a classifier trained on a release is tested (see :mod:`anonkit.study.ml`).
EVALUATIONS: tuple[str, ...] = ("anonymized_test", "original_test")
#: Loss metrics of :func:`anonkit.evaluate.evaluate`, as ``loss_<name>`` columns.
LOSS_NAMES: tuple[str, ...] = tuple(LOSS_INFO)
STAGES: tuple[str, ...] = ("anonymize", "metrics", "utility")

_FIRST: dict[str, type[pl.DataType]] = {
    "dataset": pl.String,
    "fold": pl.Int64,
    "k": pl.Int64,
    "algorithm": pl.String,
    "variant": pl.String,
    "cell": pl.String,
    "classifier": pl.String,
    "evaluation": pl.String,
    "accuracy": pl.Float64,
    "balanced_accuracy": pl.Float64,
    "baseline_accuracy": pl.Float64,
    "accuracy_drop": pl.Float64,
    "effective_k": pl.Int64,
    "n_classes": pl.Int64,
    "suppressed_share": pl.Float64,
    "uncovered_share": pl.Float64,
}
#: The tidy table: column -> polars type, in order. One row per (fold, cell, classifier,
#: evaluation); see ``docs/studies`` and the issue-6 design for each column's meaning.
COLUMNS: Mapping[str, type[pl.DataType]] = MappingProxyType(
    {
        **_FIRST,
        **{f"loss_{name}": pl.Float64 for name in LOSS_NAMES},
        **{f"alteration_{cost}": pl.Float64 for cost in COST_FUNCTIONS},
        **{f"seconds_{stage}": pl.Float64 for stage in STAGES},
        "status": pl.String,
    }
)
_FIGURES = tuple(
    c
    for c in COLUMNS
    if c not in ("dataset", "fold", "k", "algorithm", "variant", "cell", "classifier", "evaluation")
    and not c.startswith("seconds_")
    and c != "status"
)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


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
        ``utility``; cells read from the cache count with the time they took when they
        were computed) and ``wall``, this run's elapsed time.
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
        from anonkit.study.analysis import cell_rows

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


# ------------------------------------------------------------------------------ worker
def _one_sentence(err: BaseException, *, with_type: bool = False) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return f"{type(err).__name__}: {text}" if with_type else text


@dataclass(frozen=True)
class _Fold:
    train: pl.DataFrame
    test: pl.DataFrame


class CellWorker:
    """Computes cells; holds the data, the splits and the utility setup of one study.

    One lives in every worker process (created once by the pool initializer), or in the
    calling process when the study runs with one worker.
    """

    def __init__(self, config: StudyConfig, data: StudyData | None = None) -> None:
        self.config = config
        self.data = data if data is not None else load_study_data(config)
        self.qi = tuple(config.quasi_identifiers or ())
        self.numeric = tuple(config.numeric or ())
        self.target = str(config.target)
        self.splits = split_indices(
            self.data.frame[self.target],
            folds=config.folds,
            test_size=config.test_size,
            seed=config.seed,
        )
        self._folds: dict[int, _Fold] = {}
        self._leaf_codes: dict[int, IntArray] = {}
        self._setup: Any = None

    # ---------------------------------------------------------------- shared per fold
    def fold(self, index: int) -> _Fold:
        """The train and test frames of fold ``index`` (sliced once)."""
        if index not in self._folds:
            train, test = self.splits[index]
            frame = self.data.frame
            self._folds[index] = _Fold(frame[train], frame[test])
        return self._folds[index]

    def leaf_codes(self, index: int) -> IntArray:
        """``(n_qi, n_train)``: each training value's leaf in its hierarchy (fold ``index``)."""
        if index not in self._leaf_codes:
            from anonkit.engines.polars_engine import encode_column

            train = self.fold(index).train
            h = self.data.hierarchies
            self._leaf_codes[index] = np.stack(
                [encode_column(train[c], h[c], c).to_numpy().astype(np.int64) for c in self.qi]
            )
        return self._leaf_codes[index]

    @property
    def setup(self) -> Any:
        """The :class:`anonkit.study.ml.UtilitySetup` of the study (built once)."""
        if self._setup is None:
            from anonkit.study.ml import UtilitySetup

            self._setup = UtilitySetup(
                target=self.target,
                quasi_identifiers=self.qi,
                hierarchies=dict(self.data.hierarchies),
                numeric=self.numeric,
                features=tuple(self.config.features),
                classifiers=tuple(self.config.classifiers),
                seed=self.config.seed,
                n_jobs=1,
            )
        return self._setup

    def _hierarchies(self, spec: AlgorithmSpec) -> tuple[dict[str, Any], tuple[str, ...]]:
        """Hierarchies and numeric columns the algorithm (and the metrics) read."""
        h = dict(self.data.hierarchies)
        if spec.reads_numbers:
            return {c: v for c, v in h.items() if c not in self.numeric}, self.numeric
        return h, ()

    # ---------------------------------------------------------------- cells
    def run(self, cell: Cell) -> CellOutcome:
        """Compute ``cell``; failures become an outcome with ``status = "error: ..."``."""
        seconds = dict.fromkeys(STAGES, 0.0)
        try:
            if cell.spec is None:
                rows = self._baselines(cell, seconds)
            else:
                rows = self._cell(cell, cell.spec, seconds)
        except AnonkitError as err:  # the inputs cannot make this cell: keep the failure
            return self._failed(cell, seconds, "error: " + _one_sentence(err), cacheable=True)
        except Exception as err:  # unexpected: report it, retry on the next run
            message = "error: " + _one_sentence(err, with_type=True)
            return self._failed(cell, seconds, message, cacheable=False)
        return CellOutcome(tuple(rows), MappingProxyType(seconds))

    def _base_row(self, cell: Cell, algorithm: str, variant: str, name: str) -> dict[str, Any]:
        return {
            "dataset": self.config.name,
            "fold": cell.fold,
            "k": cell.k,
            "algorithm": algorithm,
            "variant": variant,
            "cell": name,
        }

    def _failed(
        self, cell: Cell, seconds: Mapping[str, float], status: str, *, cacheable: bool
    ) -> CellOutcome:
        if cell.spec is None:
            pairs = [("original", c) for c in self.config.classifiers]
            pairs.append(("majority", "majority"))
            rows = [
                {
                    **self._base_row(cell, alg, "", alg),
                    "classifier": clf,
                    "evaluation": "original_test",
                }
                for alg, clf in pairs
            ]
        else:
            spec = cell.spec
            rows = [
                {
                    **self._base_row(cell, spec.algorithm, spec.variant, spec.cell),
                    "classifier": clf,
                    "evaluation": ev,
                }
                for clf in self.config.classifiers
                for ev in EVALUATIONS
            ]
        return CellOutcome(
            tuple(rows), MappingProxyType(dict(seconds)), status=status, cacheable=cacheable
        )

    def _cell(self, cell: Cell, spec: AlgorithmSpec, seconds: dict[str, float]) -> list[Any]:
        from anonkit.api import anonymize
        from anonkit.evaluate import evaluate
        from anonkit.study import ml
        from anonkit.study.recode import recode_test

        fold = self.fold(cell.fold)
        hierarchies, numeric = self._hierarchies(spec)
        t0 = time.perf_counter()
        result = anonymize(
            fold.train,
            quasi_identifiers=list(self.qi),
            hierarchies=hierarchies,
            k=cell.k,
            algorithm=spec.algorithm,
            suppression_limit=self.config.suppression_limit,
            numeric=list(numeric),
            # the release is measured here, never published: the class attribute and the
            # other columns stay, and the leak check (a publishing safeguard) is off
            others="keep",
            leak_check=False,
            **spec.anonymize_options(),
        )
        release: pl.DataFrame = result.release
        t1 = time.perf_counter()
        seconds["anonymize"] = t1 - t0
        ev = evaluate(
            fold.train,
            release,
            quasi_identifiers=list(self.qi),
            hierarchies=hierarchies,
            numeric=list(numeric),
            k=cell.k,
            class_attribute=self.target,
            levels=dict(result.transformation) or None,
        )
        figures: dict[str, Any] = {
            # every record fully generalized or suppressed: one indistinguishable block
            "effective_k": int(ev.classes.min_size) if ev.classes.n_classes else fold.train.height,
            "n_classes": int(ev.classes.n_classes),
            "suppressed_share": float(ev.suppressed_share),
        }
        figures.update({f"loss_{n}": float(ev.loss.get(n, math.nan)) for n in LOSS_NAMES})
        figures.update(self._alteration(cell.fold, spec, result, release))
        t2 = time.perf_counter()
        seconds["metrics"] = t2 - t1
        recoded = recode_test(
            self.setup,
            fold.train,
            release,
            fold.test,
            transformation=result.transformation,
            algorithm=result.algorithm,
        )
        figures["uncovered_share"] = float(recoded.uncovered_share)
        scores = ml.utility_scores(self.setup, fold.train, release, fold.test, recoded=recoded)
        seconds["utility"] = time.perf_counter() - t2
        rows = [
            {
                **self._base_row(cell, spec.algorithm, spec.variant, spec.cell),
                "classifier": score.classifier,
                "evaluation": score.evaluation,
                "accuracy": float(score.accuracy),
                "balanced_accuracy": float(score.balanced_accuracy),
                **figures,
            }
            for score in scores
        ]
        return rows

    def _alteration(
        self,
        fold: int,
        spec: AlgorithmSpec,
        result: AnonymizationResult,
        release: pl.DataFrame,
    ) -> dict[str, float]:
        """Percentage of alteration under the 7 costs (Mauger et al. 2020, Figures 6-8).

        Defined where every released cell is a node of its hierarchy: full-domain
        releases (one level per attribute; suppressed records at the root) and greedy
        merging (which measures it itself). Mondrian ranges and microaggregated means are
        not hierarchy nodes: NaN.
        """
        if spec.algorithm == "greedy_merge":
            return {
                f"alteration_{c}": float(result.metrics.get(f"alteration_{c}", math.nan))
                for c in COST_FUNCTIONS
            }
        if not spec.is_full_domain:
            return {f"alteration_{c}": math.nan for c in COST_FUNCTIONS}
        from anonkit.metrics.cost_matrix import alteration_percentage

        hierarchies = [self.data.hierarchies[c] for c in self.qi]
        leaves = self.leaf_codes(fold)
        levels = np.repeat(
            np.array([[result.transformation[c]] for c in self.qi], dtype=np.int64),
            leaves.shape[1],
            axis=1,
        )
        star = release.select(
            pl.all_horizontal([pl.col(c).cast(pl.String) == "*" for c in self.qi])
        ).to_series()
        suppressed = star.to_numpy().astype(bool)
        if suppressed.any():
            tops = np.array([h.max_level for h in hierarchies], dtype=np.int64)
            levels[:, suppressed] = tops[:, None]
        return {
            f"alteration_{c}": alteration_percentage(leaves, levels, hierarchies, cost=c)
            for c in COST_FUNCTIONS
        }

    def _baselines(self, cell: Cell, seconds: dict[str, float]) -> list[Any]:
        from anonkit.evaluate import evaluate
        from anonkit.study import ml

        fold = self.fold(cell.fold)
        t0 = time.perf_counter()
        # the original table measured as its own release: the loss of publishing it as is
        ev = evaluate(
            fold.train,
            fold.train,
            quasi_identifiers=list(self.qi),
            hierarchies=dict(self.data.hierarchies),
            k=1,
            class_attribute=self.target,
        )
        original: dict[str, Any] = {
            "effective_k": int(ev.classes.min_size),
            "n_classes": int(ev.classes.n_classes),
            "suppressed_share": 0.0,
            "uncovered_share": 0.0,
            **{f"loss_{n}": float(ev.loss.get(n, math.nan)) for n in LOSS_NAMES},
            **{f"alteration_{c}": 0.0 for c in COST_FUNCTIONS},
        }
        t1 = time.perf_counter()
        seconds["metrics"] = t1 - t0
        scores = ml.baseline_scores(self.setup, fold.train, fold.test)
        seconds["utility"] = time.perf_counter() - t1
        rows = []
        for score in scores:
            algorithm = "majority" if score.classifier == "majority" else "original"
            rows.append(
                {
                    **self._base_row(cell, algorithm, "", algorithm),
                    "classifier": score.classifier,
                    "evaluation": score.evaluation,
                    "accuracy": float(score.accuracy),
                    "balanced_accuracy": float(score.balanced_accuracy),
                    **(original if algorithm == "original" else {}),
                }
            )
        return rows


# ------------------------------------------------------------------------------ pool
_WORKER: CellWorker | None = None


def _init_worker(config: StudyConfig, fingerprint: str) -> None:
    """Pool initializer: load the data and split it once per process."""
    global _WORKER
    worker = CellWorker(config)
    if worker.data.fingerprint != fingerprint:
        raise DataError("The study's dataset changed while the study was starting.")
    _WORKER = worker


def _run_in_worker(cell: Cell) -> CellOutcome:
    assert _WORKER is not None, "the pool initializer did not run"
    return _WORKER.run(cell)


_THREAD_VARIABLES = (
    "POLARS_MAX_THREADS",
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
)


@contextlib.contextmanager
def _threads_per_worker(workers: int) -> Iterator[None]:
    """Cap the threads of spawned workers so that they share the cores, not fight over
    them (variables the user set are kept)."""
    per = str(max(1, (os.cpu_count() or 1) // workers))
    saved = {name: os.environ.get(name) for name in _THREAD_VARIABLES}
    for name, value in saved.items():
        if value is None:
            os.environ[name] = per
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)


def _start_worker(initializer: Callable[..., object], initargs: tuple[Any, ...]) -> None:
    """Initializer of every pool process: ignore Ctrl-C, then ``initializer(*initargs)``.

    The terminal sends SIGINT to the whole process group; the parent alone handles it and
    stops the workers (:func:`_stop_pool`), so a worker neither prints a traceback nor
    finishes its cell first.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    initializer(*initargs)


@contextlib.contextmanager
def _spawning() -> Iterator[None]:
    """Spawn worker processes inside: Ctrl-C waits until the block ends.

    A process being spawned is not yet in the pool's list, so an interruption then
    would leave it running. This thread blocks SIGINT, and the spawned processes inherit
    the mask, so a Ctrl-C that reaches them while they import (before
    :func:`_start_worker` ignores it) stays pending instead of killing them with a
    traceback (``multiprocessing.resource_tracker`` starts its process the same way).
    Other threads of this process may still receive it, so the Python handler is
    deferred too (main thread only): the Ctrl-C is raised again when the block ends.
    Spawning takes milliseconds per process as long as the initializer's arguments are
    small (they are written to a pipe that the new process reads only after its imports).
    """
    deferred: list[int] = []
    main = threading.current_thread() is threading.main_thread()
    if main:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: deferred.append(signum))
    mask = None
    if hasattr(signal, "pthread_sigmask"):
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        if main:
            signal.signal(signal.SIGINT, previous)
            if deferred:
                signal.raise_signal(signal.SIGINT)


def _stop_pool(pool: ProcessPoolExecutor, processes: Sequence[Any], grace: float = 1.0) -> None:
    """Drop the queued tasks and end the workers now (terminate, then kill).

    ``ProcessPoolExecutor.shutdown`` lets running tasks finish, which for a study cell
    can take minutes; Python before 3.14 has no public way to end the workers, so they
    are ``processes`` (taken once they were spawned) and the pool's own list.
    """
    current = getattr(pool, "_processes", None) or {}
    processes = [*processes, *(p for p in current.values() if p not in processes)]
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    deadline = time.monotonic() + grace
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(grace)


def run_in_processes(
    task: Callable[[Any], Any],
    items: Sequence[Any],
    finished: Callable[[int, Any], None],
    *,
    workers: int,
    initializer: Callable[..., object],
    initargs: tuple[Any, ...],
) -> None:
    """Run ``task(item)`` for every item in a spawn-context process pool.

    Calls ``finished(index, result)`` in this process as each task ends (in the order they
    end). Every worker runs ``initializer(*initargs)`` once and ignores Ctrl-C; on any
    exception in this process (Ctrl-C, a failed task, an error in ``finished``) the
    queued tasks are dropped and the workers are ended at once, so no worker outlives
    the call. Spawn, not fork: a forked child of a process whose polars or numpy thread
    pools run can deadlock.

    Parameters
    ----------
    task, initializer
        Module-level functions (they are pickled by name for the workers).
    items
        The tasks' arguments (pickled to the workers).
    finished
        Called with the index of the item and the task's result.
    workers
        Processes to start.
    initargs
        Arguments of ``initializer`` (pickled once per worker).
    """
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    with _threads_per_worker(workers):
        pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=context,
            initializer=_start_worker,
            initargs=(initializer, initargs),
        )
        processes: list[Any] = []
        try:
            with _spawning():  # the workers are spawned by the first submits
                pending: dict[Future[Any], int] = {
                    pool.submit(task, item): i for i, item in enumerate(items)
                }
                processes = list((getattr(pool, "_processes", None) or {}).values())
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    finished(pending.pop(future), future.result())
        except BaseException:
            _stop_pool(pool, processes)
            raise
        pool.shutdown(wait=True)


def _run_pool(
    config: StudyConfig,
    fingerprint: str,
    cells: Sequence[Cell],
    todo: Sequence[int],
    workers: int,
    finished: Callable[[int, CellOutcome], None],
) -> None:
    run_in_processes(
        _run_in_worker,
        [cells[i] for i in todo],
        lambda j, outcome: finished(todo[j], outcome),
        workers=workers,
        initializer=_init_worker,
        initargs=(config, fingerprint),
    )


# ------------------------------------------------------------------------------ table
def _assemble(config: StudyConfig, outcomes: Sequence[CellOutcome]) -> pl.DataFrame:
    """The tidy table: rows of every cell in grid order, baseline columns filled in."""
    baseline: dict[tuple[int, str], float] = {}
    for outcome in outcomes:
        for row in outcome.rows:
            if row.get("algorithm") in ("original", "majority") and "accuracy" in row:
                baseline[(int(row["fold"]), str(row["classifier"]))] = float(row["accuracy"])
    records = []
    for outcome in outcomes:
        seconds = {f"seconds_{s}": float(outcome.seconds.get(s, 0.0)) for s in STAGES}
        for row in outcome.rows:
            record = {c: row.get(c) for c in COLUMNS}
            for c in _FIGURES:
                if record[c] is None and COLUMNS[c] == pl.Float64:
                    record[c] = math.nan
            base = baseline.get((int(row["fold"]), str(row["classifier"])), math.nan)
            accuracy = float(record["accuracy"] if record["accuracy"] is not None else math.nan)
            record["baseline_accuracy"] = base
            record["accuracy_drop"] = base - accuracy
            record.update(seconds)
            record["status"] = outcome.status
            records.append(record)
    return pl.DataFrame(records, schema=dict(COLUMNS))


def _versions() -> dict[str, str]:
    import sys
    from importlib import metadata

    from anonkit import __version__

    out = {"anonkit": __version__, "python": sys.version.split()[0]}
    for package in ("polars", "numpy", "scikit-learn"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:  # pragma: no cover
            out[package] = "not installed"
    return out


def _machine() -> dict[str, Any]:
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
    }


def _report_writer() -> Callable[..., Any] | None:
    """The HTML report function of :mod:`anonkit.study.report`, if that module exists."""
    try:
        from anonkit.study import report
    except ImportError:
        return None
    writer = getattr(report, "write_study_report", None)
    return writer if callable(writer) else None


def _report_settings(config: StudyConfig) -> dict[str, Any]:
    """The settings the HTML report lists."""
    return {
        "dataset": config.name,
        "target": config.target,
        "quasi-identifiers": ", ".join(config.quasi_identifiers or ()),
        "numeric": ", ".join(config.numeric or ()) or "none",
        "k": ", ".join(str(k) for k in config.k_values or ()),
        "algorithms": ", ".join(s.cell for s in config.algorithms or ()),
        "suppression limit": config.suppression_limit,
        "classifiers": ", ".join(config.classifiers),
        "folds": config.folds,
        "test size": config.test_size if config.folds == 1 else f"1/{config.folds}",
        "seed": config.seed,
    }


def _write_outputs(
    config: StudyConfig,
    frame: pl.DataFrame,
    summary: Mapping[str, Any],
) -> dict[str, Path]:
    """``results.csv``, ``report.html`` (when available) and ``study.json``, atomically."""
    folder = Path(config.output)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"results": folder / "results.csv", "study": folder / "study.json"}
    atomic_write(paths["results"], lambda tmp: frame.write_csv(tmp))
    writer = _report_writer()
    if writer is not None:
        paths["report"] = folder / "report.html"
        writer(
            frame,
            paths["report"],
            title=f"Utility study: {config.name}",
            config_summary=_report_settings(config),
            timing={"wall-clock": summary["timing_seconds"]["wall"]},
        )
    payload = {**summary, "files": {name: str(p) for name, p in paths.items()}}
    atomic_write_text(paths["study"], json.dumps(payload, indent=2, allow_nan=False) + "\n")
    return paths


# ------------------------------------------------------------------------------ run
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
        ``False`` computes every cell afresh (finished cells are still written to the
        cache, so a later run can resume from them).

    Returns
    -------
    StudyResult

    Raises
    ------
    UnknownColumnError, InputFileError, DataError, ParameterError
        If the dataset cannot be loaded or split as configured (before any cell runs).
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
    data = load_study_data(config)
    cells = study_cells(config)
    keys = [cell_key(cell, config, data.fingerprint) for cell in cells]
    cache = CellCache(config.cache_folder)
    outcomes: dict[int, CellOutcome] = {}
    if use_cache:
        for i, key in enumerate(keys):
            found = cache.read(key)
            if found is not None:
                outcomes[i] = found
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
        worker = CellWorker(config, data)
        for i in todo:
            finished(i, worker.run(cells[i]))
    elif workers > 1:
        _run_pool(config, data.fingerprint, cells, todo, workers, finished)

    ordered = [outcomes[i] for i in range(total)]
    frame = _assemble(config, ordered)
    timing = {s: float(sum(o.seconds.get(s, 0.0) for o in ordered)) for s in STAGES}
    failed = sum(1 for o in ordered if not o.ok)
    train, test = split_indices(
        data.frame[str(config.target)],
        folds=config.folds,
        test_size=config.test_size,
        seed=config.seed,
    )[0]
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
        "versions": _versions(),
        "machine": _machine(),
    }
    paths = _write_outputs(config, frame, summary)
    timing["wall"] = time.perf_counter() - start
    return StudyResult(
        frame=frame,
        timing=MappingProxyType(timing),
        cells_total=total,
        cells_computed=total - cached,
        cells_cached=cached,
        cells_failed=failed,
        paths=MappingProxyType(paths),
        config=config,
    )
